"""দুই process-এ DDP + gradient accumulation: no_sync() কয়টি allreduce বাঁচায় (পাঠ ০৪)।

    python -m mishran.engines.ddp --steps 3 --accum 4 --micro 8

একটি সত্যিকারের gloo process group-এ MLP-কে তিনভাবে প্রশিক্ষণ দেয় (SYNC_MODES), একটি comm hook প্রতিটি allreduce
গোনে, আর ওজন মেলায় এক process-এর সঙ্গে, যে প্রতি step-এ পুরো global batch একবারে দেখে। token-ভারে গড়
(TOKEN_MODES): DDP gradient-এর rank-গড় নেয়, তাই প্রতি rank-এ "সব rank-এর মোট token" দিয়ে ভাগ করলে world size দিয়ে
গুণও করতে হয়। ফল JSON হিসেবে stdout-এ।
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

__all__ = ["SYNC_MODES", "TOKEN_MODES", "global_batches", "run", "single_gradients", "token_masks", "main"]

D_IN, D_HIDDEN = 8, 32
LR = 0.05
SEED = 0

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


def global_batches(steps: int, accum: int, micro: int, world: int):
    """প্রতি step-এর global batch: (x, y), আকার (micro × accum × world, …)। সব process একই ডেটা বানায়।"""
    x, y = synthetic_regression(n=steps * accum * micro * world, d=D_IN, seed=SEED)
    size = accum * micro * world
    return [(x[s * size:(s + 1) * size], y[s * size:(s + 1) * size]) for s in range(steps)]


def token_masks(steps: int, accum: int, micro: int, world: int):
    """প্রতি step-এর global batch-এর প্রতিটি নমুনা 'token' (1) নাকি padding (0): বাক্যের দৈর্ঘ্যের মতো, প্রতিটি
    micro-batch-এ 1 থেকে micro-র মধ্যে একটি এলোমেলো (seed-বাঁধা) সংখ্যক নমুনা বৈধ।"""
    g = torch.Generator().manual_seed(SEED + 1)
    counts = [torch.randint(1, micro + 1, (world * accum,), generator=g) for _ in range(steps)]
    return [torch.cat([(torch.arange(micro) < c).float() for c in step]).unsqueeze(1) for step in counts]


def _shard(tensors, rank: int, world: int, accum: int, j: int) -> list:
    """global batch-এর (x, y, mask) যে টুকরো rank পায় micro-step j-তে: আগে rank ধরে ভাগ, তারপর micro ধরে।"""
    per_rank = len(tensors[0]) // world
    micro = per_rank // accum
    lo = rank * per_rank + j * micro
    return [t[lo:lo + micro] for t in tensors]


def _new_model():
    return MLP(D_IN, D_HIDDEN, 1, n_layers=2, seed=SEED)


def _masked_sum(pred, y, mask):
    return (mask * (pred - y) ** 2).sum()


def single_gradients(steps: int, accum: int, micro: int, world: int, tokens: bool = True):
    """মাপকাঠি: এক process, প্রতি step-এ পুরো global batch একবারে; ফেরত (step 1-এর gradient, steps ধাপ পরের ওজন)।
    tokens=True: token-গড় loss (token_masks); False: সব নমুনার সাধারণ গড়।"""
    model = _new_model()
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    first = None
    for (xb, yb), mask in zip(global_batches(steps, accum, micro, world), token_masks(steps, accum, micro, world),
                              strict=True):
        loss = _masked_sum(model(xb), yb, mask) / mask.sum() if tokens else F.mse_loss(model(xb), yb)
        loss.backward()
        if first is None:
            first = [p.grad.detach().clone() for p in model.parameters()]
        opt.step()
        opt.zero_grad(set_to_none=True)
    return first, [p.detach() for p in model.parameters()]


def _loss(pred, y, mask, tokens: str | None, accum: int, n_tokens, world: int):
    """একটি micro-step-এর loss: tokens=None হলে সাধারণ গড় ÷ k, নইলে TOKEN_MODES-এর নিয়মে।"""
    if tokens is None:
        return F.mse_loss(pred, y) / accum             # gradient যোগ হয়; আমরা চাই গড়
    if tokens == "micro_mean":
        return _masked_sum(pred, y, mask) / mask.sum() / accum
    factor = world if tokens == "global_count_times_world" else 1     # DDP পরে world দিয়ে ভাগ করবে
    return _masked_sum(pred, y, mask) * factor / n_tokens


def _train_ddp(rank: int, world: int, steps: int, accum: int, micro: int, sync: str = "no_sync",
               tokens: str | None = None):
    """DDP-তে accumulation, sync (SYNC_MODES) আর tokens (TOKEN_MODES, বা None) নিয়মে; ফেরত: (step 1-এর gradient,
    শেষের ওজন, কয়টি allreduce)। প্রতি sync-এ প্রতি bucket একটি allreduce; এই ছোট MLP-র bucket একটিই।"""
    model = DDP(_new_model())
    count = {"allreduce": 0}

    def counting_hook(state, bucket):
        state["allreduce"] += 1                        # গুনে নিয়ে DDP-র নিজের allreduce (গড়)
        return default_hooks.allreduce_hook(None, bucket)

    model.register_comm_hook(count, counting_hook)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    first = None
    for (xb, yb), mask in zip(global_batches(steps, accum, micro, world), token_masks(steps, accum, micro, world),
                              strict=True):
        shards = [_shard((xb, yb, mask), rank, world, accum, j) for j in range(accum)]
        n_tokens = torch.stack([m.sum() for _, _, m in shards]).sum()
        if tokens is not None:
            dist.all_reduce(n_tokens)                  # সব rank-এর মোট token: প্রতি step-এ একটি ছোট allreduce
        for j, (x, y, m) in enumerate(shards):
            # nanoGPT-এর মতো: শেষ micro-step ছাড়া sync বন্ধ; gradient শুধু নিজের process-এ জমে
            skip = sync == "never_sync" or (sync == "no_sync" and j < accum - 1)
            with model.no_sync() if skip else nullcontext():
                _loss(model(x), y, m, tokens, accum, n_tokens, world).backward()   # sync হলে এখানেই allreduce
        if first is None:
            first = [p.grad.detach().clone() for p in model.parameters()]
        opt.step()
        opt.zero_grad(set_to_none=True)
    weights = [p.detach().clone() for p in model.module.parameters()]
    del model                                          # DDP-র Reducer এখনই ছাড়ি
    return first, weights, count["allreduce"]


def _compare(got, ref) -> dict:
    """got বনাম ref (tensor-এর তালিকা, সব উপাদান এক সারিতে): সবচেয়ে বড় পার্থক্য, মেলে কি না, norm-এর অনুপাত।"""
    a, b = (torch.cat([t.double().flatten() for t in ts]) for ts in (got, ref))
    return {"max_abs_diff_vs_single": (a - b).abs().max().item(),
            "matches_single": torch.allclose(a, b, rtol=1e-5, atol=1e-6),
            "norm_ratio_vs_single": (a.norm() / b.norm()).item()}


def _same_on_all_ranks(tensors) -> bool:
    """rank 0-এর tensor সবার কাছে পাঠিয়ে মেলাই; সব rank-এ মিললে তবেই True।"""
    mine = torch.cat([p.flatten() for p in tensors])
    rank0 = mine.clone()
    dist.broadcast(rank0, src=0)
    flag = torch.tensor([int(torch.equal(mine, rank0))])
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def _work(rank: int, world: int, steps: int, accum: int, micro: int) -> dict | None:
    """একটি rank-এর কাজ (gloo_workers.run_workers চালায়): তিন sync mode আর token-ভারের তিন উপায়; rank 0 ফল দেয়।"""
    sizes = (steps, accum, micro)
    synced = {mode: _train_ddp(rank, world, *sizes, sync=mode) for mode in SYNC_MODES}
    agree = {mode: _same_on_all_ranks(weights) for mode, (_, weights, _) in synced.items()}
    tokens = {mode: _train_ddp(rank, world, *sizes, tokens=mode) for mode in TOKEN_MODES}
    if rank != 0:
        return None
    _, ref = single_gradients(*sizes, world, tokens=False)
    ref_grad, ref_weights = single_gradients(*sizes, world)
    report = {"world_size": world, "backend": dist.get_backend(), "steps": steps, "accum": accum,
              "micro": micro, "global_batch": micro * accum * world, "token_weighting": {}}
    for mode, (_, weights, n_allreduce) in synced.items():
        report[mode] = {"allreduce": n_allreduce, "ranks_agree": agree[mode], **_compare(weights, ref)}
    for mode, (grad, weights, _) in tokens.items():
        g = _compare(grad, ref_grad)
        report["token_weighting"][mode] = {"grad_norm_ratio_vs_single": g["norm_ratio_vs_single"],
                                           "grad_matches_single": g["matches_single"],
                                           "weights_match_single": _compare(weights, ref_weights)["matches_single"]}
    return report


def run(steps: int = 3, accum: int = 4, micro: int = 8, world: int = 2) -> dict:
    """world টি process চালিয়ে ফলের dict ফেরত দেয়, সঙ্গে gloo_workers.run_workers-এর "attempts" (পাঠ ০৪)।"""
    return run_workers(_work, world, (steps, accum, micro))


def main(argv=None) -> int:
    """`python -m mishran.engines.ddp`: run() চালিয়ে ফল JSON হিসেবে পর্দায় ছাপে (পাঠ ০৪-এর নোটবুক এটাই পড়ে)।"""
    p = argparse.ArgumentParser(prog="python -m mishran.engines.ddp",
                                description="DDP + gradient accumulation: no_sync() সহ ও ছাড়া allreduce গোনা")
    p.add_argument("--steps", type=cli.positive_int, default=3, help="optimizer step-এর সংখ্যা")
    p.add_argument("--accum", type=cli.positive_int, default=4, help="প্রতি step-এ micro-step (k)")
    p.add_argument("--micro", type=cli.positive_int, default=8, help="প্রতি process-এ micro-batch-এর মাপ")
    p.add_argument("--world", type=cli.positive_int, default=2, help="process-এর সংখ্যা (world size)")
    args = p.parse_args(argv)
    cli.write_record(run(args.steps, args.accum, args.micro, args.world), "-")
    return 0


if __name__ == "__main__":
    sys.exit(main())
