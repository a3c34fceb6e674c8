"""পাঠ ০৭ (গতি আর FP8) অনুশীলনীর যাচাই: checkpointing-এ MFU, ভাগ-করা head-এর vocab, FP8-এর scale, FP8-এ পুরো ধাপের
গতি (Amdahl), ভুল খোঁজা। FLOP গোনে torch-এর FlopCounterMode, vocab ভাগ করে torch.chunk, FP8-এর rounding
mishran.numerics.fp8।
"""
from __future__ import annotations

import functools
import math

import torch

from mishran.numerics import fp8
from mishran.numerics.error import relative_error

from .core import Verdict, blank_verdict, check_number, finite_number, function_answer, is_blank, number_answer, say

__all__ = ["BUGGY_FP8_MATMUL", "FP8_EXAMPLE", "FP8_PLAN", "MFU_QUESTION", "VOCAB_QUESTION", "check_fp8_step_speedup",
           "check_fp8_roundtrip", "check_fp8_matmul_fix", "check_mfu_with_checkpointing", "check_sharded_vocab"]

MFU_QUESTION = {"mfu": 0.45, "batch": 2,
                "model": {"vocab_size": 64, "block_size": 32, "n_layer": 2, "n_head": 2, "n_embd": 64}}
"""অনুশীলনী ০৭.১: checkpointing ছাড়া MFU ৪৫%; মডেল এই মাপের TinyGPT, ব্যাচ ২ — checkpointing চালু করলে MFU কত।"""

VOCAB_QUESTION = {"tokens": 50001, "multiple": 128, "shards": 8}
"""অনুশীলনী ০৭.২: 50001টি token; head-এর সারি ৮টি GPU-তে সমান ভাগ (tensor parallel), প্রতিটি ভাগ ১২৮-এর গুণিতক।"""

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


def _step_flops(model_size: dict, batch: int, checkpoint: bool) -> int:
    """TinyGPT-এর এক ধাপে (forward + backward) যন্ত্র কত FLOP চালায়, FlopCounterMode দিয়ে গোনা (CPU-তে)।"""
    from torch.utils.flop_counter import FlopCounterMode

    from mishran.models.gpt import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(**model_size, checkpoint=checkpoint), seed=0)
    x = torch.randint(0, model_size["vocab_size"], (batch, model_size["block_size"]),
                      generator=torch.Generator().manual_seed(0))
    with FlopCounterMode(display=False) as counter:
        _, loss = model(x, x)
        loss.backward()
    return counter.get_total_flops()


@functools.lru_cache(maxsize=4)      # একই প্রশ্নে আবার চেষ্টা করলে আবার গুনতে হয় না
def _executed_over_model_flops(model_items: tuple, batch: int) -> float:
    size = dict(model_items)
    return _step_flops(size, batch, checkpoint=True) / _step_flops(size, batch, checkpoint=False)


