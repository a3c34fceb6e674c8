"""পাঠ ০৬ (মেমরি কোথায় যায়) অনুশীলনীর যাচাই: বাজেটে ZeRO-2-এর GPU-সংখ্যা, activation-এর অনুপাত, বাজেটে কৌশল
বাছাই, ছাঁটা ওজন কখন CSR-এ ছোট হয়। ZeRO-2-এর মেমরি আসে DeepSpeed-এর নিজের estimator থেকে, বাকিটা হাতে হিসাব।
"""
from __future__ import annotations

from .core import (
    Verdict,
    as_number,
    blank_verdict,
    check_fields,
    check_number,
    choice_answer,
    dict_answer,
    is_blank,
    say,
)

__all__ = ["ACTIVATION_CHOICES", "FIT_CHOICES", "CSR_QUESTION", "check_activation_change", "check_cheapest_fit",
           "ZERO2_BUDGET", "check_zero2_gpus_for_budget", "check_csr_break_even"]


ZERO2_BUDGET = {"num_params": 7e9, "budget_gb": 24}
"""অনুশীলনী ০৬.১: ৭০০ কোটি ওজন, DeepSpeed BF16 + ZeRO-2; প্রতি GPU-তে model state-এর জন্য ২৪ GB (10^9 বাইট)।"""


def _deepspeed_zero2_gb(num_params: float, gpus: int) -> float:
    """DeepSpeed-এর নিজের estimator (offload ছাড়া): ZeRO-2-এ প্রতি GPU-তে model state, GB।"""
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    _, gpu_bytes = estimate_zero2_model_states_mem_needs(int(num_params), num_gpus_per_node=gpus, cpu_offload=False)
    return gpu_bytes / 1e9


def _zero2_truth(num_params: float, budget_gb: float) -> dict:
    """estimator দিয়ে: বাজেটে ধরে এমন সবচেয়ে কম GPU (কোনো সংখ্যাতেই না ধরলে 0), আর অনেক GPU-তে মেঝে (GB)।"""
    floor = _deepspeed_zero2_gb(num_params, 10 ** 6)
    if floor > budget_gb:
        return {"gpus": 0, "floor_gb": floor}
    low, high = 0, 1                                   # estimator-এর মান N বাড়লে কমে: দ্বিগুণ করে, তারপর দুই ভাগে খোঁজা
    while _deepspeed_zero2_gb(num_params, high) > budget_gb:
        low, high = high, 2 * high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if _deepspeed_zero2_gb(num_params, mid) > budget_gb else (low, mid)
    return {"gpus": high, "floor_gb": floor}


