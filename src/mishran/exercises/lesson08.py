"""পাঠ ০৮ (capstone) অনুশীলনীর যাচাই: BF16-এ জমানো held-out-এর মাপ, মেমরি আর যোগাযোগের বাজেটে ব্যাচের পরিকল্পনা,
FP32 বনাম BF16-এর রেখা, top-k = 1। ভুল লুপের ছাপা bpc আসে torch-এ সত্যিই BF16-এ যোগ করে, বাজেটের উত্তর সব বিকল্প খুঁজে।
"""
from __future__ import annotations

import math

import torch

from mishran.engines.deepspeed_config import zero_model_state_bytes

from .core import Verdict, blank_verdict, choice_answer, is_blank, number_answer, say

__all__ = ["BF16_EVAL_LOOP", "BUDGET", "CURVE_CHOICES", "EVAL_QUESTION", "check_batch_plan", "check_bf16_eval_bpc",
           "check_curve_explanation", "check_top1_prediction"]

EVAL_QUESTION = {"chars": 65536, "batch_chars": 64, "loss_nats": 1.75}
"""অনুশীলনী ০৮.১: held-out-এ ৬৫৫৩৬ অক্ষর, প্রতি ব্যাচে ৬৪; প্রতিটি অক্ষরের loss গড়ে ১.৭৫ nat।"""

BF16_EVAL_LOOP = """\
total = torch.zeros((), dtype=torch.bfloat16)      # engine-এর dtype-এ, যেমন BF16 মডেলের loss
for x, y in heldout_batches:                       # ১০২৪টি ব্যাচ, প্রতিটিতে ৬৪ অক্ষর
    total += loss_sum(model, x, y)                 # এই ব্যাচের ৬৪টি loss-এর যোগফল, প্রায় ১১২ nat
bpc = total.item() / 65536 / math.log(2)
print(f"held-out: {bpc:.3f} bpc")
"""
"""অনুশীলনী ০৮.১: একটি held-out মাপার লুপ — যোগফল জমায় BF16-এর একটি tensor-এ।"""


def _bf16_loop_bpc(q: dict) -> tuple[float, float]:
    """BF16_EVAL_LOOP-এর যোগ torch-এ সত্যিই BF16-এ করে: (লুপ যা ছাপত, FP64-এ ঠিক bpc)। প্রতিটি অক্ষরের loss
    loss_nats-এর চারপাশে ছড়ানো (seed বাঁধা), যেমন আসল মডেলে।"""
    g = torch.Generator().manual_seed(0)
    losses = (q["loss_nats"] + 0.3 * torch.randn(q["chars"], generator=g, dtype=torch.float64)).clamp(min=0)
    total = torch.zeros((), dtype=torch.bfloat16)
    for batch in losses.split(q["batch_chars"]):
        total += batch.sum().float()                  # এক ব্যাচের যোগফল FP32-এ, জমানো BF16-এ
    return total.item() / q["chars"] / math.log(2), losses.sum().item() / q["chars"] / math.log(2)


