"""Lesson 02 exercise checks (loss scaling): blanks never fail, hand-worked answers pass, each mistake is named."""
import pytest
import torch

from mishran.exercises import lesson02 as l02


def test_lesson02_blank_answers_do_not_fail(capsys):
    assert not l02.check_min_normal_scale(3e-7, ...)
    assert not l02.check_pytorch_scale_after("..x", ...)
    assert not l02.check_deepspeed_scale_after("..x", ...)
    assert not l02.check_scale_for_budget(torch.tensor([1e-9, 1.0]), 1.0, ...)
    assert not l02.check_scale_for_budget(torch.tensor([1e-9, 1.0]), 1.0, {"smallest": ..., "largest": ...})
    assert not l02.check_scaled_clip_step(...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 6


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


def test_scale_for_budget_is_the_window_that_keeps_both_edges(capsys):
    """Exercise 02.4: at most 1% of the gradients below FP16's normal range, and the largest gradient (0.05) × S
    under FP16's overflow edge. By hand: below-normal shares (counted on the FP64 product, an oracle apart from
    underflow_report) fall with S and only 2^16 … 2^20 keep ≤ 1%; 0.05 × 2^20 = 52429 fits, 0.05 × 2^22 = 209715
    does not (anything ≥ 65520 rounds to inf). So the window is {2^16, 2^18, 2^20}."""
    g = _grads()
    fits = [s for s in l02.SCALE_CHOICES if _below_normal_by_hand(g, s) <= 0.01 and 0.05 * s < 65520]
    assert fits == [2 ** 16, 2 ** 18, 2 ** 20]
    assert l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 16, "largest": 2 ** 20})
    assert l02.check_scale_for_budget(g, 0.05, {"smallest": "65536", "largest": 2.0 ** 20})    # strings, floats
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 3, "largest": 2 ** 20})         # not a choice
    assert "one of SCALE_CHOICES" in capsys.readouterr().out
    assert not l02.check_scale_for_budget(g, 0.05, 2 ** 16)                                     # the old form
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 20, "largest": 2 ** 16})   # swapped
    said = capsys.readouterr().out
    assert "dict চাই" in said and "জায়গা বদল" in said


def test_scale_for_budget_is_not_the_rule_of_thumb_alone():
    """The old single-answer form was the largest scale without overflow — the lesson's own rule of thumb — so the
    budget never mattered. Now the lower edge is decided by the budget: the smallest choice that does not overflow
    (2^10) is refused, and so is every one-sided answer."""
    g = _grads()
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 10, "largest": 2 ** 20})
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 20, "largest": 2 ** 20})
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 16, "largest": 2 ** 16})


def test_scale_for_budget_names_the_anticipated_mistakes(capsys):
    """Counting only the values that round to 0 (forgetting subnormals lose precision) picks 2^10 … 2^14 as the lower
    edge; forgetting the upper edge picks 2^22 or 2^24; stopping one choice short of either edge is told which edge
    to widen. Each is refused with its own reason, and no message names an edge of the answer."""
    g = _grads()
    assert ((g * 2 ** 10).half() == 0).double().mean().item() <= 0.01     # zeros alone would pass 2^10 ...
    assert _below_normal_by_hand(g, 2 ** 10) > 0.01                      # ... but subnormals do not
    for low in (2 ** 10, 2 ** 12, 2 ** 14):
        assert not l02.check_scale_for_budget(g, 0.05, {"smallest": low, "largest": 2 ** 20})
        out = capsys.readouterr().out
        assert "subnormal" in out and "2**16" not in out and "2**20" not in out
    for high in (2 ** 22, 2 ** 24):
        assert torch.isinf(torch.tensor(0.05 * high).half())
        assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 16, "largest": high})
        out = capsys.readouterr().out
        assert "inf" in out and "2**20" not in out
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 18, "largest": 2 ** 20})
    assert "আরও ছোট একটি বিকল্পও" in capsys.readouterr().out
    assert not l02.check_scale_for_budget(g, 0.05, {"smallest": 2 ** 16, "largest": 2 ** 18})
    assert "আরও বড় একটি বিকল্পও" in capsys.readouterr().out
    # a larger largest gradient moves only the upper edge: 0.5 × 2^16 = 32768 fits, × 2^18 does not
    assert l02.check_scale_for_budget(g, 0.5, {"smallest": 2 ** 16, "largest": 2 ** 16})


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


def test_min_normal_scale_refuses_the_exponent_and_the_subnormal_edge(capsys):
    """Two anticipated slips on 3e-7 (answer 2^8, since 3e-7 × 2^7 = 3.84e-5 < 2^-14 = 6.10e-5 ≤ 3e-7 × 2^8):
    writing the exponent 8 instead of the scale 2^8, and stopping at S = 1 because 3e-7 is already above FP16's
    smallest subnormal 2^-24 = 5.96e-8 (representable, but not normal). Both are told they are still below."""
    assert 3e-7 * 2 ** 7 < 2.0 ** -14 <= 3e-7 * 2 ** 8 and 3e-7 > 2.0 ** -24
    assert torch.tensor(3e-7).half().item() != 0                        # FP16 keeps it, as a subnormal
    for wrong in (8, 1):
        assert not l02.check_min_normal_scale(3e-7, wrong), wrong
        assert "normal পরিসরের নিচে" in capsys.readouterr().out
    for bad in (0.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="grad"):
            l02.check_min_normal_scale(bad, 2 ** 8)


