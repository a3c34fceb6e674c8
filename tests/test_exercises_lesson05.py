"""Lesson 05 exercise checks (the DeepSpeed engine): blanks never fail, hand-worked answers pass, wrong ones explain
without naming the answer."""
import torch

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


# ---------- every wrong answer a hint anticipates is refused, with its own hint (issue 33, item 21) ----------

def test_each_wrong_config_gets_the_reason_deepspeed_gives_for_it(capsys):
    """By hand, DeepSpeed's batch rule on 2 GPUs (see the test above): A pins all three keys and 16 × 4 × 2 ≠ 512,
    so DeepSpeed refuses it; B has no train_batch_size and silently makes 128; D fills the micro-batch in as
    512 / 2 / 4 = 64, over the 16 that fit."""
    reasons = {"A": ("AssertionError", "তিনটি key-ই দিলে"), "B": ("train_batch_size 128", "নীরবে"),
               "D": ("micro-batch 64", "ধরবে না")}
    for key, words in reasons.items():
        assert not l05.check_config_on_fewer_gpus(key, gpus=2, max_micro=16), key
        out = capsys.readouterr().out
        assert all(word in out for word in words), (key, out)
        others = set(reasons) - {key}
        assert not any(reasons[o][1] in out for o in others), key                  # one reason, its own
        assert "C:" not in out, key


def test_initial_skipped_steps_of_the_lesson_and_the_slips_its_hint_names(capsys):
    """Exercise 05.2 with torch's FP16 cast as the oracle: 0.75 × 2^k stays finite up to k = 16 (49152) and is inf
    at k = 17 (98304), so 32 − 16 = 16 halvings, each a skipped step, plus the one overflow hysteresis 2 absorbs
    before the first halving: 17. Forgetting hysteresis gives 16; counting it twice (or one halving too many) 18."""
    def finite_in_fp16(x):
        return bool(torch.isfinite(torch.tensor(x, dtype=torch.float64).to(torch.float16)))

    k = max(p for p in range(33) if finite_in_fp16(0.75 * 2.0 ** p))
    assert k == 16
    want = (32 - k) + (2 - 1)
    assert l05.check_initial_skipped_steps(0.75, want, initial_scale_power=32, hysteresis=2)
    capsys.readouterr()
    for wrong in (want - 1, want + 1, 32, 0):            # no hysteresis, one too many, every halving, none
        assert not l05.check_initial_skipped_steps(0.75, wrong, initial_scale_power=32, hysteresis=2), wrong
        hint = capsys.readouterr().out.replace(f"{wrong!r} নয়", "")
        assert "hysteresis: প্রথম 1টি overflow" in hint and "inf হয় 65520 থেকে" in hint, wrong
        assert str(want) not in hint, wrong


def test_initial_skipped_steps_does_not_take_65504_for_the_overflow_line(capsys):
    """65510 is over FP16's max 65504 but rounds down to it (the next step, 65536, is inf; the halfway 65520 is where
    inf begins), so 65510 at scale 2^15 does not overflow: 0 steps skipped, not the 1 of "over 65504 is inf"."""
    assert torch.tensor(65510.0).to(torch.float16).item() == 65504
    assert torch.isinf(torch.tensor(65520.0).to(torch.float16))
    g = 65510 / 2 ** 15
    assert l05.check_initial_skipped_steps(g, 0, initial_scale_power=15, hysteresis=1)
    capsys.readouterr()
    assert not l05.check_initial_skipped_steps(g, 1, initial_scale_power=15, hysteresis=1)
    assert "inf হয় 65520 থেকে" in capsys.readouterr().out


def test_smallest_zero_stage_names_a_stage_that_does_not_fit_and_one_bigger_than_needed(capsys):
    """By hand, 13e9 weights on 8 GPUs, 60 GB each (16 bytes a weight: 2 + 2 + 12): stage 0 = 208 GB, stage 1 =
    52 + 19.5 = 71.5 GB, stage 2 = 26 + 22.75 = 48.75 GB, stage 3 = 26 GB. 0 and 1 do not fit; 3 fits but 2 does."""
    for wrong in (0, 1):
        assert not l05.check_smallest_zero_stage(13e9, 8, 60, wrong), wrong
        assert f"stage {wrong}-এ ধরে না" in capsys.readouterr().out
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 3)
    assert "ছোট একটি stage-এও ধরে" in capsys.readouterr().out
    for typo in (4, -1, 2.5, "two"):
        assert not l05.check_smallest_zero_stage(13e9, 8, 60, typo), typo
    # stage 3 is the smallest that fits when 30 GB is all there is (stage 2 needs 48.75)
    assert l05.check_smallest_zero_stage(13e9, 8, 30, 3)
    assert not l05.check_smallest_zero_stage(13e9, 8, 30, 2)


def test_boundary_only_loop_hints_only_the_field_that_is_wrong(capsys):
    """By hand (see the test above): no step, 12 micro-batches of gradient. The believer of "a step each 4" with the
    pile-up seen gets only the steps hint; one who sees no step but thinks the gradients are cleared gets only the
    grads hint."""
    assert not l05.check_boundary_only_loop({"steps": 3, "grads": 12})
    out = capsys.readouterr().out
    assert "steps: engine কোন ছোট ধাপে" in out and "grads: engine.backward()" not in out
    assert not l05.check_boundary_only_loop({"steps": 0, "grads": 0})
    out = capsys.readouterr().out
    assert "grads: engine.backward()" in out and "steps: engine কোন ছোট ধাপে" not in out
