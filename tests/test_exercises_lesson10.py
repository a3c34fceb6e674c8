"""Lesson 10 exercise checks against oracles worked out by hand or by torch itself: right answers pass, the wrong
answers the hints anticipate fail with that hint, blanks never fail."""
import math

import torch
from torch import nn

from mishran.checkup import keep
from mishran.exercises import lesson10 as ex


def test_blank_answers_give_a_reminder_not_an_error(capsys):
    for verdict in (ex.check_first_overflow(...), ex.check_scale_window(...), ex.check_keep_plan(...),
                    ex.check_planted_fix(...)):
        assert not verdict
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_the_first_module_to_overflow_is_up_not_the_biggest_number(capsys):
    # by hand: embed's 1.2e5 stays FP32 (Embedding is on no autocast list) and LayerNorm brings it to ~1;
    # proj's 65510 rounds to 65504 in FP16 (inf only from 65520); up gives 4 × 0.27 × 65504 ≈ 70744 → inf
    assert torch.isfinite(torch.tensor(65510.0).half()) and torch.isinf(torch.tensor(4 * 0.27 * 65504).half())
    assert ex.check_first_overflow("up") and ex.check_first_overflow(" UP ")
    capsys.readouterr()
    for wrong, hint in (("embed", "Embedding"), ("proj", "65520"), ("norm", "LayerNorm"), ("act", "ReLU নতুন"),
                       ("head", "FP32")):
        assert not ex.check_first_overflow(wrong), wrong
        assert hint in capsys.readouterr().out
    assert not ex.check_first_overflow("lm_head")                            # not a module of the model


def _brute_force():
    """Every power of two from 2^0 to 2^20, by torch's own FP16 cast of every gradient (the weights' and the
    activation's): which gradients overflow, which parameters lose more than 1% of their non-zero gradients."""
    model, x = ex.ScaleNet(), ex.scale_batch()
    h = model.amp(x)
    h.retain_grad()
    (2.0 * h.square().mean() + 1e-8 * model.tiny(h.detach()).sum()).backward()
    grads = {**{n: p.grad for n, p in model.named_parameters()}, "activation": h.grad}
    overflow, zeroed = {}, {}
    for k in range(21):
        overflow[k] = [n for n, g in grads.items()
                       if torch.isinf((g * 2.0 ** k).half()).any() or (g * 2.0 ** k).abs().max() >= 65504]
        zeroed[k] = [n for n, p in model.named_parameters()
                     if float(((p.grad * 2.0 ** k).half() == 0)[p.grad != 0].float().mean()) > 0.01]
    return overflow, zeroed


def test_the_window_is_both_ends_and_the_hint_names_what_breaks(capsys):
    overflow, zeroed = _brute_force()
    good = [k for k in overflow if not overflow[k] and not zeroed[k]]
    low, high = good[0], good[-1]
    assert good == list(range(low, high + 1)) and 0 not in good and 16 not in good
    assert overflow[16] == ["amp.weight"]            # the activation gradient (max 0.71) still fits at 2^16
    right = {"smallest": 2.0 ** low, "largest": 2.0 ** high}
    assert ex.check_scale_window(right) and ex.check_scale_window({"largest": 2 ** high, "smallest": 2 ** low})
    capsys.readouterr()
    # any single power inside the window is no longer an answer: both ends are asked for
    for wrong in ({"smallest": 2.0 ** (low + 1), "largest": 2.0 ** high}, {"smallest": 2.0 ** low,
                                                                            "largest": 2.0 ** (high - 1)}):
        assert not ex.check_scale_window(wrong) and "চলে" in capsys.readouterr().out
    assert not ex.check_scale_window({"smallest": 2.0 ** low, "largest": 2.0 ** 16})
    said = capsys.readouterr().out
    assert "`amp.weight`" in said and "activation" not in said and "2**16" in said       # PyTorch's default
    assert not ex.check_scale_window({"smallest": 2.0 ** low, "largest": 2.0 ** 17})
    assert "activation gradient" in capsys.readouterr().out
    assert not ex.check_scale_window({"smallest": 2.0 ** (low - 1), "largest": 2.0 ** high})
    said = capsys.readouterr().out
    assert zeroed[low - 1] == ["tiny.weight"] and "`tiny.weight`" in said and "underflow" in said
    assert not ex.check_scale_window({"smallest": 2.0 ** high, "largest": 2.0 ** low})
    assert "জায়গা বদল" in capsys.readouterr().out
    assert not ex.check_scale_window({"smallest": 8, "largest": 1000}) and "power of two" in capsys.readouterr().out
    for bad in (2.0 ** 9, "x", {"smallest": math.nan, "largest": 8}, {"smallest": 8}):
        assert not ex.check_scale_window(bad)


