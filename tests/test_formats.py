"""mishran.numerics.formats: specs derived from bits agree with torch; every bit pattern decodes as torch says."""
import math

import pytest
import torch

from mishran.numerics import formats
from mishran.numerics.formats import FORMATS, decode, decode_bits, encode, round_to

TORCH_FORMATS = [n for n in FORMATS if FORMATS[n].dtype is not None]


def test_fp16_max_is_65504():
    assert FORMATS["fp16"].max == 65504.0


def test_table_values_from_the_bits():
    assert FORMATS["bf16"].max == float(torch.finfo(torch.bfloat16).max)
    assert FORMATS["fp8_e4m3"].max == 448.0
    assert FORMATS["fp8_e5m2"].max == 57344.0
    assert FORMATS["fp16"].min_subnormal == 2.0 ** -24
    assert FORMATS["bf16"].min_subnormal == 2.0 ** -133
    assert FORMATS["fp8_e4m3"].min_subnormal == 2.0 ** -9
    assert FORMATS["tf32"].eps == 2.0 ** -10 and FORMATS["tf32"].min_normal == 2.0 ** -126
    assert [FORMATS[n].bias for n in ("fp32", "fp16", "bf16", "fp8_e4m3", "fp8_e5m2")] == [127, 15, 127, 7, 15]


@pytest.mark.parametrize("name", TORCH_FORMATS)
def test_specs_agree_with_torch_finfo(name):
    spec, info = FORMATS[name], torch.finfo(FORMATS[name].dtype)
    assert spec.max == float(info.max)
    assert spec.min_normal == float(info.smallest_normal)
    assert spec.eps == float(info.eps)
    assert spec.total_bits == info.bits
    # smallest subnormal: the bit pattern 1, read by torch
    dtype = FORMATS[name].dtype
    one = torch.tensor([1], dtype={8: torch.uint8, 16: torch.int16, 32: torch.int32}[info.bits]).view(dtype)
    assert spec.min_subnormal == one.float().item()


def _all_patterns(name):
    """Every bit pattern of an 8- or 16-bit format, and the values torch gives them."""
    bits = FORMATS[name].total_bits
    pats = torch.arange(2 ** bits, dtype=torch.int64)
    store = pats.to(torch.uint8) if bits == 8 else (pats - (pats >= 2 ** 15) * 2 ** 16).to(torch.int16)
    return range(2 ** bits), store.view(FORMATS[name].dtype).to(torch.float64).tolist()


@pytest.mark.parametrize("name", ["fp16", "bf16", "fp8_e4m3", "fp8_e5m2"])
def test_every_bit_pattern_decodes_as_torch_says(name):
    patterns, torch_values = _all_patterns(name)
    kinds = set()
    for pattern, want in zip(patterns, torch_values, strict=True):
        d = decode_bits(pattern, name)
        kinds.add(d.kind)
        if math.isnan(want):
            assert d.kind == "nan", (pattern, d)
            continue
        assert d.value == want and math.copysign(1, d.value) == math.copysign(1, want), (pattern, d, want)
        assert d.kind == ("inf" if math.isinf(want) else "zero" if want == 0 else
                          "subnormal" if abs(want) < FORMATS[name].min_normal else "normal")
        assert d.bits == format(pattern, f"0{FORMATS[name].total_bits}b")
        assert encode(want, name) == pattern           # the value encodes back to the same bits
    assert kinds >= {"normal", "subnormal", "zero", "nan"}


def test_e4m3_has_one_nan_per_sign_and_no_inf():
    kinds = [decode_bits(p, "fp8_e4m3").kind for p in range(256)]
    assert kinds.count("nan") == 2 and kinds.count("inf") == 0
    assert decode_bits(0b0_1111_110, "fp8_e4m3").value == 448.0


