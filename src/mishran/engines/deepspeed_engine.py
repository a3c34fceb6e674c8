"""DeepSpeed নোটবুকে (পাঠ ০৫): এক-process সেটআপ, engine চালু আর ছাড়া, আর loss scale-এর খাতা।

DeepSpeed সাধারণত চলে তার launcher দিয়ে (`deepspeed --num_gpus N train.py`), যে প্রতিটি process-কে RANK,
WORLD_SIZE ইত্যাদি environment variable দেয়। নোটবুকে launcher নেই; তাই এখানে:

    from mishran.engines import deepspeed_config, deepspeed_engine
    config = deepspeed_config.config_for_device(micro_batch=8, accumulation_steps=4)   # এই device দেখে FP16 বা BF16
    engine = deepspeed_engine.initialize(model, config)           # env ঠিক করে, আগের engine-এর মেমরি ছেড়ে, নতুন engine
    log = deepspeed_engine.LossScaleLog(engine)
    for x, y in batches:                             # প্রতিটি micro-batch
        _, loss = engine(x, y)
        engine.backward(loss)          # loss-কে নিজেই accumulation_steps দিয়ে ভাগ করে (আর FP16-এ scale করে)
        engine.step()                                # শুধু accumulation-এর সীমানায় optimizer step আর zero_grad
        log.record()

config বানানো আর যাচাই, ZeRO-র মেমরির হিসাব: mishran.engines.deepspeed_config (deepspeed ছাড়াই)। এখানে যেখানে DeepSpeed-এর
ভেতরের অংশ (private attribute) ছোঁয়া হয়, সেখানে না পেলে বাংলা + ইংরেজি বার্তা। এই মডিউল matplotlib বা
ipywidgets import করে না; deepspeed import হয় শুধু যেখানে লাগে।
"""
from __future__ import annotations

import collections
import contextlib
import copy
import gc
import logging
import os
from dataclasses import asdict, dataclass, field

import torch

from mishran.engines.deepspeed_config import ADAMW, cpu_accelerator_if_no_gpu, validate_config
from mishran.engines.gloo_workers import free_port
from mishran.engines.model_states import optimizer_state_tensors, unique_tensor_bytes
from mishran.versions import package_version

__all__ = ["setup_single_process", "start_process", "initialize", "release", "forget_torch_autocast", "current_engine",
           "engine_step", "loss_scale_of", "loss_scale_messages", "LossScaleRow", "LossScaleLog", "model_state_bytes",
           "restore_functional_linear", "no_memory_report"]


# ---------------------------------------------------------------- এক process, launcher ছাড়া

_ENGINE = None                                  # শেষ initialize()-এর engine; আবার initialize করলে এটি ছাড়া হয়


