"""ছোট সাধারণ সাহায্যকারী, প্রতিটির একটাই ঘর (সব পাঠ ব্যবহার করে)।

ধনাত্মক পূর্ণসংখ্যার যাচাই, প্যাকেজের সংস্করণ পড়া আর তুলনা (packaging.version দিয়ে), process group-এর জন্য
খালি port (পাঠ ০৪-০৫)।
import-এর সময় এই মডিউল torch, deepspeed, matplotlib কিছুই import করে না (device_type আর as_device শুধু ডাকলে torch নেয়)।
"""
from __future__ import annotations

import importlib.metadata
import math
import numbers
import socket

from packaging.version import InvalidVersion, Version

__all__ = ["positive_int", "as_bool", "finite_float", "as_seed", "device_type", "as_device", "package_version",
           "parse_version", "version_at_least", "course_requirements", "free_port", "each_pair", "tensor_pairs",
           "unique_tensor_bytes", "optimizer_state_tensors"]


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
    if minimum is not None:                             # minimum নিজেও সংখ্যা হতে হবে, তুলনার আগে
        minimum = finite_float(minimum, "minimum")
    positive = as_bool(positive, "positive")
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

    কোর্সে device-এর নাম পড়া হয় শুধু এখানে। GPU আছে কি না এখানে দেখা হয় না: নাম পড়া আর যন্ত্র যাচাই দুটো আলাদা
    কাজ (যাচাই: as_device)। সবচেয়ে নিচের মডিউলে, যাতে hardware আর precision দুজনেই একে নিতে পারে।
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
    """'cpu', 'cuda', 'cuda:1' বা torch.device → torch.device; অচেনা নাম বা GPU ছাড়া 'cuda' হলে পরিষ্কার ভুল (সব পাঠ)।

    নামটা পড়ে device_type; এখানে বাড়তি শুধু যাচাই: CUDA সত্যিই আছে কি না।
    """
    import torch

    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"{name} হবে 'cpu', 'cuda' বা torch.device ({name} must be a device name); "
                        f"পেয়েছি {device!r}")
    if device_type(device) == "cuda" and not torch.cuda.is_available():
        raise ValueError("এখানে CUDA GPU নেই (CUDA is not available); device='cpu' দাও")
    return torch.device(device)


def package_version(name: str) -> str | None:
    """ইনস্টল করা প্যাকেজের সংস্করণ (যেমন '0.19.8'); ইনস্টল না থাকলে None (পাঠ ০০-এর device report, পাঠ ০৫)।"""
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"name হবে প্যাকেজের নাম, যেমন 'torch' (name must be a package name); পেয়েছি {name!r}")
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def parse_version(text: str) -> Version:
    """সংস্করণের লেখা → তুলনা করা যায় এমন Version ('2.11.0+cu130', '3.11.0rc1' চলে) (সব পাঠ)।"""
    try:
        return Version(str(text))
    except InvalidVersion:
        raise ValueError(f"সংস্করণ পড়া গেল না (not a version string): {text!r}") from None


def version_at_least(text: str, minimum: str) -> bool:
    """text-এর সংস্করণ minimum-এর সমান বা নতুন কি না; local অংশ (+cu130) আর pre-release-এর সংখ্যাটুকু ধরে (সব পাঠ)।"""
    return parse_version(text).release >= parse_version(minimum).release


def course_requirements(extra: str = "lab") -> tuple[str, list]:
    """কোর্সের প্যাকেজ (mishran) কী কী চায় (পাঠ ০০): (সংস্করণ, [(Requirement, এখনই লাগে কি না), ...])।

    মূল dependency-গুলো এখনই লাগে (True); `extra`-র গুলো (যেমন "lab": JupyterLab, DeepSpeed) পরের পাঠে বা শুধু
    নিজের যন্ত্রে (False)। mishran ইনস্টল করা থাকলে তার metadata থেকে পড়ে; ইনস্টল ছাড়া source থেকে চালালে
    (PYTHONPATH=src) পাশের pyproject.toml থেকে।
    """
    from packaging.requirements import Requirement
    if not isinstance(extra, str):
        raise TypeError(f"extra হবে extra-র নাম, যেমন 'lab' (extra must be a str); পেয়েছি {extra!r}")
    try:
        version, texts = importlib.metadata.version("mishran"), importlib.metadata.requires("mishran") or []
    except importlib.metadata.PackageNotFoundError:
        version, texts = _requirements_from_pyproject()
    found = []
    for text in texts:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": extra}):
            now = req.marker is None
            req.marker = None
            found.append((req, now))
    return version, found