def test_only_the_innermost_module_fits_the_budget(capsys):
    sizes = ex.plan_bytes()
    assert sizes["D"] < sizes["C"] < ex.budget_bytes() < sizes["B"] < sizes["A"]
    # the oracle for the overflow: the scores of the first example, computed in FP16 by hand
    model, (x, _) = ex.BudgetNet(), ex.budget_batch()
    with torch.no_grad():
        q, k = model.block.attn.qk(model.inp(x)).chunk(2, -1)
        assert (q @ k.transpose(-1, -2)).abs().max() > 65520
    assert ex.check_keep_plan("C") and ex.check_keep_plan("c")
    capsys.readouterr()
    assert not ex.check_keep_plan("D") and "loss scale" in capsys.readouterr().out
    for wrong in ("A", "B"):
        assert not ex.check_keep_plan(wrong) and "বাজেট" in capsys.readouterr().out
    assert not ex.check_keep_plan("E")
    assert torch.equal(ex.BudgetNet().inp.weight, ex.BudgetNet().inp.weight)        # the same model every time
    state = torch.get_rng_state()
    ex.BudgetNet(), ex.PlantedNet()
    assert torch.equal(state, torch.get_rng_state())                              # the learner's RNG untouched


class _Upcast(ex.Sharpen):
    def forward(self, x):
        return x.float() * self.factor                                      # FP32 even under autocast


class _Fixed(ex.PlantedNet):
    def __init__(self):
        super().__init__()
        self.sharpen = _Upcast(self.sharpen.factor)


class _SubtractMax(ex.Sharpen):
    """A plausible fix that is not one: subtract the max before sharpening — the loss is finite again, but the
    gaps × 1e5 still overflow FP16 on the low side: -inf in sharpen's output."""

    def forward(self, x):
        return (x - x.amax(-1, keepdim=True)) * self.factor


class _MaxFirst(ex.PlantedNet):
    def __init__(self):
        super().__init__()
        self.sharpen = _SubtractMax(self.sharpen.factor)


class _NoAutocast(ex.Sharpen):
    """The fix lesson 03 suggests first, half done: autocast off around the multiply, but the input is still FP16, so
    the product is FP16 too — and overflows both ways."""

    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            return x * self.factor


class _Double(ex.Sharpen):
    def forward(self, x):
        return x.double() * self.factor


def _planted_with(module_class):
    model = ex.PlantedNet()
    model.sharpen = module_class(model.sharpen.factor)
    return model


class _ChangedMath(ex.PlantedNet):
    def forward(self, x):
        return super().forward(x) / 10


def test_a_fix_must_keep_the_fp32_result_and_remove_the_inf(capsys):
    x, _ = ex.planted_batch()
    model = ex.PlantedNet()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):     # the fault, by torch itself: a 16-bit
        scores = model.score(torch.tanh(model.embed(x))).squeeze(-1)        # mul, on no autocast list (CPU or CUDA)
        assert scores.dtype == torch.float16 and torch.isinf(scores * model.sharpen.factor).any()
    assert ex.check_planted_fix(_Fixed())
    capsys.readouterr()
    assert not ex.check_planted_fix(ex.PlantedNet()) and "'sharpen'" in capsys.readouterr().out
    assert not ex.check_planted_fix(_Fixed) and "_Fixed()" in capsys.readouterr().out       # the class, not a model
    assert not ex.check_planted_fix(_MaxFirst()) and "−inf" in capsys.readouterr().out
    assert not ex.check_planted_fix(_planted_with(_NoAutocast))
    said = capsys.readouterr().out
    assert "এখনো float16" in said and "−inf" not in said                  # +inf and −inf: the dtype is the point
    assert not ex.check_planted_fix(_planted_with(_Double)) and "FP32-এ চলল না" in capsys.readouterr().out
    assert not ex.check_planted_fix(_ChangedMath()) and "FP32" in capsys.readouterr().out
    kept = ex.PlantedNet()
    keep.KeepFP32(kept, ["sharpen"]).apply()                                # the advice's way, not the exercise's
    assert not ex.check_planted_fix(kept) and "KeepFP32" in capsys.readouterr().out
    assert not ex.check_planted_fix(nn.Linear(2, 2)) and "state_dict" in capsys.readouterr().out
    assert not ex.check_planted_fix("model")
