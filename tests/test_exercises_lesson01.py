"""Lesson 01 exercise checks (bit layouts, rounding, accumulation) and the shared core they stand on
(mishran.exercises.core: Verdict, blanks, numbers): blanks never fail, right answers pass, wrong answers get
Bengali feedback; truths come from torch's own arithmetic or a decoder written here."""
import math

import pytest
import torch

from mishran.exercises import core
from mishran.exercises import lesson01 as l01
from mishran.numerics import formats


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


def test_e4m3_max_refuses_240_the_ieee_style_max(monkeypatch, capsys):
    """240 is what E4M3 would hold if exponent 1111 were kept for inf/NaN as in IEEE formats (1.111 × 2^7); OCP's
    E4M3 ("fn") has no inf, so 1111 is an ordinary exponent and the max is 1.110 × 2^8 = 448. Outside graded mode
    (where every answer reads "submitted") 240 must be called wrong."""
    from mishran.exercises import graded
    monkeypatch.delenv(graded.ENV, raising=False)
    assert not graded.active()
    assert not l01.check_e4m3_max(240) and not l01.check_e4m3_max("240") and not l01.check_e4m3_max(240.0)
    assert "এখনো হয়নি" in capsys.readouterr().out
    assert l01.check_e4m3_max(448.0)


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


def test_a_verdict_shows_nothing_extra_in_jupyter(capsys):
    """IPython's own display machinery is the oracle: a verdict at the end of a cell publishes nothing."""
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    v = l01.check_e4m3_max(448)
    assert v
    assert shell.display_formatter.format(v) == ({}, {})
    assert shell.display_formatter.format(True)[0]["text/plain"] == "True"      # what a plain bool would show


def test_as_number_reads_what_a_learner_types():
    as_number = core.as_number
    assert as_number(" 0.8 ") == 0.8 and as_number(3) == 3.0 and as_number(torch.tensor(2.5)) == 2.5
    assert as_number(2 ** 2000) == math.inf and as_number(-(2 ** 2000)) == -math.inf    # too big for a float
    assert as_number("আশি") is None and as_number(torch.ones(2)) is None and as_number([1]) is None


# ---------- every wrong answer a hint anticipates is refused (issue 33, item 21) ----------
# The truths below come from torch's own dtypes (casts, finfo, bit views) or a hand calculation in the comment, never
# from mishran.numerics.formats, which the checks use.

def test_fp16_bits_value_refuses_a_lost_sign_a_lost_hidden_bit_and_a_wrong_bias(capsys):
    """Exercise 01.1, 1 01101 0100000000 by hand: sign 1 → negative; exponent 13 − 15 = −2; 1.01₂ = 1.25 →
    −1.25 × 2⁻² = −0.3125. The slips: dropping the sign (0.3125), the hidden bit (−0.25 × 2⁻² = −0.0625), a bias of
    14 or 16 (−0.625, −0.15625), no bias at all (−1.25 × 2¹³)."""
    bits = torch.tensor([0b1_01101_0100000000], dtype=torch.int32).to(torch.int16).view(torch.float16)
    assert bits.item() == -0.3125                                    # torch reads the same bits the same way
    assert l01.check_fp16_bits_value("1 01101 0100000000", -0.3125)
    capsys.readouterr()
    for wrong in (0.3125, -0.0625, -0.625, -0.15625, -1.25 * 2 ** 13, -1.5):
        assert not l01.check_fp16_bits_value("1 01101 0100000000", wrong), wrong
        hint = capsys.readouterr().out.replace(repr(wrong), "")        # the learner's own answer is echoed
        assert "এখনো হয়নি" in hint and "1.mantissa" in hint and "exponent − 15" in hint, wrong
        assert "0.3125" not in hint, wrong


