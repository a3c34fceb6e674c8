"""Lesson 09 exercise checks: blanks never fail, answers worked out independently pass, wrong ones fail with a hint
that does not name the answer, malformed answers get a message instead of an exception."""
import pytest
import torch

from mishran.exercises import lesson09 as l09
from mishran.numerics import communication as cp


def test_lesson09_blank_answers_do_not_fail(capsys):
    assert not l09.check_cast_first_bug(...)
    assert not l09.check_cast_first_bug({"line": ..., "fix": ...})
    assert not l09.check_rank_bytes(...)
    assert not l09.check_rank_bytes({"params": ..., "grads": 1, "optim": 2})
    assert not l09.check_reduce_dtype(..., 8, 1e-2)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_cast_first_bug_line_and_fix(capsys):
    lines = l09.CAST_FIRST_CODE.splitlines()
    assert "set_default_dtype(torch.bfloat16)" in lines[4] and 8 <= len(lines) <= 12   # line 5, read by eye
    assert l09.check_cast_first_bug({"line": 5, "fix": "C"})
    assert l09.check_cast_first_bug({"line": "5", "fix": " c "})
    capsys.readouterr()
    for wrong in ({"line": 6, "fix": "C"}, {"line": 5, "fix": "A"}, {"line": 5, "fix": "B"}, {"line": 5, "fix": "D"},
                  {"line": 10, "fix": "A"}):
        assert not l09.check_cast_first_bug(wrong), wrong
    hints = capsys.readouterr().out
    assert "fix: C" not in hints and "'C'" not in hints and "line 5" not in hints and "লাইন ৫" not in hints
    for malformed in ({"line": 5}, {"line": "পাঁচ", "fix": "C"}, {"line": 5.5, "fix": "C"}, {"line": True, "fix": "C"},
                      {"line": 5, "fix": "E"}, 5, "C"):
        assert not l09.check_cast_first_bug(malformed), malformed
    assert "পেয়েছি" in capsys.readouterr().out


def test_the_fix_candidates():
    """Four candidates; the right one (checked above) removes the cast. D was checked on a two-rank gloo run: casting
    the model back with model.to(torch.float32) after building AdamW would have worked (swap_tensors keeps the
    Parameter objects the optimizer holds), so it is not offered; D here sets param_dtype=fp32, which leaves the
    shards in BF16."""
    assert set(l09.CAST_FIRST_FIXES) == {"A", "B", "C", "D"}
    assert "FP32" in l09.CAST_FIRST_FIXES["C"] and "param_dtype" in l09.CAST_FIRST_FIXES["C"]
    assert not any("set_default_dtype" in fix for fix in l09.CAST_FIRST_FIXES.values())   # no fix quotes the line


