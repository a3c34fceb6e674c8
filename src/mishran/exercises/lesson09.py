"""পাঠ ০৯ (FSDP2-এর mixed precision আর যোগাযোগের precision) অনুশীলনীর যাচাই: fully_shard-এর আগে BF16-এ cast করার
bug, প্রতি rank-এ বাইটের পূর্বাভাস, সহনসীমায় reduce-এর scheme বাছাই।

উত্তর কোথাও লেখা নেই: bug-এর লাইন আসে listing থেকে, বাইট dtype-এর মাপ থেকে (FSDP2 যে dtype রাখে, দুই rank-এর
gloo-তে দেখা), scheme communication-এর মাপা ত্রুটি থেকে, যাচাইয়ের সময়েই।
"""
from __future__ import annotations

from mishran import precision
from mishran.checks import finite_float, positive_int
from mishran.numerics import communication

from .core import Verdict, blank_verdict, check_fields, choice_answer, dict_answer, finite_number, is_blank, say

__all__ = ["CAST_FIRST_CODE", "CAST_FIRST_FIXES", "check_cast_first_bug", "RANK_BYTES_QUESTION", "check_rank_bytes",
           "REDUCE_DTYPE_QUESTIONS", "check_reduce_dtype"]


CAST_FIRST_CODE = """\
import torch
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

torch.manual_seed(0)
torch.set_default_dtype(torch.bfloat16)          # BF16 GPU: সব হিসাব BF16-এ হোক
model = TinyGPT(config)
policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
for block in model.transformer.h:
    fully_shard(block, mp_policy=policy)
fully_shard(model, mp_policy=policy)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
"""
"""অনুশীলনী ০৯.১: এক শিক্ষার্থীর FSDP2-এর setup; loss নামে, কিন্তু অনেক ধাপ পরে আটকে যায়। কোন লাইনে bug?"""