def test_bf16_round_refuses_the_unrounded_value_the_truncated_one_and_fp16s(capsys):
    """Exercise 01.2 by hand: 0.3 lies in [1/4, 1/2), BF16's spacing there is 2^(−2−7) = 2⁻⁹; 0.3 / 2⁻⁹ = 153.6 →
    154 × 2⁻⁹ = 0.30078125 (no tie). Truncating gives 153 × 2⁻⁹ = 0.298828125; FP16 (spacing 2⁻¹²) gives
    1229 × 2⁻¹² = 0.300048828125; 0.3 itself is not a BF16 number."""
    assert torch.tensor(0.3, dtype=torch.float64).to(torch.bfloat16).item() == 154 * 2 ** -9
    assert torch.tensor(0.3, dtype=torch.float64).to(torch.float16).item() == 1229 * 2 ** -12
    assert l01.check_bf16_round(0.3, 154 * 2 ** -9)
    capsys.readouterr()
    for wrong in (0.3, 153 * 2 ** -9, 1229 * 2 ** -12, 155 * 2 ** -9):
        assert not l01.check_bf16_round(0.3, wrong), wrong
        hint = capsys.readouterr().out
        assert "এখনো হয়নি" in hint and "জোড় (even)" in hint, wrong
    # 257 is a tie between 256 and 258 (spacing 2 in [256, 512)): ties go to the even mantissa, 256
    assert torch.tensor(257.0).to(torch.bfloat16).item() == 256
    assert not l01.check_bf16_round(257, 258) and not l01.check_bf16_round(257, 257)


def test_first_unrepresentable_integer_refuses_the_power_of_two_and_the_forgotten_hidden_bit(capsys):
    """Exercise 01.3: FP32 keeps 24 significant bits with the hidden one, so every integer up to 2²⁴ is exact and
    2²⁴ + 1 is the first lost. 2²⁴ itself (off by one) and 2²³ + 1 (hidden bit forgotten) are both exact in FP32 —
    torch's own cast says so — so both must be refused."""
    def exact(n, dtype):
        return int(torch.tensor(n, dtype=torch.int64).to(dtype).to(torch.int64)) == n

    assert exact(2 ** 24, torch.float32) and exact(2 ** 23 + 1, torch.float32)
    assert not exact(2 ** 24 + 1, torch.float32)
    assert l01.check_first_unrepresentable_integer("fp32", 2 ** 24 + 1)
    capsys.readouterr()
    for wrong in (2 ** 24, 2 ** 23 + 1, 2 ** 24 - 1, 2 ** 53 + 1, 2049):    # ..., FP64's, FP16's
        assert not l01.check_first_unrepresentable_integer("fp32", wrong), wrong
        assert "লুকানো বিটসহ" in capsys.readouterr().out, wrong
    # FP16: the first integer torch's cast loses, by trying them all
    ints = torch.arange(1, 5000)
    first_lost = int(ints[ints.to(torch.float16).to(torch.int64) != ints][0])
    assert first_lost == 2049
    assert l01.check_first_unrepresentable_integer("fp16", first_lost)
    assert not l01.check_first_unrepresentable_integer("fp16", 2048)
    assert not l01.check_first_unrepresentable_integer("fp16", 1025)


def test_e4m3_max_refuses_the_ieee_style_max_the_nan_pattern_and_e5m2s_max(capsys):
    """torch's finfo is the oracle: E4M3 ("fn") max 448, E5M2 max 57344. 240 (1.111 × 2⁷, exponent 1111 kept for
    inf/NaN as in IEEE) and 480 (1.111 × 2⁸, the NaN pattern S.1111.111) are the slips the hint names."""
    assert torch.finfo(torch.float8_e4m3fn).max == 448 and torch.finfo(torch.float8_e5m2).max == 57344
    assert math.isnan(torch.tensor([0x7F], dtype=torch.uint8).view(torch.float8_e4m3fn).float().item())   # 480's bits
    for wrong in (240, 480, 57344, 256):
        assert not l01.check_e4m3_max(wrong), wrong
        hint = capsys.readouterr().out
        assert "inf নেই" in hint and "NaN" in hint and "448" not in hint, wrong
    assert l01.check_e4m3_max(torch.finfo(torch.float8_e4m3fn).max)


def _torch_fp16_table():
    """every FP16 pattern's value, read by torch from the bits (int32 → int16 keeps the low 16 bits)."""
    return torch.arange(2 ** 16, dtype=torch.int32).to(torch.int16).view(torch.float16).double().tolist()


