"""DeepSpeed নোটবুকে (পাঠ ০৫): এক-process সেটআপ, এই device-এর জন্য config, আর loss scale-এর খাতা।

DeepSpeed সাধারণত চলে তার launcher দিয়ে (`deepspeed --num_gpus N train.py`), যে প্রতিটি process-কে RANK,
WORLD_SIZE ইত্যাদি environment variable দেয়। নোটবুকে launcher নেই; তাই এখানে:

    from mishran import ds
    config = ds.config_for_device(micro_batch=8, accumulation_steps=4)   # এই device দেখে FP16 বা BF16
    engine = ds.initialize(model, config)           # env ঠিক করে, আগের engine-এর মেমরি ছেড়ে, নতুন engine
    log = ds.LossScaleLog(engine)
    for x, y in batches:                             # প্রতিটি micro-batch
        _, loss = engine(x, y)
        engine.backward(loss)                        # loss-কে নিজেই accumulation_steps দিয়ে ভাগ করে (আর FP16-এ scale করে)
        engine.step()                                # শুধু accumulation-এর সীমানায় optimizer step আর zero_grad
        log.record()

এই মডিউল matplotlib বা ipywidgets import করে না; deepspeed import হয় শুধু যেখানে লাগে।
"""
from __future__ import annotations

import collections
import copy
import gc
import logging
import numbers
import os
import socket
import warnings
from dataclasses import asdict, dataclass, field

import torch

from .hardware import recommended_amp_dtype

__all__ = ["ZERO_STAGES", "FP16_DEFAULTS", "FP16_STAGE0_WARNING", "DeepSpeedConfigError", "choose_precision", "config_for_device",
           "validate_config", "free_port", "setup_single_process", "initialize", "release", "current_engine", "loss_scale_of",
           "LossScaleRow", "LossScaleLog", "model_state_bytes", "zero_model_state_bytes"]

ZERO_STAGES = (0, 1, 2, 3)

# DeepSpeed-এর fp16 block-এর ডিফল্ট (deepspeed/runtime/precision_config.py, DeepSpeedFP16Config)।
# config-এ সব key স্পষ্ট লিখে রাখি, যাতে পাঠে প্রতিটির মানে বলা যায়।
FP16_DEFAULTS = {
    "enabled": True,
    "auto_cast": False,            # ইনপুট নিজে FP16-এ cast করবে না; আমাদের ইনপুট token id (int64), cast লাগে না
    "loss_scale": 0,               # 0 মানে dynamic loss scaling; অন্য সংখ্যা দিলে সেটাই স্থির scale
    "initial_scale_power": 16,     # শুরুর scale = 2**16 = 65536
    "loss_scale_window": 1000,     # এতগুলো overflow-হীন step-এর পরে scale × 2
    "hysteresis": 2,               # scale কমানোর আগে কয়টি overflow সহ্য করা হয় (ZeRO 1–3-এ; stage 0-এ খাটে না)
    "consecutive_hysteresis": False,   # True: প্রতিটি ভালো step-এ hysteresis আবার ভরে
    "min_loss_scale": 1,           # scale এর নিচে নামে না
}

PRECISIONS = ("fp16", "bf16", "fp32")

FP16_STAGE0_WARNING = (
    "FP16 আর ZeRO stage 0 একসঙ্গে: DeepSpeed 0.19.8-এ এখানে engine.backward() loss-কে loss scale দিয়ে গুণ করে না, "
    "কিন্তু engine.step() gradient-কে সেই scale দিয়ে ভাগ করে — ছোট gradient underflow থেকে বাঁচে না, আর হালনাগাদ "
    "scale গুণ ছোট হয় (fp16 with ZeRO stage 0: the loss is not scaled in engine.backward; DeepSpeed PR #8393)। "
    "zero_stage=1 নাও: loss scaling ঠিক চলে, আর এক GPU-তে মেমরি প্রায় একই।")


class DeepSpeedConfigError(ValueError):
    """DeepSpeed-এর আগেই ধরা config-এর ভুল, বাংলা আর ইংরেজিতে (পাঠ ০৫)।"""


# ---------------------------------------------------------------- config

