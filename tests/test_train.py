"""mishran.engines.amp: the AMP loop, gradient accumulation, the scaler's skipped steps, clipping, exact resume."""
import json
import math
import re
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mishran.engines.amp import TrainConfig, amp_step, load_checkpoint, save_checkpoint, train
from mishran.precision import autocast, grad_scaler

BENGALI = re.compile(r"[\u0980-\u09FF]")

# A tiny character-level model in the style of nanoGPT: forward(idx, targets) -> (logits, loss). Dropout makes
# the torch RNG matter; the batches come from a torch.Generator; both must be restored for an exact resume.
MODEL_SOURCE = '''
import torch, torch.nn as nn, torch.nn.functional as F

class TinyLM(nn.Module):
    def __init__(self, vocab=16, d=32, dropout=0.1):
        super().__init__()
        self.embed, self.fc, self.head = nn.Embedding(vocab, d), nn.Linear(d, d), nn.Linear(d, vocab)
        self.drop = nn.Dropout(dropout)

    def forward(self, idx, targets=None):
        logits = self.head(self.drop(F.gelu(self.fc(self.embed(idx)))))          # (B, T, vocab)
        return logits, F.cross_entropy(logits.flatten(0, 1), targets.flatten())

DATA = torch.randint(0, 16, (2000,), generator=torch.Generator().manual_seed(7))

def batches(generator, batch=4, block=8):
    def get_batch():
        ix = torch.randint(0, len(DATA) - block - 1, (batch,), generator=generator)
        x = torch.stack([DATA[i:i + block] for i in ix])
        y = torch.stack([DATA[i + 1:i + block + 1] for i in ix])
        return x, y
    return get_batch
'''
namespace = {}
exec(MODEL_SOURCE, namespace)
TinyLM, batches = namespace["TinyLM"], namespace["batches"]


class Regression(nn.Module):
    """y = w·x + b with MSE loss; small enough to reason about gradients by hand."""

    def __init__(self, n=4):
        super().__init__()
        self.lin = nn.Linear(n, 1)

    def forward(self, x, targets=None):
        out = self.lin(x)
        return out, F.mse_loss(out.float(), targets)


# ------------------------------------------------------------------ exact resume across processes

RESUME_PARTS = textwrap.dedent('''
    import json, sys
    from mishran.precision import grad_scaler
    from mishran.engines.amp import TrainConfig, train, save_checkpoint, load_checkpoint
    K = 4

    def setup(precision, seed, device):
        torch.manual_seed(seed)
        model = TinyLM().to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        generator = torch.Generator().manual_seed(seed + 1)
        # a fast-growing scale, so the scaler's state (scale and growth tracker) changes the run
        scaler = grad_scaler(device, precision, init_scale=2.0 ** 10, growth_interval=2)
        return model, optimizer, generator, batches(generator), scaler

    def config(precision, steps=K):
        return TrainConfig(precision=precision, steps=steps, accumulation_steps=2, clip_norm=1.0)

    def first_part(folder, device):
        """2K steps in one go, and K steps then a checkpoint."""
        out = {}
        for precision in ["fp32", "fp16", "bf16"]:
            model, opt, gen, get_batch, scaler = setup(precision, 0, device)
            full = train(model, opt, get_batch, config(precision, 2 * K), scaler=scaler)
            model, opt, gen, get_batch, scaler = setup(precision, 0, device)
            log = train(model, opt, get_batch, config(precision), scaler=scaler)
            save_checkpoint(f"{folder}/{precision}.pt", model, opt, scaler, step=log.end_step, generator=gen)
            out[precision] = {"full": [full.losses, full.scales], "first": [log.losses, log.scales]}
        return out

    def second_part(folder, device):
        """In a fresh process: load, then K more steps."""
        out = {}
        for precision in ["fp32", "fp16", "bf16"]:
            # other seeds: only what the checkpoint restores can make the runs agree
            model, opt, gen, get_batch, scaler = setup(precision, 123, device)
            step = load_checkpoint(f"{folder}/{precision}.pt", model, opt, scaler, generator=gen)
            log = train(model, opt, get_batch, config(precision), scaler=scaler, start_step=step)
            out[precision] = {"second": [log.losses, log.scales], "start": step}
        return out

    if __name__ == "__main__":
        print(json.dumps(second_part(sys.argv[1], sys.argv[2])))
''')
exec(RESUME_PARTS, namespace)


CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU here")


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=CUDA)])
def test_resume_in_a_fresh_process_gives_the_same_losses_bit_for_bit(tmp_path, device):
    first = namespace["first_part"](tmp_path, device)
    script = tmp_path / "resume.py"
    script.write_text(MODEL_SOURCE + RESUME_PARTS, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(tmp_path), device], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    second = json.loads(done.stdout.strip().splitlines()[-1])
    for precision in ["fp32", "fp16", "bf16"]:
        (full_losses, full_scales), (a_losses, a_scales) = first[precision]["full"], first[precision]["first"]
        b_losses, b_scales = second[precision]["second"]
        assert second[precision]["start"] == 4
        assert a_losses + b_losses == full_losses, precision            # exact equality of floats
        assert a_scales + b_scales == full_scales, precision
    # fp16's scale really moved during the run, so restoring it was tested
    assert len(set(first["fp16"]["full"][1])) > 1
    assert first["fp32"]["full"][1] == [] and first["bf16"]["full"][1] == []


# ------------------------------------------------------------------ accumulation (lesson 04)

def _one_step_weights(accumulation_steps, micro_batch, x, y, precision="fp32"):
    torch.manual_seed(0)
    model = TinyLM(dropout=0.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    chunks = iter(zip(x.split(micro_batch), y.split(micro_batch), strict=True))
    config = TrainConfig(precision=precision, steps=1, accumulation_steps=accumulation_steps)
    log = train(model, optimizer, lambda: next(chunks), config)
    return log, [p.detach().clone() for p in model.parameters()]


def test_k_micro_batches_of_n_equal_one_batch_of_k_times_n_in_fp32():
    torch.manual_seed(1)
    x, y = torch.randint(0, 16, (12, 8)), torch.randint(0, 16, (12, 8))
    big_log, big = _one_step_weights(1, 12, x, y)
    for k, n in [(3, 4), (4, 3), (12, 1)]:
        log, small = _one_step_weights(k, n, x, y)
        assert log.losses[0] == pytest.approx(big_log.losses[0], rel=1e-6)
        for a, b in zip(small, big, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_accumulation_with_bf16_autocast_stays_close_to_the_big_batch():
    torch.manual_seed(1)
    x, y = torch.randint(0, 16, (12, 8)), torch.randint(0, 16, (12, 8))
    _, big = _one_step_weights(1, 12, x, y, "bf16")
    _, small = _one_step_weights(4, 3, x, y, "bf16")
    for a, b in zip(small, big, strict=True):
        torch.testing.assert_close(a, b, rtol=2e-2, atol=2e-3)


# ------------------------------------------------------------------ amp_step: the one step everything runs

def _recipe_steps(model, optimizer, scaler, precision, batches, k, clip_norm):
    """PyTorch's AMP recipe written out by hand (the oracle): scale → backward per micro-batch, loss ÷ k; at the
    boundary unscale_ → clip → step → update → zero_grad."""
    losses = []
    for step_batches in batches:
        total = torch.zeros(())
        for x, y in step_batches:
            with torch.amp.autocast("cpu", dtype=getattr(torch, {"fp16": "float16", "bf16": "bfloat16"}.get(
                    precision, "float32")), enabled=precision != "fp32"):
                _, loss = model(x, y)
                loss = loss / k
            scaler.scale(loss).backward()
            total += loss.detach()
        if clip_norm is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        losses.append(total)
    return losses


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("k, clip_norm", [(1, None), (3, 1.0)])
def test_amp_step_is_the_hand_written_recipe_bit_for_bit(precision, k, clip_norm):
    get_batch = batches(torch.Generator().manual_seed(0))
    steps = [[get_batch() for _ in range(k)] for _ in range(4)]
    runs = []
    for by_hand in (True, False):
        torch.manual_seed(0)
        model = TinyLM()                                           # dropout on: the torch RNG must agree too
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        scaler = grad_scaler("cpu", precision, init_scale=2.0 ** 10, growth_interval=2)
        if by_hand:
            losses = _recipe_steps(model, optimizer, scaler, precision, steps, k, clip_norm)
        else:
            ctx = autocast("cpu", precision)
            losses = [amp_step(model, optimizer, scaler, ctx, micro, clip_norm=clip_norm)[0] for micro in steps]
        runs.append((losses, [p.detach().clone() for p in model.parameters()], scaler.state_dict()))
    (hand_losses, hand_weights, hand_scaler), (losses, weights, scaler_state) = runs
    assert [t.item() for t in losses] == [t.item() for t in hand_losses]
    assert all(torch.equal(a, b) for a, b in zip(weights, hand_weights, strict=True))
    assert scaler_state == hand_scaler


def test_amp_step_returns_the_pre_clip_norm_and_leaves_no_gradient():
    torch.manual_seed(0)
    x, y = torch.randn(16, 4), 5 * torch.randn(16, 1)
    reference = Regression()
    reference(x, y)[1].backward()
    true_norm = torch.cat([p.grad.flatten() for p in reference.parameters()]).norm()
    model = Regression()
    model.load_state_dict(reference.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss, norm = amp_step(model, optimizer, grad_scaler("cpu", "fp32"), autocast("cpu", "fp32"),
                          [(x[:8], y[:8]), (x[8:], y[8:])], clip_norm=0.5)
    assert norm.item() == pytest.approx(true_norm.item(), rel=1e-5)      # the mean over both halves = the big batch
    assert loss.item() == pytest.approx(reference(x, y)[1].item(), rel=1e-5)
    assert all(p.grad is None for p in model.parameters())                # zero_grad at the boundary


def test_amp_step_refuses_fewer_micro_batches_than_promised_before_any_update():
    model = Regression()
    before = [p.detach().clone() for p in model.parameters()]
    two = ((torch.randn(4, 4), torch.randn(4, 1)) for _ in range(2))
    with pytest.raises(ValueError, match="micro_batches != accumulation_steps") as err:
        amp_step(model, torch.optim.SGD(model.parameters(), lr=0.1), grad_scaler("cpu", "fp32"),
                 autocast("cpu", "fp32"), two, accumulation_steps=3)
    assert BENGALI.search(str(err.value))
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), before, strict=True))


