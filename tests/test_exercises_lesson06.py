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
    # = 48 + 5 (fits, 1.4x); offload = 6 + 50 (fits, 1.9x); both = 6 + 5 (fits, 2.66x) -> checkpointing
    assert l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, "B")
    assert not l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, "C")
    # a CPU optimizer fast enough that offload costs less than recomputing: offload alone wins
    assert l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.3, "C")
    # 12e9 weights: 192 GB of states. Under offload DeepSpeed's estimator (cpu_offload=True) keeps only the
    # 16-bit weights on the GPU, 2 bytes each: 24 + 50 = 74 GB fits, so offload alone (2x) beats offload +
    # checkpointing (2.8x). With 4 bytes per weight (16-bit weights and gradients) only both would fit.
    assert l06.check_cheapest_fit(12e9, 80, 50, 0.1, 1.4, 2.0, "C")
    assert not l06.check_cheapest_fit(12e9, 80, 50, 0.1, 1.4, 2.0, "D")
    assert l06.check_activation_change("a") and not l06.check_activation_change("B")
    # FP16 value 2 bytes + int64 column 8 bytes per nonzero vs 2 bytes dense: density 2/10, so 80% zeros
    assert l06.check_csr_break_even(0.8) and l06.check_csr_break_even(80) and l06.check_csr_break_even("0.8")
    assert not l06.check_csr_break_even(2 / 3) and not l06.check_csr_break_even(0.5)      # FP32's 2/3 is not it
    assert l06.check_csr_break_even(2 / 3, {"value_bytes": 4, "index_bytes": 8})          # ...the lesson's FP32 case
    assert not l06.check_csr_break_even(True) and not l06.check_activation_change(...)


def test_the_offload_budget_matches_deepspeeds_estimator_printed_in_the_lesson():
    # exercise 06.3 counts 2 bytes per weight on the GPU under ZeRO-Offload; the lesson prints DeepSpeed's own
    # ZeRO-2 estimator beside it, and its offload row must say the same (and 2 + 18 without offload, N = 1)
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs
    psi = 15e9                                   # 2Ψ + 50 GB of activations = 80 GB: fits exactly at 2 bytes
    _, offload_gpu = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=1, cpu_offload=True)
    _, plain_gpu = estimate_zero2_model_states_mem_needs(psi, num_gpus_per_node=1, cpu_offload=False)
    assert (offload_gpu, plain_gpu) == (2 * psi, 20 * psi)
    assert l06.check_cheapest_fit(psi, offload_gpu / 1e9 + 50, 50, 0.1, 1.4, 2.0, "C")
