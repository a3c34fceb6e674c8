"""Lesson 08 exercise checks (the capstone): blanks never fail, hand-worked plans pass, wrong ones fail."""
import math

from mishran.exercises import lesson08 as ex


def test_lesson08_exercise_checks():
    for check in (lambda a: ex.check_bpc_from_loss(1.75, a), ex.check_batch_plan, ex.check_curve_explanation,
                  ex.check_top1_prediction):
        assert not check(...)                       # ফাঁকা: মনে করায়, ভুল তোলে না
    assert ex.check_bpc_from_loss(1.75, 1.75 / math.log(2))
    assert not ex.check_bpc_from_loss(1.75, 1.75)
    # হাতে হিসাব (Ψ = 10^9, ২ GPU, ২৪ GB হাতে, নমুনায় ১.৪ GB): ZeRO 0-এ 16 GB → micro ≤ 4 (accum 8);
    # ZeRO 1-এ 4 + 12/2 = 10 GB → micro ≤ 8 (accum 4); ZeRO 2/3-এও micro 16 আঁটে না (9 + 22.4, 8 + 22.4).
    # DeepSpeed-এর হিসাবে (FP32 gradient কপিসহ, stage 1 = 2Ψ + 2Ψ + 16Ψ/N = 12 GB): 12 + 11.2 = 23.2 ≤ 24 — একই উত্তর
    assert ex.check_batch_plan((8, 4, 1))
    assert 12 + 8 * ex.BUDGET["activation_gb_per_sample"] <= ex.BUDGET["gpu_gb"] - ex.BUDGET["reserved_gb"]
    for wrong in [(8, 4, 2), (4, 8, 0), (8, 4, 0), (16, 2, 3), (8, 2, 1), (8, 4, 7)]:
        assert not ex.check_batch_plan(wrong), wrong
    assert ex.check_curve_explanation("B") and not ex.check_curve_explanation("A")
    assert ex.check_top1_prediction(True) and not ex.check_top1_prediction(False)