def _edge_values():
    vals = []
    for name in TORCH_FORMATS:
        f = FORMATS[name]
        for base in (f.max, f.min_normal, f.min_subnormal, 1.0, 2.0 ** f.emax):
            ulp = formats.spacing(base, name)
            # the value, its neighbours, and exactly half-way points (ties) around it
            vals += [base, base + ulp / 2, base - ulp / 4, base + ulp, base * 1.5 + ulp / 2, base / 2, base / 3]
        vals += [f.max + formats.spacing(f.max, name) / 2 * k for k in (0.5, 0.999, 1, 1.001, 2, 3)]
    vals += [65519.0, 65520.0, 257.0, 2049.0, 2051.0, 0.0, -0.0, 1e-30, 1e30, math.inf, -math.inf, math.nan]
    return torch.tensor(vals, dtype=torch.float32)


def _random_values(n=200_000, seed=0):
    g = torch.Generator().manual_seed(seed)
    sign = torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0)
    # log-uniform magnitudes over FP32's whole range, plus raw random bit patterns
    mags = torch.exp2(torch.empty(n).uniform_(-150, 128, generator=g))
    raw = torch.randint(-2 ** 31, 2 ** 31 - 1, (n,), generator=g, dtype=torch.int64).to(torch.int32).view(torch.float32)
    return torch.cat([sign * mags, raw])


@pytest.mark.parametrize("name", TORCH_FORMATS)
def test_round_to_agrees_with_torch_casts(name):
    x = torch.cat([_edge_values(), _random_values()])
    x = x[~x.isnan()]
    ours = round_to(x, name)
    theirs = x.to(FORMATS[name].dtype).to(torch.float32)
    if name == "fp8_e4m3":
        # torch's E4M3 overflow rule has changed between versions (NaN in 2.11, saturation to ±448 in 2.13);
        # ours follows the OCP rule (NaN). Compare only where the value is in range.
        in_range = ours.isfinite()
        assert (ours.isnan() == (x.abs() > 464)).all()   # 464 is a tie: goes to even, 448
        ours, theirs = ours[in_range], theirs[in_range]
    same = (ours == theirs) & (torch.signbit(ours) == torch.signbit(theirs))
    assert same.all(), (x[~same][:5], ours[~same][:5], theirs[~same][:5])


def test_e4m3_saturation_option():
    x = torch.tensor([447.0, 464.0, 479.0, 1000.0, math.inf, -math.inf, -500.0])
    assert round_to(x, "fp8_e4m3", saturate=True).tolist() == [448, 448, 448, 448, 448, -448, -448]
    assert round_to(x, "fp8_e4m3").isnan().tolist() == [False, False, True, True, True, True, True]


def test_round_to_tf32_equals_dropping_13_bits_with_ties_to_even():
    x = _random_values(100_000, seed=1)
    x = x[x.isfinite() & (x.abs() < 3e38)]
    bits = x.view(torch.int32).to(torch.int64)
    low = bits & 0x1FFF                     # the 13 mantissa bits TF32 drops
    keep = bits - low
    lsb = (keep >> 13) & 1
    up = (low > 0x1000) | ((low == 0x1000) & (lsb == 1))
    ref = (keep + up * 0x2000).to(torch.int32).view(torch.float32)
    assert torch.equal(round_to(x, "tf32"), ref)


def test_overflow_threshold_of_fp16():
    assert round_to(65519.0, "fp16") == 65504.0
    assert round_to(65520.0, "fp16") == math.inf
    assert round_to(-65520.0, "fp16") == -math.inf
    assert round_to(65520.0, "fp16", saturate=True) == 65504.0


def test_ties_go_to_even():
    assert round_to(2049.0, "fp16") == 2048.0 and round_to(2051.0, "fp16") == 2052.0
    assert round_to(257.0, "bf16") == 256.0 and round_to(259.0, "bf16") == 260.0


def test_gradual_underflow_in_fp16():
    assert decode(2.0 ** -14, "fp16").kind == "normal"
    assert decode(2.0 ** -15, "fp16").kind == "subnormal"
    assert decode(2.0 ** -24, "fp16").kind == "subnormal"
    assert decode(2.0 ** -25, "fp16").kind == "zero"        # a tie between 0 and 2^-24: goes to even, 0
    assert decode(1.5 * 2.0 ** -25, "fp16").value == 2.0 ** -24


