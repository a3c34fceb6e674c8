"""পাঠ ০৬ (মেমরি কোথায় যায়) অনুশীলনীর যাচাই: model state-এর GB, activation-এর অনুপাত, বাজেটে কৌশল বাছাই,
ছাঁটা ওজন কখন CSR-এ ছোট হয়।"""
from __future__ import annotations

from .core import Verdict, as_number, blank_verdict, check_number, is_blank, say

__all__ = [
    "ACTIVATION_CHOICES",
    "FIT_CHOICES",
    "CSR_QUESTION",
    "check_activation_change",
    "check_cheapest_fit",
    "check_zero2_gb_per_gpu",
    "check_csr_break_even",
]


def check_zero2_gb_per_gpu(num_params: float, gpus: int, answer) -> Verdict:
    """অনুশীলনী ০৬.১: DeepSpeed BF16 + ZeRO-2-এ প্রতি GPU-তে model state কত GB (10^9 বাইট), activation বাদে।"""
    if is_blank(answer):
        return blank_verdict()
    psi = float(num_params)
    paper = (2 + 14 / gpus) * psi / 1e9
    value = as_number(answer)
    if value is not None and abs(value - paper) <= 5e-3 * paper:
        return say(False, "এটা প্রবন্ধের হিসাব (2Ψ + 14Ψ/N)। DeepSpeed আরও একটি খাত রাখে, যা অংশ ১-এর খাতায় মেপেছ — "
                          "optimizer-এর ধাপের আগে gradient-এর কোন কপি?")
    return check_number(answer, (2 + 18 / gpus) * psi / 1e9, f"Ψ = {psi:g}, {gpus} GPU, ZeRO-2 (GB/GPU)",
                        "অংশ ১-এর খাতায় DeepSpeed-এর প্রতিটি খাত দেখো: কোনটি প্রতিটি GPU-তে পুরোটা থাকে, আর কোনগুলো "
                        "GPU-র সংখ্যায় ভাগ হয়?", rel_tol=5e-3)


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


FIT_CHOICES = {
    "A": "কিছুই লাগবে না, এমনিতেই ধরে",
    "B": "শুধু activation checkpointing",
    "C": "শুধু ZeRO-Offload (optimizer → CPU)",
    "D": "checkpointing আর ZeRO-Offload দুটোই",
}


def _fit_answer(num_params: float, gpu_gb: float, activation_gb: float, ckpt_keep: float,
                ckpt_time: float, offload_time: float) -> str:
    """যেগুলো ধরে তাদের মধ্যে যেটার ধাপ সবচেয়ে কম ধীর (এক GPU, mixed precision Adam, প্রবন্ধের 16Ψ)।"""
    psi = float(num_params) / 1e9
    # offload: DeepSpeed-এর estimator (estimate_zero2_model_states_mem_needs, cpu_offload=True) GPU-তে শুধু
    # ১৬-বিট ওজন গোনে, 2Ψ — gradient bucket ধরে CPU-তে যায়, bucket-এর মাপ Ψ-এর সঙ্গে বাড়ে না
    states = {"A": 16 * psi, "B": 16 * psi, "C": 2 * psi, "D": 2 * psi}
    acts = {"A": activation_gb, "B": ckpt_keep * activation_gb, "C": activation_gb,
            "D": ckpt_keep * activation_gb}
    cost = {"A": 1.0, "B": ckpt_time, "C": offload_time, "D": ckpt_time * offload_time}
    fits = [k for k in FIT_CHOICES if states[k] + acts[k] <= gpu_gb]
    if not fits:
        raise ValueError("কোনো পথেই ধরে না (nothing fits); অন্য সংখ্যা দাও")
    return min(fits, key=cost.get)


def check_cheapest_fit(num_params: float, gpu_gb: float, activation_gb: float, ckpt_keep: float,
                       ckpt_time: float, offload_time: float, answer) -> Verdict:
    """অনুশীলনী ০৬.৩ (বাজেটে বাছাই): এক GPU-তে ধরে এমন পথগুলোর মধ্যে কোনটায় ধাপ সবচেয়ে কম ধীর।"""
    if is_blank(answer):
        return blank_verdict()
    key = str(answer).strip().upper()
    if key not in FIT_CHOICES:
        return say(False, f"উত্তর হবে {', '.join(FIT_CHOICES)}-এর একটি; পেয়েছি {answer!r}।")
    if key == _fit_answer(num_params, gpu_gb, activation_gb, ckpt_keep, ckpt_time, offload_time):
        return say(True, "যেগুলো ধরে, তার মধ্যে এটার দাম (ধাপের সময়) সবচেয়ে কম।")
    return say(False, "প্রতিটি পথের জন্য দুটি সংখ্যা লেখো: GPU-তে model state (mixed precision Adam-এ ওজনপ্রতি ১৬ "
                      "বাইট; offload-এ DeepSpeed-এর estimator GPU-তে কত গোনে, অংশ ৪-এর ছাপা সারণির offload সারি "
                      "দেখো) আর activation (checkpointing-এ তার কত ভাগ থাকে?)। যেগুলো GPU-তে ধরে, তাদের মধ্যে "
                      "মাপা সময়ের দাম তুলনা করো।")


CSR_QUESTION = {"value_bytes": 2, "index_bytes": 8}
"""অনুশীলনী ০৬.৪: ছাঁটা FP16 ওজন CSR-এ — প্রতিটি শূন্য-নয় মানের জন্য মান (২ বাইট) আর কলামের নম্বর (torch-এর ডিফল্ট
int64, ৮ বাইট; int32-এ ৪)।"""


def check_csr_break_even(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৬.৪: অন্তত কত ভাগ ওজন শূন্য হলে CSR dense-এর চেয়ে ছোট (সারির pointer বাদে); ভগ্নাংশ বা শতাংশ।"""
    q = question or CSR_QUESTION
    if is_blank(answer):
        return blank_verdict()
    if isinstance(answer, (int, float)) and not isinstance(answer, bool) and 1 < answer <= 100:
        answer = answer / 100                         # ৮০ লিখলে ৮০%
    dense = q["value_bytes"]
    hint = ("dense-এ প্রতিটি ওজন কত বাইট নেয়, আর CSR-এ প্রতিটি শূন্য-নয় ওজন কত (মান + কলামের নম্বর)? ঘনত্ব d হলে "
            "CSR-এর বাইট ওজনপ্রতি d × (দুটোর যোগফল); কোন d-তে সেটা dense-এর সমান? শূন্যের ভাগ = ১ − d।")
    return check_number(answer, 1 - dense / (q["value_bytes"] + q["index_bytes"]),
                        "CSR ছোট হওয়ার জন্য শূন্যের ন্যূনতম ভাগ", hint, rel_tol=1e-2)
