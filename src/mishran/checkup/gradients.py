"""FP32 gradient থেকে: log2 histogram, কোন ফরম্যাটে কত ভাগ শূন্যে গোল হয় (underflow), আর FP16-এর loss scale কোন
পরিসরে নিরাপদ (পাঠ ১০)।

round-to-nearest-even-এ একটি সংখ্যা শূন্য হয় ঠিক তখন, যখন |x| ≤ smallest subnormal ÷ 2 (সমান হলে জোড়ের দিকে, শূন্যে)।
loss scale s = 2**k হলে |g|·s ≤ 2**t ⇔ |g| ≤ 2**(t − k)। তাই histogram-এর bucket b = ceil(log2|g|) (অর্থাৎ |g| ≤ 2**b)
জানলেই যেকোনো 2-এর ঘাতের scale-এ কত ভাগ শূন্য হয়, তা নির্ভুল বলা যায় — প্রতিবার cast না করে।
"""
from __future__ import annotations

import math

import torch

from mishran.checkup.report import LossScaleRange
from mishran.numerics.formats import get_format

__all__ = ["UNDERFLOW_LIMIT", "SCALE_POWERS", "CHUNK", "DUST_BELOW", "log2_histogram", "underflow_share", "scale_range",
           "without_dust"]

UNDERFLOW_LIMIT = 0.01
"""শূন্য-নয় gradient-এর এর বেশি ভাগ শূন্য হলে parameter-টি underflow-এর তালিকায় (1%)।"""

SCALE_POWERS = range(-24, 25)
"""যে loss scale-গুলো খোঁজা হয়: 2**-24 থেকে 2**24।"""

CHUNK = 2 ** 20
"""বড় tensor এত উপাদানের টুকরোয় পড়া হয় (FP64-এর বা বাড়তি কপি একবারে এর বেশি নয়)।"""

DUST_BELOW = 2.0 ** -24
"""মডেলের সবচেয়ে বড় gradient-এর এত ভাগেরও নিচের FP32 gradient (= FP32-এর unit roundoff, 2**-24) rounding-এর গুঁড়ো হতে
পারে: গণিতে হয়তো শূন্য, যেমন attention-এর key-র bias বা BatchNorm-এর ঠিক আগের bias।"""

_OFFSET = 152


def log2_histogram(grad: torch.Tensor) -> dict:
    """{b: কয়টি উপাদান}, b = ceil(log2|g|), শুধু শূন্য-নয় সসীম উপাদান (পাঠ ১০)। frexp: |g| = m·2**e, 0.5 ≤ m < 1;
    m ঠিক 0.5 হলে |g| = 2**(e − 1), নইলে |g| < 2**e। টুকরো টুকরো করে, যাতে বড় gradient-এর কপি না লাগে।"""
    counts = torch.zeros(2 * _OFFSET, dtype=torch.long, device=grad.device)
    for part in grad.detach().reshape(-1).split(CHUNK):
        a = part.abs().float()
        a = a[(a > 0) & torch.isfinite(a)]
        mantissa, exponent = torch.frexp(a)
        buckets = exponent.long() - (mantissa == 0.5).long() + _OFFSET      # FP32: −149 … 128, তাই ৩ … 280
        counts += torch.bincount(buckets, minlength=2 * _OFFSET)
    return {b - _OFFSET: c for b, c in enumerate(counts.tolist()) if c}


def underflow_share(histogram: dict, fmt="fp16", scale: float = 1.0) -> float:
    """histogram-এর শূন্য-নয় উপাদানের কত ভাগ loss scale `scale` (2-এর ঘাত)-এ fmt-এ শূন্য হয় (পাঠ ১০)।"""
    total = sum(histogram.values())
    if total == 0:
        return 0.0
    limit = round(math.log2(get_format(fmt).min_subnormal / 2)) - round(math.log2(scale))
    return sum(c for b, c in histogram.items() if b <= limit) / total


def _merged(histograms) -> dict:
    out: dict = {}
    for h in histograms:
        for b, c in h.items():
            out[b] = out.get(b, 0) + c
    return out


def scale_range(histograms: dict, max_grad: float, max_activation_grad: float = 0.0, fmt="fp16") -> LossScaleRange:
    """parameter-এর নাম → histogram, parameter-এর gradient-এর max|g|, আর module-এর output-এর gradient-এর max থেকে
    FP16-এর loss scale-এর পরিসর আর প্রস্তাবিত GradScaler init_scale (পাঠ ১০)। নিয়ম LossScaleRange-এর docstring-এ।"""
    top, biggest = get_format(fmt).max, max(max_grad, max_activation_grad)
    safe = [k for k in SCALE_POWERS if biggest * 2.0 ** k < top]
    k_high = safe[-1] if safe else SCALE_POWERS[0]
    lifted = [k for k in SCALE_POWERS if k >= 0 and all(
        underflow_share(h, fmt, 2.0 ** k) <= UNDERFLOW_LIMIT for h in histograms.values())]
    k_low = lifted[0] if lifted else None
    ok = k_low is not None and k_low <= k_high
    k_init = (k_low + k_high) // 2 if ok else k_high
    everything = _merged(histograms.values())
    return LossScaleRange(max_grad=max_grad, max_activation_grad=max_activation_grad,
                          low=None if k_low is None else 2.0 ** k_low, high=2.0 ** k_high,
                          init_scale=2.0 ** k_init, window_ok=ok,
                          underflow_share_at_1=underflow_share(everything, fmt, 1.0),
                          underflow_share_at_init=underflow_share(everything, fmt, 2.0 ** k_init))


def without_dust(histograms: dict, biggest: float) -> tuple[dict, list[str]]:
    """histogram-গুলো থেকে গুঁড়ো (|g| ≤ biggest · DUST_BELOW-এর খোপ) বাদ দিয়ে (নতুন histogram-গুলো, যাদের শূন্য-নয়
    gradient-এর UNDERFLOW_LIMIT-এর বেশি ভাগ গুঁড়ো তাদের নাম) (পাঠ ১০)। খোপ b-তে |g| ≤ 2**b, তাই b ≤ log2(biggest ·
    DUST_BELOW)-এর খোপ পুরোটাই সীমার নিচে।"""
    if biggest <= 0:
        return dict(histograms), []
    limit = math.floor(math.log2(biggest * DUST_BELOW))
    clean, dusty = {}, []
    for name, h in histograms.items():
        kept = {b: c for b, c in h.items() if b > limit}
        if h and sum(h.values()) - sum(kept.values()) > UNDERFLOW_LIMIT * sum(h.values()):
            dusty.append(name)
        clean[name] = kept
    return clean, dusty