def test_decode_shows_the_fields():
    d = decode(-1.5, "fp16")
    assert (d.sign_bits, d.exponent_bits, d.mantissa_bits) == ("1", "01111", "1000000000")
    assert (d.sign, d.exponent, d.mantissa, d.unbiased_exponent, d.value, d.kind) == (1, 15, 512, 0, -1.5, "normal")
    assert decode(torch.tensor(0.1), "fp32").value == torch.tensor(0.1).item()


def test_round_to_keeps_tensor_shape_and_dtype():
    x = torch.randn(3, 4, dtype=torch.float64)
    assert round_to(x, "bf16").shape == (3, 4) and round_to(x, "bf16").dtype == torch.float64
    assert round_to(x.half(), "fp8_e5m2").dtype == torch.float32


def test_spacing_grows_with_magnitude():
    assert formats.spacing(1.0, "fp16") == 2.0 ** -10
    assert formats.spacing(2048.0, "fp16") == 2.0
    assert formats.spacing(1e-7, "fp16") == 2.0 ** -24      # subnormal: constant spacing
    assert math.isnan(formats.spacing(1e6, "fp16"))          # beyond max there are no neighbours
    assert len(formats.all_values("fp8_e4m3")) == 127          # 0 and 126 positive finite values


def test_unknown_format_is_a_clear_bengali_error():
    with pytest.raises(ValueError, match=r"অচেনা ফরম্যাট 'fp17' \(unknown format\)"):
        formats.get_format("fp17")


def test_non_number_is_a_clear_bengali_error():
    with pytest.raises(TypeError, match=r"সংখ্যা চাই \(a real number\)"):
        round_to("1e-5", "fp16")
    with pytest.raises(TypeError, match="a real number"):
        decode(None, "fp16")
    with pytest.raises(ValueError, match="bit pattern"):
        decode_bits(2 ** 16, "fp16")


def test_formats_knows_bit_formats_not_training_precisions():
    """The name → dtype map of training precisions has one owner, mishran.precision; formats keeps no copy."""
    from mishran import precision
    assert "PRECISIONS" not in formats.__all__
    assert getattr(formats, "PRECISIONS", precision.PRECISIONS) is precision.PRECISIONS


@pytest.mark.parametrize("name", ["fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "tf32", "fp32"])
def test_a_python_number_rounds_exactly_as_a_tensor_does(name):
    """round_to's scalar path (math) against its tensor path (torch ops): every value, saturated or not, including
    the exact midpoints between neighbours (ties to even) and the edges of the range."""
    import random

    f = formats.get_format(name)
    rng = random.Random(name)
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, f.max, f.min_normal, f.min_subnormal, f.min_subnormal / 2,
              f.max * (1 + 2.0 ** -(f.mantissa_bits + 1)), 1e308, 5e-324]
    values += [rng.choice((1, -1)) * 2 ** rng.uniform(math.log2(f.min_subnormal) - 3, math.log2(f.max) + 2)
               for _ in range(2000)]
    if f.total_bits <= 16:
        grid = formats.all_values(name)
        step = max(1, len(grid) // 1500)
        values += [(lo + hi) / 2 for lo, hi in zip(grid[::step], grid[1::step], strict=False)]   # exact ties
    for saturate in (False, True):
        want = formats._round_tensor(torch.tensor(values, dtype=torch.float64), f, saturate).tolist()
        got = [formats.round_to(v, name, saturate=saturate) for v in values]
        for v, g, w in zip(values, got, want, strict=True):
            assert (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w)), \
                (v, saturate, g, w)


def test_loss_scaling_follows_the_exponent_range():
    # FP16 and both FP8s have fewer exponent bits than FP32 (5, 5, 4 vs 8): small gradients round to zero there
    assert {n for n in FORMATS if formats.needs_loss_scaling(n)} == {"fp16", "fp8_e4m3", "fp8_e5m2"}
    assert formats.needs_loss_scaling(torch.float16) and not formats.needs_loss_scaling(torch.bfloat16)