def test_train_runs_every_step_through_amp_step_fetching_each_micro_batch_just_in_time(monkeypatch):
    from mishran.engines import amp as train_module

    events, calls = [], []
    real = train_module.amp_step

    def counting(*args, **kwargs):
        calls.append(args[5])                                      # accumulation_steps
        return real(*args, **kwargs)

    monkeypatch.setattr(train_module, "amp_step", counting)
    model = TinyLM(dropout=0.0)
    model.register_forward_pre_hook(lambda *a: events.append("forward"))
    get_batch = batches(torch.Generator().manual_seed(0))

    def fetch():
        events.append("batch")
        return get_batch()

    train(model, torch.optim.SGD(model.parameters(), lr=0.1), fetch, TrainConfig(steps=3, accumulation_steps=2))
    assert calls == [2, 2, 2]
    assert events == ["batch", "forward"] * 6                       # not all batches first: the RNG order holds


# ------------------------------------------------------------------ GradScaler: skipped steps, clipping

def test_an_overflow_step_is_reported_skipped_and_the_scale_halves():
    torch.manual_seed(0)
    model = Regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    calls = iter(range(100))

    def get_batch():
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        if next(calls) == 2:
            x[0, 0] = 1e6        # > 65504: becomes inf when autocast casts it to FP16
        return x, y

    log = train(model, optimizer, get_batch, TrainConfig(precision="fp16", steps=5),
                scaler=grad_scaler("cpu", "fp16", init_scale=1024.0))
    assert log.skipped == [2]
    assert log.scales == [1024.0, 1024.0, 1024.0, 512.0, 512.0]
    assert not torch.isfinite(torch.tensor(log.losses[2]))
    assert all(torch.isfinite(p).all() for p in model.parameters())      # the bad step never reached the weights


def test_a_skipped_step_leaves_the_weights_unchanged():
    torch.manual_seed(0)
    model = Regression()
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    log = train(model, optimizer, lambda: (torch.full((2, 4), 1e6), torch.zeros(2, 1)),
                TrainConfig(precision="fp16", steps=1), scaler=grad_scaler("cpu", "fp16"))
    assert log.skipped == [0]
    for a, b in zip(model.parameters(), before, strict=True):
        assert torch.equal(a, b)


