"""mishran.exercises.lesson00: each check's truth comes from an independent reckoning, and it can say no."""
import pytest
import torch

from mishran.exercises import lesson00 as l00
from mishran.numerics.formats import FORMATS


def test_largest_model_is_the_hand_computed_one(capsys):
    """Hand oracle: Adam + AMP keeps FP32 weights, FP32 grads and two FP32 moments = 16 bytes per parameter, and the
    8 GiB are for activations only, so autocast's 16-bit cast copy (2 bytes per matmul weight) needs room beside the
    model state — exercise 03.2 counts it the same way."""
    budget = (24 - 8) * 2 ** 30
    params = {"350M": 350e6, "700M": 700e6, "1B": 1e9, "1.3B": 1.3e9, "2B": 2e9}
    best = max((c for c, n in params.items() if n * (16 + 2) <= budget), key=params.get)
    assert best == "700M"
    assert l00.check_largest_model(best)
    capsys.readouterr()
    assert not l00.check_largest_model("1B")             # fits on 16 bytes, not with the cast copy ...
    assert "activation-এর বাজেটে সেটা ধরা নেই" in capsys.readouterr().out   # ... and is told what it left out
    assert not l00.check_largest_model("2B")             # the answer of someone who thinks AMP halves it (8 B)
    assert not l00.check_largest_model("350M")           # fits, but is not the largest
    assert not l00.check_largest_model("3B")             # not a choice
    assert not l00.check_largest_model(...)               # blank: a reminder, no error
    assert "উত্তর এখনো লেখা হয়নি" in capsys.readouterr().out
    assert l00.check_largest_model("1.3B", gpu_gib=40, activation_gib=8)   # 32 GiB: 1.3e9 × 18 B = 21.8 GiB
    assert not l00.check_largest_model("2B", gpu_gib=40, activation_gib=8)  # 2e9 × 18 B = 33.5 GiB > 32


def test_autocast_cast_copy_lives_for_the_region_and_is_saved_for_backward():
    """The facts lesson 00 states about the cast copy, measured: autocast caches the 16-bit cast of a leaf FP32
    weight that requires grad for the whole autocast region (two matmuls share one copy; a new region makes a new
    one), and the matmul saves that copy for backward, so it outlives the region until backward frees it."""
    layer = torch.nn.Linear(32, 32, bias=False)
    x = torch.randn(4, 32, requires_grad=True)           # inside a network the input carries a gradient

    def ptr(t):
        return t.untyped_storage().data_ptr()

    with torch.autocast("cpu", dtype=torch.bfloat16):
        y1, y2 = layer(x), layer(x)
    first = y1.grad_fn._saved_mat2
    assert first.dtype == torch.bfloat16 and ptr(first) == ptr(y2.grad_fn._saved_mat2)   # one copy per region
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y3 = layer(x)
    assert ptr(y3.grad_fn._saved_mat2) != ptr(first)     # the cache ended with the region
    assert y1.grad_fn._saved_mat2.dtype == torch.bfloat16  # yet the saved copy outlives the region ...
    y1.float().sum().backward()
    with pytest.raises(RuntimeError):                     # ... until backward frees it
        _ = y1.grad_fn._saved_mat2


def test_batch_prediction_is_judged_by_measurement(capsys):
    """Hand oracle: weights, gradients and Adam's moments depend only on the model (same); each sample keeps its own
    activations (double). Each anticipated wrong guess is refused, and the hint names the part that was wrong."""
    assert l00.check_batch_prediction("একই", "দ্বিগুণ")
    capsys.readouterr()
    assert not l00.check_batch_prediction("দ্বিগুণ", "দ্বিগুণ")        # "everything grows with the batch"
    assert capsys.readouterr().out.startswith("এখনো হয়নি: model state-এর অনুমান")
    assert not l00.check_batch_prediction("একই", "একই")                # "activations belong to the model"
    assert capsys.readouterr().out.startswith("এখনো হয়নি: activation-এর অনুমান")
    assert not l00.check_batch_prediction("একই", ...)
    assert not l00.check_batch_prediction("একই", "তিন গুণ")              # not a choice
    assert "one of" in capsys.readouterr().out


