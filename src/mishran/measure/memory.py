"""এক training step-এর মেমরির খাতা (memory ledger), খাত ধরে ধরে (পাঠ ০৬ শেখায়)।

খাতগুলো (CATEGORIES): ওজন, gradient, FP32 মূল ওজন, optimizer-এর অবস্থা, backward-এর জন্য রাখা activation আর
autocast-এর cast cache। activation গোনা হয় saved_tensors_hooks দিয়ে, প্রতিটি storage একবার — তাই CPU-তেও চলে;
CUDA-তে পাশে allocator-এর মাপা সর্বোচ্চ মেমরিও থাকে।

    from mishran.measure.memory import measure_step
    led = measure_step(model, (x, y), mode="amp_bf16")      # বা mode=("torch", "bf16"): (কার loop, precision)
    print(led)                                              # খাত ধরে বাইট
    led.bytes_per_parameter, led.activations                # model state-এর বাইট/ওজন; activation-এর বাইট
"""
from __future__ import annotations

import argparse
import contextlib
import gc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch

from mishran import cli
from mishran.engines.amp import amp_step
from mishran.precision import autocast, grad_scaler
from mishran.timer import sync, time_steps
from mishran.versions import package_version

__all__ = ["CATEGORIES", "MODES", "Ledger", "SavedTensorCounter", "activation_bytes", "measure_step", "storage_bytes",
           "release", "DEFAULT_RUNS", "main"]


# mode-এর নাম → (কার loop, precision-এর নাম); নামগুলো শুধু দরজায় পড়া হয়, ভেতরে সবাই জোড়াটাই বলে।
MODES = {
    "fp32": ("torch", "fp32"),            # সাধারণ FP32 + Adam
    "amp_fp16": ("torch", "fp16"),        # autocast FP16 + GradScaler + Adam; ওজন FP32-এই থাকে
    "amp_bf16": ("torch", "bf16"),        # autocast BF16 + Adam; ওজন FP32-এই থাকে
    "ds_bf16": ("deepspeed", "bf16"),     # DeepSpeed engine, BF16 মডেল + FP32 মূল ওজন, ZeRO 0–2
    "ds_fp16": ("deepspeed", "fp16"),     # DeepSpeed engine, FP16 + loss scaling (শুধু GPU-তে)
}
_NAMES = {pair: name for name, pair in MODES.items()}

CATEGORIES = {                                  # খাতের নাম → বাংলা নাম (সারণিতে দেখানোর জন্য)
    "parameters": "ওজন (parameters)", "gradients": "gradient",
    "master_weights": "FP32 মূল ওজন (master weights)", "optimizer_state": "optimizer-এর অবস্থা (Adam moments)",
    "activations": "activation (backward-এর জন্য রাখা)", "cast_cache": "autocast-এর cast cache",
}
MODEL_STATES = ("parameters", "gradients", "master_weights", "optimizer_state")


def release(device) -> None:
    """আর না-লাগা মডেল আর optimizer-এর মেমরি ফেরত (আগে নিজের reference মুছে দাও): gc, আর GPU-তে allocator-এর
    cache খালি — একটির পর একটি মাপে আগেরটির মেমরি যেন পরেরটিতে না থাকে (পাঠ ০৬, ০৭)।"""
    gc.collect()
    if torch.device(device).type == "cuda":
        torch.cuda.empty_cache()


def _storage_key(t: torch.Tensor):
    return (t.device.type, t.device.index, t.untyped_storage().data_ptr())


def _real(t) -> bool:
    return isinstance(t, torch.Tensor) and t.device.type != "meta" and t.untyped_storage().nbytes() > 0


def storage_bytes(tensors, seen: set | None = None) -> int:
    """tensor-গুলোর storage-এর মোট বাইট, প্রতিটি storage একবার (view বা বাঁধা ওজন দুবার নয়) (পাঠ ০৬)। seen: আগে গোনা
    storage-এর key — সেগুলো বাদ, আর এখানে গোনাগুলো তাতে যোগ হয়, যাতে খাতে খাতে একটি storage একবারই গোনা পড়ে।"""
    seen = set() if seen is None else seen
    total = 0
    for t in tensors:
        key = _storage_key(t) if _real(t) else None
        if key is not None and key not in seen:
            seen.add(key)
            total += t.untyped_storage().nbytes()
    return total


