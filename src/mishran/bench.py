"""`python -m mishran.bench`: এই device-এ FP32, TF32, FP16, BF16-এ একটি training step কত সময় নেয় (পাঠ ০৩)।

PyTorch-এর AMP recipe-এর মতো মাপা: warm-up বাদ, সময় মাপার আগে-পরে torch.cuda.synchronize(),
প্রতিটি mode-এর জন্য নতুন মডেল আর peak memory নতুন করে গোনা। এক step = forward + backward + optimizer step।
FLOP গোনে torch.utils.flop_counter.FlopCounterMode (meta device-এ, তাই attention-ও ধরা পড়ে)।

    python -m mishran.bench                       # এই device-এর মাপে
    python -m mishran.bench --modes fp32,bf16 --json
    python -m mishran.bench --compare-loop        # mishran.train-এর loop বনাম হাতে লেখা loop
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import re
import time
from dataclasses import asdict, dataclass, replace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from mishran.hardware import default_device, device_report
from mishran.train import TrainConfig, autocast_for, make_scaler, train

__all__ = ["BenchSizes", "ReferenceTransformer", "PEAK_TFLOPS", "peak_tflops", "count_parameters", "count_flops",
           "time_mode", "compare_loop", "run", "main"]

MODES = ("fp32", "tf32", "fp16", "bf16")

# Dense (sparsity ছাড়া) সর্বোচ্চ গতি, TFLOP/s, NVIDIA-র datasheet থেকে: (নামের regex, বাদ দেওয়ার regex, মান)।
# একই নামের PCIe/NVL সংস্করণের সংখ্যা আলাদা, তাই সেগুলো বাদ (জানা নেই বলা সৎ)।
PEAK_TFLOPS = [
    (r"\bH(100|200)\b", r"PCIe|NVL", "H100/H200 SXM", {"fp32": 67, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4}),
    (r"\bA100\b", None, "A100", {"fp32": 19.5, "tf32": 156, "fp16": 312, "bf16": 312}),
    (r"\bV100\b", r"PCIE", "V100 SXM2", {"fp32": 15.7, "fp16": 125}),
    (r"\bT4\b", None, "T4", {"fp32": 8.1, "fp16": 65}),
]
PEAK_SOURCE = "dense, from NVIDIA datasheets"


def peak_tflops(gpu_name: str) -> tuple[str | None, dict]:
    """GPU-র নাম থেকে (কোন সারি, {mode: dense peak TFLOP/s}); জানা না থাকলে (None, {})।"""
    for pattern, exclude, label, peaks in PEAK_TFLOPS:
        if re.search(pattern, gpu_name) and not (exclude and re.search(exclude, gpu_name, re.I)):
            return label, peaks
    return None, {}


@dataclass
class BenchSizes:
    """reference মডেল আর মাপার আকার।"""

    layers: int
    d_model: int
    batch: int
    seq: int
    vocab: int
    steps: int
    warmup: int

    @classmethod
    def for_device(cls, device: str) -> "BenchSizes":
        """বড় GPU-তে FACTS-এর মাপ (৮ স্তর, d=1024, 32×512); CPU-তে ছোট, যাতে কয়েক সেকেন্ডে শেষ হয়।"""
        if device == "cuda":
            return cls(layers=8, d_model=1024, batch=32, seq=512, vocab=8192, steps=20, warmup=5)
        return cls(layers=2, d_model=128, batch=4, seq=32, vocab=256, steps=5, warmup=3)


class ReferenceTransformer(nn.Module):
    """bench-এর মডেল: embedding → nn.TransformerEncoder → linear head; nanoGPT-এর মতো (logits, loss) দেয়।"""

    def __init__(self, layers: int, d_model: int, vocab: int):
        super().__init__()
        heads = max(1, d_model // 64) if d_model % 64 == 0 else 1
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx, targets=None):
        logits = self.head(self.encoder(self.embed(idx)))          # (B, T, vocab)
        loss = None if targets is None else F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        return logits, loss


def count_parameters(sizes: BenchSizes) -> int:
    """reference মডেলের ওজনের সংখ্যা (meta device-এ বানিয়ে গোনা, তাই মেমরি লাগে না)।"""
    with torch.device("meta"):
        return sum(p.numel() for p in ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab).parameters())


def count_flops(sizes: BenchSizes) -> int:
    """এক training step-এর FLOP (forward + backward-এর matmul ও attention; optimizer-এর elementwise কাজ ধরা নেই)।

    meta device-এ গোনা হয়: কোনো হিসাব বা মেমরি লাগে না, আর attention ভেঙে bmm হয় বলে তা-ও গোনা পড়ে
    (CPU-র fused attention kernel FlopCounterMode চেনে না)।
    """
    with torch.device("meta"):
        model = ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab)
        x = torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq))
    with FlopCounterMode(display=False) as counter:
        _, loss = model(x, x)
        loss.backward()
    return counter.get_total_flops()


@contextlib.contextmanager
def _fp32_matmul(mode: str):
    """tf32 mode-এ FP32 matmul TF32-এ চলে ('high'), বাকি সবখানে পুরো FP32 ('highest'); শেষে আগের মান ফেরে।"""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high" if mode == "tf32" else "highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def _setup(sizes: BenchSizes, device: str, mode: str):
    torch.manual_seed(0)
    model = ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq), device=device)
    y = torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq), device=device)
    precision = "fp32" if mode == "tf32" else mode       # TF32 মানে FP32 কোড, শুধু matmul-এর mode আলাদা
    return model, optimizer, x, y, precision


def _plain_steps(model, optimizer, scaler, ctx, x, y, n: int, clip_norm: float | None = None) -> None:
    """হাতে লেখা AMP loop, PyTorch-এর recipe যেমন: fp32/bf16-এ scaler বন্ধ থাকে, তখন scale() কিছুই করে না।"""
    for _ in range(n):
        with ctx:
            _, loss = model(x, y)
        scaler.scale(loss).backward()
        if clip_norm is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)


def _release(device: str) -> None:
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()


def time_mode(mode: str, sizes: BenchSizes, device: str) -> dict:
    """একটি mode-এ গড় step-সময় (সেকেন্ড) আর CUDA-তে peak memory (বাইট)।"""
    model, optimizer, x, y, precision = _setup(sizes, device, mode)
    scaler, ctx = make_scaler(device, precision), autocast_for(device, precision)
    with _fp32_matmul(mode):
        _plain_steps(model, optimizer, scaler, ctx, x, y, sizes.warmup)     # warm-up: মাপে ধরা হয় না
        _sync(device)
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        _plain_steps(model, optimizer, scaler, ctx, x, y, sizes.steps)
        _sync(device)                                     # GPU-র সব কাজ শেষ হলে তবেই ঘড়ি দেখা
        seconds = (time.perf_counter() - start) / sizes.steps
    peak = torch.cuda.max_memory_allocated() if device == "cuda" else None
    del model, optimizer, scaler
    _release(device)
    return {"step_s": seconds, "peak_memory_bytes": peak}


def compare_loop(mode: str, sizes: BenchSizes, device: str, repeats: int = 3) -> dict:
    """একই মডেল, batch, precision: mishran.train.train() বনাম হাতে লেখা loop; দুটোই clip_norm=1.0 সহ।

    পালা করে `repeats` বার মেপে প্রত্যেকের সবচেয়ে কম সময় নেওয়া হয় (অন্য কাজের ধাক্কা বাদ দিতে)।
    """
    model, optimizer, x, y, precision = _setup(sizes, device, mode)
    scaler, ctx = make_scaler(device, precision), autocast_for(device, precision)
    config = TrainConfig(precision=precision, steps=sizes.steps, clip_norm=1.0, device=device)

    def plain(n):
        _plain_steps(model, optimizer, scaler, ctx, x, y, n, clip_norm=1.0)

    def looped(n):
        train(model, optimizer, lambda: (x, y), replace(config, steps=n), scaler=scaler)

    def timed(fn):
        _sync(device)
        start = time.perf_counter()
        fn(sizes.steps)
        _sync(device)
        return (time.perf_counter() - start) / sizes.steps

    with _fp32_matmul(mode):
        plain(sizes.warmup)
        looped(sizes.warmup)
        best_plain, best_loop = float("inf"), float("inf")
        for _ in range(repeats):
            best_plain = min(best_plain, timed(plain))
            best_loop = min(best_loop, timed(looped))
    del model, optimizer, scaler
    _release(device)
    return {"mode": mode, "plain_step_s": best_plain, "train_step_s": best_loop,
            "overhead_percent": 100 * (best_loop / best_plain - 1)}


def _skip_reason(mode: str, device: str, capability) -> str | None:
    if mode == "tf32" and device == "cpu":
        return "TF32 শুধু NVIDIA GPU-র matmul mode (sm_80+); CPU-তে নেই"
    if mode == "tf32" and capability < (8, 0):
        return f"TF32-এর জন্য sm_80 (Ampere) বা নতুন GPU লাগে; এটি sm_{capability[0]}{capability[1]}"
    return None


def run(sizes: BenchSizes, device: str, modes=MODES, compare: bool = False, report=None) -> dict:
    """সব mode মেপে একটি dict ফেরত দেয় (--json ঠিক এটাই লেখে)।"""
    report = report or device_report(device)
    capability = report.capability
    peak_label, peaks = peak_tflops(report.name) if device == "cuda" else (None, {})
    flops = count_flops(sizes)
    results, skipped = [], []
    for mode in modes:
        why = _skip_reason(mode, device, capability)
        if why:
            skipped.append({"mode": mode, "why": why})
            continue
        r = {"mode": mode, **time_mode(mode, sizes, device)}
        r["tflops"] = flops / r["step_s"] / 1e12
        r["peak_tflops"] = peaks.get(mode)
        r["fraction_of_peak"] = r["tflops"] / r["peak_tflops"] if r["peak_tflops"] else None
        if mode == "bf16" and device == "cuda" and not report.bf16:
            r["note"] = "এই GPU-তে BF16 hardware নেই; emulation"
        results.append(r)
    base = next((r["step_s"] for r in results if r["mode"] == "fp32"), None)
    for r in results:
        r["speedup_vs_fp32"] = base / r["step_s"] if base else None
    out = {
        "device": {"device": report.device, "name": report.name,
                   "capability": list(capability) if capability else None,
                   "torch": report.torch_version, "cuda": report.cuda_version},
        "sizes": asdict(sizes),
        "parameters": count_parameters(sizes),
        "flops_per_step": flops,
        "peak_source": f"{PEAK_SOURCE} ({peak_label})" if peak_label else None,
        "results": results,
        "skipped": skipped,
    }
    if compare:
        out["compare_loop"] = [compare_loop(r["mode"], sizes, device) for r in results]
    return out


def _flop_text(flops: int) -> str:
    return f"{flops / 1e12:.3g} TFLOP" if flops >= 1e12 else f"{flops / 1e9:.3g} GFLOP"


def _format(out: dict, report) -> str:
    s = out["sizes"]
    lines = ["mishran.bench — এক training step (forward + backward + optimizer step) কত সময় নেয়", "",
             str(report), "",
             f"মডেল: nn.TransformerEncoder, {s['layers']} স্তর (layers), d_model {s['d_model']}, "
             f"batch {s['batch']} × seq {s['seq']}, vocab {s['vocab']}, {out['parameters'] / 1e6:.1f}M parameter",
             f"warm-up {s['warmup']} step বাদ দিয়ে {s['steps']} step-এর গড়; "
             f"এক step-এ {_flop_text(out['flops_per_step'])} "
             "(FlopCounterMode: forward + backward-এর matmul ও attention)",
             ""]
    cuda = out["device"]["device"] == "cuda"
    head = f"{'mode':<6} {'ms/step':>10} {'speedup':>8} {'peak mem':>10} {'TFLOP/s':>9} {'peak':>8} {'of peak':>8}"
    lines += [head, "-" * len(head)]
    for r in out["results"]:
        mem = f"{r['peak_memory_bytes'] / 2 ** 30:.2f} GiB" if r["peak_memory_bytes"] is not None else "—"
        speed = f"{r['speedup_vs_fp32']:.2f}×" if r["speedup_vs_fp32"] else "—"
        peak = f"{r['peak_tflops']:g}" if r["peak_tflops"] else "—"
        frac = f"{100 * r['fraction_of_peak']:.1f}%" if r["fraction_of_peak"] is not None else "—"
        tflops = f"{r['tflops']:.3g}"
        lines.append(f"{r['mode'].upper():<6} {1000 * r['step_s']:>10.2f} {speed:>8} {mem:>10} {tflops:>9} "
                     f"{peak:>8} {frac:>8}" + (f"  ({r['note']})" if r.get("note") else ""))
    for sk in out["skipped"]:
        lines.append(f"{sk['mode'].upper():<6} {'বাদ (skipped)':>10}: {sk['why']}")
    lines += ["", "ms/step: এক step-এর সময়; speedup: FP32-এর তুলনায় কত গুণ দ্রুত; peak mem: "
              "torch.cuda.max_memory_allocated — ওজন, gradient, AdamW-এর অবস্থা আর activation মিলিয়ে "
              "(প্রতি mode-এ নতুন করে গোনা);",
              "TFLOP/s: এক step-এর FLOP ÷ সময়; peak: এই GPU-র সর্বোচ্চ; of peak: তার কত ভাগ পাওয়া গেল।"]
    if out["peak_source"]:
        lines.append(f"peak-এর সংখ্যা: {out['peak_source']}।")
    elif cuda:
        lines.append("এই GPU-র peak TFLOP/s আমাদের তালিকায় নেই, তাই 'of peak' দেখানো হলো না।")
    if not cuda:
        lines += ["CPU-তে peak memory মাপা হয়নি: torch-এ CPU-র জন্য max_memory_allocated-এর মতো কোনো counter নেই; "
                  "CPU-র peak TFLOP/s-ও অজানা।",
                  "CPU-র সংখ্যা GPU-র ছবি নয়: বেশিরভাগ CPU-তে FP16 গুণের দ্রুত পথ নেই, তাই FP16 এখানে ধীর হতে পারে; "
                  "ছোট মডেলে সময়ের বড় অংশ যায় op চালু করার খরচে।"]
    if out.get("compare_loop"):
        lines += ["", "mishran.train-এর loop বনাম হাতে লেখা loop (একই মডেল, batch, precision, clip_norm=1.0):",
                  f"{'mode':<6} {'plain ms':>10} {'train ms':>10} {'overhead':>9}"]
        for c in out["compare_loop"]:
            lines.append(f"{c['mode'].upper():<6} {1000 * c['plain_step_s']:>10.2f} {1000 * c['train_step_s']:>10.2f} "
                         f"{c['overhead_percent']:>+8.1f}%")
    return "\n".join(lines)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"ধনাত্মক পূর্ণসংখ্যা চাই (positive integer); পেয়েছি {text}")
    return value


def _modes(text: str) -> list[str]:
    modes = [m.strip().lower() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise argparse.ArgumentTypeError(f"অচেনা mode {bad or text!r} (unknown mode); চেনা: {', '.join(MODES)}")
    return modes


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m mishran.bench",
                                     description="FP32/TF32/FP16/BF16 training step-এর সময়, মেমরি আর TFLOP/s (পাঠ ০৩)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default=None, help="না দিলে GPU থাকলে cuda")
    parser.add_argument("--layers", type=_positive)
    parser.add_argument("--d-model", type=_positive)
    parser.add_argument("--batch", type=_positive)
    parser.add_argument("--seq", type=_positive)
    parser.add_argument("--vocab", type=_positive)
    parser.add_argument("--steps", type=_positive, help="মাপা step-এর সংখ্যা")
    parser.add_argument("--warmup", type=int, help="warm-up step (মাপা হয় না)")
    parser.add_argument("--modes", type=_modes, default=list(MODES), help="যেমন fp32,bf16")
    parser.add_argument("--compare-loop", action="store_true", help="mishran.train-এর loop-এর বাড়তি খরচ মাপো")
    parser.add_argument("--json", action="store_true", help="যন্ত্রে পড়ার মতো JSON লেখো")
    args = parser.parse_args(argv)
    device = args.device or default_device()
    if device == "cuda" and not torch.cuda.is_available():
        parser.error("CUDA GPU পাওয়া যায়নি (CUDA is not available); --device cpu দাও")
    if args.warmup is not None and args.warmup < 0:
        parser.error("--warmup ০ বা তার বেশি হবে")
    sizes = BenchSizes.for_device(device)
    chosen = {k: getattr(args, k) for k in asdict(sizes) if getattr(args, k) is not None}
    sizes = replace(sizes, **chosen)
    report = device_report(device)
    out = run(sizes, device, args.modes, compare=args.compare_loop, report=report)
    print(json.dumps(out, ensure_ascii=False, indent=2) if args.json else _format(out, report))
    return out


if __name__ == "__main__":
    main()
