"""Lesson 08 exercise checks (the capstone): blanks never fail, hand-worked answers pass, wrong ones fail."""
import math

from mishran.exercises import lesson08 as ex


def test_lesson08_blank_answers_do_not_fail(capsys):
    for check in (ex.check_bf16_eval_bpc, ex.check_batch_plan, ex.check_curve_explanation, ex.check_top1_prediction):
        assert not check(...)                       # ফাঁকা: মনে করায়, ভুল তোলে না
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_a_bf16_running_sum_stalls_and_the_eval_prints_a_flattering_bpc(capsys):
    # by hand (lesson 01): BF16 keeps 8 significant bits, so in [2^15, 2^16) neighbours are 2^8 = 256 apart; adding
    # ~112 (< 128) rounds back, so the total sticks at 2^15 = 32768 instead of 65536 × 1.75 = 114688:
    # printed 32768 / 65536 / ln 2 = 0.721 bpc, where the true value is 1.75 / ln 2 = 2.52
    assert ex.EVAL_QUESTION == {"chars": 65536, "batch_chars": 64, "loss_nats": 1.75}
    assert ex.check_bf16_eval_bpc(2 ** 15 / 65536 / math.log(2)) and ex.check_bf16_eval_bpc("0.721")
    capsys.readouterr()
    for wrong in (1.75 / math.log(2), 1.75, 0.5, 1.0, "x", math.nan):   # the FP32 answer, nats, guesses
        assert not ex.check_bf16_eval_bpc(wrong), wrong
    hints = capsys.readouterr().out
    assert "0.72" not in hints and "32768" not in hints and "৩২৭৬৮" not in hints
    # a small held-out set (16 batches, total ~1800, neighbours 8 apart) never nears the stall: about the true value
    assert ex.check_bf16_eval_bpc(2.52, {"chars": 1024, "batch_chars": 64, "loss_nats": 1.75})


def test_batch_plan_curve_and_top1(capsys):
    # হাতে হিসাব (Ψ = 10^9, ২ GPU, ২৪ GB হাতে, নমুনায় ১.৪ GB): ZeRO 0-এ 16 GB → micro ≤ 4 (accum 8);
    # ZeRO 1-এ 4 + 12/2 = 10 GB → micro ≤ 8 (accum 4); ZeRO 2/3-এও micro 16 আঁটে না (9 + 22.4, 8 + 22.4).
    # DeepSpeed-এর হিসাবে (FP32 gradient কপিসহ, stage 1 = 2Ψ + 2Ψ + 16Ψ/N = 12 GB): 12 + 11.2 = 23.2 ≤ 24 — একই উত্তর
    # Communication (DeepSpeed 0.19.8): ZeRO 1 reduces gradients only at the accumulation boundary
    # (stage_1_and_2.py, reduce_ready_partitions_and_remove_grads: partition_gradients or boundary); ZeRO 2 on every
    # micro-step (engine.py: "ZeRO stage >= 2 communicates during non gradient accumulation boundaries as well"), so at
    # accumulation 4 it moves 4 reduce-scatters + 1 all-gather = 5 gradient volumes against ZeRO 1's 2; ZeRO 3 adds two
    # parameter all-gathers per micro-step (12). Only (8, 4, 1) passes.
    assert ex.check_batch_plan((8, 4, 1))
    for wrong in [(8, 4, 2), (8, 4, 3), (4, 8, 0), (8, 4, 0), (16, 2, 3), (8, 2, 1), (8, 4, 7)]:
        assert not ex.check_batch_plan(wrong), wrong
    capsys.readouterr()
    assert not ex.check_batch_plan((8, 4, 2)) and "প্রতিটি ছোট ধাপে" in capsys.readouterr().out
    # without accumulation ZeRO 0, 1 and 2 each move one allreduce's worth: any of them that fits passes. Four GPUs of
    # 32 GB (30 usable): ZeRO 1 = 4 + 12/4 = 7 GB, ZeRO 2 = 2 + 14/4 = 5.5 GB, + 16 × 1.4 = 22.4 → accumulation 1
    roomy = {**ex.BUDGET, "gpus": 4, "gpu_gb": 32}
    assert ex.check_batch_plan((16, 1, 1), roomy) and ex.check_batch_plan((16, 1, 2), roomy)
    assert not ex.check_batch_plan((16, 1, 3), roomy) and not ex.check_batch_plan((16, 1, 0), roomy)  # 16 + 22.4 > 30
    # where only ZeRO 3 fits at the fewest accumulation steps (a smaller GPU), ZeRO 3 is the answer
    small = {**ex.BUDGET, "gpu_gb": 21.5}   # 19.5 GB: micro 8 fits only ZeRO 3 (8 + 11.2; ZeRO 2 needs 9 + 11.2)
    assert ex.check_batch_plan((8, 4, 3), small) and not ex.check_batch_plan((8, 4, 2), small)
    assert ex.check_curve_explanation("C") and not any(ex.check_curve_explanation(k) for k in "ABD")
    assert ex.check_top1_prediction(True) and not ex.check_top1_prediction(False)


