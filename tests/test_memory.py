"""mishran.measure.memory (lesson 06): the ledger against hand counts, torch's own behaviour
and DeepSpeed's estimator."""
import pytest
import torch

from mishran.engines.deepspeed_config import zero_estimates
from mishran.measure.memory import MODES, SavedTensorCounter, activation_bytes, measure_step, storage_bytes
from mishran.models.gpt import GPTConfig, TinyGPT

VOCAB = 40


def tiny(seed=0, **kw):
    return TinyGPT(GPTConfig(vocab_size=VOCAB, block_size=32, n_layer=2, n_head=2, n_embd=32, **kw), seed=seed)


def batch(b=4, t=32, seed=0, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(VOCAB, (b, t), generator=g)
    y = torch.randint(VOCAB, (b, t), generator=g)
    return x.to(device), y.to(device)


def unique_params(model):
    return list({p.data_ptr(): p for p in model.parameters()}.values())


def linear_weight_numel(model):
    """Weights that go through a matmul (Linear), tied lm_head/wte counted once."""
    return sum({id(m.weight): m.weight.numel() for m in model.modules()
                if isinstance(m, torch.nn.Linear)}.values())


# ---------------------------------------------------------------- saved tensors, by hand

def test_linear_saves_its_input_only_when_the_weight_needs_no_input_grad():
    lin = torch.nn.Linear(16, 8)
    x = torch.randn(5, 16)                       # no grad needed for x → the weight is not saved
    with SavedTensorCounter(lin) as c:
        lin(x)
    assert c.activations == 5 * 16 * 4
    assert c.saved_parameters == 0 and c.cast_cache == 0


def test_linear_relu_activation_bytes_by_hand():
    lin = torch.nn.Linear(16, 8)
    x = torch.randn(5, 16, requires_grad=True)   # now the weight is saved too (for dx), but it is a parameter
    with SavedTensorCounter(lin) as c:
        torch.relu(lin(x))
    # x (5×16 FP32) for dW, relu's output (5×8 FP32) for its own backward; the weight is not an activation
    assert c.activations == 5 * 16 * 4 + 5 * 8 * 4
    assert c.saved_parameters == 8 * 16 * 4


def test_autocast_casts_go_to_the_cast_cache():
    lin = torch.nn.Linear(16, 8)
    x = torch.randn(5, 16, requires_grad=True)
    with SavedTensorCounter(lin) as c, torch.autocast("cpu", dtype=torch.bfloat16):
        lin(x)
        lin(x)                                   # the cached BF16 weight is reused, not cast again
    assert c.activations == 5 * 16 * 2           # BF16 copy of x
    assert c.cast_cache == 8 * 16 * 2            # BF16 copy of the weight, once
    assert c.saved_parameters == 0


@pytest.mark.parametrize("dtype", [None, torch.bfloat16])
def test_counting_changes_no_gradient_and_keeps_no_graph_alive(dtype):
    import gc
    import weakref

    x, y = batch()
    grads, alive = [], []
    for count in (False, True):
        model, refs = tiny(), []
        hooks = SavedTensorCounter(model) if count else torch.autograd.graph.saved_tensors_hooks(
            lambda t: t, lambda t: t)
        with hooks, torch.autocast("cpu", dtype=dtype or torch.bfloat16, enabled=dtype is not None):
            logits, loss = model(x, y)
        loss.backward()
        grads.append([p.grad for p in model.parameters()])
        # a forward with no backward, as activation_bytes does; GELU saves c_fc's output
        handle = model.transformer.h[0].mlp.c_fc.register_forward_hook(
            lambda mod, inp, out, refs=refs: refs.append(weakref.ref(out)))
        with SavedTensorCounter(model):
            logits, loss = model(x, y)
        handle.remove()
        del logits, loss
        gc.collect()
        alive.append(refs[0]() is not None)
    assert all(torch.equal(a, b) for a, b in zip(*grads, strict=True))
    assert alive == [False, False]               # the graph is freed: the counter holds no cycle


def test_views_of_one_storage_count_once():
    t = torch.randn(64, 32)
    seen: set = set()
    assert storage_bytes([t, t.t(), t[:10], t.view(-1)], seen) == 64 * 32 * 4 and len(seen) == 1
    assert storage_bytes([t[5:], torch.zeros(3)], seen) == 3 * 4       # what is in seen is not counted again


# ---------------------------------------------------------------- model states

def test_fp32_adam_is_16_bytes_per_parameter_by_hand():
    model = tiny()
    params = unique_params(model)
    psi = sum(p.numel() for p in params)
    led = measure_step(model, batch(), mode="fp32")
    assert led.num_parameters == psi
    assert led.parameters == 4 * psi and led.gradients == 4 * psi and led.master_weights == 0
    # exp_avg + exp_avg_sq in FP32, plus one FP32 `step` scalar per parameter tensor (torch keeps it as a tensor)
    assert led.optimizer_state == 8 * psi + 4 * len(params)
    assert 16 <= led.bytes_per_parameter < 16.01
    assert led.cast_cache == 0 and led.peak_allocated is None


@pytest.mark.parametrize("mode", ["amp_bf16", "amp_fp16"])
def test_amp_keeps_fp32_weights_and_adds_a_cast_cache(mode):
    model = tiny()
    psi = sum(p.numel() for p in unique_params(model))
    cast = 2 * linear_weight_numel(model)
    led = measure_step(model, batch(), mode=mode)
    assert led.parameters == 4 * psi and led.gradients == 4 * psi      # autocast does not touch the weights
    assert led.cast_cache == cast
    fp32 = measure_step(tiny(), batch(), mode="fp32")
    assert led.model_states == fp32.model_states                        # mixed precision saves no model state
    assert led.activations < 0.75 * fp32.activations                     # ...but it does save activations


def test_deepspeed_bf16_zero_matches_deepspeeds_own_estimator():
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.zero.stage_1_and_2 import (
        estimate_zero2_model_states_mem_needs,
    )
    model = tiny()
    psi = sum(p.numel() for p in unique_params(model))
    led = measure_step(model, batch(), mode="ds_bf16", zero_stage=2)
    _, estimate = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=1, cpu_offload=False)
    assert estimate == 20 * psi                                          # 2Ψ + 18Ψ/N with N = 1
    assert led.parameters == 2 * psi and led.master_weights == 4 * psi
    assert led.model_states == pytest.approx(estimate, rel=1e-3)


