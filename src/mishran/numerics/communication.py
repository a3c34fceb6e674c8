"""GPU-রা নিজেদের মধ্যে কোন precision-এ কথা বলে (পাঠ ০৯, অংশ ৩): gradient-এর reduce-scatter-এর ত্রুটি, এক CPU-তে।

NCCL-এর ring-এ প্রতিটি rank আগের rank-এর পাঠানো আংশিক যোগফলে নিজের মান যোগ করে পরের rank-এ পাঠায়, আর পাঠানোর আগে
যোগফলটা wire-এর dtype-এ (যেমন BF16) round হয় — W যত বড়, তত বেশিবার round, তাই BF16-এ ত্রুটি W-এর সঙ্গে বাড়ে। এখানে
একই যোগ একই ক্রমে হয় (প্রতি hop-এ সব উপাদান একসঙ্গে), আর FP64-এর গড়ের সঙ্গে মেলানো হয়:

    sweep = error_sweep()                       # W = 2 … 1024, প্রতিটি scheme-এর আপেক্ষিক ত্রুটি
    smallest_safe_dtype(1024, 1e-3, sweep)      # এই সহনসীমায় তারে সবচেয়ে কম বাইটের scheme

ring-এ FP32-এ যোগ করে লাভ নেই (দুটি BF16 FP32-এ যোগ করে BF16-এ round = BF16-এ যোগ); "BF16 wire, FP32 যোগ"-এর লাভ
মেলে "direct"-এ (all-to-all ধাঁচ): প্রতিটি rank নিজের মান shard-এর মালিককে সোজা পাঠায়, মালিক সব যোগ করে।
"""
from __future__ import annotations

import torch

from mishran.checks import as_seed, finite_float, positive_int
from mishran.numerics.error import relative_error
from mishran.numerics.formats import get_format

__all__ = ["ring_order_sum", "MAX_WORLD", "MAX_ELEMENTS", "WORLDS", "SCHEMES", "ring_reduce_scatter",
           "direct_reduce_scatter", "fsdp_divide_factors", "reduced_mean", "gradient_sample", "error_sweep",
           "wire_bytes", "WIRE_POLICIES", "wire_table", "scheme_cost", "smallest_safe_dtype"]

MAX_WORLD = 4096
"""সবচেয়ে বড় rank-সংখ্যা (world size), যা এই simulation নেয় (পাঠ ০৯)।"""

MAX_ELEMENTS = 2 ** 25
"""W × n-এর সীমা: float64-এ ২৫৬ MiB, এক CPU-তে কয়েক সেকেন্ডের কাজ (পাঠ ০৯)।"""

WORLDS = tuple(2 ** k for k in range(1, 11))
"""error_sweep-এর W: 2, 4, 8, …, 1024 (পাঠ ০৯)।"""

SCHEMES = {
    "fp32": ("fp32", None, "avg", "ring"),
    "bf16": ("bf16", None, "avg", "ring"),
    "fp16": ("fp16", None, "pre_post", "ring"),
    "bf16_wire_fp32_sum": ("bf16", "fp32", "avg", "direct"),
}
"""scheme-এর নাম → (wire dtype, sum dtype বা None = wire dtype, divide, algorithm) (পাঠ ০৯)।

fp32/bf16/fp16: FSDP2-এ reduce_dtype যা, NCCL-এর ring-এ তা-ই। bf16_wire_fp32_sum: wire-এ BF16, মালিক FP32-এ যোগ করে
("direct")। divide: reduced_mean দেখো।
"""


def _dtype(name) -> torch.dtype:
    """তারের বা যোগের ফরম্যাট: 'fp32', 'bf16', 'fp16' (বা তাদের torch dtype) → dtype।"""
    f = get_format(name)
    if f.name not in ("fp32", "bf16", "fp16"):
        raise ValueError(f"তারের বা যোগের dtype হবে fp32, bf16 বা fp16 (wire and sum dtype must be fp32, bf16 or fp16); "
                         f"পেয়েছি {name!r:.40}")
    return f.dtype


def _owners(n: int, world: int) -> torch.Tensor:
    """উপাদান j কোন segment-এর (torch.chunk-এর মতো: প্রতিটির মাপ ceil(n/W), শেষেরগুলো ছোট বা খালি)।"""
    return torch.arange(n) // -(-n // world)


