"""DeepSpeed-এর config আর ZeRO-র মেমরির হিসাব, DeepSpeed import না করেই (পাঠ ০৫)।

    from mishran.engines import deepspeed_config
    config = deepspeed_config.config_for_device(micro_batch=8, accumulation_steps=4)   # এই device দেখে FP16 বা BF16
    deepspeed_config.validate_config(config)                  # নিজের লেখা config-ও DeepSpeed-এর আগে যাচাই
    deepspeed_config.zero_model_state_bytes(7_500_000_000, stage=2, world_size=64)

precision-এর নাম, 'auto'-র নিয়ম আর config-এ তার block আসে mishran.precision থেকে; এখানে DeepSpeed-এর নিজের নিয়ম।
deepspeed import হয় শুধু cpu_supports_fp16 আর zero_estimates-এর ভেতরে, cpu_accelerator_if_no_gpu()-এর পরে।
"""
from __future__ import annotations

import copy
import importlib.util
import os
import sys
import warnings

import torch

from mishran.checks import device_type, finite_float, positive_int
from mishran.precision import check as check_precision
from mishran.precision import ds_block, from_ds_config, needs_loss_scaling
from mishran.precision import resolve as resolve_precision

__all__ = ["ZERO_STAGES", "FP16_DEFAULTS", "FP16_STAGE0_WARNING", "ACCUMULATION_STAGE0_WARNING", "FP32_SUMS",
           "ADAMW", "DeepSpeedConfigError", "cpu_accelerator_if_no_gpu", "cpu_supports_fp16", "config_for_device",
           "validate_config", "zero_model_state_bytes", "zero_estimates"]

ZERO_STAGES = (0, 1, 2, 3)
"""DeepSpeed-এর ZeRO stage: 0 (বন্ধ), 1 (optimizer state ভাগ), 2 (+ gradient), 3 (+ ওজন) (পাঠ ০৫)।"""