def _gpus_hint(gpus: float, q: dict) -> str:
    """০৬.১-এর gpus ভুল হলে কোন ইঙ্গিত: প্রবন্ধের হিসাবের (2Ψ + 14Ψ/N) উত্তর দিলে বাদ-পড়া খাতের কথা।"""
    psi = float(q["num_params"])
    room = q["budget_gb"] * 1e9 - 2 * psi
    if room > 0 and gpus == -(-14 * psi // room):
        return ("gpus: প্রবন্ধের হিসাব (2Ψ + 14Ψ/N) নিলে এমনই আসে; DeepSpeed আরও একটি খাত GPU-গুলোয় ভাগ করে রাখে, "
                "যা অংশ ১-এর খাতায় মেপেছ — optimizer-এর ধাপের আগে gradient-এর কোন কপি?")
    return ("gpus: প্রতিটি GPU-তে পুরোটা থাকে কোন খাত, আর কোনগুলো N ভাগ হয়? পুরোটা যা থাকে, তা বাজেট থেকে আগে বাদ "
            "দাও; বাকিটা দিয়ে ভাগ-হওয়া অংশ ধরাতে N কত লাগে? GPU পূর্ণসংখ্যা।")


def check_zero2_gpus_for_budget(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৬.১ (বাজেটে বাছাই): DeepSpeed BF16 + ZeRO-2-এ model state প্রতি GPU-তে budget_gb-এ ধরাতে অন্তত কয়টি
    GPU (কোনো সংখ্যাতেই না ধরলে 0), আর GPU যত খুশি বাড়ালেও প্রতি GPU-র model state কত GB-র নিচে নামে না;
    উত্তর {"gpus": ..., "floor_gb": ...}।"""
    q = question or ZERO2_BUDGET
    values, early = dict_answer(answer, ("gpus", "floor_gb"), need="দুটোই সংখ্যা চাই (numbers)")
    if early is not None:
        return early
    truth = _zero2_truth(q["num_params"], q["budget_gb"])
    hints = {"gpus": _gpus_hint(values["gpus"], q),
             "floor_gb": "floor_gb: N অনেক বড় হলে ভাগ-হওয়া অংশ শূন্যের দিকে যায়; কোন অংশ কখনো ভাগ হয় না?"}
    return check_fields(values, truth, hints, rel_tol={"floor_gb": 0.02},
                        right="ZeRO-2 ভাগ করে gradient আর optimizer-এর সব কিছু, কিন্তু ১৬-বিট ওজন প্রতিটি GPU-তে পুরোটা থাকে: "
                        "সেটাই মেঝে। বাজেট মেঝের কাছে হলে GPU বাড়িয়ে লাভ দ্রুত কমে; মেঝের নিচে বাজেট মানে ZeRO-3, যা "
                        "ওজনও ভাগ করে।")


ACTIVATION_CHOICES = {
    "A": "প্রায় একই থাকে",
    "B": "প্রায় দ্বিগুণ হয়",
    "C": "প্রায় অর্ধেক হয়",
    "D": "প্রায় চারগুণ হয়",
}
_ACTIVATION_ANSWER = "A"


def check_activation_change(answer) -> Verdict:
    """অনুশীলনী ০৬.২: ব্যাচ অর্ধেক আর sequence দ্বিগুণ করলে activation-এর বাইট কী হয় (SDPA, T×T রাখা হয় না)।"""
    key, early = choice_answer(answer, ACTIVATION_CHOICES, fold=str.upper)
    if early is not None:
        return early
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
    """যেগুলো ধরে তাদের মধ্যে যেটার ধাপ সবচেয়ে কম ধীর (এক GPU, mixed precision Adam, প্রবন্ধের 16Ψ; offload-এ
    GPU-তে যা থাকে, তা DeepSpeed-এর নিজের estimator থেকে)।"""
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    psi = float(num_params) / 1e9
    _, offload_bytes = estimate_zero2_model_states_mem_needs(int(num_params), num_gpus_per_node=1, cpu_offload=True)
    states = {"A": 16 * psi, "B": 16 * psi, "C": offload_bytes / 1e9, "D": offload_bytes / 1e9}
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
    key, early = choice_answer(answer, FIT_CHOICES, fold=str.upper)
    if early is not None:
        return early
    if key == _fit_answer(num_params, gpu_gb, activation_gb, ckpt_keep, ckpt_time, offload_time):
        return say(True, "যেগুলো ধরে, তার মধ্যে এটার দাম (ধাপের সময়) সবচেয়ে কম।")
    return say(False, "প্রতিটি পথের জন্য দুটি সংখ্যা লেখো: GPU-তে model state (mixed precision Adam-এ ওজনপ্রতি ১৬ "
                      "বাইট; offload-এ GPU-তে কতটা থাকে, অংশ ৪-এ DeepSpeed-এর estimator-এর offload-সহ সারি দেখো) আর "
                      "activation (checkpointing-এ তার কত ভাগ থাকে?)। যেগুলো GPU-তে ধরে, তাদের মধ্যে সময়ের দাম তুলনা "
                      "করো।")


CSR_QUESTION = {"value_bytes": 2, "index_bytes": 8}
"""অনুশীলনী ০৬.৪: ছাঁটা FP16 ওজন CSR-এ — প্রতিটি শূন্য-নয় মানের জন্য মান (২ বাইট) আর কলামের নম্বর (int64, ৮ বাইট)।"""


def check_csr_break_even(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৬.৪: অন্তত কত ভাগ ওজন শূন্য হলে CSR dense-এর চেয়ে ছোট (সারির pointer বাদে); ভগ্নাংশ বা শতাংশ।"""
    q = question or CSR_QUESTION
    if is_blank(answer):
        return blank_verdict()
    share = as_number(answer.strip()[:-1]) if isinstance(answer, str) and answer.strip().endswith("%") else None
    if share is not None:
        answer = share / 100                          # "80%" লিখলে ০.৮
    if isinstance(answer, (int, float)) and not isinstance(answer, bool) and 1 < answer <= 100:
        answer = answer / 100                         # ৮০ লিখলে ৮০%
    dense = q["value_bytes"]
    hint = ("dense-এ প্রতিটি ওজন কত বাইট নেয়, আর CSR-এ প্রতিটি শূন্য-নয় ওজন কত (মান + কলামের নম্বর)? ঘনত্ব d হলে "
            "CSR-এর বাইট ওজনপ্রতি d × (দুটোর যোগফল); কোন d-তে সেটা dense-এর সমান? শূন্যের ভাগ = ১ − d।")
    return check_number(answer, 1 - dense / (q["value_bytes"] + q["index_bytes"]),
                        "CSR ছোট হওয়ার জন্য শূন্যের ন্যূনতম ভাগ", hint, rel_tol=1e-2)