def ring_order_sum(x: torch.Tensor, sum_dtype: torch.dtype, hop_dtype: torch.dtype | None = None) -> torch.Tensor:
    """সব rank-এর মান যোগ, ring যে ক্রমে যোগ করে (পাঠ ০৯): segment s-এর যোগ rank s+1, s+2, …, s ক্রমে, sum_dtype-এ;
    hop_dtype দিলে প্রতিটি যোগের পরে তাতে round (ring: পাঠানোর আগে), না দিলে মাঝে কোনো round নেই (direct)।
    x: (W, n), সারি r-এ rank r-এর মান। ফেরত (n,), sum_dtype-এ।"""
    world, n = x.shape
    first = (_owners(n, world) + 1) % world                        # segment s শুরু হয় rank (s + 1) % W থেকে
    acc = x.gather(0, first[None]).to(sum_dtype)
    for k in range(1, world):                                      # hop-এর loop; উপাদানগুলো একসঙ্গে
        own = x.gather(0, ((first + k) % world)[None]).to(sum_dtype)
        acc = acc + own
        if hop_dtype is not None:
            acc = acc.to(hop_dtype).to(sum_dtype)                  # পাঠানোর আগে wire dtype-এ round
    return acc[0]


def _reduce(x: torch.Tensor, sum_dtype, algorithm: str) -> torch.Tensor:
    """wire dtype-এ থাকা x (W, n)-এর যোগ, sum_dtype-এ (None = wire dtype): "ring"-এ প্রতি hop-এ wire dtype-এ round,
    ফল wire dtype-এ; "direct"-এ মাঝে round নেই, ফল sum dtype-এ।"""
    total = x.dtype if sum_dtype is None else _dtype(sum_dtype)
    if algorithm == "ring":
        return ring_order_sum(x, total, x.dtype).to(x.dtype)
    return ring_order_sum(x, total)


def ring_reduce_scatter(grads, wire_dtype, sum_dtype=None) -> torch.Tensor:
    """NCCL-এর ring reduce-scatter, এক CPU-তে (পাঠ ০৯): সব rank-এর gradient-এর যোগফল (গড় নয়), আকার (n,), wire dtype-এ।

    grads: (W, n), সারি r-এ rank r-এর পুরো gradient, আগে wire dtype-এ cast হয়। যোগের ক্রম ring_order_sum-এর; প্রতিটি
    যোগ sum_dtype-এ (None = wire dtype, NCCL যেমন করে), পাঠানোর আগে wire dtype-এ round। ফেরত: সব shard-এর all-gather।
    """
    if not isinstance(grads, torch.Tensor) or not grads.is_floating_point():
        raise TypeError(f"grads হবে float-এর tensor, আকার (W, n) (grads must be a float tensor of shape (W, n)); "
                        f"পেয়েছি {type(grads).__name__}")
    world, n = grads.shape if grads.dim() == 2 else (0, 0)
    if not (1 <= world <= MAX_WORLD and n >= 1) or grads.numel() > MAX_ELEMENTS:
        raise ValueError(f"grads-এর আকার হবে (W, n): সারি r-এ rank r-এর gradient, W ≤ {MAX_WORLD}, W × n ≤ "
                         f"{MAX_ELEMENTS:,} (grads must be 2-D (W, n)); পেয়েছি {tuple(grads.shape)}")
    if not bool(torch.isfinite(grads).all()):
        raise ValueError("grads-এ NaN বা inf আছে (grads must be finite); আগে gradient-টা দেখো")
    return _reduce(grads.to(_dtype(wire_dtype)), sum_dtype, "ring")


def direct_reduce_scatter(grads, wire_dtype, sum_dtype=None) -> torch.Tensor:
    """all-to-all ধাঁচের reduce-scatter (পাঠ ০৯): প্রতিটি rank-এর মান wire dtype-এ একবারই wire-এ যায়, shard-এর মালিক
    সবগুলো যোগ করে sum_dtype-এ (None = wire dtype), ring-এর একই ক্রমে, মাঝে round ছাড়া। ফেরত যোগফল, sum dtype-এ।"""
    return _reduce(grads.to(_dtype(wire_dtype)), sum_dtype, "direct")


def _split(factor: float) -> tuple[float, float]:
    """FSDP2-এর FP16-এর ভাগ: pre = 2-এর ঘাত, √factor-এর কাছাকাছি (factor-কে ভাগ করে); post = factor / pre।"""
    pre = 1
    while factor % pre == 0 and factor / pre > pre:
        pre *= 2
    return float(pre), factor / pre


