"""mishran.checkup.dust: gradients that are zero in exact arithmetic but arrive in FP32 as rounding dust (the
key bias of attention, a bias right before BatchNorm) must not be mistaken for gradients FP16 loses. The check-up
suspects them from the FP32 histogram and confirms them on an FP64 copy; the oracles here are the mathematics (softmax
ignores a constant added to every score of a row; BatchNorm subtracts the batch mean) and FP64 autograd run by hand,
not the module."""
import copy

import pytest
import torch
from checkup_models import TinyGradient
from torch import nn

from mishran.checkup.run import checkup
from mishran.data import CharDataset
from mishran.models.gpt import GPTConfig, TinyGPT


def _tiny_gpt():
    ds = CharDataset()
    config = GPTConfig(vocab_size=ds.vocab_size, block_size=32, n_layer=2, n_head=4, n_embd=64)
    x, y = ds.get_batch("train", 16, 32, generator=torch.Generator().manual_seed(0))
    return TinyGPT(config, seed=0), (x, y)


class ConvBN(nn.Module):
    """A conv with a bias straight into BatchNorm: BatchNorm subtracts the batch mean, so the bias has no effect and its
    gradient is exactly zero in exact arithmetic."""

    def __init__(self, refuse_fp64=False):
        super().__init__()
        self.conv, self.bn, self.head = nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.Linear(8, 10)
        self.refuse_fp64 = refuse_fp64

    def forward(self, x):
        if self.refuse_fp64 and x.dtype == torch.float64:
            raise RuntimeError("no FP64 kernel here")
        return self.head(torch.relu(self.bn(self.conv(x))).mean((2, 3)))


def _conv_batch():
    g = torch.Generator().manual_seed(0)
    return torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g)


def _grads(model, batch, loss_fn=None, dtype=torch.float64):
    twin = copy.deepcopy(model).to(dtype)
    if loss_fn is None:
        x, y = batch
        loss = twin(x, y)[1]
    else:
        x, y = batch
        loss = loss_fn(twin(x.to(dtype)), y)
    loss.backward()
    return {n: p.grad for n, p in twin.named_parameters()}


def test_the_key_bias_of_attention_is_dust_and_fp64_shows_it():
    torch.manual_seed(0)
    model, batch = _tiny_gpt()
    report = checkup(model, batch, target="t4", steps=0)
    names = [f"transformer.h.{i}.attn.c_attn.bias" for i in range(2)]
    assert report.rounding_dust == dict.fromkeys(names, True)
    # the oracle: the key third of c_attn.bias (a constant added to every score of a row) — FP64 by hand
    fp64, fp32 = _grads(model, batch), _grads(model, batch, dtype=torch.float32)
    top64, top32 = (max(float(g.abs().max()) for g in gs.values()) for gs in (fp64, fp32))
    for name in names:
        key64, key32 = fp64[name][64:128].abs(), fp32[name][64:128].abs()
        assert float(key64.max()) <= 1e-15 * top64                   # zero up to FP64's own rounding
        assert 0 < float(key32.max()) <= top32 * 2.0 ** -24          # what FP32 hands the check-up: dust
    said = report.advice
    assert "FP64-এ যাচাই করা" in said and "গুঁড়ো বাদ দিলে নিরাপদ scale-এর জানালা হতো" in said
    assert not report.loss_scale.window_ok                           # the verdict itself is unchanged


def test_a_bias_before_batchnorm_is_dust():
    torch.manual_seed(0)
    model, batch = ConvBN(), _conv_batch()
    report = checkup(model, batch, loss_fn=nn.CrossEntropyLoss(), target="t4", steps=0)
    assert report.underflow_params["fp16"] == ["conv.bias"] and report.rounding_dust == {"conv.bias": True}
    fp64 = _grads(model, batch, nn.CrossEntropyLoss())
    fp32 = _grads(model, batch, nn.CrossEntropyLoss(), dtype=torch.float32)
    top64 = max(float(g.abs().max()) for g in fp64.values())
    assert float(fp64["conv.bias"].abs().max()) <= 2.0 ** -44 * top64               # zero up to FP64's rounding
    assert float(fp32["conv.bias"].abs().max()) >= 2.0 ** 20 * float(fp64["conv.bias"].abs().max())   # FP32's dust


def test_a_gradient_that_is_really_tiny_is_not_dust():
    """TinyGradient's `tiny` gets 1e-9·c by construction: as small as dust against `main`'s gradients, but real —
    FP64 gives the same 1e-9·c, so the check-up says it is not dust."""
    torch.manual_seed(0)
    x = torch.randn(8, 4)
    report = checkup(TinyGradient(), x, target="t4", steps=0)
    assert report.rounding_dust == {"tiny": False}
    model = TinyGradient().double()
    model(x.double()).backward()
    assert torch.allclose(model.tiny.grad, 1e-9 * model.c, rtol=1e-12)
    assert "আসল gradient, গুঁড়ো নয়" in report.advice and "গুঁড়ো বাদ দিলে" not in report.advice


def test_a_model_without_fp64_leaves_the_suspicion_open():
    torch.manual_seed(0)
    report = checkup(ConvBN(refuse_fp64=True), _conv_batch(), loss_fn=nn.CrossEntropyLoss(), target="t4", steps=0)
    assert report.rounding_dust == {"conv.bias": None}
    assert "FP64-এ মডেলটি চালানো গেল না" in report.advice and "model.double()" in report.advice


@pytest.mark.parametrize("make", [lambda: nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))])
def test_no_dust_no_line(make):
    torch.manual_seed(0)
    report = checkup(make(), (torch.randn(32, 8), torch.randn(32, 1)), loss_fn=nn.MSELoss(), target="t4", steps=0)
    assert report.rounding_dust == {} and "গুঁড়ো" not in report.advice


def test_the_fp64_twin_leaves_the_model_as_it_was():
    torch.manual_seed(0)
    model = ConvBN().train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    rng = torch.get_rng_state()
    report = checkup(model, _conv_batch(), loss_fn=nn.CrossEntropyLoss(), target="t4", steps=0)
    assert report.rounding_dust == {"conv.bias": True}
    assert all(torch.equal(before[k], v) and v.dtype == before[k].dtype for k, v in model.state_dict().items())
    assert model.training and torch.equal(rng, torch.get_rng_state())
    assert report.to_dict()["rounding_dust"] == {"conv.bias": True}
