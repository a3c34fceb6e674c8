"""প্রশিক্ষণের পরের INT8 dynamic quantization, হাতে লেখা (পাঠ ০৬)।

`torch.ao.quantization.quantize_dynamic` deprecated; কোনো torch-এ তা সরে গেলে পাঠ ০৬ এটা ব্যবহার করে। পাঠ ০৭-এর FP8-এর
মতো করে লেখা: amax → scale → INT8-এ গোল → integer matmul (যোগ INT32-এ, হুবহু) → দুই scale দিয়ে ভাগ → bias। ওজনের scale
একবারই, প্রতিটি Linear-এর একটি (symmetric: শূন্য থাকে শূন্যে); ইনপুটের scale প্রতিটি forward-এ নতুন করে (dynamic)।
torch.ao ইনপুটে asymmetric quint8 আর দ্রুত kernel নেয়; এখানে সব symmetric — পড়া সহজ, কিন্তু ধীর।

scale-এর অর্থ এখানে আর mishran.numerics.fp8-এ একটাই (torchao-র মতো): যে সংখ্যা দিয়ে **গুণ** করলে মান ফরম্যাটের
পরিসরে বসে — scale = max ÷ amax; quantize = round(x × scale), ফেরানো = q ÷ scale। torch.ao-র `q_scale()` আর
`torch._scaled_mm`-এর scale_a/scale_b উল্টোটা, অর্থাৎ 1/scale।
"""
from __future__ import annotations

import copy

import torch
from torch import nn

from mishran.checks import as_bool, float_tensor, positive_scale
from mishran.numerics.fp8 import AMAX_FLOOR, amax

__all__ = ["INT8_MAX", "int8_scale", "to_int8", "dequantize", "DynamicInt8Linear", "quantize_dynamic"]

INT8_MAX = 127              # symmetric: -127 … 127 (−128 বাদ, যাতে দুই দিকের পরিসর সমান)


def int8_scale(x: torch.Tensor, dim: int | None = None) -> torch.Tensor:
    """scale = 127 ÷ amax, যাতে সবচেয়ে বড় পরম মানটি ঠিক 127-এ বসে; x × scale যায় INT8-এর পরিসরে (পাঠ ০৬)।

    dim=None: পুরো tensor-এর একটি scale; dim দিলে সেই মাত্রা ধরে প্রতিটির নিজের, আকার রেখে (যেমন ওজনে dim=1:
    প্রতি সারিতে একটি, আকার (সারি, 1))। সব শূন্য হলে amax-এর নিচের সীমা (AMAX_FLOOR), তাই scale সসীম।
    """
    x = float_tensor(x, "int8_scale")
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or not -x.dim() <= dim < x.dim()):
        raise ValueError(f"dim হবে None বা {-x.dim()} থেকে {x.dim() - 1}-এর একটি পূর্ণসংখ্যা (a dimension of x); "
                         f"পেয়েছি {dim!r:.40}")
    return INT8_MAX / amax(x, dim).clamp(min=AMAX_FLOOR)


def _scale_for(x: torch.Tensor, scale, what: str) -> torch.Tensor:
    """scale: ধনাত্মক সসীম সংখ্যা, বা x-এর আকারে ছড়ানো যায় এমন (যেমন (সারি, 1)) ধনাত্মক সসীম tensor।"""
    scale = positive_scale(scale)
    try:
        shape = torch.broadcast_shapes(x.shape, scale.shape)
    except RuntimeError:
        shape = None
    if shape != x.shape:
        raise ValueError(f"{what}: scale-এর আকার {tuple(scale.shape)} x-এর {tuple(x.shape)}-এর সঙ্গে মেলে না "
                         "(must broadcast to x's shape), যেমন ওজনের প্রতি সারির scale (সারি, 1)")
    return scale


def to_int8(x: torch.Tensor, scale) -> torch.Tensor:
    """x × scale, নিকটতম পূর্ণসংখ্যায় গোল (সমান দূরত্বে জোড়ের দিকে), −127 … 127-এ আটকানো, dtype int8 (পাঠ ০৬)।

    scale: int8_scale(x) বা int8_scale(x, dim)-এর ফল — গুণ করার scale (127 ÷ amax), ভাগ করার নয়।
    """
    x = float_tensor(x, "to_int8")
    return torch.round(x.float() * _scale_for(x, scale, "to_int8")).clamp(-INT8_MAX, INT8_MAX).to(torch.int8)