@pytest.mark.parametrize("mode", ["fp32", "amp_fp16", "amp_bf16"])
def test_the_step_is_mishran_train_amp_step_and_only_its_forward_is_counted(monkeypatch, mode):
    from mishran.measure import memory

    calls = []
    real = memory.amp_step
    monkeypatch.setattr(memory, "amp_step", lambda *a, **k: calls.append(mode) or real(*a, **k))
    led = measure_step(tiny(), batch(), mode=mode, warmup=2, steps=3)
    assert len(calls) == 2 + 3
    # the same forward alone saves exactly this; the step's backward and optimizer (GradScaler's scale) add nothing
    assert (led.engine, led.precision) == MODES[mode] and led.mode == mode
    alone = activation_bytes(tiny(), batch(), led.precision)
    assert (led.activations, led.cast_cache) == (alone.activations, alone.cast_cache)


def test_a_deepspeed_mode_runs_ds_engine_step_and_leaves_the_learners_engine_alone(monkeypatch):
    pytest.importorskip("deepspeed")
    from mishran.engines import deepspeed_config as ds_config
    from mishran.engines import deepspeed_engine as ds

    calls = []
    real = ds.engine_step
    monkeypatch.setattr(ds, "engine_step", lambda *a, **k: calls.append(1) or real(*a, **k))
    config = ds_config.config_for_device(micro_batch=4, zero_stage=1, precision="bf16")
    mine = ds.initialize(tiny(seed=1), config)                   # the learner's engine, still in use
    try:
        led = measure_step(tiny(), batch(), mode="ds_bf16", zero_stage=2)
        assert len(calls) == 2 and led.zero_stage == 2
        assert ds.current_engine() is mine                       # measure_step's own engine never replaced it
        before = [p.detach().clone() for p in mine.module.parameters()]
        loss = real(mine, [batch()])                             # ...and it still trains
        assert torch.isfinite(loss) and mine.global_steps == 1
        assert any(not torch.equal(a, b) for a, b in zip(before, mine.module.parameters(), strict=True))
    finally:
        ds.release(mine)
    assert ds.current_engine() is None


