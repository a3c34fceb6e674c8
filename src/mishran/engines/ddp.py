"""দুই process-এ DDP + gradient accumulation: no_sync() কয়টি allreduce বাঁচায় (পাঠ ০৪)।

    python -m mishran.engines.ddp --steps 3 --accum 4 --micro 8

একটি সত্যিকারের process group (gloo, CPU, world_size 2) বানিয়ে MLP-কে তিনভাবে প্রশিক্ষণ দেয় (MODES):
(ক) প্রথম k-1টি micro-step `model.no_sync()`-এর ভেতরে, শেষটিতে sync (nanoGPT-এর মতো);
(খ) প্রতিটি micro-step-এ sync; (গ) ভুল: কোনোটিতেই sync নয়।
একটি comm hook প্রতিটি allreduce গোনে, তারপর DDP-র নিজের allreduce-ই করে। শেষে প্রতিটির ওজন মেলায় এক
process-এর সঙ্গে, যে প্রতি step-এ পুরো global batch একবারে দেখে; আর দেখে সব rank-এর ওজন এক কি না।
ফল JSON হিসেবে stdout-এ ছাপা হয় (mishran.cli.write_record); নোটবুক সেটা পড়ে `assert` করে।

token-ভারে গড় (token weighting, TOKEN_MODES): micro-batch-গুলোয় token (এখানে বৈধ নমুনা) সংখ্যা আলাদা হলে
ঠিক loss = সব rank আর সব micro-step মিলিয়ে token-প্রতি loss-এর যোগফল ÷ মোট token। DDP কিন্তু gradient-এর
rank-গড় নেয় (world size দিয়ে ভাগ করে), তাই প্রতি rank-এ loss-কে "মোট token" দিয়ে ভাগ করলে world size দিয়ে গুণও
করতে হয়। report["token_weighting"] তিনটি উপায় মেলায় এক process-এর global batch-এর gradient-এর সঙ্গে।

process চালানো আর ঠিকভাবে বন্ধ করা (parent-এর TCPStore, loopback, barrier → destroy_process_group → os._exit —
কেন পাঠ ০৪-এর ডেমো একসময় SIGABRT-এ মরত) mishran.engines.gloo_workers-এর, পাঠ ০৯-এর FSDP2-এর ডেমোও সেটাই ব্যবহার করে।

ডেমো ইচ্ছা করে gloo আর CPU-তে: GPU মেশিনেও একই কোড চলে। কয়েকটি GPU থাকলে এখানে backend "nccl" আর
প্রতি rank-এ নিজের GPU (`torch.cuda.set_device(rank)`) দিলেই হয়; এক GPU-তে দুই NCCL rank চলে না।
"""
from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

from mishran import cli
from mishran.data import synthetic_regression
from mishran.engines.gloo_workers import run_workers
from mishran.models.mlp import MLP

__all__ = ["SYNC_MODES", "TOKEN_MODES", "global_batches", "run", "single_gradients", "token_masks",
           "train_single", "main"]

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
    batches = global_batches(steps, accum, micro, world)
    model = _new_model()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    for xb, yb in batches:
        F.mse_loss(model(xb), yb).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return model


SYNC_MODES = {
    "no_sync": "প্রথম k-1টি micro-step no_sync()-এ, শেষটিতে sync (ঠিক)",
    "sync_every_micro_step": "প্রতিটি micro-step-এ sync (ঠিক ফল, কিন্তু k গুণ যোগাযোগ)",
    "never_sync": "সব micro-step no_sync()-এ (ভুল: process-গুলো আলাদা হয়ে যায়)",
}

TOKEN_MODES = {
    "micro_mean": "প্রতি micro-batch-এর নিজের token-গড় ÷ k (ভুল, যখন micro-batch-এ token সংখ্যা আলাদা)",
    "global_count": "token-loss-এর যোগফল ÷ সব rank-এর মোট token (ভুল: DDP-র rank-গড়ে আরও world size গুণ ছোট)",
    "global_count_times_world": "token-loss-এর যোগফল × world size ÷ সব rank-এর মোট token (ঠিক)",
}


def token_masks(steps: int, accum: int, micro: int, world: int):
    """প্রতি step-এর global batch-এর প্রতিটি নমুনা 'token' কি না (1) নাকি padding (0)।

    ভাষার মডেলে বাক্যের দৈর্ঘ্য আলাদা, তাই micro-batch-এ বৈধ tokenের সংখ্যাও আলাদা; এখানে প্রতিটি micro-batch-এ
    1 থেকে micro-র মধ্যে একটি এলোমেলো (কিন্তু seed-বাঁধা) সংখ্যক নমুনা বৈধ। ক্রম global_batches-এর মতোই।
    """
    g = torch.Generator().manual_seed(SEED + 1)
    masks = []
    for _ in range(steps):
        counts = torch.randint(1, micro + 1, (world * accum,), generator=g)
        masks.append(torch.cat([(torch.arange(micro) < c).float() for c in counts]).unsqueeze(1))
    return masks


def _masked_sum(pred, y, mask):
    return (mask * (pred - y) ** 2).sum()


def single_gradients(steps: int, accum: int, micro: int, world: int):
    """মাপকাঠি: এক process, step 1-এর global batch-এ token-গড় loss-এর gradient আর steps ধাপ পরের ওজন।"""
    model = _new_model()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    first = None
    for (xb, yb), mask in zip(global_batches(steps, accum, micro, world), token_masks(steps, accum, micro, world),
                                 strict=True):
        (_masked_sum(model(xb), yb, mask) / mask.sum()).backward()
        if first is None:
            first = [p.grad.detach().clone() for p in model.parameters()]
        opt.step()
        opt.zero_grad(set_to_none=True)
    return first, [p.detach() for p in model.parameters()]


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


