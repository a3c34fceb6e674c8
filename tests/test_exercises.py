"""mishran.exercises: blank answers never fail, right answers pass, wrong answers get Bengali feedback."""
import math

from mishran import formats
from mishran.exercises import core
from mishran.exercises import lesson01 as l01
from mishran.exercises import lesson02 as l02
from mishran.exercises import lesson03 as l03
from mishran.exercises import lesson04 as l04
from mishran.exercises import lesson05 as l05


def test_blank_answers_remind_and_do_not_fail(capsys):
    assert not l01.check_e4m3_max(...)
    assert not l01.check_fp16_decoder(...)
    assert "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out


def test_right_answers_pass(capsys):
    assert l01.check_fp16_bits_value("0 10010 1010000000", 13.0)
    assert l01.check_bf16_round(257, 256)
    assert l01.check_first_unrepresentable_integer("fp16", 2049)
    assert l01.check_first_unrepresentable_integer("bf16", 257)
    assert l01.check_e4m3_max(448)
    out = capsys.readouterr().out
    assert out.count("ঠিক!") == 5
    # a right answer is not printed back: a solution cell's output must not give the answer away
    assert "448" not in out and "2049" not in out


def test_wrong_answers_fail_with_a_hint(capsys):
    assert not l01.check_e4m3_max(480)
    assert not l01.check_bf16_round(257, 258)
    assert not core.check_number("abc", 1.0, "x")
    out = capsys.readouterr().out
    assert "এখনো হয়নি" in out and "NaN" in out and "a number" in out


def _fp16(pattern, subnormals=True):
    sign, exp, man = pattern >> 15, (pattern >> 10) & 31, pattern & 1023
    s = -1.0 if sign else 1.0
    if exp == 31:
        return s * math.inf if man == 0 else math.nan
    if exp == 0:
        return s * man * 2.0 ** -24 if subnormals else s * 0.0
    return s * (1 + man / 1024) * 2.0 ** (exp - 15)


def test_decoder_check_accepts_a_right_decoder_and_catches_a_missing_subnormal(capsys):
    assert l01.check_fp16_decoder(_fp16)
    assert not l01.check_fp16_decoder(lambda p: _fp16(p, subnormals=False))
    assert "subnormal" in capsys.readouterr().out
    assert not l01.check_fp16_decoder(lambda p: 1 / 0)


def test_checks_agree_with_formats():
    assert formats.decode_bits(0b0_10010_1010000000, "fp16").value == 1.625 * 2 ** 3


