"""পাঠ ০৮ (capstone): public domain বাংলা সাহিত্যে অক্ষর-ভিত্তিক ভাষা-মডেল, কোর্সের সব কৌশল একসঙ্গে।

    result = training.run(training.CapstoneConfig(size="tiny", precision="auto", steps=60))   # নোটবুক
    deepspeed --num_gpus 2 --module mishran.capstone --zero-stage 1 --micro-batch 32 --steps 600 --out r.json
    python -m mishran.capstone --precision fp32 --steps 600 --out fp32.json          # এক GPU বা CPU

দুই পথ, একই ডেটা, একই মাপ-জোখ: zero_stage=None (এক process) mishran.engines.amp-এর AMP loop, হুবহু resume সহ;
zero_stage=0..3 (বা launcher-এ কয়েকটি GPU) DeepSpeed engine। precision একবারই ঠিক হয় (mishran.precision.resolve)।
"""
from __future__ import annotations

import argparse
import importlib.resources
import json
import math
import numbers
import os
import platform
import sys
from dataclasses import asdict, dataclass, fields

import torch

from mishran import cli
from mishran.capstone.check import file_sha256, record_digest
from mishran.capstone.evaluation import BestCheckpoint, bigram_bpc, heldout_bpc, sample, speed_figures, vocabulary_share
from mishran.capstone.literature import CORPORA, LiteratureData
from mishran.checks import device_type
from mishran.data import BatchStream
from mishran.engines.amp import TrainConfig, load_checkpoint, save_checkpoint, train
from mishran.engines.deepspeed_config import ZERO_STAGES, config_for_device
from mishran.engines.loop import run_steps
from mishran.measure.flops import flops_per_token
from mishran.models.gpt import GPT_SIZES, GPTConfig, TinyGPT
from mishran.precision import NAMES as PRECISION_NAMES
from mishran.precision import check as check_precision
from mishran.precision import grad_scaler
from mishran.precision import resolve as resolve_precision
from mishran.versions import package_version

__all__ = ["parse_args", "CapstoneConfig", "CapstoneResult", "lr_schedule", "run", "recorded_h200", "main",
           "CPU_LESSON_KNOBS"]

CPU_LESSON_KNOBS = dict(size="tiny", precision="fp32", micro_batch=16, steps=600, eval_every=200, lr=3e-3,
                        eval_chars=6000, sample_tokens=60)
"""পাঠ ০৮-এর CPU-র মূল run: ২ কোরে প্রশিক্ষণ প্রায় ১০ s, আর held-out-এর একই প্রথম ৬০০০ অক্ষরে bigram-কে হারায়
(tests/test_capstone.py কয়েকটি seed-এ তা দেখে)।"""


def recorded_h200() -> dict:
    """H200-এ মাপা ফল (tools/capstone_gpu.sh), mishran/results/capstone_h200.json থেকে; GPU ছাড়া দেখানোর জন্য (পাঠ ০৮)।"""
    path = importlib.resources.files("mishran") / "results" / "capstone_h200.json"
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- সুইচ: প্রতিটি একবার যাচাই, এখানেই

def _int(least: int, most: int = 2 ** 62):
    words = f"{least} বা তার বেশি পূর্ণসংখ্যা" if most >= 2 ** 62 else f"{least}–{most}-এর একটি পূর্ণসংখ্যা"
    return (lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and least <= v <= most, words,
            f"an integer >= {least}" if most >= 2 ** 62 else f"an integer in {least}..{most}", ValueError)


def _real(test, words: str, english: str):
    # abs(v) <= float max: সসীম আর float-এ ধরে (2**2000-এর মতো বিশাল int-ও বাদ; NaN-ও, তুলনা False)
    return (lambda v: isinstance(v, numbers.Real) and not isinstance(v, bool) and abs(v) <= sys.float_info.max
            and test(v), words, english, ValueError)


def _one_of(choices):
    return (lambda v: isinstance(v, str) and v in choices, "এদের একটি: " + ", ".join(choices),
            "one of " + ", ".join(choices), ValueError)


