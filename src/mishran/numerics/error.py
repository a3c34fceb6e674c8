"""কম সূক্ষ্ম হিসাব আসল হিসাব থেকে কত দূরে: কোর্সের একমাত্র আপেক্ষিক ত্রুটি (relative error) (পাঠ ০৫, ০৭, ০৯)।"""
from __future__ import annotations

import math

import torch

__all__ = ["relative_error"]


def relative_error(got, reference) -> float:
    """‖got − reference‖₂ / ‖reference‖₂, FP64-এ (পাঠ ০৫, ০৭, ০৯)।

    got আর reference: একই মাপের দুটি tensor, বা একই ক্রমে tensor-এর দুটি list (যেমন মডেলের সব gradient) — তখন
    সবগুলো মিলিয়ে একটি norm। reference শূন্য হলে: got-ও শূন্য হলে 0, নইলে inf।
    """
    if isinstance(got, torch.Tensor):
        got, reference = [got], [reference]
    diff = norm = 0.0
    for g, r in zip(got, reference, strict=True):
        r = r.detach().reshape(-1).double()
        diff += float(((g.detach().reshape(-1).to(r.device, torch.float64) - r) ** 2).sum())
        norm += float((r ** 2).sum())
    if norm == 0:
        return 0.0 if diff == 0 else math.inf
    return math.sqrt(diff / norm)