def choose_precision(device: str | None = None, capability=None) -> str:
    """এই device-এ DeepSpeed-এর কোন precision: 'fp16', 'bf16' বা 'fp32' (পাঠ ০৫)।

    নিয়ম mishran.hardware.recommended_amp_dtype()-এর: CPU আর Ampere (sm_80) বা নতুন GPU → bf16;
    Volta/Turing (sm_70/sm_75, যেমন Colab-এর T4) → fp16 + dynamic loss scaling; আরও পুরনো → fp32।
    capability দিলে (যেমন (7, 5)) GPU ছাড়াই সিদ্ধান্তটা দেখা যায়।
    """
    if capability is not None:
        device = "cuda"
    dtype = recommended_amp_dtype(device, capability)
    return {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype, "fp32")


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise DeepSpeedConfigError(f"{name} হবে ধনাত্মক পূর্ণসংখ্যা ({name} must be a positive integer); "
                                   f"পেয়েছি {value!r}")
    return int(value)


def _world_size(world_size) -> int:
    if world_size is None:
        world_size = int(os.environ.get("WORLD_SIZE", "1"))
    return _positive_int(world_size, "world_size")


def _check_precision_name(precision) -> str | None:
    if precision is None or precision == "auto":
        return None
    parts = {str(p).lower() for p in precision} if isinstance(precision, (list, tuple, set)) else \
        {p for p in ("fp16", "bf16") if p in str(precision).lower()} or {str(precision).lower()}
    if {"fp16", "bf16"} <= parts:
        raise DeepSpeedConfigError("FP16 আর BF16 একসঙ্গে চালু করা যায় না (fp16 and bf16 cannot both be enabled): "
                                   "মডেলের ওজন একটাই 16-বিট ফরম্যাটে থাকে। একটা বেছে নাও — precision='fp16' "
                                   "(loss scaling-সহ) বা precision='bf16'।")
    if precision not in PRECISIONS:
        raise DeepSpeedConfigError(f"অচেনা precision {precision!r} (unknown precision); বেছে নাও: 'fp16', 'bf16', "
                                   "'fp32', অথবা None (এই device দেখে নিজে বাছাই)।")
    return precision


