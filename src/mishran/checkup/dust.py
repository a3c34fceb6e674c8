"""rounding-এর গুঁড়ো (rounding dust): FP32-এর যে gradient গণিতে শূন্য, কিন্তু rounding-এর জন্য ছোট একটি সংখ্যা হয়ে
আসে — যেমন attention-এর key-র bias (softmax প্রতিটি সারিতে একই সংখ্যা যোগে বদলায় না) বা BatchNorm-এর ঠিক আগের bias
(BatchNorm গড় বিয়োগ করে)। এমন gradient FP16-এ শূন্য হলে কোনো ক্ষতি নেই, অথচ তারাই loss scale-এর জানালার নিচের
প্রান্ত ওপরে টানতে পারে (পাঠ ১০)।

সন্দেহ আসে FP32-এর histogram থেকে (gradients.without_dust: মডেলের সবচেয়ে বড় gradient-এর 2**-24 ভাগেরও নিচে), আর যাচাই
হয় মডেলের একটি FP64 কপিতে একই step চালিয়ে: সত্যিকারের ছোট gradient FP64-এও প্রায় একই থাকে, গুঁড়ো নেমে যায় FP64-এর
rounding-এর মাপে (সবচেয়ে বড়টির 2**-44 ভাগের নিচে, প্রায়ই ঠিক শূন্যে)।
"""
from __future__ import annotations

import copy

import torch

from mishran.checkup.gradients import DUST_BELOW, scale_range, without_dust
from mishran.checkup.step import NoDropout, loss_of, run_model

__all__ = ["FP64_DUST_BELOW", "CONFIRMED_SHARE", "biggest", "edge_setters", "confirm_in_fp64"]

FP64_DUST_BELOW = 2.0 ** -44
"""FP64-এ সবচেয়ে বড় gradient-এর এত ভাগের নিচে নামলে গুঁড়োটা গণিতে শূন্য ধরা হয় (FP32-এর সীমার চেয়ে 2**20 গুণ নিচে)।"""

CONFIRMED_SHARE = 0.9
"""FP32-এর গুঁড়োর অন্তত এত ভাগ FP64-এ নেমে গেলে parameter-টির গুঁড়ো যাচাই হলো।"""


def biggest(scale) -> float:
    """মডেলের সবচেয়ে বড় gradient (parameter-এর বা activation-এর): গুঁড়োর সীমা এর ভাগে মাপা।"""
    return max(scale.max_grad, scale.max_activation_grad)


def edge_setters(histograms: dict, scale) -> tuple[list[str], object]:
    """(যে parameter-গুলোর গুঁড়ো বাদ দিলে জানালার নিচের প্রান্ত বদলায়, গুঁড়ো বাদে জানালা — LossScaleRange); গুঁড়ো
    প্রান্ত না বদলালে ([], None)।"""
    clean, dusty = without_dust(histograms, biggest(scale))
    if not dusty:
        return [], None
    other = scale_range(clean, scale.max_grad, scale.max_activation_grad)
    return ([], None) if (other.low, other.window_ok) == (scale.low, scale.window_ok) else (dusty, other)


def _double(obj):
    """batch-এর ভেতরের floating tensor FP64-এ (tuple, list, dict-এর ভেতরেও); বাকি সব যেমন আছে।"""
    if isinstance(obj, torch.Tensor):
        return obj.double() if obj.is_floating_point() else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(_double(v) for v in obj)
    if isinstance(obj, dict):
        return {k: _double(v) for k, v in obj.items()}
    return obj


def confirm_in_fp64(model, inputs, target, loss_fn, fp32_grads: dict, names: list, scale) -> dict:
    """মডেলের FP64 কপিতে dropout ছাড়া এক forward/backward; ফেরত {নাম: গুঁড়ো কি না} — FP32-এ যে জায়গাগুলো গুঁড়ো
    (শূন্য নয়, কিন্তু ≤ biggest(scale) · DUST_BELOW), FP64-এ ঠিক সেই জায়গাগুলোর অন্তত CONFIRMED_SHARE ভাগ ≤ FP64-এর সবচেয়ে বড়
    gradient · FP64_DUST_BELOW হলে গুঁড়ো। FP64-এ না চললে (কোনো op-এর FP64 নেই, মেমরি কম, কপি করা যায় না) {নাম: None}
    — তখন সন্দেহটা সন্দেহই থাকে। দাম: মডেলের একটি FP64 কপি (ওজনের দ্বিগুণ বাইট, আর gradient) আর এক FP64 step।"""
    try:
        twin = copy.deepcopy(model).double()
        loss_twin = copy.deepcopy(loss_fn).double() if isinstance(loss_fn, torch.nn.Module) else loss_fn
        with torch.enable_grad(), NoDropout():
            loss = loss_of(run_model(twin, _double(inputs)), _double(target), loss_twin)
            loss.backward()
        grads = {n: p.grad for n, p in twin.named_parameters() if p.grad is not None}
        top = max(float(g.abs().max()) for g in grads.values())
        verdict = {}
        for n in names:
            g32 = fp32_grads[n].abs()
            dust = (g32 > 0) & (g32 <= biggest(scale) * DUST_BELOW)              # FP32-এর গুঁড়োর জায়গা
            gone = grads[n].abs().to(g32.device) <= top * FP64_DUST_BELOW         # FP64-এ সেখানে কী
            verdict[n] = int((dust & gone).sum()) >= CONFIRMED_SHARE * int(dust.sum())
    except Exception:  # noqa: BLE001 — যাচাই না হলে শুধু সন্দেহ; check-up থামে না
        return {n: None for n in names}
    return verdict
