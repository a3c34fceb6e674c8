"""পাঠ ০৮ (capstone): public domain বাংলা সাহিত্যে অক্ষর-ভিত্তিক ভাষা-মডেল, কোর্সের সব কৌশল একসঙ্গে।

নোটবুক আর launcher একই কোড চালায়:

    from mishran.capstone import training
    report = training.run(training.CapstoneConfig(size="tiny", precision="auto", steps=60))

    deepspeed --num_gpus 2 --module mishran.capstone --zero-stage 1 --micro-batch 32 --steps 600 --out r.json
    python -m mishran.capstone --precision fp32 --steps 600 --out fp32.json          # এক GPU বা CPU

দুই পথ, একই ডেটা, একই মাপ-জোখ:
- zero_stage=None (ডিফল্ট, এক process): mishran.engines.amp-এর AMP loop (autocast + GradScaler), checkpoint থেকে
  হুবহু resume;
- zero_stage=0..3 (বা launcher-এ কয়েকটি GPU): mishran.engines.deepspeed_engine-এর DeepSpeed engine, ZeRO সহ।
global batch = micro_batch × accumulation_steps × GPU-র সংখ্যা; প্রতিটি step-এর global batch একটি seed-দেওয়া
generator থেকে আসে আর GPU-গুলোর মধ্যে ভাগ হয় (পাঠ ০৪, ০৫)। held-out ভাগ পুরো খণ্ড (গল্প, কবিতা) ধরে।
precision একবারই ঠিক হয় (mishran.precision.resolve); DeepSpeed-এর config আর MFU-র peak সেই নাম থেকেই।

এখানে থাকে run-এর সুইচ, দুই পথ আর কমান্ড লাইন। সংকলন আর batch: mishran.capstone.literature; মাপকাঠি (bpc, bigram,
নমুনা, MFU): mishran.capstone.evaluation — পাঠ ০৮ সেগুলোও capstone.* নামে পায়, এক import-এ।
এই মডিউল matplotlib বা ipywidgets import করে না।
"""
from __future__ import annotations

import argparse
import importlib.resources
import json
import math
import numbers
import os
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from mishran.capstone.evaluation import (
    BestCheckpoint,
    bigram_bpc,
    heldout_bpc,
    sample,
    speed_figures,
    vocabulary_share,
)
from mishran.capstone.literature import (
    LiteratureData,
    literature_path,
)
from mishran.checks import as_bool, as_seed, device_type, finite_float, positive_int
from mishran.data import BatchStream
from mishran.engines.amp import TrainConfig, load_checkpoint, save_checkpoint, train
from mishran.measure.flops import flops_per_token
from mishran.models.gpt import GPTConfig, TinyGPT
from mishran.precision import NAMES as PRECISION_NAMES
from mishran.precision import check as check_precision
from mishran.precision import grad_scaler
from mishran.precision import resolve as resolve_precision

__all__ = ["parse_args", "SIZES", "CapstoneConfig", "lr_schedule", "run", "recorded_h200", "main"]

# মডেলের মাপ: tiny CPU-তে কয়েক সেকেন্ডে; small CPU-তে এক-দুই মিনিটে; gpu H200-এ কয়েক মিনিটে
SIZES = {
    "tiny": dict(block_size=64, n_layer=2, n_head=4, n_embd=64),       # ≈ 0.1M ওজন
    "small": dict(block_size=128, n_layer=4, n_head=4, n_embd=128),    # ≈ 0.8M ওজন
    "gpu": dict(block_size=256, n_layer=6, n_head=6, n_embd=384),      # ≈ 10.7M ওজন (nanoGPT-এর char মডেলের মাপ)
    # ≈ 57M ওজন: H200-এ BF16-এ GPU ব্যস্ত থাকে (micro-batch 128-এ MFU ~30%, compile করলে ~36%); gpu-মাপে ~9%
    "h200": dict(block_size=256, n_layer=8, n_head=12, n_embd=768),
}


# ---------------------------------------------------------------- H200-এর মাপা ফল