def fsdp_divide_factors(world, reduce_dtype) -> dict:
    """FSDP2 gradient-এর গড় নিতে W দিয়ে কীভাবে ভাগ করে (পাঠ ০৯): {"op": "avg" বা "sum", "pre": …, "post": …}।

    ইনস্টল-করা torch-এর source পড়ে লেখা (torch 2.13 _fsdp_collectives.py:812–869, _get_gradient_divide_factors;
    ব্যবহার foreach_reduce-এ :561–569, ভাগ :617 আর :686-এ _div_if_needed, :872–874)। bf16/fp32-এ overflow-এর ভয় নেই,
    তাই NCCL-এর ReduceOp.AVG, একটাই ভাগ, যোগের ভেতরে (W = 1-এ SUM, কারণ NCCL-এর AVG সেখানে ভুল দিতে পারে)।
    fp16-এ SUM, আর আগে pre আর পরে post দিয়ে ভাগ (pre × post = W, pre ≈ √W, 2-এর ঘাত): যোগফল যেন overflow না করে, আর
    ভাগের পরে ছোট মান যেন underflow না করে। HSDP, gradient_divide_factor আর MTIA-র পথ এখানে নেই।
    """
    if _dtype(reduce_dtype) in (torch.float32, torch.bfloat16):
        return {"op": "sum" if world == 1 else "avg", "pre": None, "post": None}
    pre, post = _split(float(world))
    return {"op": "sum", "pre": pre, "post": post}


def reduced_mean(grads, wire_dtype, sum_dtype=None, divide="avg", algorithm="ring") -> torch.Tensor:
    """FSDP2 যেমন দিত, সব rank-এর gradient-এর গড় (পাঠ ০৯), আকার (n,): ring বা direct reduce-scatter আর W দিয়ে ভাগ।

    divide="avg": NCCL-এর ReduceOp.AVG, যা float-এ আসলে PreMulSum(1/W) — প্রতিটি rank-এর মান যোগের আগে wire dtype-এ
    1/W দিয়ে গুণ (W 2-এর ঘাত হলে শেষে W দিয়ে ভাগের সমান)। divide="pre_post": FSDP2-এর FP16-এর পথ — wire dtype-এ pre
    দিয়ে ভাগ, যোগ, তারপর post দিয়ে ভাগ (pre × post = W, fsdp_divide_factors)।
    """
    x = grads.to(_dtype(wire_dtype))
    if divide == "pre_post":
        pre, post = _split(float(x.shape[0]))
        return _reduce(x / pre, sum_dtype, algorithm) / post
    return _reduce(x * torch.tensor(1 / x.shape[0], dtype=x.dtype), sum_dtype, algorithm)     # "avg"


def gradient_sample(world, n=2 ** 14, signal=1.0, noise=1.0, scale=1e-3, seed=0) -> torch.Tensor:
    """W-টি rank-এর gradient, float64, আকার (W, n) (পাঠ ০৯): scale × (signal × সবার এক দিক + noise × rank-এর নিজের
    গোলমাল), দুটোই আদর্শ normal। signal/noise বড় মানে rank-গুলো একই দিকে ঠেলে, ring-এর আংশিক যোগফল বড় হয়ে নতুন মান
    round-এ হারায় — BF16-এর যোগ এখানেই সবচেয়ে বেশি ক্ষতি করে; scale ছোট হলে FP16-এর underflow দেখা যায়।"""
    gen = torch.Generator().manual_seed(seed)
    common = torch.randn(n, generator=gen, dtype=torch.float64)
    own = torch.randn(world, n, generator=gen, dtype=torch.float64)
    return scale * (signal * common + noise * own)


def error_sweep(worlds=WORLDS, n=2 ** 14, seed=0, signal=1.0, noise=1.0, scale=1e-3) -> dict:
    """প্রতিটি W আর SCHEMES-এর প্রতিটি scheme-এ গড় gradient-এর আপেক্ষিক ত্রুটি, FP64-এর গড়ের সঙ্গে (পাঠ ০৯)।

    signal, noise, scale (প্রতিটি ≥ 0) যায় gradient_sample-এ। ফেরত: {"worlds", "errors": {scheme: [W-প্রতি ত্রুটি]},
    "bf16_rounding_floor": [সঠিক গড়কে একবার BF16-এ round করার ত্রুটি, W-প্রতি], "n", "seed"}।
    """
    if isinstance(worlds, (str, bytes, dict, torch.Tensor)) or not hasattr(worlds, "__iter__"):
        raise TypeError(f"worlds হবে W-এর list, যেমন (2, 4, 8) (worlds must be a list of ints); পেয়েছি {worlds!r}")
    worlds = [positive_int(w, "worlds-এর W") for w in worlds]
    if not worlds or worlds != sorted(set(worlds)) or worlds[-1] > MAX_WORLD:
        raise ValueError(f"worlds হবে 1 থেকে {MAX_WORLD}, অখালি আর বাড়তে থাকা, পুনরাবৃত্তি ছাড়া (non-empty, increasing, "
                         f"at most {MAX_WORLD}); পেয়েছি {worlds!r}")
    n, seed = positive_int(n, "n"), as_seed(-1 if seed is None else seed)     # None-ও ভুল: একই seed-এ একই মাপ চাই
    if worlds[-1] * n > MAX_ELEMENTS:
        raise ValueError(f"W × n = {worlds[-1] * n:,}, খুব বড় (too many elements; at most {MAX_ELEMENTS:,}); n ছোট করো")
    sample = {key: finite_float(value, key, minimum=0.0)
              for key, value in (("signal", signal), ("noise", noise), ("scale", scale))}
    errors = {name: [] for name in SCHEMES}
    floor = []
    for world in worlds:
        grads = gradient_sample(world, n, seed=seed, **sample)
        exact = grads.mean(0)
        floor.append(relative_error(exact.to(torch.bfloat16), exact))
        for name, (wire, total, divide, algorithm) in SCHEMES.items():
            errors[name].append(relative_error(reduced_mean(grads, wire, total, divide, algorithm), exact))
    return {"worlds": worlds, "errors": errors, "bf16_rounding_floor": floor, "n": n, "seed": seed}