ADAMW = {"betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}
"""কোর্সের AdamW-এর betas, eps আর weight_decay (torch.optim.AdamW-এর ডিফল্ট): DeepSpeed-এর নিজের optimizer block,
deepspeed_engine.initialize-এর torch AdamW আর multi_gpu-র FSDP2-এর পথ — সবাই এগুলোই নেয়।"""

# DeepSpeed-এর fp16 block-এর ডিফল্ট (deepspeed/runtime/precision_config.py, DeepSpeedFP16Config), সব key স্পষ্ট লেখা,
# যাতে পাঠে প্রতিটির মানে বলা যায়।
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

FP16_STAGE0_WARNING = (
    "FP16 আর ZeRO stage 0 একসঙ্গে: DeepSpeed 0.19.8-এ এখানে engine.backward() loss-কে loss scale দিয়ে গুণ করে না, "
    "কিন্তু engine.step() gradient-কে সেই scale দিয়ে ভাগ করে — ছোট gradient underflow থেকে বাঁচে না, আর হালনাগাদ "
    "scale গুণ ছোট হয় (fp16 with ZeRO stage 0: the loss is not scaled in engine.backward; DeepSpeed PR #8393)। "
    "zero_stage=1 নাও: loss scaling ঠিক চলে, আর এক GPU-তে মেমরি প্রায় একই।")

ACCUMULATION_STAGE0_WARNING = (
    "{name} আর ZeRO stage 0, accumulation {k}: DeepSpeed 0.19.8 এখানে micro-step-গুলোর gradient জমায় মডেলের "
    "নিজের dtype-এ ({name}-এর .grad-এ), প্রতিটি যোগে {name}-এর rounding জমে; stage 0-তে "
    "data_types.grad_accum_dtype = 'fp32' সে নেয়ই না ('unsupported mix of model_dtype and grad_accum_dtype')। "
    "(gradients accumulate in {name} with ZeRO stage 0) zero_stage=1 নাও, বা zero_stage না দিলে config_for_device "
    "নিজেই stage 1 নেয় আর FP32-এ জমায় (data_types.grad_accum_dtype = 'fp32'); দাম প্রতি ওজনে FP32 gradient-এর "
    "৪ বাইট।")

FP32_SUMS = {"data_types": {"grad_accum_dtype": "fp32"}, "communication_data_type": "fp32"}
"""16-বিট engine-এ accumulation > 1 হলে config-এ যা যোগ হয় (পাঠ ০৫): gradient জমে FP32-এ, আর সীমানায়
reduce-এর আগে DeepSpeed সেটিকে communication_data_type-এ (ডিফল্ট মডেলের dtype) বদলায় — এক process-এও; তাই সেটাও FP32।
কয়েকটি process-এ (world_size > 1) config_for_device accumulation যা-ই হোক communication_data_type FP32 করে।"""

_BOTH_16_BIT = ("FP16 আর BF16 একসঙ্গে চালু করা যায় না (fp16 and bf16 cannot both be enabled): মডেলের ওজন একটাই "
                "16-বিট ফরম্যাটে থাকে। একটা বেছে নাও — precision='fp16' (loss scaling-সহ) বা precision='bf16'।")


class DeepSpeedConfigError(ValueError):
    """DeepSpeed-এর আগেই ধরা config-এর ভুল, বাংলা আর ইংরেজিতে (পাঠ ০৫)।"""


# ---------------------------------------------------------------- config

def _device(device) -> str:
    """None (এই যন্ত্র), 'cpu', 'cuda', 'cuda:1' বা torch.device → 'cpu'/'cuda'।"""
    if device is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device_type(device, error=DeepSpeedConfigError)


def _positive(value, name: str) -> int:
    return positive_int(value, name, DeepSpeedConfigError)


def _finite(value, name: str, minimum: float | None = None) -> float:
    """সসীম ধনাত্মক সংখ্যা (minimum দিলে ≥ minimum), নইলে DeepSpeedConfigError।"""
    try:
        return finite_float(value, name, minimum, positive=minimum is None)
    except (TypeError, ValueError) as err:
        raise DeepSpeedConfigError(str(err)) from None


def _world_size(world_size) -> int:
    return _positive(int(os.environ.get("WORLD_SIZE", "1")) if world_size is None else world_size, "world_size")


def _precision_name(name) -> str:
    """'auto' (বা None) কিংবা একটি চেনা precision; ('fp16', 'bf16') বা 'fp16+bf16' চাইলে আলাদা বার্তা।"""
    parts = {str(p).lower() for p in name} if isinstance(name, (list, tuple, set)) else \
        {p for p in ("fp16", "bf16") if p in str(name).lower()}
    if {"fp16", "bf16"} <= parts:
        raise DeepSpeedConfigError(_BOTH_16_BIT)
    return check_precision(name, allow_auto=True, error=DeepSpeedConfigError)


def config_for_device(micro_batch: int, accumulation_steps: int = 1, world_size: int | None = None,
                      zero_stage: int | None = None, precision: str | None = None, lr: float = 1e-3,
                      optimizer: str | None = None, train_batch_size: int | None = None,
                      device: str | None = None, capability=None, fp16_options: dict | None = None,
                      gradient_clipping: float | None = None, bucket_size: int = 20_000_000,
                      log_level: str = "warning") -> dict:
    """এই device-এর জন্য একটি DeepSpeed config dict, DeepSpeed-এর আগেই যাচাই করা (পাঠ ০৫)।

    - micro_batch: প্রতি GPU-তে একবারে কয়টি নমুনা; accumulation_steps: কয়টি micro-batch-এ একটি optimizer step;
      world_size: কয়টি process (না দিলে env-এর WORLD_SIZE, নইলে ১)। train_batch_size = এই তিনের গুণফল; দিলে মিলতে হবে।
    - precision: None বা 'auto' হলে device দেখে (mishran.precision.resolve): T4-এ 'fp16', A100/H100/CPU-তে 'bf16'।
    - zero_stage: None হলে FP32-এ 0; FP16-এ 1, কারণ DeepSpeed 0.19.8-এ stage 0-তে engine.backward() loss-কে scale
      করে না, অথচ step() gradient-কে scale দিয়ে ভাগ করে (PR #8393); BF16-এ 0, কিন্তু accumulation > 1 হলে 1, কারণ
      stage 0 gradient জমায় BF16-এ। নিজে 0 দিলে সতর্কবার্তা। ১৬-বিটে accumulation > 1 আর stage 1–3 হলে FP32_SUMS
      যোগ হয় (দাম: FP32 gradient-এর buffer আর দ্বিগুণ বাইটের যোগাযোগ); ১৬-বিটে world_size > 1 হলে যেকোনো stage-এ
      অন্তত communication_data_type = 'fp32' (GPU-গুলোর যোগ ১৬ বিটে হলে প্রতিটি ধাপে rounding জমে, পাঠ ০৯)।
    - optimizer: None হলে deepspeed_engine.initialize() একটি torch.optim.AdamW বানায়, কিছুই compile হয় না;
      'Adam'/'AdamW' দিলে DeepSpeed-এর FusedAdam (GPU-তে প্রথমবার JIT compile, ~১ মিনিট)।
    - fp16_options: fp16 block-এর key বদলাতে, যেমন {"initial_scale_power": 32}। bucket_size: ZeRO 1/2-এর
      gradient bucket (উপাদান); DeepSpeed-এর ডিফল্ট 5e8 (16 বিটে ১ GB) আমাদের মডেলের চেয়েও বড়।
    ভুল হলে DeepSpeedConfigError (বাংলা + ইংরেজি)।
    """
    micro = _positive(micro_batch, "micro_batch")
    accum = _positive(accumulation_steps, "accumulation_steps")
    world = _world_size(world_size)
    device = "cuda" if capability is not None else _device(device)
    name = resolve_precision(_precision_name(precision), device, capability)
    zero_stage = _default_zero_stage(name, zero_stage, accum)
    config = {
        "train_batch_size": micro * accum * world if train_batch_size is None else train_batch_size,
        "train_micro_batch_size_per_gpu": micro,
        "gradient_accumulation_steps": accum,
        **_precision_block(name, fp16_options),
        "zero_optimization": _zero_block(zero_stage, bucket_size),
    }
    if name != "fp32" and accum > 1 and zero_stage > 0:
        config.update(copy.deepcopy(FP32_SUMS))
    if name != "fp32" and world > 1:
        config["communication_data_type"] = "fp32"
    if gradient_clipping is not None:
        config["gradient_clipping"] = _finite(gradient_clipping, "gradient_clipping")
    if optimizer is not None:
        config["optimizer"] = _optimizer_block(optimizer, lr)
    config["log_level"] = log_level
    validate_config(config, world_size=world, device=device)
    return config


def _zero_stage(stage) -> int:
    """ZeRO stage 0–3 (bool নয়) হলে সেটাই, নইলে বাংলা + ইংরেজি বার্তায় ভুল।"""
    if isinstance(stage, bool) or not isinstance(stage, int) or stage not in ZERO_STAGES:
        raise DeepSpeedConfigError(f"অচেনা ZeRO stage {stage!r} (unknown ZeRO stage); চলে 0 (ZeRO বন্ধ), "
                                   "1 (optimizer state ভাগ), 2 (+ gradient ভাগ), 3 (+ ওজন ভাগ)।")
    return stage


def _default_zero_stage(name: str, zero_stage: int | None, accum: int) -> int:
    """না দিলে: FP16-এ, আর ১৬-বিটে accumulation > 1 হলে 1, নইলে 0; নিজে 0 দিলে সেই কারণগুলোর সতর্কবার্তা।"""
    sums_in_16_bit = name != "fp32" and accum > 1
    if zero_stage is None:
        return 1 if needs_loss_scaling(name) or sums_in_16_bit else 0
    _zero_stage(zero_stage)
    if zero_stage == 0 and needs_loss_scaling(name):
        warnings.warn(FP16_STAGE0_WARNING, stacklevel=3)          # config_for_device-এর caller-এর লাইন দেখায়
    if zero_stage == 0 and sums_in_16_bit:
        warnings.warn(ACCUMULATION_STAGE0_WARNING.format(name=name.upper(), k=accum), stacklevel=3)
    return zero_stage


def _precision_block(name: str, fp16_options: dict | None) -> dict:
    """precision-এর block (mishran.precision.ds_block); loss scaling লাগলে তাতে FP16_DEFAULTS আর fp16_options।"""
    block = ds_block(name)
    if not needs_loss_scaling(name):
        if fp16_options:
            raise DeepSpeedConfigError(f"fp16_options দেওয়া হয়েছে, কিন্তু precision={name!r} (fp16 options "
                                       "without fp16); loss scaling-এর এই key-গুলো শুধু FP16-এ খাটে।")
        return block
    unknown = set(fp16_options or {}) - set(FP16_DEFAULTS)
    if unknown:
        raise DeepSpeedConfigError(f"fp16 block-এ অচেনা key {sorted(unknown)} (unknown fp16 keys); চেনা key: "
                                   f"{', '.join(FP16_DEFAULTS)}")
    return {key: {**FP16_DEFAULTS, **value, **(fp16_options or {})} for key, value in block.items()}


def _zero_block(stage: int, bucket_size) -> dict:
    """zero_optimization block: stage, আর stage 1–3-এ gradient (ও 1/2-এ ওজন) পাঠানোর bucket-এর মাপ।"""
    zero = {"stage": stage}
    if stage > 0:
        zero["reduce_bucket_size"] = _positive(bucket_size, "bucket_size")
    if stage in (1, 2):
        zero["allgather_bucket_size"] = zero["reduce_bucket_size"]
    return zero


def _optimizer_block(optimizer: str, lr) -> dict:
    """DeepSpeed-এর নিজের optimizer-এর block ('Adam' বা 'AdamW', GPU-তে FusedAdam)।"""
    if optimizer not in ("Adam", "AdamW"):
        raise DeepSpeedConfigError(f"optimizer হবে None (torch.optim.AdamW, compile ছাড়া), 'Adam' বা 'AdamW' "
                                   f"(DeepSpeed-এর FusedAdam); পেয়েছি {optimizer!r}")
    return {"type": optimizer, "params": {"lr": _finite(lr, "lr"), **ADAMW, "betas": list(ADAMW["betas"])}}


# torch.cuda ছাড়া আর যে accelerator-গুলো DeepSpeed নিজে খোঁজে, তাদের প্যাকেজ (এর কোনোটি থাকলে বাছাই DeepSpeed-এর)
_OTHER_ACCELERATOR_PACKAGES = ("torch_npu", "torch_sdaa", "habana_frameworks", "torch_mlu", "torch_supa", "torch_xmlir")


def cpu_accelerator_if_no_gpu() -> bool:
    """deepspeed import-এর ঠিক আগে: GPU-হীন যন্ত্রে DS_ACCELERATOR=cpu বসায়, যাতে DeepSpeed "Setting accelerator to
    CPU" সতর্কবার্তা না ছাপে; শুধু যখন DeepSpeed নিজেও CPU বাছত (কেউ DS_ACCELERATOR দেয়নি, deepspeed import হয়নি,
    কোনো GPU বা অন্য accelerator নেই)। বসালে True (পাঠ ০৫, ০৬)।
    """
    if "DS_ACCELERATOR" in os.environ or "deepspeed" in sys.modules or torch.cuda.is_available():
        return False
    xpu = getattr(torch, "xpu", None)
    if (xpu is not None and xpu.is_available()) or torch.backends.mps.is_available():
        return False
    if any(importlib.util.find_spec(name) is not None for name in _OTHER_ACCELERATOR_PACKAGES):
        return False
    os.environ["DS_ACCELERATOR"] = "cpu"
    return True


def cpu_supports_fp16() -> bool:
    """এই CPU-তে DeepSpeed FP16 চালাতে পারে কি না — DeepSpeed-এর নিজের CPU accelerator-কে জিজ্ঞেস করে (পাঠ ০৫)।

    অনেক CPU-তে পারে না; AVX512-FP16 বা AMX-FP16 আছে এমন নতুন Intel Xeon-এ পারে (oneDNN-এর FP16)।
    deepspeed ইনস্টল না থাকলে False (তাহলে DeepSpeed চলেই না)।
    """
    cpu_accelerator_if_no_gpu()
    try:
        from deepspeed.accelerator import get_accelerator
        from deepspeed.accelerator.cpu_accelerator import CPU_Accelerator
    except ImportError:
        return False
    accelerator = get_accelerator()                  # DeepSpeed-এর CPU accelerator চালু থাকলে ঠিক সেটিকেই জিজ্ঞেস করি
    if accelerator.device_name() != "cpu":
        accelerator = CPU_Accelerator()
    return torch.float16 in accelerator.supported_dtypes()


def validate_config(config: dict, world_size: int | None = None, device: str | None = None) -> dict:
    """একটি DeepSpeed config (নিজের লেখা হলেও) DeepSpeed-এর আগে যাচাই; ভুলে DeepSpeedConfigError (পাঠ ০৫)।

    দেখে: ব্যাচের হিসাব, FP16 চালাতে না-পারা CPU-তে FP16, FP16 আর BF16 একসঙ্গে, অচেনা ZeRO stage, stage 0-তে অন্য
    grad_accum_dtype। ফেরত {"train_batch_size", "micro_batch", "accumulation_steps", "world_size"}।
    """
    if not isinstance(config, dict):
        raise DeepSpeedConfigError(f"config হবে একটি dict (a DeepSpeed config dict); পেয়েছি {type(config).__name__}। "
                                   "config ছাড়া deepspeed.initialize চলে না।")
    world = _world_size(world_size)
    train, micro, accum = _batch_numbers(config, world)
    name = from_ds_config(config, error=DeepSpeedConfigError)        # block dict কি না, দুটি একসঙ্গে কি না
    if _device(device) == "cpu" and name == "fp16" and not cpu_supports_fp16():
        raise DeepSpeedConfigError("অনেক CPU-তে FP16 চলে না, এটিতেও নয় (fp16 is not supported on many CPUs, this one "
                                   "included): DeepSpeed-এর CPU accelerator বলবে 'Type fp16 is not supported on your "
                                   "device.'। CPU-তে BF16 নাও (\"bf16\": {\"enabled\": true}), অথবা GPU-তে চালাও।")
    zero = config.get("zero_optimization", {})
    if not isinstance(zero, dict):
        raise DeepSpeedConfigError('config-এর "zero_optimization" হবে একটি dict, যেমন {"stage": 1} '
                                   f'("zero_optimization" must be a dict); পেয়েছি {zero!r}')
    _accumulation_dtype(config, name, _zero_stage(zero.get("stage", 0)))
    return {"train_batch_size": train, "micro_batch": micro, "accumulation_steps": accum, "world_size": world}


# DeepSpeed-এর DtypeEnum যে বানানগুলো চেনে (deepspeed/runtime/config.py)
_DTYPE_SPELLINGS = {"fp32": ("fp32", "float32", "float", "torch.float32"),
                    "fp16": ("fp16", "float16", "half", "torch.float16"),
                    "bf16": ("bf16", "bfloat16", "torch.bfloat16")}


def _accumulation_dtype(config: dict, name: str, stage: int) -> None:
    """ZeRO stage 0-তে DeepSpeed gradient জমায় শুধু মডেলের dtype-এ; অন্য grad_accum_dtype দিলে আগেই বলি।"""
    data_types = config.get("data_types") or {}
    wanted = data_types.get("grad_accum_dtype") if isinstance(data_types, dict) else None
    if wanted is None or stage != 0:
        return
    if next((n for n, spellings in _DTYPE_SPELLINGS.items() if str(wanted) in spellings), None) != name:
        raise DeepSpeedConfigError(
            f"ZeRO stage 0-তে gradient জমে শুধু মডেলের dtype-এ ({name}); grad_accum_dtype {wanted!r} DeepSpeed নেয় না "
            "(unsupported mix of model_dtype and grad_accum_dtype)। FP32-এ জমাতে ZeRO stage 1–3 নাও: "
            '"zero_optimization": {"stage": 1}।')


def _batch_numbers(config: dict, world: int) -> tuple[int, int, int]:
    """(train_batch_size, micro, accumulation): দুটি দিলে তৃতীয়টি DeepSpeed-এর মতো বের করা, তিনটি দিলে মেলানো।"""
    keys = ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")
    train, micro, accum = (None if config.get(key) is None else _positive(config[key], key) for key in keys)
    if train is None and micro is None:
        raise DeepSpeedConfigError("train_batch_size বা train_micro_batch_size_per_gpu — অন্তত একটি দাও (either "
                                   "train_batch_size or train_micro_batch_size_per_gpu is required)।")
    rest = 0
    if micro is None:
        accum = accum or 1
        micro, rest = divmod(train, accum * world)
    elif accum is None:
        accum, rest = divmod(train, micro * world) if train is not None else (1, 0)
    if train is None:
        train = micro * accum * world
    if rest or micro < 1 or accum < 1 or train != micro * accum * world:
        raise DeepSpeedConfigError(
            f"ব্যাচের হিসাব মেলেনি (batch arithmetic does not add up): train_batch_size {train} ≠ "
            f"micro_batch {micro} × gradient_accumulation_steps {accum} × world_size {world} = "
            f"{micro * accum * world}। নিয়ম: train_batch_size = train_micro_batch_size_per_gpu × "
            "gradient_accumulation_steps × GPU-র সংখ্যা। যেকোনো দুটি দিলে DeepSpeed তৃতীয়টি বের করে; "
            "তিনটিই দিলে মিলতে হবে।")
    return train, micro, accum


# ---------------------------------------------------------------- মেমরির হিসাব

def zero_model_state_bytes(num_params: int, stage: int, world_size: int = 1, param_bytes: int = 2,
                           grad_bytes: int = 2, optimizer_bytes: int = 12) -> dict:
    """ZeRO প্রবন্ধের (Rajbhandari et al. 2020) হিসাব: প্রতি GPU-তে model state কত বাইট (পাঠ ০৫)।

    mixed precision Adam: 16-বিট ওজন 2Ψ, 16-বিট gradient 2Ψ, optimizer-এর অবস্থা KΨ (K = 12: FP32 মূল ওজন 4
    + momentum 4 + variance 4)। মোট 16Ψ। N GPU-তে: stage 1 optimizer state ভাগ করে (4Ψ + 12Ψ/N), stage 2
    gradient-ও (2Ψ + 14Ψ/N), stage 3 ওজনও (16Ψ/N)। stage 0 কিছুই ভাগ করে না।
    """
    _zero_stage(stage)
    n = _positive(world_size, "world_size")
    psi = _positive(num_params, "num_params")
    sizes = (("params", "param_bytes", param_bytes), ("grads", "grad_bytes", grad_bytes),
             ("optimizer_states", "optimizer_bytes", optimizer_bytes))
    shared = ("optimizer_states", "grads", "params")[:stage]         # stage 1: optimizer state, 2: + grads, 3: + ওজন
    out = {key: psi * _finite(size, name, minimum=0) / (n if key in shared else 1) for key, name, size in sizes}
    out["total"] = sum(out.values())
    return out


def zero_estimates(num_params: int, num_gpus: int, largest_layer_params: int = 0) -> dict:
    """ZeRO stage 0–3-এ প্রতি GPU-র model state: প্রবন্ধের হিসাব আর DeepSpeed-এর নিজের estimator (পাঠ ০৬)।

    DeepSpeed-এর ZeRO-2 estimator (offload ছাড়া) 2Ψ + 18Ψ/N গোনে — gradient-এর একটি FP32 কপিও (4Ψ/N) ধরে;
    ZeRO-3-এর 18Ψ/N + সবচেয়ে বড় স্তরের 4 বাইট/ওজন। ফেরত {stage: {"paper": বাইট, "deepspeed": বাইট বা None}}।
    """
    cpu_accelerator_if_no_gpu()
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    out = {stage: {"paper": zero_model_state_bytes(num_params, stage, num_gpus)["total"], "deepspeed": None}
           for stage in ZERO_STAGES}
    out[2]["deepspeed"] = estimate_zero2_model_states_mem_needs(num_params, num_gpus_per_node=num_gpus,
                                                                cpu_offload=False)[1]
    out[3]["deepspeed"] = estimate_zero3_model_states_mem_needs(num_params, largest_layer_params,
                                                                num_gpus_per_node=num_gpus, cpu_offload=False,
                                                                cpu_offload_params=False, zero_init=True)[1]
    return out
