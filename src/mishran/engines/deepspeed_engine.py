"""DeepSpeed নোটবুকে (পাঠ ০৫): এক-process সেটআপ, engine চালু আর ছাড়া, আর loss scale-এর খাতা।

DeepSpeed-এর launcher (`deepspeed --num_gpus N train.py`) প্রতিটি process-কে RANK, WORLD_SIZE ইত্যাদি দেয়;
নোটবুকে launcher নেই, তাই এখানে:

    from mishran.engines import deepspeed_config, deepspeed_engine
    config = deepspeed_config.config_for_device(micro_batch=8, accumulation_steps=4)   # এই device দেখে FP16 বা BF16
    engine = deepspeed_engine.initialize(model, config)           # env ঠিক করে, আগের engine-এর মেমরি ছেড়ে, নতুন engine
    log = deepspeed_engine.LossScaleLog(engine)
    for x, y in batches:                             # প্রতিটি micro-batch
        _, loss = engine(x, y)
        engine.backward(loss)          # loss-কে নিজেই accumulation_steps দিয়ে ভাগ করে (আর FP16-এ scale করে)
        engine.step()                                # শুধু accumulation-এর সীমানায় optimizer step আর zero_grad
        log.record()

config আর ZeRO-র হিসাব: mishran.engines.deepspeed_config। DeepSpeed-এর ভেতরের অংশ না পেলে বাংলা + ইংরেজি বার্তা।
"""
from __future__ import annotations

import collections
import contextlib
import copy
import gc
import logging
import os
from dataclasses import dataclass, field

import torch

from mishran.checks import as_bool, finite_float
from mishran.engines.deepspeed_config import ADAMW, cpu_accelerator_if_no_gpu, validate_config
from mishran.engines.gloo_workers import free_port
from mishran.engines.model_states import optimizer_state_tensors, unique_tensor_bytes
from mishran.versions import package_version

__all__ = ["setup_single_process", "start_process", "initialize", "release", "forget_torch_autocast", "current_engine",
           "engine_step", "loss_scale_of", "loss_scale_messages", "LossScaleRow", "LossScaleLog", "model_state_bytes",
           "restore_functional_linear", "no_memory_report"]


# ---------------------------------------------------------------- এক process, launcher ছাড়া

