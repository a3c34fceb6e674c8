"""পাঠ ০৪ (gradient জমানো, gradient accumulation) অনুশীলনীর যাচাই।

উত্তর কোথাও লেখা নেই: উদাহরণের ভার autograd চালিয়ে মাপা (প্রতিটি উদাহরণের loss একটি আলাদা ওজন, তার gradient-ই
তার ভার), allreduce একটি আসল DDP-তে লুপ চালিয়ে গোনা, বাজেট হাতে হিসাব করা।
"""
from __future__ import annotations

import functools
import gc
import math
from contextlib import nullcontext

import torch

from .core import Verdict, blank_verdict, check_fields, dict_answer, finite_number, is_blank, number_answer, say

__all__ = ["BUGGY_ACCUMULATION_LOOP", "NO_SYNC_LOOPS", "PARTIAL_STEP", "RANK_TOKENS", "check_accumulation_bug",
           "check_micro_and_k", "check_no_sync_placement", "check_partial_step_weight", "check_rank_mean_weights"]


# ---------------------------------------------------------------- ০৪.১: epoch-এর শেষে অসম্পূর্ণ ধাপ

PARTIAL_STEP = {"sizes": (8, 8, 6), "k": 4}
"""অনুশীলনী ০৪.১: epoch-এর শেষে optimizer-এর ধাপে মাত্র তিনটি micro-batch (৮, ৮, ৬), অথচ লুপ k = ৪ ধরে loss / k করে।"""


def _example_weights(sizes, k: int) -> torch.Tensor:
    """loss / k নিয়মে প্রতিটি উদাহরণের ভার: উদাহরণ i-এর loss একটি আলাদা ওজন θ_i, জমানো gradient-এ তার gradient।"""
    theta = torch.zeros(sum(sizes), dtype=torch.float64, requires_grad=True)
    for part in theta.split(list(sizes)):
        (part.mean() / k).backward(retain_graph=True)
    return theta.grad


def check_partial_step_weight(answer, step: dict | None = None) -> Verdict:
    """অনুশীলনী ০৪.১: loss / k-এর লুপে অসম্পূর্ণ শেষ ধাপের সব উদাহরণের ভার মিলিয়ে কত (ঠিক নিয়মে ১)।"""
    value, early = number_answer(answer)
    if early is not None:
        return early
    q = step or PARTIAL_STEP
    total = _example_weights(q["sizes"], q["k"]).sum().item()
    if math.isclose(value, total, rel_tol=1e-3):
        return say(True, f"{len(q['sizes'])}টি micro-batch, প্রতিটির গড় পায় মোট 1/{q['k']} ভার, উদাহরণ যতই থাকুক: "
                          f"ধাপটি ঠিক মাপের {total:.2f} গুণ — SGD-তে এই ধাপের learning rate যেন ততটুকু। সারাতে ভাগ করো "
                          "এই ধাপের আসল উদাহরণের সংখ্যা দিয়ে, যা ধাপের আগেই গুনে রাখো।")
    if math.isclose(value, 1.0):
        return say(False, "ঠিক নিয়মে (n_i / N) যোগফল ১ হতো, কিন্তু এই লুপ ভাগ করে k দিয়ে। এক একটি micro-batch-এর গড় "
                          "loss / k-এ মোট কত ভার পায়, আর এই ধাপে micro-batch কয়টি?")
    return say(False, "একটি micro-batch-এর গড় loss = তার উদাহরণগুলোর loss-এর যোগফল ÷ তার মাপ। তাকে k দিয়ে ভাগ করলে সেই "
                      "micro-batch-এর সব উদাহরণ মিলিয়ে কত ভার পায়? তারপর এই ধাপের সব micro-batch যোগ করো।")


# ---------------------------------------------------------------- ০৪.২: no_sync() কোথায়

NO_SYNC_LOOPS = {
    "A": """\
for step in range(steps):
    for micro_step in range(accum):
        last = micro_step == accum - 1
        loss = loss_fn(model(x), y) / accum
        with nullcontext() if last else model.no_sync():
            loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
""",
    "B": """\
for step in range(steps):
    for micro_step in range(accum):
        last = micro_step == accum - 1
        with nullcontext() if last else model.no_sync():
            loss = loss_fn(model(x), y) / accum
        loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
""",
}
"""অনুশীলনী ০৪.২: দুটি লুপ, no_sync() দুই জায়গায় — A-তে শুধু backward তার ভেতরে, B-তে শুধু forward।"""


