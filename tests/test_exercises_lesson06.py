"""Lesson 06 exercise checks (where memory goes): blanks never fail, hand-worked answers pass, the paper's formula and
other wrong answers fail with a hint that does not name the answer."""
import torch

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
    assert l06.check_csr_break_even("80%") and l06.check_csr_break_even(" 80 % ")    # as the lesson writes a share
    assert not l06.check_csr_break_even("0.8%") and not l06.check_csr_break_even("20%")   # 0.8% is not 80%
    assert not l06.check_csr_break_even(2 / 3) and not l06.check_csr_break_even(0.5)      # FP32's 2/3 is not it
    assert l06.check_csr_break_even(2 / 3, {"value_bytes": 4, "index_bytes": 8})          # ...the lesson's FP32 case
    assert not l06.check_csr_break_even(True)


# ---------- every wrong answer a hint anticipates is refused, with its own hint (issue 33, item 21) ----------

def test_zero2_hints_name_the_field_that_is_wrong(capsys):
    """By hand (as above, 14 + 126 / N ≤ 24 → N ≥ 12.6): 12 is 12.6 rounded down, 9.8 the paper's count unrounded —
    neither the paper's own whole answer (10), so both get the general gpus hint; a missing floor gets the floor's."""
    for wrong in ({"gpus": 12, "floor_gb": 14}, {"gpus": 9.8, "floor_gb": 14}):
        assert not l06.check_zero2_gpus_for_budget(wrong), wrong
        hint = capsys.readouterr().out
        assert "GPU পূর্ণসংখ্যা" in hint and "প্রবন্ধের হিসাব" not in hint and "floor_gb:" not in hint, wrong
    assert not l06.check_zero2_gpus_for_budget({"gpus": 13, "floor_gb": 0})
    hint = capsys.readouterr().out
    assert "কোন অংশ কখনো ভাগ হয় না" in hint and "gpus:" not in hint
    assert l06.check_zero2_gpus_for_budget({"gpus": 13, "floor_gb": 14.2})       # within 2% of 14 GB


def _saved_activation_bytes(batch, seq):
    """bytes a TinyGPT forward keeps for backward (parameters left out), counted with torch's own saved-tensor
    hooks, one count per storage."""
    from mishran.models.gpt import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=32, block_size=64, n_layer=2, n_head=4, n_embd=64), seed=0)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept = {}

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            kept[storage.data_ptr()] = storage.nbytes()
        return t

    x = torch.randint(0, 32, (batch, seq), generator=torch.Generator().manual_seed(0))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x, x)
    return sum(kept.values())


def test_activation_change_refuses_every_other_choice_against_a_count_by_torch(capsys):
    """Exercise 06.2: half the batch, twice the sequence. torch's saved-tensor hooks count what the forward keeps:
    (4, 64) keeps about what (8, 32) keeps (B × T is the same; SDPA keeps no T × T matrix), so A; the others —
    doubled (the sequence alone), halved (the batch alone), ×4 (a T × T matrix) — are refused with the hint to
    combine the two changes."""
    ratio = _saved_activation_bytes(4, 64) / _saved_activation_bytes(8, 32)
    factors = {"A": 1, "B": 2, "C": 0.5, "D": 4}
    right = min(factors, key=lambda k: abs(factors[k] - ratio))
    assert right == "A" and abs(ratio - 1) < 0.2, ratio
    assert l06.check_activation_change(right) and l06.check_activation_change(" a ")
    capsys.readouterr()
    for wrong in set(factors) - {right}:
        assert not l06.check_activation_change(wrong) and not l06.check_activation_change(wrong.lower()), wrong
        assert "দুটি বদল একসঙ্গে" in capsys.readouterr().out, wrong
    for typo in ("E", 1, "AB"):
        assert not l06.check_activation_change(typo), typo


def test_cheapest_fit_refuses_a_path_that_does_not_fit_and_one_that_fits_but_is_slower(capsys):
    """By hand (the lesson's numbers, see the test above): 3e9 weights, 80 GB, 50 GB of activations —
    nothing = 48 + 50 = 98 GB (does not fit); checkpointing 48 + 5 (1.4×); offload 6 + 50 (1.9×); both 6 + 5
    (1.4 × 1.9 = 2.66×). With 30e9 weights only both together fit: 480 + 5, 60 + 50 and 480 + 50 do not."""
    for wrong in ("A", "C", "D"):
        assert not l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, wrong), wrong
        assert "estimator-এর offload-সহ সারি" in capsys.readouterr().out, wrong
    for wrong in ("A", "B", "C"):
        assert not l06.check_cheapest_fit(30e9, 80, 50, 0.1, 1.4, 1.9, wrong), wrong
    assert not l06.check_cheapest_fit(3e9, 80, 50, 0.1, 1.4, 1.9, "E")


def test_csr_break_even_refuses_the_density_for_the_share_of_zeros(capsys):
    """Exercise 06.4, checked on torch's own CSR tensors: FP16 values (2 bytes) and int64 column indices (8 bytes).
    With exactly z zeros in each row of a 256 × 256 matrix, CSR is bigger than dense at 79% zeros and smaller at 81%
    (row pointers included): the break-even is 0.8 (by hand d × 10 = 2 → d = 0.2, zeros 1 − d). The density 0.2
    (or 20 read as 20%) is the slip the hint's last sentence is for; 2/3 is FP32's (or int32 indices')."""
    import warnings

    def csr_bytes(zeros_per_row):
        w = torch.ones(256, 256, dtype=torch.float16)
        w[:, :zeros_per_row] = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")                  # "Sparse CSR tensor support is in beta state"
            csr = w.to_sparse_csr()
        assert csr.col_indices().dtype == torch.int64 and csr.values().element_size() == 2
        return sum(t.numel() * t.element_size() for t in (csr.values(), csr.col_indices(), csr.crow_indices()))

    dense = 256 * 256 * 2
    assert csr_bytes(round(0.79 * 256)) > dense > csr_bytes(round(0.81 * 256))
    assert l06.check_csr_break_even(0.8)
    capsys.readouterr()
    for wrong in (0.2, 20, 2 / 3, 1, 0.9, 0.75):
        assert not l06.check_csr_break_even(wrong), wrong
        assert "শূন্যের ভাগ = ১ − d" in capsys.readouterr().out, wrong
    assert not l06.check_csr_break_even("আশি শতাংশ")