def test_clipping_happens_after_unscale_so_the_norm_is_in_true_units():
    torch.manual_seed(0)
    x, y = torch.randn(16, 4), 5 * torch.randn(16, 1)             # big targets: a big gradient
    reference = Regression()
    _, loss = reference(x, y)
    loss.backward()
    true_norm = torch.cat([p.grad.flatten() for p in reference.parameters()]).norm().item()

    model = Regression()
    model.load_state_dict(reference.state_dict())
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)        # update = −(clipped gradient)
    log = train(model, optimizer, lambda: (x, y), TrainConfig(precision="fp16", steps=1, clip_norm=0.5),
                scaler=grad_scaler("cpu", "fp16", init_scale=1024.0))
    assert log.scales == [1024.0] and log.skipped == []
    # measured after unscale_: the FP32 gradient's norm (FP16 rounding aside), not 1024 times it
    assert log.grad_norms[0] == pytest.approx(true_norm, rel=1e-2)
    assert true_norm > 0.5
    update = torch.cat([(a - b).flatten() for a, b in zip(model.parameters(), before, strict=True)])
    assert update.norm().item() == pytest.approx(0.5, rel=1e-3)      # clipped to clip_norm in true units


# ------------------------------------------------------------------ the scaler in the checkpoint

def test_checkpoint_holds_and_restores_the_scaler_state(tmp_path):
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = grad_scaler("cpu", "fp16", init_scale=256.0, growth_interval=3)
    get_batch = batches(torch.Generator().manual_seed(0))
    log = train(model, optimizer, get_batch, TrainConfig(precision="fp16", steps=7), scaler=scaler)
    save_checkpoint(tmp_path / "c.pt", model, optimizer, scaler, step=log.end_step)
    assert torch.load(tmp_path / "c.pt", weights_only=True)["scaler"] == scaler.state_dict()
    assert scaler.state_dict()["scale"] == 1024.0 and scaler.state_dict()["_growth_tracker"] == 1

    fresh = grad_scaler("cpu", "fp16")
    assert load_checkpoint(tmp_path / "c.pt", TinyLM(), None, fresh) == 7
    assert fresh.state_dict() == scaler.state_dict()

    with pytest.raises(ValueError, match="missing GradScaler state") as err:
        load_checkpoint(tmp_path / "c.pt", TinyLM(), scaler=None)
    assert BENGALI.search(str(err.value))


def test_a_fresh_scaler_cannot_silently_resume_a_checkpoint_without_one(tmp_path):
    model = TinyLM()
    save_checkpoint(tmp_path / "c.pt", model, torch.optim.SGD(model.parameters(), lr=0.1), scaler=None, step=3)
    with pytest.raises(ValueError, match="no GradScaler state"):
        load_checkpoint(tmp_path / "c.pt", model, scaler=grad_scaler("cpu", "fp16"))
    assert load_checkpoint(tmp_path / "c.pt", model, scaler=grad_scaler("cpu", "bf16")) == 3


def test_checkpoint_with_a_generator_needs_the_generator_back(tmp_path):
    model = TinyLM()
    gen = torch.Generator().manual_seed(5)
    save_checkpoint(tmp_path / "c.pt", model, torch.optim.SGD(model.parameters(), lr=0.1), generator=gen)
    with pytest.raises(ValueError, match="torch.Generator missing"):
        load_checkpoint(tmp_path / "c.pt", model)


# ------------------------------------------------------------------ the return value and the loop's habits

def test_the_log_has_one_entry_per_step_and_positive_times():
    model = TinyLM()
    log = train(model, torch.optim.SGD(model.parameters(), lr=0.1), batches(torch.Generator()),
                TrainConfig(steps=3), start_step=10)
    assert log.steps == [10, 11, 12] and log.end_step == 13
    assert len(log.losses) == len(log.step_times) == 3 and all(t > 0 for t in log.step_times)
    assert log.skipped == [] and log.scales == [] and log.grad_norms == []
    assert "fp32" in str(log)


def test_the_loop_moves_numbers_to_the_host_only_at_log_steps(monkeypatch, capsys):
    """No .item() per step: losses stay on the device until a log step or the end of the loop."""
    calls = {"item": 0, "tolist": 0}
    item, tolist = torch.Tensor.item, torch.Tensor.tolist

    def counting(name, fn):
        def wrapper(self, *args, **kwargs):
            calls[name] += 1
            return fn(self, *args, **kwargs)
        return wrapper

    model = TinyLM(dropout=0.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)         # SGD: no .item() of its own
    get_batch = batches(torch.Generator().manual_seed(0))
    monkeypatch.setattr(torch.Tensor, "item", counting("item", item))
    monkeypatch.setattr(torch.Tensor, "tolist", counting("tolist", tolist))
    train(model, optimizer, get_batch, TrainConfig(precision="bf16", steps=6, clip_norm=1.0))
    assert calls["item"] == 0
    assert calls["tolist"] == 2                                     # once at the end: the losses, the norms
    train(model, optimizer, get_batch, TrainConfig(precision="bf16", steps=6, log_every=3))
    assert calls["item"] == 2                                       # steps 0 and 3
    assert capsys.readouterr().out.count("loss") == 2
    calls.update(item=0, tolist=0)
    train(model, optimizer, get_batch, TrainConfig(precision="fp16", steps=5), scaler=grad_scaler("cpu", "fp16"))
    # torch's scaler.step reads found_inf once per step (.item()); the loop's own skip detection adds none
    assert calls["item"] == 5 and calls["tolist"] == 2             # the losses, the scales


