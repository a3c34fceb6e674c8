"""Lesson 07 exercise checks: right answers pass, typical wrong answers fail with a hint, blanks never fail."""
import torch

from mishran import fp8
from mishran.exercises import lesson07 as ex


def test_blank_answers_give_a_reminder_not_an_error(capsys):
    for verdict in (ex.check_mfu(...), ex.check_padded_vocab(...), ex.check_fp8_roundtrip(..., ...),
                    ex.check_fp8_step_speedup(...), ex.check_fp8_matmul_fix(...)):
        assert not verdict
    assert "..." in capsys.readouterr().out


def test_mfu_by_hand():
    # 2.9e12 FLOP / 0.012 s = 241.7 TFLOP/s; / 312 = 0.7746
    assert ex.check_mfu(0.7746) and ex.check_mfu(77.46)
    assert not ex.check_mfu(241.7) and not ex.check_mfu(1.291) and not ex.check_mfu("x")


def test_padded_vocab_is_the_next_multiple_of_128():
    assert ex.VOCAB_QUESTION == {"tokens": 50001, "multiple": 128}
    assert ex.check_padded_vocab(50048)                          # 391 × 128 = 50048 ≥ 50001 > 390 × 128 = 49920
    for wrong in (49920, 50001, 50304, 50176, 50048.5, 50056):  # too small, not a multiple, not the smallest
        assert not ex.check_padded_vocab(wrong)


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
