"""পাঠ ০৪ (gradient জমানো, gradient accumulation) অনুশীলনীর যাচাই।"""
from __future__ import annotations

from .core import Verdict, blank_verdict, check_number, is_blank, say

__all__ = ["BUGGY_ACCUMULATION_LOOP", "check_accumulation_bug", "check_allreduce_count", "check_effective_batch",
           "check_micro_and_k", "check_microbatch_weight"]

def check_microbatch_weight(n_i: int, total: int, answer) -> Verdict:
    """অনুশীলনী ০৪.১: N-টি উদাহরণের ব্যাচে n_i মাপের micro-batch-এর গড় loss-কে কত দিয়ে গুণ করতে হয়।"""
    if not 0 < n_i <= total:
        raise ValueError(f"n_i হবে ১ থেকে N-এর মধ্যে (0 < n_i <= N); পেয়েছি n_i={n_i}, N={total}")
    hint = ("বড় ব্যাচের loss = সব উদাহরণের loss-এর যোগফল ÷ N। micro-batch-এর গড় = তার যোগফল ÷ n_i। "
            "তাহলে গড়টাকে কত দিয়ে গুণ করলে যোগফল ÷ N পাওয়া যায়? (1/k তখনই ঠিক, যখন সব micro-batch সমান।)")
    return check_number(answer, n_i / total, f"{total}-এর ব্যাচে {n_i}-এর ছোট ব্যাচের (micro-batch) ভার (weight)", hint,
                        rel_tol=1e-9)


def check_allreduce_count(steps: int, accum: int, no_sync: bool, answer, buckets: int = 1) -> Verdict:
    """অনুশীলনী ০৪.২: DDP-তে steps-টি optimizer step, প্রতিটিতে accum-টি micro-step — কয়টি allreduce।"""
    syncs = steps if no_sync else steps * accum
    how = "no_sync() সহ" if no_sync else "no_sync() ছাড়া"
    hint = ("DDP প্রতিটি sync করা backward-এ প্রতিটি bucket-এর জন্য একটি allreduce করে। no_sync()-এর ভেতরের "
            "backward কোনো যোগাযোগ করে না। প্রতি step-এ কয়টি backward sync করে?")
    return check_number(answer, syncs * buckets, f"{how} {steps} step × {accum} micro-step-এ allreduce-এর সংখ্যা",
                        hint)


BUGGY_ACCUMULATION_LOOP = """\
for step in range(max_steps):
    for micro_step in range(accum):
        x, y = get_batch()
        sync = micro_step == 0
        with nullcontext() if sync else model.no_sync():
            with torch.amp.autocast("cuda", dtype=torch.float16):
                loss = loss_fn(model(x), y) / accum
            scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
"""
_BUGGY_ACCUMULATION_LINE = 4      # sync হওয়া উচিত শেষ micro-step-এ: micro_step == accum - 1


def check_accumulation_bug(answer) -> Verdict:
    """অনুশীলনী ০৪.৩: BUGGY_ACCUMULATION_LOOP-এর কোন লাইনে (১ থেকে গোনা) ভুল।"""
    if is_blank(answer):
        return blank_verdict()
    try:
        line = int(answer)
    except (TypeError, ValueError, OverflowError):   # OverflowError: int(inf)
        return say(False, f"উত্তর একটি লাইন নম্বর (line number), ১ থেকে গোনা; পেয়েছি {answer!r}।")
    n_lines = len(BUGGY_ACCUMULATION_LOOP.splitlines())
    if line == _BUGGY_ACCUMULATION_LINE:
        return say(True, f"লাইন {line}: sync হয় প্রথম micro-step-এ, অথচ হওয়া উচিত শেষটিতে "
                          "(micro_step == accum - 1)। এখন শেষ k-1টি micro-batch-এর gradient কখনো allreduce হয় না, "
                          "তাই process-গুলোর ওজন আলাদা হয়ে যায় — কোনো ভুলবার্তা ছাড়াই।")
    if not 1 <= line <= n_lines:
        return say(False, f"loop-এ লাইন ১ থেকে {n_lines}; পেয়েছি {line}।")
    if line == _BUGGY_ACCUMULATION_LINE + 1:
        return say(False, f"লাইন {line} নিজে ঠিক: sync হলে সাধারণ backward, নইলে no_sync()। কিন্তু sync কখন True "
                           "হয়, তা ঠিক করে আগের লাইন।")
    return say(False, f"লাইন {line} ঠিক আছে। প্রশ্ন করো: DDP কোন micro-step-এ gradient গড় করে (allreduce), "
                       "আর সেটা কোন micro-step-এ হওয়া উচিত, যাতে সব micro-batch-এর gradient তাতে ধরা পড়ে?")


