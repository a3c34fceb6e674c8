"""mishran.exercises.lesson00: each check's truth comes from an independent reckoning, and it can say no."""
import torch

from mishran.exercises import lesson00 as l00
from mishran.formats import FORMATS


def test_largest_model_is_the_hand_computed_one():
    """Hand oracle: Adam + AMP keeps FP32 weights, FP32 grads and two FP32 moments = 16 bytes per parameter."""
    budget = (24 - 8) * 2 ** 30
    params = {"350M": 350e6, "700M": 700e6, "1B": 1e9, "1.3B": 1.3e9, "2B": 2e9}
    best = max((c for c, n in params.items() if n * 16 <= budget), key=params.get)
    assert l00.check_largest_model(best)
    assert not l00.check_largest_model("2B")             # the answer of someone who thinks AMP halves it (8 B)
    assert not l00.check_largest_model("700M")           # fits, but is not the largest
    assert not l00.check_largest_model("3B")             # not a choice
    assert not l00.check_largest_model(...)               # blank: a reminder, no error
    assert l00.check_largest_model("2B", gpu_gib=40, activation_gib=8)   # 32 GiB: 2e9 × 16 B = 29.8 GiB


def test_batch_prediction_is_judged_by_measurement():
    assert l00.check_batch_prediction("একই", "দ্বিগুণ")
    assert not l00.check_batch_prediction("দ্বিগুণ", "দ্বিগুণ")
    assert not l00.check_batch_prediction("একই", "একই")
    assert not l00.check_batch_prediction("একই", ...)


def test_smaller_error_follows_the_mantissa_and_torch():
    """Oracle: the format with more mantissa bits rounds finer; torch's own casts agree on random products."""
    torch.manual_seed(1)
    x = torch.randn(10_000, dtype=torch.float64)
    err = {n: ((x.to(d).double() - x).abs() / x.abs()).mean().item()
           for n, d in (("fp16", torch.float16), ("bf16", torch.bfloat16))}
    finer = max(l00.FORMAT_CHOICES, key=lambda n: FORMATS[n].mantissa_bits)
    assert finer == min(err, key=err.get)
    assert l00.check_smaller_error(finer)
    assert not l00.check_smaller_error(({"fp16", "bf16"} - {finer}).pop())
