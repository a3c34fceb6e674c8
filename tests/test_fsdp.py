"""mishran.engines.fsdp: FSDP2 with four mixed precision policies on a real two-process gloo group (lesson 09).

The oracles are independent of the code under test: TinyGPT's parameter count by hand, the bytes of a shard by
the dtype's element size (FP32 4, BF16 2; AdamW keeps two moments), a single-process FP32 run of the same
model on the same global batches (computed inside the report, but by plain torch without FSDP), and Adam's
step-size bound for how far BF16 compute may move the weights.
"""
import json
import math
import subprocess
import sys

import pytest
import torch

STEPS, WORLD, MICRO, ACCUM, LR = 3, 2, 4, 2, 1e-3
V, T, C, L = 83, 32, 64, 2            # the course corpus has 83 characters; mishran.engines.fsdp.MODEL's sizes
# TinyGPT by hand: tied embedding V·C, positions T·C, per block 2 LayerNorms (4C), qkv (3C² + 3C), proj (C² + C),
# MLP (4C² + 4C and 4C² + C); final LayerNorm 2C
PSI = V * C + T * C + L * (4 * C + 3 * C * C + 3 * C + C * C + C + 4 * C * C + 4 * C + 4 * C * C + C) + 2 * C
ELEMENT = {"fp32": 4, "bf16": 2}


