"""পাঠ ০০ (শুরুর কথা) অনুশীলনীর যাচাই: মেমরির বাজেট, মেপে মেলানো অনুমান, autocast-এর ত্রুটি।

উত্তর কোথাও লেখা নেই: প্রতিটি check সত্যটা নিজেই বের করে — model state-এর বাইট torch-এর element_size থেকে,
autocast-এর cast cache একটি Linear চালিয়ে backward-এর জন্য রাখা tensor গুনে, অনুমানের উত্তর mishran.measure.memory দিয়ে
মেপে, ত্রুটি autocast চালিয়ে।
"""
from __future__ import annotations

import torch

from .core import Verdict, choice_answer, say

__all__ = ["MODEL_CHOICES", "GROWTH_CHOICES", "FORMAT_CHOICES", "REASON_CHOICES", "check_largest_model",
           "check_batch_prediction", "check_smaller_error"]

MODEL_CHOICES = ("350M", "700M", "1B", "1.3B", "2B")
"""অনুশীলনী ০০.১-এর বিকল্প: ওজনের সংখ্যা (M = ১০ লক্ষ, B = ১০০ কোটি)।"""
GROWTH_CHOICES = ("অর্ধেক", "একই", "দ্বিগুণ", "চার গুণ")
"""অনুশীলনী ০০.২-এর বিকল্প: ব্যাচ দ্বিগুণ করলে একটি মাপ কী হয়।"""
FORMAT_CHOICES = ("fp16", "bf16")
"""অনুশীলনী ০০.৩-এর বিকল্প।"""
REASON_CHOICES = ("exponent", "mantissa", "মোট বিট")
"""অনুশীলনী ০০.৩-এর কারণ: বিট-চিত্রের কোন অংশ এই ত্রুটি ঠিক করে।"""

_SIZE = {"M": 10 ** 6, "B": 10 ** 9}


def _params(choice: str) -> int:
    return round(float(choice[:-1]) * _SIZE[choice[-1]])


def _adam_state_bytes_per_param() -> int:
    """Adam-সহ প্রশিক্ষণে model state, প্রতি ওজনে: FP32 ওজন + FP32 gradient + দুই FP32 moment।
    AMP (autocast)-এ ওজন FP32-ই থাকে, তাই একই সংখ্যা।"""
    return 4 * torch.empty(0, dtype=torch.float32).element_size()


def _cast_copy_bytes_per_param(dtype: torch.dtype = torch.bfloat16) -> float:
    """autocast-এর cast cache, প্রতি matmul-ওজনে কত বাইট: একটি Linear autocast-এ চালিয়ে backward-এর জন্য রাখা
    ওজনের ১৬-বিট কপি গোনা (mishran.measure.memory.SavedTensorCounter)। ইনপুটের gradient লাগে বলে matmul কপিটা রেখে দেয়।"""
    from mishran.measure.memory import SavedTensorCounter

    layer = torch.nn.Linear(64, 64, bias=False)
    x = torch.randn(4, 64, requires_grad=True)
    with SavedTensorCounter(layer) as counter, torch.autocast("cpu", dtype=dtype):
        layer(x)
    return counter.cast_cache / layer.weight.numel()


def check_largest_model(answer, gpu_gib: float = 24, activation_gib: float = 8) -> Verdict:
    """অনুশীলনী ০০.১: GPU-র মেমরিতে (activation-এর জায়গা রেখে) Adam + AMP-এ সবচেয়ে বড় কোন মডেল আঁটে।

    activation_gib শুধু activation-এর; autocast-এর cast cache (ওজনের ১৬-বিট কপি, forward থেকে backward পর্যন্ত
    থাকে) তার বাইরে, model state-এর সঙ্গে বাকি জায়গায় — পাঠ ০৩-এর অনুশীলনী ২-এর মতোই আলাদা গোনা।
    মডেলের প্রায় সব ওজন matmul-এর (Linear) বলে ধরা হয়।"""
    answer, early = choice_answer(answer, MODEL_CHOICES, "মডেলের মাপ")
    if early is not None:
        return early
    budget = (gpu_gib - activation_gib) * 2 ** 30
    states = _adam_state_bytes_per_param()
    per_param = states + _cast_copy_bytes_per_param()
    fits = [c for c in MODEL_CHOICES if _params(c) * per_param <= budget]
    best = max(fits, key=_params) if fits else None
    if answer == best:
        return say(True, "এই মডেলের model state আর cast cache মিলিয়ে বাজেটে আঁটে, আর এর পরেরটা আঁটে না।")
    if _params(answer) * states <= budget < _params(answer) * per_param:
        return say(False, "শুধু model state ধরলে আঁটে, কিন্তু AMP-এ আরও একটি জিনিস মডেলের মাপে বাড়ে আর forward থেকে "
                          "backward পর্যন্ত থাকে — activation-এর বাজেটে সেটা ধরা নেই। ওপরের মাপা সারণির খাতগুলো আবার "
                          "দেখো।")
    if _params(answer) * per_param > budget:
        return say(False, "এই মডেল বাজেট ছাড়িয়ে যায়। Adam-সহ প্রতি ওজনে কত বাইট — ওজন, gradient আর "
                          "optimizer-এর অবস্থা মিলিয়ে — আর AMP-এ তার কোনটা সত্যিই ১৬-বিট, ওপরের মাপা সারণি দেখে আবার "
                          "হিসাব করো।")
    return say(False, "এটা আঁটে, কিন্তু আরও বড় একটা বিকল্পও আঁটে। বাজেট ÷ (প্রতি ওজনে বাইট) হিসাব করো।")


