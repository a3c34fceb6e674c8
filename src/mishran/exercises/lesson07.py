"""পাঠ ০৭ (গতি আর FP8) অনুশীলনীর যাচাই: MFU, tensor core-বান্ধব vocab, FP8-এর scale, FP8-এ পুরো ধাপের গতি (Amdahl), ভুল খোঁজা।"""
from __future__ import annotations

import math

import torch

from .. import fp8
from .core import Verdict, as_number, blank_verdict, check_number, is_blank, say

__all__ = [
    "BUGGY_FP8_MATMUL",
    "FP8_EXAMPLE",
    "FP8_PLAN",
    "MFU_QUESTION",
    "VOCAB_QUESTION",
    "check_fp8_step_speedup",
    "check_fp8_roundtrip",
    "check_fp8_matmul_fix",
    "check_mfu",
    "check_padded_vocab",
]

MFU_QUESTION = {"flops_per_step": 2.9e12, "step_s": 0.012, "gpu": "A100 SXM", "peak_tflops": 312}
"""অনুশীলনী ০৭.১: এক step-এ 2.9 TFLOP, সময় 12 ms, A100-এর BF16 dense peak 312 TFLOP/s।"""

VOCAB_QUESTION = {"tokens": 50001, "multiple": 128}
"""অনুশীলনী ০৭.২: একটি বাংলা BPE tokenizer-এ 50001টি token; মাপ হবে ১২৮-এর গুণিতক।"""

FP8_EXAMPLE = {"values": [3.1e-4, -7.5e-5, 1.2e-3, -2.0e-6], "format": "fp8_e5m2"}
"""অনুশীলনী ০৭.৩: কয়েকটি gradient-এর মাপের সংখ্যা, E5M2-এ (gradient-এর ফরম্যাট)।"""

BUGGY_FP8_MATMUL = '''\
def buggy_fp8_matmul(a, b):
    """a @ b, দুটোই E4M3-এ, tensorwise scaling — কোথাও একটি ভুল আছে।"""
    fmax = 448.0
    scale_a = fp8.amax(a) / fmax
    scale_b = fp8.amax(b) / fmax
    a8 = fp8.quantize(a, "fp8_e4m3", scale_a)
    b8 = fp8.quantize(b, "fp8_e4m3", scale_b)
    return (a8 @ b8) / (scale_a * scale_b)
'''
"""অনুশীলনী ০৭.৫: এই ফাংশনে একটি ভুল; ঠিক করা ফাংশন লেখো।"""

FP8_PLAN = {"matmul_share": 0.6, "fp8_matmul_speedup": 1.6, "cast_overhead": 0.1}
"""অনুশীলনী ০৭.৪: BF16 ধাপের 60% matmul; FP8-এ matmul 1.6 গুণ দ্রুত; amax, scale আর cast-এর বাড়তি কাজ আগের matmul
সময়ের 10%-এর সমান।"""


def _number(answer):
    """সসীম সংখ্যা, নইলে None (core.as_number-এর ওপর: inf/NaN এখানে উত্তর হিসেবে চলে না)।"""
    value = as_number(answer)
    return value if value is not None and math.isfinite(value) else None


def check_mfu(answer) -> Verdict:
    """অনুশীলনী ০৭.১: MFU = এক step-এর FLOP ÷ step-এর সময় ÷ dense peak; ভগ্নাংশ (0.5) বা শতাংশ (50) দুটোই চলে।"""
    if is_blank(answer):
        return blank_verdict()
    q = MFU_QUESTION
    expected = q["flops_per_step"] / q["step_s"] / (q["peak_tflops"] * 1e12)
    value = _number(answer)
    if value is None:
        return say(False, f"একটি সংখ্যা চাই (a number), যেমন 0.5 বা 50 (%); পেয়েছি {answer!r}।")
    if math.isclose(value, expected, rel_tol=0.01) or math.isclose(value, 100 * expected, rel_tol=0.01):
        return say(True, f"MFU ≈ {100 * expected:.1f}%: প্রতি সেকেন্ডে {q['flops_per_step'] / q['step_s'] / 1e12:.0f} "
                          f"TFLOP, peak {q['peak_tflops']}-এর তুলনায়।")
    if math.isclose(value, 1 / expected, rel_tol=0.01) or math.isclose(value, q["flops_per_step"] / q["step_s"] / 1e12,
                                                                         rel_tol=0.01):
        return say(False, "এটা MFU নয়: আগে অর্জিত TFLOP/s বের করো (FLOP ÷ সেকেন্ড ÷ 10^12), তারপর peak দিয়ে ভাগ।")
    return say(False, f"{answer!r} মেলেনি। একক খেয়াল করো: 12 ms = 0.012 s, আর peak TFLOP/s মানে 10^12 FLOP/s।")


