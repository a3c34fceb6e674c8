"""Lesson 02 exercise checks (loss scaling): blanks never fail, hand-worked answers pass, each mistake is named."""
import pytest
import torch

from mishran.exercises import lesson02 as l02


def test_lesson02_blank_answers_do_not_fail(capsys):
    assert not l02.check_min_normal_scale(3e-7, ...)
    assert not l02.check_pytorch_scale_after("..x", ...)
    assert not l02.check_deepspeed_scale_after("..x", ...)
    assert not l02.check_scale_for_budget(torch.tensor([1e-9, 1.0]), 1.0, ...)
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


def _grads():
    return torch.randn(10_000, generator=torch.Generator().manual_seed(5)) * 1e-7   # the lesson's exercise 4


def _below_normal_by_hand(values, scale):
    """Hand oracle: FP16 keeps full precision only from 2^-14 up; anything nonzero below that is subnormal or 0."""
    a = (values.double() * scale).abs()
    return ((a > 0) & (a < 2.0 ** -14)).double().mean().item()


def test_scale_for_budget_is_the_one_that_keeps_both_edges(capsys):
    """Exercise 02.4: at most 1% of the gradients below FP16's normal range, and the largest gradient (0.5) × S
    under FP16's max (65504). By hand: 2^16 is the only choice that does both."""
    g = _grads()
    fits = [s for s in l02.SCALE_CHOICES if _below_normal_by_hand(g, s) <= 0.01 and 0.5 * s <= 65504]
    assert fits == [2 ** 16]
    assert l02.check_scale_for_budget(g, 0.5, 2 ** 16)
    assert not l02.check_scale_for_budget(g, 0.5, 3)                      # not a choice
    assert "one of" in capsys.readouterr().out


def test_scale_for_budget_names_the_anticipated_mistakes(capsys):
    """Counting only the values that round to 0 (forgetting subnormals lose precision) picks 2^8 or 2^12; forgetting
    the upper edge picks 2^20 or 2^24. Each is refused with its own reason, and no message names the answer."""
    g = _grads()
    assert ((g.half() == 0) & (g != 0)).double().mean().item() > 0.01    # at scale 1 many vanish ...
    assert ((g * 2 ** 8).half() == 0).double().mean().item() <= 0.01      # ... at 2^8 few: zeros alone would pass
    for wrong in (2 ** 8, 2 ** 12):
        assert not l02.check_scale_for_budget(g, 0.5, wrong)
        out = capsys.readouterr().out
        assert "subnormal" in out and "65536" not in out and "2^16" not in out
    for wrong in (2 ** 20, 2 ** 24):
        assert torch.isinf(torch.tensor(0.5 * wrong).half())
        assert not l02.check_scale_for_budget(g, 0.5, wrong)
        out = capsys.readouterr().out
        assert "inf" in out and "65536" not in out and "2^16" not in out
    assert l02.check_scale_for_budget(g, 0.25, 2 ** 16)                   # a smaller largest: still fits


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
    assert not l02.check_scaled_clip_step(_step(unscale=False))         # the lesson's buggy_step
    told = capsys.readouterr().out
    assert "scale-গুণ" in told and "unscale_" not in told                  # points at the cause, not the fix
    assert not l02.check_scaled_clip_step(_step(clip=False))
    told = capsys.readouterr().out
    assert "clip_grad_norm_" in told and "unscale_" not in told
    assert not l02.check_scaled_clip_step(_step(use_scaler_step=False))
    assert "scaler.step(optimizer)" in capsys.readouterr().out
    assert not l02.check_scaled_clip_step(_step(update=False))
    assert "scaler.update()" in capsys.readouterr().out