def _torch_scale_after(sequence, init_scale=2.0 ** 16, growth_interval=4):
    """Independent oracle: torch's own GradScaler update kernel (the one scaler.update() calls)."""
    scale, tracker = torch.tensor([init_scale]), torch.zeros(1, dtype=torch.int32)
    for ch in sequence:
        found_inf = torch.tensor([1.0 if ch == "x" else 0.0])
        torch._amp_update_scale_(scale, tracker, found_inf, 2.0, 0.5, growth_interval)
    return scale.item()


def test_pytorch_scale_after_refuses_the_anticipated_slips(capsys):
    """The lesson's sequence (exercise 02.2). By hand: x→2^15; 3 clean; x→2^14; 4 clean→2^15, 1 more; xx→2^13;
    4 clean→2^14, 3 more: 2^14, and torch's kernel agrees. Slips: DeepSpeed's answer (02.3: 2^16); never resetting
    the clean count at an overflow (growth on the 4th, 8th, 12th clean step overall: 2^15); halving only, forgetting
    growth (4 overflows: 2^12); the starting scale unchanged (2^16); the last growth missed (2^13)."""
    seq = "x...x.....xx......."
    assert _torch_scale_after(seq) == 2.0 ** 14
    assert l02.check_pytorch_scale_after(seq, 2 ** 14, init_scale=2 ** 16, growth_interval=4)
    capsys.readouterr()
    for wrong in (2 ** 16, 2 ** 15, 2 ** 12, 2 ** 13):
        assert not l02.check_pytorch_scale_after(seq, wrong, init_scale=2 ** 16, growth_interval=4), wrong
        out = capsys.readouterr().out
        assert "গোনা আবার শূন্য থেকে" in out and "16384" not in out
    for seq in ("....x", "x" * 5, "....", ".x..x...x....", ".........x"):   # more sequences against torch
        truth = _torch_scale_after(seq)
        assert l02.check_pytorch_scale_after(seq, truth, growth_interval=4), seq
        assert not l02.check_pytorch_scale_after(seq, truth * 2, growth_interval=4), seq


def test_deepspeed_scale_after_refuses_the_anticipated_slips(capsys):
    """DeepSpeed 0.19.8 (runtime/fp16/loss_scaler.py): an overflow first spends hysteresis, halves only at 1;
    growth when stable_interval = cur_iter - last_overflow_iter - 1 reaches the window, i.e. on the window + 1-th
    clean step; growth refills hysteresis. Hand traces (window 4):
    lesson's sequence, hysteresis 2: x absorbed (2^16); x halves (2^15); 5 clean → 2^16, refill; x absorbed; x halves
    (2^15); 5 clean → 2^16. Slips: PyTorch's rule (2^14); no hysteresis at all (2^14); hysteresis never refilled
    (the third x halves too, the last growth brings it back to 2^15); one growth too many (2^17)."""
    seq = "x...x.....xx......."
    assert l02.check_deepspeed_scale_after(seq, 2 ** 16, scale_window=4, hysteresis=2)
    capsys.readouterr()
    for wrong in (2 ** 14, 2 ** 15, 2 ** 17):
        assert not l02.check_deepspeed_scale_after(seq, wrong, scale_window=4, hysteresis=2), wrong
        assert "hysteresis" in capsys.readouterr().out
    # growing on the window-th clean step (PyTorch's count) is one step early: "x...." with hysteresis 1 halves to
    # 2^15 and 4 clean steps are not yet enough; the early count would say 2^16
    assert l02.check_deepspeed_scale_after("x....", 2 ** 15, scale_window=4, hysteresis=1)
    assert not l02.check_deepspeed_scale_after("x....", 2 ** 16, scale_window=4, hysteresis=1)
    assert l02.check_deepspeed_scale_after("x.....", 2 ** 16, scale_window=4, hysteresis=1)
    # refill: "x.....x" with hysteresis 2: absorbed, grows to 2^17 on the 5th clean step (refilled), absorbed again
    assert l02.check_deepspeed_scale_after("x.....x", 2 ** 17, scale_window=4, hysteresis=2)
    assert not l02.check_deepspeed_scale_after("x.....x", 2 ** 16, scale_window=4, hysteresis=2)


def test_scaled_clip_step_explains_gradscalers_own_assertions(capsys):
    """Two slips a learner makes while trying fixes end in torch's English AssertionErrors: dividing the gradients by
    hand and calling optimizer.step() (then update() finds no inf checks), and a plain loss.backward() (then
    scaler.step finds no scale). Each gets the Bengali reason, with what to call instead."""
    def by_hand(model, optimizer, scaler, loss, max_norm):
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        for p in model.parameters():
            p.grad /= scaler.get_scale()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        scaler.update()

    def unscaled(model, optimizer, scaler, loss, max_norm):
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(optimizer)
        scaler.update()

    assert not l02.check_scaled_clip_step(by_hand)
    said = capsys.readouterr().out
    assert "scaler.update() ডাকার আগে scaler.step(optimizer) চাই" in said and "No inf checks" not in said
    assert not l02.check_scaled_clip_step(unscaled)
    said = capsys.readouterr().out
    assert "backward-এর আগে scaler.scale(loss) দাও" in said and "_scale is None" not in said