def recorded_h200() -> dict:
    """H200-এ মাপা ফল (tools/capstone_gpu.sh), mishran/results/capstone_h200.json থেকে; GPU ছাড়া দেখানোর জন্য (পাঠ ০৮)।"""
    path = importlib.resources.files("mishran") / "results" / "capstone_h200.json"
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- একটি run

@dataclass
class CapstoneConfig:
    """শিক্ষার্থীর সুইচ (পাঠ ০৮)।

    size: 'tiny' | 'small' | 'gpu' (SIZES); precision: 'auto' (mishran.hardware দেখে) | 'fp32' | 'fp16' | 'bf16';
    micro_batch, accumulation_steps: প্রতি GPU-তে global batch = micro_batch × accumulation_steps;
    zero_stage: None = PyTorch-এর AMP loop (mishran.engines.amp); 0–3 = DeepSpeed engine, ZeRO stage;
    steps: optimizer step; eval_every: কত step পরপর held-out bpc; eval_chars: held-out-এর কতটুকু মাপা হবে
    (None = পুরোটা); warmup: সময় মাপায় বাদ যাওয়া শুরুর step; checkpoint_path + save_at: ওই step-এ
    checkpoint লেখা; resume_from: checkpoint থেকে চালু (শুধু zero_stage=None);
    patience: এতগুলো মূল্যায়নে held-out bpc না কমলে থামা (early stopping; None = কখনো না);
    compile: torch.compile (শুধু zero_stage=None; বড় মডেলে GPU-তে লাভ, পাঠ ০৭);
    lr_warmup, lr_decay: learning rate প্রথম lr_warmup step-এ ০ থেকে lr-এ ওঠে, আর lr_decay=True হলে তারপর
    cosine-এ steps-এ গিয়ে lr-এর ১০%-এ নামে (lr_schedule)।
    """

    size: str = "tiny"
    corpus: str = "small"
    precision: str = "auto"
    micro_batch: int = 16
    accumulation_steps: int = 1
    zero_stage: int | None = None
    steps: int = 60
    lr: float = 2e-3
    dropout: float = 0.0
    clip_norm: float | None = 1.0
    seed: int = 0
    eval_every: int = 20
    eval_chars: int | None = None
    warmup: int = 3
    device: str | None = None
    checkpoint_path: str | None = None
    save_at: int | None = None
    resume_from: str | None = None
    prompt: str = "সে দিন সকালে"
    sample_tokens: int = 200
    temperature: float = 0.8
    top_k: int | None = 20
    progress: bool = False
    patience: int | None = None
    compile: bool = False
    lr_warmup: int = 0
    lr_decay: bool = False

    def __post_init__(self):
        if not isinstance(self.size, str) or self.size not in SIZES:
            raise ValueError(f"অচেনা মাপ {self.size!r} (unknown size); বেছে নাও: {', '.join(SIZES)}")
        literature_path(self.corpus)                    # অচেনা সংকলনের নাম এখানেই, বাংলা বার্তায়
        self.precision = check_precision(self.precision, allow_auto=True)
        if self.zero_stage is not None and (not _is_int(self.zero_stage) or self.zero_stage not in (0, 1, 2, 3)):
            raise ValueError(f"zero_stage হবে None (DeepSpeed ছাড়া) বা 0–3 (zero_stage must be None or 0-3); পেয়েছি "
                             f"{self.zero_stage!r}")
        for name in ("checkpoint_path", "resume_from"):
            if getattr(self, name) is not None and not isinstance(getattr(self, name), (str, os.PathLike)):
                raise TypeError(f"{name} হবে ফাইলের পথ বা None ({name} must be a path or None); পেয়েছি "
                                f"{getattr(self, name)!r}")
        if self.resume_from and self.zero_stage is not None:
            raise ValueError("resume এখানে শুধু PyTorch loop-এ (zero_stage=None); DeepSpeed-এর checkpoint "
                             "engine.save_checkpoint দিয়ে (resume is implemented for zero_stage=None)")
        self._check_numbers()
        if not isinstance(self.prompt, str):
            raise TypeError(f"prompt হবে লেখা (prompt must be a str); পেয়েছি {self.prompt!r}")
        if self.device is not None:
            device_type(self.device)
        self.progress = as_bool(self.progress, "progress")
        self.compile = as_bool(self.compile, "compile")
        self.lr_decay = as_bool(self.lr_decay, "lr_decay")
        if self.compile and self.zero_stage is not None:
            raise ValueError("compile এখানে শুধু PyTorch loop-এ (compile is implemented for zero_stage=None); "
                             "DeepSpeed-এর পথে compile=False রাখো")

    def _check_numbers(self):
        """সংখ্যার সুইচগুলো: ধনাত্মক বা ০-সহ পূর্ণসংখ্যা, সসীম float, আর None-যোগ্যগুলো।"""
        for name in ("micro_batch", "accumulation_steps", "eval_every"):
            positive_int(getattr(self, name), name)
        for name in ("steps", "warmup", "sample_tokens", "save_at", "eval_chars", "top_k", "patience", "lr_warmup"):
            value = getattr(self, name)
            if value is None and name in ("save_at", "eval_chars", "top_k", "patience"):
                continue
            least = 1 if name in ("eval_chars", "top_k", "patience") else 0
            if not _is_int(value) or not least <= value <= 2 ** 62:
                raise ValueError(f"{name} হবে {least} বা তার বেশি পূর্ণসংখ্যা ({name} must be an integer >= {least}); "
                                 f"পেয়েছি {value!r}")
        self.lr = finite_float(self.lr, "lr", positive=True)
        self.temperature = finite_float(self.temperature, "temperature", positive=True)
        self.dropout = finite_float(self.dropout, "dropout", minimum=0)
        if self.dropout >= 1:
            raise ValueError(f"dropout হবে 0 থেকে 1-এর কম (dropout must be in [0, 1)); পেয়েছি {self.dropout!r}")
        if self.clip_norm is not None:
            self.clip_norm = finite_float(self.clip_norm, "clip_norm (or None)", positive=True)
        self.seed = as_seed(-1 if self.seed is None else self.seed)       # None-ও নয়: একই seed-এ একই run


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _device_label(device: torch.device) -> str:
    from mishran.hardware import device_name
    return device_name("cuda") if device.type == "cuda" else (platform.processor() or platform.machine() or "cpu")