def test_smaller_error_follows_the_mantissa_and_torch(capsys):
    """Oracle: the format with more mantissa bits rounds finer; torch's own casts agree on random products."""
    torch.manual_seed(1)
    x = torch.randn(10_000, dtype=torch.float64)
    err = {n: ((x.to(d).double() - x).abs() / x.abs()).mean().item()
           for n, d in (("fp16", torch.float16), ("bf16", torch.bfloat16))}
    finer = max(l00.FORMAT_CHOICES, key=lambda n: FORMATS[n].mantissa_bits)
    assert finer == min(err, key=err.get)
    coarser = ({"fp16", "bf16"} - {finer}).pop()
    assert l00.check_smaller_error(finer, "mantissa")
    assert not l00.check_smaller_error(coarser, "mantissa")
    assert not l00.check_smaller_error(finer, "exponent")       # right format, wrong reason: not a pass
    assert not l00.check_smaller_error(finer, ...)
    assert not l00.check_smaller_error(finer, "sign")            # not a choice


def test_smaller_error_feedback_does_not_name_the_other_choice(capsys):
    """A two-way choice is given away by "the other one has less error" (the old feedback). A wrong answer's
    feedback names neither format and never points at "the other"; a wrong reason gets the same words whichever
    format came with it, so the feedback cannot be read for the format."""
    for fmt in l00.FORMAT_CHOICES:
        for reason in l00.REASON_CHOICES:
            capsys.readouterr()
            if l00.check_smaller_error(fmt, reason):
                continue
            out = capsys.readouterr().out
            assert out.startswith("এখনো হয়নি:")
            assert "অন্য" not in out
            assert not {"fp16", "bf16", "FP16", "BF16"} & set(out.replace(",", " ").replace("।", " ").split())
    said = {}
    for fmt in l00.FORMAT_CHOICES:
        capsys.readouterr()
        l00.check_smaller_error(fmt, "exponent")
        said[fmt] = capsys.readouterr().out
    assert said["fp16"] == said["bf16"]


def test_largest_model_wrong_answers_get_their_own_hint(capsys):
    """Hand oracle (budget 16 GiB = 17.18e9 B): 2B is what 8 B per parameter (the belief that AMP halves every state)
    gives: 2e9 × 8 = 16e9 ≤ 17.18e9; with the true 18 B it needs 36e9, so it is over the budget. 1.3B needs 23.4e9 and
    even on 16 B alone 20.8e9: over. 350M (6.3e9) fits but 700M (12.6e9) fits too. No hint names the answer."""
    assert 2e9 * 8 <= 16 * 2 ** 30 < 2e9 * 18 and 1.3e9 * 16 > 16 * 2 ** 30
    for wrong in ("2B", "1.3B"):
        assert not l00.check_largest_model(wrong), wrong
        assert "বাজেট ছাড়িয়ে যায়" in capsys.readouterr().out
    assert not l00.check_largest_model("350M")
    out = capsys.readouterr().out
    assert "আরও বড় একটা বিকল্পও আঁটে" in out
    assert not l00.check_largest_model("1B")
    out += capsys.readouterr().out
    assert "700M" not in out and "700" not in out


def test_smaller_error_total_bits_is_not_a_reason(capsys):
    """Both formats are 16 bits wide (1 + 5 + 10 and 1 + 8 + 7), so "মোট বিট" cannot separate them: refused even with
    the right format, and told that both are 16-bit."""
    assert torch.finfo(torch.float16).bits == torch.finfo(torch.bfloat16).bits == 16
    assert torch.finfo(torch.float16).eps == 2.0 ** -10 and torch.finfo(torch.bfloat16).eps == 2.0 ** -7
    finer = "fp16"                                          # 10 mantissa bits against BF16's 7 (torch's eps above)
    for fmt in l00.FORMAT_CHOICES:
        assert not l00.check_smaller_error(fmt, "মোট বিট"), fmt
        assert "১৬ বিটের" in capsys.readouterr().out
    assert not l00.check_smaller_error("bf16", "mantissa")   # the right reason with the coarser format
    assert "mantissa-র বিট গুনে" in capsys.readouterr().out
    assert l00.check_smaller_error(finer, "mantissa")
