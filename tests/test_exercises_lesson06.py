"""Lesson 06 exercise checks (where memory goes): blanks never fail, hand-worked answers pass, the paper's formula and
other wrong answers fail with a hint that does not name the answer."""
from mishran.exercises import lesson06 as l06


def test_lesson06_blank_answers_do_not_fail(capsys):
    assert not l06.check_zero2_gpus_for_budget(...)
    assert not l06.check_zero2_gpus_for_budget({"gpus": ..., "floor_gb": ...})
    assert not l06.check_activation_change(...)
    assert not l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, ...)
    assert not l06.check_csr_break_even(...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 5


def test_zero2_gpus_for_a_budget_and_the_floor_no_gpu_count_goes_below(capsys):
    # by hand, DeepSpeed's ZeRO-2 (2Ψ 16-bit weights on every GPU + (2 + 4 + 4 + 8)Ψ / N), Ψ = 7e9, 24 GB:
    # 14 + 126 / N ≤ 24 → N ≥ 12.6 → 13 GPUs; however many GPUs, never below the 2Ψ = 14 GB of weights
    assert l06.ZERO2_BUDGET == {"num_params": 7e9, "budget_gb": 24}
    assert l06.check_zero2_gpus_for_budget({"gpus": 13, "floor_gb": 14})
    assert l06.check_zero2_gpus_for_budget({"gpus": "13", "floor_gb": 14.0})
    capsys.readouterr()
    assert not l06.check_zero2_gpus_for_budget({"gpus": 10, "floor_gb": 14})    # the paper's 2Ψ + 14Ψ/N ...
    assert "প্রবন্ধের হিসাব" in capsys.readouterr().out                          # ... gets its own hint
    for wrong in ({"gpus": 6, "floor_gb": 0}, {"gpus": 12, "floor_gb": 14}, {"gpus": 13, "floor_gb": 0},
                  {"gpus": 13, "floor_gb": 28}):       # everything shared; rounded down; no floor; FP32 weights
        assert not l06.check_zero2_gpus_for_budget(wrong), wrong
    hints = capsys.readouterr().out
    assert "13" not in hints.replace("'gpus': 13", "") and "14 GB" not in hints
    assert not l06.check_zero2_gpus_for_budget({"gpus": 13}) and not l06.check_zero2_gpus_for_budget(13)
    # a budget under the floor: no number of GPUs does it (answer 0) — ZeRO-3's territory
    assert l06.check_zero2_gpus_for_budget({"gpus": 0, "floor_gb": 14}, {"num_params": 7e9, "budget_gb": 12})
    # 1e9 weights, 100 GB: one GPU already holds 2 + 18 = 20 GB
    assert l06.check_zero2_gpus_for_budget({"gpus": 1, "floor_gb": 2}, {"num_params": 1e9, "budget_gb": 100})


def test_cheapest_fit_puts_what_deepspeeds_estimator_says_on_the_gpu_under_offload():
    # by hand, 3e9 weights on one 80 GB GPU, 50 GB of activations: nothing = 48 + 50 (no fit); checkpointing
    # = 48 + 5 (fits, 1.4x); offload = 6 + 50 (fits, 1.9x; the GPU keeps only the 2Ψ 16-bit weights, as DeepSpeed's
    # estimator prints); both = 6 + 5 (fits, 2.66x) -> checkpointing
    assert l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, "B")
    assert not l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, "C")
    # 12e9 weights: 192 GB of states; offload alone fits (24 + 50 GB; it would not with 4Ψ = 48 GB on the GPU)
    assert l06.check_cheapest_fit(12e9, 80, 50, 0.1, 1.4, 1.9, "C")
    assert not l06.check_cheapest_fit(12e9, 80, 50, 0.1, 1.4, 1.9, "D")
    assert l06.check_cheapest_fit(30e9, 80, 50, 0.1, 1.4, 1.9, "D")        # 60 + 5: only both together
    # the lesson passes the offload ratio it measured: a CPU optimizer fast enough that offload costs less
    # than recomputing makes offload alone the answer for 3e9 too
    assert l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.3, "C")


def test_activation_change_and_csr_break_even():
    assert l06.check_activation_change("a") and not l06.check_activation_change("B")
    # FP16 value 2 bytes + int64 column 8 bytes per nonzero vs 2 bytes dense: density 2/10, so 80% zeros
    assert l06.check_csr_break_even(0.8) and l06.check_csr_break_even(80) and l06.check_csr_break_even("0.8")
    assert not l06.check_csr_break_even(2 / 3) and not l06.check_csr_break_even(0.5)      # FP32's 2/3 is not it
    assert l06.check_csr_break_even(2 / 3, {"value_bytes": 4, "index_bytes": 8})          # ...the lesson's FP32 case
    assert not l06.check_csr_break_even(True)
