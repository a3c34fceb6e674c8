"""অনুকরণের পাহারা (simulation guard): পুরোনো GPU-র ভান করে চালানোর সময় সে যা পারে না এমন পথ ধরা (পাঠ ০০–০৮-এর পরীক্ষা)।

শিক্ষার্থীর এটা লাগে না; কোর্সের রক্ষণাবেক্ষণের জন্য। MISHRAN_SIMULATE_CC (যেমন 7.5, Colab-এর T4) দিলে
mishran.hardware সিদ্ধান্তগুলো সেই capability ধরে নেয়; এই মডিউল তার ওপর পাহারা বসায়: BF16 autocast, TF32
আর FP8 matmul — T4-এ যা নেই — কোথাও ডাকা হলে লিখে রাখে। সাধারণত একটি sitecustomize.py-তে:

    from mishran import older_gpu_guard; older_gpu_guard.guard_simulation("/tmp/t4_violations.txt")
"""
from __future__ import annotations

import functools
import traceback
from collections.abc import Callable

import torch

from mishran.hardware import SIMULATE_ENV, capability_features, simulated_capability

__all__ = ["guard_simulation"]


def _recorder(cap: tuple, log_path, strict: bool) -> Callable[[str], None]:
    """একটি লঙ্ঘন (violation) এক লাইনে লেখার ফাংশন: কী, আর কোন ফাইলের কোন লাইন ডেকেছে; strict হলে থামায়।"""
    def record(what: str) -> None:
        frame = _caller()
        line = f"sm_{cap[0]}{cap[1]}-এ নেই: {what} — {frame.filename}:{frame.lineno}: {(frame.line or '').strip()}"
        if log_path:
            with open(log_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        if strict:
            raise RuntimeError(f"{SIMULATE_ENV}: {line}")
    return record


def _caller():
    """যে কোড ডেকেছে তার frame: এই ফাইলের আর অন্য মোড়কের (যেমন sitecustomize) frame বাদ দিয়ে।"""
    return next(f for f in reversed(traceback.extract_stack()[:-1])
                if f.filename != __file__ and not f.filename.endswith("sitecustomize.py"))


def _watch(owner, attr: str, breaks: Callable, violation: Callable[[str], None]) -> Callable[[], None]:
    """owner.attr-কে মোড়ে: প্রতিটি ডাকের আগে breaks(একই argument) লঙ্ঘনের বর্ণনা দিলে তা লিখে রাখে।
    ফেরত: আসলটি ফিরিয়ে আনার ফাংশন।"""
    original = getattr(owner, attr)

    @functools.wraps(original)
    def watched(*args, **kwargs):
        what = breaks(*args, **kwargs)
        if what:
            violation(what)
        return original(*args, **kwargs)

    setattr(owner, attr, watched)
    return functools.partial(setattr, owner, attr, original)


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
    violation = _recorder(cap, log_path, strict)

    def bf16_autocast(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if enabled and device_type == "cuda" and not feats["bf16"] and (
                dtype or torch.get_autocast_dtype("cuda")) == torch.bfloat16:
            return "CUDA-তে BF16 autocast"

    def tf32(precision):
        if precision in ("high", "medium") and not feats["tf32"]:
            return f"TF32 (set_float32_matmul_precision({precision!r}))"

    def fp8_matmul(*args, **kwargs):
        return None if feats["fp8"] else "FP8 matmul (torch._scaled_mm)"

    undos = [_watch(torch.amp.autocast, "__init__", bf16_autocast, violation),
             _watch(torch, "set_float32_matmul_precision", tf32, violation)]
    if hasattr(torch, "_scaled_mm"):                  # এই torch-এ FP8 matmul না থাকলে পাহারারও কিছু নেই
        undos.append(_watch(torch, "_scaled_mm", fp8_matmul, violation))

    def undo():
        for u in undos:
            u()
    return undo
