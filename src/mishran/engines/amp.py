"""একটি পড়ার মতো training loop: FP32, FP16 + GradScaler, BF16; gradient accumulation; checkpoint (পাঠ ০৩, ০৪)।

nanoGPT-এর train.py-র মতো একটাই loop, কোনো trainer class বা callback নেই। একটি optimizer step-এর পুরোটা
`amp_step`-এ; train(), mishran.measure.bench আর mishran.measure.memory সবাই সেটাই চালায়। তিন precision-এর
আলাদা কোড নেই: autocast আর GradScaler দুটোই `enabled=` সুইচে চালু/বন্ধ (mishran.precision)।

    config = TrainConfig(precision="bf16", steps=200, accumulation_steps=4, clip_norm=1.0, log_every=50)
    scaler = grad_scaler("cuda", config.precision)          # fp16 ছাড়া বন্ধ (disabled) থাকে
    log = train(model, optimizer, get_batch, config, scaler=scaler)
    save_checkpoint("ckpt.pt", model, optimizer, scaler, step=log.end_step, generator=gen)
"""
from __future__ import annotations

import contextlib
import itertools
import numbers
import os
import random
import warnings
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from mishran.checks import as_bool, as_device, finite_float, positive_int
from mishran.precision import autocast, check, grad_scaler
from mishran.timer import mark, seconds_between

__all__ = ["TrainConfig", "TrainLog", "StepBookkeeper", "amp_step", "train", "save_checkpoint", "load_checkpoint",
           "rng_state", "set_rng_state", "each_pair"]


def _count(value, name: str) -> int:
    """০ বা তার বেশি পূর্ণসংখ্যা (steps, log_every, start_step, step); নইলে বাংলা + ইংরেজি বার্তায় ValueError।"""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= 2 ** 62:
        raise ValueError(f"{name} হবে ০ বা তার বেশি পূর্ণসংখ্যা ({name} must be a non-negative integer); "
                         f"পেয়েছি {value!r}")
    return int(value)


@dataclass
class TrainConfig:
    """loop-এর সব সিদ্ধান্ত এক জায়গায় (পাঠ ০৩, ০৪)।

    precision: 'fp32' | 'fp16' (autocast + GradScaler) | 'bf16' (autocast, scaler ছাড়া)।
    steps: কয়টি optimizer step; accumulation_steps: প্রতি step-এ কয়টি micro-batch (১ = accumulation নেই)।
    clip_norm: gradient-এর মোট norm-এর সীমা (None = clipping নেই)।
    log_every: প্রতি কত step-এ এক লাইন লেখা হবে (0 = কখনো না); progress: tqdm progress bar।
    device: None হলে মডেলের ওজন যেখানে আছে সেই device।
    """

    precision: str = "fp32"
    steps: int = 100
    accumulation_steps: int = 1
    clip_norm: float | None = None
    log_every: int = 0
    progress: bool = False
    device: str | None = None

    def __post_init__(self):
        check(self.precision)
        self.steps, self.log_every = _count(self.steps, "steps"), _count(self.log_every, "log_every")
        self.accumulation_steps = positive_int(self.accumulation_steps, "accumulation_steps")
        if self.clip_norm is not None:
            self.clip_norm = finite_float(self.clip_norm, "clip_norm (or None: no clipping)", positive=True)


@dataclass
class TrainLog:
    """train()-এর ফল, সব তালিকা step ধরে; step-এর নম্বর start_step থেকে (পাঠ ০৩)।

    losses: প্রতি step-এর loss (micro-batch-গুলোর গড়, scale ছাড়া আসল মান)।
    step_times: প্রতি step-এর সেকেন্ড (CUDA-তে GPU event দিয়ে মাপা; প্রথম step-এ warm-up ধরা)।
    skipped: যে step-গুলো GradScaler বাদ দিয়েছে (gradient-এ inf/NaN) — শুধু fp16-এ।
    scales: প্রতি step-এ loss কত দিয়ে গুণ হয়েছিল (fp16); অন্য precision-এ খালি।
    grad_norms: clipping-এর আগের মোট norm, unscale করা আসল এককে (শুধু clip_norm দিলে)।
    scaler: যে GradScaler ব্যবহার হলো; checkpoint-এ এটিও রাখতে হয়।
    """

    precision: str
    start_step: int
    losses: list = field(default_factory=list)
    step_times: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    scales: list = field(default_factory=list)
    grad_norms: list = field(default_factory=list)
    scaler: torch.amp.GradScaler | None = None

    @property
    def end_step(self) -> int:
        """মোট কয়টি step শেষ হলো — checkpoint-এ এটাই `step` হিসেবে রাখো।"""
        return self.start_step + len(self.losses)

    @property
    def steps(self) -> list:
        """যে step-গুলো চলল তাদের নম্বর (start_step থেকে)।"""
        return list(range(self.start_step, self.end_step))

    def __str__(self) -> str:
        if not self.losses:
            return f"{self.precision}: কোনো step চলেনি"
        ms = 1000 * sum(self.step_times[1:] or self.step_times) / max(len(self.step_times[1:]), 1)
        text = (f"{self.precision}: step {self.start_step}–{self.end_step - 1}, loss {self.losses[0]:.4f} → "
                f"{self.losses[-1]:.4f}, প্রথমটি বাদে গড়ে {ms:.1f} ms/step")
        if self.scales:
            text += f", বাদ-পড়া ধাপ (skipped steps): {self.skipped or 'নেই'}, শেষ scale {self.scales[-1]:g}"
        return text


