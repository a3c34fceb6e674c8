"""check-up-এর ফল: সাদামাটা ডেটা (dataclass), JSON-এর জন্য to_dict() — ছবি বা সারণি নয় (পাঠ ১০)।

সারি তিন রকম: প্রতিটি module-এর (forward-এর মান, প্রতিটি precision-এ কী হলো), প্রতিটি parameter-এর (gradient),
আর প্রতিটি aten op-এর (কোন dtype-এ চলল)। সংখ্যাগুলো মাপা, কোনোটা হাতে বসানো নয়।
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

__all__ = ["WHOLE_MODEL", "ModuleRun", "ModuleRow", "ParamRun", "ParamRow", "OpRow", "CostRow", "LossScaleRange",
           "CheckupReport"]

WHOLE_MODEL = "(পুরো মডেল)"
"""মূল মডেলের নাম named_modules()-এ '' — বার্তা, সারণি আর চিত্রে এই লেখা।"""


@dataclass
class ModuleRun:
    """একটি module-এর output, একটি ১৬-বিট precision-এ (পাঠ ১০)।

    rel_error: এই precision-এর output বনাম FP32-এর output (আগের সব module-এর ত্রুটিসহ); input_rel_error: তার
    input-এর একই মাপ; added: rel_error ÷ max(input_rel_error, ফরম্যাটের unit roundoff) — module নিজে কত গুণ
    ত্রুটি যোগ করল। forward_overflow/backward_overflow: সসীম input থেকে এই module-ই inf/NaN (বা ফরম্যাটের max-এর
    বেশি) বানাল, forward-এ বা backward-এ।
    """

    dtype: str
    max_abs: float
    nonfinite: bool
    near_max: bool
    rel_error: float
    input_rel_error: float
    added: float
    forward_overflow: bool
    backward_overflow: bool


@dataclass
class ModuleRow:
    """একটি module (model.named_modules()-এর নাম), FP32-এর reference step থেকে (পাঠ ১০)।

    max_abs: output-এর বৃহত্তম |মান|; subnormal_share: শূন্য-নয় মানের কত ভাগ FP16-এর smallest normal-এর নিচে;
    headroom: ফরম্যাটের max ÷ max_abs (আর তার log2, কত বিট জায়গা বাকি) — FP16 (65504) আর FP8 E4M3 (448);
    grad_max_abs: output-এর gradient-এর বৃহত্তম |মান|। runs: precision → ModuleRun।
    """

    name: str
    kind: str
    calls: int
    max_abs: float
    subnormal_share: float
    fp16_headroom: float
    fp16_headroom_log2: float
    e4m3_headroom: float
    e4m3_headroom_log2: float
    grad_max_abs: float
    runs: dict = field(default_factory=dict)


@dataclass
class ParamRun:
    """একটি parameter-এর gradient, একটি ১৬-বিট precision-এর step-এ (loss scale ভাগ করে), FP32-এর তুলনায় (পাঠ ১০)।"""

    rel_error: float
    cosine: float
    nonfinite: bool


@dataclass
class ParamRow:
    """একটি parameter-এর FP32 gradient (পাঠ ১০)।

    histogram: {b: কয়টি উপাদান} যেখানে b = ceil(log2|g|), অর্থাৎ |g| ≤ 2**b (শূন্য বাদ); underflow_share: ফরম্যাট →
    শূন্য-নয় উপাদানের কত ভাগ loss scale 1-এ সেই ফরম্যাটে শূন্য হয়ে যায়; underflow_share_at_init: FP16-এ প্রস্তাবিত
    loss scale-এ সেই ভাগ। runs: precision → ParamRun।
    """

    name: str
    numel: int
    grad_max_abs: float
    zeros: int
    histogram: dict
    underflow_share: dict
    underflow_share_at_init: float
    runs: dict = field(default_factory=dict)


@dataclass
class OpRow:
    """একটি aten op, একটি precision-এর autocast forward-এ: কতবার, কোন dtype-এ (প্রথম floating output-এর) (পাঠ ১০)।

    kind: 'matmul', 'reduction', 'normalization', 'softmax', 'loss', 'cast' বা 'other'; flagged: reduction,
    normalization, softmax বা loss ১৬-বিটে চলেছে — এগুলো সূক্ষ্মতা বা পরিসর হারাতে পারে।
    """

    precision: str
    op: str
    kind: str
    calls: int
    dtype: str
    in_16bit: bool
    flagged: bool


@dataclass
class CostRow:
    """একটি precision-এর এক step-এর খরচ, এই device-এ (পাঠ ১০)।

    step_seconds: mishran.timer.time_steps-এর মাপা step-গুলোর মধ্যমা (median), না মাপলে None; activation_bytes আর
    cast_cache_bytes: backward-এর জন্য রাখা বাইট (SavedTensorCounter; তুলনার step-এ মাপা, যেখানে dropout বন্ধ, তাই
    dropout-এর mask এতে নেই); mfu: peak জানা থাকলে (CPU-তে None)।
    """

    precision: str
    step_seconds: float | None
    activation_bytes: int
    cast_cache_bytes: int
    mfu: float | None


@dataclass
class LossScaleRange:
    """FP16-এর loss scale কোন পরিসরে নিরাপদ, FP32 gradient থেকে (পাঠ ১০)।

    high: 2-এর সবচেয়ে বড় ঘাত s যাতে max|g|·s < 65504 (overflow নেই) — g এখানে parameter-এর gradient আর module-এর
    output-এর gradient (activation gradient) দুটোই: autocast-এর backward-এ FP16-এ চলে ১৬-বিট op-এর output-এর gradient
    আর Linear/conv-এর ওজনের FP16 কপির gradient (LayerNorm বা Embedding-এর ওজনের gradient FP32-এই); module-এর নিজের
    forward-এর ভেতরের gradient এখানে দেখা যায় না। low: 2-এর সবচেয়ে ছোট ঘাত s ≥ 1 যাতে কোনো parameter-এর underflow-এর
    ভাগ 1%-এর বেশি নয় (না পেলে None) — একটা আন্দাজ: activation gradient (প্রায়ই আরও ছোট) এতে নেই, তাই প্রমাণ check-up-এর
    নিজের FP16 step। init_scale: GradScaler-এর init_scale — low ≤ high হলে দুইয়ের log2-এর মাঝামাঝি (নিচে গোল করে),
    নইলে high। window_ok: low ≤ high।
    """

    max_grad: float
    max_activation_grad: float
    low: float | None
    high: float
    init_scale: float
    window_ok: bool
    underflow_share_at_1: float
    underflow_share_at_init: float


@dataclass
class CheckupReport:
    """checkup()-এর ফল (পাঠ ১০)। শিক্ষার্থী আর শিক্ষক attribute পড়েন; JSON-এর জন্য to_dict()।

    target_precision: লক্ষ্যের নিয়মের প্রস্তাব (mishran.precision.for_device); recommended_precision: 'fp32', 'fp16',
    'bf16', বা 'unknown' (প্রস্তাবের step emulation-এ চলেইনি — লক্ষ্যের যন্ত্রে আবার চালাও); fp16_init_scale: fp16
    হলে GradScaler-এর init_scale, নইলে None;
    keep_fp32: যে module-গুলো FP32-এ রাখা উচিত; keep_fp32_check: সেগুলো FP32-এ রেখে (KeepFP32) লক্ষ্যের precision-এর
    step আবার চালানোর ফল — loss, gradient-এর ত্রুটি আর cosine, ভাঙা কি না, ওজনের কত ভাগ ওগুলোয় (না থাকলে None);
    overflow_modules, near_max_modules, first_nonfinite,
    worst_modules: precision → module-এর নাম; underflow_params: ফরম্যাট → parameter-এর নাম (loss scale 1-এ 1%-এর
    বেশি gradient শূন্য)। emulated: লক্ষ্য GPU কিন্তু হিসাব CPU-তে (বা উল্টো) — তখন numbers_label তা বলে।
    rounding_dust: যে parameter-গুলোর rounding-এর গুঁড়ো জানালার নিচের প্রান্ত ঠিক করে → FP64-এ যাচাইয়ের ফল (True:
    গণিতে শূন্য, False: সত্যিকারের ছোট gradient, None: FP64-এ চলেনি); না থাকলে ফাঁকা (checkup.dust);
    window_without_dust: তখন গুঁড়ো বাদ দিলে জানালা কোথায় হতো (নইলে None)।
    """

    model: str
    device: str
    target: str
    target_capability: tuple | None
    autocast_rules: str
    emulated: bool
    numbers_label: str
    training: bool
    precisions: list
    target_precision: str
    recommended_precision: str
    fp16_init_scale: float | None
    keep_fp32: list
    keep_fp32_check: dict | None
    overflow_modules: dict
    near_max_modules: dict
    underflow_params: dict
    first_nonfinite: dict
    worst_modules: dict
    loss: dict
    loss_rel_error: dict
    grad_rel_error: dict
    grad_cosine: dict
    loss_scale: LossScaleRange
    flops: int
    modules: list
    params: list
    ops: list
    costs: list
    frozen_params: list
    unused_params: list
    errors: dict
    notes: list
    advice: str
    ds_config: dict
    rounding_dust: dict = field(default_factory=dict)
    window_without_dust: LossScaleRange | None = None

    def to_dict(self) -> dict:
        """JSON-এ লেখার মতো dict: inf/NaN লেখা হয় "inf"/"nan" হিসেবে, tuple হয় list (পাঠ ১০)।"""
        return _plain(asdict(self))


def _plain(value):
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
