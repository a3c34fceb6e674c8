"""কয়েকটি GPU-তে TinyGPT প্রশিক্ষণ, DeepSpeed ZeRO 0–3 বা PyTorch-এর FSDP2 — launcher দিয়ে চালানোর script (পাঠ ০৫, ০৯)।

    deepspeed --num_gpus 2 --module mishran.engines.multi_gpu --zero-stage 2 --steps 40 --out z2_n2.json
    deepspeed --num_gpus 1 --module mishran.engines.multi_gpu --zero-stage 2 --steps 40 --out z2_n1.json
    torchrun --nproc_per_node 2 -m mishran.engines.multi_gpu --engine fsdp2 --steps 40 --out fsdp2_n2.json
    python -m mishran.engines.multi_gpu --cpu --steps 3 --out smoke.json     # CPU-তে এক process (gloo), ছোট মডেল

GPU-র সংখ্যা N যা-ই হোক, global batch একই (accumulation_steps = global_batch / (micro_batch × N)), আর একই seed থেকে
আসে: N = 1 আর N = 2-এর loss একই নমুনার গড়, পার্থক্য শুধু যোগের ক্রমের rounding। প্রতিটি rank নিজের peak memory আর
model state-এর বাইট মাপে; rank 0 সব জড়ো করে JSON লেখে। `--engine fsdp2` (পাঠ ০৯): একই মডেল, ডেটা আর precision,
DeepSpeed-এর বদলে fsdp.shard_model আর amp_step (FP16 নয়: FSDP2-এর নিজের loss scaler নেই)।
"""
from __future__ import annotations

import argparse
import os
import platform
from dataclasses import asdict, dataclass

import torch
from torch.distributed.device_mesh import init_device_mesh

from mishran import cli
from mishran.data import BatchStream, CharDataset
from mishran.engines import deepspeed_config, deepspeed_engine
from mishran.engines.amp import amp_step
from mishran.engines.fsdp import gradient_sync, model_state_bytes, shard_model
from mishran.engines.loop import run_steps
from mishran.models.gpt import GPT_SIZES, GPTConfig, TinyGPT
from mishran.precision import NAMES as PRECISION_NAMES
from mishran.precision import autocast, grad_scaler
from mishran.precision import resolve as resolve_precision
from mishran.versions import package_version

__all__ = ["ENGINES", "HELDOUT", "RankMemory", "MultiGpuResult", "parse_args", "run", "main"]

ENGINES = ("deepspeed", "fsdp2")
"""কে shard করে আর optimizer step দেয় (পাঠ ০৯): DeepSpeed-এর engine (ZeRO), নাকি PyTorch-এর FSDP2।"""

HELDOUT = {"batches": 4, "batch_size": 8, "seed": 1234}
"""held-out loss: val অংশ থেকে এই seed-এর generator-এ batches-টি batch, প্রতিটি batch_size নমুনা (পাঠ ০৯)।"""

_FSDP2_FP16 = ("FSDP2-এর পথে fp16 নেই (fp16 is not supported with engine='fsdp2'): FSDP2-এর নিজের loss scaler নেই, "
               "আর এই script তা যোগ করে না। precision bf16 বা fp32 দাও, বা engine deepspeed।")


@dataclass
class RankMemory:
    """একটি rank-এর মাপ (পাঠ ০৫, ০৯): peak আর এখনকার GPU memory (CPU-তে None), আর model state-এর বাইট।"""

    rank: int
    device: str
    peak_memory_bytes: int | None
    memory_allocated_bytes: int | None
    model_state_bytes: dict


@dataclass
class MultiGpuResult:
    """run()-এর ফল, rank 0-এ (পাঠ ০৫, ০৯); to_dict() হলো `--out`-এর JSON। zero_stage (fsdp2-এ None) আর policy
    (DeepSpeed-এ None) বলে কোন engine; ms_per_step, tokens_per_s warmup_steps-এর পরের step-গুলোর (না থাকলে None)।"""

    engine: str
    world_size: int
    zero_stage: int | None
    policy: str | None
    precision: str
    device: str
    backend: str
    model_size: str
    num_params: int
    global_batch: int
    micro_batch: int
    accumulation_steps: int
    block_size: int
    steps: int
    warmup_steps: int
    losses: list
    heldout_loss: float
    ms_per_step: float | None
    tokens_per_s: float | None
    loss_scales: list
    skipped_steps: list
    per_rank: list
    zero_paper_bytes_per_gpu: dict | None
    config: dict
    versions: dict

    def to_dict(self) -> dict:
        """JSON-যোগ্য dict (`--out`-এর ফাইল), per_rank-ও dict হয়ে।"""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> MultiGpuResult:
        """`--out`-এর JSON থেকে আবার ফল (পাঠ ০৫: launcher-এর process-গুলোর ফল নোটবুকে)।"""
        return cls(**{**data, "per_rank": [RankMemory(**r) for r in data["per_rank"]]})