def test_rank_bytes_by_hand(capsys):
    # by hand: Ψ = 124,439,808 over N = 8 → 15,554,976 values per rank; FP32 shards (4 B), FP32 sharded grads
    # (the reduce-scatter output is cast back to the parameter's dtype), AdamW exp_avg + exp_avg_sq in FP32 (8 B).
    # Seen in a two-rank gloo fully_shard run: param, grad, exp_avg, exp_avg_sq all torch.float32.
    # the question reduces in BF16 (the trap: gradients are still kept in the shard's FP32 after the sum)
    assert l09.RANK_BYTES_QUESTION == {"num_params": 124_439_808, "world": 8, "model_dtype": "fp32",
                                       "param_dtype": "bf16", "reduce_dtype": "bf16"}
    right = {"params": 62_219_904, "grads": 62_219_904, "optim": 124_439_808}
    assert l09.check_rank_bytes(right)
    assert l09.check_rank_bytes({k: v * 1.009 for k, v in right.items()})                # within 1%
    assert l09.check_rank_bytes({"params": "62219904", "grads": 62_219_904.0, "optim": 124_439_808})
    capsys.readouterr()
    for wrong in ({"params": 31_109_952, "grads": 62_219_904, "optim": 124_439_808},     # BF16 shards
                  {"params": 62_219_904, "grads": 31_109_952, "optim": 124_439_808},     # BF16 grads
                  {"params": 62_219_904, "grads": 62_219_904, "optim": 62_219_904},      # one moment
                  {"params": 497_759_232, "grads": 497_759_232, "optim": 995_518_464},   # not sharded
                  {k: v * 1.02 for k, v in right.items()}):
        assert not l09.check_rank_bytes(wrong), wrong
    hints = capsys.readouterr().out
    assert "62" not in hints and "124" not in hints and "155" not in hints
    # the notebook's own model: 1,000,003 weights on 2 ranks, built in BF16 (the cast-first bug): 2 B each
    bf16 = {"num_params": 1_000_003, "world": 2, "model_dtype": "bf16"}
    assert l09.check_rank_bytes({"params": 1_000_003, "grads": 1_000_003, "optim": 2_000_006}, bf16)
    assert l09.check_rank_bytes({"params": 2_000_006, "grads": 2_000_006, "optim": 4_000_012},
                                {"num_params": 1_000_003, "world": 2})
    for malformed in ({"params": 1}, {"params": "x", "grads": 1, "optim": 1}, [1, 2, 3]):
        assert not l09.check_rank_bytes(malformed)
    with pytest.raises(TypeError, match="question হবে"):
        l09.check_rank_bytes(right, {"num_params": 10})
    with pytest.raises(ValueError, match="world"):
        l09.check_rank_bytes(right, {"num_params": 10, "world": 0})


@pytest.fixture(scope="module")
def sweep():
    return cp.error_sweep(worlds=(32, 256, 1024), n=2 ** 12)


def test_reduce_dtype_questions_have_different_answers(sweep):
    answers = [cp.smallest_safe_dtype(q["world"], q["tolerance"], sweep) for q in l09.REDUCE_DTYPE_QUESTIONS]
    assert len(set(answers)) == len(answers) == 3


def test_reduce_dtype_right_wrong_and_malformed(sweep, capsys):
    for q in l09.REDUCE_DTYPE_QUESTIONS:
        world, tol = q["world"], q["tolerance"]
        i = sweep["worlds"].index(world)
        # the oracle, by hand from the measured errors: within tolerance, fewest wire bytes, then no FP32 sums,
        # then no extra division
        cost = {"fp32": (4, 0, 0), "bf16": (2, 0, 0), "fp16": (2, 0, 1), "bf16_wire_fp32_sum": (2, 1, 0)}
        truth = min((s for s in cost if sweep["errors"][s][i] <= tol), key=cost.get)
        assert l09.check_reduce_dtype(truth, world, tol, sweep)
        assert l09.check_reduce_dtype(truth.upper(), world, tol)                     # measured at check time
        capsys.readouterr()
        for other in cost:
            if other != truth:
                assert not l09.check_reduce_dtype(other, world, tol, sweep), (q, other)
        hints = capsys.readouterr().out
        assert truth not in hints.replace(f"{truth}_", ""), hints
    # a world the notebook's sweep lacks: the check measures it itself and says so; with the sweep it does not
    capsys.readouterr()
    l09.check_reduce_dtype("bf16", 32, 1e-2, {**sweep, "worlds": [w for w in sweep["worlds"] if w != 32]})
    l09.check_reduce_dtype("bf16", 32, 1e-2, sweep)
    measured_here, from_sweep = capsys.readouterr().out.strip().split("\n")[-2:]
    assert "যাচাই নিজে মাপল" in measured_here and "যাচাই নিজে মাপল" not in from_sweep
    assert not l09.check_reduce_dtype("tf32", 8, 1e-2, sweep)
    assert not l09.check_reduce_dtype(3, 8, 1e-2, sweep)
    assert "পেয়েছি" in capsys.readouterr().out
    with pytest.raises(ValueError):
        l09.check_reduce_dtype("bf16", 0, 1e-2, sweep)
    with pytest.raises(ValueError):
        l09.check_reduce_dtype("bf16", 8, -1.0, sweep)