def check_mfu_with_checkpointing(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৭.১: checkpointing চালু করলে (যন্ত্র একই হারে FLOP করে, ধাপ লম্বা হয়) MFU কত; ভগ্নাংশ (0.3) বা
    শতাংশ (30) দুটোই চলে। সত্যটা FlopCounterMode-এ দুই রকম মডেলের এক ধাপ গুনে।"""
    value, early = number_answer(answer, "একটি সংখ্যা চাই (a number), যেমন 0.3 বা 30 (%)")
    if early is not None:
        return early
    q = question or MFU_QUESTION
    value = value / 100 if value > 1 else value
    ratio = _executed_over_model_flops(tuple(sorted(q["model"].items())), q["batch"])
    truth = q["mfu"] / ratio
    if math.isclose(value, truth, rel_tol=0.02):
        return say(True, f"checkpointing-এ যন্ত্র মডেলের দরকারি FLOP-এর {ratio:.2f} গুণ চালায় — পুরো একটি forward বেশি "
                          "নয়, কারণ PyTorch-এর checkpoint backward-এর দরকারি tensor ফিরে পাওয়া মাত্র আবার-চালানো থামায় "
                          "(block-এর শেষ matmul আবার চলে না)। MFU তাই কমে, যদিও যন্ত্র সমান ব্যস্ত: যন্ত্র যা চালায় তার "
                          "মাপ HFU (hardware FLOPs utilization), MFU গোনে শুধু মডেলের দরকারি কাজ।")
    if math.isclose(value, q["mfu"], rel_tol=0.02) or value > q["mfu"]:
        return say(False, "MFU-র লবে কোন FLOP — মডেলের দরকারি, না যন্ত্র যা চালায়? checkpointing-এ লব বদলায় কি, আর "
                          "ধাপের সময়?")
    if math.isclose(value, 0.75 * q["mfu"], rel_tol=0.02):
        return say(False, "অনুমানটা ধরে নিয়েছে backward-এ পুরো forward আবার চলে। সত্যিই কতটা চলে, FlopCounterMode দিয়ে "
                          "দুই রকম মডেলের (checkpoint=False আর True) এক ধাপ গুনে দেখো।")
    return say(False, "ধাপ কত গুণ লম্বা হয় = যন্ত্র যত FLOP চালায় ÷ মডেলের দরকারি FLOP (যন্ত্রের হার একই)। দুটোই "
                      "FlopCounterMode দিয়ে গোনা যায়; তারপর MFU-র সংজ্ঞায় বসাও।")


def _shard_sizes(vocab: int, shards: int) -> list[int]:
    """head-এর vocab সারি torch.chunk দিয়ে shards ভাগ করলে প্রতিটি GPU-র ভাগের মাপ।"""
    return [len(part) for part in torch.arange(vocab).chunk(shards)]


def _fits_shards(vocab: int, multiple: int, shards: int) -> bool:
    sizes = _shard_sizes(vocab, shards)
    return len(sizes) == shards and len(set(sizes)) == 1 and sizes[0] % multiple == 0


def check_sharded_vocab(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৭.২: সব token রাখে, shards-টি GPU-তে সমান ভাগ হয়, আর প্রতিটি ভাগ multiple-এর গুণিতক — এমন
    সবচেয়ে ছোট vocab। সত্যটা token-এর সংখ্যা থেকে একে একে ভাগ করে খুঁজে।"""
    if is_blank(answer):
        return blank_verdict()
    q = question or VOCAB_QUESTION
    tokens, k, shards = q["tokens"], q["multiple"], q["shards"]
    value = finite_number(answer)
    if value is None or value != int(value):
        return say(False, f"একটি পূর্ণসংখ্যা চাই (an integer); পেয়েছি {answer!r}।", form=True)
    value = int(value)
    best = next(v for v in range(tokens, tokens + k * shards + 1) if _fits_shards(v, k, shards))
    if value == best:
        return say(True, f"{value} সারি {shards} ভাগে: প্রতিটি GPU পায় {value // shards} = {value // shards // k} × {k}; "
                          f"বাড়তি মাত্র {value - tokens}টি সারি। ভাগ না করলে যা চলত, ভাগের পরে প্রতিটি GPU-র নিজের "
                          "matmul-এ তা আর tensor core-এর মাপে থাকে না — তাই গুণিতক হয় ভাগের সংখ্যা × ১২৮।")
    if value < tokens:
        return say(False, f"{value}টি সারিতে {tokens}টি token আঁটে না — কিছু token-এর কোনো logit থাকবে না।")
    if value > 2 * tokens:
        return say(False, f"{value}টি সারি? সব token রাখতে এর অনেক কম লাগে — শর্তগুলো মানে এমন সবচেয়ে ছোট মাপ খোঁজো।")
    if not _fits_shards(value, k, shards):
        sizes = sorted(set(_shard_sizes(value, shards)))
        return say(False, f"{value} সারি {shards}টি GPU-তে ভাগ করলে ভাগগুলো {sizes} সারির — প্রতিটি GPU-র matmul কি "
                          f"{k}-এর গুণিতকে থাকে?")
    return say(False, f"{value} চলে, কিন্তু এর চেয়ে ছোট একটি মাপও সব শর্ত মানে।")


def check_fp8_roundtrip(scale, restored) -> Verdict:
    """অনুশীলনী ০৭.৩: FP8_EXAMPLE-এর tensorwise scale, আর প্রথম সংখ্যাটি scale → E5M2 → unscale করে কী ফেরে।"""
    if is_blank(scale) or is_blank(restored):
        return blank_verdict()
    x = torch.tensor(FP8_EXAMPLE["values"])
    fmt = FP8_EXAMPLE["format"]
    want_scale = fp8.compute_scale(fp8.amax(x), fmt).item()
    want_back = (fp8.quantize(x, fmt, want_scale)[0] / want_scale).item()
    s, r = finite_number(scale), finite_number(restored)
    if s is None or r is None:
        return say(False, f"দুটোই সংখ্যা চাই (numbers); পেয়েছি scale={scale!r}, restored={restored!r}।", form=True)
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
    """অনুশীলনী ০৭.৫: ঠিক করা fn(a, b) কয়েকটি এলোমেলো ইনপুটে mishran.numerics.fp8-এর tensorwise E4M3 matmul-এর সমান কি না।"""
    early = function_answer(fn, "fn(a, b)")
    if early is not None:
        return early
    g = torch.Generator().manual_seed(7)
    cases = [(torch.randn(16, 32, generator=g), torch.randn(32, 8, generator=g)),
             (torch.randn(8, 64, generator=g) * 1e-4, torch.randn(64, 8, generator=g) * 30)]
    for a, b in cases:
        want = fp8.scaled_matmul(a, b, scaling="tensorwise").out
        try:
            got = fn(a.clone(), b.clone())
        except Exception as err:                       # শিক্ষার্থীর কোডের ভুল দেখাই, চাপা দিই না
            return say(False, f"ফাংশনটি চালাতে গিয়ে ভুল: {type(err).__name__}: {err}")
        if not isinstance(got, torch.Tensor) or got.shape != want.shape:
            return say(False, f"ফল হবে {tuple(want.shape)} আকারের tensor; পেয়েছি {getattr(got, 'shape', type(got))}।")
        if not torch.allclose(got.float(), want, rtol=1e-4, atol=1e-6 * want.abs().max().item()):
            exact = a.double() @ b.double()
            err = relative_error(got, exact)
            return say(False, f"ফল মেলেনি (সঠিক ফলের তুলনায় আপেক্ষিক ত্রুটি {err:.3g})। scale কোন দিকে কাজ করে, আর "
                              "ফল আসল এককে ফেরাতে কী দিয়ে ভাগ করতে হয়, খেয়াল করো।")
    return say(True, "scale = max ÷ amax: বড় মানটিকে ফরম্যাটের max-এ তোলে; ভাগ দিয়ে আসল এককে ফেরা। উল্টো scale "
                      "সব মানকে subnormal বা শূন্যে ঠেলে দেয়।")
