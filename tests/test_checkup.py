"""The precision check-up (mishran.checkup, lesson 10) against oracles that do not come from the check-up itself:
models whose overflow, underflow and first non-finite module are known by construction, torch's own casts for the
FP16/BF16 underflow shares, a brute-force sweep over powers of two for the loss-scale range, torch's own autocast for
the op dtypes, and a bit-for-bit comparison of the model before and after."""
import contextlib
import json
import math
import subprocess
import sys
from dataclasses import dataclass

import pytest
import torch
from checkup_models import TinyGradient
from torch import nn

from mishran.checkup import keep, verdict
from mishran.checkup.command import main
from mishran.checkup.gradients import SCALE_POWERS, UNDERFLOW_LIMIT, log2_histogram, underflow_share
from mishran.checkup.run import checkup
from mishran.checkup.step import NoDropout
from mishran.checkup.target import resolve_target
from mishran.numerics.error import relative_error

FP16_MAX = 65504.0


def _overflowing():
    """'1' is a Linear whose outputs are ~1.6e5: finite in FP32 and BF16, inf in FP16."""
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 8), nn.Linear(8, 1))
    with torch.no_grad():
        model[0].weight.fill_(0.25), model[0].bias.zero_()
        model[1].weight.fill_(2e4), model[1].bias.zero_()
        model[2].weight.fill_(1e-5), model[2].bias.zero_()
    return model


def _mean_loss(out):
    return out.mean()


def _batch(n=8, features=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, features, generator=g) + 0.5


# ---- forward: overflow, first non-finite module, keep_fp32 ---------------------------------------------------

def test_flops_are_counted_by_hand():
    """forward 2·8·4·8 + 2·8·8·3; backward: the second Linear's weight and input gradients, the first's weight only."""
    model = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 3))
    report = checkup(model, (_batch(), torch.randint(0, 3, (8,))), loss_fn=nn.CrossEntropyLoss(), steps=0)
    assert report.flops == (512 + 384) + (384 + 384 + 512)


def test_an_overflowing_linear_is_found_first_and_kept_in_fp32():
    model, x = _overflowing(), _batch()
    with torch.no_grad():
        fp32_out = model[1](model[0](x))
        fp16_out = model[1].half()(model[0](x).half())       # torch's own FP16: the oracle
        model[1].float()
    assert torch.isfinite(fp32_out).all() and torch.isinf(fp16_out).any()
    report = checkup(model, x, loss_fn=_mean_loss, target="t4", steps=0)
    assert report.precisions == ["fp16"] and report.emulated
    assert report.numbers_label == "CPU-তে emulation (emulated on CPU)"
    assert report.first_nonfinite == {"fp16": "1"}
    assert report.overflow_modules["fp16"] == ["1"]
    assert report.keep_fp32 == ["1"]
    # keeping '1' in FP32 is not enough: its FP32 output (~1.6e5) is the input of '2', which autocast casts to FP16
    # again — torch's own FP16 says inf. The check-up's re-run with '1' kept says the same, so it recommends FP32
    # (slower but correct, even on a T4), not a plan it has just seen fail
    with torch.no_grad():
        assert torch.isinf(model[2].half()(model[1](model[0](x)).half())).any()
        model[2].float()
    assert report.keep_fp32_check["broken"] and report.recommended_precision == "fp32"
    assert report.fp16_init_scale is None and "FP32-এ রাখাই যথেষ্ট নয়" in report.advice
    row = {r.name: r for r in report.modules}["1"]
    assert row.max_abs == pytest.approx(float(fp32_out.abs().max()))
    assert row.fp16_headroom == pytest.approx(FP16_MAX / float(fp32_out.abs().max())) and row.fp16_headroom_log2 < 0
    assert row.runs["fp16"].nonfinite and row.runs["fp16"].forward_overflow
    assert not {r.name: r for r in report.modules}["0"].runs["fp16"].nonfinite
    assert "model.get_submodule" not in report.advice        # no code for a plan that did not work