@functools.lru_cache(maxsize=8)      # একই প্রশ্নে আবার চেষ্টা করলে DDP আবার চালাতে হয় না
def _count_allreduces(loop: str, steps: int, accum: int) -> int:
    """লুপটা এক process-এর একটি আসল DDP-তে (gloo) চালিয়ে comm hook দিয়ে allreduce গোনে।"""
    import torch.distributed as dist

    own_group = not dist.is_initialized()
    if own_group:
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    elif dist.get_world_size() != 1:
        raise RuntimeError("এই check এক process-এ DDP চালায়; কয়েকটি process-এর group চালু থাকলে চলে না "
                           "(needs a single-process group): নোটবুকে বা সাধারণ Python-এ চালাও।")
    try:
        return _run_counted(loop, steps, accum)
    finally:
        # DDP মডেল এখানে আর নেই (_run_counted ফিরেছে): group-এর পরে ছাড়া DDP দশবারে প্রায় একবার আটকে যেত
        if own_group:
            gc.collect()                      # DDP-র কোনো reference-চক্র থাকলে তাও group-এর আগে যায়
            dist.destroy_process_group()


def _run_counted(loop: str, steps: int, accum: int) -> int:
    """লুপটা একটি নতুন DDP মডেলে চালায়, comm hook-এ allreduce গুনে; মডেলটা এখানেই ফুরোয়।"""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel

    model = DistributedDataParallel(torch.nn.Linear(4, 1))
    count = [0]

    def counting_hook(state, bucket):
        count[0] += 1
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(None, counting_hook)
    g = torch.Generator().manual_seed(0)
    names = {"model": model, "loss_fn": torch.nn.functional.mse_loss, "x": torch.randn(8, 4, generator=g),
             "y": torch.randn(8, 1, generator=g), "optimizer": torch.optim.SGD(model.parameters(), lr=0.01),
             "steps": steps, "accum": accum, "nullcontext": nullcontext}
    exec(loop, names)                         # এই মডিউলের নিজের লুপ, যা শিক্ষার্থী ছাপা দেখে
    names.clear()                             # exec-এর নামগুলোর মধ্যেও মডেল থাকে
    return count[0]


def check_no_sync_placement(answer, steps: int = 10, accum: int = 4) -> Verdict:
    """অনুশীলনী ০৪.২: NO_SYNC_LOOPS-এর A আর B লুপে steps × accum ছোট ধাপে কয়টি allreduce (এক bucket)।"""
    values, early = dict_answer(answer, tuple(NO_SYNC_LOOPS))
    if early is not None:
        return early
    truth = {key: _count_allreduces(loop, steps, accum) for key, loop in NO_SYNC_LOOPS.items()}
    hints = {key: f"{key}: এখানে no_sync()-এর ভেতরে {'শুধু backward' if key == 'A' else 'শুধু forward'}। DDP কখন "
                  "ঠিক করে যে এই ছোট ধাপের backward-এর শেষে allreduce হবে — forward চালানোর সময়, না backward-এর "
                  "সময়? no_sync()-এর নথির সতর্কবার্তাটা পড়ো।" for key in NO_SYNC_LOOPS}
    return check_fields(values, truth, hints,
                        "DDP ঠিক করে forward-এর সময়: no_sync()-এর ভেতরে forward হলে সেই backward-এর gradient জমে "
                        "থাকে, বাইরে হলে backward যেখানেই হোক allreduce হয়। তাই A-র no_sync() কিছুই বাঁচায় না (ফল "
                        "তবু ঠিক, শুধু ধীর), আর B ঠিক যেমন দরকার। forward আর backward দুটোই ভেতরে রাখাই নিরাপদ।")


# ---------------------------------------------------------------- ০৪.৩: ভুল লাইন খোঁজা

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
_BUGGY_ACCUMULATION_LINE = 4      # sync হওয়া উচিত শেষ ছোট ধাপে: micro_step == accum - 1


