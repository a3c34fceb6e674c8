"""Lesson 05 exercise checks (the DeepSpeed engine): blanks never fail, hand-worked answers pass, wrong ones explain
without naming the answer."""
from mishran.exercises import lesson05 as l05


def test_lesson05_blank_answers_do_not_fail(capsys):
    assert not l05.check_config_on_fewer_gpus(...)
    assert not l05.check_initial_skipped_steps(3.0, ...)
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, ...)
    assert not l05.check_boundary_only_loop(...)
    assert not l05.check_boundary_only_loop({"steps": ..., "grads": ...})
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_a_config_that_leaves_out_the_accumulation_steps_survives_fewer_gpus(capsys):
    # by hand, DeepSpeed's batch rule on 2 GPUs: A fixes all three keys, 16 × 4 × 2 = 128 ≠ 512 → it refuses;
    # B has no train_batch_size → 16 × 4 × 2 = 128, silently; C leaves out k → 512 / (16 × 2) = 16;
    # D leaves out the micro-batch → 512 / 2 / 4 = 64 per GPU, over the 16 that fit
    assert l05.check_config_on_fewer_gpus("C") and l05.check_config_on_fewer_gpus(" c ")
    capsys.readouterr()
    for wrong in "ABD":
        assert not l05.check_config_on_fewer_gpus(wrong)
    out = capsys.readouterr().out
    assert "AssertionError" in out and "নীরবে" in out and "ধরবে না" in out
    assert not l05.check_config_on_fewer_gpus("E") and not l05.check_config_on_fewer_gpus(3)
    # with 8 GPUs all four are the same 512 = 16 × 4 × 8; A, the fully pinned one, is fine there
    assert l05.check_config_on_fewer_gpus("A", gpus=8)
    assert l05.check_config_on_fewer_gpus("D", gpus=2, max_micro=64)    # enough memory: D is fine as well


def test_initial_skipped_steps():
    assert l05.check_initial_skipped_steps(3.0, 19)           # 2^32 → 2^14: 18 halvings + 1 for hysteresis
    assert l05.check_initial_skipped_steps(3.0, 18, hysteresis=1)
    assert not l05.check_initial_skipped_steps(3.0, 18)


def test_initial_skipped_steps_counts_fp16_rounding():
    # 65504 is FP16's max; 2 × 32752 = 65504 fits, anything that rounds to 65520 or more is inf
    assert l05.check_initial_skipped_steps(32752 / 2 ** 15, 0, initial_scale_power=15, hysteresis=1)
    assert l05.check_initial_skipped_steps(65520 / 2 ** 15, 1, initial_scale_power=15, hysteresis=1)
    assert not l05.check_initial_skipped_steps(65520 / 2 ** 15, 0, initial_scale_power=15, hysteresis=1)


def test_smallest_zero_stage_under_a_budget():
    # by hand, 13e9 weights on 8 GPUs: stage 1 = 4Ψ + 12Ψ/8 = 71.5 GB > 60; stage 2 = 2Ψ + 14Ψ/8 = 48.75 GB ≤ 60
    assert l05.check_smallest_zero_stage(13e9, 8, 60, 2)
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 1)     # does not fit
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 3)     # fits, but 2 is enough
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, True)
    assert l05.check_smallest_zero_stage(13e9, 8, 80, 1)         # a bigger budget: stage 1 is enough


def test_stepping_only_at_the_boundary_never_steps_and_never_clears(capsys):
    # by hand: engine.step() is where the engine counts micro-steps, so without it the boundary
    # (micro_steps + 1) % 4 == 0 never comes: no optimizer step, and the gradients of all 12 micro-batches pile up
    assert l05.check_boundary_only_loop({"steps": 0, "grads": 12})
    capsys.readouterr()
    for wrong in ({"steps": 3, "grads": 4}, {"steps": 3, "grads": 0}, {"steps": 0, "grads": 4}):
        assert not l05.check_boundary_only_loop(wrong), wrong         # the believer; cleared; one window only
    hints = capsys.readouterr().out
    assert "micro_steps" in hints and "12" not in hints
    assert not l05.check_boundary_only_loop({"steps": "x", "grads": 12}) and not l05.check_boundary_only_loop([0, 12])
    # with one micro-batch per step the same loop is right: every call is a boundary, each step clears
    assert l05.check_boundary_only_loop({"steps": 5, "grads": 0}, accumulation_steps=1, n_micro=5)
