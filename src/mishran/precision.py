"""প্রশিক্ষণের precision-এর একমাত্র মালিক: নাম, dtype, এই device-এ কোনটা, তার autocast আর GradScaler (পাঠ ০৩, ০৫)।

nanoGPT-এর মতো একটা নাম থেকেই বাকি সব আসে:

    name = resolve("auto", "cuda")             # T4 → 'fp16', A100/H100/CPU → 'bf16'
    ctx = autocast("cuda", name)               # fp32-এ বন্ধ (disabled) context
    scaler = grad_scaler("cuda", name)         # শুধু fp16-এ চালু

DeepSpeed-এর config-এও একই নাম: ds_block(name) config-এর block দেয়, from_ds_config(config) নামটা ফেরত পড়ে।
নতুন একটি precision-এর নাম যোগ করতে শুধু এই ফাইলটি বদলাতে হয়।
"""
from __future__ import annotations

import torch

from mishran import hardware
from mishran.checks import device_type
from mishran.numerics import formats

__all__ = ["PRECISIONS", "NAMES", "check", "dtype_of", "name_of", "for_device", "resolve",
           "needs_loss_scaling", "autocast", "grad_scaler", "ds_block", "from_ds_config"]

PRECISIONS = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
"""প্রশিক্ষণের precision-এর নাম → যে dtype-এ হিসাব চলে (autocast-এর dtype; fp32 মানে autocast বন্ধ)।"""

NAMES = tuple(PRECISIONS)

# DeepSpeed config-এর যে block যে precision চালু করে ("bfloat16" DeepSpeed-এর পুরোনো বানান, একই জিনিস)
_DS_KEYS = {"fp16": ("fp16",), "bf16": ("bf16", "bfloat16")}


def check(name, allow_auto: bool = False, error: type[Exception] = ValueError) -> str:
    """name একটি চেনা precision কি না দেখে ফেরত দেয়; না হলে বাংলা + ইংরেজি বার্তায় `error` (সব পাঠ)।

    allow_auto=True হলে 'auto' (এই device দেখে বাছাই) আর None-ও চলে, দুটোই 'auto' হিসেবে ফেরে।
    """
    if allow_auto and (name is None or name == "auto"):
        return "auto"
    if isinstance(name, str) and name in PRECISIONS:
        return name
    hint = ""
    if name == "tf32":
        hint = (" TF32 কোনো autocast dtype নয়, এটি FP32 matmul-এর একটি mode: precision='fp32' রেখে "
                "torch.set_float32_matmul_precision('high') চালু করো।")
    elif isinstance(name, torch.dtype) and name in PRECISIONS.values():
        hint = f" dtype নয়, নাম দাও: {name_of(name)!r}।"
    choices = ", ".join(repr(n) for n in (("auto",) if allow_auto else ()) + NAMES)
    raise error(f"অচেনা precision {name!r} (unknown precision); বেছে নাও: {choices}।{hint}")


def dtype_of(name) -> torch.dtype:
    """'bf16' → torch.bfloat16; fp32 → torch.float32 (পাঠ ০৩)।"""
    return PRECISIONS[check(name)]


def name_of(dtype) -> str:
    """torch.bfloat16 → 'bf16' (PRECISIONS-এর উল্টো)।"""
    for name, known in PRECISIONS.items():
        if dtype == known:
            return name
    raise ValueError(f"dtype {dtype!r} কোনো প্রশিক্ষণের precision নয় (not a training precision); চেনা: "
                     f"{', '.join(str(d).removeprefix('torch.') for d in PRECISIONS.values())}")


