"""চিত্রের ফাংশনগুলোর ইনপুট যাচাই (পাঠ ০০–০৮-এর plots আর figures)।

প্রতিটি চিত্রের ফাংশন `@checked(নাম="ধরন", ...)` দিয়ে বলে তার কোন ইনপুট কেমন হবে; ভুল হলে আঁকা শুরুর আগেই বাংলা
+ ইংরেজি বার্তায় TypeError বা ValueError, ইনপুটের নাম ধরে। ভেতরের গড়ন (যেমন bench.run()-এর ফলের dict-এ 'results')
না মিললে matplotlib বা Python-এর নিজের ভুলের বদলে বাংলা বার্তা, কোন ফাংশন কী চায় তা সহ; আর সেই ডাকে খোলা
চিত্রগুলো বন্ধ হয়, যাতে অর্ধেক আঁকা চিত্র নোটবুকে ঝুলে না থাকে।
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers
import re

__all__ = ["KINDS", "checked"]

_BENGALI = re.compile(r"[\u0980-\u09FF]")
LOG2_LIMIT = 1100          # 2^k-এর k: float64-এর সীমা 2^1024, আর scale 0/inf আঁকার দাগ (±1030) এর মধ্যেই


def _real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _finite(v) -> bool:
    try:
        return _real(v) and math.isfinite(v)
    except OverflowError:                        # 2**2000-এর মতো পূর্ণসংখ্যা float-এ আঁটে না
        return False


def _numbers(v) -> bool:
    """সংখ্যার list/tuple/range, বা 1-D tensor/array; NaN চলে (যেমন থেমে যাওয়া FP16 run-এর loss)।"""
    if hasattr(v, "ndim") and hasattr(v, "tolist"):
        return v.ndim == 1 and len(v) > 0 and all(_real(x) for x in v.tolist())
    return isinstance(v, (list, tuple, range)) and len(v) > 0 and all(_finite(x) or _real(x) and math.isnan(x)
                                                                      for x in v)


def _axes(v) -> bool:
    from matplotlib.axes import Axes
    return isinstance(v, Axes)


def _color(v) -> bool:
    from matplotlib.colors import is_color_like
    return isinstance(v, (str, tuple)) and is_color_like(v)


def _format(v) -> bool:
    from .formats import FORMATS
    return isinstance(v, str) and v in FORMATS


def _tensor(v) -> bool:
    import torch
    return isinstance(v, torch.Tensor) and v.numel() > 0 and not v.is_complex()


def _train_log(v) -> bool:
    """mishran.train.TrainLog-এর মতো: steps, scales, skipped তিনটি list, steps অখালি।"""
    parts = [getattr(v, name, None) for name in ("steps", "scales", "skipped")]
    return all(isinstance(p, (list, tuple)) for p in parts) and len(parts[0]) > 0


# ধরন → (যাচাই, বাংলায় কী চাই, ইংরেজিতে কী চাই, ভুলের শ্রেণি)
KINDS = {
    "axes": (_axes, "matplotlib-এর একটি Axes, যেমন fig, ax = plt.subplots()-এর ax", "a matplotlib Axes", TypeError),
    "text": (lambda v: isinstance(v, str), "লেখা (str)", "a str", TypeError),
    "number": (_finite, "একটি সসীম সংখ্যা", "a finite number", ValueError),
    "positive": (lambda v: _finite(v) and v > 0, "একটি ধনাত্মক সসীম সংখ্যা", "a positive finite number", ValueError),
    "log2": (lambda v: _finite(v) and abs(v) <= LOG2_LIMIT, f"2-এর ঘাত k, |k| ≤ {LOG2_LIMIT}",
             f"an exponent k of 2 with |k| <= {LOG2_LIMIT}", ValueError),
    "step": (lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and 0 <= v <= 2 ** 53,
             "ধাপের নম্বর, 0 বা ধনাত্মক পূর্ণসংখ্যা", "a step number (an integer >= 0)", ValueError),
    "width": (lambda v: _finite(v) and 0 < v <= 50, "রেখার চওড়া, 0-এর বেশি আর 50-এর মধ্যে",
              "a line width in (0, 50]", ValueError),
    "bool": (lambda v: isinstance(v, bool), "True বা False", "True or False", TypeError),
    "color": (_color, "matplotlib-এর একটি রং, যেমন '#1f77b4' বা 'red'", "a matplotlib color", ValueError),
    "format": (_format, "একটি ফরম্যাটের নাম, যেমন 'fp16'", "a format name", ValueError),
    "numbers": (_numbers, "সংখ্যার একটি অখালি list (বা 1-D tensor)", "a non-empty list of numbers", TypeError),
    "sequence": (lambda v: isinstance(v, (list, tuple)) and len(v) > 0, "একটি অখালি list বা tuple",
                 "a non-empty list or tuple", TypeError),
    "items": (lambda v: isinstance(v, (list, tuple)), "একটি list বা tuple (খালিও চলে)", "a list or tuple",
              TypeError),
    "dict": (lambda v: isinstance(v, dict), "একটি dict (খালিও চলে)", "a dict", TypeError),
    "mapping": (lambda v: isinstance(v, dict) and len(v) > 0, "একটি অখালি dict", "a non-empty dict", TypeError),
    "tensor": (_tensor, "সংখ্যার একটি অখালি tensor", "a non-empty numeric tensor", TypeError),
    "trainlog": (_train_log, "train()-এর ফল, একটি TrainLog (steps, scales, skipped সহ)",
                 "a TrainLog from mishran.train.train()", TypeError),
    "range": (lambda v: isinstance(v, (list, tuple)) and len(v) == 2 and all(_finite(x) for x in v)
              and 0 < v[1] - v[0] <= 2 * LOG2_LIMIT, "(নিচ, ওপর) জোড়া, নিচ < ওপর",
              "a (low, high) pair with low < high", ValueError),
}


def _check(where: str, name: str, value, kind: str) -> None:
    optional = kind.endswith("?")
    if optional and value is None:
        return
    ok, bengali, english, error = KINDS[kind.rstrip("?")]
    if not ok(value):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:80] + "…"
        raise error(f"{where}: {name} হবে {bengali}{' বা None' if optional else ''} ({name} must be {english}"
                    f"{' or None' if optional else ''}); পেয়েছি {shown}")


def checked(**kinds):
    """চিত্রের ফাংশনের ইনপুট যাচাই: `@checked(ax="axes", title="text", scale="positive", color="color?")`।

    ধরনের নাম KINDS থেকে; শেষে '?' মানে None-ও চলে। ভেতরের গড়ন না মিললে বাংলা বার্তায় ValueError।
    """
    for name, kind in kinds.items():
        if not isinstance(kind, str) or kind.rstrip("?") not in KINDS:
            raise ValueError(f"{name}-এর অচেনা ধরন {kind!r} (unknown kind); চেনা: {', '.join(KINDS)}")

    def wrap(fn):
        signature = inspect.signature(fn)
        unknown = [name for name in kinds if name not in signature.parameters]
        if unknown:
            raise ValueError(f"{fn.__name__}()-এর এমন কোনো ইনপুট নেই (no such parameter): {', '.join(unknown)}")
        where = f"{fn.__name__}()"
        wants = (inspect.getdoc(fn) or "").split("\n")[0]

        @functools.wraps(fn)
        def call(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, kind in kinds.items():
                _check(where, name, bound.arguments[name], kind)
            import matplotlib.pyplot as plt
            before = set(plt.get_fignums())
            try:
                return fn(*bound.args, **bound.kwargs)
            except (KeyError, IndexError, AttributeError, TypeError, ValueError, ZeroDivisionError, OverflowError,
                    RuntimeError) as err:
                for number in set(plt.get_fignums()) - before:      # অর্ধেক আঁকা চিত্র নোটবুকে না দেখাক
                    plt.close(number)
                if isinstance(err, (TypeError, ValueError)) and _BENGALI.search(str(err)):
                    raise                                            # কোর্সের নিজের বার্তা: যেমন আছে
                raise ValueError(f"{where}: ইনপুটের গড়ন মেলেনি (unexpected input: {type(err).__name__}: "
                                 f"{str(err)[:200]}); এই ফাংশন চায়: {wants}") from err
        return call
    return wrap
