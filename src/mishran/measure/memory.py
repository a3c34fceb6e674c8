"""এক training step-এর মেমরির খাতা (memory ledger), খাত ধরে ধরে (পাঠ ০৬ শেখায়)।

খাতগুলো: ওজন (parameters), gradient, optimizer-এর অবস্থা (Adam-এর দুই moment), FP32 মূল ওজন (master
weights), backward-এর জন্য রাখা activation, আর autocast-এর cast cache (FP32 ওজনের ১৬-বিট কপি)।
activation গোনা হয় torch.autograd.graph.saved_tensors_hooks দিয়ে: autograd যে tensor-গুলো backward-এর জন্য
রেখে দেয়, সেগুলোর storage একবার করে (view দুবার গোনা হয় না) — তাই CPU-তেও চলে। CUDA-তে খাতার যোগফলের
পাশে allocator-এর মাপা সর্বোচ্চ মেমরিও (torch.cuda.max_memory_allocated) থাকে।

    from mishran.measure.memory import measure_step
    led = measure_step(model, (x, y), mode="amp_bf16")      # বা mode=("torch", "bf16"): (কার loop, precision)
    print(led)                                              # খাত ধরে বাইট
    led.bytes_per_parameter, led.activations                # model state-এর বাইট/ওজন; activation-এর বাইট

এই মডিউল matplotlib বা ipywidgets import করে না; deepspeed import হয় শুধু DeepSpeed-এর mode-এ।
"""
from __future__ import annotations

import argparse
import contextlib
import gc
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch

from mishran import cli
from mishran.checks import finite_float
from mishran.engines.amp import amp_step
from mishran.precision import autocast, grad_scaler
from mishran.timer import sync, time_steps
from mishran.versions import package_version

__all__ = ["CATEGORIES", "MODES", "Ledger", "SavedTensorCounter", "activation_bytes", "measure_step", "storage_bytes",
           "release", "DEFAULT_RUNS", "main"]


# mode-এর নাম → (কার loop, precision-এর নাম); নামগুলো শুধু দরজায় পড়া হয়, ভেতরে সবাই জোড়াটাই বলে।
# dtype, autocast আর GradScaler আসে mishran.precision থেকে।
MODES = {
    "fp32": ("torch", "fp32"),            # সাধারণ FP32 + Adam
    "amp_fp16": ("torch", "fp16"),        # autocast FP16 + GradScaler + Adam; ওজন FP32-এই থাকে
    "amp_bf16": ("torch", "bf16"),        # autocast BF16 + Adam; ওজন FP32-এই থাকে
    "ds_bf16": ("deepspeed", "bf16"),     # DeepSpeed engine, BF16 মডেল + FP32 মূল ওজন, ZeRO 0–2
    "ds_fp16": ("deepspeed", "fp16"),     # DeepSpeed engine, FP16 + loss scaling (শুধু GPU-তে)
}
_NAMES = {pair: name for name, pair in MODES.items()}

# খাতের নাম → বাংলা নাম (সারণিতে দেখানোর জন্য)
CATEGORIES = {
    "parameters": "ওজন (parameters)",
    "gradients": "gradient",
    "master_weights": "FP32 মূল ওজন (master weights)",
    "optimizer_state": "optimizer-এর অবস্থা (Adam moments)",
    "activations": "activation (backward-এর জন্য রাখা)",
    "cast_cache": "autocast-এর cast cache",
}
MODEL_STATES = ("parameters", "gradients", "master_weights", "optimizer_state")


def release(device) -> None:
    """আর না-লাগা মডেল আর optimizer-এর মেমরি ফেরত (আগে নিজের reference মুছে দাও): gc, আর GPU-তে allocator-এর
    cache খালি — একটির পর একটি মাপে আগেরটির মেমরি যেন পরেরটিতে না থাকে (পাঠ ০৬, ০৭)।"""
    gc.collect()
    if torch.device(device).type == "cuda":
        torch.cuda.empty_cache()


def _storage_key(t: torch.Tensor):
    s = t.untyped_storage()
    return (t.device.type, t.device.index, s.data_ptr())


