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
