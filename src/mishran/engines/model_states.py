"""একটি rank কত byte-এর model state ধরে: ভাগ-করা storage একবার গুনে, optimizer-এর state সহ (পাঠ ০৬, ০৯)।"""
from __future__ import annotations

import torch

__all__ = ["unique_tensor_bytes", "optimizer_state_tensors"]


def unique_tensor_bytes(tensors) -> int:
    """tensor-গুলো মোট কত বাইট জায়গা নেয় (পাঠ ০৫, ০৯); একই জায়গা একবারই গোনা — একই tensor দুবার (TinyGPT-এর বাঁধা
    embedding), বা একটি flat buffer আর তার ভেতরের view (ZeRO-3-এর ভাগ)। None আর খালি tensor বাদ।"""
    spans = {}
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.numel():
            start = t.data_ptr()
            spans.setdefault(t.device, []).append((start, start + t.numel() * t.element_size()))
    total = 0
    for ranges in spans.values():
        end = 0
        for start, stop in sorted(ranges):                     # ঠিকানার ক্রমে; জোড়া লাগা অংশ একবার
            total += max(0, stop - max(start, end))
            end = max(end, stop)
    return total


def optimizer_state_tensors(optimizer) -> list:
    """optimizer-এর অবস্থার tensor-গুলো, যেমন AdamW-এর exp_avg আর exp_avg_sq (পাঠ ০৫, ০৯); 0-মাত্রার `step` বাদ।"""
    return [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor) and v.dim() > 0]
