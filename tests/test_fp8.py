"""mishran.numerics.fp8: the hand-written scaled FP8 matmul agrees with torch's own FP8 casts and torch._scaled_mm."""
import math

import pytest
import torch

from mishran.numerics import fp8
from mishran.numerics.error import relative_error

E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
DTYPES = {"fp8_e4m3": E4M3, "fp8_e5m2": E5M2}


def _spread(shape, seed, low=-12, high=6):
    """Random signs and magnitudes over many octaves, so normals, subnormals and zeros all occur."""
    g = torch.Generator().manual_seed(seed)
    mag = torch.exp2(torch.empty(shape).uniform_(low, high, generator=g))
    return mag * torch.randn(shape, generator=g).sign()


@pytest.mark.parametrize("fmt", DTYPES)
def test_quantize_equals_torchs_fp8_cast_for_in_range_values(fmt):
    fmax = torch.finfo(DTYPES[fmt]).max
    x = _spread((4000,), seed=1, low=-20, high=math.log2(fmax) - 0.01)       # all within ±max
    ours = fp8.quantize(x, fmt)
    theirs = x.to(DTYPES[fmt]).float()
    assert torch.equal(ours, theirs)
    assert (ours == 0).any() and (ours.abs() < torch.finfo(DTYPES[fmt]).tiny).any()   # zeros and subnormals seen


@pytest.mark.parametrize("fmt", DTYPES)
def test_quantize_with_a_scale_equals_torch_on_the_scaled_values(fmt):
    x = _spread((512,), seed=2)
    scale = fp8.compute_scale(fp8.amax(x), fmt)
    assert torch.equal(fp8.quantize(x, fmt, scale), (x * scale).to(DTYPES[fmt]).float())


def test_scale_maps_the_largest_value_onto_the_formats_max():
    x = torch.tensor([0.5, -3.0, 2.0])
    s = fp8.compute_scale(fp8.amax(x), "fp8_e4m3")
    assert fp8.amax(x).item() == 3.0
    assert s.item() == pytest.approx(448 / 3, rel=1e-7)                    # E4M3 max is 448 (OCP FP8)
    assert fp8.quantize(x, "fp8_e4m3", s)[1].item() == -448.0
    assert fp8.compute_scale(torch.tensor(2.0), "fp8_e5m2").item() == 57344 / 2


def test_power_of_two_scale_is_the_largest_power_of_two_not_above_max_over_amax():
    s = fp8.compute_scale(torch.tensor([[3.0], [0.01]]), "fp8_e4m3", power_of_two=True)
    assert s.flatten().tolist() == [128.0, 32768.0]          # 448/3 = 149.3 → 2^7; 448/0.01 = 44800 → 2^15


@pytest.mark.parametrize("scaling", ["tensorwise", "rowwise"])
@pytest.mark.parametrize("fmt_a, fmt_b", [("fp8_e4m3", "fp8_e4m3"), ("fp8_e4m3", "fp8_e5m2")])
def test_scaled_matmul_matches_torch_scaled_mm(scaling, fmt_a, fmt_b):
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(24, 64, generator=g) * 0.02, torch.randn(64, 40, generator=g) * 5
    if scaling == "tensorwise":
        sa, sb = 448 / a.abs().max(), torch.finfo(DTYPES[fmt_b]).max / b.abs().max()
    else:
        sa = 448 / a.abs().amax(dim=1, keepdim=True)
        sb = torch.finfo(DTYPES[fmt_b]).max / b.abs().amax(dim=0, keepdim=True)
    aq, bq = (a * sa).to(DTYPES[fmt_a]), (b * sb).to(DTYPES[fmt_b])
    if fmt_b == "fp8_e5m2" and scaling == "rowwise":
        expected = (aq.float() @ bq.float()) / (sa * sb)        # torch's rowwise kernel takes E4M3 only
    else:
        expected = torch._scaled_mm(aq, bq.t().contiguous().t(), scale_a=(1 / sa).float().reshape(sa.shape),
                                    scale_b=(1 / sb).float().reshape(sb.shape), out_dtype=torch.float32)
    ours = fp8.scaled_matmul(a, b, fmt_a, fmt_b, scaling)
    assert torch.equal(ours.a_fp8, aq.float()) and torch.equal(ours.b_fp8, bq.float())
    assert torch.allclose(ours.out, expected, rtol=1e-5, atol=1e-6 * expected.abs().max().item())


def test_small_values_vanish_without_scaling_and_survive_with_it():
    # 5e-4 is 0.256 of E4M3's smallest subnormal (2^-9 ≈ 0.00195): it rounds to 0 unscaled
    a = torch.full((2, 8), 5e-4)
    b = torch.full((8, 3), 5e-4)
    exact = torch.full((2, 3), 8 * 5e-4 * 5e-4, dtype=torch.float64)
    none = fp8.scaled_matmul(a, b, scaling="none")
    assert torch.equal(none.out, torch.zeros(2, 3)) and relative_error(none.out, exact) == 1.0
    tw = fp8.scaled_matmul(a, b, scaling="tensorwise")
    assert torch.equal(tw.a_fp8, torch.full((2, 8), 448.0))            # every entry lands on max
    assert relative_error(tw.out, exact) < 1e-6