def dequantize(q: torch.Tensor, scale) -> torch.Tensor:
    """INT8 বা FP8-এ রাখা মান আসল এককে, FP32-এ: q ÷ scale — quantize করার সময় যে scale দিয়ে গুণ করা হয়েছিল
    (int8_scale বা fp8.compute_scale), সেটাই (পাঠ ০৬, ০৭)।"""
    if not isinstance(q, torch.Tensor) or q.numel() == 0 or q.is_complex() or q.dtype == torch.bool:
        shown = f"{tuple(q.shape)} {q.dtype}" if isinstance(q, torch.Tensor) else type(q).__name__
        raise TypeError(f"dequantize: INT8/FP8 বা সংখ্যার অখালি tensor চাই (a non-empty numeric tensor); পেয়েছি {shown}")
    q = q.float()
    return q / _scale_for(q, scale, "dequantize")


class DynamicInt8Linear(nn.Module):
    """nn.Linear-এর জায়গায়: ওজন INT8 (একটি scale সহ), ইনপুট প্রতিবার INT8-এ, গুণ integer-এ (পাঠ ০৬)।"""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        weight = linear.weight.detach().float()
        if not torch.isfinite(weight).all():
            raise ValueError("ওজনে inf বা NaN আছে (non-finite weights); INT8-এ নেওয়া যায় না — আগে প্রশিক্ষণটা দেখো")
        self.in_features, self.out_features = linear.in_features, linear.out_features
        scale = int8_scale(weight)
        # buffer, তাই state_dict-এ (আর torch.save-এ) INT8 ওজন আর scale-ই যায়, FP32 ওজন নয়
        self.register_buffer("weight_int8", to_int8(weight, scale))
        self.register_buffer("weight_scale", scale)
        bias = None if linear.bias is None else linear.bias.detach().float().clone()
        self.register_buffer("bias", bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (..., in_features) → (..., out_features): x-কে নিজের scale-এ INT8, গুণ INT32-এ, তারপর unscale + bias।"""
        flat = x.reshape(-1, self.in_features)
        x_scale = int8_scale(flat)                              # dynamic: এই ইনপুটেরই amax থেকে
        acc = to_int8(flat, x_scale).to(torch.int32) @ self.weight_int8.t().to(torch.int32)
        out = acc.float() / (x_scale * self.weight_scale)       # unscale: দুই scale-এর গুণফল দিয়ে ভাগ
        if self.bias is not None:
            out = out + self.bias
        return out.reshape(*x.shape[:-1], self.out_features).to(x.dtype)

    def extra_repr(self) -> str:
        """print(model)-এ এই স্তরের বিবরণ: মাপ, INT8 আর scale-এর ধরন।"""
        return (f"in_features={self.in_features}, out_features={self.out_features}, dtype=int8, "
                f"scale=per-tensor symmetric (mishran)")


def quantize_dynamic(model: nn.Module, qconfig_spec=None, dtype=torch.qint8, inplace: bool = False) -> nn.Module:
    """`torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)`-এর মতো ডাকা যায়:
    প্রতিটি nn.Linear-কে DynamicInt8Linear দিয়ে বদলায়; inplace=False হলে আগে model-এর কপি করে (পাঠ ০৬)।"""
    inplace = as_bool(inplace, "inplace")
    if qconfig_spec is not None and not isinstance(qconfig_spec, (set, frozenset, list, tuple, dict)):
        raise TypeError(f"qconfig_spec হবে {{nn.Linear}} (a set of module types) বা None; পেয়েছি {qconfig_spec!r:.40}")
    spec = {nn.Linear} if qconfig_spec is None else set(qconfig_spec)
    if spec != {nn.Linear} or not isinstance(dtype, torch.dtype) or dtype != torch.qint8:
        raise ValueError("এখানে শুধু nn.Linear আর torch.qint8 চলে (only {nn.Linear} with torch.qint8); "
                         f"পেয়েছি {sorted(getattr(t, '__name__', str(t)) for t in spec)}, {dtype}")
    model = model if inplace else copy.deepcopy(model)
    if isinstance(model, nn.Linear):
        return DynamicInt8Linear(model)
    for name, child in list(model.named_children()):
        if isinstance(child, nn.Linear):
            setattr(model, name, DynamicInt8Linear(child))
        else:
            quantize_dynamic(child, spec, dtype, inplace=True)
    return model
