"""পাঠ ০৯ (FSDP2-এর mixed precision, DeepSpeed-এর পাশে, আর যোগাযোগের precision) অনুশীলনীর যাচাই: fully_shard-এর আগে
BF16-এ cast করার bug, প্রতি rank-এ বাইটের পূর্বাভাস, সহনশীলতায় reduce-এর scheme বাছাই।

উত্তর কোথাও লেখা নেই: bug-এর লাইন খুঁজে বের করা হয় listing থেকে, বাইট আসে dtype-এর মাপ থেকে (FSDP2 যে dtype রাখে,
দুই rank-এর gloo-তে fully_shard চালিয়ে দেখা), আর scheme আসে comm_precision-এর মাপা ত্রুটি থেকে, যাচাইয়ের সময়েই।
"""
from __future__ import annotations

from .. import comm_precision, precision
from ..util import positive_int
from .core import Verdict, blank_verdict, check_fields, dict_answer, finite_number, is_blank, say

__all__ = ["CAST_FIRST_CODE", "CAST_FIRST_FIXES", "check_cast_first_bug", "RANK_BYTES_QUESTION", "check_rank_bytes",
           "REDUCE_DTYPE_QUESTIONS", "check_reduce_dtype"]


CAST_FIRST_CODE = """\
import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

model = GPT(config)
model.to(torch.bfloat16)
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for block in model.blocks:
    fully_shard(block, mp_policy=policy)
fully_shard(model, mp_policy=policy)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
"""
"""অনুশীলনী ০৯.১: এক শিক্ষার্থীর FSDP2-এর setup; loss নামে, কিন্তু অনেক ধাপ পরে আটকে যায়। কোন লাইনে bug?"""

CAST_FIRST_FIXES = {
    "A": "reduce_dtype=torch.bfloat16 দাও, যাতে gradient আর ওজন একই dtype-এ থাকে",
    "B": "GradScaler যোগ করো, যাতে ছোট update হারিয়ে না যায়",
    "C": "model.to(torch.bfloat16) লাইনটা মুছে দাও: ওজন FP32-এ থাকুক, forward/backward-এর জন্য BF16-এ cast করুক policy",
    "D": "policy-তে param_dtype=torch.float32 দাও",
}
"""অনুশীলনী ০৯.১-এর সম্ভাব্য সমাধান; উত্তর {"line": লাইনের নম্বর (১ থেকে), "fix": এদের একটির key}।"""

_CAST_FIRST_FIX = "C"

_FIX_HINTS = {
    "A": "reduce_dtype বদলায় শুধু gradient-এর যোগ (reduce-scatter) কোন dtype-এ হয়; optimizer যে sharded ওজনে update "
         "যোগ করে, তার dtype কী?",
    "B": "BF16-এর পরিসর FP32-এর সমান, তাই gradient underflow এখানে সমস্যা নয়; update হারায় w + Δw যোগে — "
         "w কোন dtype-এ?",
    "D": "param_dtype কেবল forward/backward-এর জন্য all-gather-এর dtype; fully_shard-এর হাতে পৌঁছানোর আগেই ওজন কোন "
         "dtype-এ ছিল?",
}


def _cast_line(code: str) -> int:
    """listing-এর যে লাইনে (১ থেকে গোনা) মডেল নিজেই BF16-এ cast হয়।"""
    return next(i for i, line in enumerate(code.splitlines(), 1) if ".to(torch.bfloat16)" in line)