_ENGINE = None                                  # শেষ initialize()-এর engine; আবার initialize করলে এটি ছাড়া হয়
# launcher না থাকলে যা বসে; MASTER_PORT: বসানোর সময় একটি খালি port
_ENV = {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": None}


def setup_single_process(backend: str | None = None, cpu_shm_comm: bool = False) -> dict:
    """launcher ছাড়া (নোটবুকে) DeepSpeed-এর distributed অংশ চালু করে; বারবার ডাকলেও ক্ষতি নেই (পাঠ ০৫)।

    _ENV-এর যে variable-গুলো নেই শুধু সেগুলো বসায় (না থাকলে DeepSpeed MPI খোঁজে)। backend: GPU-তে 'nccl', CPU-তে
    'gloo'; CPU-তে DeepSpeed-এর shared-memory op প্রথমবার compile হয় (এক মিনিটের বেশি), cpu_shm_comm=False সেটি
    বন্ধ রাখে — gloo নিজেই সব পারে। ফেরত: {"backend", "env": {...}, "set_here": [এখানে বসানো variable]}।
    """
    cpu_accelerator_if_no_gpu()
    import deepspeed
    import deepspeed.comm as dist

    set_here = [key for key in _ENV if key not in os.environ]
    for key in set_here:
        os.environ[key] = str(free_port()) if key == "MASTER_PORT" else _ENV[key]
    backend = backend or ("gloo" if _accelerator_device() == "cpu" else "nccl")
    if backend == "gloo" and not cpu_shm_comm:
        # deepspeed.comm.torch.build_shm_op() এই তালিকা দেখে; False হলে compile না করে gloo-তেই সব চলে। তালিকা না
        # থাকলে নিজেরাই বসাই (নইলে DeepSpeed সব op-এর জন্য compiler চালিয়ে দেখে): না থাকা op মানে "compatible নয়"।
        ops = vars(deepspeed.ops).setdefault("__compatible_ops__", collections.defaultdict(bool))
        ops["deepspeed_shm_comm"] = False
    if not torch.distributed.is_initialized():
        _forget_stale_groups()
    if not dist.is_initialized():
        deepspeed.init_distributed(dist_backend=backend)
    backend = torch.distributed.get_backend() if torch.distributed.is_initialized() else backend
    return {"backend": backend, "env": {key: os.environ[key] for key in _ENV}, "set_here": set_here}


def start_process(cpu: bool = False) -> tuple[torch.device, str]:
    """একটি process-এর শুরু (পাঠ ০৫, ০৮, ০৯: multi_gpu আর capstone): device বাছে, process group চালু করে; ফেরত
    (device, backend)। GPU থাকলে আর cpu=False হলে LOCAL_RANK-এর GPU আর nccl; নইলে CPU আর gloo।
    """
    use_cuda = torch.cuda.is_available() and not cpu
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    local_size = int(os.environ.get("LOCAL_SIZE") or os.environ.get("LOCAL_WORLD_SIZE") or "1")  # deepspeed, torchrun
    if use_cuda:
        torch.cuda.set_device(local_rank)
        torch.cuda.reset_peak_memory_stats()
    elif local_size > 1 and "OMP_NUM_THREADS" not in os.environ:
        # CPU-তে কয়েকটি process একই core ভাগ করে; প্রত্যেকে সব core নিলে তারা একে অপরের জন্য অপেক্ষা করে
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // local_size))
    info = setup_single_process(backend="nccl" if use_cuda else "gloo")
    return (torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")), info["backend"]


def _forget_stale_groups() -> None:
    """deepspeed.utils.groups-এর মনে রাখা process group খালি করে: destroy_process_group()-এর পরে সেগুলো মৃত group
    দেখায়, আর নতুন engine "Group ... is not registered" বলে থামে (একই kernel-এ আবার শুরু)।"""
    from deepspeed.utils import groups

    for name, value in list(vars(groups).items()):
        if name.startswith("_") and name.endswith(("_GROUP", "_GROUP_RANKS")):
            setattr(groups, name, {} if isinstance(value, dict) else None)


def _accelerator_device() -> str:
    """DeepSpeed কোন accelerator-এ চলছে: 'cpu' বা 'cuda' (DS_ACCELERATOR=cpu দিলে GPU থাকলেও CPU)।"""
    from deepspeed.accelerator import get_accelerator
    return "cpu" if get_accelerator().device_name() == "cpu" else "cuda"


def current_engine():
    """শেষবার initialize() যে engine দিয়েছিল (না থাকলে None) (পাঠ ০৫)।"""
    return _ENGINE


def release(engine=None) -> None:
    """একটি engine-এর মেমরি ছেড়ে দেয়: engine.destroy(), optimizer আর মডেলের reference মুছে, gc, empty_cache (পাঠ ০৫)।

    engine না দিলে শেষ initialize()-এর engine। নোটবুকে `engine = ...` ঘর আবার চালালে পুরোনো engine variable-এ
    বাঁধা থাকে; তার FP32 কপি আর Adam-এর অবস্থা (প্রতি ওজনে ১২ বাইট) না ছাড়লে GPU-তে দুই engine-এর মেমরি জমে।
    """
    global _ENGINE
    engine = _ENGINE if engine is None else engine
    if engine is _ENGINE:
        _ENGINE = None
    if engine is None:
        return
    with contextlib.suppress(Exception):   # আধা-তৈরি engine-এ destroy ব্যর্থ হতে পারে; তবু বাকিটা ছাড়ি
        engine.destroy()                  # ZeRO/BF16 optimizer-এর gradient hook সরায়
    _remove_hooks(engine)
    restore_functional_linear()
    _drop_references(engine)
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _remove_hooks(engine) -> None:
    """engine মডেলে যে hook বসায় সেগুলো সরায়: মডেল আবার ব্যবহার হলে পুরোনো engine-এর hook যেন না চলে।"""
    for name in ("module_forward_pre_hook", "module_forward_post_hook", "first_dataloader_check"):
        handle = getattr(engine, name, None)
        if hasattr(handle, "remove"):
            handle.remove()
            setattr(engine, name, None)


def _holds_tensor(value) -> bool:
    """dict (key বা মান) বা list/tuple-এর ভেতরে কোনো tensor আছে কি না।"""
    items = [x for kv in value.items() for x in kv] if isinstance(value, dict) else value
    return any(isinstance(x, torch.Tensor) for x in items)


def _drop_references(engine) -> None:
    """optimizer, scheduler, dataloader, মডেল আর engine-এর attribute-এ থাকা tensor (ও tensor-ভরা dict/list) মোছে।

    engine.param_names-এর মতো dict-এ ওজনগুলো key হয়ে থাকে; সেগুলোও ছাড়ি। '_' দিয়ে শুরু dict DeepSpeed-এর নিজের হিসাব।
    """
    for name in ("optimizer", "basic_optimizer", "client_optimizer", "lr_scheduler", "client_lr_scheduler",
                 "training_dataloader", "module"):
        if hasattr(engine, name):
            with contextlib.suppress(AttributeError, TypeError):
                setattr(engine, name, None)
    if "module" in engine.__dict__:   # DeepSpeedEngine মডেলটি __dict__-এও রাখে
        engine.__dict__["module"] = None
    for name, value in list(vars(engine).items()):
        if isinstance(value, torch.Tensor):
            engine.__dict__[name] = None
        elif isinstance(value, dict) and not name.startswith("_") and _holds_tensor(value):
            engine.__dict__[name] = {}
        elif isinstance(value, (list, tuple)) and _holds_tensor(value):
            engine.__dict__[name] = type(value)()


def initialize(model, config: dict, optimizer=None, lr: float = 1e-3, replace_current: bool = True, **kwargs):
    """নোটবুকে নিরাপদ deepspeed.initialize(): শুধু engine ফেরত দেয় (পাঠ ০৫)।

    ১) setup_single_process(); ২) আগের engine-কে release(), তাই ঘরটা আবার চালানো যায়; ৩) validate_config;
    ৪) optimizer না দিলে আর config-এ "optimizer" না থাকলে torch.optim.AdamW(lr=lr) — কিছু compile হয় না;
    ৫) deepspeed.initialize(..., **kwargs)। replace_current=False: ২) বাদ, আর নতুন engine current_engine() হয় না —
    ছাড়ার দায় ডাকা কোডের (mishran.measure.memory.measure_step এভাবে নিজের engine বানায়)।
    """
    global _ENGINE
    lr = finite_float(lr, "lr", positive=True)
    replace_current = as_bool(replace_current, "replace_current")
    cpu_accelerator_if_no_gpu()
    import deepspeed

    setup_single_process()
    validate_config(config, world_size=int(os.environ.get("WORLD_SIZE", "1")), device=_accelerator_device())
    previous = _ENGINE if replace_current else None
    if previous is not None:
        if optimizer is not None and optimizer in (getattr(previous, "basic_optimizer", None),
                                                   getattr(previous, "client_optimizer", None)):
            raise ValueError("এই optimizer আগের engine-এ ব্যবহার হয়েছে (optimizer already used by an engine): "
                             "DeepSpeed তার param_groups বদলে FP32 কপি বসায়। নতুন optimizer বানাও, বা optimizer=None দাও।")
        release(previous)
    if optimizer is None and "optimizer" not in config:
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr, **ADAMW)         # torch-এর ডিফল্টই, এক জায়গায় লেখা
    forget_torch_autocast(config)
    with no_memory_report():
        engine, *_ = deepspeed.initialize(model=model, optimizer=optimizer, config=copy.deepcopy(config), **kwargs)
    if replace_current:
        _ENGINE = engine
    return engine


def engine_step(engine, micro_batches) -> torch.Tensor:
    """DeepSpeed engine-এর একটি optimizer step: প্রতিটি micro-batch-এ forward, backward, step (পাঠ ০৫, ০৮)।

    micro_batches: এই rank-এর gradient_accumulation_steps-টি (x, y)। engine.backward() নিজেই loss-কে accumulation
    দিয়ে ভাগ করে (FP16-এ scale-ও); engine.step() প্রতিটি micro-batch-এ ডাকতে হয় — optimizer step শুধু সীমানায়।
    ফেরত: loss-গুলোর যোগফল (FP32, device-এ; host-এ আনা হয় না, তাই sync নেই)।
    """
    device = engine.device
    total = torch.zeros((), device=device)
    for x, y in micro_batches:
        _, loss = engine(x.to(device, non_blocking=True), y.to(device, non_blocking=True))
        engine.backward(loss)
        engine.step()
        total += loss.detach().float()
    return total


# ---------------------------------------------------------------- loss scale-এর খাতা

def loss_scale_of(engine) -> float | None:
    """engine এখন loss-কে কত দিয়ে গুণ করছে; FP16 ছাড়া None (BF16/FP32-এ loss scaling নেই) (পাঠ ০৫)।

    ZeRO 0-এর FP16_Optimizer/FP16_UnfusedOptimizer আর ZeRO 1–3-এর optimizer — সবার `loss_scale` property; না থাকলে
    loss_scale_config.cur_scale বা loss_scaler.cur_scale।
    """
    if not engine.fp16_enabled():
        return None
    opt = engine.optimizer
    scale = getattr(opt, "loss_scale", None)
    for holder in ("loss_scale_config", "loss_scaler"):
        if scale is None:
            scale = getattr(getattr(opt, holder, None), "cur_scale", None)
    if scale is None:
        raise _internals_changed(f"{type(opt).__name__}-এর loss scale (loss_scale / loss_scaler.cur_scale)")
    return float(scale)


def _internals_changed(what: str) -> RuntimeError:
    """DeepSpeed-এর ভেতরের যে অংশ এই মডিউল পড়ে, তা না পেলে পরিষ্কার বার্তা।"""
    return RuntimeError(f"DeepSpeed {package_version('deepspeed')}-এ {what} পাওয়া গেল না (DeepSpeed internals "
                        "changed): mishran.engines.deepspeed_engine পরীক্ষা করা হয়েছে DeepSpeed 0.19.8-এ; "
                        "pip install 'deepspeed>=0.19,<0.20' দিয়ে সেই সংস্করণ নাও, বা docs/versions.md দেখো।")


def _engine_counters(engine) -> tuple[int, int, int]:
    """engine-এর তিনটি গোনা: global_steps, micro_steps, skipped_steps (DeepSpeedEngine-এর attribute)।"""
    try:
        return int(engine.global_steps), int(engine.micro_steps), int(engine.skipped_steps)
    except AttributeError as err:
        raise _internals_changed(f"engine.{err.name}") from None


class _MessageCatcher(logging.Handler):
    """DeepSpeed-এর logger-এ বসে overflow আর scale বদলের বার্তা (INFO স্তরেও) জমায়; stop() logger-কে আগের মতো করে।"""

    FILES = {"loss_scaler.py", "fused_optimizer.py", "unfused_optimizer.py"}   # যারা এই বার্তা লেখে

    def __init__(self):
        super().__init__()
        self.messages = []
        self.logger = logging.getLogger("DeepSpeed")
        self.old_level = self.logger.level
        self.logger.addHandler(self)
        self.listen()

    def listen(self) -> None:
        """INFO স্তর আবার বসায়: নতুন engine-এর log_level logger আর তার সব handler-এর স্তর বদলে দেয়।"""
        self.setLevel(logging.INFO)
        self.logger.setLevel(logging.INFO)   # পর্দার handler-গুলোর নিজের স্তর (WARNING) বদলায় না

    def emit(self, record):
        if record.filename in self.FILES:
            self.messages.append(record.getMessage().strip())

    def stop(self) -> None:
        self.logger.removeHandler(self)
        self.logger.setLevel(self.old_level)


@contextlib.contextmanager
def loss_scale_messages():
    """with-block-এর ভেতরে DeepSpeed-এর loss scale-এর বার্তাগুলো (INFO স্তরেও) একটি list-এ জমায় (পাঠ ০৫)।

    যেমন DeepSpeed-এর নিজের DynamicLossScaler-কে হাতে চালালে: `with deepspeed_engine.loss_scale_messages() as lines:
    scaler.update_scale(True)` → lines-এ "[deepspeed] OVERFLOW! Rank 0 Skipping step. ..."। পর্দায় বাড়তি
    কিছু ছাপে না; শেষে logger আগের অবস্থায় ফেরে। বার্তাগুলো আসে শুধু rank 0-তে (DeepSpeed-এর নিজের নিয়ম)।
    """
    catcher = _MessageCatcher()
    try:
        yield catcher.messages
    finally:
        catcher.stop()


@dataclass
class LossScaleRow:
    """LossScaleLog-এর একটি সারি, একটি optimizer step (পাঠ ০৫): step = তখনকার engine.global_steps; scale: এই step-এর
    backward-এ loss-এর scale (FP16 ছাড়া None); new_scale: পরের scale; skipped: inf/NaN-এ step বাদ পড়েছে কি না।"""

    step: int
    micro_steps: int
    scale: float | None
    new_scale: float | None
    skipped: bool
    messages: list = field(default_factory=list)


class LossScaleLog:
    """প্রতিটি engine.step()-এর পরে record() ডাকো; accumulation-এর সীমানার step-গুলোর সারণি জমে (পাঠ ০৫)।

    পড়া হয় DeepSpeed-এর নিজের গোনা (engine.global_steps, micro_steps, skipped_steps) আর loss_scale_of(engine) থেকে।
    capture_messages=True হলে DeepSpeed-এর overflow-বার্তাও ধরে রাখে, পর্দায় না ছাপিয়ে; close() logger ফেরায়।
    """

    def __init__(self, engine, capture_messages: bool = True):
        self.engine = engine
        self.rows: list[LossScaleRow] = []
        self._scale = loss_scale_of(engine)
        self._global, _, self._skipped = _engine_counters(engine)
        self._catcher = _MessageCatcher() if capture_messages else None

    def record(self) -> LossScaleRow | None:
        """engine.step()-এর ঠিক পরে ডাকো। সীমানার step হলে নতুন সারি ফেরত দেয়, নইলে None।"""
        if self._catcher is not None:
            self._catcher.listen()
        global_steps, micro_steps, skipped_steps = _engine_counters(self.engine)
        if global_steps == self._global:
            return None
        new_scale = loss_scale_of(self.engine)
        messages = []
        if self._catcher is not None:
            messages, self._catcher.messages = self._catcher.messages, []
        row = LossScaleRow(global_steps, micro_steps, self._scale, new_scale, skipped_steps > self._skipped, messages)
        self.rows.append(row)
        self._scale, self._global, self._skipped = new_scale, global_steps, skipped_steps
        return row

    @property
    def scales(self) -> list:
        """প্রতিটি step-এর backward-এ loss-এর scale (FP16 ছাড়া None)।"""
        return [r.scale for r in self.rows]

    @property
    def overflows(self) -> list:
        """প্রতিটি step বাদ পড়েছে কি না (gradient-এ inf/NaN)।"""
        return [r.skipped for r in self.rows]

    @property
    def skipped_steps(self) -> list:
        """যে step-গুলো বাদ পড়েছে তাদের নম্বর।"""
        return [r.step for r in self.rows if r.skipped]

    @property
    def messages(self) -> list:
        """ধরা পড়া DeepSpeed-এর সব বার্তা, ক্রমে।"""
        return [m for r in self.rows for m in r.messages]

    def close(self) -> None:
        """DeepSpeed-এর logger-কে আগের অবস্থায় ফেরায়; বারবার ডাকলেও ক্ষতি নেই।"""
        if self._catcher is not None:
            self._catcher.stop()
            self._catcher = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __str__(self) -> str:
        lines = [f"{'step':>5} {'micro':>6} {'scale':>12} {'পরের scale':>12}  বাদ?"]
        for r in self.rows:
            scale, new = ("—" if s is None else f"{s:g}" for s in (r.scale, r.new_scale))
            lines.append(f"{r.step:>5} {r.micro_steps:>6} {scale:>12} {new:>12}  {'হ্যাঁ' if r.skipped else 'না'}")
        return "\n".join(lines)


# ---------------------------------------------------------------- মেমরির হিসাব

def model_state_bytes(engine) -> dict:
    """এই process-এ engine-এর "model state" কত বাইট — tensor গুনে, CPU-তেও চলে (পাঠ ০৫)।

    params: মডেলের ওজন; master_weights: optimizer-এর FP32 কপি (ZeRO-তে এই process-এর ভাগ); optimizer_states:
    Adam-এর exp_avg আর exp_avg_sq; grads: এখন .grad-এ যা আছে (backward-এর পরে, step-এর আগে)। একই tensor দুবার
    গোনা হয় না (যেমন TinyGPT-এর বাঁধা embedding)।
    """
    params = list(engine.module.parameters())
    basic = getattr(engine, "basic_optimizer", None) or engine.optimizer
    param_ptrs = {p.data_ptr() for p in params}            # FP32 engine-এ master = মডেলের ওজন নিজেই: বাদ
    master = [p for g in basic.param_groups for p in g["params"] if p.data_ptr() not in param_ptrs]
    out = {"params": unique_tensor_bytes(params), "master_weights": unique_tensor_bytes(master),
           "optimizer_states": unique_tensor_bytes(optimizer_state_tensors(basic)),
           "grads": unique_tensor_bytes([p.grad for p in params])}
    if engine.zero_optimization_stage() == 3:
        out.update(_zero3_weights(engine))
    out["total"] = out["params"] + out["master_weights"] + out["optimizer_states"] + out["grads"]
    return out


def _zero3_weights(engine) -> dict:
    """ZeRO-3-এ এই rank-এর ওজন আর FP32 master (পাঠ ০৯): DeepSpeed 0.19.8-এ ভাগ-করা ওজনের p.numel() == 0, ভাগটি
    optimizer-এর fp16_partitioned_groups_flat-এ (ছোট parameter সব rank-এ পুরোটা), আর FP32 master
    (fp32_partitioned_groups_flat) param_groups-এ থাকে শুধু step-এর সময়টুকু।"""
    opt = engine.optimizer
    flat16 = getattr(opt, "fp16_partitioned_groups_flat", None)
    flat32 = getattr(opt, "fp32_partitioned_groups_flat", None)
    if flat16 is None or flat32 is None:
        raise _internals_changed(f"{type(opt).__name__}-এর fp16/fp32_partitioned_groups_flat (ZeRO-3-এর ভাগ)")
    params = [p.data for p in engine.module.parameters()] + list(flat16)   # পুরোটা রাখা ছোটগুলো + নিজের ভাগ
    held = unique_tensor_bytes(params)
    return {"params": held, "master_weights": unique_tensor_bytes(params + list(flat32)) - held}


def forget_torch_autocast(config: dict | None = None) -> bool:
    """DeepSpeed-এর torch_autocast-এর process-জোড়া স্মৃতি মোছে, যদি নতুন config torch_autocast না চায় (পাঠ ০৫)।

    DeepSpeed 0.19.8 কোনো engine-এ torch_autocast চালু হলে module-স্তরের একটি flag বসায়
    (deepspeed.runtime.torch_autocast.TORCH_AUTOCAST_INITIALIZED, সঙ্গে dtype) আর কখনো নামায় না। তারপর প্রতিটি
    ZeRO optimizer — ZeRO-1/2 (stage_1_and_2.py) আর ZeRO-3 (stage3.py) — gradient reduce করে ওজনের নিজের dtype-এ,
    config-এর communication_data_type না দেখে; flag-এর dtype FP16 হলে নিজের একটি torch.amp.GradScaler-ও বসায়।
    নোটবুকে (এক Python process, অনেক engine) পরের FP16 engine-এর FP32 যোগফল তাই FP16-এ round হয় (আপেক্ষিক
    ত্রুটি ~2e-4, flag ছাড়া ~1e-9)। initialize প্রতিটি নতুন engine-এর আগে এটা ডাকে। কিছু মুছলে True।
    """
    if ((config or {}).get("torch_autocast") or {}).get("enabled"):
        return False
    try:
        import deepspeed.runtime.torch_autocast as autocast_module
    except ImportError:               # এই flag নেই এমন DeepSpeed: মোছার কিছু নেই
        return False
    if not getattr(autocast_module, "TORCH_AUTOCAST_INITIALIZED", False):
        return False
    autocast_module.TORCH_AUTOCAST_INITIALIZED = False
    autocast_module.TORCH_AUTOCAST_DTYPE = None
    return True


def restore_functional_linear() -> bool:
    """torch.nn.functional.linear-এ torch-এর নিজেরটা ফেরায়; ফেরালে True (পাঠ ০৫, ০৯)। ZeRO-3 engine গোটা process-এ
    নিজের linear বসায় ("This will persist unless manually reset"); থেকে গেলে autograd-এর saved tensor-এর নাম হারায়।"""
    try:
        from deepspeed.runtime.zero.linear import zero3_linear_wrap
        from deepspeed.runtime.zero.partition_parameters import InsertPostInitMethodToModuleSubClasses as patcher
    except ImportError:
        return False
    original = getattr(patcher, "linear_bk", None)
    if original is None or torch.nn.functional.linear is not zero3_linear_wrap:
        return False
    torch.nn.functional.linear = original
    return True


@contextlib.contextmanager
def no_memory_report():
    """engine বানানোর সময়টুকু BF16_Optimizer-এর see_memory_usage(force=True) বন্ধ রাখে (পাঠ ০৫): সেটি সাতবার
    gc.collect() করে, মেমরির লাইন ছাপে আর GPU-র peak memory-র গোনা শূন্য করে — আমাদের মেমরির মাপ ভেঙে দিত।"""
    import deepspeed.runtime.bf16_optimizer as bf16_module

    original = getattr(bf16_module, "see_memory_usage", None)
    if original is not None:
        bf16_module.see_memory_usage = lambda *args, **kwargs: None
    try:
        yield
    finally:
        if original is not None:
            bf16_module.see_memory_usage = original