def _measure(batch_size: int, seq_len: int = 32):
    """ছোট TinyGPT-এ AMP (BF16, CPU) এক ধাপ মেপে (model state বাইট, activation বাইট)।"""
    from mishran.data import CharDataset
    from mishran.measure.memory import measure_step
    from mishran.models.gpt import GPTConfig, TinyGPT

    data = CharDataset()
    x, y = data.get_batch("train", batch_size, seq_len, generator=torch.Generator().manual_seed(0))
    model = TinyGPT(GPTConfig(vocab_size=data.vocab_size, block_size=seq_len, n_layer=2, n_embd=64), seed=0)
    ledger = measure_step(model, (x, y), mode="amp_bf16")
    return ledger.model_states, ledger.activations


def _nearest(ratio: float) -> str:
    factors = dict(zip(GROWTH_CHOICES, (0.5, 1.0, 2.0, 4.0), strict=True))
    return min(factors, key=lambda k: abs(factors[k] - ratio) / factors[k])


def check_batch_prediction(states, activations, batch_size: int = 4) -> Verdict:
    """অনুশীলনী ০০.২: ব্যাচ দ্বিগুণ করলে model state আর activation কী হয় — অনুমান, তারপর মেপে যাচাই।"""
    for value in (states, activations):
        _, early = choice_answer(value, GROWTH_CHOICES, "অনুমান")
        if early is not None:
            return early
    s1, a1 = _measure(batch_size)
    s2, a2 = _measure(2 * batch_size)
    truth = (_nearest(s2 / s1), _nearest(a2 / a1))
    if (states, activations) == truth:
        return say(True, "তোমার দুই অনুমানই মাপের সঙ্গে মিলেছে।")
    wrong = "model state" if states != truth[0] else "activation"
    return say(False, f"{wrong}-এর অনুমান মাপের সঙ্গে মেলেনি। ভাবো: কোনটা মডেলের মাপের ওপর নির্ভর করে, আর কোনটা "
                      "প্রতিটি উদাহরণের (sample) জন্য আলাদা করে রাখতে হয়?")


def _autocast_error(dtype: torch.dtype) -> float:
    torch.manual_seed(0)
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    exact = a @ b
    with torch.autocast("cpu", dtype=dtype):
        c = a @ b
    return ((c.float() - exact).abs().max() / exact.abs().max()).item()


def check_smaller_error(answer, reason) -> Verdict:
    """অনুশীলনী ০০.৩: একই matmul-এ autocast FP16 আর BF16 — কোনটির ত্রুটি কম, আর বিট-চিত্রের কোন অংশ তা ঠিক করে
    (অনুমান, তারপর CPU-তে চালিয়ে)। ভুল উত্তরে মতামত অন্য বিকল্পের নাম বলে না: দুই বিকল্পের প্রশ্নে সেটাই উত্তর।"""
    answer, early = choice_answer(answer, FORMAT_CHOICES, "ফরম্যাট")
    if early is not None:
        return early
    reason, early = choice_answer(reason, REASON_CHOICES, "কারণ")
    if early is not None:
        return early
    errors = {"fp16": _autocast_error(torch.float16), "bf16": _autocast_error(torch.bfloat16)}
    truth = min(errors, key=errors.get)
    if reason == "exponent":           # ফরম্যাট যা-ই হোক একই কথা, যাতে মতামত ফরম্যাটের উত্তর না বলে
        return say(False, "exponent-এর বিট কী ঠিক করে, বিট-চিত্রে দেখো: সবচেয়ে বড় আর সবচেয়ে ছোট সংখ্যা, মানে "
                          "পরিসর। এই matmul-এর মানগুলো দুই ফরম্যাটেরই পরিসরের অনেক ভেতরে; ত্রুটি আসে round করা "
                          "থেকে — পাশাপাশি দুটি সংখ্যার দূরত্ব কোন অংশ ঠিক করে?")
    if reason == "মোট বিট":
        return say(False, "দুটো ফরম্যাটই ১৬ বিটের; তফাত শুধু কোন অংশে কয়টি বিট। বিট-চিত্রে দুটোকে পাশাপাশি রেখে দেখো।")
    if answer == truth:
        return say(True, "চালিয়ে দেখা গেল, এই ফরম্যাটেই ত্রুটি কম, আর কারণটাও ঠিক।")
    return say(False, "কারণটা ঠিক পথে, কিন্তু বেছে নেওয়া ফরম্যাট সেই কারণের সঙ্গে মেলে না: বিট-চিত্রে দুই ফরম্যাটের "
                      "mantissa-র বিট গুনে লেখো, তারপর আবার মেলাও।")
