"""mishran.numerics.int8: the hand-written INT8 dynamic quantization lesson 06 falls back on when a torch lacks
torch.ao.quantization."""
import ast
import io
import json
import re
import sys
from pathlib import Path

import pytest
import torch
from torch import nn

from mishran.models.gpt import GPTConfig, TinyGPT
from mishran.numerics import fp8
from mishran.numerics import int8 as quantize

ROOT = Path(__file__).resolve().parent.parent


def _rel(a, b):
    return ((a - b).norm() / b.norm()).item()


def test_exact_when_every_value_is_an_int8_integer():
    # amax 127 on both sides → both scales are 1, the INT8 values are the numbers themselves, and an integer
    # matmul with INT32 sums is exact: the layer must give x @ Wᵀ + b to the last bit
    g = torch.Generator().manual_seed(0)
    w = torch.randint(-127, 128, (5, 7), generator=g).float()
    w[0, 0] = 127.0
    x = torch.randint(-127, 128, (4, 7), generator=g).float()
    x[0, 0] = -127.0
    lin = nn.Linear(7, 5)
    with torch.no_grad():
        lin.weight.copy_(w)
        lin.bias.copy_(torch.arange(5.0))
    q = quantize.DynamicInt8Linear(lin)
    expect = (x.double() @ w.double().t() + torch.arange(5.0).double()).float()
    assert torch.equal(q(x), expect)


def test_close_to_float_and_to_torch_ao():
    torch.manual_seed(0)
    lin = nn.Linear(256, 128)
    x = torch.randn(64, 256)
    ref = lin(x).detach()
    ours = quantize.DynamicInt8Linear(lin)(x)
    assert _rel(ours, ref) < 0.02                       # 8 bits on each side: about 1% error
    ao = pytest.importorskip("torch.ao.quantization")
    theirs = ao.quantize_dynamic(nn.Sequential(lin), {nn.Linear}, dtype=torch.qint8)(x)
    assert _rel(theirs, ref) < 0.02
    assert _rel(ours, theirs) < 0.03                    # the two INT8 roundings differ a little, not more


def test_one_scale_per_tensor_is_amax_over_127_and_rounds_to_nearest():
    t = torch.tensor([0.5, -2.0, 1.0, 0.004])
    s = quantize.int8_scale(t)
    assert s.item() == pytest.approx(127 / 2.0)
    assert quantize.to_int8(t, s).tolist() == [32, -127, 64, 0]      # 31.75 → 32, 63.5 → 64 (even), 0.254 → 0
    assert quantize.int8_scale(torch.zeros(3)).isfinite()              # all zeros: a finite scale, not inf


def test_a_value_that_rounds_to_128_is_clamped_to_127_not_wrapped_to_minus_128():
    # 1.0 × 127.6 = 127.6 rounds to 128, one past INT8's symmetric range: it must stay 127 (a cast without the
    # clamp wraps 128 to -128, flipping the sign); the same on the negative side, -128 → -127
    q = quantize.to_int8(torch.tensor([1.0, -1.0, 0.5]), 127.6)
    assert q.dtype == torch.int8 and q.tolist() == [127, -127, 64]
    assert torch.tensor([127.6]).round().to(torch.int8).item() != 127     # the hazard the clamp is for


def test_saved_weights_are_int8_and_a_quarter_the_size():
    lin = nn.Linear(512, 512, bias=False)
    q = quantize.DynamicInt8Linear(lin)
    sd = q.state_dict()
    assert sd["weight_int8"].dtype == torch.int8 and "weight" not in sd

    def size(m):
        buf = io.BytesIO()
        torch.save(m.state_dict(), buf)
        return buf.tell()
    assert 0.24 < size(q) / size(lin) < 0.27


def test_quantize_dynamic_swaps_every_linear_of_tinygpt_and_keeps_the_loss():
    torch.manual_seed(0)
    model = TinyGPT(GPTConfig(vocab_size=40, block_size=16, n_layer=2, n_head=2, n_embd=32)).eval()
    x = torch.randint(0, 40, (4, 16))
    q = quantize.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    assert not any(isinstance(m, nn.Linear) for m in q.modules())
    assert any(isinstance(m, nn.Linear) for m in model.modules())     # a copy: the original is untouched
    with torch.no_grad():
        _, loss = model(x, x)
        _, qloss = q(x, x)
    assert abs(qloss.item() - loss.item()) < 0.05