def test_a_block_whose_error_is_only_the_sum_of_its_layers_is_not_kept_in_fp32():
    """Four hundred orthogonal Linear layers in one block: each adds about one BF16 rounding, so no layer is suspect,
    but the block's output carries them all — ≥ 1% and ≥ 10× BF16's unit roundoff over its exact FP32 input. Advising to
    keep the block in FP32 would mean the whole model; the advice names leaves only (and none here)."""
    torch.manual_seed(0)
    layers = [nn.Linear(16, 16, bias=False) for _ in range(400)]
    for layer in layers:
        nn.init.orthogonal_(layer.weight)                                   # norms kept: errors add up, not shrink
    model = nn.Sequential(nn.Sequential(*layers))
    report = checkup(model, torch.randn(16, 16), loss_fn=_mean_loss, steps=0)
    rows = {r.name: r for r in report.modules}
    block = rows["0"].runs["bf16"]
    assert block.added >= 10 and block.rel_error >= 0.01                   # the old rule would have flagged "0"
    assert max(rows[f"0.{i}"].runs["bf16"].added for i in range(400)) < 10
    assert report.keep_fp32 == [] and report.recommended_precision == "bf16"

def test_bf16_keeps_the_range_that_fp16_loses():
    report = checkup(_overflowing(), _batch(), loss_fn=_mean_loss, target="a100", steps=0)
    assert report.precisions == ["bf16", "fp16"]
    assert report.first_nonfinite == {"bf16": None, "fp16": "1"}
    assert report.overflow_modules["bf16"] == [] and report.recommended_precision == "bf16"
    assert report.fp16_init_scale is None and report.ds_config == {"bf16": {"enabled": True}}


def test_on_a_cpu_bf16_unless_it_breaks_the_model_then_fp32():
    """3.399e38 is finite in FP32 but past the midpoint above BF16's largest number, so BF16 rounds it to inf."""
    model = nn.Sequential(nn.Linear(1, 1, bias=False))
    with torch.no_grad():
        model[0].weight.fill_(3.399e38)
    x = torch.ones(2, 1)
    assert torch.isinf(model[0].weight.bfloat16()).all() and torch.isfinite(model(x)).all()   # the oracle
    report = checkup(model, x, loss_fn=lambda out: (out * 1e-38).mean(), target="cpu", steps=0)
    assert report.first_nonfinite == {"bf16": "0"} and not math.isfinite(report.loss["bf16"])
    assert report.recommended_precision == "fp32" and report.ds_config == {} and report.keep_fp32 == ["0"]
    assert "FP32" in report.advice


class _Cancel(nn.Module):
    """(x + 256) − 256: exact in FP32, but BF16 keeps 8 bits, so near 256 its spacing is 2 and x is lost."""

    def forward(self, x):
        return (x + 256.0) - 256.0


def test_a_module_that_adds_far_more_error_than_the_rest_is_kept_in_fp32():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), _Cancel(), nn.Linear(16, 2))
    x = _batch()
    report = checkup(model, x, loss_fn=_mean_loss, steps=0)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):   # the oracle: torch's own BF16 step
        got = model[1](model[0](x))
    want = model[1](model[0](x)).detach()
    oracle = float((got.double() - want.double()).norm() / want.double().norm())
    row = {r.name: r for r in report.modules}["1"]
    assert row.runs["bf16"].rel_error == pytest.approx(oracle, rel=1e-6) and oracle > 0.05
    assert report.keep_fp32 == ["1"]
    assert report.worst_modules["bf16"][0] in ("1", "2", "")


# ---- backward: underflow, the loss-scale range ---------------------------------------------------------------

def _cast_share(g, dtype, scale):
    nonzero = g != 0
    return float(((g.abs() * scale).to(dtype) == 0)[nonzero].sum()) / max(int(nonzero.sum()), 1)


def test_the_underflow_share_is_torchs_own_cast():
    g = torch.randn(4000).mul(torch.logspace(-45, 2, 4000, base=2.0)).float()
    ties = torch.tensor([2.0 ** -25, -(2.0 ** -25), 2.0 ** -25 * (1 + 2 ** -23), 2.0 ** -26, 3e-44, 2.0 ** -24, 0.0])
    g = torch.cat([g, ties])
    hist = log2_histogram(g)
    for k in range(-4, 30):
        for name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
            assert underflow_share(hist, name, 2.0 ** k) == pytest.approx(_cast_share(g, dtype, 2.0 ** k), abs=0), \
                (name, k)


def _fp32_gradients(model, x):
    acts = []

    def on_output(module, args, out):               # a one-number output is the loss: its gradient is the scale
        if out.numel() > 1:
            out.register_hook(lambda g: acts.append(float(g.abs().max())))

    hooks = [m.register_forward_hook(on_output) for m in model.modules()]
    model(x).backward()
    for h in hooks:
        h.remove()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    return grads, max(acts)


