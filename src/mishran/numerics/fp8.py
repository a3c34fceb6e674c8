"""FP8-এর per-tensor scaling হাতে লেখা: amax → scale → cast → matmul → unscale (পাঠ ০৭)।

পাঠ ০২-এর loss scaling-এর মতোই: সংখ্যাগুলোকে এমন গুণ দিয়ে বড় (বা ছোট) করা, যাতে তারা FP8-এর পরিসরে এঁটে যায়;
matmul-এর পরে সেই গুণ দিয়ে ভাগ করে আসল এককে ফেরা। rounding হয় mishran.numerics.formats.round_to দিয়ে, তাই সব
হিসাব CPU-তেই চলে — GPU বা torchao লাগে না। scaling (SCALINGS): "tensorwise" — পুরো tensor-এর একটি scale = FP8-এর
max ÷ amax (torchao.float8-এর recipe-র নামে); "rowwise" — a-র প্রতিটি সারির আর b-র প্রতিটি কলামের নিজের scale;
"none" — scale ছাড়া সোজা cast: ছোট মান শূন্য হয়, বড় মান আটকে যায় (saturate)।

scale মানে সবসময় torchao-র Float8 tensor-এর অর্থে (mishran.numerics.int8-এর INT8-এও একই): যা দিয়ে **গুণ** করলে মান
FP8-এর পরিসরে যায়; ফেরাতে তা দিয়ে ভাগ। torch._scaled_mm-এর scale_a/scale_b উল্টো (1/scale)।
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import torch

from mishran.checks import as_bool, float_tensor, positive_scale
from mishran.numerics.error import relative_error
from mishran.numerics.formats import get_format, round_to

__all__ = ["SCALINGS", "AMAX_FLOOR", "amax", "compute_scale", "quantize", "ScaledMatmul", "scaled_matmul",
           "matmul_errors"]

SCALINGS = ("none", "tensorwise", "rowwise")

# amax শূন্য হলে scale অসীম হতো; torchao-র মতো একটি ছোট নিচের সীমা (পাঠ ০৭)
AMAX_FLOOR = 1e-12


def _matrix(x, what: str) -> torch.Tensor:
    """scaled_matmul-এর দরজা: সসীম মানের 2-D float tensor → FP32।"""
    if float_tensor(x, what).dim() != 2:
        raise ValueError(f"{what}: দুই মাত্রার matrix চাই (a 2-D tensor); পেয়েছি আকার {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{what}-এ inf বা NaN আছে (non-finite values); FP8-এ cast করার আগে সেগুলো ঠিক করো")
    return x.float()


def amax(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """সবচেয়ে বড় পরম মান (absolute max): পুরো tensor-এর (dim=None), নয়তো dim ধরে, আকার রেখে (পাঠ ০৭)।"""
    a = x.detach().float().abs()
    return a.max() if dim is None else a.amax(dim=dim, keepdim=True)


def compute_scale(amax_value, fmt="fp8_e4m3", power_of_two: bool = False) -> torch.Tensor:
    """scale = fmt-এর max ÷ amax, যাতে সবচেয়ে বড় মানটি ঠিক FP8-এর max-এ বসে (পাঠ ০৭)।

    power_of_two=True: scale-কে নিচের দিকে ২-এর ঘাতে নামানো (torchao-র rowwise recipe-র মতো); তখন scale দিয়ে গুণ-ভাগে
    কোনো rounding-এর ভুল যোগ হয় না।
    """
    f = get_format(fmt)
    power_of_two = as_bool(power_of_two, "power_of_two")
    ok = isinstance(amax_value, torch.Tensor) and not amax_value.is_complex() and amax_value.numel() > 0 or (
        isinstance(amax_value, numbers.Real) and not isinstance(amax_value, bool) and abs(amax_value) < 1e300)
    a = torch.as_tensor(amax_value, dtype=torch.float32) if ok else None
    if a is None or (a < 0).any() or not torch.isfinite(a).all():
        raise ValueError(f"amax হবে শূন্য বা ধনাত্মক সসীম সংখ্যা বা tensor (non-negative, finite); পেয়েছি "
                         f"{str(amax_value)[:60]}")
    scale = f.max / torch.clamp(a.double(), min=AMAX_FLOOR)
    if power_of_two:
        scale = torch.exp2(torch.floor(torch.log2(scale)))
    return scale.float()


def quantize(x: torch.Tensor, fmt="fp8_e4m3", scale=1.0) -> torch.Tensor:
    """x × scale-কে fmt-এ round করে (সীমা ছাড়ালে ±max-এ আটকে, saturate) — ফল FP32 tensor, FP8-এর জালে (পাঠ ০৭)।

    GPU-তে এটাই `(x * scale).to(torch.float8_e4m3fn)`; এখানে mishran.numerics.formats-এর rounding, তাই CPU-তেও চলে।
    """
    f = get_format(fmt)
    if f.total_bits != 8:
        raise ValueError(f"quantize() FP8 ফরম্যাট চায় (fp8_e4m3 বা fp8_e5m2); পেয়েছি {f.name}")
    x, scale = float_tensor(x, "quantize"), positive_scale(scale)
    try:
        scaled = x.float() * scale
    except RuntimeError:
        raise ValueError(f"scale-এর আকার {tuple(scale.shape)} x-এর {tuple(x.shape)}-এর সঙ্গে মেলে না (shapes do not "
                         "broadcast)") from None
    return round_to(scaled, f, saturate=True)


@dataclass
class ScaledMatmul:
    """scaled_matmul()-এর প্রতিটি ধাপ, যাতে নোটবুকে খুলে দেখা যায় (পাঠ ০৭)।"""

    out: torch.Tensor        # আসল এককে ফল (FP32)
    scale_a: torch.Tensor    # tensorwise-এ একটি সংখ্যা; rowwise-এ (M, 1)
    scale_b: torch.Tensor    # tensorwise-এ একটি সংখ্যা; rowwise-এ (1, N)
    a_fp8: torch.Tensor      # a × scale_a, FP8-এর জালে (FP32 tensor হিসেবে রাখা)
    b_fp8: torch.Tensor
    scaling: str


def scaled_matmul(a: torch.Tensor, b: torch.Tensor, fmt_a="fp8_e4m3", fmt_b="fp8_e4m3",
                  scaling: str = "tensorwise", power_of_two: bool = False) -> ScaledMatmul:
    """a @ b, দুটোই FP8-এ: amax → scale → cast → matmul (FP32-এ যোগ) → unscale (পাঠ ০৭)।"""
    a, b = _matrix(a, "a"), _matrix(b, "b")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul-এর আকার মেলে না (shape mismatch): a {tuple(a.shape)}, b {tuple(b.shape)}; "
                         "a-র কলাম আর b-র সারির সংখ্যা সমান হতে হবে")
    if not isinstance(scaling, str) or scaling not in SCALINGS:
        raise ValueError(f"অচেনা scaling {scaling!r:.40} (unknown scaling); চেনা: {', '.join(SCALINGS)}")
    if scaling == "none":
        sa = sb = torch.tensor(1.0)
    elif scaling == "tensorwise":
        sa = compute_scale(amax(a), fmt_a, power_of_two)
        sb = compute_scale(amax(b), fmt_b, power_of_two)
    else:                                                    # rowwise: a-র সারি ধরে, b-র কলাম ধরে
        sa = compute_scale(amax(a, dim=1), fmt_a, power_of_two)    # (M, 1)
        sb = compute_scale(amax(b, dim=0), fmt_b, power_of_two)    # (1, N)
    a8, b8 = quantize(a, fmt_a, sa), quantize(b, fmt_b, sb)
    out = (a8 @ b8) / (sa * sb)                              # FP32-এ যোগ, তারপর unscale (GPU-র fast accum কম সূক্ষ্ম)
    return ScaledMatmul(out, sa, sb, a8, b8, scaling)


def matmul_errors(a: torch.Tensor, b: torch.Tensor, fmt_a="fp8_e4m3", fmt_b="fp8_e4m3") -> dict:
    """একই a @ b তিনভাবে FP8-এ (none, tensorwise, rowwise): FP64-এর সঠিক ফলের তুলনায় আপেক্ষিক ত্রুটি (পাঠ ০৭)।"""
    ref = a.double() @ b.double()
    return {s: relative_error(scaled_matmul(a, b, fmt_a, fmt_b, s).out, ref) for s in SCALINGS}