def test_large_values_saturate_without_scaling():
    a = torch.tensor([[1000.0, 1.0]])
    b = torch.tensor([[1.0], [1.0]])
    none = fp8.scaled_matmul(a, b, scaling="none")
    assert none.out.item() == 449.0                                   # 1000 → 448, plus 1
    assert fp8.scaled_matmul(a, b, scaling="tensorwise").out.item() == pytest.approx(1001, rel=1 / 16)


def test_rowwise_beats_tensorwise_when_one_row_is_huge():
    g = torch.Generator().manual_seed(4)
    a = torch.randn(16, 64, generator=g)
    a[0] *= 1e6            # one outlier row sets the one scale: the other rows fall below E4M3's subnormals
    b = torch.randn(64, 16, generator=g)
    err = fp8.matmul_errors(a, b)
    ref = a.double() @ b.double()

    def small_rows(scaling):
        return relative_error(fp8.scaled_matmul(a, b, scaling=scaling).out[1:], ref[1:])

    assert small_rows("rowwise") < 0.1 < small_rows("tensorwise")
    assert set(err) == {"none", "tensorwise", "rowwise"} and err["none"] > err["tensorwise"]


def test_gradient_sized_values_need_scaling_and_e5m2_trades_precision_for_range():
    g = torch.Generator().manual_seed(5)
    a, b = torch.randn(32, 64, generator=g) * 1e-5, torch.randn(64, 32, generator=g)
    e4, e5 = fp8.matmul_errors(a, b, "fp8_e4m3"), fp8.matmul_errors(a, b, "fp8_e5m2")
    # |a| < 5e-5, under half of E4M3's smallest subnormal 2^-9: all of a rounds to zero
    assert e4["none"] == 1.0
    # E5M2 reaches down to 2^-16 ≈ 1.5e-5, so part of a survives unscaled: better, still poor
    assert 0.2 < e5["none"] < 1.0
    for err in (e4, e5):
        assert err["tensorwise"] < 0.15 and err["rowwise"] < 0.15
    assert e5["tensorwise"] > e4["tensorwise"]                        # 2 mantissa bits vs 3


def test_zero_matrix_gives_zero_not_nan():
    r = fp8.scaled_matmul(torch.zeros(3, 4), torch.ones(4, 2))
    assert torch.equal(r.out, torch.zeros(3, 2)) and torch.isfinite(r.scale_a)


def test_relative_error_is_one_norm_over_all_the_tensors_it_is_given():
    ref = [torch.tensor([3.0, 0.0]), torch.tensor([[4.0]])]             # ‖ref‖ = 5 over both tensors
    got = [torch.tensor([3.0, 1.0]), torch.tensor([[4.0]])]             # ‖got − ref‖ = 1
    assert relative_error(got, ref) == pytest.approx(0.2, abs=1e-15)
    assert relative_error(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])) == 0.0
    assert relative_error(torch.zeros(2), torch.zeros(2)) == 0.0 and relative_error(torch.ones(2), torch.zeros(2)) \
        == math.inf
    # FP64 inside: a BF16 result against an FP32 reference is measured without rounding the difference
    x = torch.tensor([1.0 + 2 ** -20])
    assert relative_error(x.to(torch.bfloat16), x) == pytest.approx(2 ** -20 / (1 + 2 ** -20))


@pytest.mark.parametrize("call, kind, text", [
    (lambda: fp8.scaled_matmul(torch.ones(2, 3), torch.ones(4, 2)), ValueError, "shape mismatch"),
    (lambda: fp8.scaled_matmul(torch.ones(3), torch.ones(3, 2)), ValueError, "2-D"),
    (lambda: fp8.scaled_matmul(torch.ones(2, 2), torch.ones(2, 2), scaling="blockwise"), ValueError, "unknown"),
    (lambda: fp8.scaled_matmul(torch.ones(2, 2), torch.ones(2, 2), fmt_a="fp17"), ValueError, "unknown format"),
    (lambda: fp8.scaled_matmul(torch.tensor([[math.inf]]), torch.ones(1, 1)), ValueError, "non-finite"),
    (lambda: fp8.scaled_matmul([[1.0]], torch.ones(1, 1)), TypeError, "floating-point"),
    (lambda: fp8.quantize(torch.ones(2), "bf16"), ValueError, "fp8_e4m3"),
    (lambda: fp8.compute_scale(-1.0), ValueError, "non-negative"),
])
def test_bad_input_is_a_bengali_error(call, kind, text):
    with pytest.raises(kind, match=text) as info:
        call()
    assert any("\u0980" <= ch <= "\u09ff" for ch in str(info.value))