def lr_schedule(config: CapstoneConfig):
    """step → learning rate: lr_warmup step ধরে সরলরেখায় lr পর্যন্ত, তারপর lr_decay হলে cosine-এ lr/10 (steps-এ)।

    বড় মডেলে শুরুর এলোমেলো ওজনে Adam-এর প্রথম কয়েকটি step বড় হয়; warm-up সেগুলো ছোট রাখে (পাঠ ০৮)।
    """
    if not isinstance(config, CapstoneConfig):
        raise TypeError(f"config হবে একটি CapstoneConfig (config must be a CapstoneConfig); পেয়েছি {config!r}")
    lr, warm, steps, decay = config.lr, config.lr_warmup, config.steps, config.lr_decay

    def lr_at(step: int) -> float:
        if step < warm:
            return lr * (step + 1) / warm
        if not decay or steps <= warm:
            return lr
        done = min(1.0, (step - warm) / (steps - warm))
        return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * done)))

    return lr_at


def run(config: CapstoneConfig, data: LiteratureData | None = None, return_model: bool = False):
    """একটি পুরো run: প্রশিক্ষণ, held-out bpc-এর রেখা, bigram-এর তুলনা, গতি, মেমরি, MFU, নমুনা (পাঠ ০৮)।

    ফল একটি JSON-যোগ্য dict (launcher-এ শুধু rank 0-তে; বাকিরা None); return_model=True হলে (dict, মডেল)।
    """
    if not isinstance(config, CapstoneConfig):
        raise TypeError(f"config হবে একটি CapstoneConfig (config must be a CapstoneConfig); পেয়েছি {config!r}")
    if data is not None and not isinstance(data, LiteratureData):
        raise TypeError(f"data হবে LiteratureData বা None (data must be a LiteratureData or None); পেয়েছি {data!r}")
    return_model = as_bool(return_model, "return_model")
    data = data or LiteratureData(corpus=config.corpus)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    use_ds = config.zero_stage is not None or world > 1
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    want = config.device or ("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device("cuda", local_rank) if want == "cuda" else torch.device(want)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.cuda.reset_peak_memory_stats(device)
    precision = resolve_precision(config.precision, device)      # একবারই ঠিক হয়; DeepSpeed-এর config-ও এটা থেকে
    size = SIZES[config.size]
    torch.manual_seed(config.seed)            # dropout-এর mask: একই seed-এ একই (resume-এ checkpoint থেকে ফেরে)
    model = TinyGPT(GPTConfig(vocab_size=data.vocab_size, dropout=config.dropout, **size), seed=config.seed)
    out = {"config": asdict(config), "precision": precision, "device": _device_label(device),
           "num_params": model.num_parameters(), "vocab_size": data.vocab_size,
           "train_chars": len(data.train_data), "heldout_chars": len(data.val_data),
           "train_pieces": len(data.train_pieces), "heldout_pieces": len(data.heldout_pieces)}
    if use_ds:
        trained = _run_deepspeed(model, data, config, precision, device, out)
    else:
        trained = _run_torch(model, data, config, precision, device, out)
    if trained is None:
        return (None, None) if return_model else None

    if device.type == "cuda":
        out["peak_memory_bytes"] = torch.cuda.max_memory_allocated(device)
    # মাপা হয় সেরা checkpoint (ফেরত যাওয়া মডেল আর নমুনা তারই; resume-এর আগের মূল্যায়নও ধরে, runner-এর
    # BestCheckpoint থেকে); শেষ মূল্যায়নেরটা পাশে
    out["final_bpc"] = out["curve"][-1]["bpc"] if out["curve"] else None
    alphas = (0.01, 0.1, 0.5, 1.0)
    bigrams = {a: bigram_bpc(data.train_data, data.val_data[:_eval_len(config, data)], data.vocab_size, a)
               for a in alphas}
    best = min(bigrams, key=bigrams.get)
    out["bigram_bpc"], out["bigram_alpha"] = bigrams[best], best
    out["margin_vs_bigram"] = out["bigram_bpc"] - out["heldout_bpc"] if out["heldout_bpc"] is not None else None
    out.update(speed_figures(out["step_times"], config.warmup, out["global_batch"] * size["block_size"],
                             flops_per_token(trained), precision,           # peak: যে precision-এ চলল, সেটারই
                             out["device"] if device.type == "cuda" else None, out["world_size"]))
    text = sample(trained, data.tokenizer, config.prompt, config.sample_tokens, config.temperature, config.top_k,
                  seed=config.seed, device=device)
    out["sample"] = {"prompt": config.prompt, "text": text, "temperature": config.temperature,
                     "top_k": config.top_k, **vocabulary_share(text, data.train_text)}
    out["versions"] = {"torch": torch.__version__, "python": platform.python_version()}
    if use_ds:
        import importlib.metadata
        out["versions"]["deepspeed"] = importlib.metadata.version("deepspeed")
    return (out, trained) if return_model else out


def _eval_len(config, data) -> int:
    return len(data.val_data) if config.eval_chars is None else min(len(data.val_data), config.eval_chars + 1)


def _run_torch(model, data, config, precision, device, out):
    """এক process: mishran.engines.amp.train-কে eval_every step করে ডাকা; মাঝে held-out bpc, সেরা checkpoint, checkpoint।"""
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    stream = BatchStream(data, config.micro_batch, config.accumulation_steps, model.config.block_size,
                         seed=config.seed)
    scaler = grad_scaler(device, precision)
    best = BestCheckpoint(config.patience)
    step = 0
    if config.resume_from:
        step, extra = load_checkpoint(config.resume_from, model, optimizer, scaler, generator=stream.generator,
                                      return_extra=True)
        best.load_state_dict(extra["best"])
    lr_at = lr_schedule(config)
    runner = torch.compile(model) if config.compile else model          # ওজন একই; checkpoint লেখে model নিজে
    out.update(world_size=1, engine="pytorch", global_batch=stream.global_batch, start_step=step,
               losses=[], step_times=[], loss_scales=[], skipped_steps=[], curve=[])
    while step < config.steps and not best.stop:
        n = min(config.eval_every - step % config.eval_every, config.steps - step)
        if config.save_at is not None and step < config.save_at < step + n:
            n = config.save_at - step
        cfg = TrainConfig(precision=precision, steps=n, accumulation_steps=config.accumulation_steps,
                          clip_norm=config.clip_norm, device=str(device), progress=config.progress)
        log = train(runner, optimizer, stream, cfg, scaler=scaler, start_step=step, lr_at=lr_at)
        step = log.end_step
        for key, part in (("losses", log.losses), ("step_times", log.step_times), ("loss_scales", log.scales),
                          ("skipped_steps", log.skipped)):
            out[key] += part
        if step % config.eval_every == 0 or step == config.steps:
            _evaluate(model, data, config, precision, device, step, out["curve"], best)
        if config.checkpoint_path and step == config.save_at:
            save_checkpoint(config.checkpoint_path, model, optimizer, scaler, step=step, generator=stream.generator,
                            extra={"config": asdict(config), "best": best.state_dict()})
    out.update(_best_report(best), stopped_early=best.stop and step < config.steps)
    best.restore(model)
    return model


def _best_report(best: BestCheckpoint) -> dict:
    """রিপোর্টের heldout_bpc আর best_step: BestCheckpoint-ই তাদের একমাত্র উৎস (কোনো মূল্যায়ন না হলে None)।"""
    return {"heldout_bpc": best.bpc if best.step is not None else None, "best_step": best.step}


def _evaluate(model, data, config, precision, device, step, curve, best) -> None:
    """held-out bpc আর train-এর সমান মাপের একটি টুকরোর bpc (একই নিয়মে, dropout বন্ধ): overfitting দেখা যায় দুইয়ের
    ফাঁকে। সেরা held-out হলে best-এ ওজনের কপি।"""
    _record(model, step, *_measure(model, data, config, precision, device), curve, best)


def _measure(model, data, config, precision, device) -> tuple[float, float]:
    """(held-out bpc, train-এর সমান মাপের টুকরোর bpc)।"""
    block = model.config.block_size
    held = heldout_bpc(model, data.val_data, block, device, precision, max_chars=config.eval_chars)
    return held, heldout_bpc(model, data.train_data[:_eval_len(config, data)], block, device, precision)


def _record(model, step, held, train_bpc, curve, best) -> None:
    curve.append({"step": step, "bpc": held, "train_bpc": train_bpc})
    best.update(model, step, held)


def _run_deepspeed(model, data, config, precision, device, out):
    """DeepSpeed engine (পাঠ ০৫-এর mishran.engines.deepspeed_engine): launcher থাকলে কয়েকটি GPU, না থাকলে এক process।"""
    from mishran.engines import deepspeed_engine
    from mishran.engines.deepspeed_config import config_for_device

    info = deepspeed_engine.setup_single_process(backend="nccl" if device.type == "cuda" else "gloo")
    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    # zero_stage None (কয়েকটি GPU, stage না বলা): config_for_device-এর নিয়ম — ১৬-বিটে accumulation > 1 হলে
    # stage 1, যাতে gradient FP32-এ জমে (পাঠ ০৫)
    ds_config = config_for_device(micro_batch=config.micro_batch, accumulation_steps=config.accumulation_steps,
                                  world_size=world, zero_stage=config.zero_stage,
                                  precision=precision, lr=config.lr, device=device.type,
                                  gradient_clipping=config.clip_norm)
    engine = deepspeed_engine.initialize(model, ds_config, lr=config.lr)
    scale_log = deepspeed_engine.LossScaleLog(engine)
    stream = BatchStream(data, config.micro_batch, config.accumulation_steps, model.config.block_size,
                         world_size=world, rank=rank, seed=config.seed)
    out.update(world_size=world, engine="deepspeed", zero_stage=ds_config["zero_optimization"]["stage"],
               backend=info["backend"],
               global_batch=stream.global_batch, start_step=0, losses=[], step_times=[], curve=[])
    module, best = engine.module, BestCheckpoint(config.patience)
    lr_at = lr_schedule(config) if config.lr_warmup or config.lr_decay else None
    for step in range(config.steps):
        for group in engine.optimizer.param_groups if lr_at else ():     # DeepSpeed's wrapper shows the inner groups
            group["lr"] = lr_at(step)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        step_loss = deepspeed_engine.engine_step(engine, [stream() for _ in range(config.accumulation_steps)])
        scale_log.record()
        torch.distributed.all_reduce(step_loss)
        out["losses"].append(step_loss.item() / (config.accumulation_steps * world))   # .item() = sync
        out["step_times"].append(time.perf_counter() - t0)
        done = step + 1
        if done % config.eval_every == 0 or done == config.steps:
            _evaluate_together(engine, data, config, device, done, out["curve"], best)
            if best.stop:                    # সব rank-এর best একই সংখ্যা দেখেছে, তাই সবাই একসঙ্গে থামে
                break
    out["loss_scales"] = [s for s in scale_log.scales if s is not None]
    out["skipped_steps"] = scale_log.skipped_steps
    out["ds_config"] = ds_config
    out.update(_best_report(best), stopped_early=best.stop)
    scale_log.close()
    trained = _plain_copy(module, best.weights) if rank == 0 else None
    deepspeed_engine.release(engine)
    return trained


def _evaluate_together(engine, data, config, device, step, curve, best) -> None:
    """DeepSpeed-এর পথে মূল্যায়ন: সব rank একসঙ্গে, rank 0-এর সংখ্যায়।

    ZeRO-3-এ প্রতিটি rank-এর কাছে প্রতিটি ওজনের একটি টুকরো মাত্র; forward-এর সময় প্রতিটি স্তর সব rank থেকে নিজের
    ওজন জোড়া লাগায় (all-gather), তাই একা rank 0 forward চালালে বাকিদের অপেক্ষায় চিরকাল আটকে থাকে। সেরা ওজনের কপিও
    নেওয়া হয় পুরো ওজন জোড়া লাগিয়ে (GatheredParameters)। stage 0–2-তে সবার কাছে পুরো ওজন, নিয়ম একই।
    ওজন নিজেই bf16/fp16, তাই হিসাবও তাতে ("fp32" = autocast বন্ধ)।
    """
    import deepspeed

    module = engine.module
    numbers_ = torch.tensor(_measure(module, data, config, "fp32", device), dtype=torch.float64, device=device)
    torch.distributed.broadcast(numbers_, src=0)       # best আর early stopping সব rank-এ একই সংখ্যা থেকে
    with deepspeed.zero.GatheredParameters(list(module.parameters()), enabled=engine.zero_optimization_stage() == 3):
        _record(module, step, *numbers_.tolist(), curve, best)


def _plain_copy(module, weights) -> TinyGPT:
    """engine ছাড়া একটি সাধারণ TinyGPT, engine-এর dtype-এ, সেরা মূল্যায়নের ওজনে: নমুনা আর FLOP-এর হিসাব এতে চলে
    (ZeRO-3-এর engine.module-এর ওজন টুকরো করা, একা rank 0 তা চালাতে পারে না)।"""
    dtype = next(module.parameters()).dtype
    plain = TinyGPT(module.config).to(device=next(module.parameters()).device, dtype=dtype)
    plain.load_state_dict(weights)
    return plain


# ---------------------------------------------------------------- launcher / কমান্ড লাইন

def parse_args(argv=None):
    """`python -m mishran.capstone`-এর argument; প্রতিটি CapstoneConfig-এর একটি সুইচ (পাঠ ০৮)।"""
    p = argparse.ArgumentParser(description="মিশ্রণ পাঠ ০৮: বাংলা সাহিত্যে অক্ষর-ভিত্তিক ভাষা-মডেল")
    d = CapstoneConfig()
    p.add_argument("--size", default=None, choices=sorted(SIZES), help="ডিফল্ট: GPU-তে gpu, CPU-তে tiny")
    p.add_argument("--corpus", default=d.corpus, choices=["small", "full"],
                   help="small: পাঠ ০৮-এর সংকলন; full: চার গুণ বড়টি")
    p.add_argument("--precision", default=d.precision, choices=["auto", *PRECISION_NAMES])
    p.add_argument("--micro-batch", type=int, default=d.micro_batch)
    p.add_argument("--accumulation-steps", type=int, default=d.accumulation_steps)
    p.add_argument("--zero-stage", type=int, default=None, choices=[0, 1, 2, 3])
    p.add_argument("--steps", type=int, default=d.steps)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--dropout", type=float, default=d.dropout)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--eval-every", type=int, default=d.eval_every)
    p.add_argument("--eval-chars", type=int, default=None)
    p.add_argument("--warmup", type=int, default=d.warmup)
    p.add_argument("--patience", type=int, default=None,
                   help="এতগুলো মূল্যায়নে held-out bpc না কমলে থামো (early stopping)")
    p.add_argument("--compile", action="store_true", help="torch.compile (PyTorch loop-এ)")
    p.add_argument("--lr-warmup", type=int, default=0, help="learning rate-এর warm-up step")
    p.add_argument("--lr-decay", action="store_true", help="warm-up-এর পরে cosine-এ lr/10 পর্যন্ত")
    p.add_argument("--cpu", action="store_true", help="GPU থাকলেও CPU-তে")
    p.add_argument("--deterministic", action="store_true",
                   help="torch.use_deterministic_algorithms: GPU-তে resume-এর হুবহু তুলনার জন্য")
    p.add_argument("--checkpoint", default=None, help="--save-at step-এ এই ফাইলে checkpoint")
    p.add_argument("--save-at", type=int, default=None)
    p.add_argument("--resume", default=None, help="এই checkpoint থেকে চালু (নতুন process-এ)")
    p.add_argument("--prompt", default=d.prompt)
    p.add_argument("--sample-tokens", type=int, default=d.sample_tokens, help="নমুনায় কয়টি অক্ষর")
    p.add_argument("--out", default=None, help="ফলাফলের JSON (rank 0 লেখে)")
    p.add_argument("--local_rank", type=int, default=None, help="DeepSpeed launcher দেয়; env-এর LOCAL_RANK ব্যবহার হয়")
    return p.parse_args(argv)