def test_a_tiny_gradient_underflows_at_scale_1_and_is_lifted_at_the_recommended_scale():
    torch.manual_seed(0)
    model, x = TinyGradient(), _batch()
    report = checkup(model, x, target="t4", steps=0)
    grads, act_max = _fp32_gradients(model, x)
    assert report.underflow_params["fp16"] == ["tiny"] and report.underflow_params["bf16"] == []
    row = {r.name: r for r in report.params}["tiny"]
    assert row.underflow_share["fp16"] == _cast_share(grads["tiny"], torch.float16, 1.0) == 1.0
    s = report.fp16_init_scale
    assert row.underflow_share_at_init == _cast_share(grads["tiny"], torch.float16, s) <= UNDERFLOW_LIMIT
    # the range, by brute force over the powers of two
    top = max(max(float(g.abs().max()) for g in grads.values()), act_max)
    safe = [k for k in SCALE_POWERS if top * 2.0 ** k < FP16_MAX]
    lifted = [k for k in SCALE_POWERS if k >= 0
              and all(_cast_share(g, torch.float16, 2.0 ** k) <= UNDERFLOW_LIMIT for g in grads.values())]
    scale = report.loss_scale
    assert (scale.high, scale.low) == (2.0 ** safe[-1], 2.0 ** lifted[0]) and scale.window_ok
    assert s == 2.0 ** ((lifted[0] + safe[-1]) // 2)
    assert scale.max_grad == max(float(g.abs().max()) for g in grads.values())
    assert scale.max_activation_grad == pytest.approx(act_max)
    assert report.grad_cosine["fp16"] > 0.99 and not report.overflow_modules["fp16"]
    assert report.ds_config["fp16"]["initial_scale_power"] == round(math.log2(s))


class _Reciprocal(nn.Module):
    def forward(self, x):
        return 1.0 / x


def test_a_backward_that_overflows_inside_a_module_is_named_though_its_forward_is_finite():
    """d(1/x)/dx = −1/x²: with x ~ 4e-4, x² is below FP16's subnormals, so the backward divides by zero — at any
    loss scale. The scale is still lowered so that the output gradients (~8e5 in FP32) fit."""
    model = nn.Sequential(nn.Linear(4, 4), _Reciprocal())
    with torch.no_grad():
        model[0].weight.fill_(1e-4), model[0].bias.fill_(0.0)
    x = _batch()
    report = checkup(model, x, loss_fn=_mean_loss, target="t4", steps=0)
    s = report.fp16_init_scale
    assert report.loss_scale.max_activation_grad * s < FP16_MAX <= report.loss_scale.max_activation_grad
    h = model[0](x).detach().half().requires_grad_()                       # torch's own FP16 backward: the oracle
    (model[1](h).float().mean() * s).backward()
    assert torch.isinf(h.grad).any() and torch.isfinite(model[1](h)).all()
    run = {r.name: r for r in report.modules}["1"].runs["fp16"]
    assert not run.nonfinite and run.backward_overflow and not run.forward_overflow
    assert report.overflow_modules["fp16"] == ["1"] and report.first_nonfinite["fp16"] is None
    assert report.keep_fp32 == ["1"]


def test_gradient_errors_are_those_of_torchs_own_bf16_step():
    torch.manual_seed(0)
    model, x, y = nn.Sequential(nn.Linear(4, 16), nn.GELU(), nn.Linear(16, 3)), _batch(), torch.randint(0, 3, (8,))
    report = checkup(model, (x, y), loss_fn=nn.CrossEntropyLoss(), steps=0)
    grads = {}
    for name in ("fp32", "bf16"):                                           # the oracle: two plain steps
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=name == "bf16"):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        grads[name] = {n: p.grad for n, p in model.named_parameters()}
        model.zero_grad(set_to_none=True)
    for row in report.params:
        got, want = grads["bf16"][row.name], grads["fp32"][row.name]
        assert row.runs["bf16"].rel_error == pytest.approx(relative_error(got, want), rel=1e-9)
        assert row.runs["bf16"].cosine == pytest.approx(float(nn.functional.cosine_similarity(
            got.double().flatten(), want.double().flatten(), dim=0)), rel=1e-9)
    assert report.grad_rel_error["bf16"] == pytest.approx(
        relative_error(list(grads["bf16"].values()), list(grads["fp32"].values())), rel=1e-9)


