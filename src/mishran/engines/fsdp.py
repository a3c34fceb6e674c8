"""PyTorch-এর নিজের sharding: FSDP2 আর MixedPrecisionPolicy (পাঠ ০৯, অংশ ১–২)।

    python -m mishran.engines.fsdp --world 2 --steps 3                  # চারটি policy, দুই process (gloo, CPU)
    python -m mishran.engines.fsdp --world 2 --steps 3 --policies bf16,fp32

FSDP2 (`fully_shard`) ওজন, gradient আর optimizer state সব rank-এ ভাগ করে; mixed precision আসে `MixedPrecisionPolicy`
থেকে: param_dtype (all-gather করা ওজন, তাই হিসাব), reduce_dtype (gradient-এর গড়)। shard-করা ওজন থাকে মডেলের নিজের
dtype-এ — FP32 মডেলে সেটাই মূল ওজন। run() world টি gloo process-এ প্রতিটি policy (POLICIES) চালিয়ে মাপে কোথায় কোন
dtype, এই rank কত বাইট ধরে, আর এক process-এর FP32 প্রশিক্ষণ থেকে ওজন কত দূরে: একটি FsdpReport।
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.resources
import json
import sys
from dataclasses import asdict, dataclass

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor

from mishran import cli, precision
from mishran.data import BatchStream, CharDataset
from mishran.engines.amp import amp_step
from mishran.engines.gloo_workers import run_workers
from mishran.engines.loop import run_steps
from mishran.engines.model_states import optimizer_state_tensors, unique_tensor_bytes
from mishran.models.gpt import GPTConfig, TinyGPT
from mishran.numerics import communication
from mishran.numerics.error import relative_error

__all__ = ["POLICIES", "MODEL", "PROBE_LR", "REAL_REDUCE_N", "RankShard", "PolicyResult", "RealReduce", "FsdpReport",
           "mp_policy", "shard_model", "gradient_sync", "run", "main", "recorded_h200", "model_state_bytes"]

POLICIES = {
    "fp32": "কোনো MixedPrecisionPolicy নেই: ওজন, হিসাব, gradient আর reduce সবই FP32 (মাপকাঠি)",
    "bf16": "param_dtype=BF16, reduce_dtype=FP32: হিসাব BF16-এ, gradient-এর গড় FP32-এ, shard-করা ওজন FP32 (প্রস্তাবিত)",
    "bf16_reduce": "param_dtype=BF16, reduce_dtype=BF16: reduce-scatter-ও BF16-এ — অর্ধেক বাইট, কিন্তু গড় BF16-এর "
                   "সূক্ষ্মতায়",
    "cast_first": "ভুল: fully_shard-এর আগে model.to(torch.bfloat16) — shard-করা ওজনই BF16, FP32 মূল ওজন নেই",
}
"""policy-র নাম → ছোট বর্ণনা (পাঠ ০৯)। নামগুলোই run()-এর policies আর নোটবুকের টেবিলের সারি।"""

MODEL = dict(block_size=32, n_layer=2, n_head=4, n_embd=64)
"""ডেমোর TinyGPT-এর মাপ (পাঠ ০৯): CPU-তে দুই process-এ চারটি policy কয়েক সেকেন্ডে।"""

PROBE_LR = 1e-5
"""শেষে একটি বাড়তি step এই learning rate-এ (পাঠ ০৯): BF16 ওজনে এত ছোট update হারিয়ে যায়, FP32-এ থাকে।"""

SEED = 0


# ---------------------------------------------------------------- ফল

@dataclass
class RankShard:
    """একটি rank যা ধরে রাখে (পাঠ ০৯): shard-এর ওজনের সংখ্যা, আর ওজন, gradient ও AdamW-এর অবস্থার বাইট।"""

    rank: int
    param_numel: int
    param_bytes: int
    grad_bytes: int
    optim_bytes: int


@dataclass
class PolicyResult:
    """একটি policy-র মাপ (পাঠ ০৯): policy (MixedPrecisionPolicy-র ঘরগুলো), কোথায় কোন dtype (hook দিয়ে মাপা),
    per_rank (RankShard), losses, unchanged_fraction (PROBE_LR-এর step-এ একটুও না-বদলানো ওজনের ভাগ),
    bytes_per_param (সব rank-এর ওজন + gradient + AdamW ÷ Ψ), আর এক process-এর FP32 প্রশিক্ষণ থেকে সবচেয়ে বড় পার্থক্য।"""

    policy: dict
    sharded_param_dtype: str
    compute_param_dtype: str
    block_output_dtype: str
    logits_dtype: str
    grad_dtype: str
    optim_state_dtype: str
    per_rank: list
    losses: list
    unchanged_fraction: float
    bytes_per_param: float
    max_abs_diff_vs_fp32_single: float


@dataclass
class RealReduce:
    """আসল gloo allreduce বনাম এক CPU-র ring অনুকরণ, BF16 আর FP32-এ: বিটে বিটে মেলে কি না, FP64 থেকে ত্রুটি (পাঠ ০৯)।"""

    world: int
    n: int
    bf16_matches_simulation: bool
    bf16_error: float
    fp32_matches_simulation: bool
    fp32_error: float


@dataclass
class FsdpReport:
    """run()-এর ফল (পাঠ ০৯): policies (নাম → PolicyResult), real_reduce, আর run_workers-এর attempts ও seconds।"""

    world_size: int
    backend: str
    torch_version: str
    steps: int
    micro: int
    accum: int
    global_batch: int
    num_params: int
    lr: float
    probe_lr: float
    policies: dict
    real_reduce: RealReduce
    attempts: int
    seconds: float

    def to_dict(self) -> dict:
        """JSON-যোগ্য dict (ভেতরের ফলগুলোও dict হয়ে)।"""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> FsdpReport:
        """to_dict()-এর (বা command line-এর JSON-এর) উল্টো (পাঠ ০৯-এর নোটবুক এটাই পড়ে)।"""
        policies = {name: PolicyResult(**{**r, "per_rank": [RankShard(**x) for x in r["per_rank"]]})
                    for name, r in data["policies"].items()}
        return cls(**{**data, "policies": policies, "real_reduce": RealReduce(**data["real_reduce"])})


# ---------------------------------------------------------------- policy আর sharding

def mp_policy(name) -> MixedPrecisionPolicy | None:
    """policy-র নাম → fully_shard-এর MixedPrecisionPolicy; "fp32"-এ None (পাঠ ০৯)। "cast_first"-এর policy "bf16"-এরই:
    ভুলটা policy-তে নয়, fully_shard-এর আগের model.to(torch.bfloat16)-এ।"""
    if name == "fp32":
        return None
    low, high = precision.dtype_of("bf16"), precision.dtype_of("fp32")
    return MixedPrecisionPolicy(param_dtype=low, reduce_dtype=low if name == "bf16_reduce" else high)


def shard_model(model, policy: str = "bf16", reshard_after_forward: bool = True, mesh=None):
    """মডেলের প্রতিটি block (model.transformer.h), তারপর পুরো মডেলকে fully_shard করে; মডেলটাই ফেরত দেয় (পাঠ ০৯)।

    block ধরে আলাদা ভাগ: forward-এ একবারে একটি block-এর ওজনই পুরো (all-gather) হয়; বাকি ওজন root-এর ভাগে।
    "cast_first"-এ আগে model.to(torch.bfloat16) — ইচ্ছা করে করা ভুল। mesh=None: চালু process group-এর device mesh।
    """
    if policy == "cast_first":
        model.to(precision.dtype_of("bf16"))
    options = dict(mesh=mesh, reshard_after_forward=reshard_after_forward,
                   mp_policy=mp_policy(policy) or MixedPrecisionPolicy())
    blocks = model.transformer.h
    for block in blocks:
        fully_shard(block, **options)
    fully_shard(model, **options)
    return model


def gradient_sync(model):
    """amp_step-এর `sync=`: FSDP2-এর no_sync — মাঝের micro-step-এ gradient এই rank-এ জমে (reduce_dtype-এ), শেষটিতে
    একবারই reduce-scatter (পাঠ ০৯)।"""

    @contextlib.contextmanager
    def sync(i: int, k: int):
        model.set_requires_gradient_sync(i == k - 1)
        yield

    return sync


# ---------------------------------------------------------------- একটি rank-এর মাপ

def _local(t: torch.Tensor) -> torch.Tensor:
    return t.to_local() if isinstance(t, DTensor) else t


def _bytes(tensors) -> int:
    """এই rank-এর ভাগের বাইট (DTensor হলে তার local shard)।"""
    return unique_tensor_bytes(_local(t) for t in tensors)


def _dtype(tensors) -> str | None:
    """tensor-গুলোর dtype-এর নাম ('fp32', 'bf16'); কয়েকটি হলে '+' দিয়ে জোড়া; কিছু না থাকলে None।"""
    names = sorted({precision.name_of(t.dtype) for t in tensors})
    return "+".join(names) or None


def model_state_bytes(model, optimizer) -> dict:
    """FSDP2-এ এই rank-এর model state, mishran.engines.deepspeed_engine.model_state_bytes-এর খাতেই (পাঠ ০৯): shard-করা
    ওজন (FP32 মডেলে সেটাই মূল ওজন, তাই master_weights 0), AdamW-এর exp_avg আর exp_avg_sq-এর ভাগ, এই মুহূর্তের gradient।"""
    params = list(model.parameters())
    out = {"params": _bytes(params), "master_weights": 0,
           "optimizer_states": _bytes(optimizer_state_tensors(optimizer)),
           "grads": _bytes(p.grad for p in params if p.grad is not None)}
    out["total"] = sum(out.values())
    return out


def _probe(model, optimizer) -> tuple[dict, list]:
    """dtype দেখার hook: block 0-এর একটি Linear যে ওজনে হিসাব করে, block 0-এর output, logits, step-এর আগে gradient।"""
    seen = {}

    def compute(module, args):                  # FSDP2 এখানে ওজন all-gather করে module-এ বসিয়ে রেখেছে
        seen["compute_param_dtype"] = precision.name_of(module.weight.dtype)

    def block_output(module, args, out):
        seen["block_output_dtype"] = precision.name_of(out.dtype)

    def logits(module, args, out):
        seen["logits_dtype"] = precision.name_of(out[0].dtype)

    def grads(opt, args, kwargs):               # optimizer step-এর ঠিক আগে: shard-করা gradient
        found = [p.grad for g in opt.param_groups for p in g["params"] if p.grad is not None]
        seen["grad_dtype"], seen["grad_bytes"] = _dtype(found), _bytes(found)

    block = model.transformer.h[0]
    handles = [block.attn.c_attn.register_forward_pre_hook(compute), block.register_forward_hook(block_output),
               model.register_forward_hook(logits), optimizer.register_step_pre_hook(grads)]
    return seen, handles


def _new_model(data) -> TinyGPT:
    return TinyGPT(GPTConfig(vocab_size=data.vocab_size, **MODEL), seed=SEED)


def _step(model, optimizer, batches: list, sync=None) -> torch.Tensor:
    """একটি optimizer step, amp_step দিয়ে (autocast বন্ধ — cast করে policy); ফেরত: micro-batch-গুলোর loss-এর যোগফল।"""
    ctx, scaler = precision.autocast("cpu", "fp32"), precision.grad_scaler("cpu", "fp32")
    loss, _ = amp_step(model, optimizer, scaler, ctx, batches, sync=sync)
    return loss * len(batches)


def _full_weights(model) -> list:
    """সব rank মিলে পুরো ওজন (DTensor.full_tensor(): সবাইকে একসঙ্গে ডাকতে হয়)।"""
    return [(p.full_tensor() if isinstance(p, DTensor) else p).detach().clone() for p in model.parameters()]


def _train_policy(name: str, rank: int, world: int, sizes: tuple, lr: float, data, mesh) -> dict:
    """এই rank-এ একটি policy: shard, steps-টি step, মাপ, তারপর PROBE_LR-এ একটি বাড়তি step।"""
    steps, micro, accum = sizes
    model = shard_model(_new_model(data), name, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    seen, handles = _probe(model, optimizer)
    stream = BatchStream(data, micro, accum, MODEL["block_size"], world_size=world, rank=rank, seed=SEED)
    sync = gradient_sync(model)

    def next_batches():
        return [stream() for _ in range(accum)]

    # loss সব rank আর সব micro-batch-এর গড় (run_steps নিজেই all_reduce করে)
    losses, _ = run_steps(lambda batches: _step(model, optimizer, batches, sync), next_batches, steps, "cpu")
    params, states = list(model.parameters()), optimizer_state_tensors(optimizer)
    mine = {"rank": rank, "param_numel": sum(_local(p).numel() for p in params), "param_bytes": _bytes(params),
            "grad_bytes": seen["grad_bytes"], "optim_bytes": _bytes(states)}
    out = {"sharded_param_dtype": _dtype(params), "optim_state_dtype": _dtype(states),
           "losses": losses, "weights": _full_weights(model)}
    for group in optimizer.param_groups:
        group["lr"] = PROBE_LR
    _step(model, optimizer, next_batches(), sync)
    after = _full_weights(model)
    same = sum(int((a == b).sum()) for a, b in zip(out["weights"], after, strict=True))
    out["unchanged_fraction"] = same / sum(a.numel() for a in after)
    for handle in handles:
        handle.remove()
    per_rank = [None] * world
    dist.all_gather_object(per_rank, mine)
    out.update({k: seen[k] for k in ("compute_param_dtype", "block_output_dtype", "logits_dtype", "grad_dtype")})
    return {**out, "per_rank": per_rank}


def _reference(data, sizes: tuple, world: int, lr: float) -> list:
    """মাপকাঠি: এক process, shard ছাড়া FP32, একই global batch (world·accum টি micro-batch-এর গড়)।"""
    steps, micro, accum = sizes
    model = _new_model(data)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    stream = BatchStream(data, micro, accum * world, MODEL["block_size"], world_size=1, rank=0, seed=SEED)
    for _ in range(steps):
        _step(model, optimizer, [stream() for _ in range(accum * world)])
    return [p.detach() for p in model.parameters()]


def _policy_report(name: str, r: dict, ref: list, psi: int) -> dict:
    # সব rank-এর গড় বাইট ÷ (Ψ / world) = সব rank-এর মোট বাইট ÷ Ψ
    total = sum(x["param_bytes"] + x["grad_bytes"] + x["optim_bytes"] for x in r["per_rank"])
    diff = max((a.double() - b.double()).abs().max().item() for a, b in zip(r["weights"], ref, strict=True))
    policy = {k: precision.name_of(v) if isinstance(v, torch.dtype) else v
              for k, v in asdict(mp_policy(name) or MixedPrecisionPolicy()).items()}
    return {"policy": policy, **{k: v for k, v in r.items() if k != "weights"}, "bytes_per_param": total / psi,
            "max_abs_diff_vs_fp32_single": diff}


# ---------------------------------------------------------------- process-গুলো

REAL_REDUCE_N = 4096
"""আসল যোগের মিল দেখার নমুনায় প্রতি rank-এ কয়টি সংখ্যা (পাঠ ০৯, অংশ ৩)।"""


def _real_reduce(rank: int, world: int) -> dict:
    """সব rank একই নমুনা বানায় (communication.gradient_sample), প্রত্যেকে নিজের সারিটা gloo-র allreduce দিয়ে BF16 আর
    FP32-এ যোগ করে; rank 0 ফলটা মেলায় এক CPU-র ring অনুকরণের সঙ্গে (বিটে বিটে) আর FP64-এর যোগফলের সঙ্গে।"""
    sample = communication.gradient_sample(world, REAL_REDUCE_N, seed=0)
    exact = sample.sum(0)
    out = {"world": world, "n": REAL_REDUCE_N}
    for name in ("bf16", "fp32"):
        mine = sample[rank].to(precision.dtype_of(name)).clone()
        dist.all_reduce(mine)                                         # যোগ (SUM), তারে এই dtype-এ
        simulated = communication.ring_reduce_scatter(sample, name)
        out[f"{name}_matches_simulation"] = bool(torch.equal(mine, simulated))
        out[f"{name}_error"] = relative_error(mine, exact)
    return out


def _work(rank: int, world: int, policies: tuple, sizes: tuple, lr: float) -> dict | None:
    """একটি rank-এর কাজ (gloo_workers.run_workers চালায়): প্রতিটি policy, তারপর আসল যোগের মিল; rank 0 ফল দেয়।"""
    data = CharDataset()
    mesh = init_device_mesh("cpu", (world,))       # GPU থাকলেও এই ডেমো CPU-তে (gloo)
    results = {name: _train_policy(name, rank, world, sizes, lr, data, mesh) for name in policies}
    real = _real_reduce(rank, world)
    if rank != 0:
        return None
    ref, psi = _reference(data, sizes, world, lr), _new_model(data).num_parameters()
    steps, micro, accum = sizes
    return {"world_size": world, "backend": dist.get_backend(), "torch_version": torch.__version__, "steps": steps,
            "micro": micro, "accum": accum, "global_batch": micro * accum * world, "num_params": psi, "lr": lr,
            "probe_lr": PROBE_LR, "policies": {n: _policy_report(n, r, ref, psi) for n, r in results.items()},
            "real_reduce": real}


def run(policies=tuple(POLICIES), world: int = 2, steps: int = 3, micro: int = 4, accum: int = 2,
        lr: float = 1e-3) -> FsdpReport:
    """world টি gloo process-এ প্রতিটি policy (POLICIES-এর নাম) চালিয়ে rank 0-এর ফল ফেরত দেয় (পাঠ ০৯)।"""
    return FsdpReport.from_dict(run_workers(_work, world, (tuple(policies), (steps, micro, accum), lr)))


def _policy_names(text: str) -> tuple:
    """command line-এর '--policies bf16,fp32' → ('bf16', 'fp32'); অচেনা নাম হলে argparse-এর error।"""
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",")))
    unknown = [name for name in names if name not in POLICIES]
    if unknown:
        raise argparse.ArgumentTypeError(f"অচেনা policy {', '.join(unknown)} (unknown policy); বেছে নাও: "
                                         f"{', '.join(POLICIES)}")
    return names


def main(argv=None) -> int:
    """`python -m mishran.engines.fsdp`: run() চালিয়ে ফল JSON-এ লেখে, ডিফল্টে পর্দায় (পাঠ ০৯-এর নোটবুক এটাই পড়ে)।"""
    p = argparse.ArgumentParser(prog="python -m mishran.engines.fsdp",
                                description="FSDP2 আর MixedPrecisionPolicy: কোথায় কোন dtype, কত বাইট (পাঠ ০৯)")
    p.add_argument("--world", type=cli.positive_int, default=2, help="process-এর সংখ্যা (world size)")
    p.add_argument("--steps", type=cli.positive_int, default=3, help="optimizer step-এর সংখ্যা")
    p.add_argument("--micro", type=cli.positive_int, default=4, help="প্রতি rank-এ micro-batch-এর মাপ")
    p.add_argument("--accum", type=cli.positive_int, default=2, help="প্রতি step-এ micro-step (k)")
    p.add_argument("--lr", type=cli.positive_float, default=1e-3, help="AdamW-এর learning rate")
    p.add_argument("--policies", type=_policy_names, default=tuple(POLICIES),
                   help=f"কমা দিয়ে: {', '.join(POLICIES)}")
    p.add_argument("--out", default="-", help="ফলের JSON ফাইল ('-': পর্দায়)")
    args = p.parse_args(argv)
    cli.write_record(run(args.policies, args.world, args.steps, args.micro, args.accum, args.lr), args.out)
    return 0


def recorded_h200() -> dict:
    """কোর্সের লেখকদের H200-এ মাপা পাঠ ০৯-এর অংশ ৪: DeepSpeed ZeRO-1/2/3 আর FSDP2 পাশাপাশি (tools/lesson09_gpu.sh,
    tools/lesson09_record.py), mishran/results/lesson09_h200.json থেকে; GPU ছাড়া দেখানোর জন্য, তোমার যন্ত্রে মাপা নয়।"""
    path = importlib.resources.files("mishran") / "results" / "lesson09_h200.json"
    return json.loads(path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.exit(main())
