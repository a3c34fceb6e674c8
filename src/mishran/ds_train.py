"""কয়েকটি GPU-তে DeepSpeed দিয়ে TinyGPT প্রশিক্ষণ, ZeRO stage 0/1/2 — DeepSpeed-এর launcher দিয়ে চালানোর script (পাঠ ০৫)।

    deepspeed --num_gpus 2 --module mishran.ds_train --zero-stage 2 --steps 40 --out z2_n2.json
    deepspeed --num_gpus 1 --module mishran.ds_train --zero-stage 2 --steps 40 --out z2_n1.json
    python -m mishran.ds_train --cpu --steps 3 --out smoke.json     # CPU-তে এক process (gloo), ছোট মডেল

GPU-র সংখ্যা N যা-ই হোক, global batch একই থাকে: accumulation_steps = global_batch / (micro_batch × N)।
প্রতিটি step-এর global batch একটি নির্দিষ্ট seed থেকে আসে আর N ভাগে ভাগ হয়, তাই N = 1 আর N = 2-এর loss
একই নমুনার গড় — পার্থক্য শুধু যোগের ক্রমের rounding। প্রতিটি rank নিজের peak memory
(torch.cuda.max_memory_allocated) আর model state-এর বাইট মাপে; rank 0 সব জড়ো করে JSON লেখে।
launcher প্রতিটি process-কে RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT দেয় আর
`--local_rank=...` argument জোড়ে; launcher ছাড়া চালালে mishran.ds এক-process-এর env বসায়।
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time

import torch

from mishran import ds, ds_config
from mishran.data import CharDataset
from mishran.literature import BatchStream
from mishran.models import GPTConfig, TinyGPT
from mishran.precision import NAMES as PRECISION_NAMES
from mishran.precision import check as check_precision
from mishran.precision import resolve as resolve_precision
from mishran.util import as_bool, as_seed, finite_float, package_version

__all__ = ["SIZES", "parse_args", "run", "main"]

# মডেলের মাপ: CPU-তে কয়েক সেকেন্ড; GPU-তে এমন মাপ যাতে model state (16Ψ) মাপার মতো বড় হয়
SIZES = {
    "tiny": dict(block_size=64, n_layer=2, n_head=4, n_embd=64),        # ≈ 0.1M ওজন
    "gpu": dict(block_size=256, n_layer=8, n_head=12, n_embd=768),      # ≈ 57M ওজন
}


def parse_args(argv=None):
    """`python -m mishran.ds_train`-এর argument (পাঠ ০৫)।"""
    p = argparse.ArgumentParser(description="DeepSpeed ZeRO দিয়ে TinyGPT (mishran, পাঠ ০৫)")
    p.add_argument("--zero-stage", type=int, default=None, choices=[0, 1, 2],
                   help="ডিফল্ট: config_for_device-এর নিয়ম (১৬-বিটে accumulation > 1 বা FP16 হলে 1, নইলে 0)")
    p.add_argument("--steps", type=int, default=30, help="optimizer step-এর সংখ্যা")
    p.add_argument("--global-batch", type=int, default=None, help="প্রতি step-এ মোট নমুনা (সব GPU মিলিয়ে)")
    p.add_argument("--micro-batch", type=int, default=None, help="প্রতি GPU-তে একবারে কয়টি নমুনা")
    p.add_argument("--precision", default="auto", choices=["auto", *PRECISION_NAMES])
    p.add_argument("--size", default=None, choices=sorted(SIZES), help="মডেলের মাপ (ডিফল্ট: CPU-তে tiny, GPU-তে gpu)")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warmup", type=int, default=None, help="সময় মাপার আগে কয়টি step বাদ (ডিফল্ট ৩, কম step-এ ০)")
    p.add_argument("--cpu", action="store_true", help="GPU থাকলেও CPU-তে (gloo, BF16)")
    p.add_argument("--out", default=None, help="ফলাফলের JSON ফাইল (rank 0 লেখে)")
    p.add_argument("--local_rank", type=int, default=None,
                   help="DeepSpeed launcher নিজে দেয়; env-এর LOCAL_RANK-ই ব্যবহার হয়")
    return p.parse_args(argv)


def run(zero_stage: int | None = None, steps: int = 30, global_batch: int | None = None, micro_batch: int | None = None,
        precision: str = "auto", size: str | None = None, lr: float = 3e-4, seed: int = 0, warmup: int | None = None,
        cpu: bool = False) -> dict | None:
    """প্রশিক্ষণ চালায় আর ফলাফল ফেরত দেয় (rank 0-তে dict, বাকিদের None); process group বন্ধ করে না (পাঠ ০৫)।

    precision একবারই ঠিক হয় ('auto' হলে mishran.precision.resolve), config তা থেকে বানানো, ফলাফলেও সেটাই।
    zero_stage=None হলে stage ঠিক করে ds_config.config_for_device (১৬-বিটে accumulation > 1 হলে 1: gradient জমে
    FP32-এ); ফলাফলের "zero_stage" config-এর আসল stage।
    """
    cpu = _check_run_args(zero_stage, steps, global_batch, micro_batch, precision, size, lr, seed, warmup, cpu)
    device, backend = _start(cpu)
    rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
    on_gpu = device.type == "cuda"
    size = size or ("gpu" if on_gpu else "tiny")
    global_batch, micro, accum = _batch_plan(global_batch, micro_batch, world, on_gpu)
    precision = resolve_precision(precision, device)          # একবারই ঠিক হয়; config তা থেকে বানানো
    config = ds_config.config_for_device(micro_batch=micro, accumulation_steps=accum, world_size=world,
                                         zero_stage=zero_stage, precision=precision, device=device.type)
    zero_stage = config["zero_optimization"]["stage"]

    data = CharDataset()
    gpt = GPTConfig(vocab_size=data.vocab_size, **SIZES[size])
    model = TinyGPT(gpt, seed=seed)                            # সব rank-এ একই শুরুর ওজন
    num_params = model.num_parameters()
    engine = ds.initialize(model, config, lr=lr)
    # সব rank একই seed-এ একই global batch টানে, আর প্রত্যেকে নেয় নিজের ভাগ
    stream = BatchStream(data, micro, accum, gpt.block_size, world_size=world, rank=rank, seed=seed)
    warmup = warmup if warmup is not None else (3 if steps > 5 else 0)
    with ds.LossScaleLog(engine) as log:
        losses, elapsed = _train_steps(engine, lambda: [stream() for _ in range(accum)], steps, warmup, log)
    per_rank = _rank_memory(engine, device)
    ds.release(engine)
    if rank != 0:
        return None
    timed = steps - warmup
    speed = elapsed and timed > 0
    tokens = global_batch * gpt.block_size
    return {
        "world_size": world, "zero_stage": zero_stage, "precision": precision,
        "device": torch.cuda.get_device_name(device) if on_gpu else (platform.processor() or "cpu"),
        "backend": backend, "model_size": size, "num_params": num_params,
        "global_batch": global_batch, "micro_batch": micro, "accumulation_steps": accum,
        "block_size": gpt.block_size, "steps": steps, "warmup_steps": warmup,
        "losses": losses,
        "ms_per_step": 1000 * elapsed / timed if speed else None,
        "tokens_per_s": tokens * timed / elapsed if speed else None,
        "loss_scales": log.scales, "skipped_steps": log.skipped_steps,
        "per_rank": per_rank,
        "zero_paper_bytes_per_gpu": ds_config.zero_model_state_bytes(num_params, zero_stage, world),
        "config": config,
        "versions": {"torch": torch.__version__, "deepspeed": package_version("deepspeed")},
    }


def _whole(value, name: str, least: int, none_ok: bool = True) -> None:
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= 2 ** 20:
        raise ValueError(f"{name} হবে {least} থেকে 2**20-এর একটি পূর্ণসংখ্যা{' বা None' if none_ok else ''} ({name} must be "
                         f"an integer >= {least}); পেয়েছি {value!r}")


def _check_run_args(zero_stage, steps, global_batch, micro_batch, precision, size, lr, seed, warmup, cpu) -> bool:
    """run()-এর সুইচগুলো process group চালুর আগেই যাচাই: ভুলে বাংলা + English বার্তা, DeepSpeed-এর নয়।"""
    if zero_stage is not None and (isinstance(zero_stage, bool) or not isinstance(zero_stage, int)
                                   or zero_stage not in ds_config.ZERO_STAGES):
        raise ValueError(f"zero_stage হবে None বা 0–3 (zero_stage must be None or 0-3); পেয়েছি {zero_stage!r}")
    _whole(steps, "steps", 0, none_ok=False)
    for value, name in ((global_batch, "global_batch"), (micro_batch, "micro_batch")):
        _whole(value, name, 1)
    _whole(warmup, "warmup", 0)
    check_precision(precision, allow_auto=True)
    if size is not None and (not isinstance(size, str) or size not in SIZES):
        raise ValueError(f"অচেনা মাপ {size!r} (unknown size); বেছে নাও: {', '.join(SIZES)} বা None")
    finite_float(lr, "lr", positive=True)
    as_seed(-1 if seed is None else seed)
    return as_bool(cpu, "cpu")


def _start(cpu: bool) -> tuple[torch.device, str]:
    """এই process-এর device বাছে আর process group চালু করে: (device, backend)।"""
    use_cuda = torch.cuda.is_available() and not cpu
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    if use_cuda:
        torch.cuda.set_device(local_rank)
        torch.cuda.reset_peak_memory_stats()
    elif int(os.environ.get("LOCAL_SIZE", "1")) > 1 and "OMP_NUM_THREADS" not in os.environ:
        # CPU-তে কয়েকটি process একই core ভাগ করে; প্রত্যেকে সব core নিলে তারা একে অপরের জন্য অপেক্ষা করে
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // int(os.environ["LOCAL_SIZE"])))
    # launcher না থাকলে এক process-এর env বসে; থাকলে launcher-এর দেওয়া মানই থাকে
    info = ds.setup_single_process(backend="nccl" if use_cuda else "gloo")
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    return device, info["backend"]


def _batch_plan(global_batch: int | None, micro: int | None, world: int, on_gpu: bool) -> tuple[int, int, int]:
    """(global batch, micro, accumulation): N বাড়লে accumulation কমে, global batch একই থাকে।

    না দিলে GPU-তে 64 আর 8, CPU-তে 16 আর 4।
    """
    global_batch = global_batch or (64 if on_gpu else 16)
    micro = micro or (8 if on_gpu else 4)
    if global_batch % (micro * world):
        raise SystemExit(f"global batch {global_batch} micro_batch {micro} × GPU {world} দিয়ে বিভাজ্য নয় "
                         "(global batch must be divisible by micro_batch × world_size)")
    return global_batch, micro, global_batch // (micro * world)


def _train_steps(engine, next_batches, steps: int, warmup: int, log) -> tuple[list[float], float | None]:
    """steps-টি optimizer step, প্রতিটি mishran.ds.engine_step দিয়ে; ফেরত: (প্রতি step-এর গড় loss, সময়)।

    loss সব rank-এর সব micro-batch-এর গড়; সময় warmup-এর পরের step-গুলোর (কোনো step না থাকলে None)।
    """
    on_gpu = engine.device.type == "cuda"
    world = torch.distributed.get_world_size()
    losses, t_start = [], None
    for step in range(steps):
        if step == warmup:
            if on_gpu:
                torch.cuda.synchronize()
            t_start = time.perf_counter()
        micro_batches = next_batches()
        step_loss = ds.engine_step(engine, micro_batches)
        log.record()
        torch.distributed.all_reduce(step_loss)                # সব rank-এর micro-batch-এর যোগফল
        losses.append(step_loss.item() / (len(micro_batches) * world))
    if on_gpu:
        torch.cuda.synchronize()
    return losses, (time.perf_counter() - t_start if t_start is not None else None)


def _rank_memory(engine, device: torch.device) -> list[dict]:
    """প্রতিটি rank-এর peak memory আর model state-এর বাইট, সব rank থেকে জড়ো করা।"""
    on_gpu = device.type == "cuda"
    mine = {"rank": torch.distributed.get_rank(), "device": str(device),
            "peak_memory_bytes": torch.cuda.max_memory_allocated(device) if on_gpu else None,
            "memory_allocated_bytes": torch.cuda.memory_allocated(device) if on_gpu else None,
            "model_state_bytes": ds.model_state_bytes(engine)}
    per_rank = [None] * torch.distributed.get_world_size()
    torch.distributed.all_gather_object(per_rank, mine)
    return per_rank


def main(argv=None) -> dict | None:
    """কমান্ড লাইন থেকে run(): ফল ছাপে, --out দিলে rank 0 JSON লেখে, শেষে process group বন্ধ করে (পাঠ ০৫)।"""
    args = parse_args(argv)
    if args.cpu:
        os.environ.setdefault("DS_ACCELERATOR", "cpu")         # GPU থাকলেও DeepSpeed-এর CPU accelerator
    elif not torch.cuda.is_available():
        print("GPU পাওয়া যায়নি; CPU-তে চলছে (gloo, BF16)।")
    result = run(zero_stage=args.zero_stage, steps=args.steps, global_batch=args.global_batch,
                 micro_batch=args.micro_batch, precision=args.precision, size=args.size, lr=args.lr, seed=args.seed,
                 warmup=args.warmup, cpu=args.cpu)
    if result is not None:
        r = result
        print(f"ZeRO {r['zero_stage']}, {r['world_size']} process, {r['precision']}, Ψ = {r['num_params']:,}: loss "
              f"{r['losses'][0]:.4f} → {r['losses'][-1]:.4f}"
              + (f", {r['ms_per_step']:.1f} ms/step" if r["ms_per_step"] else ""))
        peaks = [p["peak_memory_bytes"] for p in r["per_rank"]]
        if peaks[0] is not None:
            print("প্রতি GPU-র peak memory (MiB):", [round(p / 2 ** 20, 1) for p in peaks])
        print("প্রতি rank-এর model state (MiB):",
              [round(p["model_state_bytes"]["total"] / 2 ** 20, 2) for p in r["per_rank"]])
        if args.out:
            with open(args.out, "w", encoding="utf-8") as f:
                json.dump(result, f, ensure_ascii=False, indent=1)
            print(f"ফলাফল লেখা হলো: {args.out}")
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()
    return result


if __name__ == "__main__":
    main()