_POSITIVE = _real(lambda v: v > 0, "ধনাত্মক সসীম সংখ্যা", "a positive finite number")
_PATH = ((lambda v: isinstance(v, (str, os.PathLike))), "ফাইলের পথ", "a path", TypeError)
_FLAG = ((lambda v: isinstance(v, bool)), "True বা False", "True or False", TypeError)
# ঘর → (ঠিক কি না, বাংলায় কী চাই, ইংরেজিতে, ভুলের শ্রেণি); _MAY_BE_NONE-এর ঘর None-ও নিতে পারে
_RULES = {"size": _one_of(GPT_SIZES), "corpus": _one_of(CORPORA), "micro_batch": _int(1), "accumulation_steps": _int(1),
          "zero_stage": _int(0, 3), "steps": _int(0), "lr": _POSITIVE, "clip_norm": _POSITIVE,
          "dropout": _real(lambda v: 0 <= v < 1, "0 থেকে 1-এর কম", "in [0, 1)"), "seed": _int(0, 2 ** 64 - 1),
          "eval_every": _int(1), "eval_chars": _int(1), "warmup": _int(0), "checkpoint_path": _PATH, "save_at": _int(0),
          "resume_from": _PATH, "prompt": ((lambda v: isinstance(v, str)), "লেখা", "a str", TypeError),
          "sample_tokens": _int(0), "temperature": _POSITIVE, "top_k": _int(1), "progress": _FLAG, "patience": _int(1),
          "compile": _FLAG, "lr_warmup": _int(0), "lr_decay": _FLAG}
_MAY_BE_NONE = {"zero_stage", "clip_norm", "eval_chars", "checkpoint_path", "save_at", "resume_from", "top_k",
                "patience"}


