"""DeepSpeed-এর process-জোড়া অবস্থা: যা একটি engine বসায় আর engine ছেড়ে দিলেও থেকে যায় (পাঠ ০৫)।

নোটবুকে এক kernel-এ অনেক engine আসে-যায়; DeepSpeed 0.19.8 কয়েকটি জিনিস module-স্তরে রাখে, যা এক engine থেকে পরেরটিতে
চুপচাপ গড়ায়। mishran.ds প্রতিটি engine বানানোর আর ছাড়ার সময় এগুলো ডাকে:

- forget_torch_autocast: torch_autocast-এর flag (থাকলে পরের ZeRO-1/2 engine communication_data_type মানে না);
- restore_functional_linear: ZeRO-3-এর বসানো torch.nn.functional.linear (থাকলে পরের সব Linear তার ভেতর দিয়ে চলে);
- no_memory_report: BF16_Optimizer বানানোর সময়ের মেমরি-রিপোর্ট (GPU-র peak-এর গোনা শূন্য করে দেয়)।

প্রতিটি DeepSpeed-এর ভেতরের নাম পড়ে; নাম না মিললে (অন্য সংস্করণ) কিছুই বদলায় না।
এই মডিউল matplotlib বা ipywidgets import করে না।
"""
from __future__ import annotations

import contextlib

import torch

__all__ = ["forget_torch_autocast", "restore_functional_linear", "no_memory_report"]


def forget_torch_autocast(config: dict | None = None) -> bool:
    """DeepSpeed-এর torch_autocast-এর process-জোড়া স্মৃতি মোছে, যদি নতুন config torch_autocast না চায় (পাঠ ০৫)।

    DeepSpeed 0.19.8 কোনো engine-এ torch_autocast চালু হলে একটি module-স্তরের flag বসায়
    (deepspeed.runtime.torch_autocast.TORCH_AUTOCAST_INITIALIZED, সঙ্গে তার dtype), আর কখনো নামায় না। তারপর একই
    process-এর প্রতিটি ZeRO-1/2 optimizer (DeepSpeedZeroOptimizer) gradient reduce করে প্রতিটি ওজনের নিজের dtype-এ —
    config-এর communication_data_type না দেখে; আর flag-এর dtype FP16 হলে নিজের একটি GradScaler-ও বসায়। নোটবুকে
    (এক kernel, অনেক engine) তাই একবার torch_autocast চালালে পরের FP16 engine-এর FP32-এ জমানো যোগফল পাঠানোর
    সময় FP16-এ round হয়: মাপা আপেক্ষিক ভুল ~2e-4, flag ছাড়া ~1e-9। ds.initialize প্রতিটি নতুন engine-এর আগে
    এটা ডাকে। config-এ torch_autocast চালু থাকলে কিছু করে না। কিছু মুছলে True।
    """
    if config is not None and not isinstance(config, dict):
        raise TypeError(f"config হবে একটি dict বা None (config must be a dict or None); পেয়েছি {config!r}")
    if ((config or {}).get("torch_autocast") or {}).get("enabled"):
        return False
    try:
        import deepspeed.runtime.torch_autocast as autocast_module
    except ImportError:               # এই flag নেই এমন DeepSpeed: মোছার কিছু নেই
        return False
    if not getattr(autocast_module, "TORCH_AUTOCAST_INITIALIZED", False):
        return False
    autocast_module.TORCH_AUTOCAST_INITIALIZED = False
    autocast_module.TORCH_AUTOCAST_DTYPE = None
    return True


def restore_functional_linear() -> bool:
    """ZeRO-3 engine torch.nn.functional.linear-এর জায়গায় নিজের মেমরি-বাঁচানো linear বসায় — গোটা process-এর জন্য
    (DeepSpeed 0.19.8 নিজেই বলে: "This will persist unless manually reset")। engine ছাড়ার পরেও থেকে গেলে পরের
    সব Linear তার ভেতর দিয়ে চলে, আর autograd-এর saved tensor-এর নাম (যেমন _saved_mat2) হারায়। torch-এর নিজেরটা ফেরাই।
    ফেরালে True; ZeRO-3-এর linear বসানো না থাকলে (বা নাম না মিললে) কিছুই বদলায় না।"""
    try:
        from deepspeed.runtime.zero.linear import zero3_linear_wrap
        from deepspeed.runtime.zero.partition_parameters import InsertPostInitMethodToModuleSubClasses as patcher
    except ImportError:
        return False
    original = getattr(patcher, "linear_bk", None)
    if original is None or torch.nn.functional.linear is not zero3_linear_wrap:
        return False
    torch.nn.functional.linear = original
    return True


@contextlib.contextmanager
def no_memory_report():
    """engine বানানোর সময়টুকু BF16_Optimizer-এর see_memory_usage(force=True) বন্ধ রাখে।

    DeepSpeed 0.19.8-এর BF16_Optimizer (BF16 + ZeRO 1 + FP32-এ জমানো) বানানোর সময় সেটি সাতবার ডাকে: প্রতিবার
    gc.collect() (নোটবুকে প্রায় এক সেকেন্ড), print() দিয়ে মেমরির লাইন, আর GPU-র peak memory-র গোনা শূন্য করা —
    শেষেরটা আমাদের মেমরির মাপ ভেঙে দিত। নাম না মিললে (অন্য সংস্করণ) কিছুই বদলাই না।
    """
    import deepspeed.runtime.bf16_optimizer as bf16_module

    original = getattr(bf16_module, "see_memory_usage", None)
    if original is None:
        yield
        return
    bf16_module.see_memory_usage = lambda *args, **kwargs: None
    try:
        yield
    finally:
        bf16_module.see_memory_usage = original
