"""PyTorch-এর নিজের sharding: FSDP2 আর MixedPrecisionPolicy (পাঠ ০৯, অংশ ১–২)।

    python -m mishran.engines.fsdp --world 2 --steps 3                  # চারটি policy, দুই process (gloo, CPU)
    python -m mishran.engines.fsdp --world 2 --steps 3 --policies bf16,fp32

DeepSpeed ZeRO-3-এর মতো FSDP2-ও (`torch.distributed.fsdp.fully_shard`) ওজন, gradient আর optimizer state সব
rank-এ ভাগ (shard) করে রাখে: forward-এর আগে একটি block-এর ওজন all-gather, backward-এর পরে gradient
reduce-scatter। mixed precision আসে autocast থেকে নয়, `MixedPrecisionPolicy` থেকে: param_dtype (all-gather করা
ওজন, তাই হিসাব, কোন dtype-এ), reduce_dtype (gradient-এর গড় কোন dtype-এ)। shard-করা ওজন থাকে মডেলের নিজের dtype-এ
— FP32 মডেলে সেটাই FP32 মূল ওজন, আলাদা কপি লাগে না। POLICIES চারটি উপায় পাশাপাশি রাখে; "cast_first" সেই ভুল,
যেখানে `model.to(torch.bfloat16)` আগে হয়ে যায়: তখন optimizer BF16 ওজনই হালনাগাদ করে, আর ছোট update হারিয়ে যায়
(পাঠ ০১-এর lost update)।

run() ddp_demo-র মতোই world টি gloo process চালায়, mishran.engines.gloo_workers.run_workers দিয়ে (TCPStore parent-এর,
port 0; শেষে barrier, destroy_process_group, os._exit(0) — কেন, তা সেই মডিউলের docstring-এ)। প্রতিটি policy-তে প্রতিটি rank
একই মডেল বানিয়ে shard করে, mishran.engines.amp.amp_step দিয়ে কয়েক step প্রশিক্ষণ দেয়, আর মাপে: কোথায় কোন dtype,
এই rank কত বাইট ধরে রাখে, আর এক process-এর FP32 প্রশিক্ষণ থেকে ওজন কত দূরে। ফল এক লাইনের JSON।
GPU-তে (torchrun, NCCL) shard_model-ই যথেষ্ট: mesh=None মানে চালু process group-এর device mesh।
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.resources
import json
import math
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor

from mishran import precision
from mishran.checks import as_bool, finite_float, positive_int
from mishran.data import BatchStream, CharDataset
from mishran.engines.amp import amp_step
from mishran.engines.gloo_workers import run_workers
from mishran.engines.model_states import optimizer_state_tensors, unique_tensor_bytes
from mishran.models.gpt import GPTConfig, TinyGPT
from mishran.numerics import communication

__all__ = ["POLICIES", "MODEL", "PROBE_LR", "REAL_REDUCE_N", "mp_policy", "shard_model", "gradient_sync", "run", "main",
           "recorded_h200", "model_state_bytes"]

POLICIES = {
    "fp32": "কোনো MixedPrecisionPolicy নেই: ওজন, হিসাব, gradient আর reduce সবই FP32 (মাপকাঠি)",
    "bf16": "param_dtype=BF16, reduce_dtype=FP32: হিসাব BF16-এ, gradient-এর গড় FP32-এ, shard-করা ওজন FP32 "
            "(প্রস্তাবিত)",
    "bf16_reduce": "param_dtype=BF16, reduce_dtype=BF16: reduce-scatter-ও BF16-এ — অর্ধেক বাইট পাঠানো, কিন্তু "
                   "গড়টা BF16-এর সূক্ষ্মতায়",
    "cast_first": "ভুল: fully_shard-এর আগে model.to(torch.bfloat16), policy bf16 — shard-করা ওজনই BF16, FP32 "
                  "মূল ওজন নেই",
}
"""policy-র নাম → ছোট বর্ণনা (পাঠ ০৯)। নামগুলোই run()-এর policies আর নোটবুকের টেবিলের সারি।"""

MODEL = dict(block_size=32, n_layer=2, n_head=4, n_embd=64)
"""ডেমোর TinyGPT-এর মাপ (পাঠ ০৯): CPU-তে দুই process-এ চারটি policy কয়েক সেকেন্ডে।"""

PROBE_LR = 1e-5
"""শেষে একটি বাড়তি step এই learning rate-এ (পাঠ ০৯): BF16 ওজনে এত ছোট update হারিয়ে যায়, FP32-এ থাকে।"""

SEED = 0
MAX_WORLD = 8
MAX_SAMPLES = 20_000                     # steps × accum × micro × world: ডেমো CPU-তে কয়েক সেকেন্ডে শেষ হওয়ার মাপ


# ---------------------------------------------------------------- policy আর sharding

def _policy_name(name) -> str:
    if not isinstance(name, str) or name not in POLICIES:
        raise ValueError(f"অচেনা policy {name!r} (unknown policy); বেছে নাও: {', '.join(map(repr, POLICIES))}")
    return name


def mp_policy(name) -> MixedPrecisionPolicy | None:
    """policy-র নাম → fully_shard-এর MixedPrecisionPolicy; "fp32"-এ None (কোনো cast নেই) (পাঠ ০৯)।

    "cast_first"-এর policy "bf16"-এরই: ভুলটা policy-তে নয়, fully_shard-এর আগের model.to(torch.bfloat16)-এ।
    """
    name = _policy_name(name)
    if name == "fp32":
        return None
    low, high = precision.dtype_of("bf16"), precision.dtype_of("fp32")
    return MixedPrecisionPolicy(param_dtype=low, reduce_dtype=low if name == "bf16_reduce" else high)


def shard_model(model, policy: str = "bf16", reshard_after_forward: bool = True, mesh=None):
    """মডেলের প্রতিটি block (model.transformer.h), তারপর পুরো মডেলকে fully_shard করে; মডেলটাই ফেরত দেয় (পাঠ ০৯)।

    block ধরে আলাদা ভাগ: forward-এ একবারে একটি block-এর ওজনই পুরো (all-gather) হয়। বাকি ওজন (embedding,
    lm_head, শেষের LayerNorm) root-এর ভাগে। "cast_first"-এ আগে model.to(torch.bfloat16) — ইচ্ছা করে করা ভুল।
    mesh=None: চালু process group-এর device mesh (GPU থাকলে CUDA, নইলে CPU); যেকোনো world size, এক rank-ও চলে।
    """
    name = _policy_name(policy)
    reshard = as_bool(reshard_after_forward, "reshard_after_forward")
    blocks = getattr(getattr(model, "transformer", None), "h", None)
    if not isinstance(model, torch.nn.Module) or not isinstance(blocks, torch.nn.ModuleList) or not len(blocks):
        raise TypeError(f"model হবে TinyGPT-এর মতো, যার block-গুলো model.transformer.h-এ (model must have "
                        f"transformer.h blocks); পেয়েছি {type(model).__name__}")
    if isinstance(model, FSDPModule):
        raise ValueError("মডেলটি আগেই shard করা (model is already sharded); নতুন মডেল বানিয়ে shard করো")
    if mesh is not None and not isinstance(mesh, DeviceMesh):
        raise TypeError(f"mesh হবে DeviceMesh বা None (mesh must be a DeviceMesh or None); পেয়েছি {mesh!r}")
    if not dist.is_initialized():
        raise RuntimeError("process group চালু নেই (default process group is not initialized): আগে "
                           "torch.distributed.init_process_group(...) বা torchrun দিয়ে চালাও")
    if name == "cast_first":
        model.to(precision.dtype_of("bf16"))
    options = dict(mesh=mesh, reshard_after_forward=reshard, mp_policy=mp_policy(name) or MixedPrecisionPolicy())
    for block in blocks:
        fully_shard(block, **options)
    fully_shard(model, **options)
    return model


def gradient_sync(model):
    """amp_step-এর `sync=`: FSDP2-এর no_sync — শেষ micro-step ছাড়া gradient-এর reduce-scatter বন্ধ (পাঠ ০৯)।

    sync(i, k) i-তম micro-step-এর আগে model.set_requires_gradient_sync(i == k − 1) ডাকে; মাঝের micro-step-এ
    gradient এই rank-এ জমে (reduce_dtype-এ), শেষটিতে একবারই reduce-scatter।
    """
    if not callable(getattr(model, "set_requires_gradient_sync", None)):
        raise TypeError(f"model হবে shard_model(...)-এর মডেল (model must be an FSDP2 module); পেয়েছি "
                        f"{type(model).__name__}")

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
    if not isinstance(model, torch.nn.Module) or not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"model হবে nn.Module আর optimizer একটি torch optimizer (model must be a module, optimizer an "
                        f"optimizer); পেয়েছি {type(model).__name__}, {type(optimizer).__name__}")
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


def _step(model, optimizer, stream, accum: int, sync=None) -> torch.Tensor:
    """একটি optimizer step, mishran.engines.amp.amp_step দিয়ে; autocast আর GradScaler বন্ধ — cast করে policy।"""
    ctx, scaler = precision.autocast("cpu", "fp32"), precision.grad_scaler("cpu", "fp32")
    loss, _ = amp_step(model, optimizer, scaler, ctx, (stream() for _ in range(accum)), accum, sync=sync)
    return loss


def _full_weights(model) -> list:
    """সব rank মিলে পুরো ওজন (DTensor.full_tensor(): সবাইকে একসঙ্গে ডাকতে হয়)।"""
    return [p.full_tensor().detach().clone() if isinstance(p, DTensor) else p.detach().clone()
            for p in model.parameters()]


def _train_policy(name: str, rank: int, world: int, sizes: tuple, lr: float, data, mesh) -> dict:
    """এই rank-এ একটি policy: shard, steps-টি step, মাপ, তারপর PROBE_LR-এ একটি বাড়তি step।"""
    steps, micro, accum = sizes
    model = shard_model(_new_model(data), name, mesh=mesh)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    seen, handles = _probe(model, optimizer)
    stream = BatchStream(data, micro, accum, MODEL["block_size"], world_size=world, rank=rank, seed=SEED)
    sync = gradient_sync(model)
    losses = []
    for _ in range(steps):
        loss = _step(model, optimizer, stream, accum, sync)
        dist.all_reduce(loss)                   # সব rank-এর গড়: প্রতিটি rank-এর loss নিজের micro-batch-গুলোর গড়
        losses.append(loss.item() / world)
    params = list(model.parameters())
    mine = {"rank": rank, "param_numel": sum(_local(p).numel() for p in params), "param_bytes": _bytes(params),
            "grad_bytes": seen["grad_bytes"], "optim_bytes": _bytes(optimizer_state_tensors(optimizer))}
    out = {"sharded_param_dtype": _dtype(params), "optim_state_dtype": _dtype(optimizer_state_tensors(optimizer)),
           "losses": losses, "weights": _full_weights(model)}
    for group in optimizer.param_groups:
        group["lr"] = PROBE_LR
    _step(model, optimizer, stream, accum, sync)
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
        _step(model, optimizer, stream, accum * world)
    return [p.detach() for p in model.parameters()]


def _policy_fields(name: str) -> dict:
    policy = mp_policy(name) or MixedPrecisionPolicy()

    def dtype_name(dtype):
        return None if dtype is None else precision.name_of(dtype)

    return {"param_dtype": dtype_name(policy.param_dtype), "reduce_dtype": dtype_name(policy.reduce_dtype),
            "output_dtype": dtype_name(policy.output_dtype), "cast_forward_inputs": policy.cast_forward_inputs}


def _policy_report(name: str, r: dict, ref: list, psi: int) -> dict:
    # সব rank-এর গড় বাইট ÷ (Ψ / world) = সব rank-এর মোট বাইট ÷ Ψ
    total = sum(x["param_bytes"] + x["grad_bytes"] + x["optim_bytes"] for x in r["per_rank"])
    diff = max((a.double() - b.double()).abs().max().item() for a, b in zip(r["weights"], ref, strict=True))
    keys = ("sharded_param_dtype", "compute_param_dtype", "block_output_dtype", "logits_dtype", "grad_dtype",
            "optim_state_dtype", "per_rank", "losses", "unchanged_fraction")
    return {"policy": _policy_fields(name), **{k: r[k] for k in keys},
            "bytes_per_param": total / psi,
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
        out[f"{name}_error"] = communication.relative_error(mine, exact)
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
    return {"world_size": world, "backend": dist.get_backend(), "torch": torch.__version__,
            "steps": steps, "micro": micro, "accum": accum, "global_batch": micro * accum * world,
            "num_params": psi, "lr": lr, "probe_lr": PROBE_LR,
            "policies": {n: _policy_report(n, r, ref, psi) for n, r in results.items()},
            "real_reduce": real}


def _check(policies, world, steps, micro, accum, lr) -> tuple:
    """run()-এর সব মাপ process চালুর আগেই যাচাই: ভুলে বাংলা + English বার্তা।"""
    if isinstance(policies, str):
        policies = tuple(p.strip() for p in policies.split(","))
    if not isinstance(policies, (tuple, list)) or not policies:
        raise ValueError(f"policies হবে POLICIES-এর নামের তালিকা (policies must be a non-empty list of names), যেমন "
                         f"('bf16', 'fp32'); পেয়েছি {policies!r}")
    policies = tuple(_policy_name(p) for p in policies)
    if len(set(policies)) != len(policies):
        raise ValueError(f"একই policy দুবার (duplicate policy): {policies!r}")
    sizes = tuple(positive_int(v, n) for v, n in ((world, "world"), (steps, "steps"), (micro, "micro"),
                                                  (accum, "accum")))
    if sizes[0] > MAX_WORLD:
        raise ValueError(f"world হবে 1 থেকে {MAX_WORLD} (world size: processes on this machine); পেয়েছি {world}")
    if math.prod(sizes) > MAX_SAMPLES:
        raise ValueError(f"world × steps × micro × accum = {math.prod(sizes):,} নমুনা, এই ডেমোর জন্য খুব বেশি "
                         f"(too many samples; at most {MAX_SAMPLES:,})")
    lr = finite_float(lr, "lr", positive=True)
    if lr > 1:
        raise ValueError(f"lr হবে 0 থেকে 1-এর মধ্যে (lr must be in (0, 1]); পেয়েছি {lr!r}")
    return policies, sizes[0], sizes[1:], lr


def run(policies=tuple(POLICIES), world: int = 2, steps: int = 3, micro: int = 4, accum: int = 2,
        lr: float = 1e-3) -> dict:
    """world টি gloo process-এ প্রতিটি policy চালিয়ে rank 0-এর ফল (JSON-যোগ্য dict) ফেরত দেয় (পাঠ ০৯)।

    ফলের "policies"[নাম]-এ: policy-র চারটি ঘর; কোথায় কোন dtype (sharded_param_dtype, compute_param_dtype,
    block_output_dtype, logits_dtype, grad_dtype, optim_state_dtype); per_rank (param_numel আর param/grad/optim
    বাইট); bytes_per_param = সব rank-এর গড় (ওজন + gradient + AdamW) ÷ (Ψ / world); losses (প্রতি step, সব rank
    আর micro-batch-এর গড়); max_abs_diff_vs_fp32_single (steps-এর পরে পুরো ওজন বনাম এক process-এর FP32);
    unchanged_fraction (PROBE_LR-এর বাড়তি step ওজনের কত ভাগ একটুও বদলায়নি)। "real_reduce": দুই (বা world টি) আসল
    process-এর gloo allreduce, BF16 আর FP32-এ, comm_precision-এর ring অনুকরণের সঙ্গে বিটে বিটে মেলে কি না আর তার
    ত্রুটি। process চালানো, বন্ধ করা আর একবার আবার চেষ্টা mishran.engines.gloo_workers.run_workers-এর; "attempts" বলে কয়বার
    লাগল।
    """
    policies, world, sizes, lr = _check(policies, world, steps, micro, accum, lr)
    return run_workers(_work, world, (policies, sizes, lr))


def main(argv=None) -> int:
    """`python -m mishran.engines.fsdp`: run() চালিয়ে ফল এক লাইনের JSON হিসেবে ছাপে (পাঠ ০৯-এর নোটবুক এটাই পড়ে)।"""
    p = argparse.ArgumentParser(description="FSDP2 আর MixedPrecisionPolicy: কোথায় কোন dtype, কত বাইট (পাঠ ০৯)")
    p.add_argument("--world", type=int, default=2, help="process-এর সংখ্যা (world size)")
    p.add_argument("--steps", type=int, default=3, help="optimizer step-এর সংখ্যা")
    p.add_argument("--micro", type=int, default=4, help="প্রতি rank-এ micro-batch-এর মাপ")
    p.add_argument("--accum", type=int, default=2, help="প্রতি step-এ micro-step (k)")
    p.add_argument("--lr", type=float, default=1e-3, help="AdamW-এর learning rate")
    p.add_argument("--policies", default=",".join(POLICIES), help=f"কমা দিয়ে: {', '.join(POLICIES)}")
    args = p.parse_args(argv)
    report = run(args.policies, args.world, args.steps, args.micro, args.accum, args.lr)
    print(json.dumps(report, ensure_ascii=False))
    return 0


def recorded_h200() -> dict:
    """কোর্সের লেখকদের H200-এ মাপা পাঠ ০৯-এর অংশ ৪: DeepSpeed ZeRO-1/2/3 আর FSDP2 পাশাপাশি (tools/lesson09_gpu.sh,
    tools/lesson09_record.py), mishran/results/lesson09_h200.json থেকে; GPU ছাড়া দেখানোর জন্য, তোমার যন্ত্রে মাপা নয়।"""
    path = importlib.resources.files("mishran") / "results" / "lesson09_h200.json"
    return json.loads(path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    sys.exit(main())