def check_padded_vocab(answer) -> Verdict:
    """অনুশীলনী ০৭.২: VOCAB_QUESTION-এর সব token রাখতে পারে এমন সবচেয়ে ছোট গুণিতক (multiple-এর)।"""
    if is_blank(answer):
        return blank_verdict()
    tokens, k = VOCAB_QUESTION["tokens"], VOCAB_QUESTION["multiple"]
    value = _number(answer)
    if value is None or value != int(value):
        return say(False, f"একটি পূর্ণসংখ্যা চাই (an integer); পেয়েছি {answer!r}।")
    value = int(value)
    best = -(-tokens // k) * k
    if value == best:
        return say(True, f"{value} = {value // k} × {k}: সব {tokens}টি token আঁটে, বাড়তি মাত্র {value - tokens}টি সারি "
                          "(কেউ কখনো এগুলো বেছে নেয় না, শুধু head-এর matmul tensor core-এর মাপে বসে)।")
    if value < tokens:
        return say(False, f"{value}টি সারিতে {tokens}টি token আঁটে না — কিছু token-এর কোনো logit থাকবে না।")
    if value % k:
        return say(False, f"{value} {k}-এর গুণিতক নয় (ভাগশেষ {value % k})।")
    return say(False, f"{value} চলে, কিন্তু এর চেয়ে ছোট একটি {k}-এর গুণিতকও সব token রাখতে পারে।")


def check_fp8_roundtrip(scale, restored) -> Verdict:
    """অনুশীলনী ০৭.৩: FP8_EXAMPLE-এর tensorwise scale, আর প্রথম সংখ্যাটি scale → E5M2 → unscale করে কী ফেরে।"""
    if is_blank(scale) or is_blank(restored):
        return blank_verdict()
    x = torch.tensor(FP8_EXAMPLE["values"])
    fmt = FP8_EXAMPLE["format"]
    want_scale = fp8.compute_scale(fp8.amax(x), fmt).item()
    want_back = (fp8.quantize(x, fmt, want_scale)[0] / want_scale).item()
    s, r = _number(scale), _number(restored)
    if s is None or r is None:
        return say(False, f"দুটোই সংখ্যা চাই (numbers); পেয়েছি scale={scale!r}, restored={restored!r}।")
    if not math.isclose(s, want_scale, rel_tol=1e-5):
        if math.isclose(s, 1 / want_scale, rel_tol=1e-5):
            return say(False, "scale উল্টো হয়েছে: সবচেয়ে বড় মানটিকে ফরম্যাটের max-এ তুলতে হবে, তাই max ÷ amax।")
        return say(False, "scale মেলেনি। amax = সবচেয়ে বড় পরম মান; E5M2-এর max কত, পাঠ ০১ বা formats.get_format দেখো।")
    if math.isclose(r, FP8_EXAMPLE["values"][0], rel_tol=1e-9):
        return say(False, "এটা তো আসল মানই — FP8-এ round করার ধাপটা বাদ গেছে (E5M2-এ mantissa মাত্র ২ বিট)।")
    if not math.isclose(r, want_back, rel_tol=1e-5):
        return say(False, "scale ঠিক, ফেরত মান মেলেনি: x × scale-কে E5M2-এ round করো, তারপর scale দিয়ে ভাগ করো।")
    err = abs(want_back / FP8_EXAMPLE["values"][0] - 1)
    return say(True, f"scale {want_scale:.6g}; ফেরত মান {want_back:.6g} — আসলের চেয়ে {100 * err:.1f}% আলাদা: "
                      "E5M2-এর ২ বিট mantissa-র দাম।")


def check_fp8_step_speedup(answer, plan: dict | None = None) -> Verdict:
    """অনুশীলনী ০৭.৪: FP8_PLAN-এর মডেলে পুরো ধাপ কত গুণ দ্রুত (Amdahl-এর নিয়ম, বাড়তি cast-সহ)।"""
    p = plan or FP8_PLAN
    f, speedup, cast = p["matmul_share"], p["fp8_matmul_speedup"], p["cast_overhead"]
    hint = ("BF16 ধাপের সময় ১ ধরো। matmul নয় এমন অংশ (১ − matmul_share) বদলায় না; matmul-এর অংশ fp8_matmul_speedup দিয়ে "
            "ভাগ হয়; আর cast_overhead × matmul_share যোগ হয়। নতুন সময় কত? গতি = ১ ÷ নতুন সময়।")
    return check_number(answer, 1 / ((1 - f) + f / speedup + cast * f), "FP8-এ পুরো ধাপের গতি (গুণ)", hint,
                        rel_tol=1e-2)


def check_fp8_matmul_fix(fn) -> Verdict:
    """অনুশীলনী ০৭.৫: ঠিক করা fn(a, b) কয়েকটি এলোমেলো ইনপুটে mishran.fp8-এর tensorwise E4M3 matmul-এর সমান কি না।"""
    if is_blank(fn):
        return blank_verdict()
    if not callable(fn):
        return say(False, f"একটি ফাংশন চাই (a function) fn(a, b); পেয়েছি {type(fn).__name__}।")
    g = torch.Generator().manual_seed(7)
    cases = [(torch.randn(16, 32, generator=g), torch.randn(32, 8, generator=g)),
             (torch.randn(8, 64, generator=g) * 1e-4, torch.randn(64, 8, generator=g) * 30)]
    for a, b in cases:
        want = fp8.scaled_matmul(a, b, scaling="tensorwise").out
        try:
            got = fn(a.clone(), b.clone())
        except Exception as err:                       # শেখার্থীর কোডের ভুল দেখাই, চাপা দিই না
            return say(False, f"ফাংশনটি চালাতে গিয়ে ভুল: {type(err).__name__}: {err}")
        if not isinstance(got, torch.Tensor) or got.shape != want.shape:
            return say(False, f"ফল হবে {tuple(want.shape)} আকারের tensor; পেয়েছি {getattr(got, 'shape', type(got))}।")
        if not torch.allclose(got.float(), want, rtol=1e-4, atol=1e-6 * want.abs().max().item()):
            exact = a.double() @ b.double()
            err = fp8.relative_error(got, exact)
            return say(False, f"ফল মেলেনি (সঠিক ফলের তুলনায় আপেক্ষিক ত্রুটি {err:.3g})। scale কোন দিকে কাজ করে, আর "
                              "ফল আসল এককে ফেরাতে কী দিয়ে ভাগ করতে হয়, খেয়াল করো।")
    return say(True, "scale = max ÷ amax: বড় মানটিকে ফরম্যাটের max-এ তোলে; ভাগ দিয়ে আসল এককে ফেরা। উল্টো scale "
                      "সব মানকে subnormal বা শূন্যে ঠেলে দেয়।")