def _real(t) -> bool:
    return isinstance(t, torch.Tensor) and t.device.type != "meta" and t.untyped_storage().nbytes() > 0


def storage_bytes(tensors, exclude=()) -> tuple[int, set]:
    """tensor-গুলোর storage-এর মোট বাইট, প্রতিটি storage একবার (view বা বাঁধা ওজন দুবার নয়) (পাঠ ০৬)।

    exclude: আগে গোনা storage-এর key-র set; সেগুলো বাদ। ফেরত দেয় (বাইট, এখানে গোনা key-র set)।
    """
    seen, counted, total = set(exclude), set(), 0
    for t in tensors:
        if not _real(t):
            continue
        key = _storage_key(t)
        if key in seen:
            continue
        seen.add(key)
        counted.add(key)
        total += t.untyped_storage().nbytes()
    return total, counted


def _source_parameter(t: torch.Tensor, params: set):
    """t যদি কোনো ওজনের সরাসরি dtype-বদল (autocast-এর cast) হয়, সেই ওজনের id; নইলে None।"""
    if t._base is not None:               # ওজনের cast প্রায়ই view হয়ে রাখা হয় (যেমন Linear-এ weight.t())
        t = t._base
    fn = t.grad_fn
    if fn is None or "ToCopyBackward" not in type(fn).__name__:
        return None
    for nxt, _ in fn.next_functions:
        var = getattr(nxt, "variable", None)          # AccumulateGrad-এর .variable হলো leaf ওজনটি
        if var is not None and id(var) in params:
            return id(var)
    return None


class SavedTensorCounter:
    """with-block-এর ভেতরে autograd backward-এর জন্য যা রাখে, তা গোনে (পাঠ ০৬)।

    model দিলে তার ওজনের storage বাদ যায় (ওজন খাতে আগেই গোনা), আর ওজনের ১৬-বিট cast (autocast-এর cast
    cache) আলাদা খাতে যায়। প্রতিটি storage একবারই গোনা হয়।
        with SavedTensorCounter(model) as c:
            _, loss = model(x, y)
        c.activations, c.cast_cache          # বাইট
    """

    def __init__(self, model: torch.nn.Module | None = None):
        params = list(model.parameters()) if model is not None else []
        self._param_keys = {_storage_key(p) for p in params if _real(p)}
        self._param_ids = {id(p) for p in params}
        self._seen: dict = {}
        self.activations = 0
        self.cast_cache = 0
        self.saved_parameters = 0           # ওজন নিজেই saved (যেমন FP32-এ Linear-এর weight): নতুন মেমরি নয়
        self.count = 0                      # কয়টি tensor autograd রাখল (একই storage একাধিকবার হলেও)
        self.by_dtype: dict = {}
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)

    def _pack(self, t):
        # t.detach() ফেরত দিই, t নয়: t নিজে রাখলে t → grad_fn → t একটি চক্র হয়, আর backward না চালালে
        # পুরো graph মেমরিতে থেকে যায় (leak)। detach একই storage-এর আরেকটি নাম, তাই গোনা বা gradient বদলায় না।
        self.count += 1
        if not _real(t):
            return t.detach()
        key = _storage_key(t)
        if key in self._seen:
            return t.detach()
        nbytes = t.untyped_storage().nbytes()
        if key in self._param_keys:
            kind = "parameter"
            self.saved_parameters += nbytes
        elif _source_parameter(t, self._param_ids) is not None:
            kind = "cast_cache"
            self.cast_cache += nbytes
        else:
            kind = "activation"
            self.activations += nbytes
            name = str(t.dtype).replace("torch.", "")
            self.by_dtype[name] = self.by_dtype.get(name, 0) + nbytes
        self._seen[key] = kind
        return t.detach()

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)
        return False