def setup_single_process(backend: str | None = None, cpu_shm_comm: bool = False) -> dict:
    """launcher ছাড়া (নোটবুকে) DeepSpeed-এর distributed অংশ চালু করে; বারবার ডাকলেও ক্ষতি নেই (পাঠ ০৫)।

    RANK=0, WORLD_SIZE=1, LOCAL_RANK=0, MASTER_ADDR=127.0.0.1 আর একটি খালি MASTER_PORT বসায় — শুধু যেগুলো
    আগে থেকে নেই (launcher-এর দেওয়া মান বদলায় না)। এগুলো না থাকলে DeepSpeed MPI খোঁজে (mpi4py)।
    backend: GPU-তে 'nccl', CPU-তে (DeepSpeed-এর CPU accelerator) 'gloo'। CPU-তে DeepSpeed একটি shared-memory
    allreduce op প্রথমবার compile করে (এক মিনিটের বেশি); gloo নিজেই সব পারে, তাই cpu_shm_comm=False সেটি বন্ধ রাখে।
    ফেরত দেয়: {"backend", "env": {...}, "set_here": [যে variable-গুলো এখানে বসানো হলো]}।
    """
    cpu_accelerator_if_no_gpu()
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
    if not torch.distributed.is_initialized():
        _forget_stale_groups()
    if not dist.is_initialized():
        deepspeed.init_distributed(dist_backend=backend)
    env = {k: os.environ[k] for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    backend = torch.distributed.get_backend() if torch.distributed.is_initialized() else backend
    return {"backend": backend, "env": env, "set_here": set_here}


def start_process(cpu: bool = False) -> tuple[torch.device, str]:
    """launcher-এর (বা নোটবুকের) একটি process-এর শুরু: device বাছে আর process group চালু করে; ফেরত (device, backend)
    (পাঠ ০৫, ০৮, ০৯: mishran.engines.multi_gpu আর capstone-এর DeepSpeed-এর পথ)।

    GPU থাকলে আর cpu=False হলে LOCAL_RANK-এর GPU (peak memory-র গোনা নতুন করে), backend nccl; নইলে CPU আর gloo।
    এক যন্ত্রে কয়েকটি CPU process হলে (LOCAL_SIZE বা LOCAL_WORLD_SIZE > 1) প্রত্যেকে core-এর নিজের ভাগ নেয়, যদি না
    OMP_NUM_THREADS দেওয়া থাকে। launcher না থাকলে setup_single_process এক-process-এর env বসায়।
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
    """DeepSpeed-এর মনে রাখা process group ভুলিয়ে দেয় (পাঠ ০৫: একই kernel-এ আবার শুরু)।

    deepspeed.utils.groups নিজের module-এ বানানো group রেখে দেয় (_WORLD_GROUP, _DATA_PARALLEL_GROUP, ...)।
    destroy_process_group()-এর পরে সেগুলো মৃত group-কে দেখায়, আর নতুন engine "Group ... is not registered" বলে
    থামে। তাই torch.distributed চালু না থাকলে (নতুন করে শুরুর আগে) এগুলো খালি করি। DeepSpeed internals:
    নাম না মিললে কিছুই করি না।
    """
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

    engine না দিলে শেষ initialize()-এর engine। নোটবুকে `engine = ...` ঘর আবার চালালে পুরোনো engine ততক্ষণ
    variable-এ বাঁধা থাকে; তার optimizer-এর FP32 কপি আর Adam-এর অবস্থা (প্রতি ওজনে ১২ বাইট) না ছাড়লে GPU-তে
    দুই engine-এর মেমরি জমে। ছাড়ার পরে পুরোনো engine আর চালানো যায় না।
    """
    global _ENGINE
    if engine is not None:
        _engine(engine)
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
    _remove_hooks(engine)
    restore_functional_linear()
    _drop_references(engine)
    _drop_tensors(engine)
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _engine(engine):
    """engine দেখতে DeepSpeed engine কি না (মডেল বা অন্য কিছু দিলে পরিষ্কার বার্তা); engine-এর যা পড়া হয় তা দেখে,
    ধরন দেখে নয়, তাই engine-এর মতো যেকোনো জিনিস চলে।"""
    if not callable(getattr(engine, "fp16_enabled", None)) or not hasattr(engine, "optimizer"):
        raise TypeError(f"engine হবে deepspeed_engine.initialize(...)-এর DeepSpeed engine "
                        f"(engine must be a DeepSpeedEngine); পেয়েছি {engine!r}")
    return engine


def _remove_hooks(engine) -> None:
    """engine মডেলে যে hook বসায় সেগুলো সরায়: মডেল আবার ব্যবহার হলে পুরোনো engine-এর hook যেন না চলে।"""
    for name in ("module_forward_pre_hook", "module_forward_post_hook", "first_dataloader_check"):
        handle = getattr(engine, name, None)
        if handle is not None and hasattr(handle, "remove"):
            handle.remove()
            setattr(engine, name, None)


def _drop_references(engine) -> None:
    """optimizer, scheduler, dataloader আর মডেলের reference মুছে দেয় (যা মোছা যায়)।"""
    for name in ("optimizer", "basic_optimizer", "client_optimizer", "lr_scheduler", "client_lr_scheduler",
                 "training_dataloader", "module"):
        if hasattr(engine, name):
            try:
                setattr(engine, name, None)
            except (AttributeError, TypeError):
                pass
    if "module" in engine.__dict__:   # DeepSpeedEngine মডেলটি __dict__-এও রাখে
        engine.__dict__["module"] = None


def _holds_tensor(value) -> bool:
    """dict (key বা মান) বা list/tuple-এর ভেতরে কোনো tensor আছে কি না।"""
    items = [x for kv in value.items() for x in kv] if isinstance(value, dict) else value
    return any(isinstance(x, torch.Tensor) for x in items)


def _drop_tensors(engine) -> None:
    """engine-এর attribute-এ থাকা tensor, আর tensor-ভরা dict/list খালি করে।

    engine.param_names-এর মতো dict-এ ওজনগুলো key হয়ে থাকে; সেগুলোও ছাড়ি। '_' দিয়ে শুরু dict DeepSpeed-এর
    নিজের হিসাব, সেগুলো রাখি।
    """
    for name, value in list(vars(engine).items()):
        if isinstance(value, torch.Tensor):
            engine.__dict__[name] = None
        elif isinstance(value, dict) and not name.startswith("_") and _holds_tensor(value):
            engine.__dict__[name] = {}
        elif isinstance(value, (list, tuple)) and _holds_tensor(value):
            engine.__dict__[name] = type(value)()


def initialize(model, config: dict, optimizer=None, lr: float = 1e-3, replace_current: bool = True, **kwargs):
    """নোটবুকে নিরাপদ deepspeed.initialize(): শুধু engine ফেরত দেয় (পাঠ ০৫)।

    ১) setup_single_process() — launcher না থাকলে env বসায়; ২) আগের engine থাকলে release() করে তার মেমরি
    ছাড়ে, তাই ঘরটা আবার চালানো যায়; ৩) config যাচাই (validate_config); ৪) optimizer না দিলে আর config-এ
    "optimizer" না থাকলে torch.optim.AdamW(lr=lr) — কিছু compile হয় না; ৫) deepspeed.initialize(...)।
    replace_current=False: ২) বাদ, আর নতুন engine current_engine() হয় না — আগেরটা যেমন ছিল তেমনই চলে; নতুনটি
    ছাড়ার দায় ডাকা কোডের (release(engine))। mishran.measure.memory.measure_step এভাবে নিজের engine বানায়।
    kwargs সোজা deepspeed.initialize-এ যায় (যেমন lr_scheduler)।
    """
    global _ENGINE
    cpu_accelerator_if_no_gpu()
    import deepspeed

    if not isinstance(model, torch.nn.Module) or next(model.parameters(), None) is None:
        raise TypeError(f"model হবে ওজনসহ একটি torch.nn.Module (model must be a torch.nn.Module with parameters); "
                        f"পেয়েছি {model!r}")
    setup_single_process()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    validate_config(config, world_size=world, device=_accelerator_device())
    previous = _ENGINE if replace_current else None
    if previous is not None:
        old_opts = {id(getattr(previous, n, None)) for n in ("basic_optimizer", "client_optimizer")}
        if optimizer is not None and id(optimizer) in old_opts:
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

    micro_batches: (x, y) জোড়ার তালিকা, এই rank-এর, সংখ্যায় config-এর gradient_accumulation_steps।
    engine.backward() নিজেই loss-কে accumulation দিয়ে ভাগ করে (FP16-এ scale-ও করে); engine.step() প্রতিটি
    micro-batch-এ ডাকতে হয় — সে শুধু সীমানায় gradient-এর গড় নেয়, optimizer step দেয় আর gradient মোছে।
    ফেরত: micro-batch-গুলোর loss-এর যোগফল (FP32, device-এ; host-এ আনা হয় না, তাই sync নেই)।
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

    ZeRO stage 0: engine.optimizer হলো FP16_Optimizer (FusedAdam) বা FP16_UnfusedOptimizer (অন্য optimizer);
    দুটোরই `loss_scale` property → loss_scale_config.cur_scale। ZeRO 1/2 (DeepSpeedZeroOptimizer) ও 3:
    `loss_scale` property → loss_scaler.cur_scale।
    """
    if not engine.fp16_enabled():
        return None
    opt = engine.optimizer
    scale = getattr(opt, "loss_scale", None)
    if scale is None and hasattr(opt, "loss_scale_config"):
        scale = getattr(opt.loss_scale_config, "cur_scale", None)
    if scale is None and hasattr(opt, "loss_scaler"):
        scale = getattr(opt.loss_scaler, "cur_scale", None)
    if scale is None:
        raise _internals_changed(f"{type(opt).__name__}-এর loss scale (loss_scale / loss_scaler.cur_scale)")
    return float(scale)


def _internals_changed(what: str) -> RuntimeError:
    """DeepSpeed-এর ভেতরের যে অংশ এই মডিউল পড়ে, তা না পেলে পরিষ্কার বার্তা (পাঠ ০৫)।"""
    return RuntimeError(f"DeepSpeed {package_version('deepspeed')}-এ {what} পাওয়া গেল না (DeepSpeed internals "
                        "changed): mishran.engines.deepspeed_engine পরীক্ষা করা হয়েছে DeepSpeed 0.19.8-এ; "
                        "pip install 'deepspeed>=0.19,<0.20' দিয়ে সেই সংস্করণ নাও, বা docs/versions.md দেখো।")


def _engine_counters(engine) -> tuple[int, int, int]:
    """engine-এর তিনটি গোনা: global_steps, micro_steps, skipped_steps (DeepSpeedEngine-এর attribute)।"""
    try:
        return int(engine.global_steps), int(engine.micro_steps), int(engine.skipped_steps)
    except AttributeError as err:
        raise _internals_changed(f"engine.{err.name}") from None


# DeepSpeed-এর যে ফাইলগুলো overflow আর scale বদলের বার্তা লেখে (logger "DeepSpeed", স্তর INFO)
_SCALE_MESSAGE_FILES = {"loss_scaler.py", "fused_optimizer.py", "unfused_optimizer.py"}


class _MessageCatcher(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.INFO)
        self.messages = []

    def emit(self, record):
        if record.filename in _SCALE_MESSAGE_FILES:
            self.messages.append(record.getMessage().strip())


@contextlib.contextmanager
def loss_scale_messages():
    """with-block-এর ভেতরে DeepSpeed-এর loss scale-এর বার্তাগুলো (INFO স্তরেও) একটি list-এ জমায় (পাঠ ০৫)।

    যেমন DeepSpeed-এর নিজের DynamicLossScaler-কে হাতে চালালে: `with deepspeed_engine.loss_scale_messages() as lines:
    scaler.update_scale(True)` → lines-এ "[deepspeed] OVERFLOW! Rank 0 Skipping step. ..."। পর্দায় বাড়তি
    কিছু ছাপে না; শেষে logger আগের অবস্থায় ফেরে। বার্তাগুলো আসে শুধু rank 0-তে (DeepSpeed-এর নিজের নিয়ম)।
    """
    logger = logging.getLogger("DeepSpeed")
    old_level, catcher = logger.level, _MessageCatcher()
    logger.addHandler(catcher)
    logger.setLevel(logging.INFO)
    try:
        yield catcher.messages
    finally:
        logger.removeHandler(catcher)
        logger.setLevel(old_level)


@dataclass
class LossScaleRow:
    """LossScaleLog-এর একটি সারি: একটি optimizer step (accumulation-এর সীমানা) (পাঠ ০৫)।

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
        self._global, _, self._skipped = _engine_counters(engine)
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
        global_steps, micro_steps, skipped_steps = _engine_counters(engine)
        if global_steps == self._global:
            return None
        new_scale = loss_scale_of(engine)
        messages = []
        if self._catcher is not None:
            messages, self._catcher.messages = self._catcher.messages, []
        row = LossScaleRow(global_steps, micro_steps, self._scale, new_scale, skipped_steps > self._skipped, messages)
        self.rows.append(row)
        self._scale, self._global, self._skipped = new_scale, global_steps, skipped_steps
        return row

    # সহজে আঁকা আর মেলানোর জন্য
    @property
    def steps(self) -> list:
        """প্রতিটি সারির step (engine.global_steps)।"""
        return [r.step for r in self.rows]

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

    def as_dicts(self) -> list[dict]:
        """সারিগুলো dict হিসেবে (JSON-এ লেখার জন্য)।"""
        return [asdict(r) for r in self.rows]

    def close(self) -> None:
        """DeepSpeed-এর logger-কে আগের অবস্থায় ফেরায়; বারবার ডাকলেও ক্ষতি নেই।"""
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
    states = optimizer_state_tensors(basic)
    grads = [p.grad for p in params]
    out = {"params": unique_tensor_bytes(params), "master_weights": unique_tensor_bytes(master),
           "optimizer_states": unique_tensor_bytes(states), "grads": unique_tensor_bytes(grads)}
    if engine.zero_optimization_stage() == 3:
        out.update(_zero3_weights(engine))
    out["total"] = out["params"] + out["master_weights"] + out["optimizer_states"] + out["grads"]
    return out


def _zero3_weights(engine) -> dict:
    """ZeRO-3-এ এই rank-এর ওজন আর FP32 master (পাঠ ০৯), tensor গুনে যা পাওয়া যায় না তা।

    DeepSpeed 0.19.8-এর ZeRO-3 (stage3.py): ভাগ-করা ওজন module-এর parameter-এ থাকে না (p.numel() == 0; ভাগটি
    p.ds_tensor, optimizer-এর fp16_partitioned_groups_flat-এর অংশ), ছোট parameter (stage3_param_persistence_threshold,
    ডিফল্ট 1e5 উপাদানের নিচে) সব rank-এ পুরোটা থাকে; আর FP32 master (fp32_partitioned_groups_flat) optimizer-এর
    param_groups-এ থাকে শুধু step-এর সময়টুকু। AdamW-এর state আর grads সাধারণ হিসাবেই আসে।
    """
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

    DeepSpeed 0.19.8 কোনো engine-এ torch_autocast চালু হলে একটি module-স্তরের flag বসায়
    (deepspeed.runtime.torch_autocast.TORCH_AUTOCAST_INITIALIZED, সঙ্গে তার dtype), আর কখনো নামায় না। তারপর একই
    process-এর প্রতিটি ZeRO-1/2 optimizer (DeepSpeedZeroOptimizer) gradient reduce করে প্রতিটি ওজনের নিজের dtype-এ —
    config-এর communication_data_type না দেখে; আর flag-এর dtype FP16 হলে নিজের একটি GradScaler-ও বসায়। নোটবুকে
    (এক kernel, অনেক engine) তাই একবার torch_autocast চালালে পরের FP16 engine-এর FP32-এ জমানো যোগফল পাঠানোর
    সময় FP16-এ round হয়: মাপা আপেক্ষিক ভুল ~2e-4, flag ছাড়া ~1e-9। deepspeed_engine.initialize প্রতিটি নতুন engine-এর আগে
    এটা ডাকে। config-এ torch_autocast চালু থাকলে কিছু করে না। কিছু মুছলে True।
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
    """ZeRO-3 engine torch.nn.functional.linear-এর জায়গায় নিজের মেমরি-বাঁচানো linear বসায় — গোটা process-এর জন্য
    (DeepSpeed 0.19.8 নিজেই বলে: "This will persist unless manually reset")। engine ছাড়ার পরেও থেকে গেলে পরের
    সব Linear তার ভেতর দিয়ে চলে, আর autograd-এর saved tensor-এর নাম (যেমন _saved_mat2) হারায়। torch-এর নিজেরটা ফেরাই।
    ফেরালে True; ZeRO-3-এর linear বসানো না থাকলে (বা নাম না মিললে) কিছুই বদলায় না।"""
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
    """engine বানানোর সময়টুকু BF16_Optimizer-এর see_memory_usage(force=True) বন্ধ রাখে।

    DeepSpeed 0.19.8-এর BF16_Optimizer (BF16 + ZeRO 1 + FP32-এ জমানো) বানানোর সময় সেটি সাতবার ডাকে: প্রতিবার
    gc.collect() (নোটবুকে প্রায় এক সেকেন্ড), print() দিয়ে মেমরির লাইন, আর GPU-র peak memory-র গোনা শূন্য করা —
    শেষেরটা আমাদের মেমরির মাপ ভেঙে দিত। নাম না মিললে (অন্য সংস্করণ) কিছুই বদলাই না।
    """
    import deepspeed.runtime.bf16_optimizer as bf16_module

    original = getattr(bf16_module, "see_memory_usage", None)
    if original is None:
        yield
        return
    bf16_module.see_memory_usage = lambda *args, **kwargs: None
    try:
        yield
    finally:
        bf16_module.see_memory_usage = original
