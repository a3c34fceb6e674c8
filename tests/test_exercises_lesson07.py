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


# ---------- every wrong answer a hint anticipates is refused, with its own hint (issue 33, item 21) ----------

def test_mfu_slips_each_get_the_hint_written_for_them(capsys):
    """By hand (the docstring above: about 1.21× the model's FLOPs, MFU ≈ 0.37). 0.45 is "checkpointing changes
    nothing" and 0.45 × 1.21 ≈ 0.545 counts the recomputed FLOPs as useful: both get the numerator hint. A whole
    forward again makes the step (1 + 2 + 1) / (1 + 2) = 4/3 longer, MFU 0.45 × 3/4 = 0.3375: the recompute hint.
    Far-off answers get the general one."""
    for wrong in (0.45, "45", 0.545):
        assert not ex.check_mfu_with_checkpointing(wrong), wrong
        assert "MFU-র লবে কোন FLOP" in capsys.readouterr().out, wrong
    for wrong in (0.3375, "33.75"):
        assert not ex.check_mfu_with_checkpointing(wrong), wrong
        assert "পুরো forward আবার চলে" in capsys.readouterr().out, wrong
    for wrong in (0.2, 0.3, "15"):
        assert not ex.check_mfu_with_checkpointing(wrong), wrong
        hint = capsys.readouterr().out
        assert "ধাপ কত গুণ লম্বা হয়" in hint and "পুরো forward আবার চলে" not in hint, wrong


def test_sharded_vocab_hints_say_which_condition_fails(capsys):
    """By hand: 49 × 1024 = 50176 is the smallest vocab ≥ 50001 that 8 equal shards of a multiple of 128 make
    (torch.chunk gives 8 × 6272 = 8 × 49 × 128). The one-GPU answer 50048 = 391 × 128 and GPT-2's padded 50304
    split into shards of 6256 and 6288, not multiples of 128; 50001 does not even split evenly."""
    shards = torch.arange(50176).chunk(8)
    assert len(shards) == 8 and {len(s) for s in shards} == {6272} and 6272 % 128 == 0
    for wrong, sizes in ((50048, [6256]), (50304, [6288]), (50001, [6244, 6251])):
        assert sorted({len(s) for s in torch.arange(wrong).chunk(8)}) == sizes, wrong
        assert not ex.check_sharded_vocab(wrong), wrong
        hint = capsys.readouterr().out
        assert str(sizes) in hint and "matmul কি" in hint and "50176" not in hint, wrong
    assert not ex.check_sharded_vocab(49152)                     # 48 × 1024: too few rows
    assert "token আঁটে না" in capsys.readouterr().out
    assert not ex.check_sharded_vocab(51200)                     # 50 × 1024: fits, but one 1024 too many
    assert "এর চেয়ে ছোট একটি মাপও" in capsys.readouterr().out
    assert not ex.check_sharded_vocab(10 ** 9)
    assert "সব token রাখতে এর অনেক কম লাগে" in capsys.readouterr().out
    for typo in (50176.5, "পঞ্চাশ হাজার", math.nan):
        assert not ex.check_sharded_vocab(typo), typo
        assert "an integer" in capsys.readouterr().out


def test_fp8_roundtrip_slips_each_get_their_own_hint(capsys):
    """By hand (as above): scale 57344 / 1.2e-3; 3.1e-4 × scale = 14813.9 lies in [8192, 16384), where E5M2's step is
    2048: the neighbours are 14336 and 16384, the nearer is 14336 — torch's own E5M2 cast agrees. The slips: the
    scale inverted, E4M3's max, no rounding, the FP8 value not unscaled, the farther neighbour."""
    scale = 57344 / 1.2e-3
    fp8_value = torch.tensor(3.1e-4 * scale).to(torch.float8_e5m2).float().item()
    assert fp8_value == 14336
    restored = fp8_value / scale
    assert ex.check_fp8_roundtrip(scale, restored)
    capsys.readouterr()
    slips = {(1 / scale, restored): "scale উল্টো হয়েছে", (448 / 1.2e-3, restored): "E5M2-এর max কত",
             (scale, 3.1e-4): "এটা তো আসল মানই", (scale, fp8_value): "scale ঠিক, ফেরত মান মেলেনি",
             (scale, 16384 / scale): "scale ঠিক, ফেরত মান মেলেনি"}
    for (s, r), words in slips.items():
        assert not ex.check_fp8_roundtrip(s, r), words
        hint = capsys.readouterr().out
        assert words in hint and "14336" not in hint and "4.778" not in hint, words
    assert not ex.check_fp8_roundtrip("x", restored) and not ex.check_fp8_roundtrip(scale, math.inf)


def test_fp8_step_speedup_refuses_the_cast_cost_counted_anywhere_but_on_the_old_matmul_time(capsys):
    """By hand: the cast costs 10% of the BF16 matmul time, 0.1 × 0.6 = 0.06 of the step: 0.4 + 0.375 + 0.06 = 0.835
    → 1.198×. Charging it on the whole step (0.4 + 0.375 + 0.1 = 0.875 → 1.143×) or on the FP8 matmul time
    (0.4 + 0.375 + 0.0375 = 0.8125 → 1.231×) is the slip the hint's third sentence is for; 0.198 is the gain, not
    the factor."""
    for wrong in (1 / 0.875, 1 / 0.8125, 0.198, 19.8):
        assert not ex.check_fp8_step_speedup(wrong), wrong
        assert "cast_overhead × matmul_share" in capsys.readouterr().out, wrong


def test_a_half_fixed_or_unscaled_fp8_matmul_is_refused(capsys):
    """The bug is the inverted scale; a fix must also turn the result back to real units and use E4M3. Each variant
    here gets one part wrong, and the hint names scale direction and unscaling."""
    def matmul(a, b, fmt="fp8_e4m3", fix_a=True, fix_b=True, back=lambda out, sa, sb: out / (sa * sb)):
        fmax = 448.0
        sa = fmax / fp8.amax(a) if fix_a else fp8.amax(a) / fmax
        sb = fmax / fp8.amax(b) if fix_b else fp8.amax(b) / fmax
        return back(fp8.quantize(a, fmt, sa) @ fp8.quantize(b, fmt, sb), sa, sb)

    assert ex.check_fp8_matmul_fix(matmul)
    capsys.readouterr()
    variants = {
        "only a's scale fixed": lambda a, b: matmul(a, b, fix_b=False),
        "not unscaled": lambda a, b: matmul(a, b, back=lambda out, sa, sb: out),
        "multiplied back": lambda a, b: matmul(a, b, back=lambda out, sa, sb: out * (sa * sb)),
        "unscaled by one side only": lambda a, b: matmul(a, b, back=lambda out, sa, sb: out / sa),
        "E5M2 instead of E4M3": lambda a, b: matmul(a, b, fmt="fp8_e5m2"),
    }
    for name, fn in variants.items():
        assert not ex.check_fp8_matmul_fix(fn), name
        assert "ফল আসল এককে ফেরাতে" in capsys.readouterr().out, name
    assert not ex.check_fp8_matmul_fix(lambda a, b: (a @ b)[:1])           # the wrong shape
    assert "আকারের tensor" in capsys.readouterr().out