def check_cast_first_bug(answer) -> Verdict:
    """অনুশীলনী ০৯.১ (debug): CAST_FIRST_CODE-এর কোন লাইনে bug, আর CAST_FIRST_FIXES-এর কোনটি তা সারায়;
    উত্তর {"line": …, "fix": …}।"""
    values, early = dict_answer(answer, ("line", "fix"), numbers=False)
    if early is not None:
        return early
    line, fix = finite_number(values["line"]), str(values["fix"]).strip().upper()
    if isinstance(values["line"], bool) or line is None or line != int(line):
        return say(False, f"line হবে লাইনের নম্বর, একটি পূর্ণসংখ্যা (an integer); পেয়েছি {values['line']!r}।", form=True)
    if fix not in CAST_FIRST_FIXES:
        return say(False, f"fix হবে {', '.join(CAST_FIRST_FIXES)}-এর একটি; পেয়েছি {values['fix']!r}।", form=True)
    hints = {"line": "line: কোন লাইন fully_shard-এর আগেই ওজনের dtype বদলে দেয়? policy-র cast শুধু forward/backward-এর "
                     "সময়ের জন্য; ওজন চিরকালের জন্য বদলায় কোথায়?",
             "fix": f"fix: {_FIX_HINTS.get(fix, '')}"}
    return check_fields({"line": int(line), "fix": fix}, {"line": _cast_line(CAST_FIRST_CODE), "fix": _CAST_FIRST_FIX},
                        hints, right="fully_shard ওজনকে যে dtype-এ পায় সেই dtype-এই shard করে রাখে, আর optimizer ধাপ "
                        "নেয় ওই shard-এ। আগে BF16-এ cast করলে FP32-এর master ওজন আর থাকে না: ছোট update BF16-এ "
                        "হারিয়ে যায় (পাঠ ০১-এর bug)। policy-র param_dtype শুধু all-gather আর হিসাবের dtype।")


RANK_BYTES_QUESTION = {"num_params": 124_439_808, "world": 8, "model_dtype": "fp32"}
"""অনুশীলনী ০৯.২: Ψ = num_params ওজনের মডেল (model_dtype-এ বানানো), N = world rank-এ fully_shard,
MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32), AdamW। প্রতি rank-এ বাইট কত?"""


def _rank_question(question) -> tuple[int, int, int]:
    """প্রশ্নের dict যাচাই → (Ψ, N, model dtype-এর উপাদানপ্রতি বাইট)।"""
    if not isinstance(question, dict) or not {"num_params", "world"} <= set(question):
        raise TypeError(f"question হবে {{'num_params': …, 'world': …}} আকারের dict (question must be a dict); "
                        f"পেয়েছি {question!r}")
    psi = positive_int(question["num_params"], "num_params")
    world = positive_int(question["world"], "world")
    return psi, world, precision.dtype_of(question.get("model_dtype", "fp32")).itemsize


def check_rank_bytes(answer, question: dict | None = None) -> Verdict:
    """অনুশীলনী ০৯.২ (চালানোর আগে পূর্বাভাস): প্রতি rank-এ sharded ওজন, backward-এর পরে তাদের gradient, আর AdamW-এর
    state — বাইটে; উত্তর {"params": …, "grads": …, "optim": …}, ১%-এর মধ্যে মিললেই হবে। question না দিলে
    RANK_BYTES_QUESTION; নোটবুক নিজের মাপা মডেলের {"num_params", "world", "model_dtype"} দিতে পারে।"""
    psi, world, size = _rank_question(RANK_BYTES_QUESTION if question is None else question)
    values, early = dict_answer(answer, ("params", "grads", "optim"))
    if early is not None:
        return early
    shard = psi / world                                   # FSDP2 প্রতিটি ওজন dim 0-তে N ভাগ করে (শেষে pad)
    truth = {"params": size * shard, "grads": size * shard, "optim": 2 * size * shard}
    hints = {"params": "params: sharded ওজন কোন dtype-এ থাকে — policy-র param_dtype, না মডেল যে dtype-এ বানানো? "
                       "param_dtype কখন কাজে লাগে?",
             "grads": "grads: reduce-scatter-এর ফল শেষে কোন dtype-এ cast হয়ে sharded gradient হয়? (reduce_dtype "
                      "শুধু যোগের সময়ের)",
             "optim": "optim: AdamW প্রতিটি ওজনের জন্য কয়টি tensor রাখে, আর কোন dtype-এ (ওজনের, না gradient-এর)?"}
    return check_fields(values, truth, hints, rel_tol=0.01,
                        right="FSDP2 ওজন shard করে রাখে মডেল যে dtype-এ বানানো তাতেই (সাধারণত FP32) — সেটাই master ওজন; "
                        "BF16 কপি তৈরি হয় শুধু all-gather-এর সময়, আর ফেলে দেওয়া হয়। gradient reduce-scatter-এর পরে "
                        "ওজনের dtype-এ ফেরে, AdamW-এর দুটি moment-ও তাই।")