def test_zero_estimates_paper_and_deepspeed():
    pytest.importorskip("deepspeed")
    psi, n = 10 ** 9, 8
    est = zero_estimates(psi, n)
    assert est[0]["paper"] == 16 * psi
    assert est[1]["paper"] == 4 * psi + 12 * psi / n
    assert est[2]["paper"] == 2 * psi + 14 * psi / n
    assert est[3]["paper"] == 16 * psi / n
    assert est[2]["deepspeed"] == 2 * psi + 18 * psi // n                # an FP32 gradient copy more
    assert est[3]["deepspeed"] == 18 * psi // n


def test_unknown_mode_is_refused():
    for mode in ("fp8", ("deepspeed", "fp32"), ("torch", "bfloat16")):
        with pytest.raises(ValueError, match="unknown mode"):
            measure_step(tiny(), batch(), mode=mode)


def test_a_mode_is_an_engine_and_precision_pair_and_its_name_is_read_only_at_the_door():
    from mishran.precision import NAMES

    assert all(engine in ("torch", "deepspeed") and precision in NAMES for engine, precision in MODES.values())
    by_name = measure_step(tiny(), batch(), mode="amp_bf16")
    by_pair = measure_step(tiny(), batch(), mode=("torch", "bf16"))
    assert (by_pair.engine, by_pair.precision, by_pair.label) == ("torch", "bf16", "amp_bf16")
    assert by_pair.to_dict() | {"step_seconds": None} == by_name.to_dict() | {"step_seconds": None}
    assert by_name.to_dict()["mode"] == "amp_bf16" and by_name.to_dict()["bytes_per_parameter"] > 0


# ---------------------------------------------------------------- activations

def test_activations_grow_linearly_with_batch_and_sequence():
    a = activation_bytes(tiny(), batch(b=2, t=16)).activations
    b = activation_bytes(tiny(), batch(b=4, t=16)).activations
    c = activation_bytes(tiny(), batch(b=2, t=32)).activations
    assert b == pytest.approx(2 * a, rel=0.01)
    assert c == pytest.approx(2 * a, rel=0.01)    # SDPA does not keep the T×T attention matrix on CPU


def test_checkpointing_keeps_only_block_inputs_and_gives_identical_gradients():
    x, y = batch()
    grads = {}
    saved = {}
    for flag in (False, True):
        model = tiny(checkpoint=flag)
        with SavedTensorCounter(model) as c:
            _, loss = model(x, y)
        loss.backward()
        saved[flag] = c.activations
        grads[flag] = [p.grad.clone() for p in model.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(grads[False], grads[True], strict=True))
    assert saved[True] < 0.5 * saved[False]


def test_checkpointing_with_dropout_gives_identical_gradients():
    x, y = batch()
    grads = []
    for flag in (False, True):
        torch.manual_seed(123)
        model = tiny(checkpoint=flag, dropout=0.2)
        _, loss = model(x, y)
        loss.backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*grads, strict=True))


def test_checkpoint_flag_does_nothing_without_grad():
    model = tiny(checkpoint=True)
    with torch.no_grad():
        logits, _ = model(batch()[0])
    ref, _ = tiny(checkpoint=False)(batch()[0])
    assert torch.equal(logits, ref.detach())


# ---------------------------------------------------------------- CUDA: ledger vs the allocator

@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU: the allocator's peak "
                    "(torch.cuda.max_memory_allocated) exists only there; the CPU tests count tensors instead")
@pytest.mark.parametrize("mode", ["fp32", "amp_bf16"])
def test_ledger_sum_is_near_the_cuda_allocator_peak(mode):
    # Lesson 06's GPU size: activations dominate. What the ledger leaves out (cuBLAS workspace, the widest
    # transient gradient of one block's backward) is then small beside the sum; in a tiny model it is not.
    cfg = GPTConfig(vocab_size=VOCAB, block_size=256, n_layer=12, n_head=6, n_embd=384)
    x, y = batch(b=32, t=256, device="cuda")
    torch.cuda.empty_cache()
    led = measure_step(TinyGPT(cfg, seed=0).cuda(), (x, y), mode=mode)
    assert led.peak_allocated >= led.parameters + led.optimizer_state
    assert led.ledger_sum == pytest.approx(led.peak_allocated, rel=0.15)
    assert led.details["untracked_at_start"] >= 0