# ---- the ops ----------------------------------------------------------------------------------------------------

def test_the_ops_table_is_torchs_own_autocast():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.LayerNorm(8), nn.Softmax(-1), nn.Linear(8, 3))
    x, y = _batch(), torch.randint(0, 3, (8,))
    report = checkup(model, (x, y), loss_fn=nn.CrossEntropyLoss(), target="t4", steps=0)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
        h = model[0](x)
        normed, soft = model[1](h), model[2](model[1](h))
    ops = {(o.op, o.dtype): o for o in report.ops if o.precision == "fp16"}
    assert ("aten.addmm", "float16") in ops and ops[("aten.addmm", "float16")].calls == 2
    softmax = ops[("aten._softmax", str(soft.dtype).removeprefix("torch."))]
    assert softmax.kind == "softmax" and softmax.flagged == (soft.dtype == torch.float16)
    norm = ops[("aten.native_layer_norm", str(normed.dtype).removeprefix("torch."))]
    assert norm.kind == "normalization" and norm.in_16bit == (normed.dtype == torch.float16)
    assert report.autocast_rules == "cpu"
    assert all(c.mfu is None for c in report.costs)                        # no known peak on a CPU


# ---- the model comes back bit for bit ---------------------------------------------------------------------------

class _Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))
        out += x
        return self.relu(out)


def _resnet():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True), _Block(16),
                         nn.Dropout(0.2), nn.Conv2d(16, 32, 3, stride=2, padding=1), _Block(32),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def _bits(t):
    return t.detach().clone().view(torch.int32) if t.dtype == torch.float32 else t.detach().clone()


def _snapshot(model):
    return ({k: _bits(v) for k, v in model.state_dict().items()},
            {n: (p.grad, None if p.grad is None else _bits(p.grad)) for n, p in model.named_parameters()},
            {n: m.training for n, m in model.named_modules()}, torch.get_rng_state())


def _assert_unchanged(model, before):
    params, grads, modes, rng = before
    now = _snapshot(model)
    assert params.keys() == now[0].keys() and all(torch.equal(params[k], now[0][k]) for k in params)
    for n, (grad, bits) in grads.items():
        assert now[1][n][0] is grad, n                                      # the same tensor object, or None
        assert bits is None or torch.equal(bits, now[1][n][1]), n
    assert now[2] == modes and torch.equal(now[3], rng)


def test_the_model_is_left_exactly_as_it_was_found():
    model = _resnet()
    x, y = torch.randn(2, 3, 8, 8), torch.randint(0, 10, (2,))
    model[9].weight.grad = torch.tensor([[-0.0, float("nan")] * 16] * 10)  # odd bits that must survive
    model[5].weight.grad = torch.randn_like(model[5].weight)
    model[6].bn2.eval()                                                     # a mixed train/eval model
    torch.rand(3)
    before = _snapshot(model)
    report = checkup(model, (x, y), loss_fn=nn.CrossEntropyLoss(), target="t4", steps=1)
    _assert_unchanged(model, before)
    assert report.training and report.recommended_precision == "fp16" and report.flops > 0
    assert [c.precision for c in report.costs] == ["fp32", "fp16"]
    assert all(c.step_seconds > 0 and c.activation_bytes > 0 for c in report.costs)
    assert report.costs[1].activation_bytes < report.costs[0].activation_bytes     # 16-bit activations
    assert any("dropout off" in note for note in report.notes)              # the Dropout was off when comparing
    assert {r.name: r for r in report.modules}["4"].runs["fp16"].added < 2
    model(x)                                                                # the oracle that buffers did move:
    assert not torch.equal(model[1].running_mean, before[0]["1.running_mean"].view(torch.float32))


def test_the_model_is_restored_after_a_failure_too():
    model = nn.Sequential(nn.BatchNorm1d(4), nn.Linear(3, 2))               # BN runs (and moves), then '1' fails
    before = _snapshot(model)
    with pytest.raises(ValueError, match=r"fails on this batch.*'1'"):
        checkup(model, _batch(), loss_fn=_mean_loss, steps=0)
    _assert_unchanged(model, before)


# ---- what a learner's model looks like: tuple, dict, an output with .loss ----------------------------------------

