"""Graded mode (MISHRAN_GRADED=1, mishran.exercises.graded): a check records the answer and says only that it was
submitted, the same words and the same return value for a right and a wrong answer; blanks and answers of the wrong
shape are still told; the teacher's rescore() calls the same check on the recorded arguments."""
import json
import math

import pytest
import torch

from mishran.exercises import graded, lesson01, lesson02, lesson08


@pytest.fixture
def grading(monkeypatch):
    monkeypatch.setenv(graded.ENV, "1")
    # outside Jupyter, whatever ran before in this process: another test file may have made an IPython shell
    # (get_ipython() then answers), and the record would go to display() instead of the printed line read here
    monkeypatch.setattr("IPython.get_ipython", lambda: None)


def _said(capsys):
    """(first words, record) of what a graded check printed outside Jupyter: SUBMITTED, then the record's JSON."""
    out = capsys.readouterr().out.strip()
    head, _, record = out.partition(": ")
    return head, (json.loads(record) if record else None)


def test_a_right_and_a_wrong_answer_look_the_same_to_the_learner(grading, capsys):
    right, wrong = lesson01.check_e4m3_max(448.0), lesson01.check_e4m3_max(240.0)
    assert bool(right) is bool(wrong) is True and repr(right) == repr(wrong)
    out = capsys.readouterr().out
    assert out.count(graded.SUBMITTED) == 2 and "ঠিক" not in out and "এখনো হয়নি" not in out


def test_the_record_names_the_check_and_its_arguments_and_rescores_with_the_real_check(grading, capsys):
    lesson01.check_e4m3_max(448.0)
    head, right = _said(capsys)
    assert head == graded.SUBMITTED
    assert right == {"module": "mishran.exercises.lesson01", "check": "check_e4m3_max", "args": {"answer": 448.0}}
    lesson01.check_bf16_round(0.3, 0.3)
    _, wrong = _said(capsys)
    assert wrong["args"] == {"x": 0.3, "answer": 0.3}
    assert graded.rescore(right)[0] is True
    ok, said = graded.rescore(wrong)
    assert ok is False and "এখনো হয়নি" in said
    assert graded.active()                                  # rescoring left graded mode as it was


def test_blank_and_wrongly_shaped_answers_are_still_told(grading, capsys):
    assert not lesson01.check_e4m3_max(...)
    assert "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out
    assert not lesson01.check_e4m3_max("চারশো")               # not a number: says so, tells nothing of the truth
    assert "একটি সংখ্যা হওয়া চাই" in capsys.readouterr().out


def test_off_unless_the_variable_says_one(monkeypatch, capsys):
    for value in ("", "0"):
        monkeypatch.setenv(graded.ENV, value)
        assert lesson01.check_e4m3_max(448.0)
        assert capsys.readouterr().out.startswith("ঠিক!")


def test_answers_of_every_kind_come_back_as_they_were(grading, capsys):
    for value in (3, -1.5, "fp16", None, True, [1, 2.5], (8, 4, 1), {"fp16", "bf16"}, {"A": 40, "B": [1]},
                  math.inf, 2 ** 70):
        assert graded.decode(json.loads(json.dumps(graded.encode(value), allow_nan=False))) == value
    assert math.isnan(graded.decode(graded.encode(math.nan)))
    t = torch.tensor([1e-7, -2.0], dtype=torch.float32)
    back = graded.decode(json.loads(json.dumps(graded.encode(t))))
    assert back.dtype == torch.float32 and torch.equal(back, t)
    with pytest.raises(graded.Unscorable):
        graded.decode(graded.encode(torch.nn.Linear(2, 2)))


def test_a_tuple_a_tensor_and_a_function_answer_are_rescored(grading, capsys):
    lesson08.check_batch_plan((8, 4, 1))
    _, plan = _said(capsys)
    assert plan["args"]["answer"] == {"$tuple": [8, 4, 1]} and graded.rescore(plan)[0] is not None
    # a tensor question: gradients of 1e-6, below FP16's smallest normal 2^-14 ≈ 6.1e-5; × 2^10 they are 1.0e-3,
    # normal, and the largest (1.0) × 2^14 fits FP16 (max 65504), while × 2^16 = 65536 overflows: window 2^10 … 2^14
    grads = torch.full((1000,), 1e-6)
    lesson02.check_scale_for_budget(grads, 1.0, {"smallest": 2 ** 10, "largest": 2 ** 14})
    _, fits = _said(capsys)
    assert fits["args"]["values"]["$tensor"][:2] == [grads[0].item()] * 2 and graded.rescore(fits)[0] is True
    lesson02.check_scale_for_budget(grads, 1.0, {"smallest": 2 ** 10, "largest": 2 ** 16})
    assert graded.rescore(_said(capsys)[1])[0] is False
    lesson01.check_fp16_decoder(_wrong_decoder)
    _, decoder = _said(capsys)
    assert decoder["args"]["decoder"]["name"] == "_wrong_decoder" and graded.rescore(decoder)[0] is False


def _wrong_decoder(pattern):
    return math.ldexp(pattern & 0x3FF, -10)                # the mantissa alone: wrong for nearly every pattern


def test_rescore_refuses_a_record_that_is_not_a_check():
    assert graded.rescore({"module": "os", "check": "system", "args": {"command": "true"}})[0] is None
    assert graded.rescore({"module": "mishran.exercises.lesson01", "check": "formats", "args": {}})[0] is None


def test_a_typo_is_told_at_once_and_recorded_as_invalid_not_as_wrong(grading, capsys):
    for call, told in ((lambda: lesson01.check_formats_for_range(3e-9, 20.0, {"FP23"}), "অচেনা নাম"),
                       (lambda: lesson01.check_bf16_round(0.3, "1.3b"), "একটি সংখ্যা হওয়া চাই")):
        assert not call()                                   # not the "submitted" truth a real answer gets
        out = capsys.readouterr().out
        assert told in out and graded.INVALID in out and graded.SUBMITTED not in out
        record = json.loads(out.split(f"{graded.INVALID}: ", 1)[1])
        assert record["invalid"] is True and record["check"].startswith("check_")


def test_rescore_answers_the_handouts_question_not_the_learners_own(grading, capsys):
    lesson01.check_bf16_round(0.5, 0.5)                     # 0.5 is a power of two: exact in BF16
    _, own = _said(capsys)
    assert graded.rescore(own)[0] is True
    assert graded.rescore(own, question={"x": 0.3})[0] is False    # BF16(0.3) = 154 * 2^-9, not 0.5
    assert own["args"]["x"] == 0.5                          # the record itself keeps what the learner asked

