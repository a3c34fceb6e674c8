"""Lesson 06 exercise checks (where memory goes): blanks never fail, hand-worked GB figures pass, the paper's
formula and other wrong answers fail."""
from mishran.exercises import lesson06 as l06


def test_lesson06_checks_blank_right_and_wrong(capsys):
    assert not l06.check_zero2_gb_per_gpu(7e9, 8, ...) and "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out
    # by hand, DeepSpeed's ZeRO-2: 2Ψ BF16 weights on every GPU + (2 + 4 + 4 + 8)Ψ / 8 = 14 + 15.75 GB
    assert l06.check_zero2_gb_per_gpu(7e9, 8, 29.75) and l06.check_zero2_gb_per_gpu(7e9, 8, "29.75")
    capsys.readouterr()
    assert not l06.check_zero2_gb_per_gpu(7e9, 8, 26.25)                  # the paper's 2Ψ + 14Ψ/N ...
    assert "প্রবন্ধের হিসাব" in capsys.readouterr().out                    # ... gets its own hint
    for wrong in (112, 140, 17.5, "x"):                                   # FP32 Adam, no ZeRO, everything / 8
        assert not l06.check_zero2_gb_per_gpu(7e9, 8, wrong)
    # by hand, 3e9 weights on one 80 GB GPU, 50 GB of activations: nothing = 48 + 50 (no fit); checkpointing
    # = 48 + 5 (fits, 1.4x); offload = 12 + 50 (fits, 2x); both = 12 + 5 (fits, 2.8x) -> checkpointing
    assert l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 2.0, "B")
    assert not l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 2.0, "C")
    # 12e9 weights: 192 GB of states; only offload + checkpointing fits (48 + 5 GB on the GPU)
    assert l06.check_cheapest_fit(12e9, 80, 50, 0.1, 1.4, 2.0, "D")
    assert l06.check_activation_change("a") and not l06.check_activation_change("B")
    # FP16 value 2 bytes + int64 column 8 bytes per nonzero vs 2 bytes dense: density 2/10, so 80% zeros
    assert l06.check_csr_break_even(0.8) and l06.check_csr_break_even(80) and l06.check_csr_break_even("0.8")
    assert not l06.check_csr_break_even(2 / 3) and not l06.check_csr_break_even(0.5)      # FP32's 2/3 is not it
    assert l06.check_csr_break_even(2 / 3, {"value_bytes": 4, "index_bytes": 8})          # ...the lesson's FP32 case
    assert not l06.check_csr_break_even(True) and not l06.check_activation_change(...)
