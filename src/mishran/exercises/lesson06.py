"""পাঠ ০৬ (মেমরি কোথায় যায়) অনুশীলনীর যাচাই: model state-এর GB, activation-এর অনুপাত, বাজেটে ZeRO stage,
pruning-এর দাবি।"""
from __future__ import annotations

from .core import Verdict, blank_verdict, check_number, is_blank, say

__all__ = [
    "ACTIVATION_CHOICES",
    "PRUNING_CLAIMS",
    "check_activation_change",
    "check_fp32_adam_gb",
    "check_pruning_claim",
    "check_zero_stage_that_fits",
]


def check_fp32_adam_gb(num_params: float, answer) -> Verdict:
    """অনুশীলনী ০৬.১: FP32 ওজন + Adam-এ model state কত GB (10^9 বাইট), activation বাদে।"""
    hint = ("খাতার চারটি খাত ওজনপ্রতি বাইটে গোনো: ওজন, gradient, আর Adam-এর দুটি moment — সবই FP32, প্রতিটি ৪ বাইট। "
            "তারপর ওজনের সংখ্যা দিয়ে গুণ, 10^9 দিয়ে ভাগ।")
    return check_number(answer, 16 * float(num_params) / 1e9, f"Ψ = {num_params:g}, FP32 + Adam-এ model state (GB)",
                        hint, rel_tol=5e-3)


ACTIVATION_CHOICES = {
    "A": "প্রায় একই থাকে",
    "B": "প্রায় দ্বিগুণ হয়",
    "C": "প্রায় অর্ধেক হয়",
    "D": "প্রায় চারগুণ হয়",
}
_ACTIVATION_ANSWER = "A"


def check_activation_change(answer) -> Verdict:
    """অনুশীলনী ০৬.২: ব্যাচ অর্ধেক আর sequence দ্বিগুণ করলে activation-এর বাইট কী হয় (SDPA, T×T রাখা হয় না)।"""
    if is_blank(answer):
        return blank_verdict()
    key = str(answer).strip().upper()
    if key not in ACTIVATION_CHOICES:
        return say(False, f"উত্তর হবে {', '.join(ACTIVATION_CHOICES)}-এর একটি; পেয়েছি {answer!r}।")
    if key == _ACTIVATION_ANSWER:
        return say(True, "activation বাড়ে B × T-এর সঙ্গে (এখানে T×T attention matrix রাখা হয় না), আর B × T বদলায়নি।")
    return say(False, "অংশ ২-এর মাপ দুটি আবার দেখো: activation ব্যাচের সঙ্গে কীভাবে বাড়ে, আর sequence-এর সঙ্গে কীভাবে? "
                      "দুটি বদল একসঙ্গে করলে গুণফল কী দাঁড়ায়?")


def _zero_per_gpu(psi: float, stage: int, n: int) -> float:
    return {0: 16 * psi, 1: 4 * psi + 12 * psi / n, 2: 2 * psi + 14 * psi / n, 3: 16 * psi / n}[stage]


def check_zero_stage_that_fits(num_params: float, num_gpus: int, gpu_gb: float, activation_gb: float,
                               answer) -> Verdict:
    """অনুশীলনী ০৬.৩: model state (প্রবন্ধের সূত্র) + activation একটি GPU-তে ধরে এমন সবচেয়ে ছোট ZeRO stage।"""
    fits = [s for s in (0, 1, 2, 3) if _zero_per_gpu(num_params, s, num_gpus) / 1e9 + activation_gb <= gpu_gb]
    if not fits:
        raise ValueError("এই সংখ্যায় কোনো stage-এই ধরে না; অন্য সংখ্যা দাও")
    hint = ("প্রতিটি stage-এর জন্য প্রতি GPU-র model state হিসাব করো (অংশ ৪-এর সূত্র), activation যোগ করো, আর GPU-র "
            "মেমরির সঙ্গে মেলাও। সবচেয়ে ছোট যে stage-এ যোগফল ধরে, সেটাই উত্তর — বড় stage মানে বেশি যোগাযোগ।")
    return check_number(answer, fits[0], f"{num_gpus}টি {gpu_gb:g} GB GPU-তে ধরে এমন সবচেয়ে ছোট ZeRO stage", hint)


PRUNING_CLAIMS = {
    "A": "ওজনের অর্ধেক শূন্য, তাই মডেল আর GPU মেমরি অর্ধেক লাগে",
    "B": "শূন্য দিয়ে গুণ বাদ যায়, তাই matmul প্রায় দ্বিগুণ দ্রুত",
    "C": "সাধারণ (dense) tensor-এ মেমরি আর সময় একই থাকে; লাভ পেতে sparse রূপে রাখতে হয়, বা 2:4-এর মতো নকশা যা hardware চেনে",
    "D": "শূন্যগুলো gradient পায় না, তাই training-এর মেমরি অর্ধেক হয়",
}
_PRUNING_ANSWER = "C"


def check_pruning_claim(answer) -> Verdict:
    """অনুশীলনী ০৬.৪: ৫০% unstructured pruning একটি dense tensor-এ কী কেনে।"""
    if is_blank(answer):
        return blank_verdict()
    key = str(answer).strip().upper()
    if key not in PRUNING_CLAIMS:
        return say(False, f"উত্তর হবে {', '.join(PRUNING_CLAIMS)}-এর একটি; পেয়েছি {answer!r}।")
    if key == _PRUNING_ANSWER:
        return say(True, "শূন্যও একটি সংখ্যা: dense tensor-এ সেটিও ৪ (বা ২) বাইট নেয়, আর matmul তাকে দিয়েও গুণ করে।")
    return say(False, "অংশ ৭-এ মাপা সংখ্যাগুলো দেখো: pruning-এর পরে tensor-এর বাইট আর forward-এর সময় কি বদলেছিল? "
                      "শূন্য মান রাখতে dense tensor-এর কত বাইট লাগে?")