def for_device(device=None, capability=None) -> str:
    """এই device-এ mixed precision-এর নাম — কোর্সের একমাত্র নিয়ম (পাঠ ০০, ০৩, ০৫, ০৮):

    - CPU: 'bf16' (CPU autocast BF16-ই সবচেয়ে ভালো চেনে)।
    - BF16 hardware আছে (sm_80+: A100, H100/H200, RTX 30/40): 'bf16' — loss scaling লাগে না।
    - শুধু FP16 tensor core (sm_70/sm_75: V100, T4): 'fp16' + loss scaling। T4-এ torch.cuda.is_bf16_supported()
      True বলে, কারণ সে emulation-ও গোনে; কিন্তু BF16 hardware নেই, তাই তা ধীর।
    - আরও পুরোনো GPU: 'fp32' (tensor core নেই, AMP-এ লাভ সামান্য)।
    capability দিলে (যেমন (7, 5)) GPU ছাড়াই সিদ্ধান্তটা দেখা যায়; না দিলে এই মেশিন দেখে (MISHRAN_SIMULATE_CC মেনে)।
    device কী পারে তা বলে mishran.hardware; কোনটা নেওয়া উচিত, তা এখানে।
    """
    if capability is None:
        kind = hardware.default_device() if device is None else device_type(device)
        if kind == "cpu":
            return "bf16"
        capability = hardware.gpu_capability()           # MISHRAN_SIMULATE_CC মেনে
        if capability is None:
            raise RuntimeError("CUDA GPU পাওয়া যায়নি (CUDA is not available); device='cpu' দাও")
    try:
        major, minor = (int(v) for v in capability)
    except (TypeError, ValueError):
        raise ValueError(f"compute capability হবে (major, minor) জোড়া, যেমন (7, 5) (a (major, minor) pair); "
                         f"পেয়েছি {capability!r:.40}") from None
    features = hardware.capability_features((major, minor))
    return "bf16" if features["bf16"] else "fp16" if features["fp16_tensor_cores"] else "fp32"


def resolve(name, device=None, capability=None) -> str:
    """'auto' (বা None) হলে for_device(device), নইলে যাচাই করা নামটাই।"""
    name = check(name, allow_auto=True)
    return for_device(device, capability) if name == "auto" else name


def needs_loss_scaling(name) -> bool:
    """এই precision-এ GradScaler লাগে কি না (পাঠ ০২): FP16-এর পরিসর ছোট, তাই লাগে; BF16-এর পরিসর FP32-এর সমান, লাগে না।
    নাম বা dtype। নিয়মটা ফরম্যাটের (formats.needs_loss_scaling: exponent-এর বিট FP32-এর চেয়ে কম কি না)।"""
    return formats.needs_loss_scaling(dtype_of(name_of(name) if isinstance(name, torch.dtype) else check(name)))


def autocast(device, name):
    """এই device আর precision-এর autocast context (পাঠ ০৩)। fp32-এ এটি বন্ধ থাকে — একই কোড, সুইচ আলাদা।"""
    dtype = dtype_of(name)
    return torch.amp.autocast(device_type(device), dtype=dtype, enabled=name != "fp32")


def grad_scaler(device, name, **kwargs) -> torch.amp.GradScaler:
    """GradScaler, যা শুধু যেখানে loss scaling লাগে (fp16) সেখানে চালু; kwargs যায় torch.amp.GradScaler-এ (পাঠ ০৩)।"""
    return torch.amp.GradScaler(device_type(device), enabled=needs_loss_scaling(name), **kwargs)


def ds_block(name) -> dict:
    """DeepSpeed config-এ এই precision-এর block: {'bf16': {'enabled': True}}; fp32-এ {} (পাঠ ০৫)। FP16-এর loss
    scaling-এর key-গুলো (loss_scale, hysteresis, ...) যোগ করে mishran.engines.deepspeed_config।"""
    name = check(name)
    return {_DS_KEYS[name][0]: {"enabled": True}} if name in _DS_KEYS else {}


def from_ds_config(config: dict, error: type[Exception] = ValueError) -> str:
    """একটি DeepSpeed config কোন precision চালু করে: 'fp16', 'bf16' বা 'fp32' (পাঠ ০৫, ০৮)।

    একটা block থাকলেই হয় না, তার "enabled" সত্য হতে হয় — DeepSpeed-ও তা-ই দেখে। block dict না হলে
    (যেমন "fp16": true) বা দুটি একসঙ্গে চালু হলে বাংলা + ইংরেজি বার্তায় `error`।
    """
    found = []
    for name, keys in _DS_KEYS.items():
        for key in keys:
            block = config.get(key, {})
            if not isinstance(block, dict):
                raise error(f'config-এর "{key}" হবে একটি dict, যেমন {{"enabled": true}} ("{key}" must be a dict); '
                            f"পেয়েছি {block!r}")
            if block.get("enabled", False):
                found.append(name)
                break
    if len(found) > 1:
        raise error(f"{' আর '.join(n.upper() for n in found)} একসঙ্গে চালু করা যায় না ({' and '.join(found)} "
                    "cannot both be enabled); config-এ একটির enabled মুছে দাও।")
    return found[0] if found else "fp32"