def _is_cast_of_parameter(t: torch.Tensor, params: set) -> bool:
    """t কোনো ওজনের সরাসরি dtype-বদল (autocast-এর cast) কি না; params: ওজনগুলোর id।"""
    t = t if t._base is None else t._base      # ওজনের cast প্রায়ই view হয়ে রাখা হয় (যেমন Linear-এ weight.t())
    fn = t.grad_fn
    if fn is None or "ToCopyBackward" not in type(fn).__name__:
        return False
    # AccumulateGrad-এর .variable হলো leaf ওজনটি
    return any(id(getattr(nxt, "variable", None)) in params for nxt, _ in fn.next_functions)


class SavedTensorCounter(torch.autograd.graph.saved_tensors_hooks):
    """with-block-এর ভেতরে autograd backward-এর জন্য যা রাখে, তা গোনে (পাঠ ০৬)।

    model দিলে তার ওজনের storage বাদ যায় (ওজন খাতে আগেই গোনা), আর ওজনের ১৬-বিট cast (autocast-এর cast
    cache) আলাদা খাতে যায়। প্রতিটি storage একবারই গোনা হয়।
        with SavedTensorCounter(model) as c:
            _, loss = model(x, y)
        c.activations, c.cast_cache          # বাইট
    """

    def __init__(self, model: torch.nn.Module | None = None):
        super().__init__(self._pack, lambda t: t)
        params = list(model.parameters()) if model is not None else []
        self._param_keys = {_storage_key(p) for p in params if _real(p)}
        self._param_ids = {id(p) for p in params}
        self._seen: set = set()
        self.activations = 0
        self.cast_cache = 0
        self.saved_parameters = 0           # ওজন নিজেই saved (যেমন FP32-এ Linear-এর weight): নতুন মেমরি নয়

    def _pack(self, t):
        # t.detach() ফেরত দিই, t নয়: t নিজে রাখলে t → grad_fn → t একটি চক্র হয়, আর backward না চালালে
        # পুরো graph মেমরিতে থেকে যায় (leak)। detach একই storage-এর আরেকটি নাম, তাই গোনা বা gradient বদলায় না।
        key = _storage_key(t) if _real(t) else None
        if key is None or key in self._seen:
            return t.detach()
        self._seen.add(key)
        nbytes = t.untyped_storage().nbytes()
        if key in self._param_keys:
            self.saved_parameters += nbytes
        elif _is_cast_of_parameter(t, self._param_ids):
            self.cast_cache += nbytes
        else:
            self.activations += nbytes
        return t.detach()

    def __enter__(self):
        super().__enter__()
        return self


def activation_bytes(model, batch, precision: str = "fp32") -> SavedTensorCounter:
    """একটি forward (loss পর্যন্ত, precision-এর autocast-এ) backward-এর জন্য কত বাইট রাখে; optimizer ছাড়া, দ্রুত
    (পাঠ ০৬)। মডেল (x, y) → (logits, loss) ধাঁচের (TinyGPT); ফেরত গোনা শেষের SavedTensorCounter।"""
    x, y = batch
    with SavedTensorCounter(model) as c, autocast(x.device, precision):
        model(x, y)
    return c