def config_for_device(micro_batch: int, accumulation_steps: int = 1, world_size: int | None = None,
                      zero_stage: int | None = None, precision: str | None = None, lr: float = 1e-3,
                      optimizer: str | None = None, train_batch_size: int | None = None,
                      device: str | None = None, capability=None, fp16_options: dict | None = None,
                      gradient_clipping: float | None = None, bucket_size: int = 20_000_000,
                      log_level: str = "warning") -> dict:
    """এই device-এর জন্য একটি DeepSpeed config dict, DeepSpeed-এর আগেই যাচাই করা (পাঠ ০৫)।

    - micro_batch: প্রতি GPU-তে একবারে কয়টি নমুনা (train_micro_batch_size_per_gpu)।
    - accumulation_steps: কয়টি micro-batch-এর gradient জমিয়ে একটি optimizer step।
    - world_size: কয়টি process (GPU); না দিলে env-এর WORLD_SIZE, নইলে ১।
      train_batch_size = micro_batch × accumulation_steps × world_size; দিলে মিলতে হবে।
    - precision: None হলে device দেখে (choose_precision): T4-এ 'fp16', A100/H100/CPU-তে 'bf16'।
    - zero_stage: None হলে BF16/FP32-এ 0, কিন্তু FP16-এ 1 — কারণ DeepSpeed 0.19.8-এ ZeRO stage 0-তে
      engine.backward() loss-কে scale করে না, অথচ step() gradient-কে scale দিয়ে ভাগ করে (DeepSpeed PR #8393);
      stage 1-এ scaling ঠিক চলে, আর এক GPU-তে মেমরি প্রায় একই। নিজে 0 দিলে FP16-এ সতর্কবার্তা আসে।
    - optimizer: None হলে config-এ optimizer নেই — mishran.ds.initialize() একটি torch.optim.AdamW বানায়,
      কিছুই compile হয় না। 'Adam'/'AdamW' দিলে DeepSpeed নিজের optimizer নেয়: GPU-তে FusedAdam, যা প্রথমবার
      JIT compile হয় (প্রায় এক মিনিট)।
    - fp16_options: fp16 block-এর যেকোনো key বদলাতে, যেমন {"initial_scale_power": 32}।
    - bucket_size: ZeRO 1/2-এর gradient bucket (উপাদান সংখ্যা)। DeepSpeed-এর ডিফল্ট 5e8 — 16 বিটে ১ GB,
      আমাদের ছোট মডেলের চেয়েও বড়; তাই ছোট রাখা।
    ভুল হলে DeepSpeedConfigError (বাংলা + ইংরেজি)।
    """
    micro = _positive_int(micro_batch, "micro_batch")
    accum = _positive_int(accumulation_steps, "accumulation_steps")
    world = _world_size(world_size)
    if zero_stage is not None and (isinstance(zero_stage, bool) or zero_stage not in ZERO_STAGES):
        raise DeepSpeedConfigError(f"অচেনা ZeRO stage {zero_stage!r} (unknown ZeRO stage); চলে 0 (ZeRO বন্ধ), "
                                   "1 (optimizer state ভাগ), 2 (+ gradient ভাগ), 3 (+ ওজন ভাগ)।")
    if capability is not None:
        device = "cuda"
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    precision = _check_precision_name(precision) or choose_precision(device, capability)
    if zero_stage is None:
        zero_stage = 1 if precision == "fp16" else 0
    elif zero_stage == 0 and precision == "fp16":
        warnings.warn(FP16_STAGE0_WARNING, stacklevel=2)
    if fp16_options and precision != "fp16":
        raise DeepSpeedConfigError(f"fp16_options দেওয়া হয়েছে, কিন্তু precision={precision!r} (fp16 options "
                                   "without fp16); loss scaling-এর এই key-গুলো শুধু FP16-এ খাটে।")
    unknown = set(fp16_options or {}) - set(FP16_DEFAULTS)
    if unknown:
        raise DeepSpeedConfigError(f"fp16 block-এ অচেনা key {sorted(unknown)} (unknown fp16 keys); চেনা key: "
                                   f"{', '.join(FP16_DEFAULTS)}")

    config = {
        "train_batch_size": micro * accum * world if train_batch_size is None else train_batch_size,
        "train_micro_batch_size_per_gpu": micro,
        "gradient_accumulation_steps": accum,
    }
    if precision == "fp16":
        config["fp16"] = {**FP16_DEFAULTS, **(fp16_options or {})}
    elif precision == "bf16":
        config["bf16"] = {"enabled": True}
    zero = {"stage": int(zero_stage)}
    if zero_stage in (1, 2, 3):
        zero["reduce_bucket_size"] = _positive_int(bucket_size, "bucket_size")
        if zero_stage in (1, 2):
            zero["allgather_bucket_size"] = zero["reduce_bucket_size"]
    config["zero_optimization"] = zero
    if gradient_clipping is not None:
        config["gradient_clipping"] = float(gradient_clipping)
    if optimizer is not None:
        if optimizer not in ("Adam", "AdamW"):
            raise DeepSpeedConfigError(f"optimizer হবে None (torch.optim.AdamW, compile ছাড়া), 'Adam' বা 'AdamW' "
                                       f"(DeepSpeed-এর FusedAdam); পেয়েছি {optimizer!r}")
        config["optimizer"] = {"type": optimizer, "params": {"lr": lr, "betas": [0.9, 0.999], "eps": 1e-8,
                                                             "weight_decay": 0.01}}
    config["log_level"] = log_level
    validate_config(config, world_size=world, device=device)
    return config