def _train_ddp_tokens(rank: int, world: int, steps: int, accum: int, micro: int, mode: str):
    """DDP + accumulation + token-ভার (no_sync সহ)। ফেরত: (step 1-এর gradient, শেষের ওজন)।"""
    model = DDP(_new_model())
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    first = None
    for (xb, yb), mask in zip(global_batches(steps, accum, micro, world), token_masks(steps, accum, micro, world),
                                 strict=True):
        shards = [(*_shard(xb, yb, rank, world, accum, j), _shard(mask, mask, rank, world, accum, j)[0])
                  for j in range(accum)]
        n_tokens = torch.stack([m.sum() for _, _, m in shards]).sum()
        dist.all_reduce(n_tokens)                  # সব rank-এর মোট token: প্রতি step-এ একটি ছোট allreduce
        for j, (x, y, m) in enumerate(shards):
            with model.no_sync() if j < accum - 1 else nullcontext():
                if mode == "micro_mean":
                    loss = _masked_sum(model(x), y, m) / m.sum() / accum
                elif mode == "global_count":
                    loss = _masked_sum(model(x), y, m) / n_tokens
                else:                              # DDP পরে world দিয়ে ভাগ করবে, তাই আগেই world দিয়ে গুণ
                    loss = _masked_sum(model(x), y, m) * world / n_tokens
                loss.backward()
        if first is None:
            first = [p.grad.detach().clone() for p in model.parameters()]
        opt.step()
        opt.zero_grad(set_to_none=True)
    weights = [p.detach().clone() for p in model.module.parameters()]
    del model                                      # DDP-র Reducer এখনই ছাড়ি
    return first, weights


def _compare(got, ref) -> dict:
    def norm(ts):
        return torch.sqrt(sum((t.double() ** 2).sum() for t in ts)).item()

    pairs = list(zip(got, ref, strict=True))
    return {"max_abs_diff_vs_single": max((a - b).abs().max().item() for a, b in pairs),
            "matches_single": all(torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in pairs),
            "norm_ratio_vs_single": norm(got) / norm(ref)}


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


def _work(rank: int, world: int, steps: int, accum: int, micro: int) -> dict | None:
    """একটি rank-এর কাজ (gloo_workers.run_workers চালায়): তিন sync mode আর token-ভারের তিন উপায়; rank 0 ফল দেয়।"""
    results = {}
    for mode in SYNC_MODES:
        model, n_allreduce, syncs = _train_ddp(rank, world, steps, accum, micro, mode)
        weights = [p.detach().clone() for p in model.parameters()]
        results[mode] = {"allreduce": n_allreduce, "syncs": syncs, "weights": weights,
                         "ranks_agree": _same_on_all_ranks(weights)}
    tokens = {mode: _train_ddp_tokens(rank, world, steps, accum, micro, mode) for mode in TOKEN_MODES}
    if rank != 0:
        return None
    ref = [p.detach() for p in train_single(steps, accum, micro, world).parameters()]
    ref_grad, ref_weights = single_gradients(steps, accum, micro, world)
    report = {"world_size": world, "backend": dist.get_backend(), "steps": steps, "accum": accum,
              "micro": micro, "global_batch": micro * accum * world}
    for mode, r in results.items():
        c = _compare(r["weights"], ref)
        report[mode] = {"allreduce": r["allreduce"], "syncs": r["syncs"], "ranks_agree": r["ranks_agree"],
                        "max_abs_diff_vs_single": c["max_abs_diff_vs_single"],
                        "matches_single": c["matches_single"]}
    report["token_weighting"] = {
        mode: {"grad_norm_ratio_vs_single": _compare(grad, ref_grad)["norm_ratio_vs_single"],
               "grad_matches_single": _compare(grad, ref_grad)["matches_single"],
               "weights_match_single": _compare(weights, ref_weights)["matches_single"],
               "max_abs_weight_diff_vs_single": _compare(weights, ref_weights)["max_abs_diff_vs_single"]}
        for mode, (grad, weights) in tokens.items()}
    return report


def run(steps: int = 3, accum: int = 4, micro: int = 8, world: int = 2) -> dict:
    """world টি process চালিয়ে ফলের dict ফেরত দেয় (নোটবুক এটা subprocess-এ `-m` দিয়ে চালায়)।

    process চালানো, শেষ করা আর একবার আবার চেষ্টা mishran.engines.gloo_workers.run_workers-এর; report["attempts"] বলে কয়বার লাগল।
    """
    return run_workers(_work, world, (steps, accum, micro))


def main(argv=None) -> int:
    """`python -m mishran.engines.ddp`: run() চালিয়ে ফল JSON হিসেবে পর্দায় ছাপে (পাঠ ০৪-এর নোটবুক এটাই পড়ে)।"""
    p = argparse.ArgumentParser(description="DDP + gradient accumulation: no_sync() সহ ও ছাড়া allreduce গোনা")
    p.add_argument("--steps", type=cli.positive_int, default=3, help="optimizer step-এর সংখ্যা")
    p.add_argument("--accum", type=cli.positive_int, default=4, help="প্রতি step-এ micro-step (k)")
    p.add_argument("--micro", type=cli.positive_int, default=8, help="প্রতি process-এ micro-batch-এর মাপ")
    p.add_argument("--world", type=cli.positive_int, default=2, help="process-এর সংখ্যা (world size)")
    args = p.parse_args(argv)
    cli.write_record(run(args.steps, args.accum, args.micro, args.world), "-")
    return 0


if __name__ == "__main__":
    sys.exit(main())