class _LogitsAndLoss(nn.Module):
    """TinyGPT's shape: model(x, y) → (logits, loss)."""

    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 3)

    def forward(self, x, y):
        logits = self.head(x)
        return logits, nn.functional.cross_entropy(logits, y)


@dataclass
class _Output:
    loss: torch.Tensor
    logits: torch.Tensor


class _HFLike(nn.Module):
    def __init__(self, as_dict=False):
        super().__init__()
        self.head, self.as_dict = nn.Linear(4, 3), as_dict

    def forward(self, input_ids, labels=None):
        logits = self.head(input_ids)
        loss = nn.functional.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits} if self.as_dict else _Output(loss, logits)


@pytest.mark.parametrize("kind", ["tuple", "dataclass", "dict", "loss_fn"])
def test_tuple_and_dict_batches_and_an_output_with_loss(kind):
    torch.manual_seed(0)
    x, y = _batch(), torch.randint(0, 3, (8,))
    model, batch, loss_fn = {
        "tuple": (_LogitsAndLoss(), (x, y), None),
        "dataclass": (_HFLike(), {"input_ids": x, "labels": y}, None),
        "dict": (_HFLike(as_dict=True), {"input_ids": x, "labels": y}, None),
        "loss_fn": (nn.Linear(4, 3), (x, y), nn.CrossEntropyLoss()),
    }[kind]
    head = model if isinstance(model, nn.Linear) else model.head
    want = float(nn.functional.cross_entropy(head(x), y).detach())
    report = checkup(model, batch, loss_fn=loss_fn, steps=0)
    assert report.loss["fp32"] == pytest.approx(want, rel=1e-6)
    assert report.loss_rel_error["bf16"] < 0.05 and report.grad_cosine["bf16"] > 0.99
    json.dumps(report.to_dict(), allow_nan=False)


# ---- the learner's door -------------------------------------------------------------------------------------------

def test_a_model_that_fails_on_the_batch_is_named():
    model = nn.Sequential(nn.Linear(4, 8), nn.Sequential(nn.ReLU(), nn.Linear(3, 2)))
    with pytest.raises(ValueError, match=r"fails on this batch.*'1\.1'"):
        checkup(model, _batch(), loss_fn=_mean_loss, steps=0)


@pytest.mark.parametrize(("model", "batch", "kwargs", "error", "match"), [
    (nn.Linear(4, 1), torch.ones(2, 4, device="meta"), {}, ValueError, "another device"),
    (nn.Linear(4, 1), torch.ones(2, 4), {"device": "meta"}, ValueError, "device mismatch"),
    (nn.Linear(4, 1), torch.ones(2, 4), {"device": "gpu0"}, ValueError, "unknown device"),
    (nn.Linear(4, 3), torch.ones(2, 4), {}, ValueError, "no loss"),
    (nn.Linear(4, 3), (torch.ones(2, 4), torch.ones(2, 3)), {"loss_fn": nn.MSELoss(reduction="none")}, ValueError,
     "non-scalar"),
    (nn.Linear(4, 3).half(), torch.ones(2, 4).half(), {"loss_fn": _mean_loss}, ValueError, "half precision"),
    (nn.Linear(4, 3).requires_grad_(False), torch.ones(2, 4), {"loss_fn": _mean_loss}, ValueError,
     "requires_grad"),
    (nn.Linear(4, 3), torch.ones(2, 4), {"loss_fn": 3}, TypeError, "callable"),
    (nn.Linear(4, 3), torch.ones(2, 4), {"loss_fn": _mean_loss, "target": "k80"}, ValueError, "unknown target"),
    (nn.Linear(4, 3), torch.ones(2, 4), {"loss_fn": _mean_loss, "target": (7,)}, TypeError, "capability"),
    (nn.Linear(4, 3), torch.ones(2, 4), {"loss_fn": _mean_loss, "steps": -1}, ValueError, "steps"),
    ("not a model", torch.ones(2, 4), {}, TypeError, "nn.Module"),
], ids=["batch-device", "device-arg", "device-name", "no-loss", "non-scalar", "half", "all-frozen", "loss_fn", "target",
        "capability", "steps", "not-a-module"])
def test_bad_input_gets_a_bengali_message_with_the_key_term(model, batch, kwargs, error, match):
    with pytest.raises(error, match=match) as caught:
        checkup(model, batch, **kwargs)
    assert any("\u0980" <= ch <= "\u09ff" for ch in str(caught.value))


