"""কিছু module-কে FP32-এ চালানো, বাকি মডেল autocast-এ — check-up-এর পরামর্শ (keep_fp32) প্রয়োগের উপায় (পাঠ ১০)।

    with KeepFP32(model, report.keep_fp32):      # এই with-এর ভেতরে
        ...
    handle = KeepFP32(model, report.keep_fp32).apply()   # স্থায়ীভাবে; handle.undo() ফেরত আনে

প্রতিটি নামের module-এর forward মোড়ানো হয়: autocast বন্ধ (সেই device-এর), আর floating-point input-গুলো FP32-এ তোলা
(upcast) — ঠিক যা check-up-এর পরামর্শের কোড হাতে করতে বলে, মডেলের কোড না বদলে (যেমন Hugging Face-এর মডেলে)।
output FP32-এ থাকে; পরের op-গুলো autocast নিজের নিয়মে নামায়।
"""
from __future__ import annotations

import functools
from collections.abc import Mapping

import torch

__all__ = ["KeepFP32"]


def _upcast(obj):
    if isinstance(obj, torch.Tensor):
        return obj.float() if obj.is_floating_point() else obj
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_upcast(v) for v in obj)
    if isinstance(obj, Mapping):
        return {k: _upcast(v) for k, v in obj.items()}
    return obj


def _first_device(args, kwargs) -> str:
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            return value.device.type
    return "cpu"


def _in_fp32(forward):
    @functools.wraps(forward)
    def wrapped(*args, **kwargs):
        with torch.autocast(_first_device(args, kwargs), enabled=False):
            return forward(*_upcast(args), **_upcast(kwargs))
    return wrapped


class KeepFP32:
    """model-এর `names` (model.named_modules()-এর নাম) module-গুলো autocast-এর বাইরে, FP32-এ (পাঠ ১০)।

    with-block হিসেবে, বা apply() দিয়ে স্থায়ী; undo() (বা with-এর শেষ) প্রতিটি module-এর forward আগের মতো করে।
    অচেনা নাম দিলে ValueError, মডেলের নামগুলোর কয়েকটি দেখিয়ে।
    """

    def __init__(self, model: torch.nn.Module, names):
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"names হবে module-এর নামের list, যেমন ['block.attn'] (names must be a list of module "
                            f"names, as in model.named_modules()); পেয়েছি {names!r}")
        known = dict(model.named_modules())
        unknown = [n for n in names if n not in known]
        if unknown:
            some = ", ".join(repr(n) for n in list(known)[1:6])
            raise ValueError(f"মডেলে এই নামের module নেই (unknown module): {', '.join(map(repr, unknown))}; নামগুলো "
                             f"model.named_modules() থেকে, যেমন {some}")
        self.modules = [known[n] for n in dict.fromkeys(names)]
        self._saved: list = []

    def apply(self) -> KeepFP32:
        """মোড়ানো শুরু (স্থায়ী, undo() পর্যন্ত)।"""
        for m in self.modules:
            had = "forward" in vars(m)
            self._saved.append((m, had, vars(m).get("forward")))
            m.forward = _in_fp32(m.forward)
        return self

    def undo(self) -> None:
        """প্রতিটি module-এর forward আগের মতো।"""
        while self._saved:
            m, had, old = self._saved.pop()
            if had:
                m.forward = old
            else:
                del m.forward

    def __enter__(self) -> KeepFP32:
        return self.apply()

    def __exit__(self, *exc) -> None:
        self.undo()