def validate_config(config: dict, world_size: int | None = None, device: str | None = None) -> dict:
    """একটি DeepSpeed config (নিজের লেখা হলেও) DeepSpeed-এর আগে যাচাই; ভুলে DeepSpeedConfigError (পাঠ ০৫)।

    দেখে: ব্যাচের হিসাব (train_batch_size = micro × accumulation × world_size), CPU-তে FP16, FP16 আর BF16
    একসঙ্গে, অচেনা ZeRO stage। ফেরত দেয় {"train_batch_size", "micro_batch", "accumulation_steps", "world_size"}।
    """
    if not isinstance(config, dict):
        raise DeepSpeedConfigError(f"config হবে একটি dict (a DeepSpeed config dict); পেয়েছি {type(config).__name__}। "
                                   "config ছাড়া deepspeed.initialize চলে না।")
    world = _world_size(world_size)
    train = config.get("train_batch_size")
    micro = config.get("train_micro_batch_size_per_gpu")
    accum = config.get("gradient_accumulation_steps")
    for name, value in (("train_batch_size", train), ("train_micro_batch_size_per_gpu", micro),
                        ("gradient_accumulation_steps", accum)):
        if value is not None:
            _positive_int(value, name)
    if train is None and micro is None:
        raise DeepSpeedConfigError("train_batch_size বা train_micro_batch_size_per_gpu — অন্তত একটি দাও (either "
                                   "train_batch_size or train_micro_batch_size_per_gpu is required)।")
    if micro is None:
        accum = accum or 1
        micro, rest = divmod(train, accum * world)
    elif accum is None:
        accum, rest = divmod(train, micro * world) if train is not None else (1, 0)
    else:
        rest = 0
    if train is None:
        train = micro * accum * world
    if rest or micro < 1 or accum < 1 or train != micro * accum * world:
        raise DeepSpeedConfigError(
            f"ব্যাচের হিসাব মেলেনি (batch arithmetic does not add up): train_batch_size {train} ≠ "
            f"micro_batch {micro} × gradient_accumulation_steps {accum} × world_size {world} = "
            f"{micro * accum * world}। নিয়ম: train_batch_size = train_micro_batch_size_per_gpu × "
            "gradient_accumulation_steps × GPU-র সংখ্যা। যেকোনো দুটি দিলে DeepSpeed তৃতীয়টি বের করে; তিনটিই দিলে মিলতে হবে।")
    fp16 = bool(config.get("fp16", {}).get("enabled", False))
    bf16 = bool(config.get("bf16", config.get("bfloat16", {})).get("enabled", False))
    if fp16 and bf16:
        raise DeepSpeedConfigError("FP16 আর BF16 একসঙ্গে চালু করা যায় না (fp16 and bf16 cannot both be enabled); "
                                   "config-এ একটির enabled মুছে দাও। DeepSpeed-এর নিজের বার্তা: 'bfloat16 and fp16 "
                                   "modes cannot be simultaneously enabled'।")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    if fp16 and device == "cpu":
        raise DeepSpeedConfigError("CPU-তে FP16 চলে না (fp16 is not supported on a CPU): DeepSpeed-এর CPU accelerator "
                                   "বলবে 'Type fp16 is not supported on your device.'। CPU-তে BF16 নাও "
                                   "(\"bf16\": {\"enabled\": true}), অথবা GPU-তে চালাও।")
    stage = config.get("zero_optimization", {}).get("stage", 0)
    if isinstance(stage, bool) or stage not in ZERO_STAGES:
        raise DeepSpeedConfigError(f"অচেনা ZeRO stage {stage!r} (unknown ZeRO stage); চলে 0, 1, 2 বা 3।")
    return {"train_batch_size": train, "micro_batch": micro, "accumulation_steps": accum, "world_size": world}


# ---------------------------------------------------------------- এক process, launcher ছাড়া

_ENGINE = None                                  # শেষ initialize()-এর engine; আবার initialize করলে এটি ছাড়া হয়


