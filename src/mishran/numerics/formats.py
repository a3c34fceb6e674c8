"""ভাসমান বিন্দু ফরম্যাট (floating-point format): বিট থেকে সংখ্যা, সংখ্যা থেকে বিট।

পাঠ ০১ (notebooks/01_bit_layouts.ipynb) এই মডিউলটি শেখায়। প্রতিটি ফরম্যাটের পরিসর (range) ও
সূক্ষ্মতা (precision) এখানে বিটের বিন্যাস থেকে হিসাব করা হয়, কোথাও হাতে লেখা নেই।
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import torch

from mishran.checks import as_bool

__all__ = ["FloatFormat", "Decoded", "FORMATS", "get_format", "needs_loss_scaling", "decode", "decode_bits", "encode",
           "round_to", "spacing", "all_values", "format_table"]


@dataclass(frozen=True)
class FloatFormat:
    """একটি ফরম্যাটের বিট-বিন্যাস; বাকি সব সংখ্যা এর থেকে বের হয় (পাঠ ০১)।"""

    name: str
    exponent_bits: int
    mantissa_bits: int
    # IEEE রীতি: exponent-এর সব বিট ১ হলে inf (mantissa ০) বা NaN। E4M3 ("fn") এই রীতি মানে না:
    # সেখানে inf নেই, কেবল S.1111.111 হলো NaN, বাকি সব সসীম সংখ্যা।
    ieee_special: bool = True
    label: str = ""
    dtype: torch.dtype | None = None   # torch-এর dtype; TF32-এর (বা পুরোনো torch-এ FP8-এর) নেই

    @property
    def total_bits(self) -> int:
        """মোট বিট: sign ১ + exponent + mantissa।"""
        return 1 + self.exponent_bits + self.mantissa_bits

    @property
    def bias(self) -> int:
        """exponent-এর bias: 2^(exponent বিট − 1) − 1।"""
        return 2 ** (self.exponent_bits - 1) - 1

    @property
    def emin(self) -> int:
        """সবচেয়ে ছোট normal সংখ্যার unbiased exponent (subnormal-ও এটাই ব্যবহার করে)।"""
        return 1 - self.bias

    @property
    def emax(self) -> int:
        """সবচেয়ে বড় সসীম সংখ্যার unbiased exponent (E4M3-এ সব-১ exponent field-ও সসীম)।"""
        top = 2 ** self.exponent_bits - 1
        return (top - 1 if self.ieee_special else top) - self.bias

    @property
    def max(self) -> float:
        """সবচেয়ে বড় সসীম সংখ্যা (যেমন FP16-এ 65504)।"""
        m = self.mantissa_bits
        # সবচেয়ে বড় mantissa: IEEE-তে সব ১; E4M3-এ সব ১ হলো NaN, তাই এক কম।
        top_mantissa = 2 ** m - 1 if self.ieee_special else 2 ** m - 2
        return math.ldexp(2 ** m + top_mantissa, self.emax - m)

    @property
    def min_normal(self) -> float:
        """সবচেয়ে ছোট ধনাত্মক normal সংখ্যা: 2^emin।"""
        return math.ldexp(1.0, self.emin)

    @property
    def min_subnormal(self) -> float:
        """সবচেয়ে ছোট ধনাত্মক subnormal সংখ্যা: 2^(emin − mantissa বিট)।"""
        return math.ldexp(1.0, self.emin - self.mantissa_bits)

    @property
    def eps(self) -> float:
        """machine epsilon: ১ আর তার পরের সংখ্যার দূরত্ব।"""
        return math.ldexp(1.0, -self.mantissa_bits)

    @property
    def has_inf(self) -> bool:
        """ফরম্যাটে inf আছে কি না (E4M3-এ নেই)।"""
        return self.ieee_special

    def __repr__(self) -> str:
        return (f"FloatFormat({self.name}: 1/{self.exponent_bits}/{self.mantissa_bits}, bias={self.bias}, "
                f"max={self.max:.6g}, min_normal={self.min_normal:.6g}, "
                f"min_subnormal={self.min_subnormal:.6g}, eps={self.eps:.6g})")


FORMATS: dict[str, FloatFormat] = {
    "fp32": FloatFormat("fp32", 8, 23, label="FP32", dtype=torch.float32),
    "fp16": FloatFormat("fp16", 5, 10, label="FP16", dtype=torch.float16),
    "bf16": FloatFormat("bf16", 8, 7, label="BF16", dtype=torch.bfloat16),
    # TF32 কোনো সংরক্ষণের ফরম্যাট নয়: Ampere ও নতুন GPU-র tensor core matmul-এর ভেতরে FP32 ইনপুটকে
    # ১০ বিট mantissa-য় কাটে। মেমরিতে সংখ্যা থাকে FP32 হিসেবেই।
    "tf32": FloatFormat("tf32", 8, 10, label="TF32"),
    "fp8_e4m3": FloatFormat("fp8_e4m3", 4, 3, ieee_special=False, label="FP8 E4M3",
                            dtype=getattr(torch, "float8_e4m3fn", None)),
    "fp8_e5m2": FloatFormat("fp8_e5m2", 5, 2, label="FP8 E5M2", dtype=getattr(torch, "float8_e5m2", None)),
}
"""ফরম্যাটের একমাত্র সারণি: নাম → বিট-বিন্যাস আর torch dtype। প্রশিক্ষণের precision-এর নাম → dtype আলাদা জিনিস,
তার মালিক mishran.precision.PRECISIONS।"""


_ALIASES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
            "e4m3": "fp8_e4m3", "fp8_e4m3fn": "fp8_e4m3", "e5m2": "fp8_e5m2"}


def get_format(fmt) -> FloatFormat:
    """নাম ('fp16'), torch dtype (torch.float16) বা FloatFormat থেকে FloatFormat; অচেনা নামে পরিষ্কার ভুলবার্তা (পাঠ ০১)।"""
    if isinstance(fmt, FloatFormat):
        return fmt
    if isinstance(fmt, torch.dtype):
        key = next((name for name, f in FORMATS.items() if f.dtype == fmt), str(fmt))
    elif isinstance(fmt, str):
        key = fmt.lower().removeprefix("torch.").replace("-", "_").replace(" ", "_")
        key = _ALIASES.get(key, key)
    else:
        raise TypeError(f"ফরম্যাটের নাম চাই, যেমন 'fp16' (a format name); পেয়েছি {type(fmt).__name__}: {fmt!r:.40}")
    if key not in FORMATS:
        raise ValueError(f"অচেনা ফরম্যাট {fmt!r} (unknown format); চেনা ফরম্যাট: {', '.join(FORMATS)}")
    return FORMATS[key]


@dataclass(frozen=True)
class Decoded:
    """decode()-এর ফল: বিটগুলো, তাদের মানে, আর মোট মান (পাঠ ০১)।"""

    fmt: str
    sign: int
    exponent: int                  # exponent field, যেমন বিটে আছে (biased)
    mantissa: int                  # mantissa field (লুকানো ১ ছাড়া)
    sign_bits: str
    exponent_bits: str
    mantissa_bits: str
    unbiased_exponent: int | None  # inf/NaN-এ None; subnormal ও শূন্যে emin
    value: float
    kind: str                      # 'normal' | 'subnormal' | 'zero' | 'inf' | 'nan'

    @property
    def bits(self) -> str:
        """sign, exponent, mantissa-র বিট পরপর, ফাঁক ছাড়া।"""
        return self.sign_bits + self.exponent_bits + self.mantissa_bits

    def __str__(self) -> str:
        return (f"{self.fmt}: {self.sign_bits} {self.exponent_bits} {self.mantissa_bits} → "
                f"{self.value!r} ({self.kind})")


def needs_loss_scaling(fmt) -> bool:
    """এই ফরম্যাটে প্রশিক্ষণে loss scaling লাগে কি না (পাঠ ০২): exponent-এর বিট FP32-এর চেয়ে কম হলে (FP16, FP8) পরিসর
    ছোট, ছোট gradient শূন্যে গোল হয়ে যায়; BF16-এর exponent FP32-এর সমান, তাই লাগে না। নাম, dtype বা FloatFormat।"""
    return get_format(fmt).exponent_bits < FORMATS["fp32"].exponent_bits


def decode_bits(pattern: int, fmt) -> Decoded:
    """একটি বিট-প্যাটার্ন (পূর্ণসংখ্যা) পড়ে sign, exponent, mantissa ও মান বের করে (পাঠ ০১)।"""
    f = get_format(fmt)
    if not isinstance(pattern, numbers.Integral) or not 0 <= int(pattern) < 2 ** f.total_bits:
        raise ValueError(f"{f.name}-এর বিট-প্যাটার্ন (bit pattern) হতে হবে 0 থেকে "
                         f"{2 ** f.total_bits - 1}-এর মধ্যে একটি পূর্ণসংখ্যা; পেয়েছি {pattern!r}")
    pattern = int(pattern)
    m, e = f.mantissa_bits, f.exponent_bits
    mant = pattern & (2 ** m - 1)
    expo = (pattern >> m) & (2 ** e - 1)
    sign = pattern >> (m + e)
    top = 2 ** e - 1
    if f.ieee_special and expo == top:
        kind, value, unbiased = ("inf", math.inf, None) if mant == 0 else ("nan", math.nan, None)
    elif not f.ieee_special and expo == top and mant == 2 ** m - 1:
        kind, value, unbiased = "nan", math.nan, None
    elif expo == 0:
        # লুকানো বিট ০: মান = 0.mantissa × 2^emin
        kind = "zero" if mant == 0 else "subnormal"
        value, unbiased = math.ldexp(mant, f.emin - m), f.emin
    else:
        # লুকানো বিট ১: মান = 1.mantissa × 2^(exponent − bias)
        kind, unbiased = "normal", expo - f.bias
        value = math.ldexp(2 ** m + mant, unbiased - m)
    if sign and kind != "nan":
        value = -value
    return Decoded(f.name, sign, expo, mant, str(sign), format(expo, f"0{e}b"), format(mant, f"0{m}b"),
                   unbiased, value, kind)


def _as_float(x) -> float:
    if isinstance(x, torch.Tensor):
        if x.numel() != 1:
            raise ValueError("decode() একটি মাত্র সংখ্যা নেয় (a single number); "
                             f"পেয়েছি {x.numel()} উপাদানের tensor। প্রতিটির জন্য আলাদা করে ডাকো।")
        return float(x.item())
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"সংখ্যা চাই (a real number), পেয়েছি {type(x).__name__}: {x!r}। "
                        "লেখা থাকলে আগে float('1e-5')-এর মতো করে সংখ্যায় বদলাও।")
    try:
        return float(x)
    except OverflowError:                  # float64-এর সীমা ছাড়ানো পূর্ণসংখ্যা (যেমন 2**2000): যেকোনো ফরম্যাটে ±inf
        return math.inf if x > 0 else -math.inf


def encode(value, fmt) -> int:
    """value-কে fmt-এ round করে তার বিট-প্যাটার্ন (পূর্ণসংখ্যা) ফেরত দেয় (পাঠ ০১)।"""
    f = get_format(fmt)
    r = round_to(_as_float(value), f)
    m, e = f.mantissa_bits, f.exponent_bits
    sign = 1 if math.copysign(1.0, r) < 0 else 0
    a = abs(r)
    if math.isnan(r):
        # প্রচলিত (canonical) NaN: IEEE-তে quiet NaN, E4M3-এ S.1111.111
        expo, mant = 2 ** e - 1, (2 ** (m - 1) if f.ieee_special else 2 ** m - 1)
    elif math.isinf(r):
        expo, mant = 2 ** e - 1, 0
    elif a < f.min_normal:
        expo, mant = 0, int(a / f.min_subnormal)
    else:
        frac, k = math.frexp(a)            # a = frac × 2^k, 0.5 ≤ frac < 1
        expo = k - 1 + f.bias
        mant = int(math.ldexp(frac * 2 - 1, m))
    return (sign << (e + m)) | (expo << m) | mant


def decode(value, fmt) -> Decoded:
    """একটি সংখ্যাকে fmt-এ round করে তার বিটগুলো খুলে দেখায় (পাঠ ০১)।

    >>> decode(65519, "fp16").value
    65504.0
    """
    f = get_format(fmt)
    return decode_bits(encode(value, f), f)


def _round_tensor(x: torch.Tensor, f: FloatFormat, saturate: bool) -> torch.Tensor:
    """round to nearest, ties to even — float64-এ নির্ভুল হিসাব।"""
    a = x.to(torch.float64).abs()
    finite_nonzero = torch.isfinite(a) & (a > 0)
    safe = torch.where(finite_nonzero, a, torch.ones_like(a))
    _, k = torch.frexp(safe)                               # safe = frac × 2^k
    exp = torch.clamp(k - 1, min=f.emin)                   # subnormal-এ exponent emin-এ আটকে থাকে
    quantum = torch.ldexp(torch.ones_like(safe), exp - f.mantissa_bits)   # এই দশকে দুই প্রতিবেশীর দূরত্ব
    r = torch.round(safe / quantum) * quantum              # torch.round: টাই হলে জোড় (half to even)
    big = math.inf if (f.has_inf and not saturate) else (f.max if saturate else math.nan)
    r = torch.where(torch.isfinite(a) & (r > f.max), big, r)
    # inf যেমন আছে তেমন; E4M3-এ inf নেই — NaN, বা saturate হলে ±max
    r = torch.where(torch.isinf(a), a if f.has_inf else torch.full_like(a, f.max if saturate else math.nan), r)
    r = torch.where((a == 0) | torch.isnan(a), a, r)
    return torch.copysign(r, x.to(torch.float64))


def _round_scalar(v: float, f: FloatFormat, saturate: bool) -> float:
    """_round_tensor-এর নিয়ম একটি Python সংখ্যায়, math-এ: ~১০০ গুণ দ্রুত (পাঠ ০১-এর লুপ এটা হাজারবার ডাকে)।"""
    a = abs(v)
    if math.isnan(a) or a == 0:
        return v
    if math.isinf(a):
        r = a if f.has_inf else (f.max if saturate else math.nan)
    else:
        exp = max(math.frexp(a)[1] - 1, f.emin)
        quantum = math.ldexp(1.0, exp - f.mantissa_bits)
        r = round(a / quantum) * quantum                   # round(): টাই হলে জোড় (half to even)
        if r > f.max:
            r = math.inf if (f.has_inf and not saturate) else (f.max if saturate else math.nan)
    return math.copysign(r, v)


def round_to(x, fmt, saturate: bool = False):
    """x-কে fmt-এর নিকটতম সংখ্যায় round করে (ties to even), পাঠ ০১।

    সীমা ছাড়ালে: inf আছে এমন ফরম্যাটে ±inf; E4M3-এ inf নেই, তাই OCP FP8-এর নিয়মে NaN। saturate=True দিলে সীমা-ছাড়া
    সসীম সংখ্যা হয় ±max (যেমন E4M3-এ ±448), আর E4M3-এ inf-ও।
    Python সংখ্যা দিলে float ফেরত দেয়; tensor দিলে একই আকারের tensor (FP32/FP64 হলে সেই dtype, নইলে FP32)।
    """
    f = get_format(fmt)
    saturate = as_bool(saturate, "saturate")
    if isinstance(x, torch.Tensor):
        if not (x.is_floating_point() or x.dtype in (torch.int8, torch.int16, torch.int32, torch.int64)):
            raise TypeError(f"round_to() সংখ্যার tensor চায় (a numeric tensor); পেয়েছি dtype {x.dtype}")
        out_dtype = x.dtype if x.dtype in (torch.float32, torch.float64) else torch.float32
        return _round_tensor(x, f, saturate).to(out_dtype)
    return _round_scalar(_as_float(x), f, saturate)


def spacing(x, fmt) -> float:
    """|x|-এর জায়গায় fmt-এর দুই প্রতিবেশী সংখ্যার দূরত্ব (ULP), পাঠ ০১। |x| > max হলে NaN।"""
    f = get_format(fmt)
    a = abs(_as_float(x))
    if math.isnan(a) or a > f.max:       # সীমার বাইরে (বা inf/NaN): প্রতিবেশী নেই
        return math.nan
    if a < f.min_normal:
        return f.min_subnormal
    return math.ldexp(1.0, math.frexp(a)[1] - 1 - f.mantissa_bits)


def all_values(fmt, finite_only: bool = True) -> list[float]:
    """৮ বা ১৬ বিটের ফরম্যাটের সব ধনাত্মক মান, ছোট থেকে বড় (শূন্যসহ) (পাঠ ০১)।"""
    f = get_format(fmt)
    vals = [decode_bits(p, f).value for p in range(2 ** (f.total_bits - 1))]
    return [v for v in vals if not finite_only or math.isfinite(v)]


def format_table(names=None) -> list[dict]:
    """পরিসর ও সূক্ষ্মতার সারণি — প্রতিটি সারি বিট-বিন্যাস থেকে হিসাব করা (পাঠ ০১)।"""
    rows = []
    for name in names or FORMATS:
        f = get_format(name)
        rows.append({"name": f.name, "format": f.label, "bits": f"1/{f.exponent_bits}/{f.mantissa_bits}",
                     "bias": f.bias, "max": f.max, "min_normal": f.min_normal, "min_subnormal": f.min_subnormal,
                     "eps": f.eps, "decimal_digits": round(math.log10(2) * (f.mantissa_bits + 1), 1)})
    return rows