def parse_args(argv=None):
    """`python -m mishran.engines.multi_gpu`-এর argument (পাঠ ০৫, ০৯); ভুল মানে এক লাইনের বার্তা, exit status 2।"""
    p = argparse.ArgumentParser(prog="python -m mishran.engines.multi_gpu",
                                description="DeepSpeed ZeRO বা FSDP2 দিয়ে TinyGPT (mishran, পাঠ ০৫, ০৯)")
    p.add_argument("--engine", default="deepspeed", choices=ENGINES, help="deepspeed (ZeRO) বা fsdp2 (PyTorch)")
    p.add_argument("--zero-stage", type=cli.non_negative_int, default=None, choices=list(deepspeed_config.ZERO_STAGES),
                   help="শুধু deepspeed; ডিফল্ট config_for_device-এর নিয়ম (১৬-বিটে accumulation > 1 বা FP16 হলে 1)")
    p.add_argument("--steps", type=cli.positive_int, default=30, help="optimizer step-এর সংখ্যা")
    p.add_argument("--global-batch", type=cli.positive_int, default=None, help="প্রতি step-এ মোট নমুনা (সব GPU মিলিয়ে)")
    p.add_argument("--micro-batch", type=cli.positive_int, default=None, help="প্রতি GPU-তে একবারে কয়টি নমুনা")
    p.add_argument("--precision", default="auto", choices=["auto", *PRECISION_NAMES])
    p.add_argument("--size", default=None, choices=list(GPT_SIZES),
                   help="মডেলের মাপ, mishran.models.gpt.GPT_SIZES (ডিফল্ট: CPU-তে tiny, GPU-তে h200)")
    p.add_argument("--lr", type=cli.positive_float, default=3e-4)
    p.add_argument("--seed", type=cli.non_negative_int, default=0)
    p.add_argument("--warmup", type=cli.non_negative_int, default=None,
                   help="সময় মাপার আগে কয়টি step বাদ (ডিফল্ট ৩, কম step-এ ০)")
    p.add_argument("--cpu", action="store_true", help="GPU থাকলেও CPU-তে (gloo, BF16)")
    p.add_argument("--out", default=None, help="ফলাফলের JSON ফাইল (rank 0 লেখে; '-' হলে পর্দায়)")
    p.add_argument("--local_rank", type=cli.non_negative_int, default=None,
                   help="DeepSpeed launcher নিজে দেয়; env-এর LOCAL_RANK-ই ব্যবহার হয়")
    args = p.parse_args(argv)
    if args.engine == "fsdp2" and args.zero_stage is not None:
        p.error("--zero-stage শুধু DeepSpeed-এর (--zero-stage is for --engine deepspeed): FSDP2 সবসময় ওজন, gradient "
                "আর optimizer state তিনটিই ভাগ করে (ZeRO-3-এর মতো)")
    if args.engine == "fsdp2" and args.precision == "fp16":
        p.error(_FSDP2_FP16)
    return args


@dataclass
class _Plan:
    """একটি run-এর সব সিদ্ধান্ত, একবারই ঠিক করা; দুই engine-এর পথ এটাই পড়ে।"""

    device: torch.device
    world: int
    micro: int
    accum: int
    precision: str
    zero_stage: int | None
    lr: float
    steps: int
    data: CharDataset
    block_size: int
    num_params: int