def test_rank_bytes_hints_name_a_whole_slip(capsys):
    """A whole answer off by the same factor gets the slip named: N times too big (not sharded), element counts instead
    of bytes, or GiB instead of bytes."""
    right = {"params": 62_219_904, "grads": 62_219_904, "optim": 124_439_808}
    for factor, phrase in ((8, "Ψ/N"), (1 / 4, "উপাদানের সংখ্যা"), (1 / 2 ** 30, "বাইটে দাও")):
        assert not l09.check_rank_bytes({k: v * factor for k, v in right.items()})
        assert phrase in capsys.readouterr().out
    assert not l09.check_cast_first_bug({"line": 0, "fix": "C"})
    assert "1 থেকে" in capsys.readouterr().out


def test_reduce_dtype_takes_the_lessons_own_name_direct(sweep):
    """The lesson and the figure's legend call bf16_wire_fp32_sum "direct": the check takes that name too. At
    W = 1024 and 1e-3 only FP32 (4 bytes) and direct (2 bytes) stay within (sweep: BF16 3.4e-1, FP16 3.9e-3)."""
    i = sweep["worlds"].index(1024)
    assert sweep["errors"]["bf16_wire_fp32_sum"][i] <= 1e-3 < min(sweep["errors"][s][i] for s in ("bf16", "fp16"))
    assert l09.check_reduce_dtype("direct", 1024, 1e-3, sweep) and l09.check_reduce_dtype(" Direct", 1024, 1e-3, sweep)
    assert not l09.check_reduce_dtype("direct", 32, 1e-2, sweep)          # there plain BF16 is cheaper


def test_cast_first_bug_wrong_choices_get_their_own_hint(capsys):
    """09.1's anticipated wrong choices, each answered by its own hint and only that: line 7 (the policy line, the
    other place bfloat16 appears) or 6 (where the model is built) gets the line hint; fix A (reduce_dtype), B
    (GradScaler: BF16 has FP32's 8 exponent bits, torch.finfo below) and D (param_dtype) each get theirs."""
    assert torch.finfo(torch.bfloat16).max > 3e38 and torch.finfo(torch.float32).max > 3e38   # same range: B is moot
    lines = l09.CAST_FIRST_CODE.splitlines()
    assert "MixedPrecisionPolicy(" in lines[6] and "TinyGPT" in lines[5]
    for line in (6, 7):
        assert not l09.check_cast_first_bug({"line": line, "fix": "C"})
        out = capsys.readouterr().out
        assert "line: model-এর ওজন" in out and "fix:" not in out
    for fix, phrase in (("A", "reduce_dtype বদলায় শুধু"), ("B", "BF16-এর পরিসর FP32-এর সমান"),
                        ("D", "param_dtype কেবল")):
        assert not l09.check_cast_first_bug({"line": 5, "fix": fix})
        out = capsys.readouterr().out
        assert f"fix: {phrase}" in out and "line:" not in out


def test_rank_bytes_each_field_slip_gets_its_field_hint(capsys):
    """09.2 by hand (Ψ/N = 15,554,976): params 4 B each, grads 4 B (cast back to the shard's FP32 after the BF16 sum),
    AdamW two FP32 moments. Taking param_dtype for the shard (2 B), reduce_dtype for the grads (2 B) or one moment
    each gets the hint for that field alone."""
    shard = 124_439_808 // 8
    right = {"params": 4 * shard, "grads": 4 * shard, "optim": 8 * shard}
    for key, wrong_value, phrase in (("params", 2 * shard, "param_dtype কখন"), ("grads", 2 * shard, "reduce_dtype শুধু"),
                                     ("optim", 4 * shard, "কয়টি tensor")):
        assert not l09.check_rank_bytes({**right, key: wrong_value}), key
        out = capsys.readouterr().out
        assert "এই উত্তরটি আবার দেখো" in out and [k for k in right if f"{k}: " in out] == [key], out   # one field
        assert phrase in out
    bf16_everything = {"params": 2 * shard, "grads": 2 * shard, "optim": 4 * shard}   # the team's hope: all halves
    assert not l09.check_rank_bytes(bf16_everything)
    out = capsys.readouterr().out
    assert all(f"{k}: " in out for k in right)
