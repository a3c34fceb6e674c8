"""Second-round exercise checks of lessons 03-05 (LESSONS-B): right answers pass, wrong ones explain."""
import torch

from mishran.exercises import lesson03 as l03
from mishran.exercises import lesson04 as l04
from mishran.models import MLP


def test_scale_sequence_matches_hand_worked_policy(capsys):
    pattern = [False, True, False, False, False, True, True, False, False, False]
    # by hand: growth_interval 3 → doubles on the 3rd clean step in a row; an overflow halves and resets
    hand = [1024, 512, 512, 512, 1024, 512, 256, 256, 256, 512]
    assert l03.check_scale_sequence(pattern, hand, init_scale=1024, growth_interval=3)
    assert not l03.check_scale_sequence(pattern, [1024, 512, 512, 1024, 1024, 512, 256, 256, 512, 512],
                                        init_scale=1024, growth_interval=3)
    assert "ধাপ 3" in capsys.readouterr().out                # names the first step that differs
    assert not l03.check_scale_sequence(pattern, ...)
    assert not l03.check_scale_sequence(pattern, [1.0] * 3)


def test_max_micro_batch_counts_sixteen_bytes_in_both(capsys):
    # 24e9 − 16 × 350e6 = 18.4e9 → 18 examples of 1 GB; AMP: (18.4e9 − 0.7e9) / 0.6e9 = 29.5 → 29
    assert l03.check_max_micro_batch({"fp32": 18, "amp": 29})
    # the "AMP halves the model" belief: (24e9 − 8 × 350e6) / 0.6e9 = 35
    assert not l03.check_max_micro_batch({"fp32": 18, "amp": 35})
    assert "autocast মডেল বদলায় না" in capsys.readouterr().out
    assert not l03.check_max_micro_batch({"fp32": ..., "amp": ...})
    assert not l03.check_max_micro_batch([18, 29])


def test_overflow_diagnosis_finds_the_first_module_itself():
    net = MLP(8, 64, 1, n_layers=3, seed=0)
    raw = torch.randn(32, 8, generator=torch.Generator().manual_seed(2)) * 30_000 + 60_000
    first = l03._first_nonfinite_module(net, raw, "cpu")
    assert first is not None and first.startswith("net.")
    assert l03.check_overflow_diagnosis({"module": first, "fix": "c"}, net, raw)
    assert not l03.check_overflow_diagnosis({"module": first, "fix": "a"}, net, raw)
    assert not l03.check_overflow_diagnosis({"module": "net.4", "fix": "c"}, net, raw) or first == "net.4"
    assert l03._first_nonfinite_module(net, (raw - raw.mean(0)) / raw.std(0), "cpu") is None


def test_micro_and_k_under_a_budget():
    # fixed 10, 3 per example, budget 40 → micro ≤ 10; per rank 32 → largest divisor ≤ 10 is 8, k = 4
    assert l04.check_micro_and_k({"micro": 8, "k": 4}, 40, 10, 3, target=64, world=2)
    assert not l04.check_micro_and_k({"micro": 4, "k": 8}, 40, 10, 3, target=64, world=2)    # fits, not largest
    assert not l04.check_micro_and_k({"micro": 16, "k": 2}, 40, 10, 3, target=64, world=2)   # does not fit
    assert not l04.check_micro_and_k({"micro": 8, "k": 2}, 40, 10, 3, target=64, world=2)    # wrong batch
    assert not l04.check_micro_and_k({"micro": ..., "k": ...}, 40, 10, 3, target=64, world=2)


def test_smallest_zero_stage_under_a_budget(capsys):
    from mishran.exercises import lesson05 as l05
    # by hand, 13e9 weights on 8 GPUs: stage 1 = 4Ψ + 12Ψ/8 = 71.5 GB > 60; stage 2 = 2Ψ + 14Ψ/8 = 48.75 GB ≤ 60
    assert l05.check_smallest_zero_stage(13e9, 8, 60, 2)
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 1)     # does not fit
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, 3)     # fits, but 2 is enough
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, True)
    assert not l05.check_smallest_zero_stage(13e9, 8, 60, ...)
    assert l05.check_smallest_zero_stage(13e9, 8, 80, 1)         # a bigger budget: stage 1 is enough