@dataclass
class Ledger:
    """এক training step-এর মেমরির খাতা, বাইটে (পাঠ ০৬); engine: কার loop ('torch' বা 'deepspeed')।

    model state = parameters + gradients + master_weights + optimizer_state; activation ব্যাচ আর sequence-এর
    দৈর্ঘ্যের সঙ্গে বাড়ে, তাই আলাদা। peak_allocated: CUDA-তে মাপা সর্বোচ্চ (CPU-তে None); ledger_sum-এর সঙ্গে মেলাও।
    """

    engine: str
    precision: str
    zero_stage: int | None
    device: str
    num_parameters: int
    batch_size: int
    seq_len: int
    parameters: int = 0
    gradients: int = 0
    master_weights: int = 0
    optimizer_state: int = 0
    activations: int = 0
    cast_cache: int = 0
    peak_allocated: int | None = None
    step_seconds: float | None = None
    details: dict = field(default_factory=dict)

    @property
    def mode(self) -> str:
        """(engine, precision)-এর নাম, MODES-এর বানানে: 'fp32', 'amp_bf16', 'ds_fp16' …"""
        return _NAMES[(self.engine, self.precision)]

    @property
    def model_states(self) -> int:
        """ওজন + gradient + optimizer state-এর বাইট (পাঠ ০৬)।"""
        return sum(getattr(self, k) for k in MODEL_STATES)

    @property
    def ledger_sum(self) -> int:
        """খাতার সব খাতের যোগফল: model states + activation + cast cache (পাঠ ০৬)।"""
        return self.model_states + self.activations + self.cast_cache

    @property
    def bytes_per_parameter(self) -> float:
        """model state-এর বাইট ÷ ওজনের সংখ্যা (FP32 + Adam-এ ১৬)।"""
        return self.model_states / self.num_parameters

    @property
    def peak_ratio(self) -> float | None:
        """ledger_sum ÷ মাপা সর্বোচ্চ মেমরি (CUDA); CPU-তে None।"""
        return None if not self.peak_allocated else self.ledger_sum / self.peak_allocated

    @property
    def label(self) -> str:
        """সারণির সারির নাম: mode, আর ZeRO থাকলে তার stage (পাঠ ০৬)।"""
        return self.mode + ("" if self.zero_stage is None else f" ZeRO-{self.zero_stage}")

    def to_dict(self) -> dict:
        """JSON-এর জন্য dict, mode আর হিসাব-করা খাতগুলোসহ (পাঠ ০৬)।"""
        return {"mode": self.mode, **asdict(self), "model_states": self.model_states, "ledger_sum": self.ledger_sum,
                "bytes_per_parameter": self.bytes_per_parameter, "peak_ratio": self.peak_ratio}

    def __str__(self) -> str:
        mib = 2 ** 20
        lines = [f"{self.label} ({self.device}), {self.num_parameters:,}টি ওজন, ব্যাচ {self.batch_size} × {self.seq_len}"]
        lines += [f"  {name:38} {getattr(self, key) / mib:10.3f} MiB" for key, name in CATEGORIES.items()]
        lines.append(f"  {'model state, প্রতি ওজনে':38} {self.bytes_per_parameter:10.2f} বাইট")
        lines.append(f"  {'খাতার যোগফল (ledger sum)':38} {self.ledger_sum / mib:10.3f} MiB")
        if self.peak_allocated:
            lines.append(f"  {'allocator-এর মাপা সর্বোচ্চ':38} {self.peak_allocated / mib:10.3f} MiB "
                         f"(যোগফল/সর্বোচ্চ = {self.peak_ratio:.3f})")
        return "\n".join(lines)


def _walk_tensors(obj, out: list, seen: set, depth: int = 0) -> None:
    """একটি অবজেক্টের ভেতরের সব tensor আর তাদের .grad (dict, list, deepspeed/torch-এর অবজেক্টের অ্যাট্রিবিউট ধরে,
    পাঁচ স্তর পর্যন্ত), মডেল (nn.Module) বাদে।"""
    if id(obj) in seen or depth > 5 or isinstance(obj, torch.nn.Module):
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out += [obj] if obj.grad is None else [obj, obj.grad]
        return
    items = ()
    if isinstance(obj, dict):
        items = [v for kv in obj.items() for v in kv]
    elif isinstance(obj, (list, tuple, set)):
        items = obj
    elif hasattr(obj, "__dict__") and type(obj).__module__.split(".")[0] in ("deepspeed", "torch"):
        items = vars(obj).values()
    for v in items:
        _walk_tensors(v, out, seen, depth + 1)


@dataclass
class _Run:
    """measure_step-এর একটি চালানো: কোন loop, কোন device, কার ওজন আর কোন optimizer-এর খাতা দেখা হবে; তারপর শেষ
    (মাপা) step-এ যা দেখা হলো — armed হলে backward-এর শেষে gradient আর DeepSpeed-এর buffer টুকে রাখা হয়।"""

    zero_stage: int | None
    device: torch.device
    module: torch.nn.Module            # যার ওজন গোনা হয় (DeepSpeed-এ engine.module)
    optimizer: object                  # যার step() loop ডাকে (DeepSpeed-এ তার নিজের optimizer)
    basic: torch.optim.Optimizer       # ভেতরের torch optimizer: FP32 মূল ওজন আর Adam-এর অবস্থা এখানে
    step: Callable[[], object]         # এক training step: amp_step বা deepspeed_engine.engine_step
    engine: object = None              # DeepSpeed engine, শুধু DeepSpeed-এর mode-এ; measure_step নিজেই বানায় ও ছাড়ে
    armed: bool = False
    grads: list = field(default_factory=list)          # মডেলের ওজনের .grad, backward-এর ঠিক পরে
    buffers: dict = field(default_factory=dict)        # DeepSpeed optimizer-এর অ্যাট্রিবিউট → তার ভেতরের tensor
    fp32_grads: list = field(default_factory=list)     # ভেতরের optimizer-এর step-এর আগে তার ওজনের .grad
    counter: SavedTensorCounter | None = None
    times: list = field(default_factory=list)
    peak: int | None = None
    at_start: int | None = None


