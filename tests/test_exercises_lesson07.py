"""Lesson 07 exercise checks: right answers pass, typical wrong answers fail with a hint, blanks never fail."""
import math

import torch

from mishran.exercises import lesson07 as ex
from mishran.numerics import fp8


def test_blank_answers_give_a_reminder_not_an_error(capsys):
    for verdict in (ex.check_mfu_with_checkpointing(...), ex.check_sharded_vocab(...),
                    ex.check_fp8_roundtrip(..., ...), ex.check_fp8_step_speedup(...), ex.check_fp8_matmul_fix(...)):
        assert not verdict
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_checkpointing_lowers_mfu_by_the_recomputed_share(capsys):
    """By hand, from the matmul shapes: a block's forward matmuls are qkv 3C², attention out C², MLP 4C² + 4C²; the
    non-reentrant checkpoint stops recomputing once backward has what it saved, so the MLP's last 4C² is not rerun:
    8/12 of the blocks' forward again. Forward ≈ 1/3 of forward + backward (FlopCounterMode counts backward as 2×;
    it does not count CPU SDPA, and the head is small), so the step runs 1 + (1/3)(8/12)(share of blocks) ≈ 1.21×
    the model's FLOPs, and MFU = 0.45 / 1.21 ≈ 0.37."""
    assert ex.check_mfu_with_checkpointing(0.371) and ex.check_mfu_with_checkpointing("37.1")
    capsys.readouterr()
    for wrong in (0.45, 0.3375, 0.6, 0.2):          # unchanged, "a whole forward again", higher, far off
        assert not ex.check_mfu_with_checkpointing(wrong), wrong
    hints = capsys.readouterr().out
    assert "FlopCounterMode" in hints and "0.37" not in hints and "1.21" not in hints
    assert not ex.check_mfu_with_checkpointing("x") and not ex.check_mfu_with_checkpointing(math.inf)


def test_a_sharded_head_needs_each_shard_to_be_a_multiple():
    # by hand: 8 equal shards of a multiple of 128 → vocab a multiple of 1024; 49 × 1024 = 50176 ≥ 50001 > 48 × 1024
    assert ex.VOCAB_QUESTION == {"tokens": 50001, "multiple": 128, "shards": 8}
    assert ex.check_sharded_vocab(50176)
    for wrong in (50048, 50001, 50304, 49152, 51200, 50176.5, 10 ** 9):   # unsharded answer, too small, ...
        assert not ex.check_sharded_vocab(wrong), wrong
    assert ex.check_sharded_vocab(50048, {"tokens": 50001, "multiple": 128, "shards": 1})   # one GPU: the old rule


def test_fp8_roundtrip_by_hand():
    # amax 1.2e-3 → scale 57344 / 1.2e-3 = 4.7787e7; 3.1e-4 × scale = 14813.9 → E5M2 step 2048 there → 14336
    scale = 57344 / 1.2e-3
    restored = 14336 / scale
    assert ex.check_fp8_roundtrip(scale, restored)
    assert not ex.check_fp8_roundtrip(1 / scale, restored)           # inverted scale
    assert not ex.check_fp8_roundtrip(scale, 3.1e-4)                # no rounding step
    assert not ex.check_fp8_roundtrip(448 / 1.2e-3, restored)       # E4M3's max, not E5M2's


def test_fp8_step_speedup_is_amdahls_law_with_the_cast_cost():
    # by hand: 0.4 + 0.6 / 1.6 + 0.1 × 0.6 = 0.835 of the BF16 step -> 1.198x
    assert ex.check_fp8_step_speedup(1.198) and ex.check_fp8_step_speedup("1.2")
    for wrong in (1.6, 1.29, 1.0, 0.835, 2.0):        # matmul alone, no cast cost, no gain, the time, "FP8 = 2x"
        assert not ex.check_fp8_step_speedup(wrong), wrong
    assert ex.check_fp8_step_speedup(1 / (0.05 + 0.95 / 1.6 + 0.02 * 0.95),            # a wide model: matmul 95%
                                     {"matmul_share": 0.95, "fp8_matmul_speedup": 1.6, "cast_overhead": 0.02})


def test_the_buggy_matmul_fails_and_a_fixed_one_passes():
    namespace = {"fp8": fp8}
    exec(ex.BUGGY_FP8_MATMUL, namespace)
    assert not ex.check_fp8_matmul_fix(namespace["buggy_fp8_matmul"])

    def fixed(a, b):
        sa = fp8.compute_scale(fp8.amax(a), "fp8_e4m3")
        sb = fp8.compute_scale(fp8.amax(b), "fp8_e4m3")
        return (fp8.quantize(a, "fp8_e4m3", sa) @ fp8.quantize(b, "fp8_e4m3", sb)) / (sa * sb)

    def with_torch_casts(a, b):                                      # torch's own FP8 cast is just as right
        sa, sb = 448 / a.abs().max(), 448 / b.abs().max()
        return ((a * sa).to(torch.float8_e4m3fn).float() @ (b * sb).to(torch.float8_e4m3fn).float()) / (sa * sb)

    assert ex.check_fp8_matmul_fix(fixed) and ex.check_fp8_matmul_fix(with_torch_casts)
    assert not ex.check_fp8_matmul_fix(lambda a, b: a @ b)           # no FP8 at all: too exact
    assert not ex.check_fp8_matmul_fix(lambda a, b: 1 / 0)


def test_exercise_3_prompt_does_not_name_the_binade():
    """The prompt of 07.3 once asked for the spacing 'between 8192 and 16384' — the binade of the answer."""
    import json
    from pathlib import Path

    nb = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "07_speed_and_fp8.ipynb").read_text("utf-8"))
    prompt = next("".join(c["source"]) for c in nb["cells"]
                  if c["cell_type"] == "markdown" and "`FP8_EXAMPLE`" in "".join(c["source"]))
    assert "8192" not in prompt and "16384" not in prompt
