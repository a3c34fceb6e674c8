"""Lesson 10 exercise checks against oracles worked out by hand or by torch itself: right answers pass, the wrong
answers the hints anticipate fail with that hint, blanks never fail."""
import math

import torch
from torch import nn

from mishran.checkup import keep
from mishran.exercises import lesson10 as ex


def test_blank_answers_give_a_reminder_not_an_error(capsys):
    for verdict in (ex.check_first_overflow(...), ex.check_init_scale(...), ex.check_keep_plan(...),
                    ex.check_planted_fix(...)):
        assert not verdict
    assert capsys.readouterr().out.count("উত্তর এখনো লেখা হয়নি") == 4


def test_the_first_module_to_overflow_is_up_not_the_biggest_number(capsys):
    # by hand: embed's 1.2e5 stays FP32 (Embedding is on no autocast list) and LayerNorm brings it to ~1;
    # proj's 65510 rounds to 65504 in FP16 (inf only from 65520); up gives 4 × 0.27 × 65504 ≈ 70744 → inf
    assert torch.isfinite(torch.tensor(65510.0).half()) and torch.isinf(torch.tensor(4 * 0.27 * 65504).half())
    assert ex.check_first_overflow("up") and ex.check_first_overflow(" UP ")
    capsys.readouterr()
    for wrong, hint in (("embed", "Embedding"), ("proj", "65520"), ("norm", "LayerNorm"), ("head", "FP32")):
        assert not ex.check_first_overflow(wrong), wrong
        assert hint in capsys.readouterr().out
    assert not ex.check_first_overflow("lm_head")                            # not a module of the model


def _window_by_brute_force():
    """Every power of two from 2^0 to 2^20: cast every gradient (weights' and the activation's) to FP16 by torch."""
    model, x = ex.ScaleNet(), ex.scale_batch()
    h = model.amp(x)
    h.retain_grad()
    (2.0 * h.square().mean() + 1e-8 * model.tiny(h.detach()).sum()).backward()
    grads = [p.grad for p in model.parameters()] + [h.grad]
    good = []
    for k in range(21):
        overflow = any(torch.isinf((g * 2.0 ** k).half()).any() or (g * 2.0 ** k).abs().max() > 65504 for g in grads)
        zero = max(float(((p.grad * 2.0 ** k).half() == 0)[p.grad != 0].float().mean()) for p in model.parameters())
        if not overflow and zero <= 0.01:
            good.append(k)
    return good


def test_the_scale_must_be_a_power_of_two_inside_the_window(capsys):
    good = _window_by_brute_force()
    assert good == list(range(good[0], good[-1] + 1)) and 16 not in good and 0 not in good
    for k in good:
        assert ex.check_init_scale(2.0 ** k), k
    capsys.readouterr()
    assert not ex.check_init_scale(2.0 ** 16) and "2**16" in capsys.readouterr().out      # PyTorch's default
    assert not ex.check_init_scale(1) and "underflow" in capsys.readouterr().out
    assert not ex.check_init_scale(2.0 ** (good[0] - 1)) and "underflow" in capsys.readouterr().out
    assert not ex.check_init_scale(1000) and "power of two" in capsys.readouterr().out
    assert not ex.check_init_scale("x") and not ex.check_init_scale(math.nan)


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


class _Upcast(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x.float() * self.factor                                      # FP32 even under autocast


class _Fixed(ex.PlantedNet):
    def __init__(self):
        super().__init__()
        self.sharpen = _Upcast(self.sharpen.factor)


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
    assert not ex.check_planted_fix(_ChangedMath()) and "FP32" in capsys.readouterr().out
    kept = ex.PlantedNet()
    keep.KeepFP32(kept, ["sharpen"]).apply()                                # the advice's way, not the exercise's
    assert not ex.check_planted_fix(kept) and "KeepFP32" in capsys.readouterr().out
    assert not ex.check_planted_fix(nn.Linear(2, 2)) and "state_dict" in capsys.readouterr().out
    assert not ex.check_planted_fix("model")
