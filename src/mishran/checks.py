"""শিক্ষার্থীর দরজায় যাচাই: পাঠে বা command line-এ যা আসে তা ঠিক কি না, না হলে বাংলা + ইংরেজি বার্তা।

ভেতরের ফাংশন এগুলো ডাকে না; তারা ডাকনেওয়ালাকে বিশ্বাস করে।
"""
from __future__ import annotations

import math
import numbers

__all__ = ["positive_int", "as_bool", "finite_float", "as_seed", "device_type", "as_device", "float_tensor",
           "positive_scale"]


def positive_int(value, name: str, error: type[Exception] = ValueError) -> int:
    """value একটি ধনাত্মক পূর্ণসংখ্যা (bool নয়) হলে int ফেরত দেয়, নইলে বাংলা + ইংরেজি বার্তায় error (সব পাঠ)।"""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise error(f"{name} হবে ধনাত্মক পূর্ণসংখ্যা ({name} must be a positive integer); পেয়েছি {value!r}")
    if value > 2 ** 62:
        raise error(f"{name} অবাস্তব রকম বড়, {len(str(value))} অঙ্কের ({name} is too large; at most 2**62)")
    return int(value)


def as_bool(value, name: str) -> bool:
    """True/False (বা 0/1) হলে bool, নইলে বাংলা + ইংরেজি বার্তায় TypeError (সব পাঠ)।"""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{name} হবে True বা False ({name} must be True or False); পেয়েছি {value!r}")


def finite_float(value, name: str, minimum: float | None = None, positive: bool = False) -> float:
    """একটি সসীম সংখ্যা (এক উপাদানের tensor-ও চলে) → float; নইলে বাংলা + ইংরেজি বার্তায় ভুল (সব পাঠ)।

    minimum দিলে value ≥ minimum চাই; positive=True দিলে value > 0।
    """
    if hasattr(value, "numel") and hasattr(value, "item") and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} হবে একটি সংখ্যা ({name} must be a real number); পেয়েছি {value!r}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} হবে সসীম সংখ্যা ({name} must be finite); পেয়েছি {value!r}")
    if positive and not number > 0:
        raise ValueError(f"{name} হবে ধনাত্মক ({name} must be positive); পেয়েছি {value!r}")
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} হবে অন্তত {minimum:g} ({name} must be >= {minimum:g}); পেয়েছি {value!r}")
    return number


def as_seed(seed, name: str = "seed") -> int | None:
    """None, বা torch.manual_seed যা নেয় এমন পূর্ণসংখ্যা (0 থেকে 2**64 − 1) (সব পাঠ)।"""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"{name} হবে 0 থেকে 2**64 − 1-এর একটি পূর্ণসংখ্যা, বা None ({name} must be a non-negative "
                         f"integer below 2**64); পেয়েছি {seed!r}")
    return int(seed)


def device_type(device, error: type[Exception] = ValueError) -> str:
    """'cpu', 'cuda', 'cuda:1' বা torch.device → 'cpu'/'cuda'; অন্য কিছু হলে বাংলা + ইংরেজি বার্তায় ভুল (সব পাঠ)।

    কোর্সে device-এর নাম পড়া হয় শুধু এখানে; GPU আছে কি না দেখে as_device।
    """
    import torch

    if isinstance(device, torch.device):
        return device.type
    if not isinstance(device, str):
        raise error(f"device হবে 'cpu', 'cuda' বা torch.device (device must be a device name); পেয়েছি {device!r}")
    try:
        return torch.device(device).type
    except RuntimeError:
        raise error(f"অচেনা device {device!r} (unknown device); যেমন 'cpu' বা 'cuda'") from None


def as_device(device, name: str = "device"):
    """'cpu', 'cuda', 'cuda:1' বা torch.device → torch.device; অচেনা নাম বা GPU ছাড়া 'cuda' হলে পরিষ্কার ভুল (সব পাঠ)।"""
    import torch

    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"{name} হবে 'cpu', 'cuda' বা torch.device ({name} must be a device name); "
                        f"পেয়েছি {device!r}")
    if device_type(device) == "cuda" and not torch.cuda.is_available():
        raise ValueError("এখানে CUDA GPU নেই (CUDA is not available); device='cpu' দাও")
    return torch.device(device)


def float_tensor(value, name: str):
    """value একটি অখালি ভাসমান বিন্দুর tensor হলে তা-ই ফেরত দেয়, নইলে বাংলা + ইংরেজি বার্তায় TypeError (পাঠ ০৬, ০৭)।"""
    import torch

    if not isinstance(value, torch.Tensor) or not value.is_floating_point() or value.numel() == 0:
        shown = f"{tuple(value.shape)} {value.dtype}" if isinstance(value, torch.Tensor) else type(value).__name__
        raise TypeError(f"{name}: ভাসমান বিন্দুর অখালি tensor চাই ({name} must be a non-empty floating-point tensor); "
                        f"পেয়েছি {shown}")
    return value


def positive_scale(value, name: str = "scale"):
    """ধনাত্মক সসীম সংখ্যা, বা তেমন মানের অখালি tensor (যেমন প্রতি সারির scale) → float32 tensor (পাঠ ০৬, ০৭)।"""
    import torch

    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = torch.tensor(float(value) if abs(value) < 1e300 else math.inf)
    ok = isinstance(value, torch.Tensor) and value.numel() > 0 and not value.is_complex()
    if not ok or not bool((torch.isfinite(value) & (value > 0)).all()):
        raise ValueError(f"{name} হবে ধনাত্মক সসীম সংখ্যা বা তেমন মানের tensor ({name} must be positive and finite); "
                         f"পেয়েছি {str(value)[:60]}")
    return value.float()
