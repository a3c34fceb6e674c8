"""অনুকরণের পাহারা (simulation guard): পুরোনো GPU-র ভান করে চালানোর সময় সে যা পারে না এমন পথ ধরা (পাঠ ০০–০৮-এর পরীক্ষা)।

শিক্ষার্থীর এটা লাগে না; কোর্সের রক্ষণাবেক্ষণের জন্য। MISHRAN_SIMULATE_CC (যেমন 7.5, Colab-এর T4) দিলে
mishran.hardware সিদ্ধান্তগুলো সেই capability ধরে নেয়; এই মডিউল তার ওপর পাহারা বসায়: BF16 autocast, TF32
আর FP8 matmul — T4-এ যা নেই — কোথাও ডাকা হলে লিখে রাখে। সাধারণত একটি sitecustomize.py-তে:

    from mishran import simulation; older_gpu_guard.guard_simulation("/tmp/t4_violations.txt")

কোন capability, তা পড়ে hardware থেকে (simulated_capability, capability_features); hardware এই মডিউল import
করে না, তাই GPU-র প্রশ্নের উত্তর পাহারা ছাড়াই একই থাকে।
"""
from __future__ import annotations

import traceback
from collections.abc import Callable

import torch

from mishran.hardware import SIMULATE_ENV, capability_features, simulated_capability

__all__ = ["guard_simulation"]


class _Recorder:
    """একটি লঙ্ঘন (violation) এক লাইনে: কী, আর কোন ফাইলের কোন লাইন ডেকেছে; strict হলে থামায়।"""

    def __init__(self, cap: tuple, log_path, strict: bool):
        self.cap, self.log_path, self.strict = cap, log_path, strict

    def __call__(self, what: str) -> None:
        frame = _caller()
        line = (f"sm_{self.cap[0]}{self.cap[1]}-এ নেই: {what} — {frame.filename}:{frame.lineno}: "
                f"{(frame.line or '').strip()}")
        if self.log_path:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        if self.strict:
            raise RuntimeError(f"{SIMULATE_ENV}: {line}")


def _caller():
    """যে কোড ডেকেছে তার frame: এই ফাইলের আর অন্য মোড়কের (যেমন sitecustomize) frame বাদ দিয়ে।"""
    return next(f for f in reversed(traceback.extract_stack()[:-1])
                if f.filename != __file__ and not f.filename.endswith("sitecustomize.py"))


def _patch_autocast(feats: dict, violation) -> Callable[[], None]:
    original = torch.amp.autocast.__init__

    def autocast_init(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if enabled and device_type == "cuda" and not feats["bf16"] and (
                dtype or torch.get_autocast_dtype("cuda")) == torch.bfloat16:
            violation("CUDA-তে BF16 autocast")
        return original(self, device_type, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    torch.amp.autocast.__init__ = autocast_init

    def undo():
        torch.amp.autocast.__init__ = original
    return undo


def _patch_matmul_precision(feats: dict, violation) -> Callable[[], None]:
    original = torch.set_float32_matmul_precision

    def set_matmul_precision(precision):
        if precision in ("high", "medium") and not feats["tf32"]:
            violation(f"TF32 (set_float32_matmul_precision({precision!r}))")
        return original(precision)

    torch.set_float32_matmul_precision = set_matmul_precision

    def undo():
        torch.set_float32_matmul_precision = original
    return undo


def _patch_scaled_mm(feats: dict, violation) -> Callable[[], None]:
    original = getattr(torch, "_scaled_mm", None)
    if original is None:                          # এই torch-এ FP8 matmul নেই: পাহারারও কিছু নেই
        return lambda: None

    def fp8_matmul(*args, **kwargs):
        if not feats["fp8"]:
            violation("FP8 matmul (torch._scaled_mm)")
        return original(*args, **kwargs)

    torch._scaled_mm = fp8_matmul

    def undo():
        torch._scaled_mm = original
    return undo


def guard_simulation(log_path=None, strict: bool = False):
    """অনুকরণ চালু থাকলে পাহারা: সেই পুরোনো GPU যা পারে না, এমন পথ নেওয়া হলে লিখে রাখে (strict হলে থামায়)।

    ধরে: CUDA-তে BF16 autocast (sm_80-এর আগে), TF32 চালু করা (set_float32_matmul_precision "high"/"medium"),
    FP8 matmul (torch._scaled_mm, sm_89-এর আগে)। প্রতিটির জন্য log_path-এ এক লাইন: কী, আর কোন লাইনের কোড।
    ফেরত: পাহারা তুলে নেওয়ার একটি ফাংশন (অনুকরণ বন্ধ থাকলে None, কিছুই বদলায় না)।
    """
    cap = simulated_capability()
    if cap is None:
        return None
    feats = capability_features(cap)
    violation = _Recorder(cap, log_path, strict)
    undos = [patch(feats, violation) for patch in (_patch_autocast, _patch_matmul_precision, _patch_scaled_mm)]

    def undo():
        for u in undos:
            u()
    return undo
