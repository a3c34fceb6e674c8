"""Lesson 05 exercise checks (the DeepSpeed engine): blanks never fail, hand-worked answers pass, wrong ones explain."""
from mishran.exercises import lesson05 as l05


def test_lesson05_blank_answers_do_not_fail(capsys):
    assert not l05.check_ds_accumulation_steps(256, 8, 4, ...)
    assert not l05.check_initial_skipped_steps(3.0, ...)
    assert not l05.check_zero_gb_per_gpu(7.5e9, 2, 64, ...)
    assert not l05.check_deepspeed_loop(...)
    assert "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out


def test_lesson05_right_answers_pass():
    assert l05.check_ds_accumulation_steps(256, 8, 4, 8)
    assert l05.check_initial_skipped_steps(3.0, 19)           # 2^32 → 2^14: 18 halvings + 1 for hysteresis
    assert l05.check_initial_skipped_steps(3.0, 18, hysteresis=1)
    assert l05.check_zero_gb_per_gpu(7.5e9, 2, 64, 16.6)      # the ZeRO paper's Figure 1
    assert l05.check_zero_gb_per_gpu(7.5e9, 3, 64, 1.875)
    assert l05.check_deepspeed_loop("c")


def test_lesson05_wrong_answers_explain(capsys):
    assert not l05.check_ds_accumulation_steps(256, 8, 4, 32)
    assert not l05.check_initial_skipped_steps(3.0, 18)
    assert not l05.check_zero_gb_per_gpu(7.5e9, 2, 64, 120)
    for wrong in "ABD":
        assert not l05.check_deepspeed_loop(wrong)
    assert not l05.check_deepspeed_loop("E")
    out = capsys.readouterr().out
    assert "hysteresis" in out and "No inf checks were recorded" in out and "দুবার ভাগ" in out


def test_initial_skipped_steps_counts_fp16_rounding():
    # 65504 is FP16's max; 2 × 32752 = 65504 fits, anything that rounds to 65520 or more is inf
    assert l05.check_initial_skipped_steps(32752 / 2 ** 15, 0, initial_scale_power=15, hysteresis=1)
    assert l05.check_initial_skipped_steps(65520 / 2 ** 15, 1, initial_scale_power=15, hysteresis=1)
    assert not l05.check_initial_skipped_steps(65520 / 2 ** 15, 0, initial_scale_power=15, hysteresis=1)


def test_smallest_zero_stage_under_a_budget(capsys):
    # by hand, 13e9 weights on 8 GPUs: stage 1 = 4Ψ + 12Ψ/8 = 71.5 GB > 60; stage 2 = 2Ψ + 14Ψ/8 = 48.75 GB ≤ 60
    assert l05.check_smallest_zero_stage(13e9, 8, 60, 2)
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 1)     # does not fit
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 3)     # fits, but 2 is enough
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, True)
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, ...)
    assert l05.check_smallest_zero_stage(13e9, 8, 80, 1)         # a bigger budget: stage 1 is enough
