"""mishran.exercises: blank answers never fail, right answers pass, wrong answers get Bengali feedback."""
import math

from mishran import exercises as ex
from mishran import formats


def test_blank_answers_remind_and_do_not_fail(capsys):
    assert not ex.check_e4m3_max(...)
    assert not ex.check_fp16_decoder(...)
    assert "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out


def test_right_answers_pass(capsys):
    assert ex.check_fp16_bits_value("0 10010 1010000000", 13.0)
    assert ex.check_bf16_round(257, 256)
    assert ex.check_first_unrepresentable_integer("fp16", 2049)
    assert ex.check_first_unrepresentable_integer("bf16", 257)
    assert ex.check_e4m3_max(448)
    assert "✅" in capsys.readouterr().out


def test_wrong_answers_fail_with_a_hint(capsys):
    assert not ex.check_e4m3_max(480)
    assert not ex.check_bf16_round(257, 258)
    assert not ex.check_number("abc", 1.0, "x")
    out = capsys.readouterr().out
    assert "❌" in out and "NaN" in out and "a number" in out


def _fp16(pattern, subnormals=True):
    sign, exp, man = pattern >> 15, (pattern >> 10) & 31, pattern & 1023
    s = -1.0 if sign else 1.0
    if exp == 31:
        return s * math.inf if man == 0 else math.nan
    if exp == 0:
        return s * man * 2.0 ** -24 if subnormals else s * 0.0
    return s * (1 + man / 1024) * 2.0 ** (exp - 15)


def test_decoder_check_accepts_a_right_decoder_and_catches_a_missing_subnormal(capsys):
    assert ex.check_fp16_decoder(_fp16)
    assert not ex.check_fp16_decoder(lambda p: _fp16(p, subnormals=False))
    assert "subnormal" in capsys.readouterr().out
    assert not ex.check_fp16_decoder(lambda p: 1 / 0)


def test_checks_agree_with_formats():
    assert formats.decode_bits(0b0_10010_1010000000, "fp16").value == 1.625 * 2 ** 3


def test_a_verdict_shows_nothing_extra_in_jupyter():
    v = ex.check_e4m3_max(448)
    assert v and hasattr(v, "_ipython_display_") and v._ipython_display_() is None


# ---------- পাঠ ০২ ----------

import pytest  # noqa: E402
import torch  # noqa: E402


def test_lesson02_blank_answers_do_not_fail(capsys):
    assert not ex.check_min_normal_scale(3e-7, ...)
    assert not ex.check_pytorch_scale_after("..x", ...)
    assert not ex.check_deepspeed_scale_after("..x", ...)
    assert not ex.check_flushed_fraction(torch.tensor([1e-9, 1.0]), ...)
    assert not ex.check_scaled_clip_step(...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_min_normal_scale_is_the_smallest_power_of_two(capsys):
    assert ex.check_min_normal_scale(3e-7, 2 ** 8)               # 3e-7 × 2^8 ≈ 7.7e-5 ≥ 2^-14, × 2^7 is not
    assert ex.check_min_normal_scale(2.0 ** -14, 1) and ex.check_min_normal_scale(-2.0 ** -20, 64)
    assert not ex.check_min_normal_scale(3e-7, 2 ** 9)
    assert not ex.check_min_normal_scale(3e-7, 256.5)
    assert "not a power of two" in capsys.readouterr().out


def test_scale_after_a_sequence_follows_each_policy():
    seq = "x..x.....xx......"
    # by hand: x→2^15; x→2^14; 4 clean→2^15; xx→2^13; 4 clean→2^14 (2 more clean steps change nothing)
    assert ex.check_pytorch_scale_after(seq, 2.0 ** 14, growth_interval=4)
    # DeepSpeed: hysteresis absorbs the first overflow (2^16 stays), the second halves (2^15); growth on the 5th
    # clean step after an overflow refills hysteresis (2^16); xx: absorbed, halved (2^15); 5 clean → 2^16
    assert ex.check_deepspeed_scale_after(seq, 2.0 ** 16, scale_window=4, hysteresis=2)
    assert not ex.check_deepspeed_scale_after(seq, 2.0 ** 14, scale_window=4, hysteresis=2)
    assert ex.check_pytorch_scale_after([True, False], 2.0 ** 15)
    with pytest.raises(ValueError, match="'x'"):
        ex.check_pytorch_scale_after("..o", 1.0)


def test_flushed_fraction_counts_only_values_that_were_not_zero_before():
    t = torch.tensor([1e-9, 2.0 ** -25, 2.0 ** -24, 1.0, 0.0])     # two flush (2^-25 is a tie → 0); 0 was already 0
    assert ex.check_flushed_fraction(t, 2 / 5)
    assert not ex.check_flushed_fraction(t, 3 / 5)
    assert ex.check_flushed_fraction(t, 0.0, scale=2.0 ** 10)


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
    assert ex.check_scaled_clip_step(_step())
    capsys.readouterr()
    assert not ex.check_scaled_clip_step(_step(unscale=False))
    assert "unscale_" in capsys.readouterr().out
    assert not ex.check_scaled_clip_step(_step(clip=False))
    assert "clip_grad_norm_" in capsys.readouterr().out
    assert not ex.check_scaled_clip_step(_step(use_scaler_step=False))
    assert "scaler.step(optimizer)" in capsys.readouterr().out
    assert not ex.check_scaled_clip_step(_step(update=False))
    assert "scaler.update()" in capsys.readouterr().out


# ---------- পাঠ ০৪: gradient accumulation ----------

def test_lesson04_blank_answers_do_not_fail(capsys):
    assert not ex.check_microbatch_weight(6, 30, ...)
    assert not ex.check_allreduce_count(10, 4, True, ...)
    assert not ex.check_accumulation_bug(...)
    assert not ex.check_effective_batch(8, 4, 2, ...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_a_microbatch_mean_is_weighted_by_its_share_of_the_batch():
    assert ex.check_microbatch_weight(6, 30, 0.2)
    assert ex.check_microbatch_weight(6, 30, 6 / 30)
    assert not ex.check_microbatch_weight(6, 30, 1 / 4)          # 1/k is only right for equal micro-batches


def test_no_sync_allreduces_once_per_step_without_it_once_per_micro_step():
    assert ex.check_allreduce_count(10, 4, True, 10)
    assert ex.check_allreduce_count(10, 4, False, 40)
    assert ex.check_allreduce_count(10, 4, True, 30, buckets=3)
    assert not ex.check_allreduce_count(10, 4, True, 40)


def test_the_buggy_loop_syncs_on_the_first_micro_step_and_the_check_names_that_line(capsys):
    lines = ex.BUGGY_ACCUMULATION_LOOP.splitlines()
    assert "micro_step == 0" in lines[ex.BUGGY_ACCUMULATION_LINE - 1]
    assert ex.check_accumulation_bug(ex.BUGGY_ACCUMULATION_LINE)
    assert not ex.check_accumulation_bug(5)
    assert "আগের লাইন" in capsys.readouterr().out
    assert not ex.check_accumulation_bug(13) and not ex.check_accumulation_bug(99)
    assert not ex.check_accumulation_bug("চার")


def test_effective_batch_is_micro_times_accum_times_world():
    assert ex.check_effective_batch(8, 4, 2, 64)
    assert not ex.check_effective_batch(8, 4, 2, 32)