def test_decoder_check_catches_each_special_case_the_prompt_names(capsys):
    """Exercise 01.5 names −0, subnormals, inf and NaN: a decoder wrong in only one of them must be refused, and the
    message names that case's pattern. torch's own bit view is the right decoder."""
    table = _torch_fp16_table()
    assert l01.check_fp16_decoder(lambda p: table[p])
    capsys.readouterr()
    def exponent(p):
        return (p >> 10) & 31

    wrong_decoders = {
        "−0 read as +0": (lambda p: 0.0 if table[p] == 0 else table[p], 0x8000),
        "inf read as NaN": (lambda p: math.nan if exponent(p) == 31 else table[p], 0x7C00),
        "NaN read as inf": (lambda p: math.copysign(math.inf, table[p]) if exponent(p) == 31 else table[p], 0x7C01),
        "subnormal as 2^−15": (lambda p: table[p] / 2 if exponent(p) == 0 else table[p], 0x0001),
        "exponent 31 as a normal number": (lambda p: (-1) ** (p >> 15) * (1 + (p & 1023) / 1024) * 2.0 ** 16
                                           if exponent(p) == 31 else table[p], 0x7C00),
    }
    for name, (decoder, first_bad) in wrong_decoders.items():
        assert not l01.check_fp16_decoder(decoder), name
        out = capsys.readouterr().out
        assert f"প্যাটার্ন {first_bad:016b}" in out and "subnormal" in out and "−0" in out, name


def test_sum_stall_refuses_a_binade_off_and_the_other_formats_stall(capsys):
    """Exercise 01.6, by hand: BF16(0.01) = 164 × 2⁻¹⁴ ≈ 0.01001; the sum climbs while that is more than half the
    spacing. In [2, 4) the spacing is 2⁻⁶ (half 0.0078 < 0.01), in [4, 8) it is 2⁻⁵ (half 0.0156 > 0.01): stuck at 4.
    Answering 2 (a binade early, or "spacing > addend" without the half) or 8 is wrong; FP16's stall (32: half
    spacing 2⁻⁶ first beats 0.01 in [32, 64)) is the other format's. torch's own BF16/FP16 loop is the oracle."""
    want = _torch_stall(torch.bfloat16, 0.01)
    fp16_stall = _torch_stall(torch.float16, 0.01)
    assert want == 4.0 and fp16_stall == 32.0
    assert l01.check_sum_stall("bf16", 0.01, want)
    capsys.readouterr()
    for wrong in (want / 2, want * 2, fp16_stall, want + 0.01):
        assert not l01.check_sum_stall("bf16", 0.01, wrong), wrong
        hint = capsys.readouterr().out.replace(repr(wrong), "")        # the learner's own answer is echoed
        assert "spacing(s, 'bf16')/2" in hint and "4.0" not in hint, wrong


def _survives(name, x):
    """x stored in the format by torch's own cast: neither zero nor inf/NaN."""
    dtype = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16,
             "fp8_e5m2": torch.float8_e5m2, "fp8_e4m3": torch.float8_e4m3fn}[name]
    y = torch.tensor(x, dtype=torch.float64).to(dtype).double().item()
    return y != 0 and math.isfinite(y)


def test_formats_for_range_knows_which_formats_keep_both_ends(capsys):
    """Exercise 01.4: 3e-9 and 20, unscaled. torch's casts: FP32 and BF16 (8 exponent bits) keep both; FP16's
    smallest subnormal 2⁻²⁴ ≈ 6e-8 and E5M2's 2⁻¹⁶ lose 3e-9 to zero, and E4M3's 2⁻⁹ too."""
    works = {name for name in l01.RANGE_FORMATS if _survives(name, 3e-9) and _survives(name, 20.0)}
    assert works == {"fp32", "bf16"}
    assert l01.check_formats_for_range(3e-9, 20.0, works)
    assert l01.check_formats_for_range(3e-9, 20.0, ["bf16", "fp32"])        # any collection of the names
    assert l01.check_formats_for_range(3e-9, 20.0, {"FP32", " BF16"})       # the names as the lesson writes them
    capsys.readouterr()
    # a right format missed: FP32 alone (BF16's range forgotten), or the prompt's example
    for missed in ({"fp32"}, "fp32", {"bf16"}):
        assert not l01.check_formats_for_range(3e-9, 20.0, missed), missed
        assert "বাদ পড়েছে" in capsys.readouterr().out
    # a format that loses an end: FP16 (max 65504 holds 20, but 3e-9 underflows), or every format
    for extra in ({"fp32", "bf16", "fp16"}, set(l01.RANGE_FORMATS), {"fp16"}, {"fp32", "bf16", "fp8_e5m2"}):
        assert not l01.check_formats_for_range(3e-9, 20.0, extra), extra
        assert "শূন্য বা inf/NaN" in capsys.readouterr().out
    # names it does not know, or no collection at all: the shape of the answer, said as such
    for typo in ({"float32", "bf16"}, 3):
        assert not l01.check_formats_for_range(3e-9, 20.0, typo), typo
    out = capsys.readouterr().out
    assert "unknown format" in out and "a set of names" in out