CAST_FIRST_FIXES = {
    "A": "reduce_dtype=torch.bfloat16 দাও, যাতে gradient আর ওজন একই dtype-এ থাকে",
    "B": "GradScaler যোগ করো, যাতে ছোট update হারিয়ে না যায়",
    "C": "মডেল FP32-এ বানাও; BF16 চাই শুধু হিসাবে, সেটা বলার জায়গা policy-র param_dtype",
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
    """listing-এর যে লাইনে (১ থেকে গোনা) মডেলের ওজন নিজেই BF16 হয়ে যায়: policy-র বাইরে BF16-এর প্রথম উল্লেখ।"""
    return next(i for i, line in enumerate(code.splitlines(), 1)
                if "bfloat16" in line and "MixedPrecisionPolicy" not in line)


def check_cast_first_bug(answer) -> Verdict:
    """অনুশীলনী ০৯.১ (debug): CAST_FIRST_CODE-এর কোন লাইনে bug, আর CAST_FIRST_FIXES-এর কোনটি তা সারায়;
    উত্তর {"line": …, "fix": …}।"""
    values, early = dict_answer(answer, ("line", "fix"), numbers=False)
    if early is not None:
        return early
    fix, early = choice_answer(values["fix"], CAST_FIRST_FIXES, "fix", fold=str.upper)
    if early is not None:
        return early
    line, lines = finite_number(values["line"]), len(CAST_FIRST_CODE.splitlines())
    if isinstance(values["line"], bool) or line is None or line != int(line) or not 1 <= line <= lines:
        return say(False, f"line হবে লাইনের নম্বর, 1 থেকে {lines}-এর একটি পূর্ণসংখ্যা (an integer); পেয়েছি "
                          f"{values['line']!r}।", form=True)
    hints = {"line": "line: model-এর ওজন তৈরির মুহূর্তে কোন dtype-এ জন্মায়? policy-র cast শুধু forward/backward-এর "
                     "সময়ের জন্য; ওজন চিরকালের জন্য BF16 হয় কোথায়, fully_shard-এর আগেই?",
             "fix": f"fix: {_FIX_HINTS.get(fix, '')}"}
    return check_fields({"line": int(line), "fix": fix}, {"line": _cast_line(CAST_FIRST_CODE), "fix": _CAST_FIRST_FIX},
                        hints, right="fully_shard ওজনকে যে dtype-এ পায় সেই dtype-এই shard করে রাখে, আর optimizer ধাপ "
                        "নেয় ওই shard-এ। ওজন BF16-এ জন্মালে (default dtype, .to(), .bfloat16() — যেভাবেই) FP32-এর "
                        "মূল ওজন আর থাকে না: ছোট update BF16-এ হারিয়ে যায় (পাঠ ০১-এর bug)। policy-র param_dtype শুধু "
                        "all-gather আর হিসাবের dtype।")


RANK_BYTES_QUESTION = {"num_params": 124_439_808, "world": 8, "model_dtype": "fp32", "param_dtype": "bf16",
                       "reduce_dtype": "bf16"}
"""অনুশীলনী ০৯.২: Ψ = num_params ওজনের মডেল (model_dtype-এ বানানো), N = world rank-এ fully_shard,
MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=bf16) — তারে সব BF16 — আর AdamW। প্রতি rank-এ বাইট কত?"""


def _rank_question(question) -> tuple[int, int, int]:
    """প্রশ্নের dict যাচাই → (Ψ, N, model dtype-এর উপাদানপ্রতি বাইট)।"""
    if not isinstance(question, dict) or not {"num_params", "world"} <= set(question):
        raise TypeError(f"question হবে {{'num_params': …, 'world': …}} আকারের dict (question must be a dict); "
                        f"পেয়েছি {question!r}")
    return (positive_int(question["num_params"], "num_params"), positive_int(question["world"], "world"),
            precision.dtype_of(question.get("model_dtype", "fp32")).itemsize)


def _scale_slip(values: dict, truth: dict, world: int, size: int) -> str | None:
    """সব ঘরে একই গুণকের ভুল (N দিয়ে ভাগ ভোলা, বাইটের বদলে সংখ্যা, GiB/GB-এ লেখা) হলে সেই ইঙ্গিত, নইলে None।"""
    ratios = [float(values[k]) / truth[k] for k in truth if truth[k]]
    def near(r, target):
        return all(abs(x / target - 1) < 0.01 for x in r)
    if near(ratios, world):
        return f"তিনটিই ঠিক {world} গুণ বড়: এটা পুরো মডেলের হিসাব। প্রতি rank রাখে শুধু নিজের shard, Ψ/N ওজনের।"
    if near(ratios, 1 / size):
        return "তিনটিই বাইট নয়, উপাদানের সংখ্যা মনে হচ্ছে: প্রতিটি উপাদান কত বাইটের, dtype দেখে গুণ করো।"
    if near(ratios, 1 / 2 ** 30) or near(ratios, 1e-9):
        return "উত্তর বাইটে দাও (GiB বা GB নয়)।"
    return None


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
    off = _scale_slip(values, truth, world, size)
    if off:
        return say(False, off)
    hints = {"params": "params: sharded ওজন কোন dtype-এ থাকে — policy-র param_dtype, না মডেল যে dtype-এ বানানো? "
                       "param_dtype কখন কাজে লাগে?",
             "grads": "grads: reduce_dtype শুধু যোগের সময়ের (তারের) dtype। যোগ শেষে FSDP2 ফলটা কার dtype-এ বদলে "
                      "sharded gradient বানায় — shard-করা ওজনের, না reduce_dtype-এর?",
             "optim": "optim: AdamW প্রতিটি ওজনের জন্য কয়টি tensor রাখে, আর কোন dtype-এ (ওজনের, না gradient-এর)?"}
    return check_fields(values, truth, hints, rel_tol=0.01,
                        right="FSDP2 ওজন shard করে রাখে মডেল যে dtype-এ বানানো তাতেই (সাধারণত FP32) — সেটাই মূল ওজন; "
                        "BF16 কপি তৈরি হয় শুধু all-gather-এর সময়, আর ফেলে দেওয়া হয়। gradient BF16-এ যোগ হলেও যোগের পরে "
                        "shard-করা ওজনের dtype-এ ফেরে, AdamW-এর দুটি moment-ও তাই: reduce_dtype বাঁচায় তারের বাইট, "
                        "মেমরি নয়।")


REDUCE_DTYPE_QUESTIONS = ({"world": 32, "tolerance": 1e-2}, {"world": 256, "tolerance": 1e-2},
                          {"world": 1024, "tolerance": 1e-3})
"""অনুশীলনী ০৯.৩: W rank-এ গড় gradient-এর আপেক্ষিক ত্রুটি সহনসীমার (tolerance) মধ্যে রেখে সবচেয়ে সস্তা scheme
(আগে তারের বাইট, তারপর সাধারণ ring, তারপর বাড়তি ভাগ ছাড়া — communication.scheme_cost)।"""


_OWN_SWEEP_N = 2 ** 12                  # নোটবুকের মাপে W না থাকলে যাচাই নিজে যতগুলো সংখ্যায় মাপে


def _truth_sweep(world: int, sweep):
    """যাচাইয়ের sweep: নোটবুকের দেওয়া (যদি তাতে W থাকে), নইলে এই W-এর জন্য ছোট একটি।"""
    if isinstance(sweep, dict) and world in sweep.get("worlds", ()):
        return sweep
    return communication.error_sweep(worlds=(world,), n=_OWN_SWEEP_N)


def check_reduce_dtype(answer, world, tolerance, sweep=None) -> Verdict:
    """অনুশীলনী ০৯.৩ (সহনসীমায় বাছাই): communication.SCHEMES-এর কোন scheme W rank-এ ত্রুটি tolerance-এর মধ্যে
    রাখে আর সবচেয়ে সস্তা: আগে তারের বাইট কম, তারপর সাধারণ ring (FP32-এ যোগের আলাদা ব্যবস্থা লাগে না), তারপর বাড়তি
    ভাগ ছাড়া (communication.scheme_cost-এর ক্রম)। sweep: নোটবুকের error_sweep()-এর ফল (না দিলে যাচাই নিজেই মাপে)।
    "direct" (পাঠের লেখার নাম) মানে "bf16_wire_fp32_sum"।"""
    if is_blank(answer):
        return blank_verdict()
    w = positive_int(world, "world")                  # argument-গুলো বদলাই না: পরীক্ষার ধারা সেগুলোই জমা রাখে
    if w > communication.MAX_WORLD:
        raise ValueError(f"world হবে 1 থেকে {communication.MAX_WORLD} (world size); পেয়েছি {w}")
    tol = finite_float(tolerance, "tolerance", positive=True)
    ref = _truth_sweep(w, sweep)
    if isinstance(answer, str) and answer.strip().lower() == "direct":   # পাঠের নাম, চিত্রের লেবেলেও
        answer = "bf16_wire_fp32_sum"
    key, early = choice_answer(answer, ref["errors"], "scheme", fold=str.lower)
    if early is not None:
        return early
    truth = communication.smallest_safe_dtype(w, tol, ref)
    # চিত্রের মাপে এই W না থাকলে যাচাই নিজে ছোট একটি মাপ নেয়: সেটা বলে দিই, সীমানার কাছে চিত্রের সঙ্গে না-ও মিলতে পারে
    own = "" if ref is sweep else (f" (W = {w} তোমার দেওয়া মাপে নেই, তাই যাচাই নিজে মাপল, {_OWN_SWEEP_N}টি "
                                   "সংখ্যায়: সহনসীমার একেবারে কাছে চিত্রের সঙ্গে না-ও মিলতে পারে।)")
    if key == truth:
        return say(True, f"W = {w}-এ এটাই সহনসীমার মধ্যে থাকা সবচেয়ে সস্তা scheme: তারে এর চেয়ে কম বাইটের বা "
                         "সমান বাইটে কম খরচের কোনোটি ত্রুটি সামলাতে পারে না।" + own)
    i = ref["worlds"].index(w)
    if ref["errors"][key][i] > tol:
        return say(False, f"চিত্রে W = {w}-এ এই scheme-এর রেখা দেখো: ত্রুটি তোমার সহনসীমার ({tol:g}) ওপরে। "
                          "কোন কোন রেখা তার নিচে থাকে?" + own)
    return say(False, f"W = {w}-এ এটা সহনসীমার মধ্যে, কিন্তু আরও সস্তা কোনো scheme-ও কি মধ্যে থাকে? ক্রমটা: আগে "
                      "তারে উপাদানপ্রতি বাইট; সমান হলে সাধারণ ring (direct নয়); তাও সমান হলে বাড়তি ভাগ ছাড়া।" + own)