def check_accumulation_bug(answer) -> Verdict:
    """অনুশীলনী ০৪.৩: BUGGY_ACCUMULATION_LOOP-এর কোন লাইনে (১ থেকে গোনা) ভুল।"""
    if is_blank(answer):
        return blank_verdict()
    try:
        line = int(answer)
        whole = line == float(answer)                 # 4.5 নয়: int() ছেঁটে 4 বানাত
    except (TypeError, ValueError, OverflowError):   # OverflowError: int(inf)
        whole = False
    if not whole:
        return say(False, f"উত্তর একটি লাইন নম্বর (line number), ১ থেকে গোনা; পেয়েছি {answer!r}।", form=True)
    n_lines = len(BUGGY_ACCUMULATION_LOOP.splitlines())
    if line == _BUGGY_ACCUMULATION_LINE:
        return say(True, f"লাইন {line}: sync হয় প্রথম ছোট ধাপে, অথচ হওয়া উচিত শেষটিতে "
                          "(micro_step == accum - 1)। এখন শেষ k-1টি micro-batch-এর gradient কখনো allreduce হয় না, "
                          "তাই process-গুলোর ওজন আলাদা হয়ে যায় — কোনো ভুলবার্তা ছাড়াই।")
    if not 1 <= line <= n_lines:
        return say(False, f"loop-এ লাইন 1 থেকে {n_lines}; পেয়েছি {line}।", form=True)
    return say(False, f"লাইন {line} ঠিক আছে। accum = ৪ ধরে ভেতরের লুপটা হাতে চালাও: micro_step ০, ১, ২, ৩-এ "
                       "কোনটিতে allreduce হয়, আর হওয়া উচিত কোনটিতে, যাতে সব micro-batch-এর gradient তাতে ধরা পড়ে? "
                       "কোন লাইন সেটা ঠিক করে?")


# ---------------------------------------------------------------- ০৪.৪: মেমরির বাজেটে micro আর k