def run(zero_stage: int | None = None, steps: int = 30, global_batch: int | None = None, micro_batch: int | None = None,
        precision: str = "auto", size: str | None = None, lr: float = 3e-4, seed: int = 0, warmup: int | None = None,
        cpu: bool = False, engine: str = "deepspeed") -> MultiGpuResult | None:
    """প্রশিক্ষণ চালায় আর ফল ফেরত দেয় (rank 0-তে MultiGpuResult, বাকিদের None); process group বন্ধ করে না (পাঠ ০৫, ০৯)।
    zero_stage=None হলে stage ঠিক করে config_for_device (১৬-বিটে accumulation > 1 হলে 1: gradient জমে FP32-এ)।"""
    device, backend = deepspeed_engine.start_process(cpu)
    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    on_gpu = device.type == "cuda"
    size = size or ("h200" if on_gpu else "tiny")
    global_batch, micro, accum = _batch_plan(global_batch, micro_batch, world, on_gpu)
    precision = resolve_precision(precision, device)          # একবারই ঠিক হয়; config তা থেকে বানানো
    if engine == "fsdp2" and precision == "fp16":              # 'auto' কোনো T4-এ fp16 হতে পারে
        raise ValueError(_FSDP2_FP16)
    data = CharDataset()
    gpt = GPTConfig(vocab_size=data.vocab_size, **GPT_SIZES[size])
    model = TinyGPT(gpt, seed=seed)                            # সব rank-এ একই শুরুর ওজন
    warmup = warmup if warmup is not None else (3 if steps > 5 else 0)
    plan = _Plan(device, world, micro, accum, precision, zero_stage, lr, steps, data, gpt.block_size,
                 model.num_parameters())
    # সব rank একই seed-এ একই global batch টানে, আর প্রত্যেকে নেয় নিজের ভাগ
    stream = BatchStream(data, micro, accum, gpt.block_size, world_size=world, rank=rank, seed=seed)
    train = _train_deepspeed if engine == "deepspeed" else _train_fsdp2
    out = train(model, lambda: [stream() for _ in range(accum)], plan)
    if rank != 0:
        return None
    timed = out.pop("seconds")[warmup:]                        # warmup-এর পরের step-গুলোর সময়
    tokens = global_batch * gpt.block_size
    return MultiGpuResult(
        engine=engine, world_size=world, precision=precision,
        device=torch.cuda.get_device_name(device) if on_gpu else (platform.processor() or "cpu"),
        backend=backend, model_size=size, num_params=plan.num_params, global_batch=global_batch, micro_batch=micro,
        accumulation_steps=accum, block_size=gpt.block_size, steps=steps, warmup_steps=warmup,
        ms_per_step=1000 * sum(timed) / len(timed) if timed else None,
        tokens_per_s=tokens * len(timed) / sum(timed) if timed else None,
        versions={"torch": torch.__version__, "deepspeed": package_version("deepspeed")}, **out)


def _train_deepspeed(model, next_batches, plan: _Plan) -> dict:
    """DeepSpeed-এর পথ (পাঠ ০৫): config, engine, প্রতিটি step deepspeed_engine.engine_step, শেষে মেমরি আর held-out।"""
    config = deepspeed_config.config_for_device(micro_batch=plan.micro, accumulation_steps=plan.accum,
                                                world_size=plan.world, zero_stage=plan.zero_stage,
                                                precision=plan.precision, device=plan.device.type)
    zero_stage = config["zero_optimization"]["stage"]
    engine = deepspeed_engine.initialize(model, config, lr=plan.lr)
    with deepspeed_engine.LossScaleLog(engine) as log:
        def step(batches):
            loss = deepspeed_engine.engine_step(engine, batches)
            log.record()                                        # loss scale-এর খাতা, প্রতিটি step-এর পরে
            return loss

        losses, seconds = run_steps(step, next_batches, plan.steps, plan.device)
    per_rank = _rank_memory(plan.device, deepspeed_engine.model_state_bytes(engine))   # ZeRO-3-এর ভাগসহ
    heldout = _heldout_loss(engine, plan)                      # ZeRO-3: সব rank একসঙ্গে forward
    deepspeed_engine.release(engine)
    return {"zero_stage": zero_stage, "policy": None, "losses": losses, "seconds": seconds,
            "heldout_loss": heldout, "loss_scales": log.scales, "skipped_steps": log.skipped_steps,
            "per_rank": per_rank,
            "zero_paper_bytes_per_gpu": deepspeed_config.zero_model_state_bytes(plan.num_params, zero_stage,
                                                                                plan.world),
            "config": config}


def _train_fsdp2(model, next_batches, plan: _Plan) -> dict:
    """FSDP2-এর পথ (পাঠ ০৯): shard_model, AdamW, প্রতিটি step amp_step — cast করে policy, autocast বন্ধ।"""
    device = plan.device
    mesh = init_device_mesh(device.type, (plan.world,))        # --cpu হলে GPU থাকলেও CPU-র mesh (gloo)
    shard_model(model.to(device), plan.precision, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=plan.lr, **deepspeed_config.ADAMW)
    ctx, scaler = autocast(device, "fp32"), grad_scaler(device, "fp32")   # দুটোই বন্ধ
    sync = gradient_sync(model)                                 # শেষ micro-step ছাড়া reduce-scatter নয়
    clip = _deepspeed_clip_norm()

    def step(batches):
        loss, _ = amp_step(model, optimizer, scaler, ctx, batches, clip_norm=clip, sync=sync)
        return loss * len(batches)                              # engine_step-এর মতো micro-batch-এর যোগফল

    def on_device():
        return [(x.to(device, non_blocking=True), y.to(device, non_blocking=True)) for x, y in next_batches()]

    losses, seconds = run_steps(step, on_device, plan.steps, device)
    per_rank = _rank_memory(device, model_state_bytes(model, optimizer))
    heldout = _heldout_loss(model, plan)
    config = {"policy": plan.precision, "reshard_after_forward": True, "optimizer": "torch.optim.AdamW",
              "lr": plan.lr, **{k: list(v) if isinstance(v, tuple) else v for k, v in deepspeed_config.ADAMW.items()},
              "gradient_clipping": clip}
    return {"zero_stage": None, "policy": plan.precision, "losses": losses, "seconds": seconds,
            "heldout_loss": heldout, "loss_scales": [], "skipped_steps": [], "per_rank": per_rank,
            "zero_paper_bytes_per_gpu": None, "config": config}