def check_bf16_eval_bpc(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৮.১: BF16_EVAL_LOOP শেষে কত bits per character ছাপবে (১% সহনসীমা)।"""
    value, early = number_answer(answer, "একটি সংখ্যা চাই (a number, bpc)")
    if early is not None:
        return early
    q = question or EVAL_QUESTION
    printed, exact = _bf16_loop_bpc(q)
    if math.isclose(value, printed, rel_tol=0.01):
        return say(True, f"লুপ ছাপত প্রায় {printed:.2f} bpc, আসলে {exact:.2f}: যোগফল 2^15 = 32768-এ পৌঁছালে BF16-এ পাশের "
                          "দুই সংখ্যার দূরত্ব ২৫৬, তাই ~১১২ যোগ করলে rounding-এ আবার সেখানেই ফেরে — যোগফল আটকে যায়, আর "
                          "মডেলকে অনেক ভালো দেখায়। জমাও FP32-এ (বা .item() দিয়ে Python-এর float-এ); পাঠ ০১-এর নিয়ম।")
    if math.isclose(value, exact, rel_tol=0.01):
        return say(False, "FP32-এ যোগ করলে এটাই ছাপা হতো। কিন্তু total একটি BF16 tensor: BF16-এ significant বিট মাত্র ৮ "
                          "(পাঠ ০১)। যোগফল বড় হতে হতে পাশাপাশি দুই BF16 সংখ্যার দূরত্ব কত হয়, আর কখন ~১১২ যোগ করলেও "
                          "যোগফল আর বদলায় না?")
    if math.isclose(value, q["loss_nats"], rel_tol=0.01):
        return say(False, "এটা nat-এ, bit-এ নয় — আর BF16-এর যোগের কথাও ভাবো: যোগফল কি সত্যিই ৬৫৫৩৬ × ১.৭৫-এ পৌঁছায়?")
    return say(False, "লুপটা হাতে চালাও: total ০ থেকে শুরু, প্রতিবার ~১১২ যোগ, আর প্রতিটি যোগের পরে BF16-এ round। কোন "
                      "মানে পৌঁছালে পাশের BF16 সংখ্যা ১১২-এর দ্বিগুণের চেয়েও দূরে? তারপর ছাপা সূত্রে বসাও।")


BUDGET = {
    "num_params": 1_000_000_000,      # Ψ
    "gpus": 2,
    "gpu_gb": 26,                     # প্রতি GPU-র মেমরি (DeepSpeed-এর বাড়তি FP32 gradient কপি ধরলেও একই উত্তর)
    "reserved_gb": 2,                 # CUDA context, buffer ইত্যাদির জন্য রাখা
    "activation_gb_per_sample": 1.4,  # micro-batch-এর প্রতিটি নমুনার activation
    "global_batch": 64,
}
"""অনুশীলনী ০৮.২-এর পরিস্থিতি: mixed precision Adam, model state ZeRO প্রবন্ধের হিসাবে (16Ψ বাইট)।"""


def _state_gb(stage: int, b: dict) -> float:
    return zero_model_state_bytes(int(b["num_params"]), stage, int(b["gpus"]))["total"] / 1e9


def _memory_gb(micro: int, stage: int, b: dict) -> float:
    return _state_gb(stage, b) + micro * b["activation_gb_per_sample"]


def _feasible(b: dict):
    usable = b["gpu_gb"] - b["reserved_gb"]
    for stage in range(4):
        for micro in range(1, b["global_batch"] + 1):
            accum, rest = divmod(b["global_batch"], micro * b["gpus"])
            if not rest and accum >= 1 and _memory_gb(micro, stage, b) <= usable:
                yield micro, accum, stage


def _comm_units(stage: int, accum: int) -> int:
    """optimizer-এর এক ধাপে যোগাযোগ, gradient-এর একটি পূর্ণ reduce-scatter (বা all-gather)-এর মাপে, DeepSpeed
    0.19.8-এর নিয়মে: ZeRO 0/1 শুধু জমানোর সীমানায় (allreduce = reduce-scatter + all-gather); ZeRO 2 প্রতিটি
    ছোট ধাপে reduce-scatter, ধাপের পরে ওজনের all-gather; ZeRO 3 প্রতিটি ছোট ধাপে reduce-scatter আর ওজনের
    দুটি all-gather (forward, backward)।"""
    return {0: 2, 1: 2, 2: accum + 1, 3: 3 * accum}[stage]


def check_batch_plan(answer, budget: dict | None = None) -> Verdict:
    """অনুশীলনী ০৮.২: (micro_batch, accumulation_steps, zero_stage) — বাজেটে আঁটে, সবচেয়ে ছোট k,
    আর সেই k-তে আঁটা stage-গুলোর মধ্যে সবচেয়ে কম যোগাযোগ (_comm_units)।

    k = ১ হলে ZeRO 0, 1, 2-এর যোগাযোগ সমান; k > ১ হলে ZeRO 2 আর 3 প্রতিটি ছোট ধাপে gradient
    পাঠায়, ZeRO 0 আর 1 শুধু সীমানায় — তখন ZeRO 2 আর ZeRO 1-এর সমান নয়।"""
    b = budget or BUDGET
    if is_blank(answer):
        return blank_verdict()
    try:
        micro, accum, stage = (int(v) for v in answer)
    except (TypeError, ValueError):
        return say(False, f"উত্তর হবে তিনটি পূর্ণসংখ্যা (micro_batch, accumulation_steps, zero_stage); পেয়েছি {answer!r}।",
                   form=True)
    if stage not in (0, 1, 2, 3):
        return say(False, f"ZeRO stage হয় 0, 1, 2 বা 3; পেয়েছি {stage}।", form=True)
    if micro < 1 or accum < 1 or micro * accum * b["gpus"] != b["global_batch"]:
        return say(False, f"ব্যাচের হিসাব মেলেনি: {micro} × {accum} × {b['gpus']} GPU = {micro * accum * b['gpus']}, "
                          f"কিন্তু কার্যকর ব্যাচ {b['global_batch']} চাই (পাঠ ০৪–০৫-এর নিয়ম)।")
    usable = b["gpu_gb"] - b["reserved_gb"]
    need = _memory_gb(micro, stage, b)
    if need > usable:
        return say(False, f"আঁটে না: ZeRO {stage}-এ model state {_state_gb(stage, b):.1f} GB + activation "
                          f"{micro} × {b['activation_gb_per_sample']} GB = {need:.1f} GB, হাতে আছে {usable} GB। "
                          "micro-batch কমাও, বা ZeRO stage বাড়াও।")
    plans = list(_feasible(b))
    best_accum = min(a for _, a, _ in plans)
    if accum > best_accum:
        return say(False, f"আঁটে ({need:.1f} GB), কিন্তু k = {accum} দরকারের চেয়ে বেশি: optimizer-এর প্রতিটি "
                          "ধাপে বেশি ছোট ধাপ মানে GPU কম ভরা। অন্য ZeRO stage-এ বড় micro-batch আঁটে কি না দেখো।")
    least = min(_comm_units(s, a) for _, a, s in plans if a == best_accum)
    if _comm_units(stage, accum) > least:
        return say(False, f"আঁটে আর k-ও সবচেয়ে ছোট, কিন্তু ZeRO {stage} এখানে দরকারের চেয়ে বেশি যোগাযোগ "
                          f"করে। k = {accum}-এ DeepSpeed কোন stage-এ gradient প্রতিটি ছোট ধাপে পাঠায়, আর "
                          "কোনটায় শুধু optimizer-এর ধাপের আগে একবার? যে নিচু stage আঁটে, তার সঙ্গে মিলিয়ে দেখো।")
    return say(True, f"micro-batch {micro}, k = {accum}, ZeRO {stage}: প্রতি GPU-তে {need:.1f} GB "
                     f"(সীমা {usable} GB), আর যোগাযোগ সবচেয়ে কম।")


CURVE_CHOICES = {
    "A": "BF16-এর rounding-এর ভুল লম্বা run-এ জমে জমে held-out-এর loss বাড়ায়।",
    "B": "শেখার হার বেশি: run ভেঙে পড়ছে (diverging)।",
    "C": "মডেল ছোট সংকলনের train-এর লেখা মুখস্থ করছে (overfitting): প্রতিটি অক্ষর সে অনেকবার দেখেছে।",
    "D": "ছোট সংকলনের held-out খণ্ডগুলো বেশি কঠিন, অন্য ধাঁচের লেখা।",
}
"""অনুশীলনী ০৮.৩-এর বিকল্প।"""


def check_curve_explanation(answer) -> Verdict:
    """অনুশীলনী ০৮.৩: ছোট সংকলনে held-out-এর রেখা কেন উঠে যায়, train-এরটা নামতে থাকলেও (বিকল্প A–D)।"""
    key, early = choice_answer(answer, CURVE_CHOICES, fold=str.upper)
    if early is not None:
        return early
    why = {
        "A": "পূর্ণ সংকলনে একই BF16, একই ধাপের সংখ্যা — সেখানে held-out ওঠে না; আর FP32-এর run BF16-এর সঙ্গে প্রায় হুবহু "
             "মেলে। ফরম্যাট নয়।",
        "B": "run ভেঙে পড়লে train-এর loss-ও উঠত; এখানে train নামতেই থাকে।",
        "D": "held-out কঠিন হলে তার রেখা শুরু থেকেই উঁচু থাকত, নেমে আবার উঠত না; ৫০০তম ধাপ পর্যন্ত সে নামছিল।",
    }
    if key == "C":
        return say(True, "train নামে, held-out ওঠে: overfitting। ছোট সংকলনের প্রতিটি অক্ষর মডেল কয়েক ডজনবার দেখেছে। "
                         "প্রতিকার: বেশি ডেটা, dropout, সেরা checkpoint রাখা, early stopping।")
    return say(False, why[key])


def check_top1_prediction(answer) -> Verdict:
    """অনুশীলনী ০৮.৪: top_k = 1-এ দুই আলাদা seed-এর লেখা একই হবে কি না (True = একই)।"""
    if is_blank(answer):
        return blank_verdict()
    if not isinstance(answer, bool):
        return say(False, f"উত্তর হবে True (একই লেখা) বা False (আলাদা); পেয়েছি {answer!r}।", form=True)
    if answer:
        return say(True, "top_k = 1-এ প্রতিটি অক্ষর টানার সময় একটিই প্রার্থী থাকে (সবচেয়ে সম্ভাব্য অক্ষর), তাই এলোমেলো "
                         "টানার কিছু নেই: seed বা temperature যা-ই হোক, লেখা একই (greedy decoding)।")
    return say(False, "top_k = 1 মানে softmax-এর আগে কতগুলো অক্ষর বেঁচে থাকে? তাদের মধ্যে থেকে টানলে seed-এর "
                      "কি কিছু করার থাকে?")
