"""The shared answer helpers of mishran.exercises.core that the lesson checks stand on: one finite number, a dict of
fields, and a field-by-field verdict listing what does not match under one lead line (not 'এখনো হয়নি: মেলেনি:',
which said "not yet" twice)."""
import math

import torch

from mishran.exercises import core

BLANK_NOTE = "উত্তর এখনো লেখা হয়নি"


def test_finite_number_takes_what_as_number_reads_but_no_inf_or_nan():
    assert core.finite_number(" 0.8 ") == 0.8 and core.finite_number(torch.tensor(2.5)) == 2.5
    for not_finite in (math.inf, -math.inf, math.nan, "inf", 2 ** 2000, ..., None, "আশি", [1]):
        assert core.finite_number(not_finite) is None, not_finite


def test_number_answer_gives_the_number_or_the_verdict_to_return(capsys):
    assert core.number_answer("0.5") == (0.5, None)
    value, early = core.number_answer(...)
    assert value is None and early is not None and not early
    assert BLANK_NOTE in capsys.readouterr().out
    for wrong in ("x", math.inf, math.nan):
        value, early = core.number_answer(wrong, "একটি সংখ্যা চাই (a number, bpc)")
        assert value is None and not early
        assert capsys.readouterr().out == f"এখনো হয়নি: একটি সংখ্যা চাই (a number, bpc); পেয়েছি {wrong!r}।\n"
    core.number_answer("x")
    assert capsys.readouterr().out == "এখনো হয়নি: উত্তর একটি সংখ্যা হওয়া চাই (a number); পেয়েছি 'x'।\n"


def test_blank_note_quotes_the_placeholder_so_it_does_not_read_as_an_ellipsis(capsys):
    """'ফাঁকা: উত্তর এখনো লেখা হয়নি: ... -এর জায়গায়' read as a sentence trailing off; the placeholder is quoted."""
    verdict = core.blank_verdict()
    out = capsys.readouterr().out
    assert not verdict and out.startswith(f"ফাঁকা: {BLANK_NOTE}")
    assert '"..."-এর জায়গায়' in out and ": ..." not in out


def test_dict_answer_checks_shape_blanks_and_numbers(capsys):
    assert core.dict_answer({"b": "2", "a": 1}, ("a", "b")) == ({"a": 1.0, "b": 2.0}, None)
    assert core.dict_answer({"a": "x", "b": 2}, ("a", "b"), numbers=False) == ({"a": "x", "b": 2}, None)
    for blank in (..., None, {"a": 1, "b": ...}):
        values, early = core.dict_answer(blank, ("a", "b"))
        assert values is None and not early and BLANK_NOTE in capsys.readouterr().out
    values, early = core.dict_answer({"a": 1}, ("a", "b"))
    assert values is None and not early
    assert capsys.readouterr().out == "এখনো হয়নি: {'a': ..., 'b': ...} আকারের dict চাই; পেয়েছি {'a': 1}।\n"
    core.dict_answer({"a": 1, "b": math.inf}, ("a", "b"))
    assert capsys.readouterr().out == "এখনো হয়নি: 'b'-এর উত্তর একটি সংখ্যা হওয়া চাই (a number); পেয়েছি inf।\n"
    core.dict_answer({"a": "x", "b": 1}, ("a", "b"), need="দুটোই সংখ্যা চাই (numbers)")
    assert capsys.readouterr().out == "এখনো হয়নি: দুটোই সংখ্যা চাই (numbers); পেয়েছি {'a': 'x', 'b': 1}।\n"


def test_check_fields_lists_each_mismatch_with_its_hint_in_order(capsys):
    hints = {"a": "a: ইঙ্গিত ক", "b": "b: ইঙ্গিত খ"}
    assert core.check_fields({"a": 1, "b": 2}, {"a": 1, "b": 2}, hints, "সব ঠিক")
    assert capsys.readouterr().out == "ঠিক! সব ঠিক\n"
    assert not core.check_fields({"a": 0, "b": 0}, {"a": 1, "b": 2}, hints, "সব ঠিক")
    assert capsys.readouterr().out == "এখনো হয়নি: এই উত্তরগুলো আবার দেখো:\n   a: ইঙ্গিত ক\n   b: ইঙ্গিত খ\n"
    assert not core.check_fields({"a": 1, "b": 0}, {"a": 1, "b": 2}, hints, "সব ঠিক")
    assert capsys.readouterr().out == "এখনো হয়নি: এই উত্তরটি আবার দেখো:\n   b: ইঙ্গিত খ\n"
    # a tolerance for one field only: 1% off passes there, an exact field still needs the exact value
    assert core.check_fields({"a": 1.01, "b": 2}, {"a": 1, "b": 2}, hints, "ঠিক", rel_tol={"a": 0.02})
    assert not core.check_fields({"a": 1, "b": 2.01}, {"a": 1, "b": 2}, hints, "ঠিক", rel_tol={"a": 0.02})
    assert core.check_fields({"a": 1.01, "b": 2.01}, {"a": 1, "b": 2}, hints, "ঠিক", rel_tol=0.02)
    assert not core.check_fields({"a": "x", "b": 2}, {"a": 1, "b": 2}, hints, "ঠিক")     # not a number: a mismatch


def test_choice_answer_takes_one_of_the_choices_folded_as_asked(capsys):
    assert core.choice_answer("1B", ("350M", "1B")) == ("1B", None)
    assert core.choice_answer(" c ", {"A": 1, "C": 2}, fold=str.upper) == ("C", None)
    key, early = core.choice_answer(..., ("350M", "1B"))
    assert key is None and not early and BLANK_NOTE in capsys.readouterr().out
    for wrong in ("1b", 3, [1]):
        key, early = core.choice_answer(wrong, ("350M", "1B"), "মডেলের মাপ")
        assert key is None and not early
    assert capsys.readouterr().out.endswith("এখনো হয়নি: মডেলের মাপ হবে 350M, 1B-এর একটি (one of); পেয়েছি [1]।\n")


def test_function_answer_lets_a_function_through_and_says_what_else_it_got(capsys):
    assert core.function_answer(len, "f(x)") is None
    assert not core.function_answer(..., "f(x)") and BLANK_NOTE in capsys.readouterr().out
    assert not core.function_answer(3, "f(x)")
    assert capsys.readouterr().out == "এখনো হয়নি: একটি ফাংশন চাই (a function) f(x); পেয়েছি 3।\n"
