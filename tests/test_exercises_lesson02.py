"""Lesson 02 exercise checks (loss scaling): blanks never fail, hand-worked answers pass, each mistake is named."""
import pytest
import torch

from mishran.exercises import lesson02 as l02


def test_lesson02_blank_answers_do_not_fail(capsys):
    assert not l02.check_min_normal_scale(3e-7, ...)
    assert not l02.check_pytorch_scale_after("..x", ...)
    assert not l02.check_deepspeed_scale_after("..x", ...)
    assert not l02.check_zeroed_fraction(torch.tensor([1e-9, 1.0]), ...)
    assert not l02.check_scaled_clip_step(...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_min_normal_scale_is_the_smallest_power_of_two(capsys):
    assert l02.check_min_normal_scale(3e-7, 2 ** 8)               # 3e-7 × 2^8 ≈ 7.7e-5 ≥ 2^-14, × 2^7 is not
    assert l02.check_min_normal_scale(2.0 ** -14, 1) and l02.check_min_normal_scale(-2.0 ** -20, 64)
    assert not l02.check_min_normal_scale(3e-7, 2 ** 9)
    assert not l02.check_min_normal_scale(3e-7, 256.5)
    assert "not a power of two" in capsys.readouterr().out


def test_min_normal_scale_hints_guide_without_giving_the_exponent(capsys):
    """A wrong try is told which side it is on, never the logarithm that is the answer (log2(2^-14 / 3e-7) = 7.67,
    'round up' would hand over 2^8)."""
    assert not l02.check_min_normal_scale(3e-7, 2 ** 7)
    too_small = capsys.readouterr().out
    assert not l02.check_min_normal_scale(3e-7, 2 ** 12)
    too_big = capsys.readouterr().out
    assert "নিচে" in too_small and "আরও ছোট" in too_big
    for hint in (too_small, too_big):
        assert "7.6" not in hint and "log2" not in hint and "256" not in hint and "2^8" not in hint


def test_scale_after_a_sequence_follows_each_policy():
    seq = "x..x.....xx......"
    # by hand: x→2^15; x→2^14; 4 clean→2^15; xx→2^13; 4 clean→2^14 (2 more clean steps change nothing)
    assert l02.check_pytorch_scale_after(seq, 2.0 ** 14, growth_interval=4)
    # DeepSpeed: hysteresis absorbs the first overflow (2^16 stays), the second halves (2^15); growth on the 5th
    # clean step after an overflow refills hysteresis (2^16); xx: absorbed, halved (2^15); 5 clean → 2^16
    assert l02.check_deepspeed_scale_after(seq, 2.0 ** 16, scale_window=4, hysteresis=2)
    assert not l02.check_deepspeed_scale_after(seq, 2.0 ** 14, scale_window=4, hysteresis=2)
    assert l02.check_pytorch_scale_after([True, False], 2.0 ** 15)
    with pytest.raises(ValueError, match="'x'"):
        l02.check_pytorch_scale_after("..o", 1.0)


def test_zeroed_fraction_counts_only_values_that_were_not_zero_before():
    t = torch.tensor([1e-9, 2.0 ** -25, 2.0 ** -24, 1.0, 0.0])  # two round to 0 (2^-25 is a tie → 0); 0 was already 0
    assert l02.check_zeroed_fraction(t, 2 / 5)
    assert not l02.check_zeroed_fraction(t, 3 / 5)
    assert l02.check_zeroed_fraction(t, 0.0, scale=2.0 ** 10)


def _step(unscale=True, clip=True, use_scaler_step=True, update=True):
    def step(model, optimizer, scaler, loss, max_norm):
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        if unscale:
            scaler.unscale_(optimizer)
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer) if use_scaler_step else optimizer.step()
        if update:
            scaler.update()
    return step


def test_clip_step_check_accepts_the_right_order_and_names_each_mistake(capsys):
    assert l02.check_scaled_clip_step(_step())
    capsys.readouterr()
    assert not l02.check_scaled_clip_step(_step(unscale=False))
    assert "unscale_" in capsys.readouterr().out
    assert not l02.check_scaled_clip_step(_step(clip=False))
    assert "clip_grad_norm_" in capsys.readouterr().out
    assert not l02.check_scaled_clip_step(_step(use_scaler_step=False))
    assert "scaler.step(optimizer)" in capsys.readouterr().out
    assert not l02.check_scaled_clip_step(_step(update=False))
    assert "scaler.update()" in capsys.readouterr().out