def _device(model, config: TrainConfig) -> torch.device:
    """config.device (না দিলে মডেলের device); মডেল অন্য device-এ থাকলে পরিষ্কার বার্তা।"""
    weights = next(model.parameters()).device
    device = weights if config.device is None else as_device(config.device, "TrainConfig.device")
    if device.type != weights.type:
        raise ValueError(f"মডেল আছে {weights}-এ, কিন্তু config.device={config.device!r} (device mismatch); "
                         f"model.to({config.device!r}) করো অথবা device=None রাখো")
    return device


def _check_amp(model, config: TrainConfig, scaler, device: torch.device) -> None:
    """mixed precision-এর তিনটি চেনা ভুল: নিচু precision-এর ওজন, fp16-এ বন্ধ scaler, অন্য precision-এ চালু scaler।"""
    low = sorted({str(p.dtype).replace("torch.", "") for p in model.parameters() if p.dtype != torch.float32})
    if low:
        raise ValueError(f"মডেলের ওজন {', '.join(low)}-এ আছে ({config.precision} requested but the weights are not "
                         "FP32)। mixed precision-এ ওজন (master weights) FP32-এ থাকে, autocast শুধু হিসাবগুলো নিচু "
                         "precision-এ চালায়: model.half() বাদ দাও বা model.float() করো।")
    if config.precision == "fp16" and not scaler.is_enabled():
        raise ValueError("fp16 requested but the GradScaler is disabled: FP16-এ ছোট gradient শূন্য হয়ে যায় "
                         "(underflow), তাই loss scaling লাগে। grad_scaler(device, 'fp16') দাও (mishran.precision)।")
    if config.precision != "fp16" and scaler.is_enabled():
        raise ValueError(f"GradScaler চালু, কিন্তু precision={config.precision!r} (GradScaler is only for fp16); "
                         f"grad_scaler(device, {config.precision!r}) দাও — সেটি বন্ধ থাকে।")
    if config.precision == "bf16" and device.type == "cuda" and torch.cuda.get_device_capability(device) < (8, 0):
        warnings.warn("এই GPU-তে BF16 hardware নেই (sm_80-এর আগের GPU, যেমন T4); bf16 চলবে emulation-এ, ধীরে। "
                      "precision='fp16' নাও (no native BF16 on this GPU)।", stacklevel=3)