def test_a_verdict_shows_nothing_extra_in_jupyter(capsys):
    """IPython's own display machinery is the oracle: a verdict at the end of a cell publishes nothing."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    v = l01.check_e4m3_max(448)
    assert v
    assert shell.display_formatter.format(v) == ({}, {})
    assert shell.display_formatter.format(True)[0]["text/plain"] == "True"      # what a plain bool would show


# ---------- পাঠ ০২ ----------

import pytest  # noqa: E402
import torch  # noqa: E402


def test_lesson02_blank_answers_do_not_fail(capsys):
    assert not l02.check_min_normal_scale(3e-7, ...)
    assert not l02.check_pytorch_scale_after("..x", ...)
    assert not l02.check_deepspeed_scale_after("..x", ...)
    assert not l02.check_flushed_fraction(torch.tensor([1e-9, 1.0]), ...)
    assert not l02.check_scaled_clip_step(...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_min_normal_scale_is_the_smallest_power_of_two(capsys):
    assert l02.check_min_normal_scale(3e-7, 2 ** 8)               # 3e-7 × 2^8 ≈ 7.7e-5 ≥ 2^-14, × 2^7 is not
    assert l02.check_min_normal_scale(2.0 ** -14, 1) and l02.check_min_normal_scale(-2.0 ** -20, 64)
    assert not l02.check_min_normal_scale(3e-7, 2 ** 9)
    assert not l02.check_min_normal_scale(3e-7, 256.5)
    assert "not a power of two" in capsys.readouterr().out


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


def test_flushed_fraction_counts_only_values_that_were_not_zero_before():
    t = torch.tensor([1e-9, 2.0 ** -25, 2.0 ** -24, 1.0, 0.0])     # two flush (2^-25 is a tie → 0); 0 was already 0
    assert l02.check_flushed_fraction(t, 2 / 5)
    assert not l02.check_flushed_fraction(t, 3 / 5)
    assert l02.check_flushed_fraction(t, 0.0, scale=2.0 ** 10)


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


# ---------- পাঠ ০৪: gradient accumulation ----------

def test_lesson04_blank_answers_do_not_fail(capsys):
    assert not l04.check_microbatch_weight(6, 30, ...)
    assert not l04.check_allreduce_count(10, 4, True, ...)
    assert not l04.check_accumulation_bug(...)
    assert not l04.check_effective_batch(8, 4, 2, ...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_a_microbatch_mean_is_weighted_by_its_share_of_the_batch():
    assert l04.check_microbatch_weight(6, 30, 0.2)
    assert l04.check_microbatch_weight(6, 30, 6 / 30)
    assert not l04.check_microbatch_weight(6, 30, 1 / 4)          # 1/k is only right for equal micro-batches


def test_no_sync_allreduces_once_per_step_without_it_once_per_micro_step():
    assert l04.check_allreduce_count(10, 4, True, 10)
    assert l04.check_allreduce_count(10, 4, False, 40)
    assert l04.check_allreduce_count(10, 4, True, 30, buckets=3)
    assert not l04.check_allreduce_count(10, 4, True, 40)


def test_the_buggy_loop_syncs_on_the_first_micro_step_and_the_check_names_that_line(capsys):
    lines = l04.BUGGY_ACCUMULATION_LOOP.splitlines()
    buggy = [i for i, line in enumerate(lines, start=1) if "sync = micro_step == 0" in line]   # found by reading
    assert len(buggy) == 1
    assert l04.check_accumulation_bug(buggy[0])
    assert not l04.check_accumulation_bug(5)
    assert "আগের লাইন" in capsys.readouterr().out
    assert not l04.check_accumulation_bug(13) and not l04.check_accumulation_bug(99)
    assert not l04.check_accumulation_bug("চার")


def test_effective_batch_is_micro_times_accum_times_world():
    assert l04.check_effective_batch(8, 4, 2, 64)
    assert not l04.check_effective_batch(8, 4, 2, 32)


# ---------- পাঠ ০৩: AMP-এর training loop ----------

def _amp_step(model, optimizer, scaler, x, y, device_type, dtype):
    import torch
    import torch.nn.functional as F
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return loss


def test_lesson03_blank_answers_never_fail(capsys):
    assert not l03.check_amp_step_order(...)
    assert not l03.check_autocast_dtypes(...)
    assert not l03.check_autocast_dtypes({op: ... for op in ("linear", "softmax", "sum", "cross_entropy", "x + h")})
    assert not l03.check_modern_amp_step(...)
    assert not l03.check_scale_halving_cause(...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_amp_step_order_is_backward_unscale_clip_step_update(capsys):
    assert l03.check_amp_step_order(["backward", "unscale_", "clip", "step", "update"])
    assert l03.check_amp_step_order(["scale", "unscale", "clip_grad_norm_", "step", "update"])
    assert not l03.check_amp_step_order(["backward", "clip", "unscale_", "step", "update"])
    assert "clip_norm ÷ scale" in capsys.readouterr().out
    assert not l03.check_amp_step_order(["backward", "unscale_", "clip", "update", "step"])
    assert not l03.check_amp_step_order(["backward", "unscale_", "clip", "step"])
    assert not l03.check_amp_step_order("backward unscale_ clip step update")
    assert not l03.check_amp_step_order(["backward", "unscale_", "clip", "step", "zero_grad"])


def test_autocast_dtypes_on_cpu_lower_matmul_and_keep_losses_in_fp32(capsys):
    import torch
    truth = l03.autocast_dtypes("cpu", torch.bfloat16)
    assert truth["linear"] == torch.bfloat16
    assert truth["cross_entropy"] == truth["x + h"] == torch.float32
    assert l03.check_autocast_dtypes(truth, "cpu", torch.bfloat16)
    assert l03.check_autocast_dtypes({op: str(d).replace("torch.", "") for op, d in truth.items()}, "cpu")
    wrong = dict(truth, softmax="fp16" if truth["softmax"] != torch.float16 else "fp32")
    assert not l03.check_autocast_dtypes(wrong, "cpu")
    assert "softmax" in capsys.readouterr().out
    assert not l03.check_autocast_dtypes(dict(truth, sum=...), "cpu")
    assert "বাকি: sum" in capsys.readouterr().out


def test_modern_amp_step_passes_and_each_classic_mistake_is_caught(capsys):
    import torch
    import torch.nn.functional as F
    assert l03.check_modern_amp_step(_amp_step)

    def other_but_right(model, optimizer, scaler, x, y, device_type, dtype):
        """Written differently from the check's reference: torch.autocast, explicit unscale_ and a clip that
        never bites, zero_grad first. Still the same AMP step, so it must pass."""
        optimizer.zero_grad()
        with torch.autocast(device_type=device_type, dtype=dtype):
            out = model(x)
        loss = ((out.float() - y) ** 2).mean()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
        scaler.step(optimizer)
        scaler.update()
        return loss

    assert l03.check_modern_amp_step(other_but_right)

    def old_api(model, optimizer, scaler, x, y, device_type, dtype):
        with torch.cuda.amp.autocast():
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss

    def no_update(model, optimizer, scaler, x, y, device_type, dtype):
        with torch.amp.autocast(device_type, dtype=dtype):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        optimizer.zero_grad()
        return loss

    def plain_step(model, optimizer, scaler, x, y, device_type, dtype):
        with torch.amp.autocast(device_type, dtype=dtype):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        optimizer.step()                         # scaler.step নয়: overflow-এও ওজন বদলায়
        scaler.update()
        optimizer.zero_grad()
        return loss

    capsys.readouterr()
    assert not l03.check_modern_amp_step(old_api)
    assert "torch.cuda.amp" in capsys.readouterr().out
    assert not l03.check_modern_amp_step(no_update)
    assert "update" in capsys.readouterr().out
    assert not l03.check_modern_amp_step(plain_step)
    assert "scaler.step(optimizer)" in capsys.readouterr().out
    assert not l03.check_modern_amp_step(lambda *args: 1 / 0)
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_scale_halving_cause_is_a_forward_overflow():
    assert l03.check_scale_halving_cause("c") and l03.check_scale_halving_cause("গ")
    assert not l03.check_scale_halving_cause("a") and not l03.check_scale_halving_cause("z")
    assert set(l03.SCALE_HALVING_CHOICES) == {"a", "b", "c", "d"}


# ---------- পাঠ ০৫ ----------

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


# ---------- check_sum_stall against torch's own FP16/BF16 additions ----------

def _torch_stall(dtype, addend):
    """Add `addend` (already in dtype) again and again with torch's dtype arithmetic until the sum stops."""
    s = torch.zeros((), dtype=dtype)
    a = torch.tensor(addend, dtype=dtype)
    for _ in range(200_000):
        nxt = s + a
        if not torch.isfinite(nxt) or nxt == s:
            return (nxt if not torch.isfinite(nxt) else s).item()
        s = nxt
    raise AssertionError("no stall")