def main(argv=None) -> dict | None:
    """কমান্ড লাইন থেকে একটি run: ফল ছাপে, --out দিলে JSON লেখে, শেষে process group বন্ধ করে (পাঠ ০৮)।"""
    args = parse_args(argv)
    if args.cpu:
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    on_gpu = torch.cuda.is_available() and not args.cpu
    config = CapstoneConfig(size=args.size or ("gpu" if on_gpu else "tiny"), corpus=args.corpus,
                            precision=args.precision,
                            micro_batch=args.micro_batch, accumulation_steps=args.accumulation_steps,
                            zero_stage=args.zero_stage, steps=args.steps, lr=args.lr, dropout=args.dropout,
                            seed=args.seed, eval_every=args.eval_every, eval_chars=args.eval_chars,
                            warmup=args.warmup, device="cuda" if on_gpu else "cpu",
                            checkpoint_path=args.checkpoint, save_at=args.save_at, resume_from=args.resume,
                            prompt=args.prompt, sample_tokens=args.sample_tokens, patience=args.patience,
                            compile=args.compile,
                            lr_warmup=args.lr_warmup, lr_decay=args.lr_decay)
    result = run(config)
    if result is not None:
        r = result
        print(f"{r['engine']}, {r['world_size']} process, {r['precision']}, Ψ = {r['num_params']:,}: held-out bpc "
              f"{r['heldout_bpc']:.4f} at step {r['best_step']} (bigram {r['bigram_bpc']:.4f}), "
              + (f"{r['tokens_per_s']:,.0f} token/s" if r["tokens_per_s"] else ""))
        if args.out:
            Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
            print(f"ফলাফল লেখা হলো: {args.out}")
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    return result


if __name__ == "__main__":
    main()