def test_bad_input_gets_a_bengali_message():
    with pytest.raises(ValueError, match="শুধু nn.Linear আর torch.qint8"):
        quantize.quantize_dynamic(nn.Linear(2, 2), {nn.Linear}, dtype=torch.float16)
    with pytest.raises(ValueError, match="a dimension of x"):
        quantize.int8_scale(torch.ones(2, 3), dim=2)
    bad = nn.Linear(2, 2)
    with torch.no_grad():
        bad.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        quantize.DynamicInt8Linear(bad)


def test_lesson_06_falls_back_to_mishran_when_torch_ao_quantization_is_gone(monkeypatch):
    nb = json.loads((ROOT / "notebooks" / "06_where_memory_goes.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"]
                if c["cell_type"] == "code"
                and "from mishran.numerics.int8 import quantize_dynamic" in "".join(c["source"]))
    block = cell[cell.index("try:"):cell.index("cpu_teacher =")]         # the lesson's own try/except, as written
    monkeypatch.setitem(sys.modules, "torch.ao.quantization", None)      # what a torch without it looks like
    scope = {"torch": torch}
    exec(block, scope)                                                   # noqa: S102 — our own notebook's code
    assert scope["quantize_dynamic"] is quantize.quantize_dynamic
    assert "mishran.numerics.int8" in scope["where"]
    monkeypatch.delitem(sys.modules, "torch.ao.quantization")
    scope = {"torch": torch}
    exec(block, scope)                                                   # noqa: S102
    assert scope["quantize_dynamic"] is not quantize.quantize_dynamic    # torch's own, while torch has it


# ---------------------------------------------------------------- one meaning of "scale" (lessons 06-07)

def test_int8_scale_multiplies_into_range_and_dequantize_divides_back():
    # torchao's convention, the course's one: scale = 127 / amax (per row with dim=1), q = round(w * scale),
    # back = q / scale. Under the other convention (scale = amax / 127, q = round(w / scale)) every line fails.
    w = torch.tensor([[0.5, -2.0, 1.0], [0.1, -0.3, 0.4]])
    s = quantize.int8_scale(w, dim=1)
    assert s.shape == (2, 1) and s.squeeze(1).tolist() == pytest.approx([127 / 2.0, 127 / 0.4])
    q = quantize.to_int8(w, s)
    assert q.dtype == torch.int8 and q.tolist() == [[32, -127, 64], [32, -95, 127]]    # 31.75, 95.25 ...
    back = quantize.dequantize(q, s)
    assert torch.equal(back, q.float() / s)
    assert ((back - w).abs() <= 0.5 / s + 1e-7).all()                                  # half a step per row
    assert quantize.dequantize(q, s[0]).tolist()[0] == pytest.approx([32 / 63.5, -2.0, 64 / 63.5])


def test_fp8_scale_is_the_same_kind_of_number():
    x = torch.tensor([1e-3, -2e-3, 5e-4])
    s = fp8.compute_scale(fp8.amax(x), "fp8_e4m3")
    assert s.item() == pytest.approx(448 / 2e-3)                    # max / amax, a multiplier into range
    q = fp8.quantize(x, "fp8_e4m3", s)
    assert q.abs().max().item() == 448.0
    assert torch.allclose(quantize.dequantize(q, s), x, rtol=2 ** -4)


def test_dequantize_and_to_int8_refuse_a_scale_that_does_not_fit(capsys):
    w = torch.ones(3, 4)
    for bad in (torch.ones(2, 1), torch.zeros(3, 1), -1.0, torch.tensor([])):
        with pytest.raises(ValueError, match="scale"):
            quantize.to_int8(w, bad)
        with pytest.raises(ValueError, match="scale"):
            quantize.dequantize(w, bad)
    with pytest.raises(TypeError):
        quantize.dequantize([1, 2], 1.0)


def _divides_by_a_constant(node) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant)


@pytest.mark.parametrize("lesson", ["06_where_memory_goes", "07_speed_and_fp8"])
def test_lessons_06_07_mean_one_thing_by_scale(lesson):
    # A cell that computes a scale as amax / 127 (or / 448) uses the divide-by-scale convention; the prose must
    # not teach round(w / scale) either. Lesson 06 once did both, next to FP8's 448 / amax in the same cell.
    nb = json.loads((ROOT / "notebooks" / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    code = "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    tree = ast.parse("\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in code.splitlines()))
    wrong = [ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Assign) and _divides_by_a_constant(n.value)
             and any(isinstance(t, ast.Name) and "scale" in t.id.lower() for t in n.targets)]
    assert not wrong, f"a scale computed as something / a constant: {wrong}"
    prose = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert not re.search(r"\|w\|\s*/\s*127|round\(w\s*/\s*scale\)", prose)