def _set_up(model, batch, engine: str, precision: str, zero_stage: int) -> _Run:
    """measure_step-এর প্রস্তুতি: optimizer (আর DeepSpeed-এ নিজের engine), আর step-টি। lr খাতা বদলায় না।"""
    x, y = batch
    # fused AdamW: এক kernel-এ সব ওজন, মাঝের বড় অস্থায়ী tensor ছাড়া (foreach Adam প্রায় 4Ψ বাইটের একটি বানায়)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    if engine == "torch":
        scaler, ctx = grad_scaler(x.device, precision), autocast(x.device, precision)
        return _Run(None, x.device, model, opt, opt, lambda: amp_step(model, opt, scaler, ctx, [(x, y)]))
    from mishran.engines import deepspeed_config, deepspeed_engine
    config = deepspeed_config.config_for_device(micro_batch=x.shape[0], zero_stage=zero_stage, precision=precision)
    # নিজের engine, শিক্ষার্থীর current_engine()-এর জায়গা না নিয়ে; এটি শেষে measure_step নিজেই ছাড়ে
    ds = deepspeed_engine.initialize(model, config, optimizer=opt, replace_current=False)
    basic = getattr(ds, "basic_optimizer", None) or ds.optimizer
    # DeepSpeed নিজের accelerator-এ (যেমন GPU) মডেল নেয়; engine_step ব্যাচও সেখানে নেয়
    return _Run(zero_stage, torch.device(ds.device), ds.module, ds.optimizer, basic,
                lambda: deepspeed_engine.engine_step(ds, [(x, y)]), ds)


@contextlib.contextmanager
def _watching(run: _Run):
    """step-এর ভেতরে কী আছে তা run-এ টুকে রাখার hook, শুধু with-block-এর সময়টুকু (পাঠ ০৬): forward-এর সময়টুকু
    run.counter (backward বা optimizer যা রাখে, যেমন GradScaler-এর scale, তা activation নয়); optimizer.step-এর
    শুরুতে মডেলের gradient আর DeepSpeed-এর buffer (ZeRO এর পরেই ১৬-বিট gradient ছেড়ে FP32 কপি বানায়); ভেতরের torch
    optimizer-এর step-এর ঠিক আগে FP32 মূল ওজনের gradient।"""
    def forward_starts(*args):     # None ফেরত: hook কিছু ফেরত দিলে তা forward-এর ইনপুট বা ফল হয়ে যেত
        run.counter.__enter__()

    def forward_ends(*args):
        run.counter.__exit__(None, None, None)

    def fp32_copies(optimizer, *args, **kwargs):
        run.fp32_grads = [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]

    def after_backward(*args, **kwargs):
        if run.armed:
            run.grads = [p.grad for p in run.module.parameters()]
            if run.engine is not None:
                seen: set = set()
                for name, value in vars(run.optimizer).items():
                    found: list = []
                    _walk_tensors(value, found, seen)
                    if found:
                        run.buffers[name] = found
        return real_step(*args, **kwargs)

    real_step = run.optimizer.step
    hooks = [run.module.register_forward_pre_hook(forward_starts),
             run.module.register_forward_hook(forward_ends, always_call=True),
             run.basic.register_step_pre_hook(fp32_copies)]
    run.optimizer.step = after_backward          # শুধু এই optimizer-টির (নিজের বানানো), শেষে সরানো হয়
    try:
        yield
    finally:
        for hook in hooks:
            hook.remove()
        del run.optimizer.step