def activation_bytes(model, batch, precision: str = "fp32") -> SavedTensorCounter:
    """একটি forward (loss পর্যন্ত) backward-এর জন্য কত বাইট রাখে; optimizer ছাড়া, দ্রুত (পাঠ ০৬)।

    precision: 'fp32', 'fp16' বা 'bf16' (autocast)। মডেল (x, y) → (logits, loss) ধাঁচের (TinyGPT)।
    ফেরত দেয় গোনা শেষের SavedTensorCounter: .activations, .cast_cache, .by_dtype, .count।
    """
    x, y = batch
    with SavedTensorCounter(model) as c, autocast(x.device, precision):
        _, loss = model(x, y)
    del loss
    return c


@dataclass
class Ledger:
    """এক training step-এর মেমরির খাতা, বাইটে (পাঠ ০৬)।

    engine আর precision: কার loop ('torch' বা 'deepspeed') আর precision-এর নাম (mishran.precision.NAMES)।
    model state = parameters + gradients + master_weights + optimizer_state; bytes_per_parameter তার ওজনপ্রতি
    ভাগ। activations আর cast_cache আলাদা, কারণ এরা ব্যাচ আর sequence-এর দৈর্ঘ্যের সঙ্গে বাড়ে (cast cache নয়)।
    peak_allocated: CUDA-তে মাপা step-এর সর্বোচ্চ মেমরি (CPU-তে None); ledger_sum-এর সঙ্গে মেলাও।
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
        lines = [f"{self.label} ({self.device}), {self.num_parameters:,}টি ওজন, ব্যাচ {self.batch_size} × "
                 f"{self.seq_len}"]
        lines += [f"  {name:38} {getattr(self, key) / mib:10.3f} MiB" for key, name in CATEGORIES.items()]
        lines.append(f"  {'model state, প্রতি ওজনে':38} {self.bytes_per_parameter:10.2f} বাইট")
        lines.append(f"  {'খাতার যোগফল (ledger sum)':38} {self.ledger_sum / mib:10.3f} MiB")
        if self.peak_allocated:
            lines.append(f"  {'allocator-এর মাপা সর্বোচ্চ':38} {self.peak_allocated / mib:10.3f} MiB "
                         f"(যোগফল/সর্বোচ্চ = {self.peak_ratio:.3f})")
        return "\n".join(lines)


def _walk_tensors(obj, out: list, seen: set, depth: int = 0, max_depth: int = 5) -> None:
    """একটি অবজেক্টের ভেতরের সব tensor (dict, list, অ্যাট্রিবিউট ধরে), মডেল (nn.Module) বাদে।"""
    if id(obj) in seen or depth > max_depth:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out.append(obj)
        if obj.grad is not None:
            out.append(obj.grad)
        return
    if isinstance(obj, torch.nn.Module):
        return
    if isinstance(obj, dict):
        items = [v for kv in obj.items() for v in kv]
    elif isinstance(obj, (list, tuple, set)):
        items = list(obj)
    elif hasattr(obj, "__dict__") and type(obj).__module__.split(".")[0] in ("deepspeed", "torch"):
        items = list(vars(obj).values())
    else:
        return
    for v in items:
        _walk_tensors(v, out, seen, depth + 1, max_depth)


@dataclass
class _Run:
    """measure_step-এর একটি চালানো: কোন loop, কোন device, কার ওজন আর কোন optimizer-এর খাতা দেখা হবে।"""

    zero_stage: int | None
    device: torch.device
    module: torch.nn.Module            # যার ওজন গোনা হয় (DeepSpeed-এ engine.module)
    optimizer: object                  # যার step() loop ডাকে (DeepSpeed-এ তার নিজের optimizer)
    basic: torch.optim.Optimizer       # ভেতরের torch optimizer: FP32 মূল ওজন আর Adam-এর অবস্থা এখানে
    step: Callable[[], object]         # এক training step: amp_step বা deepspeed_engine.engine_step
    engine: object = None              # DeepSpeed engine, শুধু DeepSpeed-এর mode-এ; measure_step নিজেই বানায় ও ছাড়ে


@dataclass
class _Capture:
    """শেষ (মাপা) step-এ যা দেখা হলো। armed হলে backward-এর শেষে gradient আর DeepSpeed-এর buffer টুকে রাখে।"""

    armed: bool = False
    grads: list = field(default_factory=list)          # মডেলের ওজনের .grad, backward-এর ঠিক পরে
    buffers: dict = field(default_factory=dict)        # DeepSpeed optimizer-এর অ্যাট্রিবিউট → তার ভেতরের tensor
    fp32_grads: list = field(default_factory=list)     # ভেতরের optimizer-এর step-এর আগে তার ওজনের .grad
    counter: SavedTensorCounter | None = None
    times: list = field(default_factory=list)
    peak: int | None = None
    at_start: int | None = None


def _set_up(model, batch, engine: str, precision: str, zero_stage: int, lr: float) -> _Run:
    """measure_step-এর প্রস্তুতি: optimizer (আর DeepSpeed-এ নিজের engine), আর step-টি।"""
    x, y = batch
    if engine == "torch":
        # fused AdamW: এক kernel-এ সব ওজন, মাঝের বড় অস্থায়ী tensor ছাড়া (foreach Adam প্রায় 4Ψ বাইটের একটি বানায়)
        opt = torch.optim.AdamW(model.parameters(), lr=lr, fused=True)
        scaler, ctx = grad_scaler(x.device, precision), autocast(x.device, precision)
        return _Run(None, x.device, model, opt, opt,
                    lambda: amp_step(model, opt, scaler, ctx, [(x, y)]))
    from mishran.engines import deepspeed_config, deepspeed_engine
    config = deepspeed_config.config_for_device(micro_batch=x.shape[0], zero_stage=zero_stage, precision=precision,
                                                lr=lr)
    # নিজের engine, শিক্ষার্থীর engine-এর জায়গা না নিয়ে (replace_current=False): deepspeed_engine.current_engine() যেমন ছিল
    # তেমনই থাকে, তার মেমরিও ছাড়া হয় না; এই engine শেষে measure_step নিজেই ছাড়ে
    ds = deepspeed_engine.initialize(model, config, optimizer=torch.optim.AdamW(model.parameters(), lr=lr, fused=True),
                                     replace_current=False)
    basic = getattr(ds, "basic_optimizer", None) or ds.optimizer
    # DeepSpeed নিজের accelerator-এ (যেমন GPU) মডেল নেয়; engine_step ব্যাচও সেখানে নেয়
    return _Run(zero_stage, torch.device(ds.device), ds.module, ds.optimizer, basic,
                lambda: deepspeed_engine.engine_step(ds, [(x, y)]), ds)


@contextlib.contextmanager
def _watching(run: _Run, cap: _Capture):
    """step-এর ভেতরে কী আছে তা cap-এ টুকে রাখার hook, শুধু with-block-এর সময়টুকু (পাঠ ০৬)।

    মডেলের forward চলার সময়টুকু cap.counter চালু: backward বা optimizer যা রাখে (যেমন GradScaler-এর scale), তা
    activation নয়। backward শেষে, optimizer-এর কাজ শুরুর আগে (run.optimizer.step-এর শুরুতে): মডেলের gradient আর
    DeepSpeed optimizer-এর buffer — ZeRO-তে এর পরেই DeepSpeed ১৬-বিট gradient ছেড়ে FP32 কপি বানায়। ভেতরের torch
    optimizer-এর step-এর ঠিক আগে (register_step_pre_hook): FP32 মূল ওজনের gradient (ZeRO-তে নিজের ভাগটুকুর)।
    """
    def forward_starts(*args):     # None ফেরত: hook কিছু ফেরত দিলে তা forward-এর ইনপুট বা ফল হয়ে যেত
        cap.counter.__enter__()

    def forward_ends(*args):
        cap.counter.__exit__(None, None, None)

    def fp32_copies(optimizer, *args, **kwargs):
        cap.fp32_grads = [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]

    def after_backward(*args, **kwargs):
        if cap.armed:
            cap.grads = [p.grad for p in run.module.parameters()]
            if run.engine is not None:
                seen: set = set()
                for name, value in vars(run.optimizer).items():
                    found: list = []
                    _walk_tensors(value, found, seen)
                    if found:
                        cap.buffers[name] = found
        return real_step(*args, **kwargs)

    real_step = run.optimizer.step
    hooks = [run.module.register_forward_pre_hook(forward_starts),
             run.module.register_forward_hook(forward_ends, always_call=True),
             run.basic.register_step_pre_hook(fp32_copies)]
    run.optimizer.step = after_backward          # শুধু এই optimizer-টির (নিজের বানানো), শেষে সরানো হয়
    try:
        yield cap
    finally:
        for hook in hooks:
            hook.remove()
        del run.optimizer.step


def _timed_steps(run: _Run, cap: _Capture, warmup: int, steps: int) -> None:
    """warmup + steps-টি পুরো step, mishran.timer.time_steps দিয়ে মাপা; শেষটিতে খাতার জিনিস cap-এ টুকে রাখা, আর
    CUDA-তে মাপা সর্বোচ্চ মেমরি।"""
    def step():
        cap.counter = SavedTensorCounter(run.module)     # প্রতি step-এ নতুন গোনা
        run.step()

    cuda = run.device.type == "cuda"
    with _watching(run, cap):
        cap.times = time_steps(step, steps - 1, run.device, warmup=warmup)
        if cuda:
            gc.collect()
            sync(run.device)
            torch.cuda.reset_peak_memory_stats(run.device)
            cap.at_start = torch.cuda.memory_allocated(run.device)   # ধাপের শুরুতে যা আছে (model state + বাকি)
        cap.armed = True                                             # শেষ step: খাতার জিনিস টুকে রাখা
        cap.times += time_steps(step, 1, run.device)
    if cuda:
        cap.peak = torch.cuda.max_memory_allocated(run.device)


def _ledger(run: _Run, cap: _Capture, led: Ledger) -> Ledger:
    """টুকে রাখা tensor থেকে খাত: প্রতিটি storage একবারই, আগের খাতে গোনা হলে পরেরটিতে নয় (পাঠ ০৬)।"""
    params = list(run.module.parameters())
    led.parameters, p_keys = storage_bytes(params)
    master = [p for g in run.basic.param_groups for p in g["params"]]
    led.master_weights, m_keys = storage_bytes(master, exclude=p_keys)
    states = [v for s in run.basic.state.values() for v in s.values() if isinstance(v, torch.Tensor)]
    led.optimizer_state, o_keys = storage_bytes(states, exclude=p_keys | m_keys)
    known = p_keys | m_keys | o_keys
    g16, g_keys = storage_bytes(cap.grads, exclude=known)
    by_buffer = {}
    for name, found in cap.buffers.items():
        nbytes, keys = storage_bytes(found, exclude=known | g_keys)
        g_keys |= keys
        if nbytes:
            by_buffer[name] = nbytes
    g16 += sum(by_buffer.values())
    g32, _ = storage_bytes(cap.fp32_grads, exclude=known | g_keys)
    led.gradients = g16 + g32
    led.activations = cap.counter.activations
    led.cast_cache = cap.counter.cast_cache
    led.peak_allocated = cap.peak
    led.step_seconds = sorted(cap.times)[len(cap.times) // 2]
    led.details = {"gradients_16bit_or_model": g16, "gradients_fp32_copy": g32, "deepspeed_buffers": by_buffer,
                   "activations_by_dtype": dict(cap.counter.by_dtype),
                   "optimizer": type(run.optimizer).__name__, "param_dtype": str(params[0].dtype).replace("torch.", "")}
    if cap.at_start is not None:
        # ধাপের শুরুতে allocator-এ যা ছিল, কিন্তু কোনো খাতে নেই: cuBLAS-এর workspace, DeepSpeed-এর buffer, ইনপুট
        led.details["allocated_at_start"] = cap.at_start
        led.details["untracked_at_start"] = cap.at_start - (led.parameters + led.master_weights + led.optimizer_state)
    return led


def measure_step(model, batch, mode="fp32", zero_stage: int = 0, lr: float = 1e-3, warmup: int = 1,
                 steps: int = 1) -> Ledger:
    """একটি মডেলের এক training step-এর খাতা মাপে (পাঠ ০৬)।

    model: TinyGPT-এর মতো (x, y) → (logits, loss); batch: (x, y), মডেলের device-এ (DeepSpeed-এর mode-এ DeepSpeed
    মডেলকে নিজের accelerator-এ নেয়, ব্যাচও সেখানে যায়)। মডেলটি বদলায় (প্রশিক্ষণ হয়, DeepSpeed-এ তা ১৬-বিটে
    যায়), তাই প্রতিবার নতুন মডেল দাও। step: torch-এর mode-এ mishran.engines.amp.amp_step, DeepSpeed-এর mode-এ
    mishran.engines.deepspeed_engine.engine_step — train() আর পাঠ ০৫-এর loop যা চালায়, ঠিক তা-ই।
    mode: MODES-এর একটি নাম ('amp_bf16'), বা সরাসরি জোড়া (কার loop, precision), যেমন ("deepspeed", "fp16")।
    DeepSpeed-এ zero_stage 0, 1 বা 2, আর engine এখানেই বানানো ও ছাড়া হয়: তোমার নিজের deepspeed_engine.initialize()-এর
    engine (deepspeed_engine.current_engine()) ছোঁয়া হয় না। warmup: আগে কয়টি পুরো step (Adam-এর অবস্থা প্রথম
    step-এই তৈরি হয়), steps: মাপা কয়টি step (সময় তাদের মধ্যমা)। শেষ step-এর খাতা ফেরত দেয়।
    """
    if not isinstance(model, torch.nn.Module) or next(model.parameters(), None) is None:
        raise TypeError(f"model হবে ওজনসহ একটি torch.nn.Module (model must be a torch.nn.Module with parameters); "
                        f"পেয়েছি {model!r}")
    if not isinstance(batch, (tuple, list)) or len(batch) != 2 or not all(isinstance(t, torch.Tensor) for t in batch) \
            or batch[0].dim() != 2:
        raise TypeError("batch হবে (x, y) দুটি tensor, x-এর আকার (B, T) (batch must be a pair of tensors (x, y))")
    pair = MODES.get(mode) if isinstance(mode, str) else tuple(mode) if isinstance(mode, (tuple, list)) else None
    if pair not in _NAMES:
        raise ValueError(f"অচেনা mode {mode!r} (unknown mode); বেছে নাও: {', '.join(MODES)}, বা তাদের জোড়া, যেমন "
                         f"{MODES['ds_fp16']!r}")
    whole = [v for v in (zero_stage, warmup, steps) if isinstance(v, int) and not isinstance(v, bool)]
    if len(whole) < 3 or zero_stage not in (0, 1, 2) or not 0 <= warmup <= 1000 or not 1 <= steps <= 1000:
        raise ValueError(f"zero_stage হবে 0, 1 বা 2 (torch-এর mode-এ তা মানা হয় না), warmup 0 থেকে 1000, steps 1 থেকে "
                         f"1000 (zero_stage must be 0-2, warmup 0-1000, steps 1-1000); পেয়েছি {zero_stage!r}, "
                         f"{warmup!r}, {steps!r}")
    lr = finite_float(lr, "lr", positive=True)
    x, _ = batch
    if next(model.parameters()).device != x.device:
        raise ValueError(f"মডেল {next(model.parameters()).device}-এ, ব্যাচ {x.device}-এ (device mismatch); "
                         "দুটো একই device-এ আনো")
    num_parameters = sum({_storage_key(p): p.numel() for p in model.parameters()}.values())   # বাঁধা ওজন একবার
    run, cap = _set_up(model, batch, *pair, zero_stage, lr), _Capture()
    try:
        _timed_steps(run, cap, warmup, steps)
        return _ledger(run, cap, Ledger(*pair, run.zero_stage, str(run.device), num_parameters, *x.shape))
    finally:
        device = run.device
        if run.engine is not None:
            from mishran.engines import deepspeed_engine
            deepspeed_engine.release(run.engine)
        run = cap = None                          # gradient আর buffer-এর শেষ reference; তারপর মেমরি ফেরত
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
