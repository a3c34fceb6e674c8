"""check-up কোন যন্ত্রের জন্য পরামর্শ দেবে: নাম ('t4', 'a100', ...), compute capability, বা এই device (পাঠ ১০)।

কোন precision নেওয়া উচিত তার নিয়ম একটাই, mishran.precision.for_device-এ; এখানে শুধু লক্ষ্যটা পড়া হয়, আর ঠিক
হয় কোন ১৬-বিট precision-গুলো চালিয়ে দেখতে হবে। হিসাব চলে এই device-এ, তার autocast-এর নিয়মে: লক্ষ্য GPU কিন্তু
হাতে CPU হলে সংখ্যাগুলো "emulated on CPU"।
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

from mishran import hardware, precision

__all__ = ["TARGETS", "Target", "resolve_target"]

TARGETS = {"cpu": None, "t4": (7, 5), "v100": (7, 0), "a100": (8, 0), "h100": (9, 0), "h200": (9, 0)}
"""লক্ষ্যের নাম → NVIDIA compute capability (CPU-র None)।"""


@dataclass(frozen=True)
class Target:
    """পড়া লক্ষ্য (পাঠ ১০): নাম, capability (CPU-তে None), নিয়মের প্রস্তাব (candidate), যে ১৬-বিট precision-গুলো
    চালাতে হবে, কার autocast-এর নিয়ম খাটছে (এই device-এর), আর হিসাব লক্ষ্যের যন্ত্রের বদলে এই device-এ emulation
    (emulated) কি না।"""

    label: str
    capability: tuple | None
    candidate: str
    precisions: tuple
    autocast_rules: str
    emulated: bool

    @property
    def device_type(self) -> str:
        """লক্ষ্যের autocast device_type: GPU হলে 'cuda', নইলে 'cpu' (পরামর্শের কোডে এটাই লেখা হয়)।"""
        return "cpu" if self.capability is None else "cuda"

    @property
    def numbers_label(self) -> str:
        """সংখ্যাগুলো কোথায় মাপা, বাংলায় আর ইংরেজি মূল শব্দে: 'CPU-তে emulation (emulated on CPU)' বা
        'CUDA-তে মাপা (measured on CUDA)'।"""
        where = self.autocast_rules.upper()
        if self.emulated:
            return f"{where}-তে emulation (emulated on {where})"
        return f"{where}-তে মাপা (measured on {where})"


def _capability(target, device_kind: str) -> tuple[str, tuple | None]:
    if target is None:
        if device_kind == "cpu":
            return "cpu", None
        cap = hardware.gpu_capability()
        return f"sm_{cap[0]}{cap[1]}", cap
    if isinstance(target, str):
        key = target.strip().lower()
        if key not in TARGETS:
            raise ValueError(f"অচেনা target {target!r} (unknown target); বেছে নাও: {', '.join(TARGETS)}, "
                             "বা compute capability যেমন (7, 5), বা None (এই device)")
        return key, TARGETS[key]
    if (isinstance(target, tuple) and len(target) == 2
            and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0 for v in target)):
        cap = (int(target[0]), int(target[1]))
        return f"sm_{cap[0]}{cap[1]}", cap
    raise TypeError(f"target হবে একটি নাম ({', '.join(TARGETS)}), compute capability (major, minor) যেমন (7, 5), "
                    f"বা None (target must be a name or a capability pair); পেয়েছি {target!r}")


def resolve_target(target, device_kind: str) -> Target:
    """target ('cpu', 't4', 'a100', 'h200', ..., (7, 5) বা None = এই device) আর যে device-এ হিসাব চলবে
    ('cpu'/'cuda') থেকে Target (পাঠ ১০)। যে ১৬-বিট precision-গুলো চালানো হয়: GPU-তে BF16 hardware থাকলে BF16 আর
    FP16, নইলে শুধু FP16; CPU-র লক্ষ্যে শুধু BF16 (CPU-তে FP16 প্রশিক্ষণের পথ নয়, আর CPU-র FP16 conv খুব ধীর)।"""
    label, cap = _capability(target, device_kind)
    if cap is None:
        candidate, sixteen = precision.for_device("cpu"), ("bf16",)
    else:
        candidate = precision.for_device(capability=cap)
        sixteen = ("bf16", "fp16") if hardware.capability_features(cap)["bf16"] else ("fp16",)
    return Target(label, cap, candidate, sixteen, device_kind, emulated=(cap is not None) != (device_kind == "cuda"))