class StepBookkeeper:
    """train()-এর হিসাবের খাতা, যাতে loop nanoGPT-এর মতো সোজা পড়া যায় (পাঠ ০৩, ০৪)। DDP-তে no_sync দেয় (sync),
    আর বাদ-পড়া ধাপ চেনে sync ছাড়াই: update() inf/NaN পেলে scale কমায়, নইলে একই রাখে বা বাড়ায়, তাই প্রতি step-এর
    পরের scale টুকে রাখলেই চলে (scale কমেছে ⇔ ধাপ বাদ)। সব device-এ জমে; host-এ আসে শুধু log-এর step-এ আর শেষে।
    """

    def __init__(self, model, scaler, device: torch.device, precision: str, start_step: int):
        self.model, self.scaler, self.device = model, scaler, device
        self.log = TrainLog(precision, start_step, scaler=scaler)
        self._one = torch.ones((), device=device)
        self.losses, self.norms, self.marks = [], [], [mark(device)]   # mishran.timer: GPU-তে event, sync নয়
        self.scales = [self._scale_now()] if scaler.is_enabled() else []   # [শুরুর scale, প্রতি step-এর পরে ...]
        self._logged = 0

    def _scale_now(self) -> torch.Tensor:
        return self.scaler.scale(self._one).detach()      # = scale, device tensor; get_scale() করলে sync হতো

    def sync(self, micro: int, accum: int):
        """micro-step-এর context: DDP-তে শেষটি ছাড়া no_sync() (gradient জমে, allreduce হয় না)।"""
        if micro == accum - 1 or not hasattr(self.model, "no_sync"):
            return contextlib.nullcontext()
        return self.model.no_sync()

    def end_step(self, step_loss: torch.Tensor, grad_norm: torch.Tensor | None) -> None:
        """optimizer step আর scaler.update()-এর পরে: loss, norm, সময় আর নতুন scale টুকে রাখে (host-এ আনে না)।"""
        self.losses.append(step_loss)
        if grad_norm is not None:
            self.norms.append(grad_norm.detach())
        if self.scales:
            self.scales.append(self._scale_now())
        self.marks.append(mark(self.device))

    def log_line(self, step: int) -> str:
        """শেষ log থেকে এ পর্যন্ত গড় সময়সহ এক লাইন; এখানেই (আর loop শেষে) সংখ্যা host-এ আসে।"""
        done = len(self.losses)
        ms = 1000 * seconds_between(self.marks[self._logged], self.marks[done]) / (done - self._logged)
        self._logged = done
        line = f"step {step}: loss {self.losses[-1].item():.4f}, {ms:.1f} ms/step"
        if self.scales:
            line += f", scale {self.scales[-1].item():g}"
        return line

    def finish(self) -> TrainLog:
        """loop শেষে একবারই সব host-এ আনে, আর বাদ-পড়া ধাপগুলো চেনে (scale কমেছে ⇔ ধাপ বাদ)।"""
        log = self.log
        log.losses = torch.stack(self.losses).tolist() if self.losses else []
        log.step_times = [seconds_between(a, b) for a, b in itertools.pairwise(self.marks)]
        log.grad_norms = torch.stack(self.norms).tolist() if self.norms else []
        if len(self.scales) > 1:
            scales = torch.stack(self.scales).tolist()       # scales[i]: step i-এর loss যে scale-এ গুণ হয়েছিল
            log.scales = scales[:-1]
            log.skipped = [log.start_step + i for i, (before, after) in enumerate(itertools.pairwise(scales))
                           if after < before]
        return log


def amp_step(model, optimizer, scaler, ctx, micro_batches, accumulation_steps=None, clip_norm=None, loss_fn=None,
             sync=None):
    """একটি optimizer step, AMP আর gradient accumulation সহ — nanoGPT-এর loop-এর ভেতরটা (পাঠ ০৩, ০৪)।

    micro_batches: k-টি (x, y), মডেলের device-এ (k = 1: accumulation নেই) — list, বা generator (প্রতিটি
    micro-batch আসে তার micro-step-এর ঠিক আগে; তখন accumulation_steps=k দাও)। ctx: precision.autocast(...)
    (fp32-এ বন্ধ)। scaler: precision.grad_scaler(...) (fp16 ছাড়া বন্ধ: তখন scale() loss-কে যেমন আছে ফেরত দেয়,
    unscale_() আর update() কিছুই করে না)। sync(i, k): i-তম micro-step-এর context (DDP: StepBookkeeper.sync)।
    ফেরত (loss, grad_norm): micro-batch-গুলোর গড় loss আর clipping-এর আগের norm (clip_norm না দিলে None) —
    দুটোই device-এ; host-এ আনা হয় না, তাই GPU থামে না।
    """
    if clip_norm is not None:
        clip_norm = finite_float(clip_norm, "clip_norm (or None)", positive=True)
    if accumulation_steps is not None:
        accumulation_steps = positive_int(accumulation_steps, "accumulation_steps")
    k = accumulation_steps if accumulation_steps is not None else len(micro_batches)
    losses = []
    for i, (x, y) in enumerate(each_pair(micro_batches)):
        with sync(i, k) if sync is not None else contextlib.nullcontext():   # DDP: allreduce শুধু শেষটিতে
            with ctx:                                       # শুধু forward আর loss; backward বাইরে
                loss = model(x, y)[1] if loss_fn is None else loss_fn(model(x), y)
                loss = loss / k                             # বড় batch-এর গড়: প্রতিটি অংশ ÷ k
            scaler.scale(loss).backward()                   # প্রতিটি micro-step-এ scale, নইলে FP16 underflow
        losses.append(loss.detach().float())                # .item() নয়: GPU-কে থামাই না
    if len(losses) != k:                                    # ভুল k-তে গড়ও ভুল, DDP-র allreduce-ও হতো না
        raise ValueError(f"{k}-টি micro-batch-এর কথা, এল {len(losses)}টি (micro_batches != accumulation_steps)")
    # ---- সীমানা: k-টি micro-step শেষ; optimizer-এর কাজ এখানে, একবারই ----
    grad_norm = None
    if clip_norm is not None:
        scaler.unscale_(optimizer)                          # আগে আসল এককে ফেরাও, তারপর clip
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    scaler.step(optimizer)                                  # gradient-এ inf/NaN থাকলে (fp16) step বাদ
    scaler.update()                                         # inf/NaN পেলে scale অর্ধেক, নইলে মাঝে মাঝে দ্বিগুণ
    optimizer.zero_grad(set_to_none=True)                   # সীমানায় একবার; প্রতি micro-step-এ করলে কিছুই জমত না
    return sum(losses), grad_norm


