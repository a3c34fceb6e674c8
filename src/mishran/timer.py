"""কোর্সের একটাই ঘড়ি: GPU-র কাজ শেষ হওয়া পর্যন্ত অপেক্ষা (synchronize), warm-up বাদ, তারপর সময় (পাঠ ০৩, ০৬–০৯)।

GPU-তে কাজ পাঠিয়েই Python পরের লাইনে চলে যায়; তাই ঘড়ি দেখার আগে-পরে sync না করলে মাপা হয় শুধু কাজ পাঠানোর
সময়। প্রথম কয়েকটি step-এ kernel বাছা, cache ভরা, compile হয় — সেগুলো (warm-up) গড়ে ধরলে গতি কম দেখায়।

    from mishran.timer import time_steps
    seconds = time_steps(lambda: step(model, batch), steps=5, device="cuda", warmup=2)   # প্রতি step-এর সেকেন্ড
"""
from __future__ import annotations

import time

import torch

__all__ = ["sync", "mark", "seconds_between", "time_steps"]


def sync(device) -> None:
    """GPU-কে পাঠানো সব কাজ শেষ হওয়া পর্যন্ত অপেক্ষা; CPU-তে কিছুই না। device: 'cpu', 'cuda', 'cuda:1' বা torch.device।"""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def mark(device):
    """একটি সময়-চিহ্ন, sync ছাড়াই: GPU-তে CUDA event (GPU যখন ওখানে পৌঁছায় তখনকার সময়), CPU-তে ঘড়ি।"""
    if torch.device(device).type == "cuda":
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event
    return time.perf_counter()


def seconds_between(start, end) -> float:
    """mark()-এর দুটি চিহ্নের মাঝের সেকেন্ড; GPU-তে এখানেই অপেক্ষা হয় (শেষ event পর্যন্ত)।"""
    if isinstance(start, float):
        return end - start
    end.synchronize()
    return start.elapsed_time(end) / 1000


def time_steps(step, steps: int, device, warmup: int = 0) -> list[float]:
    """step() প্রথমে warmup বার (মাপা হয় না), তারপর steps বার; ফেরত: প্রতিটি মাপা step-এর সেকেন্ড।

    প্রতিটি step-এর আগে-পরে sync, তাই একটি step-এর সময়ে আগের step-এর বাকি কাজ ঢোকে না।
    """
    for _ in range(warmup):
        step()
    sync(device)
    seconds = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        sync(device)
        seconds.append(time.perf_counter() - start)
    return seconds