REDUCE_DTYPE_QUESTIONS = ({"world": 8, "tolerance": 1e-2}, {"world": 1024, "tolerance": 1e-2},
                          {"world": 1024, "tolerance": 1e-3})
"""অনুশীলনী ০৯.৩: W rank-এ গড় gradient-এর আপেক্ষিক ত্রুটি tolerance-এর মধ্যে রেখে wire-এ সবচেয়ে সস্তা scheme।"""


def _truth_sweep(world: int, sweep):
    """যাচাইয়ের sweep: নোটবুকের দেওয়া (যদি তাতে W থাকে), নইলে এই W-এর জন্য ছোট একটি।"""
    if isinstance(sweep, dict) and world in sweep.get("worlds", ()):
        return sweep
    return comm_precision.error_sweep(worlds=(world,), n=2 ** 12)


def check_reduce_dtype(answer, world, tolerance, sweep=None) -> Verdict:
    """অনুশীলনী ০৯.৩ (সহনশীলতায় বাছাই): comm_precision.SCHEMES-এর কোন scheme W rank-এ ত্রুটি tolerance-এর মধ্যে
    রাখে আর wire-এ সবচেয়ে সস্তা (প্রথমে বাইট, তারপর FP32-এ যোগ কম)। sweep: নোটবুকের error_sweep()-এর ফল (না দিলে
    যাচাই নিজেই মাপে)।"""
    if is_blank(answer):
        return blank_verdict()
    w = positive_int(world, "world")                  # argument-গুলো বদলাই না: পরীক্ষার ধারা সেগুলোই জমা রাখে
    if w > comm_precision.MAX_WORLD:
        raise ValueError(f"world হবে 1 থেকে {comm_precision.MAX_WORLD} (world size); পেয়েছি {w}")
    ref = _truth_sweep(w, sweep)
    key = str(answer).strip().lower() if isinstance(answer, str) else None
    if key not in ref["errors"]:
        return say(False, f"উত্তর হবে {', '.join(ref['errors'])}-এর একটি নাম; পেয়েছি {answer!r}।", form=True)
    truth = comm_precision.smallest_safe_dtype(w, tolerance, ref)
    if key == truth:
        return say(True, f"W = {w}-এ এটাই সহনশীলতার মধ্যে থাকা সবচেয়ে সস্তা scheme: wire-এ এর চেয়ে কম বাইটের বা "
                         "সমান বাইটে কম খরচের কোনোটি ত্রুটি সামলাতে পারে না।")
    i = ref["worlds"].index(w)
    if ref["errors"][key][i] > tolerance:
        return say(False, f"চিত্রে W = {w}-এ এই scheme-এর রেখা দেখো: ত্রুটি সহনশীলতার রেখার ওপরে। কোন কোন রেখা "
                          "নিচে থাকে?")
    return say(False, f"W = {w}-এ এটা সহনশীলতার মধ্যে, কিন্তু আরও সস্তা কোনো scheme-ও কি মধ্যে থাকে? আগে wire-এর "
                      "উপাদানপ্রতি বাইট তুলনা করো, সমান হলে যেটা FP32-এ যোগ করে না বা বাড়তি ভাগ লাগে না।")