def test_frozen_parameters_are_skipped_and_said_so():
    model = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
    model[0].requires_grad_(False)
    report = checkup(model, _batch(), loss_fn=_mean_loss, steps=0)
    assert report.frozen_params == ["0.weight", "0.bias"]
    assert [r.name for r in report.params] == ["1.weight", "1.bias"]
    assert any("skipped" in note and "0.weight" in note for note in report.notes)


def test_targets_follow_the_one_precision_rule():
    assert resolve_target("t4", "cpu").candidate == "fp16" and resolve_target((7, 0), "cpu").precisions == ("fp16",)
    assert resolve_target("h200", "cpu").candidate == "bf16" and resolve_target(None, "cpu").label == "cpu"
    assert not resolve_target("cpu", "cpu").emulated and resolve_target("a100", "cpu").emulated


# ---- the command line ----------------------------------------------------------------------------------------------

def _factories(tmp_path, monkeypatch):
    (tmp_path / "checkup_factories.py").write_text(
        "import torch\n"
        "def make_model():\n    torch.manual_seed(0)\n    return torch.nn.Linear(4, 3)\n"
        "def make_batch():\n    return torch.ones(2, 4), torch.tensor([0, 2])\n"
        "def make_bad_batch():\n    return torch.ones(2, 5), torch.tensor([0, 2])\n"
        "def make_broken():\n    raise RuntimeError('a bug in the learner\\'s factory')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.mark.parametrize("argv", [
    ["nowhere.module:make_model", "--batch", "checkup_factories:make_batch"],
    ["checkup_factories:no_such", "--batch", "checkup_factories:make_batch"],
    ["checkup_factories", "--batch", "checkup_factories:make_batch"],
    ["checkup_factories:make_model"],
    ["checkup_factories:make_model", "--batch", "checkup_factories:make_batch", "--target", "k80"],
    ["checkup_factories:make_model", "--batch", "checkup_factories:make_batch", "--steps", "-1"],
    ["checkup_factories:make_model", "--batch", "checkup_factories:make_batch", "--no-such-flag"],
    ["checkup_factories:make_model", "--batch", "checkup_factories:make_bad_batch", "--loss",
     "torch.nn.functional:cross_entropy"],
    ["checkup_factories:make_broken", "--batch", "checkup_factories:make_batch"],
    pytest.param(["checkup_factories:make_model", "--batch", "checkup_factories:make_batch", "--device", "cuda"],
                 marks=pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")),
])
def test_the_command_line_refuses_with_status_2_and_one_line(argv, tmp_path, monkeypatch, capsys):
    _factories(tmp_path, monkeypatch)
    with pytest.raises(SystemExit) as end:
        main(argv)
    err = capsys.readouterr().err
    assert end.value.code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "error:" in last and (any("\u0980" <= ch <= "\u09ff" for ch in last) or "choose from" in last
                                 or "required" in last or "unrecognized" in last)


def test_the_command_line_writes_the_report(tmp_path, monkeypatch, capsys):
    _factories(tmp_path, monkeypatch)
    out = tmp_path / "report.json"
    main(["checkup_factories:make_model", "--batch", "checkup_factories:make_batch", "--loss",
          "torch.nn.functional:cross_entropy", "--target", "t4", "--steps", "0", "--out", str(out)])
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["recommended_precision"] == "fp16" and record["target"] == "t4"
    assert "সুপারিশ" in capsys.readouterr().out