def test_the_loop_uses_no_private_gradscaler_api(monkeypatch):
    def private(self, *args, **kwargs):
        raise AssertionError("train() called GradScaler._get_scale_async")

    monkeypatch.setattr(torch.amp.GradScaler, "_get_scale_async", private)
    model = TinyLM(dropout=0.0)
    log = train(model, torch.optim.SGD(model.parameters(), lr=0.1), batches(torch.Generator().manual_seed(0)),
                TrainConfig(precision="fp16", steps=3, clip_norm=1.0), scaler=grad_scaler("cpu", "fp16"))
    assert log.scales == [65536.0] * 3 and log.skipped == []


def test_progress_bar_and_log_lines(capsys):
    model = TinyLM()
    log = train(model, torch.optim.SGD(model.parameters(), lr=0.1), batches(torch.Generator()),
                TrainConfig(precision="fp16", steps=4, log_every=2, progress=True), scaler=grad_scaler("cpu", "fp16"))
    captured = capsys.readouterr()
    assert "step 0: loss" in captured.out and "step 2: loss" in captured.out and "scale 65536" in captured.out
    assert "fp16" in captured.err                                    # tqdm writes its bar to stderr
    assert len(log.losses) == 4


def test_helpers_switch_autocast_and_scaler_on_only_where_needed():
    assert not grad_scaler("cpu", "fp32").is_enabled()
    assert not grad_scaler("cpu", "bf16").is_enabled()
    assert grad_scaler("cpu", "fp16").is_enabled()
    lin = nn.Linear(4, 4)
    for precision, dtype in [("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)]:
        with autocast("cpu", precision):
            assert lin(torch.randn(2, 4)).dtype == dtype


# ------------------------------------------------------------------ learner-facing errors

@pytest.mark.parametrize("kwargs, key", [
    (dict(precision="fp8"), "unknown precision"),
    (dict(precision="tf32"), "set_float32_matmul_precision"),
    (dict(accumulation_steps=0), "accumulation_steps must be a positive integer"),
    (dict(steps=-1), "steps must be a non-negative integer"),
    (dict(clip_norm=0.0), "clip_norm"),
    (dict(log_every=-5), "log_every"),
])
def test_bad_config_is_a_bengali_error(kwargs, key):
    with pytest.raises(ValueError, match=key) as err:
        TrainConfig(**kwargs)
    assert BENGALI.search(str(err.value))


def _expect(error, key, model, config, scaler=None):
    with pytest.raises(error, match=key) as err:
        train(model, torch.optim.SGD(model.parameters(), lr=0.1), batches(torch.Generator()), config, scaler=scaler)
    assert BENGALI.search(str(err.value))


def test_fp16_with_half_weights_is_refused():
    _expect(ValueError, "fp16 requested but the weights are not FP32", TinyLM().half(), TrainConfig(precision="fp16"))


def test_scaler_must_match_the_precision():
    _expect(ValueError, "fp16 requested but the GradScaler is disabled", TinyLM(), TrainConfig(precision="fp16"),
            scaler=grad_scaler("cpu", "fp32"))
    _expect(ValueError, "GradScaler is only for fp16", TinyLM(), TrainConfig(precision="bf16"),
            scaler=grad_scaler("cpu", "fp16"))


def test_device_errors():
    if not torch.cuda.is_available():
        _expect(ValueError, "CUDA is not available", TinyLM(), TrainConfig(device="cuda"))
    _expect(ValueError, "device mismatch", TinyLM().to("meta"), TrainConfig(device="cpu"))


def test_a_single_pair_instead_of_a_list_of_pairs_is_a_clear_error():
    """amp_step([x, y]) would otherwise unpack the rows of x as a micro-batch."""
    model = Regression()
    x, y = torch.randn(2, 4), torch.randn(2, 1)
    with pytest.raises(TypeError, match="each item of micro_batches must be a pair of tensors") as err:
        amp_step(model, torch.optim.SGD(model.parameters(), lr=0.1), grad_scaler("cpu", "fp32"),
                 autocast("cpu", "fp32"), (x, y))
    assert BENGALI.search(str(err.value))


@pytest.mark.parametrize("call, error, key", [
    (lambda m, o: amp_step(m, o, grad_scaler("cpu", "fp32"), autocast("cpu", "fp32"), [], 2 ** 2000),
     ValueError, "accumulation_steps is too large"),
    (lambda m, o: amp_step(m, o, grad_scaler("cpu", "fp32"), autocast("cpu", "fp32"), [], torch.tensor([1, 2])),
     ValueError, "accumulation_steps must be a positive integer"),
    (lambda m, o: train(m, o, lambda: None, TrainConfig(steps=1), start_step=1.5),
     ValueError, "start_step must be a non-negative integer"),
    (lambda m, o: save_checkpoint(7, m, o), TypeError, "path must be a str or PathLike"),
    (lambda m, o: save_checkpoint("", m, o), TypeError, "path must be a str or PathLike"),
    (lambda m, o: save_checkpoint("c.pt", m, o, step=math.nan), ValueError, "step must be a non-negative integer"),
    (lambda m, o: load_checkpoint("no-such.pt", m, o), FileNotFoundError, "checkpoint file not found"),
])
def test_the_door_refuses_odd_values_in_bengali(tmp_path, monkeypatch, call, error, key):
    monkeypatch.chdir(tmp_path)
    model = Regression()
    with pytest.raises(error, match=key) as err:
        call(model, torch.optim.SGD(model.parameters(), lr=0.1))
    assert BENGALI.search(str(err.value))
    assert not list(tmp_path.iterdir())                              # nothing was written


def test_load_checkpoint_flags_must_be_true_or_false(tmp_path):
    model = Regression()
    save_checkpoint(tmp_path / "c.pt", model, torch.optim.SGD(model.parameters(), lr=0.1), step=2)
    for flag in ("restore_rng", "return_extra"):
        with pytest.raises(TypeError, match=f"{flag} must be True or False"):
            load_checkpoint(tmp_path / "c.pt", model, **{flag: "yes"})
    assert load_checkpoint(tmp_path / "c.pt", model, restore_rng=False, return_extra=True) == (2, None)


def test_loss_fn_serves_models_that_return_only_logits():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    x = torch.randn(32, 4)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
    log = train(model, torch.optim.SGD(model.parameters(), lr=0.1), lambda: (x, y), TrainConfig(steps=30),
                loss_fn=F.mse_loss)
    assert log.losses[-1] < 0.01 * log.losses[0]


def test_trains_the_course_tinygpt_on_the_bengali_corpus():
    from mishran import data
    from mishran.models import gpt as models
    dataset = data.CharDataset()
    model = models.TinyGPT(models.GPTConfig(vocab_size=dataset.vocab_size, block_size=16), seed=0)
    gen = torch.Generator().manual_seed(0)
    log = train(model, torch.optim.AdamW(model.parameters(), lr=3e-3),
                lambda: dataset.get_batch("train", 8, 16, generator=gen),
                TrainConfig(precision="bf16", steps=12, accumulation_steps=2, clip_norm=1.0))
    assert log.losses[-1] < log.losses[0] - 0.5


# ------------------------------------------------------------------ DDP: allreduce only at the boundary

@pytest.fixture
def one_process_group(monkeypatch):
    """A real gloo process group of one rank; destroyed afterwards, the environment restored."""
    import torch.distributed as dist

    from mishran.engines.gloo_workers import free_port
    if dist.is_initialized():
        pytest.skip("a process group is already running in this process")
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(free_port()))
    dist.init_process_group("gloo", rank=0, world_size=1)
    yield
    dist.destroy_process_group()


@pytest.mark.parametrize("accum", [1, 4])
def test_ddp_allreduces_once_per_optimizer_step_not_per_micro_step(one_process_group, accum):
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)
    model = DDP(Regression())
    calls = []

    def counting_allreduce(state, bucket):
        calls.append(bucket.index())
        return default_hooks.allreduce_hook(state, bucket)

    model.register_comm_hook(None, counting_allreduce)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    log = train(model, torch.optim.SGD(model.parameters(), lr=0.1), lambda: (x, y),
                TrainConfig(steps=3, accumulation_steps=accum))
    assert len(calls) == 3 and len(log.losses) == 3                 # one bucket, one allreduce per step
