"""Underflow আর loss scaling (পাঠ ০২)।

- gradient-এর পরিসংখ্যান: underflow_report() বলে একটি tensor-কে (scale দিয়ে গুণ করে) কোনো ফরম্যাটে রাখলে কত ভাগ
  normal, subnormal, শূন্যে মুছে যায় (underflow to zero), overflow করে; log2_magnitudes() ও format_regions() দেয়
  log2-histogram আঁকার উপকরণ।
- loss scaler, হাতে লেখা: StaticLossScaler, DynamicLossScaler (torch.amp.GradScaler-এর নিয়ম হুবহু), DeepSpeedLossScaler
  (DeepSpeed-এর নিয়ম, hysteresis সহ)। তিনটিরই `.scale` আর `.update(found_inf) -> bool` (optimizer step নেওয়া হলো কি
  না)। simulate() এদের ধাপে ধাপে চালিয়ে একটি সময়রেখা (timeline) দেয়।
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass

import torch

from mishran.checks import as_bool, finite_float, positive_int
from mishran.numerics.formats import get_format, round_to, spacing

__all__ = ["KINDS", "MAX_SIMULATE_STEPS", "UnderflowReport", "underflow_report", "log2_magnitudes", "FormatRegions",
           "format_regions", "StaticLossScaler", "DynamicLossScaler", "DeepSpeedLossScaler", "LossScaleAtMinimumError",
           "DEEPSPEED_MIN_SCALE_MESSAGE", "simulate"]

KINDS = ("normal", "subnormal", "underflow_to_zero", "overflow", "exact_zero")
_KIND_LABELS = {
    "normal": "normal (পূর্ণ সূক্ষ্মতা)",
    "subnormal": "subnormal (সূক্ষ্মতা কম)",
    "underflow_to_zero": "শূন্যে মুছে গেছে (underflow to zero)",
    "overflow": "overflow (inf/NaN)",
    "exact_zero": "আগে থেকেই শূন্য (exact zero)",
}
_INTEGER_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


# ---------- gradient-এর পরিসংখ্যান ----------

def _tensors(values) -> list[torch.Tensor]:
    """একটি tensor, বা tensor-এর list/iterable → tensor-এর list (None বাদ, যেমন grad নেই এমন parameter)।"""
    if isinstance(values, torch.Tensor):
        items = [values]
    elif isinstance(values, Iterable) and not isinstance(values, (str, bytes)):
        items = [v for v in values if v is not None]
    else:
        items = [values]
    for t in items:
        if not (isinstance(t, torch.Tensor) and (t.is_floating_point() or t.dtype in _INTEGER_DTYPES)):
            shown = f"dtype {t.dtype}" if isinstance(t, torch.Tensor) else f"{type(t).__name__}: {t!r:.40}"
            raise TypeError(f"underflow_report() সংখ্যার tensor চায় (a tensor or a list of tensors) — a numeric tensor; "
                            f"পেয়েছি {shown}। সংখ্যার list হলে torch.tensor([...]) দিয়ে tensor বানাও; gradient হলে "
                            "[p.grad for p in model.parameters()]।")
    if sum(t.numel() for t in items) == 0:
        raise ValueError("underflow_report(): গোনার মতো কোনো মান নেই (no values) — tensor ফাঁকা, বা সব grad None। "
                         "backward() চালানোর পরে ডাকো।")
    return items


def _flat64(items) -> torch.Tensor:
    return torch.cat([t.detach().reshape(-1).to(device="cpu", dtype=torch.float64) for t in items])


def _as_scale(scale) -> float:
    """scale: ধনাত্মক সসীম সংখ্যা (বা এক উপাদানের tensor) → float; নইলে বাংলা + ইংরেজি বার্তায় ValueError।"""
    if isinstance(scale, torch.Tensor) and scale.numel() == 1:
        scale = scale.item()
    try:
        ok = not isinstance(scale, bool) and isinstance(scale, numbers.Real) and math.isfinite(scale) and scale > 0
    except OverflowError:                      # 2**2000-এর মতো পূর্ণসংখ্যা float-এ আঁটে না
        ok = False
    if not ok:
        raise ValueError(f"scale হবে একটি ধনাত্মক সসীম সংখ্যা (a positive finite number), যেমন 1024 বা 2**16; "
                         f"পেয়েছি {scale!r:.60}")
    return float(scale)


@dataclass(frozen=True)
class UnderflowReport:
    """underflow_report()-এর ফল: কোন ভাগে কয়টি মান (পাঠ ০২)। fractions-এর যোগফল ১।"""

    fmt: str
    scale: float
    total: int
    normal: int
    subnormal: int
    underflow_to_zero: int
    overflow: int
    exact_zero: int

    @property
    def fractions(self) -> dict:
        """প্রতিটি ভাগ মোট মানের কত অংশ (0 থেকে 1)।"""
        return {k: self.fraction(k) for k in KINDS}

    def fraction(self, kind: str) -> float:
        """একটি ভাগের (KINDS-এর একটি, যেমন 'underflow_to_zero') অংশ, 0 থেকে 1।"""
        return getattr(self, kind) / self.total

    @property
    def nonzero(self) -> int:
        """যে মানগুলো আগে শূন্য ছিল না।"""
        return self.total - self.exact_zero

    def __str__(self) -> str:
        head = f"{get_format(self.fmt).label}-এ রাখলে (scale = {self.scale:g}): মোট {self.total}টি মান"
        # সংখ্যা আগে, নাম পরে: বাংলা লেখার প্রস্থ মেপে সারি মেলানো যায় না
        return "\n".join([head] + [f"  {getattr(self, k):>10}  {100 * self.fraction(k):6.2f}%  {_KIND_LABELS[k]}"
                                   for k in KINDS])


def underflow_report(values, fmt="fp16", scale=1.0) -> UnderflowReport:
    """values × scale-কে fmt-এ রাখলে কত ভাগ normal, subnormal, শূন্যে মুছে যায়, overflow করে (পাঠ ০২)।

    values: একটি tensor বা tensor-এর list (None বাদ যায়)। গুণফল float64-এ হিসাব হয়, তাই গুণফল নিজে overflow করে না;
    তারপর formats.round_to() দিয়ে fmt-এ round করে শ্রেণিবদ্ধ করা। আগে থেকেই শূন্য মান (exact zero) আলাদা গোনা হয়;
    আগে থেকেই inf/NaN থাকলে তা overflow-এ পড়ে।
    """
    f = get_format(fmt)
    s = _as_scale(scale)
    x = _flat64(_tensors(values))
    stored = round_to(x * s, f)
    a = stored.abs()
    exact_zero = x == 0
    overflow = ~torch.isfinite(stored)
    to_zero = (stored == 0) & ~exact_zero
    subnormal = (a > 0) & (a < f.min_normal)
    normal = torch.isfinite(stored) & (a >= f.min_normal)
    counts = {k: int(m.sum()) for k, m in zip(KINDS, (normal, subnormal, to_zero, overflow, exact_zero), strict=True)}
    return UnderflowReport(f.name, s, x.numel(), **counts)


def log2_magnitudes(values) -> torch.Tensor:
    """শূন্য নয় এমন সসীম মানগুলোর log2|v|, একটি 1-D float64 tensor — log2-histogram-এর জন্য (পাঠ ০২)।

    শূন্য, inf, NaN বাদ যায় (তাদের log2 নেই); সেগুলো কয়টি, তা underflow_report() বলে।
    """
    x = _flat64([values] if isinstance(values, torch.Tensor) else [v for v in values if v is not None])
    x = x[torch.isfinite(x) & (x != 0)]
    return torch.log2(x.abs())


@dataclass(frozen=True)
class FormatRegions:
    """একটি ফরম্যাটের এলাকাগুলোর সীমানা, log2-এ (পাঠ ০২-এর histogram-এ দাগ টানার জন্য)।

    log2_underflow_to_zero: |v| এর সমান বা ছোট হলে v রাখলে শূন্য হয় (min_subnormal-এর অর্ধেক: টাই জোড়ের দিকে, মানে ০)।
    log2_overflow: |v| এর চেয়ে বড় হলে v রাখলে inf (বা E4M3-এ NaN) হয় (max + প্রতিবেশীর দূরত্বের অর্ধেক;
    FP16-এ ঠিক সেই টাইটিও inf হয়, কারণ 65504-এর শেষ mantissa বিট বিজোড়)।
    """

    fmt: str
    log2_min_subnormal: float
    log2_min_normal: float
    log2_max: float
    log2_underflow_to_zero: float
    log2_overflow: float

    def bands(self) -> list[tuple[str, float, float]]:
        """(ভাগ, নিচের সীমা, ওপরের সীমা) — log2 অক্ষে পাশাপাশি চারটি এলাকা, রং করার জন্য। min_normal-এর ঠিক নিচে
        আধা-ULP-এর মধ্যের মান round হয়ে normal হয়; গোনার কাজে তাই underflow_report() ব্যবহার করো।"""
        return [("underflow_to_zero", -math.inf, self.log2_underflow_to_zero),
                ("subnormal", self.log2_underflow_to_zero, self.log2_min_normal),
                ("normal", self.log2_min_normal, self.log2_overflow),
                ("overflow", self.log2_overflow, math.inf)]


def format_regions(fmt="fp16") -> FormatRegions:
    """fmt-এর subnormal/normal/overflow এলাকার সীমানা log2-এ, formats-এর বিট-বিন্যাস থেকে হিসাব করা (পাঠ ০২)।"""
    f = get_format(fmt)
    return FormatRegions(f.name, math.log2(f.min_subnormal), math.log2(f.min_normal), math.log2(f.max),
                         math.log2(f.min_subnormal / 2), math.log2(f.max + spacing(f.max, f) / 2))


# ---------- loss scaler ----------

def _as_flag(found_inf) -> bool:
    """found_inf: bool, 0/1, বা এক উপাদানের tensor (যেমন GradScaler-এর found_inf)।"""
    if isinstance(found_inf, torch.Tensor):
        if found_inf.numel() != 1:
            raise ValueError("found_inf হবে একটি মাত্র মান (a single bool); পেয়েছি "
                             f"{found_inf.numel()} উপাদানের tensor — আগে .any() নাও।")
        found_inf = found_inf.item()
    if isinstance(found_inf, numbers.Real):
        return bool(found_inf)
    raise TypeError(f"found_inf হবে True/False (gradient-এ inf/NaN পাওয়া গেছে কি না); পেয়েছি {found_inf!r}")


def _to_float32(x: float) -> float:
    """double → float32, round to nearest even, সীমা ছাড়ালে ±inf — torch যেমন scale-কে FP32 tensor-এ রাখে।"""
    return torch.tensor(x, dtype=torch.float32).item()


class _LossScaler:
    """তিন scaler-এর সাধারণ অংশ: এখনকার scale, আর কয়টি step গোনা হলো, কয়টি বাদ পড়ল।"""

    def __init__(self, scale: float):
        self._scale = scale
        self.steps = self.skipped = 0
        self.last_event = None

    @property
    def scale(self) -> float:
        """এখনকার loss scale।"""
        return self._scale


class StaticLossScaler(_LossScaler):
    """স্থির loss scale (static loss scaling), পাঠ ০২: scale কখনো বদলায় না।

    update(found_inf) বলে optimizer step নেওয়া হলো কি না: inf/NaN পেলে step বাদ (skip), নইলে নেওয়া।
    """

    def __init__(self, scale=2.0 ** 16):
        super().__init__(_as_scale(scale))

    def update(self, found_inf) -> bool:
        """এক step-এর শেষে ডাকো; ফেরত দেয় optimizer step নেওয়া হলো কি না।"""
        overflow = _as_flag(found_inf)
        self.steps += 1
        self.skipped += overflow
        self.last_event = "skip" if overflow else None
        return not overflow

    def __repr__(self) -> str:
        return f"StaticLossScaler(scale={self._scale:g})"


class DynamicLossScaler(_LossScaler):
    """torch.amp.GradScaler-এর scale-নীতি, হাতে লেখা (পাঠ ০২)।

    - gradient-এ inf/NaN: step বাদ, scale × backoff_factor, growth_tracker = 0।
    - নইলে: step নেওয়া, growth_tracker + 1; তা growth_interval-এ পৌঁছালে scale × growth_factor ও growth_tracker = 0।
      বাড়ানো scale FP32-এ inf হয়ে গেলে scale বাড়ে না (tracker তবু ০ হয়)।
    - নিচের কোনো সীমা নেই। torch-এর মতোই scale রাখা হয় FP32-এ: প্রতিটি গুণফল double-এ হিসাব করে FP32-এ round করা
      (torch/_amp_update_scale_-এর CPU ও CUDA kernel যেমন করে)।
    """

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        init_scale = _as_scale(init_scale)
        if not finite_float(growth_factor, "growth_factor") > 1.0:
            raise ValueError(f"growth_factor হবে 1-এর চেয়ে বড় (must be > 1.0); পেয়েছি {growth_factor!r}")
        if not 0.0 < finite_float(backoff_factor, "backoff_factor") < 1.0:
            raise ValueError(f"backoff_factor হবে 0 আর 1-এর মাঝে (must be in (0, 1)); পেয়েছি {backoff_factor!r}")
        super().__init__(_to_float32(init_scale))       # torch: torch.full((), init_scale, dtype=float32)
        self.growth_factor = float(growth_factor)
        self.backoff_factor = float(backoff_factor)
        self.growth_interval = positive_int(growth_interval, "growth_interval")
        self.growth_tracker = 0                          # পরপর কয়টি সফল (inf/NaN-হীন) step

    def update(self, found_inf) -> bool:
        """এক step-এর শেষে ডাকো; ফেরত দেয় optimizer step নেওয়া হলো কি না (GradScaler.step + update)।"""
        overflow = _as_flag(found_inf)
        self.steps += 1
        if overflow:
            self._scale = _to_float32(self._scale * self.backoff_factor)
            self.growth_tracker = 0
            self.skipped += 1
            self.last_event = "backoff"
            return False
        self.growth_tracker += 1
        self.last_event = None
        if self.growth_tracker == self.growth_interval:
            self.growth_tracker = 0
            new_scale = _to_float32(self._scale * self.growth_factor)
            if math.isfinite(new_scale):                 # FP32-এর সীমা ছাড়িয়ে inf হতে দেয় না
                self._scale = new_scale
                self.last_event = "grow"
        return True

    def state_dict(self) -> dict:
        """torch.amp.GradScaler.state_dict()-এর মতো একই key।"""
        return {"scale": self._scale, "growth_factor": self.growth_factor, "backoff_factor": self.backoff_factor,
                "growth_interval": self.growth_interval, "_growth_tracker": self.growth_tracker}

    def __repr__(self) -> str:
        return (f"DynamicLossScaler(scale={self._scale:g}, growth_factor={self.growth_factor:g}, "
                f"backoff_factor={self.backoff_factor:g}, growth_interval={self.growth_interval}, "
                f"growth_tracker={self.growth_tracker})")


DEEPSPEED_MIN_SCALE_MESSAGE = "Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."


class LossScaleAtMinimumError(RuntimeError):
    """DeepSpeed যেখানে থামে: loss scale ইতিমধ্যে min_scale-এ, তবু আবার overflow (পাঠ ০২)।"""

    def __init__(self, scale: float):
        self.scale = scale
        super().__init__(
            f"{DEEPSPEED_MIN_SCALE_MESSAGE}\n"
            f"loss scale ইতিমধ্যে সবচেয়ে ছোট মানে (min_loss_scale = {scale:g}), তবু gradient-এ আবার inf/NaN "
            "এসেছে; scale আর কমানো যায় না, তাই DeepSpeed প্রশিক্ষণ থামিয়ে দেয়। scale কমিয়েও যখন overflow "
            "থামে না, তখন সমস্যা সাধারণত scale-এ নয়: loss বা gradient নিজেই inf/NaN হচ্ছে (খুব বড় learning "
            "rate, ভুল ডেটা, log(0)-এর মতো হিসাব), অথবা FP16-এর পরিসর এই মডেলের জন্য যথেষ্ট নয় — "
            "তখন BF16 চেষ্টা করো।")


class DeepSpeedLossScaler(_LossScaler):
    """DeepSpeed-এর DynamicLossScaler-এর নিয়ম (deepspeed/runtime/fp16/loss_scaler.py), হাতে লেখা (পাঠ ০২)।

    config-এর fp16 block থেকে: init_scale = 2**initial_scale_power, scale_window = loss_scale_window, hysteresis
    (DeepSpeed-এর ভেতরে delayed_shift), consecutive_hysteresis, min_scale = min_loss_scale।
    - overflow হলে step সবসময় বাদ। hysteresis বাকি থাকলে (১-এর বেশি) scale না কমিয়ে শুধু hysteresis এক কমে; নইলে
      scale ÷ 2, তবে min_scale-এর নিচে নয়; scale আগে থেকেই ঠিক min_scale হলে LossScaleAtMinimumError।
    - hysteresis ভরে ওঠে কেবল scale বাড়ার সময়; consecutive_hysteresis=True হলে প্রতিটি সফল step-এ।
    - বাড়া: শেষ overflow-এর পরের সফল step-গুলো গুনে (cur_iter − last_overflow_iter − 1) যখন scale_window-এর ধনাত্মক
      গুণিতক, তখন scale × 2 — প্রথমবার scale_window + 1-তম সফল step-এ, তারপর প্রতি scale_window step-এ।
    - hysteresis=0 দিলে DeepSpeed-এ scale কখনো কমে না, তাই এখানে hysteresis ≥ 1 চাই, আর min_scale ≤ init_scale। ZeRO
      stage 0-এর FP16 optimizer-এর নিয়ম = hysteresis=1, raise_error_at_min_scale=False।
    last_message: এই update-এ DeepSpeed (rank 0) যে লাইন log করত (logger.info, তাই config-এ "log_level": "info" না
    দিলে দেখা যায় না), না করলে None। নিয়মটি DeepSpeed 0.17.1 ও পরের; তার আগে scale এক সফল step আগে বাড়ত।
    """

    scale_factor = 2.0

    def __init__(self, init_scale=2 ** 16, scale_window=1000, hysteresis=2, min_scale=1,
                 consecutive_hysteresis=False, raise_error_at_min_scale=True):
        init_scale = _as_scale(init_scale)
        min_scale = _as_scale(min_scale)
        if isinstance(hysteresis, bool) or not isinstance(hysteresis, numbers.Integral) or hysteresis < 1:
            raise ValueError(f"hysteresis হবে ১ বা তার বেশি পূর্ণসংখ্যা (hysteresis must be an integer >= 1), যেমন 2; "
                             f"পেয়েছি {hysteresis!r:.40}। 0 বা ঋণাত্মক দিলে DeepSpeed-এ scale কখনো কমে না, আর "
                             "DeepSpeed নিজে তা ধরে না।")
        if min_scale > init_scale:
            raise ValueError(f"min_scale ({min_scale:g}) শুরুর scale ({init_scale:g})-এর চেয়ে বড় (min_scale must "
                             "not exceed init_scale): scale শুরুতেই নিচের সীমার নিচে থাকত। min_loss_scale কমাও, "
                             "বা initial_scale_power বাড়াও।")
        super().__init__(init_scale)
        self.scale_window = positive_int(scale_window, "scale_window (loss_scale_window)")
        self.min_scale = min_scale
        self.hysteresis = self.cur_hysteresis = int(hysteresis)     # DeepSpeed: delayed_shift
        self.consecutive_hysteresis = as_bool(consecutive_hysteresis, "consecutive_hysteresis")
        self.raise_error_at_min_scale = as_bool(raise_error_at_min_scale, "raise_error_at_min_scale")
        self.cur_iter = 0
        self.last_overflow_iter = -1
        self.last_message = None

    def update(self, found_inf) -> bool:
        """এক step-এর শেষে ডাকো; ফেরত দেয় optimizer step নেওয়া হলো কি না।"""
        overflow = _as_flag(found_inf)
        self.last_message = None
        self.last_event = None
        if overflow:
            head = f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {int(self._scale)}"
            if self.hysteresis == 1 or self.cur_hysteresis == 1:
                if self._scale == self.min_scale and self.raise_error_at_min_scale:
                    raise LossScaleAtMinimumError(self._scale)     # কিছুই বদলায় না, cur_iter-ও না
                next_scale = max(self._scale / self.scale_factor, self.min_scale)
                self.last_message = f"{head}, reducing to {int(next_scale)}"
                self.last_event = "backoff"
                self._scale = next_scale
            else:
                self.last_message = (f"{head}, but hysteresis is {self.cur_hysteresis}. "
                                     f"Reducing hysteresis to {self.cur_hysteresis - 1}")
                self.last_event = "hysteresis"
                self.cur_hysteresis -= 1
            self.last_overflow_iter = self.cur_iter
            self.skipped += 1
        else:
            if self.consecutive_hysteresis:
                self.last_message = f"Consecutive hysteresis is enabled. Restoring hysteresis to {self.hysteresis}"
                self.cur_hysteresis = self.hysteresis
            stable_interval = (self.cur_iter - self.last_overflow_iter) - 1
            if stable_interval > 0 and stable_interval % self.scale_window == 0:
                if not self.consecutive_hysteresis:
                    self.cur_hysteresis = self.hysteresis
                self._scale *= self.scale_factor
                self.last_event = "grow"
        self.cur_iter += 1
        self.steps += 1
        return not overflow

    def __repr__(self) -> str:
        return (f"DeepSpeedLossScaler(scale={self._scale:g}, scale_window={self.scale_window}, "
                f"hysteresis={self.cur_hysteresis}/{self.hysteresis}, min_scale={self.min_scale:g}, "
                f"consecutive_hysteresis={self.consecutive_hysteresis})")


MAX_SIMULATE_STEPS = 1_000_000     # এর বেশি ধাপ আঁকার কাজে লাগে না, চলতে মিনিট লাগে


def simulate(scaler, overflow_flags, steps: int | None = None) -> list[dict]:
    """scaler-কে ধাপে ধাপে চালায়; প্রতিটি step-এর একটি dict ফেরত দেয় — সময়রেখা আঁকার জন্য (পাঠ ০২)।

    overflow_flags: প্রতিটি step-এ inf/NaN এল কি না (bool-এর list/tensor), অথবা একটি ফাংশন f(step, scale) -> bool
    (তখন steps দিতে হবে), যেমন `lambda step, scale: scale > 2**20` — "scale এর বেশি হলেই overflow"।
    প্রতিটি সারি: step, scale (এই step-এ loss-এর গুণ), found_inf, stepped (optimizer step নেওয়া হলো কি না), new_scale,
    event ('grow', 'backoff', 'hysteresis', 'skip', 'error' বা None), message (DeepSpeed-এর log লাইন), error (DeepSpeed
    যেখানে থামে সেখানে তার বার্তা; সময়রেখা সেখানেই শেষ)। scaler নিজে বদলায়।
    """
    if not hasattr(scaler, "update") or not hasattr(scaler, "scale") or callable(scaler.scale):
        # torch.amp.GradScaler-এর scale একটি method, আর update() found_inf নেয় না — তাই এখানে চলে না
        raise TypeError(f"simulate() এই মডিউলের একটি loss scaler চায় (with .scale and .update(found_inf)); পেয়েছি "
                        f"{type(scaler).__name__}। GradScaler-এর নিয়ম দেখতে DynamicLossScaler দাও।")
    if steps is not None and (isinstance(steps, bool) or not isinstance(steps, numbers.Integral)
                              or not 0 <= steps <= MAX_SIMULATE_STEPS):
        raise ValueError(f"steps হবে 0 থেকে {MAX_SIMULATE_STEPS:,}-এর একটি পূর্ণসংখ্যা (steps must be a non-negative "
                         f"integer, at most {MAX_SIMULATE_STEPS:,}); পেয়েছি {str(steps)[:40]}")
    flags = None
    if callable(overflow_flags):
        if steps is None:
            raise ValueError("overflow_flags একটি ফাংশন হলে কত step চালাতে হবে তা steps=... দিয়ে বলো।")
    elif isinstance(overflow_flags, Iterable):
        if isinstance(overflow_flags, torch.Tensor):
            overflow_flags = overflow_flags.reshape(-1).tolist()
        flags = [_as_flag(f) for f in overflow_flags]
        steps = len(flags) if steps is None else min(steps, len(flags))
    else:
        raise TypeError("overflow_flags হবে bool-এর list/tensor, বা f(step, scale) ফাংশন (a list of flags or a "
                        f"function); পেয়েছি {overflow_flags!r:.40}")
    rows = []
    for step in range(steps):
        scale = scaler.scale
        found_inf = _as_flag(overflow_flags(step, scale)) if flags is None else flags[step]
        row = {"step": step, "scale": scale, "found_inf": found_inf}
        try:
            stepped = scaler.update(found_inf)
        except LossScaleAtMinimumError as err:
            rows.append({**row, "stepped": False, "new_scale": scaler.scale, "event": "error",
                         "message": None, "error": str(err)})
            break
        rows.append({**row, "stepped": stepped, "new_scale": scaler.scale,
                     "event": getattr(scaler, "last_event", None),
                     "message": getattr(scaler, "last_message", None), "error": None})
    return rows
