"""একটি optimizer step-এর চারপাশের loop, সব engine-এর জন্য একটাই: capstone, কয়েক-GPU-র launcher আর FSDP2 (পাঠ ০৫, ০৮, ০৯)।

step নিজে engine-এর (`amp_step`, `deepspeed_engine.engine_step`); loop আনে পরের micro-batch, মাপে সময়, নেয় সব rank-এর
loss-এর গড়, আর ডাকে ডাকনেওয়ালার কাজ (held-out মূল্যায়ন, আগেভাগে থামা):

    losses, seconds = run_steps(lambda batches: engine_step(engine, batches), stream.next_step, steps=100,
                                device=device, after_step=evaluate_every_50)
"""
from __future__ import annotations

import torch

from mishran.timer import mark, seconds_between, sync

__all__ = ["run_steps"]


def run_steps(step, next_batches, steps: int, device, before_step=None, after_step=None) -> tuple[list, list]:
    """steps-টি optimizer step; ফেরত: (প্রতি step-এ সব rank-এর সব micro-batch-এর গড় loss, প্রতি step-এর সেকেন্ড)।

    - next_batches() → এই step-এর micro-batch-গুলোর তালিকা (এই rank-এর)।
    - step(micro_batches) → এই rank-এর micro-batch-গুলোর loss-এর যোগফল, device-এর এক সংখ্যার tensor।
    - before_step(i): step i-এর আগে (যেমন learning rate বসানো); after_step(i) → True হলে loop থামে (early stopping)।
    সময়: step-এর আগে sync, পরে loss-এর .item() (তাতেও sync) — next_batches() সময়ের বাইরে।
    """
    distributed = torch.distributed.is_available() and torch.distributed.is_initialized()
    world = torch.distributed.get_world_size() if distributed else 1
    losses, seconds = [], []
    for i in range(steps):
        if before_step is not None:
            before_step(i)
        micro_batches = next_batches()
        sync(device)
        start = mark(device)
        step_loss = step(micro_batches).detach()
        if distributed:
            torch.distributed.all_reduce(step_loss)
        losses.append(step_loss.item() / (len(micro_batches) * world))
        seconds.append(seconds_between(start, mark(device)))
        if after_step is not None and after_step(i):
            break
    return losses, seconds