def each_pair(micro_batches):
    """micro-batch-গুলো একটি একটি করে, প্রতিটি (x, y) দুটি tensor কি না দেখে — generator-এর প্রতিটিও, লাগার ঠিক
    আগে (পাঠ ০৩, ০৪)। তালিকার বদলে একটি (x, y) দিলে tensor-এর সারিগুলো চুপচাপ x আর y হয়ে যেত; তাই পরিষ্কার বার্তা।"""
    for pair in micro_batches:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(t, torch.Tensor) for t in pair)):
            raise TypeError("micro_batches হবে (x, y) tensor-জোড়ার তালিকা (each item of micro_batches must be a pair "
                            f"of tensors); পেয়েছি {pair!r}")
        yield pair


def train(model, optimizer, get_batch, config: TrainConfig, scaler=None, start_step: int = 0,
          loss_fn=None, lr_at=None) -> TrainLog:
    """একটি mixed precision training loop, gradient accumulation সহ; প্রতিটি step একটি amp_step (পাঠ ০৩, ০৪)।

    get_batch(): একটি (x, y) জোড়া দেয়। মডেল nanoGPT-এর মতো `model(x, y) -> (logits, loss)`, অথবা loss_fn দাও:
    loss = loss_fn(model(x), y)। scaler না দিলে নতুন একটি বানানো হয় (log.scaler)। resume: step =
    load_checkpoint(...); train(..., scaler=scaler, start_step=step)। loss ÷ accumulation_steps ঠিক তখনই, যখন সব
    micro-batch সমান মাপের (অসমান মাপ পাঠ ০৪-এ)। lr_at(step): প্রতিটি step-এর আগের learning rate (পাঠ ০৮) —
    step-এর function, তাই resume-এ আলাদা অবস্থা রাখতে হয় না।
    """
    start_step = _count(start_step, "start_step")
    device = _device(model, config)
    scaler = scaler if scaler is not None else grad_scaler(device, config.precision)
    _check_amp(model, config, scaler, device)
    ctx = autocast(device, config.precision)            # fp32-এ বন্ধ; fp16/bf16-এ matmul নিচু precision-এ
    book = StepBookkeeper(model, scaler, device, config.precision, start_step)
    bar = tqdm(range(start_step, start_step + config.steps), disable=not config.progress, desc=config.precision)
    model.train()
    for step in bar:
        if lr_at is not None:
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
        accum = config.accumulation_steps
        micro_batches = (_to_device(get_batch(), device) for _ in range(accum))   # একটি একটি করে, লাগার ঠিক আগে
        step_loss, grad_norm = amp_step(model, optimizer, scaler, ctx, micro_batches, accum, config.clip_norm,
                                        loss_fn, sync=book.sync)
        book.end_step(step_loss, grad_norm)
        if config.log_every and step % config.log_every == 0:
            (bar.write if config.progress else print)(book.log_line(step))
    bar.close()
    return book.finish()


def _to_device(batch, device: torch.device) -> tuple:
    x, y = batch
    return x.to(device, non_blocking=True), y.to(device, non_blocking=True)


# ---------------------------------------------------------------- checkpoint (পাঠ ০৩)

def rng_state(generator: torch.Generator | None = None) -> dict:
    """training-এ প্রভাব ফেলে এমন সব random অবস্থা: torch CPU, CUDA (থাকলে), batch-এর generator, numpy, random।"""
    np_state = np.random.get_state()
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None,
        "generator": generator.get_state() if generator is not None else None,
        # numpy-র অবস্থা সাধারণ list-এ, যাতে torch.load(weights_only=True) পড়তে পারে
        "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
        "python": random.getstate(),
    }