def free_port() -> int:
    """এই যন্ত্রের একটি খালি TCP port (MASTER_PORT-এর জন্য)।"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def setup_single_process(backend: str | None = None, cpu_shm_comm: bool = False) -> dict:
    """launcher ছাড়া (নোটবুকে) DeepSpeed-এর distributed অংশ চালু করে; বারবার ডাকলেও ক্ষতি নেই (পাঠ ০৫)।

    RANK=0, WORLD_SIZE=1, LOCAL_RANK=0, MASTER_ADDR=127.0.0.1 আর একটি খালি MASTER_PORT বসায় — শুধু যেগুলো
    আগে থেকে নেই (launcher-এর দেওয়া মান বদলায় না)। এগুলো না থাকলে DeepSpeed MPI খোঁজে (mpi4py)।
    backend: GPU-তে 'nccl', CPU-তে (DeepSpeed-এর CPU accelerator) 'gloo'। CPU-তে DeepSpeed একটি shared-memory
    allreduce op প্রথমবার compile করে (এক মিনিটের বেশি); gloo নিজেই সব পারে, তাই cpu_shm_comm=False সেটি বন্ধ রাখে।
    ফেরত দেয়: {"backend", "env": {...}, "set_here": [যে variable-গুলো এখানে বসানো হলো]}।
    """
    import deepspeed
    import deepspeed.comm as dist

    defaults = {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1"}
    set_here = []
    for key, value in defaults.items():
        if key not in os.environ:
            os.environ[key] = value
            set_here.append(key)
    if "MASTER_PORT" not in os.environ:
        os.environ["MASTER_PORT"] = str(free_port())
        set_here.append("MASTER_PORT")
    on_cpu = _accelerator_device() == "cpu"
    backend = backend or ("gloo" if on_cpu else "nccl")
    if backend == "gloo" and not cpu_shm_comm:
        # deepspeed.comm.torch.build_shm_op() শুধু এই তালিকা দেখে; False হলে compile না করে gloo-তেই সব চলে।
        # তালিকাটা প্রথমবার পড়লে DeepSpeed সব op-এর জন্য compiler চালিয়ে দেখে (async_io-র linker-এর ভুলবার্তা
        # পর্দায় আসে); আগে না পড়া হলে তাই নিজেরাই বসাই: তালিকায় না থাকা op মানে "compatible নয়"।
        probed = vars(deepspeed.ops).get("__compatible_ops__")
        if probed is None:
            deepspeed.ops.__compatible_ops__ = collections.defaultdict(bool, {"deepspeed_shm_comm": False})
        else:
            probed["deepspeed_shm_comm"] = False
    if not dist.is_initialized():
        deepspeed.init_distributed(dist_backend=backend)
    env = {k: os.environ[k] for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    backend = torch.distributed.get_backend() if torch.distributed.is_initialized() else backend
    return {"backend": backend, "env": env, "set_here": set_here}


def _accelerator_device() -> str:
    """DeepSpeed কোন accelerator-এ চলছে: 'cpu' বা 'cuda' (DS_ACCELERATOR=cpu দিলে GPU থাকলেও CPU)।"""
    from deepspeed.accelerator import get_accelerator
    return "cpu" if get_accelerator().device_name() == "cpu" else "cuda"


def current_engine():
    """শেষবার initialize() যে engine দিয়েছিল (না থাকলে None)।"""
    return _ENGINE


def release(engine=None) -> None:
    """একটি engine-এর মেমরি ছেড়ে দেয়: engine.destroy(), optimizer আর মডেলের reference মুছে, gc, empty_cache (পাঠ ০৫)।

    engine না দিলে শেষ initialize()-এর engine। নোটবুকে `engine = ...` ঘর আবার চালালে পুরনো engine ততক্ষণ
    variable-এ বাঁধা থাকে; তার optimizer-এর FP32 কপি আর Adam-এর অবস্থা (প্রতি ওজনে ১২ বাইট) না ছাড়লে GPU-তে
    দুই engine-এর মেমরি জমে। ছাড়ার পরে পুরনো engine আর চালানো যায় না।
    """
    global _ENGINE
    if engine is None:
        engine, _ENGINE = _ENGINE, None
    elif engine is _ENGINE:
        _ENGINE = None
    if engine is None:
        return
    try:
        engine.destroy()              # ZeRO/BF16 optimizer-এর gradient hook সরায়
    except Exception:                 # আধা-তৈরি engine-এ destroy ব্যর্থ হতে পারে; তবু বাকিটা ছাড়ি
        pass
    for name in ("module_forward_pre_hook", "module_forward_post_hook", "first_dataloader_check"):
        handle = getattr(engine, name, None)
        if handle is not None and hasattr(handle, "remove"):
            handle.remove()           # মডেল আবার ব্যবহার হলে পুরনো engine-এর hook যেন না চলে
            setattr(engine, name, None)
    for name in ("optimizer", "basic_optimizer", "client_optimizer", "lr_scheduler", "client_lr_scheduler",
                 "training_dataloader", "module"):
        if hasattr(engine, name):
            try:
                setattr(engine, name, None)
            except (AttributeError, TypeError):
                pass
    if "module" in engine.__dict__:   # DeepSpeedEngine মডেলটি __dict__-এও রাখে
        engine.__dict__["module"] = None
    for name, value in list(vars(engine).items()):
        # engine.param_names-এর মতো dict-এ ওজনগুলো key হয়ে থাকে; সেগুলোও ছাড়ি
        if isinstance(value, torch.Tensor):
            engine.__dict__[name] = None
        elif isinstance(value, dict) and not name.startswith("_") and any(
                isinstance(x, torch.Tensor) for kv in value.items() for x in kv):
            engine.__dict__[name] = {}
        elif isinstance(value, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in value):
            engine.__dict__[name] = type(value)()
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def initialize(model, config: dict, optimizer=None, lr: float = 1e-3, **kwargs):
    """নোটবুকে নিরাপদ deepspeed.initialize(): শুধু engine ফেরত দেয় (পাঠ ০৫)।

    ১) setup_single_process() — launcher না থাকলে env বসায়; ২) আগের engine থাকলে release() করে তার মেমরি
    ছাড়ে, তাই ঘরটা আবার চালানো যায়; ৩) config যাচাই (validate_config); ৪) optimizer না দিলে আর config-এ
    "optimizer" না থাকলে torch.optim.AdamW(lr=lr) — কিছু compile হয় না; ৫) deepspeed.initialize(...)।
    kwargs সোজা deepspeed.initialize-এ যায় (যেমন lr_scheduler)।
    """
    global _ENGINE
    import deepspeed

    if config is None:
        raise DeepSpeedConfigError("config ছাড়া DeepSpeed চলে না (a config is required): "
                                   "ds.config_for_device(micro_batch=...) দিয়ে বানাও।")
    setup_single_process()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    validate_config(config, world_size=world, device=_accelerator_device())
    previous = _ENGINE
    if previous is not None:
        old_opts = {id(getattr(previous, n, None)) for n in ("basic_optimizer", "client_optimizer")}
        if optimizer is not None and id(optimizer) in old_opts:
            raise ValueError("এই optimizer আগের engine-এ ব্যবহার হয়েছে (optimizer already used by an engine): "
                             "DeepSpeed তার param_groups বদলে FP32 কপি বসায়। নতুন optimizer বানাও, বা optimizer=None দাও।")
        release(previous)
    if optimizer is None and "optimizer" not in config:
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    engine, *_ = deepspeed.initialize(model=model, optimizer=optimizer, config=copy.deepcopy(config), **kwargs)
    _ENGINE = engine
    return engine


# ---------------------------------------------------------------- loss scale-এর খাতা

def loss_scale_of(engine) -> float | None:
    """engine এখন loss-কে কত দিয়ে গুণ করছে; FP16 ছাড়া None (BF16/FP32-এ loss scaling নেই) (পাঠ ০৫)।

    ZeRO stage 0: engine.optimizer হলো FP16_Optimizer (FusedAdam) বা FP16_UnfusedOptimizer (অন্য optimizer);
    দুটোরই `loss_scale` property → loss_scale_config.cur_scale। ZeRO 1/2 (DeepSpeedZeroOptimizer) ও 3:
    `loss_scale` property → loss_scaler.cur_scale।
    """
    if not engine.fp16_enabled():
        return None
    opt = engine.optimizer
    scale = getattr(opt, "loss_scale", None)
    if scale is None and hasattr(opt, "loss_scale_config"):
        scale = opt.loss_scale_config.cur_scale
    if scale is None and hasattr(opt, "loss_scaler"):
        scale = opt.loss_scaler.cur_scale
    return None if scale is None else float(scale)


# DeepSpeed-এর যে ফাইলগুলো overflow আর scale বদলের বার্তা লেখে (logger "DeepSpeed", স্তর INFO)
_SCALE_MESSAGE_FILES = {"loss_scaler.py", "fused_optimizer.py", "unfused_optimizer.py"}


class _MessageCatcher(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.INFO)
        self.messages = []

    def emit(self, record):
        if record.filename in _SCALE_MESSAGE_FILES:
            self.messages.append(record.getMessage().strip())


@dataclass
class LossScaleRow:
    """LossScaleLog-এর একটি সারি: একটি optimizer step (accumulation-এর সীমানা)।

    step: এই step-এর পরে engine.global_steps; micro_steps: তখন পর্যন্ত মোট micro-batch;
    scale: এই step-এর backward-এ loss যে scale-এ গুণ হয়েছিল (FP16 ছাড়া None); new_scale: step-এর পরের scale;
    skipped: gradient-এ inf/NaN ছিল বলে DeepSpeed step বাদ দিয়েছে কি না; messages: তখন DeepSpeed-এর বার্তা।
    """

    step: int
    micro_steps: int
    scale: float | None
    new_scale: float | None
    skipped: bool
    messages: list = field(default_factory=list)


class LossScaleLog:
    """প্রতিটি engine.step()-এর পরে record() ডাকো; accumulation-এর সীমানার step-গুলোর সারণি জমে (পাঠ ০৫)।

    পড়া হয় DeepSpeed-এর নিজের অবস্থা থেকে: engine.global_steps, engine.micro_steps, engine.skipped_steps
    (engine._take_model_step() optimizer.overflow দেখে বাড়ায়) আর loss_scale_of(engine)। capture_messages=True
    হলে DeepSpeed-এর overflow-বার্তাও ("[deepspeed] OVERFLOW! Rank 0 Skipping step. ...") ধরে রাখে, পর্দায় বাড়তি
    কিছু না ছাপিয়ে; close() (বা with-block শেষ) logger-কে আগের অবস্থায় ফেরায়।
    """

    def __init__(self, engine, capture_messages: bool = True):
        self.engine = engine
        self.rows: list[LossScaleRow] = []
        self._scale = loss_scale_of(engine)
        self._global = engine.global_steps
        self._skipped = engine.skipped_steps
        self._catcher = self._logger = self._old_level = None
        if capture_messages:
            self._logger = logging.getLogger("DeepSpeed")
            self._old_level = self._logger.level
            self._catcher = _MessageCatcher()
            self._logger.addHandler(self._catcher)
            self._logger.setLevel(logging.INFO)   # পর্দার handler-গুলোর নিজের স্তর (WARNING) বদলায় না

    def record(self) -> LossScaleRow | None:
        """engine.step()-এর ঠিক পরে ডাকো। সীমানার step হলে নতুন সারি ফেরত দেয়, নইলে None।"""
        engine = self.engine
        if self._catcher is not None:             # নতুন initialize logger-এর স্তর বদলে দিতে পারে
            self._logger.setLevel(logging.INFO)
            self._catcher.setLevel(logging.INFO)
        if engine.global_steps == self._global:
            return None
        new_scale = loss_scale_of(engine)
        skipped = engine.skipped_steps > self._skipped
        messages = []
        if self._catcher is not None:
            messages, self._catcher.messages = self._catcher.messages, []
        row = LossScaleRow(engine.global_steps, engine.micro_steps, self._scale, new_scale, skipped, messages)
        self.rows.append(row)
        self._scale, self._global, self._skipped = new_scale, engine.global_steps, engine.skipped_steps
        return row

    # সহজে আঁকা আর মেলানোর জন্য
    @property
    def steps(self) -> list:
        return [r.step for r in self.rows]

    @property
    def scales(self) -> list:
        return [r.scale for r in self.rows]

    @property
    def overflows(self) -> list:
        return [r.skipped for r in self.rows]

    @property
    def skipped_steps(self) -> list:
        return [r.step for r in self.rows if r.skipped]

    @property
    def messages(self) -> list:
        return [m for r in self.rows for m in r.messages]

    def as_dicts(self) -> list[dict]:
        return [asdict(r) for r in self.rows]

    def close(self) -> None:
        if self._catcher is not None:
            self._logger.removeHandler(self._catcher)
            self._logger.setLevel(self._old_level)
            self._catcher = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __str__(self) -> str:
        lines = [f"{'step':>5} {'micro':>6} {'scale':>12} {'পরের scale':>12}  বাদ?"]
        for r in self.rows:
            scale = "—" if r.scale is None else f"{r.scale:g}"
            new = "—" if r.new_scale is None else f"{r.new_scale:g}"
            lines.append(f"{r.step:>5} {r.micro_steps:>6} {scale:>12} {new:>12}  {'হ্যাঁ' if r.skipped else 'না'}")
        return "\n".join(lines)


# ---------------------------------------------------------------- মেমরির হিসাব

def _unique_bytes(tensors) -> int:
    seen, total = set(), 0
    for t in tensors:
        if t is None or not isinstance(t, torch.Tensor) or t.numel() == 0:
            continue
        key = (t.device, t.data_ptr())
        if key in seen:
            continue
        seen.add(key)
        total += t.numel() * t.element_size()
    return total


def model_state_bytes(engine) -> dict:
    """এই process-এ engine-এর "model state" কত বাইট — tensor গুনে, CPU-তেও চলে (পাঠ ০৫)।

    params: মডেলের 16-বিট (বা FP32) ওজন; master_weights: optimizer যে FP32 কপি হালনাগাদ করে (ZeRO-তে এই
    process-এর ভাগটুকু); optimizer_states: Adam-এর exp_avg আর exp_avg_sq; grads: এই মুহূর্তে মডেলের .grad-এ যা
    আছে (backward-এর পরে আর step-এর আগে ডাকলে দেখা যায়; step-এর পরে শূন্য)। একই tensor দুবার গোনা হয় না
    (যেমন TinyGPT-এর বাঁধা embedding)।
    """
    params = list(engine.module.parameters())
    basic = getattr(engine, "basic_optimizer", None) or engine.optimizer
    master = [p for g in basic.param_groups for p in g["params"]]
    param_ptrs = {p.data_ptr() for p in params}
    master = [p for p in master if p.data_ptr() not in param_ptrs]     # FP32 engine-এ master = মডেলের ওজন নিজেই
    states = [v for s in basic.state.values() for v in s.values() if isinstance(v, torch.Tensor) and v.dim() > 0]
    grads = [p.grad for p in params]
    out = {"params": _unique_bytes(params), "master_weights": _unique_bytes(master),
           "optimizer_states": _unique_bytes(states), "grads": _unique_bytes(grads)}
    out["total"] = sum(out.values())
    return out


def zero_model_state_bytes(num_params: int, stage: int, world_size: int = 1, param_bytes: int = 2,
                           grad_bytes: int = 2, optimizer_bytes: int = 12) -> dict:
    """ZeRO প্রবন্ধের (Rajbhandari et al. 2020) হিসাব: প্রতি GPU-তে model state কত বাইট (পাঠ ০৫)।

    mixed precision Adam: 16-বিট ওজন 2Ψ, 16-বিট gradient 2Ψ, optimizer-এর অবস্থা KΨ (K = 12: FP32 মূল ওজন 4
    + momentum 4 + variance 4)। মোট 16Ψ। N GPU-তে: stage 1 optimizer state ভাগ করে (4Ψ + 12Ψ/N), stage 2
    gradient-ও (2Ψ + 14Ψ/N), stage 3 ওজনও (16Ψ/N)। stage 0 কিছুই ভাগ করে না।
    """
    if isinstance(stage, bool) or stage not in ZERO_STAGES:
        raise DeepSpeedConfigError(f"অচেনা ZeRO stage {stage!r} (unknown ZeRO stage); চলে 0, 1, 2 বা 3।")
    n = _positive_int(world_size, "world_size")
    psi = _positive_int(num_params, "num_params")
    parts = {"params": param_bytes * psi, "grads": grad_bytes * psi, "optimizer_states": optimizer_bytes * psi}
    shard = {0: (), 1: ("optimizer_states",), 2: ("optimizer_states", "grads"),
             3: ("optimizer_states", "grads", "params")}[stage]
    out = {k: (v / n if k in shard else v) for k, v in parts.items()}
    out["total"] = sum(out.values())
    return out