def _timed_steps(run: _Run, warmup: int, steps: int) -> None:
    """warmup + steps-টি পুরো step, mishran.timer.time_steps দিয়ে মাপা; শেষটিতে খাতার জিনিস run-এ টুকে রাখা, আর
    CUDA-তে মাপা সর্বোচ্চ মেমরি।"""
    def step():
        run.counter = SavedTensorCounter(run.module)     # প্রতি step-এ নতুন গোনা
        run.step()

    cuda = run.device.type == "cuda"
    with _watching(run):
        run.times = time_steps(step, steps - 1, run.device, warmup=warmup)
        if cuda:
            gc.collect()
            sync(run.device)
            torch.cuda.reset_peak_memory_stats(run.device)
            run.at_start = torch.cuda.memory_allocated(run.device)   # ধাপের শুরুতে যা আছে (model state + বাকি)
        run.armed = True                                             # শেষ step: খাতার জিনিস টুকে রাখা
        run.times += time_steps(step, 1, run.device)
    if cuda:
        run.peak = torch.cuda.max_memory_allocated(run.device)


def _ledger(run: _Run, led: Ledger) -> Ledger:
    """টুকে রাখা tensor থেকে খাত: প্রতিটি storage একবারই, আগের খাতে গোনা হলে পরেরটিতে নয় (পাঠ ০৬)।"""
    params, seen = list(run.module.parameters()), set()
    led.parameters = storage_bytes(params, seen)
    led.master_weights = storage_bytes([p for g in run.basic.param_groups for p in g["params"]], seen)
    led.optimizer_state = storage_bytes([v for s in run.basic.state.values() for v in s.values()], seen)
    g16 = storage_bytes(run.grads, seen)
    by_buffer = {name: storage_bytes(found, seen) for name, found in run.buffers.items()}
    by_buffer = {name: nbytes for name, nbytes in by_buffer.items() if nbytes}
    g16 += sum(by_buffer.values())
    g32 = storage_bytes(run.fp32_grads, seen)
    led.gradients = g16 + g32
    led.activations = run.counter.activations
    led.cast_cache = run.counter.cast_cache
    led.peak_allocated = run.peak
    led.step_seconds = sorted(run.times)[len(run.times) // 2]
    led.details = {"gradients_16bit_or_model": g16, "gradients_fp32_copy": g32, "deepspeed_buffers": by_buffer,
                   "optimizer": type(run.optimizer).__name__, "param_dtype": str(params[0].dtype).replace("torch.", "")}
    if run.at_start is not None:
        # ধাপের শুরুতে allocator-এ যা ছিল, কিন্তু কোনো খাতে নেই: cuBLAS-এর workspace, DeepSpeed-এর buffer, ইনপুট
        led.details["allocated_at_start"] = run.at_start
        led.details["untracked_at_start"] = run.at_start - (led.parameters + led.master_weights + led.optimizer_state)
    return led


def measure_step(model, batch, mode="fp32", zero_stage: int = 0, warmup: int = 1, steps: int = 1) -> Ledger:
    """একটি মডেলের এক training step-এর খাতা মাপে, শেষ step-এর খাতা ফেরত দেয় (পাঠ ০৬)।

    model: TinyGPT-এর মতো (x, y) → (logits, loss); batch: (x, y), মডেলের device-এ। মডেলটি প্রশিক্ষিত হয় (DeepSpeed-এ
    ১৬-বিটেও যায়), তাই প্রতিবার নতুন মডেল দাও। step: amp_step বা deepspeed_engine.engine_step — train() আর পাঠ ০৫-এর
    loop যা চালায়, ঠিক তা-ই। mode: MODES-এর নাম ('amp_bf16') বা জোড়া, যেমন ("deepspeed", "fp16")। DeepSpeed-এ
    zero_stage 0, 1 বা 2; engine এখানেই বানানো ও ছাড়া হয়, তোমার current_engine() ছোঁয়া হয় না। warmup: আগে কয়টি
    পুরো step (Adam-এর অবস্থা প্রথম step-এই তৈরি হয়), steps: মাপা কয়টি step (সময় তাদের মধ্যমা)।
    """
    pair = MODES.get(mode) if isinstance(mode, str) else tuple(mode) if isinstance(mode, (tuple, list)) else None
    if pair not in _NAMES:
        raise ValueError(f"অচেনা mode {mode!r} (unknown mode); বেছে নাও: {', '.join(MODES)}, বা তাদের জোড়া, যেমন "
                         f"{MODES['ds_fp16']!r}")
    if not all(type(v) is int for v in (zero_stage, warmup, steps)) or zero_stage not in (0, 1, 2) \
            or not 0 <= warmup <= 1000 or not 1 <= steps <= 1000:
        raise ValueError(f"zero_stage হবে 0, 1 বা 2, warmup 0 থেকে 1000, steps 1 থেকে 1000 (zero_stage must be 0-2, "
                         f"warmup 0-1000, steps 1-1000); পেয়েছি {zero_stage!r}, {warmup!r}, {steps!r}")
    x, _ = batch
    num_parameters = sum({_storage_key(p): p.numel() for p in model.parameters()}.values())   # বাঁধা ওজন একবার
    run = _set_up(model, batch, *pair, zero_stage)
    try:
        _timed_steps(run, warmup, steps)
        return _ledger(run, Ledger(*pair, run.zero_stage, str(run.device), num_parameters, *x.shape))
    finally:
        device = run.device
        if run.engine is not None:
            from mishran.engines import deepspeed_engine
            deepspeed_engine.release(run.engine)
        run = None                                # gradient আর buffer-এর শেষ reference; তারপর মেমরি ফেরত
        release(device)


DEFAULT_RUNS = ("fp32", "amp_fp16", "amp_bf16", "ds_bf16:0", "ds_bf16:1", "ds_bf16:2", "ds_fp16:1", "ds_fp16:2")


def _run_spec(text: str) -> tuple[str, int]:
    """--runs-এর একটি: 'mode' বা 'mode:zero_stage' → (mode, stage); অচেনা হলে argparse-এর error (exit status 2)।"""
    mode, _, stage = text.partition(":")
    if mode not in MODES or stage not in ("", "0", "1", "2"):
        raise argparse.ArgumentTypeError(f"অচেনা run {text!r} (unknown run): লেখো mode বা mode:zero_stage; mode: "
                                         f"{', '.join(MODES)}; zero_stage 0, 1 বা 2")
    return mode, int(stage or 0)


def main(argv=None) -> list[Ledger]:
    """`python -m mishran.measure.memory`: এই যন্ত্রে প্রতিটি mode-এর খাতা ছাপে (পাঠ ০৬-এর মাপ), --json দিলে ফাইলেও লেখে।

    ডিফল্ট মাপ পাঠ ০৬-এর: GPU-তে TinyGPT 12 স্তর × 384, ব্যাচ 32 × 256; CPU-তে 2 স্তর × 64, ব্যাচ 8 × 64।
    CPU-তে ds_fp16 বাদ যায় (DeepSpeed-এর CPU accelerator FP16 নেয় না)।
    """
    import platform

    from mishran.data import CharDataset
    from mishran.models.gpt import GPTConfig, TinyGPT

    cuda = torch.cuda.is_available()
    p = argparse.ArgumentParser(prog="python -m mishran.measure.memory", description=main.__doc__.splitlines()[0])
    for name, gpu, cpu in [("n-layer", 12, 2), ("n-embd", 384, 64), ("n-head", 6, 4), ("block-size", 256, 64),
                           ("batch", 32, 8)]:
        p.add_argument(f"--{name}", type=cli.positive_int, default=gpu if cuda else cpu)
    p.add_argument("--runs", nargs="*", type=_run_spec, default=[_run_spec(r) for r in DEFAULT_RUNS],
                   help="mode বা mode:zero_stage")
    p.add_argument("--json", default=None, help="ফল এই JSON ফাইলে লেখো ('-' দিলে পর্দায়)")
    args = p.parse_args(argv)
    device = "cuda" if cuda else "cpu"
    data = CharDataset()
    cfg = GPTConfig(vocab_size=data.vocab_size, block_size=args.block_size, n_layer=args.n_layer,
                    n_head=args.n_head, n_embd=args.n_embd)
    x, y = data.get_batch("train", args.batch, args.block_size, device=device,
                          generator=torch.Generator().manual_seed(0))
    ledgers = []
    for mode, stage in args.runs:
        if mode == "ds_fp16" and not cuda:
            print(f"{mode}:{stage}: বাদ — CPU accelerator FP16 নেয় না")
            continue
        ledgers.append(measure_step(TinyGPT(cfg, seed=0).to(device), (x, y), mode=mode, zero_stage=stage))
        print(ledgers[-1], flush=True)
    meta = {"device": torch.cuda.get_device_name(0) if cuda else platform.processor() or "CPU",
            "torch": torch.__version__, "deepspeed": package_version("deepspeed"), "config": vars(args)}
    cli.write_record({"meta": meta, "ledgers": [led.to_dict() for led in ledgers]}, args.json)
    return ledgers


if __name__ == "__main__":
    main()
