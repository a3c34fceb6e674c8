"""Lesson 04 exercise checks (gradient accumulation): blanks never fail, hand-counted answers pass, wrong ones fail."""
from mishran.exercises import lesson04 as l04


def test_lesson04_blank_answers_do_not_fail(capsys):
    assert not l04.check_microbatch_weight(6, 30, ...)
    assert not l04.check_allreduce_count(10, 4, True, ...)
    assert not l04.check_accumulation_bug(...)
    assert not l04.check_effective_batch(8, 4, 2, ...)
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_a_microbatch_mean_is_weighted_by_its_share_of_the_batch():
    assert l04.check_microbatch_weight(6, 30, 0.2)
    assert l04.check_microbatch_weight(6, 30, 6 / 30)
    assert not l04.check_microbatch_weight(6, 30, 1 / 4)          # 1/k is only right for equal micro-batches


def test_no_sync_allreduces_once_per_step_without_it_once_per_micro_step():
    assert l04.check_allreduce_count(10, 4, True, 10)
    assert l04.check_allreduce_count(10, 4, False, 40)
    assert l04.check_allreduce_count(10, 4, True, 30, buckets=3)
    assert not l04.check_allreduce_count(10, 4, True, 40)


def test_the_buggy_loop_syncs_on_the_first_micro_step_and_the_check_names_that_line(capsys):
    lines = l04.BUGGY_ACCUMULATION_LOOP.splitlines()
    buggy = [i for i, line in enumerate(lines, start=1) if "sync = micro_step == 0" in line]   # found by reading
    assert len(buggy) == 1
    assert l04.check_accumulation_bug(buggy[0])
    assert not l04.check_accumulation_bug(5)
    assert "আগের লাইন" in capsys.readouterr().out
    assert not l04.check_accumulation_bug(13) and not l04.check_accumulation_bug(99)
    assert not l04.check_accumulation_bug("চার")


def test_effective_batch_is_micro_times_accum_times_world():
    assert l04.check_effective_batch(8, 4, 2, 64)
    assert not l04.check_effective_batch(8, 4, 2, 32)


def test_micro_and_k_under_a_budget():
    # fixed 10, 3 per example, budget 40 → micro ≤ 10; per rank 32 → largest divisor ≤ 10 is 8, k = 4
    assert l04.check_micro_and_k({"micro": 8, "k": 4}, 40, 10, 3, target=64, world=2)
    assert not l04.check_micro_and_k({"micro": 4, "k": 8}, 40, 10, 3, target=64, world=2)    # fits, not largest
    assert not l04.check_micro_and_k({"micro": 16, "k": 2}, 40, 10, 3, target=64, world=2)   # does not fit
    assert not l04.check_micro_and_k({"micro": 8, "k": 2}, 40, 10, 3, target=64, world=2)    # wrong batch
    assert not l04.check_micro_and_k({"micro": ..., "k": ...}, 40, 10, 3, target=64, world=2)


def test_each_rank_taking_its_own_mean_weighs_a_rank_not_a_token(capsys):
    # by hand: 12 and 60 tokens, right weight 1/72; rank 0's own mean gives 1/12, DDP halves it: 1/24 = 3/72;
    # rank 1: 1/120 = 0.6/72
    assert l04.RANK_TOKENS == (12, 60)
    assert l04.check_rank_mean_weights({"rank0": 3, "rank1": 0.6})
    assert l04.check_rank_mean_weights({"rank0": "3", "rank1": 3 / 5})
    capsys.readouterr()
    for wrong in ({"rank0": 1, "rank1": 1}, {"rank0": 6, "rank1": 1.2}, {"rank0": 0.6, "rank1": 3},
                  {"rank0": 0.5, "rank1": 0.5}, {"rank0": 3}, 3):   # equal, no DDP average, swapped, ×W missing
        assert not l04.check_rank_mean_weights(wrong), wrong
    assert "0.6" not in capsys.readouterr().out
    assert l04.check_rank_mean_weights({"rank0": 1, "rank1": 1}, tokens=(30, 30))   # equal ranks: no bias