def _deepspeed_clip_norm() -> float:
    """DeepSpeed-এর পথ gradient-এর norm যেখানে কাটে (তার ডিফল্ট GRADIENT_CLIPPING_DEFAULT), FSDP2-এর পথও সেখানে (পাঠ
    ০৯): এটা বাদ দিলে ২০ step পরে দুই engine-এর loss আলাদা হয়ে যায় (GPU-তে 3.41 বনাম 3.36)।"""
    from deepspeed.runtime.constants import GRADIENT_CLIPPING_DEFAULT
    return float(GRADIENT_CLIPPING_DEFAULT)


def _batch_plan(global_batch: int | None, micro: int | None, world: int, on_gpu: bool) -> tuple[int, int, int]:
    """(global batch, micro, accumulation): N বাড়লে accumulation কমে। না দিলে GPU-তে 64 আর 8, CPU-তে 16 আর 4।"""
    global_batch = global_batch or (64 if on_gpu else 16)
    micro = micro or (8 if on_gpu else 4)
    if global_batch % (micro * world):
        raise SystemExit(f"global batch {global_batch} micro_batch {micro} × GPU {world} দিয়ে বিভাজ্য নয় "
                         "(global batch must be divisible by micro_batch × world_size)")
    return global_batch, micro, global_batch // (micro * world)


def _heldout_loss(model, plan: _Plan) -> float:
    """HELDOUT-এর val batch-গুলোয় গড় loss: eval mode, gradient ছাড়া; প্রতিটি rank একই batch (ZeRO-3 আর FSDP2-এ
    forward-এর all-gather সবাই মিলে করে), তারপর rank-গুলোর গড়।"""
    generator = torch.Generator().manual_seed(HELDOUT["seed"])
    batches = [plan.data.get_batch("val", HELDOUT["batch_size"], plan.block_size, generator=generator)
               for _ in range(HELDOUT["batches"])]
    model.eval()
    with torch.no_grad():
        total = sum(model(x.to(plan.device), y.to(plan.device))[1].float() for x, y in batches)
    model.train()
    torch.distributed.all_reduce(total)
    return total.item() / (HELDOUT["batches"] * plan.world)


def _rank_memory(device: torch.device, state_bytes: dict) -> list[RankMemory]:
    """প্রতিটি rank-এর peak memory আর model state-এর বাইট, সব rank থেকে জড়ো করা।"""
    on_gpu = device.type == "cuda"
    mine = RankMemory(torch.distributed.get_rank(), str(device),
                      torch.cuda.max_memory_allocated(device) if on_gpu else None,
                      torch.cuda.memory_allocated(device) if on_gpu else None, state_bytes)
    per_rank = [None] * torch.distributed.get_world_size()
    torch.distributed.all_gather_object(per_rank, mine)
    return per_rank


def main(argv=None) -> MultiGpuResult | None:
    """কমান্ড লাইন থেকে run(): ফল ছাপে, --out দিলে rank 0 JSON লেখে, শেষে process group বন্ধ করে (পাঠ ০৫, ০৯)।"""
    args = parse_args(argv)
    if args.cpu:
        os.environ.setdefault("DS_ACCELERATOR", "cpu")         # GPU থাকলেও DeepSpeed-এর CPU accelerator
    elif not torch.cuda.is_available():
        print("GPU পাওয়া যায়নি; CPU-তে চলছে (gloo, BF16)।")
    r = run(**{k: v for k, v in vars(args).items() if k not in ("out", "local_rank")})
    if r is not None:
        who = f"ZeRO {r.zero_stage}" if r.engine == "deepspeed" else "FSDP2"
        print(f"{who}, {r.world_size} process, {r.precision}, Ψ = {r.num_params:,}: loss "
              f"{r.losses[0]:.4f} → {r.losses[-1]:.4f}, held-out {r.heldout_loss:.4f}"
              + (f", {r.ms_per_step:.1f} ms/step" if r.ms_per_step else ""))
        if r.per_rank[0].peak_memory_bytes is not None:
            print("প্রতি GPU-র peak memory (MiB):", [round(p.peak_memory_bytes / 2 ** 20, 1) for p in r.per_rank])
        print("প্রতি rank-এর model state (MiB):", [round(p.model_state_bytes["total"] / 2 ** 20, 2) for p in r.per_rank])
        cli.write_record(r, args.out)
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()
    return r


if __name__ == "__main__":
    main()