def test_the_summary_after_exercise_4_does_not_answer_it():
    """Exercise 08.4 asks whether top_k = 1 gives the same text for every seed; the summary right after it must not
    say so (it used to: 'top_k = 1 মানে greedy, seed-এর কিছু করার থাকে না')."""
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "08_capstone.ipynb").read_text("utf-8"))
    summary = next("".join(c["source"]) for c in cells["cells"]
                   if c["cell_type"] == "markdown" and "## সারসংক্ষেপ" in "".join(c["source"]))
    assert "greedy" not in summary and "seed" not in summary


def test_eval_bpc_wrong_answers_get_their_own_hint(capsys):
    """08.1's anticipated wrong answers: the FP32 total's bpc (1.75 / ln 2 = 2.525) and the per-character loss in nats
    (1.75) are each refused with the hint that names their slip; neither hint gives the printed value."""
    assert not ex.check_bf16_eval_bpc(1.75 / math.log(2))
    assert "FP32-এ যোগ করলে এটাই ছাপা হতো" in capsys.readouterr().out
    assert not ex.check_bf16_eval_bpc(1.75)
    assert "nat-এ, bit-এ নয়" in capsys.readouterr().out
    assert not ex.check_bf16_eval_bpc(1.0)
    assert "হাতে চালাও" in capsys.readouterr().out


def test_batch_plan_wrong_answers_get_their_own_hint(capsys):
    """By hand (Ψ = 10^9, 2 GPUs, 24 GB usable, 1.4 GB per sample): (16, 2, 3) needs 8 + 22.4 = 30.4 GB: does not fit;
    (4, 8, 0) fits (16 + 5.6) but takes 8 accumulation steps where ZeRO 1 takes 4; (8, 2, 1) is 8 × 2 × 2 = 32, not
    the global batch 64; stage 7 does not exist; (8, 4, 2) moves 4 + 1 = 5 units against ZeRO 1's 2."""
    assert not ex.check_batch_plan((16, 2, 3))
    assert "আঁটে না" in capsys.readouterr().out
    assert not ex.check_batch_plan((4, 8, 0))
    assert "k = 8 দরকারের চেয়ে বেশি" in capsys.readouterr().out
    assert not ex.check_batch_plan((8, 2, 1))
    assert "ব্যাচের হিসাব মেলেনি" in capsys.readouterr().out
    assert not ex.check_batch_plan((8, 4, 7)) and "ZeRO stage হয়" in capsys.readouterr().out
    assert not ex.check_batch_plan((8, 4, 2))
    out = capsys.readouterr().out
    assert "যোগাযোগ" in out and "ZeRO 1" not in out                      # the hint does not name the answer
    assert not ex.check_batch_plan("8, 4, 1") and "তিনটি পূর্ণসংখ্যা" in capsys.readouterr().out


def test_curve_and_top1_wrong_answers_get_their_own_hint(capsys):
    """08.3: each wrong option is answered by the evidence against it (the full corpus in BF16 does not rise; train
    still falls; held-out fell until step 500); 08.4: False is asked what top_k = 1 leaves; a string is a form slip."""
    for key, phrase in (("A", "ফরম্যাট নয়"), ("b", "train-এর loss-ও উঠত"), ("D", "শুরু থেকেই উঁচু")):
        assert not ex.check_curve_explanation(key), key
        out = capsys.readouterr().out
        assert phrase in out and "overfitting" not in out
    assert not ex.check_curve_explanation("E") and "one of" in capsys.readouterr().out
    assert not ex.check_top1_prediction(False)
    assert "top_k = 1 মানে" in capsys.readouterr().out
    assert not ex.check_top1_prediction("True") and "পেয়েছি 'True'" in capsys.readouterr().out