def set_rng_state(state: dict, generator: torch.Generator | None = None) -> None:
    """rng_state()-এর উল্টো; checkpoint-এ generator থাকলে তাকেও দিতে হয়।"""
    torch.set_rng_state(state["torch"])
    if state["cuda"] is not None:
        if torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"][:torch.cuda.device_count()])
        else:
            warnings.warn("checkpoint-এ CUDA-র random অবস্থা আছে, কিন্তু এখানে GPU নেই; সেটি ফেরানো গেল না "
                          "(CUDA RNG state not restored)।", stacklevel=3)
    if state["generator"] is not None:
        if generator is None:
            raise ValueError("checkpoint-এ batch generator-এর অবস্থা আছে; load_checkpoint(..., generator=gen) দাও "
                             "(torch.Generator missing), নইলে resume-এ অন্য batch আসবে।")
        generator.set_state(state["generator"])
    name, keys, *rest = state["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), *rest))
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))


def _checkpoint_path(path, must_exist: bool = False):
    """checkpoint ফাইলের নাম (str বা pathlib.Path); load-এর বেলায় ফাইলটি থাকতে হবে।"""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise TypeError(f"path হবে ফাইলের নাম, str বা pathlib.Path (path must be a str or PathLike); পেয়েছি {path!r}")
    if must_exist and not os.path.isfile(path):
        raise FileNotFoundError(f"checkpoint ফাইলটি পাওয়া গেল না (checkpoint file not found): {os.fspath(path)!r}")
    return path


def save_checkpoint(path, model, optimizer, scaler=None, step: int = 0, generator=None, extra=None) -> None:
    """মডেল, optimizer, GradScaler, step আর সব random অবস্থা এক ফাইলে (পাঠ ০৩)।

    fp16-এ scaler রাখা জরুরি: না রাখলে resume-এ scale আবার 65536 থেকে শুরু হয়, আর প্রথম কয়েক step বাদ পড়ে।
    আগে পাশের একটি ফাইলে লিখে তারপর নাম বদলানো হয়, যাতে মাঝপথে থামলেও পুরোনো checkpoint নষ্ট না হয়।
    """
    path, step = _checkpoint_path(path), _count(step, "step")
    state = {
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scaler": scaler.state_dict() if scaler is not None and scaler.is_enabled() else None,
        "step": step,
        "rng": rng_state(generator),
        "extra": extra,
    }
    tmp = f"{os.fspath(path)}.tmp"
    torch.save(state, tmp)
    os.replace(tmp, path)


def load_checkpoint(path, model, optimizer=None, scaler=None, generator=None, restore_rng: bool = True,
                    return_extra: bool = False):
    """save_checkpoint()-এর ফাইল থেকে সব ফেরায়, আর কত step হয়ে গেছে তা ফেরত দেয় (পাঠ ০৩)।

    নতুন process-এ মডেল, optimizer, grad_scaler(...) আর generator বানিয়ে এখানে দাও, তারপর
    train(..., start_step=step) — একটানা চালানোর সঙ্গে বিটে বিটে একই loss আসবে। return_extra=True হলে
    (step, save_checkpoint-এর extra): ফাইলটা একবারই পড়া হয় (পাঠ ০৮-এর সেরা checkpoint সেখানে থাকে)।
    """
    path = _checkpoint_path(path, must_exist=True)
    restore_rng, return_extra = as_bool(restore_rng, "restore_rng"), as_bool(return_extra, "return_extra")
    state = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    enabled = scaler is not None and scaler.is_enabled()
    if state["scaler"] is not None and not enabled:
        raise ValueError("checkpoint-এ GradScaler-এর অবস্থা আছে (fp16), কিন্তু চালু scaler দেওয়া হয়নি; "
                         "grad_scaler(device, 'fp16') বানিয়ে load_checkpoint(..., scaler=scaler) দাও "
                         "(missing GradScaler state)।")
    if state["scaler"] is None and enabled:
        raise ValueError("চালু GradScaler দেওয়া হয়েছে, কিন্তু checkpoint-এ তার অবস্থা নেই (no GradScaler state in "
                         "checkpoint) — এটি fp16 ছাড়া অন্য precision-এ সেভ করা, নাকি scaler দিতে ভুলে গেছিলে?")
    if enabled:
        scaler.load_state_dict(state["scaler"])
    if restore_rng:
        set_rng_state(state["rng"], generator)
    return (state["step"], state["extra"]) if return_extra else state["step"]