@pytest.mark.parametrize("fmt, dtype, addend", [("fp16", torch.float16, 1.0), ("fp16", torch.float16, 0.1),
                                                ("bf16", torch.bfloat16, 1.0), ("bf16", torch.bfloat16, 0.01),
                                                ("fp16", torch.float16, 3.0)])
def test_sum_stall_agrees_with_torch_accumulating_in_that_dtype(fmt, dtype, addend, capsys):
    want = _torch_stall(dtype, addend)
    assert l01.check_sum_stall(fmt, addend, want)
    assert not l01.check_sum_stall(fmt, addend, want * 2)
    assert not l01.check_sum_stall(fmt, addend, ...)
    assert "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out


def test_sum_stall_known_values():
    assert l01.check_sum_stall("fp16", 1.0, 2048) and l01.check_sum_stall("bf16", 1.0, 256)


def test_as_number_reads_what_a_learner_types():
    as_number = core.as_number
    assert as_number(" 0.8 ") == 0.8 and as_number(3) == 3.0 and as_number(torch.tensor(2.5)) == 2.5
    assert as_number(2 ** 2000) == math.inf and as_number(-(2 ** 2000)) == -math.inf    # too big for a float
    assert as_number("আশি") is None and as_number(torch.ones(2)) is None and as_number([1]) is None