def _requirements_from_pyproject() -> tuple[str, list[str]]:
    """ইনস্টল না করা checkout-এর pyproject.toml থেকে (সংস্করণ, requirement-এর লেখা, extras সহ)।"""
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        import tomllib
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    except (ImportError, OSError, KeyError) as exc:
        raise RuntimeError("mishran ইনস্টল করা নেই, pyproject.toml-ও পড়া গেল না (mishran is not installed and "
                           f"{path} could not be read: {exc!r}); কোর্সের ফোল্ডারে `pip install -e .` চালাও") from None
    texts = list(project.get("dependencies", []))
    for name, reqs in project.get("optional-dependencies", {}).items():
        texts += [f'{r}; extra == "{name}"' for r in reqs]
    return project["version"], texts


def free_port() -> int:
    """এই যন্ত্রের একটি খালি TCP port, MASTER_PORT-এর জন্য (পাঠ ০৪-এর DDP ডেমো, পাঠ ০৫-এর DeepSpeed)।"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def each_pair(micro_batches, name: str = "micro_batches"):
    """micro-batch-গুলো একটি একটি করে (পাঠ ০৩-এর amp_step, পাঠ ০৫-এর engine_step), প্রতিটি (x, y) দুটি tensor কি না
    দেখে; generator দিলে প্রতিটি যাচাই হয় লাগার ঠিক আগে। ভুল জিনিসে পরিষ্কার বার্তা, যাতে name থাকে।"""
    import torch

    if isinstance(micro_batches, (str, bytes, dict, torch.Tensor)) or not hasattr(micro_batches, "__iter__"):
        raise TypeError(f"{name} হবে (x, y)-এর তালিকা ({name} must be a list of (x, y) pairs); পেয়েছি "
                        f"{micro_batches!r}")

    def checked():
        for pair in micro_batches:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2 or \
                    not all(isinstance(t, torch.Tensor) for t in pair):
                raise TypeError(f"{name}-এর প্রতিটি জিনিস হবে (x, y) দুটি tensor (each item of {name} must be a pair "
                                f"of tensors); পেয়েছি {pair!r}")
            yield pair
    return checked()


def tensor_pairs(micro_batches, name: str = "micro_batches") -> list:
    """(x, y) tensor-জোড়ার তালিকা, সবগুলো আগেই যাচাই করা (পাঠ ০৫-এর engine_step, ds_numerics); নইলে পরিষ্কার বার্তা।"""
    return list(each_pair(micro_batches, name))


def unique_tensor_bytes(tensors) -> int:
    """tensor-গুলো মোট কত বাইট জায়গা নেয় (পাঠ ০৫, ০৯); একই জায়গা একবারই গোনা — একই tensor দুবার (TinyGPT-এর বাঁধা
    embedding), বা একটি flat buffer আর তার ভেতরের view (ZeRO-3-এর ভাগ)। None আর খালি tensor বাদ।"""
    import torch

    if isinstance(tensors, torch.Tensor) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"tensors হবে tensor-এর তালিকা (tensors must be an iterable of tensors); পেয়েছি "
                        f"{type(tensors).__name__}")
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
    import torch

    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer হবে একটি torch optimizer (optimizer must be a torch.optim.Optimizer); পেয়েছি "
                        f"{type(optimizer).__name__}")
    return [v for s in optimizer.state.values() for v in s.values() if isinstance(v, torch.Tensor) and v.dim() > 0]