def check_effective_batch(micro: int, accum: int, world: int, answer) -> Verdict:
    """অনুশীলনী ০৪.৪: এক optimizer step কয়টি উদাহরণ দেখে (effective batch size)।"""
    hint = ("প্রতি process প্রতি micro-step-এ micro-টি উদাহরণ দেখে; একটি step-এ accum-টি micro-step; "
            "আর process আছে world-টি, সবাই আলাদা ডেটা দেখে। DeepSpeed-এর train_batch_size-ও এই গুণফল।")
    return check_number(answer, micro * accum * world,
                        f"micro-batch {micro} × accumulation {accum} × world size {world}-এ কার্যকর ব্যাচ", hint)


def _best_micro_and_k(budget: float, fixed: float, per_example: float, target: int, world: int) -> dict:
    per_rank = target // world
    fits = [m for m in range(1, per_rank + 1) if per_rank % m == 0 and fixed + m * per_example <= budget]
    if not fits:
        raise ValueError("এই বাজেটে একটি উদাহরণও ধরে না (nothing fits in this budget); বাজেট বাড়াও")
    micro = max(fits)
    return {"micro": micro, "k": per_rank // micro}


def check_micro_and_k(answer, budget: float, fixed: float, per_example: float, target: int, world: int) -> Verdict:
    """অনুশীলনী ০৪.৪ (মেমরির বাজেটে বাছাই): কার্যকর ব্যাচ target রেখে সবচেয়ে বড় কোন micro-batch আর কত k।"""
    if is_blank(answer):
        return blank_verdict()
    if not isinstance(answer, dict) or set(answer) != {"micro", "k"}:
        return say(False, f"{{'micro': ..., 'k': ...}} আকারের dict চাই; পেয়েছি {answer!r}।")
    if any(is_blank(v) for v in answer.values()):
        return blank_verdict()
    if target % world:
        raise ValueError(f"target {target} world {world} দিয়ে বিভাজ্য নয় (target must divide by world size)")
    truth = _best_micro_and_k(budget, fixed, per_example, target, world)
    micro, k = answer["micro"], answer["k"]
    if micro * k * world != target:
        return say(False, f"micro × k × world = {micro} × {k} × {world} = {micro * k * world}, কিন্তু কার্যকর ব্যাচ "
                           f"{target} থাকতে হবে।")
    if fixed + micro * per_example > budget:
        return say(False, "এই micro-batch ধরে না: স্থির ভাগ (ওজন, gradient, optimizer) আর micro × প্রতি উদাহরণের "
                           "activation যোগ করে বাজেটের সঙ্গে মেলাও।")
    if micro != truth["micro"]:
        return say(False, "ধরে, কিন্তু আরও বড় micro-batch-ও ধরে — বড় micro-batch মানে কম ছোট ধাপ, তাই দ্রুত। "
                           "micro-কে প্রতি process-এর ভাগ (target ÷ world)-এর একটি ভাজক হতে হবে।")
    return say(True, "বাজেটে ধরে এমন সবচেয়ে বড় micro-batch, আর k দিয়ে কার্যকর ব্যাচ অটুট।")