def wire_bytes(num_params, world, dtype_name, collective="reduce_scatter") -> int:
    """এক collective-এ প্রতিটি rank কত বাইট পাঠায় (পাঠ ০৯), ring algorithm-এ।

    reduce_scatter আর all_gather: (W − 1) × shard × বাইট, shard = ceil(n/W) (FSDP2 W-এর গুণিতকে pad করে), অর্থাৎ
    ভাগ মিললে (W − 1)/W · n · বাইট; all_reduce (= reduce-scatter + all-gather): তার দ্বিগুণ।
    """
    once = (world - 1) * -(-num_params // world) * _dtype(dtype_name).itemsize
    return 2 * once if collective == "all_reduce" else once


WIRE_POLICIES = (("fp32", "fp32"), ("bf16", "fp32"), ("bf16", "bf16"))
"""wire_table-এর সারি: (param_dtype, reduce_dtype) — FP32, পাঠের প্রস্তাবিত bf16 policy, আর সব BF16 (পাঠ ০৯)।"""


def wire_table(num_params, world) -> list[dict]:
    """প্রতিটি (param_dtype, reduce_dtype)-এ (WIRE_POLICIES) প্রতি rank, প্রতি step-এ তারের বাইট (পাঠ ০৯): ওজনের
    all-gather দুবার (forward-এ, আর reshard_after_forward=True বলে backward-এ আবার) param_dtype-এ, gradient-এর
    reduce-scatter একবার reduce_dtype-এ। সারি: {"param_dtype", "reduce_dtype", "all_gather", "reduce_scatter",
    "total", "saving_vs_fp32" (FP32-এর তুলনায় কত ভাগ কম, 0–1)}।"""
    fp32 = 3 * wire_bytes(num_params, world, "fp32")             # সব FP32: দুটি all-gather আর একটি reduce-scatter
    rows = []
    for param, reduce in WIRE_POLICIES:
        ag = 2 * wire_bytes(num_params, world, param, "all_gather")
        rs = wire_bytes(num_params, world, reduce, "reduce_scatter")
        rows.append({"param_dtype": param, "reduce_dtype": reduce, "all_gather": ag, "reduce_scatter": rs,
                     "total": ag + rs, "saving_vs_fp32": 1 - (ag + rs) / fp32 if fp32 else 0.0})
    return rows


def scheme_cost(spec) -> tuple:
    """একটি scheme-এর দাম, তুলনার জন্য (পাঠ ০৯): (wire-এ উপাদানপ্রতি বাইট, wire-এর চেয়ে চওড়া dtype-এ যোগ কি না
    (0/1), বাড়তি ভাগের kernel (pre_post-এ 1))। ছোট tuple = সস্তা।"""
    wire, total, divide, _ = spec
    wider = total is not None and _dtype(total).itemsize > _dtype(wire).itemsize
    return _dtype(wire).itemsize, int(wider), int(divide == "pre_post")


def smallest_safe_dtype(world, tolerance, sweep=None) -> str:
    """W rank-এ যে scheme-গুলোর মাপা ত্রুটি ≤ tolerance, তাদের মধ্যে সবচেয়ে সস্তা (scheme_cost), সমান হলে SCHEMES-এর
    ক্রমে আগেরটি (পাঠ ০৯; অনুশীলনী ০৯.৩)। sweep না দিলে শুধু এই W-এর জন্য error_sweep চালায়।"""
    if sweep is None:
        sweep = error_sweep(worlds=(world,))
    i = sweep["worlds"].index(world)
    safe = [name for name, errs in sweep["errors"].items() if errs[i] <= tolerance]
    if not safe:
        raise ValueError(f"W = {world}-এ কোনো scheme-এর ত্রুটি {tolerance:g}-এর মধ্যে নয় (no scheme meets the "
                         "tolerance); সহনসীমা বাড়াও")
    return min(safe, key=lambda name: scheme_cost(SCHEMES[name]))