@pytest.fixture(scope="module")
def raw():
    """The command line's JSON (mishran.cli.write_record to stdout), as the lesson reads it."""
    out = subprocess.run([sys.executable, "-m", "mishran.engines.fsdp", "--world", str(WORLD), "--steps", str(STEPS),
                          "--micro", str(MICRO), "--accum", str(ACCUM)],
                         capture_output=True, text=True, timeout=180, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def report(raw):
    from mishran.engines.fsdp import FsdpReport
    return FsdpReport.from_dict(raw)


def test_the_report_describes_the_run(report, raw):
    from mishran.engines.fsdp import PolicyResult, RankShard, RealReduce
    assert report.world_size == WORLD and report.backend == "gloo" and report.attempts in (1, 2)
    assert report.global_batch == MICRO * ACCUM * WORLD and report.num_params == PSI == 107_456
    assert list(report.policies) == ["fp32", "bf16", "bf16_reduce", "cast_first"]
    assert all(isinstance(r, PolicyResult) and all(isinstance(x, RankShard) for x in r.per_rank)
               for r in report.policies.values()) and isinstance(report.real_reduce, RealReduce)
    assert report.policies["bf16"].policy == {"param_dtype": "bf16", "reduce_dtype": "fp32",
                                              "output_dtype": None, "cast_forward_inputs": True}
    assert report.policies["bf16_reduce"].policy["reduce_dtype"] == "bf16"
    assert report.policies["fp32"].policy["param_dtype"] is None
    assert report.to_dict() == raw                                     # the typed result and its JSON are one


@pytest.mark.parametrize("name, stored", [("fp32", "fp32"), ("bf16", "fp32"), ("bf16_reduce", "fp32"),
                                          ("cast_first", "bf16")])
def test_each_rank_holds_its_shard_by_the_hand_formula(report, name, stored):
    r = report.policies[name]
    ranks = r.per_rank
    assert [x.rank for x in ranks] == list(range(WORLD))
    assert sum(x.param_numel for x in ranks) == PSI                    # every weight on exactly one rank
    size = ELEMENT[stored]
    for x in ranks:
        assert abs(x.param_numel - PSI / WORLD) < 0.01 * PSI / WORLD     # about Ψ/W each (rows split evenly)
        assert x.param_bytes == size * x.param_numel
        assert x.grad_bytes == size * x.param_numel
        assert x.optim_bytes == 2 * size * x.param_numel              # AdamW: exp_avg and exp_avg_sq
    assert r.bytes_per_param == pytest.approx(4 * size)             # 16 B (like ZeRO-3) or 8 B with no master


EXPECTED_DTYPES = {  # sharded, compute, block output, logits, gradient, AdamW state
    "fp32": ("fp32", "fp32", "fp32", "fp32", "fp32", "fp32"),
    "bf16": ("fp32", "bf16", "bf16", "bf16", "fp32", "fp32"),
    "bf16_reduce": ("fp32", "bf16", "bf16", "bf16", "fp32", "fp32"),
    "cast_first": ("bf16", "bf16", "bf16", "bf16", "bf16", "bf16"),
}


@pytest.mark.parametrize("name", EXPECTED_DTYPES)
def test_where_each_dtype_lives(report, name):
    r = report.policies[name]
    assert (r.sharded_param_dtype, r.compute_param_dtype, r.block_output_dtype, r.logits_dtype, r.grad_dtype,
            r.optim_state_dtype) == EXPECTED_DTYPES[name]


def test_fp32_matches_one_process_and_bf16_stays_within_bf16_noise(report):
    p = report.policies
    assert p["fp32"].max_abs_diff_vs_fp32_single < 1e-5               # only the order of the sums differs
    adam_bound = 2 * STEPS * LR      # Adam moves a weight at most ≈ lr a step; two runs differ by at most twice that
    for name in ("bf16", "bf16_reduce", "cast_first"):
        diff = p[name].max_abs_diff_vs_fp32_single
        assert 100 * p["fp32"].max_abs_diff_vs_fp32_single < diff < adam_bound, (name, diff)


def test_losses_are_the_same_run_up_to_rounding(report):
    p = report.policies
    ref = p["fp32"].losses
    assert len(ref) == STEPS and ref[-1] < ref[0] and math.log(V) - 0.2 < ref[0] < math.log(V) + 0.2
    for name in ("bf16", "bf16_reduce", "cast_first"):
        assert p[name].losses == pytest.approx(ref, rel=2e-3), name
        assert p[name].losses != ref                                    # BF16 compute does change the numbers


def test_bf16_weights_without_a_master_lose_small_updates(report):
    p = report.policies
    assert report.probe_lr == 1e-5
    for name in ("fp32", "bf16", "bf16_reduce"):
        assert p[name].unchanged_fraction < 0.01, name                   # FP32 shards take every tiny update
    assert p["cast_first"].unchanged_fraction > 0.5                        # BF16 shards round most of them away
    assert p["cast_first"].unchanged_fraction > 50 * p["bf16"].unchanged_fraction


# ---------------------------------------------------------------- in this process

def test_mp_policy_builds_torchs_policy():
    from torch.distributed.fsdp import MixedPrecisionPolicy

    from mishran.engines.fsdp import POLICIES, mp_policy
    assert mp_policy("fp32") is None
    assert mp_policy("bf16") == MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    assert mp_policy("bf16_reduce") == MixedPrecisionPolicy(param_dtype=torch.bfloat16,
                                                            reduce_dtype=torch.bfloat16)
    assert mp_policy("cast_first") == mp_policy("bf16")
    assert all(isinstance(v, str) and v for v in POLICIES.values())


@pytest.mark.parametrize("flag, value", [("--world", "0"), ("--steps", "0"), ("--micro", "2.5"), ("--accum", "-1"),
                                         ("--lr", "nan"), ("--lr", "-0.001"), ("--policies", "fp32,fp64")])
def test_the_command_line_refuses_nonsense_in_one_bengali_line(flag, value):
    """The learner's door is the command line: argparse's exit status 2, one line, no traceback, no process started."""
    out = subprocess.run([sys.executable, "-m", "mishran.engines.fsdp", flag, value], capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 2 and "Traceback" not in out.stderr and out.stdout == ""
    assert any("\u0980" <= ch <= "\u09ff" for ch in out.stderr) and flag in out.stderr


def test_a_one_rank_world_shards_and_trains_in_this_process():
    """shard_model works for world size 1 (the notebook's own kernel); one bf16 step keeps FP32 shards."""
    from torch.distributed.device_mesh import init_device_mesh

    from mishran import precision
    from mishran.engines.amp import amp_step
    from mishran.engines.fsdp import gradient_sync, shard_model
    from mishran.engines.gloo_workers import free_port
    from mishran.models.gpt import GPTConfig, TinyGPT
    if not torch.distributed.is_initialized():
        store = torch.distributed.TCPStore("127.0.0.1", free_port(), 1, is_master=True)
        torch.distributed.init_process_group("gloo", store=store, rank=0, world_size=1)
    model = TinyGPT(GPTConfig(vocab_size=V, block_size=8, n_layer=1, n_head=2, n_embd=8), seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    # mesh=None is the group's default mesh: the CPU here, but CUDA on a GPU machine, where this test stays on the CPU
    mesh = None if not torch.cuda.is_available() else init_device_mesh("cpu", (1,))
    shard_model(model, "bf16", mesh=mesh)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x = torch.randint(0, V, (3, 2, 8), generator=torch.Generator().manual_seed(0))
    loss, _ = amp_step(model, opt, precision.grad_scaler("cpu", "fp32"), precision.autocast("cpu", "fp32"),
                       [(x[0], x[1]), (x[1], x[2])], sync=gradient_sync(model))
    assert torch.isfinite(loss)
    after = [p.full_tensor() for p in model.parameters()]
    assert all(p.dtype == torch.float32 for p in after)
    assert all((a - b).abs().max() > 1e-3 for a, b in zip(after, before, strict=True))   # Adam's first step ≈ lr


def test_real_gloo_allreduce_equals_the_ring_simulation_bit_for_bit(report):
    """Two real processes add the same sample with gloo's allreduce: the one-CPU ring simulation of
    mishran.numerics.communication (lesson 09, part 3) must give the very same bits, in BF16 and FP32,
    and BF16's error must be BF16-sized."""
    real = report.real_reduce
    assert real.world == WORLD and real.bf16_matches_simulation and real.fp32_matches_simulation
    assert 1e-4 < real.bf16_error < 1e-2 and real.fp32_error < 1e-6