@dataclass
class CapstoneConfig:
    """শিক্ষার্থীর সুইচ (পাঠ ০৮); ভুল মান দিলে এখানেই বাংলা বার্তা, সঙ্গে ঘরের নাম।

    size: GPT_SIZES-এর নাম; precision: 'auto' | 'fp32' | 'fp16' | 'bf16'; zero_stage: None = PyTorch-এর AMP loop,
    0–3 = DeepSpeed engine; eval_every: কত step পরপর held-out bpc; eval_chars: held-out-এর কতটুকু (None = পুরোটা);
    warmup: সময় মাপায় বাদ যাওয়া শুরুর step; checkpoint_path + save_at: ওই step-এ checkpoint; resume_from, compile:
    শুধু zero_stage=None-এ; patience: এতগুলো মূল্যায়নে held-out bpc না কমলে থামা (early stopping);
    lr_warmup, lr_decay: lr_schedule-এর warm-up আর cosine।
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
        self.precision = check_precision(self.precision, allow_auto=True)       # None → 'auto'
        if self.device is not None:
            device_type(self.device)
        for name, (ok, words, english, error) in _RULES.items():
            value, none = getattr(self, name), name in _MAY_BE_NONE
            if not (ok(value) or none and value is None):
                raise error(f"{name} হবে {words}{' বা None' if none else ''} ({name} must be {english}"
                            f"{' or None' if none else ''}); পেয়েছি {value!r:.80}")
        for name in ("resume_from", "compile"):
            if getattr(self, name) and self.zero_stage is not None:
                raise ValueError(f"{name} এখানে শুধু PyTorch loop-এ (zero_stage=None); DeepSpeed-এর পথে এটা বাদ দাও "
                                 f"({name} is implemented for zero_stage=None only)")


# ---------------------------------------------------------------- একটি run-এর ফল

@dataclass(kw_only=True)
class CapstoneResult:
    """একটি run-এর ফল (পাঠ ০৮); to_dict() → `--out`-এর JSON (mishran.capstone.check সেটাই পড়ে)।

    start_step: resume-এ > 0; curve: {step, bpc, train_bpc}-এর তালিকা; heldout_bpc, best_step: সেরা মূল্যায়ন (ফেরত
    মডেল আর নমুনা তারই), final_bpc: শেষেরটা; zero_stage, backend, ds_config শুধু DeepSpeed-এর পথে;
    checkpoint_sha256: যে checkpoint এই run লিখেছে, resumed_from_sha256: যেটা থেকে চালু হয়েছে (দুটোই ফাইলের sha256)।
    to_dict() শেষে 'digest' যোগ করে: বাকি সব ঘরের sha256 (mishran.capstone.check.record_digest)।
    """

    config: CapstoneConfig
    precision: str
    device: str
    num_params: int
    vocab_size: int
    train_chars: int
    heldout_chars: int
    train_pieces: int
    heldout_pieces: int
    world_size: int
    engine: str
    zero_stage: int | None = None
    backend: str | None = None
    global_batch: int
    start_step: int
    losses: list
    step_times: list
    loss_scales: list
    skipped_steps: list
    curve: list
    ds_config: dict | None = None
    heldout_bpc: float | None
    best_step: int | None
    stopped_early: bool
    peak_memory_bytes: int | None = None
    final_bpc: float | None
    bigram_bpc: float
    bigram_alpha: float
    margin_vs_bigram: float | None
    tokens_per_s: float | None
    flops_per_token: int
    peak_tflops_per_gpu: float | None
    mfu: float | None
    sample: dict
    versions: dict
    checkpoint_sha256: str | None = None
    resumed_from_sha256: str | None = None

    def to_dict(self) -> dict:
        """JSON-যোগ্য dict, শেষে 'digest'; যে ঘর শুধু DeepSpeed-এ বা GPU-তে থাকে, তা না থাকলে বাদ।"""
        sometimes = ("zero_stage", "backend", "ds_config", "peak_memory_bytes")
        data = {k: v for k, v in asdict(self).items() if v is not None or k not in sometimes}
        data = json.loads(json.dumps(data, ensure_ascii=False, default=str))   # ফাইলে যা যাবে, ঠিক তা-ই
        return dict(data, digest=record_digest(data))


# ---------------------------------------------------------------- একটি run

def _device_label(device: torch.device) -> str:
    from mishran.hardware import device_name
    return device_name("cuda") if device.type == "cuda" else (platform.processor() or platform.machine() or "cpu")


def lr_schedule(config: CapstoneConfig):
    """step → learning rate: lr_warmup step ধরে সরলরেখায় lr পর্যন্ত, তারপর lr_decay হলে cosine-এ lr/10 (steps-এ)।
    বড় মডেলে শুরুর এলোমেলো ওজনে Adam-এর প্রথম কয়েকটি step বড় হয়; warm-up সেগুলো ছোট রাখে (পাঠ ০৮)।"""
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
    """একটি পুরো run: প্রশিক্ষণ, held-out bpc-এর রেখা, bigram-এর তুলনা, গতি, মেমরি, MFU, নমুনা (পাঠ ০৮); ফল একটি
    CapstoneResult (launcher-এ শুধু rank 0-তে; বাকিরা None), return_model=True হলে (ফল, সেরা মডেল)।"""
    if not isinstance(config, CapstoneConfig) or not isinstance(data, (LiteratureData, type(None))) \
            or not isinstance(return_model, bool):
        raise TypeError("config হবে একটি CapstoneConfig, data একটি LiteratureData বা None, return_model True বা False "
                        "(config must be a CapstoneConfig, data a LiteratureData or None, return_model a bool); "
                        f"পেয়েছি {config!r:.60}, {data!r:.60}, {return_model!r:.40}")
    data = LiteratureData(corpus=config.corpus) if data is None else data
    use_ds = config.zero_stage is not None or int(os.environ.get("WORLD_SIZE", "1")) > 1
    want = config.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if use_ds:                          # process group, আর প্রতিটি rank-এর নিজের GPU (LOCAL_RANK)
        from mishran.engines.deepspeed_engine import start_process
        device, backend = start_process(cpu=device_type(want) == "cpu")
    else:
        device, backend = torch.device(want), None
        if device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(device)
    precision = resolve_precision(config.precision, device)      # একবারই ঠিক হয়; DeepSpeed-এর config-ও এটা থেকে
    torch.manual_seed(config.seed)            # dropout-এর mask: একই seed-এ একই (resume-এ checkpoint থেকে ফেরে)
    model = TinyGPT(GPTConfig(vocab_size=data.vocab_size, dropout=config.dropout, **GPT_SIZES[config.size]),
                    seed=config.seed)
    out = {"config": config, "precision": precision, "device": _device_label(device),
           "num_params": model.num_parameters(), "vocab_size": data.vocab_size,
           "train_chars": len(data.train_data), "heldout_chars": len(data.val_data),
           "train_pieces": len(data.train_pieces), "heldout_pieces": len(data.heldout_pieces), "backend": backend,
           "curve": []}
    run_path = _run_deepspeed if use_ds else _run_torch
    trained, best = run_path(model, data, config, precision, device, out)
    if trained is None:
        return (None, None) if return_model else None
    result = CapstoneResult(**out, **_summary(trained, data, config, device, best, out))
    return (result, trained) if return_model else result


def _summary(trained, data, config, device, best, out) -> dict:
    """প্রশিক্ষণের পরের মাপ: সেরা মূল্যায়ন (BestCheckpoint-ই তার একমাত্র উৎস), bigram, গতি আর MFU, মেমরি, নমুনা।"""
    heldout = best.bpc if best.step is not None else None
    bigrams = {a: bigram_bpc(data.train_data, data.val_data[:_eval_len(config, data)], data.vocab_size, a)
               for a in (0.01, 0.1, 0.5, 1.0)}
    alpha = min(bigrams, key=bigrams.get)
    on_gpu = device.type == "cuda"
    speed = speed_figures(out["step_times"], config.warmup, out["global_batch"] * trained.config.block_size,
                          flops_per_token(trained), out["precision"],          # peak: যে precision-এ চলল, সেটারই
                          out["device"] if on_gpu else None, out["world_size"])
    text = sample(trained, data.tokenizer, config.prompt, config.sample_tokens, config.temperature, config.top_k,
                  seed=config.seed, device=device)
    versions = {"torch": torch.__version__, "python": platform.python_version()}
    if out["engine"] == "deepspeed":
        versions["deepspeed"] = package_version("deepspeed")
    return dict(speed, heldout_bpc=heldout, best_step=best.step,
                stopped_early=best.stop and out["start_step"] + len(out["losses"]) < config.steps,
                peak_memory_bytes=torch.cuda.max_memory_allocated(device) if on_gpu else None,
                final_bpc=out["curve"][-1]["bpc"] if out["curve"] else None, bigram_bpc=bigrams[alpha],
                bigram_alpha=alpha, margin_vs_bigram=None if heldout is None else bigrams[alpha] - heldout,
                sample={"prompt": config.prompt, "text": text, "temperature": config.temperature,
                        "top_k": config.top_k, **vocabulary_share(text, data.train_text)}, versions=versions)


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
        out["resumed_from_sha256"] = file_sha256(config.resume_from)
    lr_at = lr_schedule(config)
    runner = torch.compile(model) if config.compile else model          # ওজন একই; checkpoint লেখে model নিজে
    out.update(world_size=1, engine="pytorch", global_batch=stream.global_batch, start_step=step,
               losses=[], step_times=[], loss_scales=[], skipped_steps=[])
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
            _record(model, step, *_measure(model, data, config, precision, device), out["curve"], best)
        if config.checkpoint_path and step == config.save_at:
            save_checkpoint(config.checkpoint_path, model, optimizer, scaler, step=step, generator=stream.generator,
                            extra={"config": asdict(config), "best": best.state_dict()})
            out["checkpoint_sha256"] = file_sha256(config.checkpoint_path)
    best.restore(model)
    return model, best


def _measure(model, data, config, precision, device) -> tuple[float, float]:
    """(held-out bpc, train-এর সমান মাপের টুকরোর bpc), dropout বন্ধ: overfitting দেখা যায় দুইয়ের ফাঁকে।"""
    block = model.config.block_size
    held = heldout_bpc(model, data.val_data, block, device, precision, max_chars=config.eval_chars)
    return held, heldout_bpc(model, data.train_data[:_eval_len(config, data)], block, device, precision)


def _record(model, step, held, train_bpc, curve, best) -> None:
    """রেখায় একটি বিন্দু; সেরা held-out হলে best-এ ওজনের কপি।"""
    curve.append({"step": step, "bpc": held, "train_bpc": train_bpc})
    best.update(model, step, held)


def _run_deepspeed(model, data, config, precision, device, out):
    """DeepSpeed engine (পাঠ ০৫) আর run_steps-এর loop: launcher থাকলে কয়েকটি GPU, না থাকলে এক process।"""
    from mishran.engines import deepspeed_engine

    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    # zero_stage None: config_for_device-এর নিয়ম — ১৬-বিটে accumulation > 1 হলে stage 1, gradient জমে FP32-এ (পাঠ ০৫)
    ds_config = config_for_device(micro_batch=config.micro_batch, accumulation_steps=config.accumulation_steps,
                                  world_size=world, zero_stage=config.zero_stage, precision=precision, lr=config.lr,
                                  device=device.type, gradient_clipping=config.clip_norm)
    engine = deepspeed_engine.initialize(model, ds_config, lr=config.lr)
    scale_log = deepspeed_engine.LossScaleLog(engine)
    stream = BatchStream(data, config.micro_batch, config.accumulation_steps, model.config.block_size,
                         world_size=world, rank=rank, seed=config.seed)
    best, lr_at = BestCheckpoint(config.patience), lr_schedule(config)

    def set_lr(i: int) -> None:
        for group in engine.optimizer.param_groups:           # DeepSpeed-এর wrapper ভেতরের group-গুলো দেখায়
            group["lr"] = lr_at(i)

    def after_step(i: int) -> bool:
        scale_log.record()
        if (i + 1) % config.eval_every == 0 or i + 1 == config.steps:
            _evaluate_together(engine, data, config, device, i + 1, out["curve"], best)
        return best.stop                    # সব rank-এর best একই সংখ্যা দেখেছে, তাই সবাই একসঙ্গে থামে

    out.update(world_size=world, engine="deepspeed", zero_stage=ds_config["zero_optimization"]["stage"],
               global_batch=stream.global_batch, start_step=0, ds_config=ds_config)
    out["losses"], out["step_times"] = run_steps(
        lambda batches: deepspeed_engine.engine_step(engine, batches),
        lambda: [stream() for _ in range(config.accumulation_steps)], config.steps, device,
        before_step=set_lr if config.lr_warmup or config.lr_decay else None, after_step=after_step)
    out.update(loss_scales=[s for s in scale_log.scales if s is not None], skipped_steps=scale_log.skipped_steps)
    scale_log.close()
    trained = _plain_copy(engine.module, best.weights) if rank == 0 else None
    deepspeed_engine.release(engine)
    return trained, best


def _evaluate_together(engine, data, config, device, step, curve, best) -> None:
    """DeepSpeed-এর পথে মূল্যায়ন: সব rank একসঙ্গে, rank 0-এর সংখ্যায়। ZeRO-3-এ forward প্রতিটি স্তরের ওজন সব rank
    থেকে জোড়া লাগায় (all-gather), তাই একা rank 0 forward চালালে চিরকাল আটকে থাকে; সেরা ওজনের কপিও পুরো ওজন জোড়া
    লাগিয়ে (GatheredParameters)। ওজন নিজেই bf16/fp16, তাই "fp32" (autocast বন্ধ)।"""
    import deepspeed

    module = engine.module
    numbers_ = torch.tensor(_measure(module, data, config, "fp32", device), dtype=torch.float64, device=device)
    torch.distributed.broadcast(numbers_, src=0)       # best আর early stopping সব rank-এ একই সংখ্যা থেকে
    with deepspeed.zero.GatheredParameters(list(module.parameters()), enabled=engine.zero_optimization_stage() == 3):
        _record(module, step, *numbers_.tolist(), curve, best)


def _plain_copy(module, weights) -> TinyGPT:
    """engine ছাড়া একটি সাধারণ TinyGPT, engine-এর dtype-এ, সেরা মূল্যায়নের ওজনে: নমুনা আর FLOP-এর হিসাব এতে চলে
    (ZeRO-3-এর engine.module-এর ওজন টুকরো করা, একা rank 0 তা চালাতে পারে না)।"""
    first = next(module.parameters())
    plain = TinyGPT(module.config).to(device=first.device, dtype=first.dtype)
    plain.load_state_dict(weights)
    return plain


# ---------------------------------------------------------------- launcher / কমান্ড লাইন

def parse_args(argv=None) -> argparse.Namespace:
    """`python -m mishran.capstone`-এর argument; প্রতিটি CapstoneConfig-এর একটি সুইচ, আর args.config সেই
    CapstoneConfig (পাঠ ০৮)। ভুল মান: argparse-এর এক লাইনের বার্তা আর exit status 2, traceback নয়।"""
    p = argparse.ArgumentParser(prog="python -m mishran.capstone",
                                description="মিশ্রণ পাঠ ০৮: বাংলা সাহিত্যে অক্ষর-ভিত্তিক ভাষা-মডেল")
    d = CapstoneConfig()
    whole, count, positive = cli.positive_int, cli.non_negative_int, cli.positive_float
    p.add_argument("--size", default=None, choices=list(GPT_SIZES), help="ডিফল্ট: GPU-তে gpu, CPU-তে tiny")
    p.add_argument("--corpus", default=d.corpus, choices=list(CORPORA), help="small: পাঠ ০৮-এর; full: চার গুণ বড়টি")
    p.add_argument("--precision", default=d.precision, choices=["auto", *PRECISION_NAMES])
    p.add_argument("--micro-batch", type=whole, default=d.micro_batch)
    p.add_argument("--accumulation-steps", type=whole, default=d.accumulation_steps)
    p.add_argument("--zero-stage", type=count, default=None, choices=list(ZERO_STAGES))
    p.add_argument("--steps", type=whole, default=d.steps)
    p.add_argument("--lr", type=positive, default=d.lr)
    p.add_argument("--dropout", type=cli.non_negative_float, default=d.dropout, help="0 থেকে 1-এর কম")
    p.add_argument("--seed", type=count, default=d.seed)
    p.add_argument("--eval-every", type=whole, default=d.eval_every)
    p.add_argument("--eval-chars", type=whole, default=None)
    p.add_argument("--warmup", type=count, default=d.warmup)
    p.add_argument("--patience", type=whole, default=None, help="এতগুলো মূল্যায়নে held-out bpc না কমলে থামো")
    p.add_argument("--compile", action="store_true", help="torch.compile (PyTorch loop-এ)")
    p.add_argument("--lr-warmup", type=count, default=0, help="learning rate-এর warm-up step")
    p.add_argument("--lr-decay", action="store_true", help="warm-up-এর পরে cosine-এ lr/10 পর্যন্ত")
    p.add_argument("--cpu", action="store_true", help="GPU থাকলেও CPU-তে")
    p.add_argument("--deterministic", action="store_true", help="GPU-তে resume-এর হুবহু তুলনার জন্য")
    p.add_argument("--checkpoint", dest="checkpoint_path", help="--save-at step-এ এই ফাইলে checkpoint")
    p.add_argument("--save-at", type=count, default=None)
    p.add_argument("--resume", dest="resume_from", help="এই checkpoint থেকে চালু (নতুন process-এ)")
    p.add_argument("--prompt", default=d.prompt)
    p.add_argument("--sample-tokens", type=count, default=d.sample_tokens, help="নমুনায় কয়টি অক্ষর")
    p.add_argument("--out", default=None, help="ফলাফলের JSON (rank 0 লেখে)")
    p.add_argument("--local_rank", type=count, default=None, help="DeepSpeed launcher দেয়; env-এর LOCAL_RANK ব্যবহার হয়")
    args = p.parse_args(argv)
    on_gpu = torch.cuda.is_available() and not args.cpu
    switches = {k: v for k, v in vars(args).items() if k in {f.name for f in fields(CapstoneConfig)}}
    try:                  # যে ভুল একটি flag একা দেখে ধরা যায় না (dropout ≥ 1, resume + zero-stage): একই এক লাইন
        args.config = CapstoneConfig(**dict(switches, size=args.size or ("gpu" if on_gpu else "tiny"),
                                            device="cuda" if on_gpu else "cpu"))
    except (ValueError, TypeError) as err:
        p.error(str(err))
    return args


def main(argv=None) -> CapstoneResult | None:
    """কমান্ড লাইন থেকে একটি run: ফল ছাপে, --out দিলে JSON লেখে, শেষে process group বন্ধ করে (পাঠ ০৮)।"""
    args = parse_args(argv)
    if args.cpu:
        os.environ.setdefault("DS_ACCELERATOR", "cpu")
    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    r = run(args.config)
    if r is not None:
        print(f"{r.engine}, {r.world_size} process, {r.precision}, Ψ = {r.num_params:,}: held-out bpc "
              f"{r.heldout_bpc:.4f} at step {r.best_step} (bigram {r.bigram_bpc:.4f})"
              + (f", {r.tokens_per_s:,.0f} token/s" if r.tokens_per_s else ""))
        cli.write_record(r, args.out)
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
    return r


if __name__ == "__main__":
    main()