def _best_micro_and_k(budget: float, fixed: float, per_example: float, target: int, world: int) -> dict:
    per_rank = target // world
    fits = [m for m in range(1, per_rank + 1) if per_rank % m == 0 and fixed + m * per_example <= budget]
    if not fits:
        raise ValueError("এই বাজেটে একটি উদাহরণও ধরে না (nothing fits in this budget); বাজেট বাড়াও")
    micro = max(fits)
    return {"micro": micro, "k": per_rank // micro}


def check_micro_and_k(answer, budget: float, fixed: float, per_example: float, target: int, world: int) -> Verdict:
    """অনুশীলনী ০৪.৪ (মেমরির বাজেটে বাছাই): কার্যকর ব্যাচ target রেখে সবচেয়ে বড় কোন micro-batch আর কত k।"""
    answer, early = dict_answer(answer, ("micro", "k"), numbers=False)
    if early is not None:
        return early
    if target % world:
        raise ValueError(f"target {target} world {world} দিয়ে বিভাজ্য নয় (target must divide by world size)")
    truth = _best_micro_and_k(budget, fixed, per_example, target, world)
    counts = [finite_number(answer[key]) for key in ("micro", "k")]
    if any(c is None or c < 1 or c != int(c) for c in counts):
        return say(False, f"micro আর k দুটোই ধনাত্মক পূর্ণসংখ্যা (whole number) চাই; পেয়েছি micro={answer['micro']!r}, "
                           f"k={answer['k']!r}। ভগ্নাংশ ধাপ হয় না: micro-কে প্রতি process-এর ভাগ (target ÷ world = "
                           f"{target // world})-এর একটি ভাজক হতে হবে।")
    micro, k = (int(c) for c in counts)
    if micro * k * world != target:
        divides = "" if (target // world) % micro == 0 else (
            f" {micro} দিয়ে {target // world} (target ÷ world) ভাগ যায় না, তাই কোনো পূর্ণ k-তেই মিলবে না।")
        return say(False, f"micro × k × world = {micro} × {k} × {world} = {micro * k * world}, কিন্তু কার্যকর ব্যাচ "
                           f"{target} থাকতে হবে।{divides}")
    if fixed + micro * per_example > budget:
        return say(False, "এই micro-batch ধরে না: স্থির ভাগ (ওজন, gradient, optimizer) আর micro × প্রতি উদাহরণের "
                           "activation যোগ করে বাজেটের সঙ্গে মেলাও।")
    if micro != truth["micro"]:
        return say(False, "ধরে, কিন্তু আরও বড় micro-batch-ও ধরে — বড় micro-batch মানে কম ছোট ধাপ, তাই দ্রুত। "
                           "micro-কে প্রতি process-এর ভাগ (target ÷ world)-এর একটি ভাজক হতে হবে।")
    return say(True, "বাজেটে ধরে এমন সবচেয়ে বড় micro-batch, আর k দিয়ে কার্যকর ব্যাচ অটুট।")


# ---------------------------------------------------------------- ০৪.৫: process-গুলোর নিজের গড়

RANK_TOKENS = (12, 60)
"""অনুশীলনী ০৪.৫: দুটি process-এর আসল token-এর সংখ্যা (padding বাদে) — process ০-এ ছোট বাক্য, ১-এ লম্বা।"""


def _rank_mean_weights(tokens) -> torch.Tensor:
    """প্রতিটি process নিজের token-এর গড় loss নেয়, DDP gradient গড় করে: প্রতিটি token-এর ভার, autograd চালিয়ে
    মাপা (token t-এর loss একটি আলাদা ওজন θ_t)।"""
    grads = []
    for rank, part in enumerate(tokens):
        theta = torch.zeros(sum(tokens), dtype=torch.float64, requires_grad=True)
        start = sum(tokens[:rank])
        theta[start:start + part].mean().backward()         # F.cross_entropy-র ডিফল্ট: নিজের token-এর গড়
        grads.append(theta.grad)
    return torch.stack(grads).mean(dim=0)                    # DDP-র allreduce: সব process-এর gradient-এর গড়


def check_rank_mean_weights(answer, tokens=RANK_TOKENS) -> Verdict:
    """অনুশীলনী ০৪.৫: প্রতিটি process নিজের গড় নিলে process ০ আর ১-এর একটি token-এর ভার, ঠিক ভারের (1/মোট token)
    কত গুণ; উত্তর {"rank0": ..., "rank1": ...}।"""
    values, early = dict_answer(answer, ("rank0", "rank1"))
    if early is not None:
        return early
    weights = _rank_mean_weights(tuple(tokens)) * sum(tokens)        # ঠিক ভার 1/T-এর গুণ হিসেবে
    starts = (0, tokens[0])
    truth = {f"rank{r}": weights[starts[r]].item() for r in range(2)}
    wrong = [key for key in truth if not math.isclose(values[key], truth[key], rel_tol=1e-3)]
    if not wrong:
        return say(True, "ছোট বাক্যের process-এর প্রতিটি token অনেক ভারী, লম্বা বাক্যেরটির হালকা: DDP প্রতিটি process-কে "
                          "সমান ভার দেয়, token-কে নয় — অংশ ৪.২-এর micro-batch-এর গড় / k-এর ভুলটাই, এবার process-এর "
                          "মধ্যে। সারাতে যোগফল ÷ সব process-এর মোট token, সঙ্গে × world size।")
    if all(math.isclose(values[k], 1.0) for k in wrong):
        return say(False, "১ হতো, যদি প্রতিটি token-এর ভার সমান হতো। কিন্তু এখানে কেউ token গোনেনি: প্রতিটি process নিজের "
                          "গড় নেয়। সেই গড়ে নিজের একটি token-এর ভার কত, আর DDP-র গড়ের পরে তার কত থাকে?")
    return say(False, f"মেলেনি: {', '.join(wrong)}। ধাপে ধাপে লেখো: একটি process-এর নিজের গড়ে তার একটি token-এর ভার "
                      "কত (তার token-এর সংখ্যা দিয়ে)? DDP দুই process-এর gradient যোগ করে কত দিয়ে ভাগ করে? শেষে ঠিক "
                      "ভার (1 ÷ দুই process মিলিয়ে মোট token) দিয়ে ভাগ করো।")
