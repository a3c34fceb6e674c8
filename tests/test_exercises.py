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