def test_python_dash_m_exits_2_on_a_bad_flag():
    done = subprocess.run([sys.executable, "-m", "mishran.checkup", "--no-such-flag"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr


# ---- on a GPU (skipped without one): CUDA's autocast rules, TF32 off for the reference, memory ------------------

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")


@cuda
def test_on_a_gpu_cudas_rules_apply_and_the_model_is_unchanged():
    model = _resnet().cuda()
    x, y = torch.randn(8, 3, 16, 16, device="cuda"), torch.randint(0, 10, (8,), device="cuda")
    model[9].weight.grad = torch.full_like(model[9].weight, -0.0)
    torch.cuda.manual_seed(1)
    cuda_rng, before = torch.cuda.get_rng_state(), _snapshot(model)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True     # a learner's TF32
    try:
        report = checkup(model, (x, y), loss_fn=nn.CrossEntropyLoss(), steps=2)
        assert torch.backends.cuda.matmul.allow_tf32 and torch.backends.cudnn.allow_tf32      # given back
    finally:
        torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    _assert_unchanged(model, before)
    assert torch.equal(torch.cuda.get_rng_state(), cuda_rng)
    with torch.no_grad(), NoDropout():          # the check-up's reference has dropout off; TF32 off: exact
        want = float(nn.functional.cross_entropy(model(x), y))
    assert report.loss["fp32"] == pytest.approx(want, rel=1e-6)
    cap = torch.cuda.get_device_capability()
    assert report.target == f"sm_{cap[0]}{cap[1]}" and report.autocast_rules == "cuda" and not report.emulated
    assert report.numbers_label == "CUDA-তে মাপা (measured on CUDA)"
    assert all(c.step_seconds and c.step_seconds > 0 for c in report.costs)
    if "H200" in torch.cuda.get_device_name() or "H100" in torch.cuda.get_device_name():
        assert report.recommended_precision == "bf16" and all(c.mfu and 0 < c.mfu < 1 for c in report.costs)


@cuda
def test_cudas_autocast_keeps_softmax_in_fp32():
    model = nn.Sequential(nn.Linear(4, 8), nn.Softmax(-1), nn.Linear(8, 3)).cuda()
    x = _batch().cuda()
    report = checkup(model, x, loss_fn=_mean_loss, target="t4", steps=0)
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
        soft = model[1](model[0](x))
    ops = {o.op: o for o in report.ops if o.precision == "fp16"}
    assert ops["aten._softmax"].dtype == str(soft.dtype).removeprefix("torch.") == "float32"
    assert not ops["aten._softmax"].flagged and ops["aten.addmm"].in_16bit
    assert not report.emulated and report.target == "t4"


def _wide_conv():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), _Block(64),
                         _Block(64), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


@cuda
@pytest.mark.parametrize("kind", ["activations", "weights"])
def test_peak_memory_is_at_most_twice_a_plain_fp32_step(kind):
    if kind == "activations":
        model, x = _wide_conv().cuda(), torch.randn(64, 3, 64, 64, device="cuda")
    else:
        model = nn.Sequential(*[nn.Linear(4096, 4096) for _ in range(4)], nn.Linear(4096, 10)).cuda()
        x = torch.randn(16, 4096, device="cuda")
    y = torch.randint(0, 10, (x.shape[0],), device="cuda")
    nn.functional.cross_entropy(model(x), y).backward()                     # warm-up (cuDNN, cuBLAS)
    model.zero_grad(set_to_none=True)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    nn.functional.cross_entropy(model(x), y).backward()
    plain = torch.cuda.max_memory_allocated()
    model.zero_grad(set_to_none=True)
    torch.cuda.reset_peak_memory_stats()
    checkup(model, (x, y), loss_fn=nn.CrossEntropyLoss(), steps=1)
    peak = torch.cuda.max_memory_allocated()
    print(f"{kind}: plain {plain / 2**20:.0f} MiB, check-up {peak / 2**20:.0f} MiB, {peak / plain:.2f}x")
    assert peak <= 2 * plain


# ---- the advice applied: KeepFP32, and the check-up's own re-run with it -----------------------------------------

class _HomeNorm(nn.Module):
    """LayerNorm by hand, variance as E[x²] − E[x]²: with a mean near 50, BF16's 8 bits cancel the variance away."""

    def forward(self, x):
        m = x.mean(-1, keepdim=True)
        v = (x * x).mean(-1, keepdim=True) - m * m
        return (x - m) / torch.sqrt(v.clamp_min(0) + 1e-5)


def _cancelling():
    torch.manual_seed(0)
    first = nn.Linear(8, 32)
    nn.init.constant_(first.bias, 50.0)
    return nn.Sequential(first, _HomeNorm(), nn.Linear(32, 2))


def test_keep_fp32_runs_the_named_modules_outside_autocast_and_puts_them_back():
    model, x = _cancelling(), _batch(features=8)
    seen = {}
    model[1].register_forward_hook(lambda m, i, o: seen.update(inp=i[0].dtype, out=o.dtype))
    model[2].register_forward_hook(lambda m, i, o: seen.update(after=o.dtype))
    with keep.KeepFP32(model, ["1"]), torch.autocast("cpu", dtype=torch.bfloat16):
        model(x)
    # the call gets BF16; the wrapped forward upcasts it (with autocast off, BF16 in would give BF16 out)
    assert seen == {"inp": torch.bfloat16, "out": torch.float32, "after": torch.bfloat16}
    assert "forward" not in vars(model[1])                                  # the class's forward again
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(x)
    assert seen["out"] == torch.bfloat16                                    # back to autocast's rule
    handle = keep.KeepFP32(model, "1").apply()
    assert "forward" in vars(model[1])
    handle.undo()
    assert "forward" not in vars(model[1])
    with pytest.raises(ValueError, match="unknown module"):
        keep.KeepFP32(model, ["1", "nope"])


def test_a_bf16_fault_kept_in_fp32_is_checked_and_then_advised():
    """The oracle: torch's own BF16 step with the norm kept in FP32 by hand, against a plain FP32 step."""
    model, x = _cancelling(), _batch(features=8)
    report = checkup(model, x, loss_fn=_mean_loss, target="a100", steps=0)

    def grads(kept):
        model.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=kept is not None):
            h = model[0](x)
            with torch.autocast("cpu", enabled=False) if kept else contextlib.nullcontext():
                h = model[1](h.float() if kept else h)
            model[2](h).mean().backward()
        return torch.cat([p.grad.flatten() for p in model.parameters()])

    ref, plain, kept = grads(None), grads(False), grads(True)
    cos = lambda a, b: float(torch.nn.functional.cosine_similarity(a, b, dim=0))  # noqa: E731
    assert cos(kept, ref) > 0.9 > cos(plain, ref) or not torch.isfinite(plain).all()   # broken, then fixed
    assert report.keep_fp32 == ["1"] and report.recommended_precision == "bf16"
    check = report.keep_fp32_check
    assert check["precision"] == "bf16" and check["modules"] == ["1"] and not check["broken"]
    assert check["grad_cosine"] == pytest.approx(cos(kept, ref), abs=1e-3)
    assert check["param_share"] == 0.0                                      # the norm has no weights
    assert "KeepFP32(model, report.keep_fp32).apply()" in report.advice
    model.zero_grad(set_to_none=True)


