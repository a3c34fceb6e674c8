"""দুই process-এ DDP + gradient accumulation: no_sync() কয়টি allreduce বাঁচায় (পাঠ ০৪)।

    python -m mishran.ddp_demo --steps 3 --accum 4 --micro 8

একটি সত্যিকারের process group (gloo, CPU, world_size 2) বানিয়ে MLP-কে তিনভাবে প্রশিক্ষণ দেয় (MODES):
(ক) প্রথম k-1টি micro-step `model.no_sync()`-এর ভেতরে, শেষটিতে sync (nanoGPT-এর মতো);
(খ) প্রতিটি micro-step-এ sync; (গ) ভুল: কোনোটিতেই sync নয়।
একটি comm hook প্রতিটি allreduce গোনে, তারপর DDP-র নিজের allreduce-ই করে। শেষে প্রতিটির ওজন মেলায় এক
process-এর সঙ্গে, যে প্রতি step-এ পুরো global batch একবারে দেখে; আর দেখে সব rank-এর ওজন এক কি না।
ফল এক লাইনের JSON হিসেবে stdout-এ ছাপা হয়; নোটবুক সেটা পড়ে `assert` করে।

ডেমো ইচ্ছে করে gloo আর CPU-তে: GPU মেশিনেও একই কোড চলে। কয়েকটি GPU থাকলে এখানে backend "nccl" আর
প্রতি rank-এ নিজের GPU (`torch.cuda.set_device(rank)`) দিলেই হয়; এক GPU-তে দুই NCCL rank চলে না।
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from contextlib import nullcontext

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

from .data import synthetic_regression
from .ds import free_port          # MASTER_PORT-এর জন্য খালি port — পাঠ ০৫-এর set-up-ও এটাই ব্যবহার করে
from .models import MLP

__all__ = ["MODES", "global_batches", "train_single", "run"]

D_IN, D_HIDDEN = 8, 32
LR = 0.05
SEED = 0


def global_batches(steps: int, accum: int, micro: int, world: int):
    """প্রতি step-এর global batch: (x, y), আকার (micro × accum × world, …)। সব process একই ডেটা বানায়।"""
    x, y = synthetic_regression(n=steps * accum * micro * world, d=D_IN, seed=SEED)
    size = accum * micro * world
    return [(x[s * size:(s + 1) * size], y[s * size:(s + 1) * size]) for s in range(steps)]


def _shard(xb, yb, rank: int, world: int, accum: int, j: int):
    """global batch-এর যে টুকরো rank পায় micro-step j-তে: global batch কে আগে rank ধরে ভাগ, তারপর micro ধরে।"""
    per_rank = len(xb) // world
    micro = per_rank // accum
    lo = rank * per_rank + j * micro
    return xb[lo:lo + micro], yb[lo:lo + micro]


def _new_model():
    return MLP(D_IN, D_HIDDEN, 1, n_layers=2, seed=SEED)


def train_single(steps: int, accum: int, micro: int, world: int) -> torch.nn.Module:
    """তুলনার মাপকাঠি: এক process, প্রতি step-এ পুরো global batch একবারে, কোনো accumulation নেই।"""
    model = _new_model()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    for xb, yb in global_batches(steps, accum, micro, world):
        F.mse_loss(model(xb), yb).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return model


MODES = {
    "no_sync": "প্রথম k-1টি micro-step no_sync()-এ, শেষটিতে sync (ঠিক)",
    "sync_every_micro_step": "প্রতিটি micro-step-এ sync (ঠিক ফল, কিন্তু k গুণ যোগাযোগ)",
    "never_sync": "সব micro-step no_sync()-এ (ভুল: process-গুলো আলাদা হয়ে যায়)",
}


def _train_ddp(rank: int, world: int, steps: int, accum: int, micro: int, mode: str):
    """DDP-তে accumulation। ফেরত: (মডেল, কয়টি allreduce হলো, কয়বার sync হলো)।

    DDP gradient-গুলো bucket-এ ভরে পাঠায়; প্রতি sync-এ প্রতি bucket একটি allreduce। এই ছোট MLP-র bucket একটিই।
    """
    model = DDP(_new_model())
    count = {"allreduce": 0, "syncs": 0}

    def counting_hook(state, bucket):
        # প্রতি sync-এ প্রতিটি bucket-এর জন্য একবার ডাকা হয়; গুনে নিয়ে DDP-র নিজের allreduce (গড়) করি
        state["allreduce"] += 1
        state["syncs"] += int(bucket.is_last())
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(count, counting_hook)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    for xb, yb in global_batches(steps, accum, micro, world):
        for j in range(accum):
            x, y = _shard(xb, yb, rank, world, accum, j)
            last = j == accum - 1
            # nanoGPT-এর মতো: শেষ micro-step ছাড়া sync বন্ধ; gradient শুধু নিজের process-এ জমে
            skip_sync = (mode == "no_sync" and not last) or mode == "never_sync"
            with model.no_sync() if skip_sync else nullcontext():
                loss = F.mse_loss(model(x), y) / accum       # gradient যোগ হয়; আমরা চাই গড়
                loss.backward()                               # sync হলে এখানেই allreduce (সব rank-এর গড়)
        opt.step()
        opt.zero_grad(set_to_none=True)
    return model.module, count["allreduce"], count["syncs"]


def _same_on_all_ranks(tensors) -> bool:
    """rank 0-এর tensor সবার কাছে পাঠিয়ে মেলাই; সব rank-এ মিললে তবেই True।"""
    same = True
    for p in tensors:
        q = p.clone()
        dist.broadcast(q, src=0)
        same &= torch.equal(p, q)
    flag = torch.tensor([int(same)])
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def _worker(rank: int, world: int, port: int, steps: int, accum: int, micro: int, out_path: str):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    # সব process এক মেশিনে: gloo-কে loopback-এই কথা বলতে দিই। নইলে সে hostname থেকে interface খোঁজে,
    # আর কিছু container-এ সেই ঠিকানায় পৌঁছানো যায় না (connectFullMesh failed)।
    if "GLOO_SOCKET_IFNAME" not in os.environ and hasattr(socket, "if_nameindex"):
        names = [name for _, name in socket.if_nameindex()]
        loopback = next((n for n in ("lo", "lo0") if n in names), None)
        if loopback:
            os.environ["GLOO_SOCKET_IFNAME"] = loopback
    torch.set_num_threads(1)                 # দুই process, দুই core: একে অপরের সঙ্গে কাড়াকাড়ি নয়
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        results = {}
        for mode in MODES:
            model, n_allreduce, syncs = _train_ddp(rank, world, steps, accum, micro, mode)
            weights = [p.detach().clone() for p in model.parameters()]
            results[mode] = {"allreduce": n_allreduce, "syncs": syncs, "weights": weights,
                             "ranks_agree": _same_on_all_ranks(weights)}
        if rank == 0:
            ref = [p.detach() for p in train_single(steps, accum, micro, world).parameters()]
            report = {"world_size": world, "backend": dist.get_backend(), "steps": steps, "accum": accum,
                      "micro": micro, "global_batch": micro * accum * world}
            for mode, r in results.items():
                report[mode] = {
                    "allreduce": r["allreduce"], "syncs": r["syncs"], "ranks_agree": r["ranks_agree"],
                    "max_abs_diff_vs_single": max((a - b).abs().max().item() for a, b in zip(r["weights"], ref)),
                    "matches_single": all(torch.allclose(a, b, rtol=1e-5, atol=1e-6)
                                          for a, b in zip(r["weights"], ref)),
                }
            with open(out_path, "w", encoding="utf-8") as f:
                json.dump(report, f)
    finally:
        dist.destroy_process_group()


def run(steps: int = 3, accum: int = 4, micro: int = 8, world: int = 2) -> dict:
    """world টি process চালিয়ে ফলের dict ফেরত দেয় (নোটবুক এটা subprocess-এ `-m` দিয়ে চালায়)।"""
    if steps < 1 or accum < 1 or micro < 1 or world < 1:
        raise ValueError("steps, accum, micro, world সবই অন্তত ১ হতে হবে (must be >= 1)")
    t0 = time.perf_counter()
    for attempt in (1, 2):
        with tempfile.TemporaryDirectory() as tmp:
            out_path = os.path.join(tmp, "result.json")
            try:
                mp.spawn(_worker, args=(world, free_port(), steps, accum, micro, out_path), nprocs=world, join=True)
            except Exception as err:         # যেমন port ততক্ষণে অন্য কেউ নিয়ে নিয়েছে (EADDRINUSE)
                if attempt == 2:
                    raise
                print(f"process group চালু হয়নি ({type(err).__name__}: {str(err)[-300:]}); নতুন port-এ আরেকবার।",
                      file=sys.stderr)
                continue
            with open(out_path, encoding="utf-8") as f:
                report = json.load(f)
            break
    report["attempts"] = attempt
    report["seconds"] = round(time.perf_counter() - t0, 2)
    return report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="DDP + gradient accumulation: no_sync() সহ ও ছাড়া allreduce গোনা")
    p.add_argument("--steps", type=int, default=3, help="optimizer step-এর সংখ্যা")
    p.add_argument("--accum", type=int, default=4, help="প্রতি step-এ micro-step (k)")
    p.add_argument("--micro", type=int, default=8, help="প্রতি process-এ micro-batch-এর মাপ")
    p.add_argument("--world", type=int, default=2, help="process-এর সংখ্যা (world size)")
    args = p.parse_args(argv)
    report = run(args.steps, args.accum, args.micro, args.world)
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