def test_no_dropout_reaches_the_attention_inside_multi_head_attention():
    """nn.MultiheadAttention's dropout runs inside F.multi_head_attention_forward, where a function mode no longer
    sees the calls: two passes from different RNG states must still agree (they differ with the dropout on)."""
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.5, batch_first=True)
    x = torch.randn(2, 6, 16)
    with NoDropout() as quiet:
        a = layer(x)
        torch.manual_seed(123)
        b = layer(x)
    assert torch.equal(a, b) and quiet.skipped == 8                        # 3 dropouts + the attention's, twice
    torch.manual_seed(123)
    assert not torch.equal(layer(x), a)                                     # the oracle: dropout does act


class _UpcastGain(nn.Module):
    """× 1e5, computed in FP32 even under autocast: the value is above FP16's max, but it is not an FP16 tensor."""

    def forward(self, x):
        return x.float() * 1e5


def test_an_fp32_output_above_fp16s_max_is_a_warning_not_an_overflow():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), _UpcastGain(), nn.Softmax(-1))
    x = _batch()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):      # the oracle: torch's own autocast
        out = model[1](model[0](x))
    assert out.dtype == torch.float32 and torch.isfinite(out).all() and out.abs().max() > FP16_MAX
    report = checkup(model, x, loss_fn=_mean_loss, target="t4", steps=0)
    assert report.overflow_modules["fp16"] == [] and report.first_nonfinite["fp16"] is None
    assert "1" in report.near_max_modules["fp16"] and report.keep_fp32 == []


def test_no_deepspeed_fp16_block_when_the_scale_must_go_below_one():
    """A gradient above FP16's max needs a loss scale below 1. DeepSpeed 0.19.8 takes initial_scale_power=-3, but its
    dynamic scaler (fp16/loss_scaler.py, update_scale) sets max(scale / 2, min_loss_scale) with min_loss_scale an
    int ≥ 1, so the first overflow would *raise* 0.125 to 1. The check-up gives no fp16 block there."""
    assert verdict.ds_config("fp16", 0.125) == {}
    assert verdict.ds_config("fp16", 2.0 ** 10)["fp16"]["initial_scale_power"] == 10
    assert verdict.ds_config("fp16", 1.0)["fp16"]["initial_scale_power"] == 0
