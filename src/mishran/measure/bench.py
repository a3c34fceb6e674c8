"""`python -m mishran.measure.bench`: এই device-এ FP32, TF32, FP16, BF16-এ একটি training step কত সময় নেয় (পাঠ ০৩);
fused/foreach AdamW, torch.compile আর FP8 (torchao.float8) দিয়ে আরও কত দ্রুত হয় (পাঠ ০৭)।

PyTorch-এর AMP recipe-এর মতো মাপা: warm-up বাদ, সময় মাপার আগে-পরে sync(device) (CUDA-তে
torch.cuda.synchronize()), প্রতিটি mode-এর জন্য নতুন মডেল আর peak memory নতুন করে গোনা। এক step =
mishran.engines.amp.amp_step: forward + backward + optimizer step, train() যা চালায় ঠিক তা-ই।
FLOP গোনে torch.utils.flop_counter.FlopCounterMode (meta device-এ, তাই attention-ও ধরা পড়ে)।

    python -m mishran.measure.bench                       # এই device-এর মাপে
    python -m mishran.measure.bench --modes fp32,bf16 --json
    python -m mishran.measure.bench --compare-loop        # train()-এর পুরো loop বনাম শুধু amp_step-এর loop
    python -m mishran.measure.bench --modes bf16,bf16-fused,bf16-compile,fp8-tensorwise,fp8-rowwise   # পাঠ ০৭
    python -m mishran.measure.bench --modes speed         # পাঠ ০৭-এর সব mode
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.util
import json
import shutil
import time
import warnings
from dataclasses import asdict, dataclass, replace

import torch
import torch.nn as nn

from mishran.checks import as_bool, as_device, device_type, finite_float, positive_int
from mishran.engines.amp import TrainConfig, amp_step, train
from mishran.hardware import PEAK_SOURCE, default_device, device_report, peak_tflops
from mishran.measure.flops import mfu
from mishran.models.reference import (
    FP8_LINEARS,
    BenchSizes,
    ReferenceTransformer,
    as_sizes,
    count_flops,
    count_parameters,
)
from mishran.precision import autocast, grad_scaler
from mishran.versions import package_version

__all__ = ["MODES", "SPEED_MODES", "ALL_MODES", "ModeSpec", "mode_spec", "parse_modes", "skip_reason",
           "has_cxx_compiler", "build", "sync", "release", "repeat_step", "time_mode", "compare_loop", "run", "main"]

MODES = ("fp32", "tf32", "fp16", "bf16")          # পাঠ ০৩: precision-এর তুলনা (ডিফল্ট)
# পাঠ ০৭: একই BF16 মডেল, শুধু optimizer-এর বাস্তবায়ন, torch.compile বা FP8 বদলায়
SPEED_MODES = ("bf16", "bf16-loop", "bf16-foreach", "bf16-fused", "bf16-compile", "fp8-tensorwise", "fp8-rowwise")
ALL_MODES = MODES + SPEED_MODES[1:]


@dataclass(frozen=True)
class ModeSpec:
    """একটি mode-এর মানে: precision, AdamW-এর বাস্তবায়ন, compile কি না, FP8-এর recipe (পাঠ ০৩, ০৭)।"""

    precision: str                 # fp32 | fp16 | bf16 (tf32 মানে fp32 কোড + TF32 matmul)
    optimizer: str = "default"     # default | loop | foreach | fused
    compile: bool = False
    fp8: str | None = None         # None | tensorwise | rowwise
    peak_key: str = ""             # PEAK_TFLOPS-এর কোন কলামের সঙ্গে তুলনা


_SPECS = {
    "fp32": ModeSpec("fp32", peak_key="fp32"),
    "tf32": ModeSpec("fp32", peak_key="tf32"),
    "fp16": ModeSpec("fp16", peak_key="fp16"),
    "bf16": ModeSpec("bf16", peak_key="bf16"),
    "bf16-loop": ModeSpec("bf16", optimizer="loop", peak_key="bf16"),
    "bf16-foreach": ModeSpec("bf16", optimizer="foreach", peak_key="bf16"),
    "bf16-fused": ModeSpec("bf16", optimizer="fused", peak_key="bf16"),
    "bf16-compile": ModeSpec("bf16", optimizer="fused", compile=True, peak_key="bf16"),
    # FP8 শুধু encoder-এর MLP-র Linear-এ; তাই তুলনা BF16-এর dense peak-এর সঙ্গে (MFU-র প্রচলিত মাপকাঠি)
    "fp8-tensorwise": ModeSpec("bf16", optimizer="fused", compile=True, fp8="tensorwise", peak_key="bf16"),
    "fp8-rowwise": ModeSpec("bf16", optimizer="fused", compile=True, fp8="rowwise", peak_key="bf16"),
}


def mode_spec(mode: str) -> ModeSpec:
    """mode-এর নাম থেকে ModeSpec; অচেনা নামে বাংলা + English ভুলবার্তা।"""
    if not isinstance(mode, str) or mode not in _SPECS:
        raise ValueError(f"অচেনা mode {mode!r} (unknown mode); চেনা: {', '.join(ALL_MODES)}")
    return _SPECS[mode]

def _checked(mode, sizes, device) -> ModeSpec:
    """mode, sizes আর device একবারে যাচাই (build, time_mode, compare_loop-এর শুরুতে)।"""
    spec, _ = mode_spec(mode), as_sizes(sizes)
    as_device(device)
    return spec


@contextlib.contextmanager
def _fp32_matmul(mode: str):
    """tf32 mode-এ FP32 matmul TF32-এ চলে ('high'), বাকি সবখানে পুরো FP32 ('highest'); শেষে আগের মান ফেরে।"""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high" if mode == "tf32" else "highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def sync(device) -> None:
    """GPU-কে পাঠানো সব কাজ শেষ হওয়া পর্যন্ত অপেক্ষা, CPU-তে কিছুই না (পাঠ ০৩, ০৭): GPU-তে কাজ পাঠিয়েই Python
    পরের লাইনে যায়, তাই ঘড়ি দেখার আগে-পরে এটা চাই। device: 'cpu', 'cuda', 'cuda:1' বা torch.device।"""
    if device_type(device) == "cuda":
        torch.cuda.synchronize(device)


def release(device) -> None:
    """আর না-লাগা মডেল আর optimizer-এর মেমরি ফেরত (আগে নিজের reference মুছে দাও): gc, আর GPU-তে allocator-এর
    cache খালি — একটির পর একটি মাপে আগেরটির মেমরি যেন পরেরটিতে না থাকে (পাঠ ০৬, ০৭)।"""
    kind = device_type(device)
    gc.collect()
    if kind == "cuda":
        torch.cuda.empty_cache()


def _optimizer(params, kind: str) -> torch.optim.Optimizer:
    """AdamW-এর তিন বাস্তবায়ন (পাঠ ০৭): loop (প্রতি tensor-এ আলাদা op), foreach (সব tensor একসঙ্গে, কয়েকটি
    kernel-এ), fused (পুরো হালনাগাদ একটি kernel-এ); default মানে torch নিজে যা বাছে।"""
    flags = {"default": {}, "loop": {"foreach": False}, "foreach": {"foreach": True}, "fused": {"fused": True}}[kind]
    return torch.optim.AdamW(params, lr=1e-4, **flags)


def _default_adamw(device: str) -> str:
    """optimizer='default' হলে torch কোনটা বাছে: CUDA-তে foreach, CPU-তে loop (torch.optim-এর নিজের নিয়ম)।"""
    from torch.optim.optimizer import _default_to_fused_or_foreach
    fused, foreach = _default_to_fused_or_foreach([torch.zeros(1, device=device)], False, False)
    return "fused" if fused else "foreach" if foreach else "loop"


def _fp8_filter(module: nn.Module, fqn: str) -> bool:
    """কোন Linear FP8-এ যাবে: encoder-এর MLP-র দুটি (linear1, linear2)। attention-এর projection যায় না,
    কারণ nn.MultiheadAttention নিজের ওজন সরাসরি F.linear-এ দেয়, Linear module-এর forward ডাকে না।"""
    return isinstance(module, nn.Linear) and fqn.rsplit(".", 1)[-1] in FP8_LINEARS


def build(mode: str, sizes: BenchSizes, device: str):
    """mode অনুযায়ী মডেল, চালানোর ফাংশন (compile হলে compiled), optimizer আর একটি batch (পাঠ ০৩, ০৭)।

    প্রতিটি mode-এ একই seed: ওজনের শুরু আর batch হুবহু এক, তাই loss-ও তুলনা করা যায়।
    ফেরত (model, forward, optimizer, x, y)।
    """
    spec = _checked(mode, sizes, device)
    torch.manual_seed(0)
    model = ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab).to(device)
    x = torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq), device=device)
    y = torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq), device=device)
    if spec.fp8:
        with warnings.catch_warnings():               # torchao-র নিজের ফাইলের SyntaxWarning (আমাদের নয়)
            warnings.simplefilter("ignore", SyntaxWarning)
            from torchao.float8 import Float8LinearConfig, convert_to_float8_training
        convert_to_float8_training(model.encoder, module_filter_fn=_fp8_filter,
                                   config=Float8LinearConfig.from_recipe_name(spec.fp8))
    optimizer = _optimizer(model.parameters(), spec.optimizer)
    forward = torch.compile(model) if spec.compile else model
    return model, forward, optimizer, x, y


def repeat_step(model, optimizer, scaler, ctx, x, y, n: int, clip_norm: float | None = None) -> list:
    """একই (x, y)-এ n-টি training step, প্রতিটি mishran.engines.amp.amp_step; প্রতি step-এর loss (device tensor,
    host-এ আনা হয় না, তাই GPU থামে না) (পাঠ ০৩, ০৭)।"""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 100_000:
        raise ValueError(f"n হবে 0 থেকে 100000-এর একটি পূর্ণসংখ্যা (n must be an integer in [0, 100000]); পেয়েছি {n!r}")
    if clip_norm is not None:
        clip_norm = finite_float(clip_norm, "clip_norm (or None)", positive=True)
    return [amp_step(model, optimizer, scaler, ctx, [(x, y)], clip_norm=clip_norm)[0] for _ in range(n)]


def time_mode(mode: str, sizes: BenchSizes, device: str) -> dict:
    """একটি mode-এ গড় step-সময় (সেকেন্ড), প্রথম step-এর সময় (compile থাকলে তা-সহ), CUDA-তে peak memory
    (বাইট), আর প্রতি step-এর loss (warm-up সহ)।"""
    spec = _checked(mode, sizes, device)
    model, forward, optimizer, x, y = build(mode, sizes, device)
    scaler, ctx = grad_scaler(device, spec.precision), autocast(device, spec.precision)
    with _fp32_matmul(mode):
        sync(device)
        start = time.perf_counter()
        losses = repeat_step(forward, optimizer, scaler, ctx, x, y, 1)            # প্রথম step: compile এখানে
        sync(device)
        first = time.perf_counter() - start
        losses += repeat_step(forward, optimizer, scaler, ctx, x, y, max(sizes.warmup - 1, 0))
        sync(device)
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        losses += repeat_step(forward, optimizer, scaler, ctx, x, y, sizes.steps)
        sync(device)                                      # GPU-র সব কাজ শেষ হলে তবেই ঘড়ি দেখা
        seconds = (time.perf_counter() - start) / sizes.steps
    peak = torch.cuda.max_memory_allocated() if device == "cuda" else None
    adamw = _default_adamw(device) if spec.optimizer == "default" else spec.optimizer
    losses = torch.stack(losses).float().tolist()
    del model, forward, optimizer, scaler
    release(device)
    return {"step_s": seconds, "first_step_s": first, "peak_memory_bytes": peak, "adamw": adamw,
            "losses": losses}


def compare_loop(mode: str, sizes: BenchSizes, device: str, repeats: int = 3) -> dict:
    """train()-এর বাড়তি খরচ: একই মডেল, batch, precision, clip_norm=1.0-এ mishran.engines.amp.train() বনাম খালি loop।

    "plain" দিক: `for _ in range(n): amp_step(...)` — step-টি হুবহু একই (amp_step PyTorch-এর AMP recipe-এর
    লাইনগুলোই, tests/test_train.py হাতে লেখা recipe-এর সঙ্গে বিটে বিটে মেলায়), বাকি কিছু নেই। "train" দিক:
    train(), যা এর ওপরে get_batch, device-এ নেওয়া, StepBookkeeper-এর হিসাব (loss, সময়-চিহ্ন, scale) আর tqdm যোগ
    করে। তাই overhead_percent = train()-এর loop নিজে কত খরচ করে। পালা করে `repeats` বার মেপে প্রত্যেকের সবচেয়ে
    কম সময় নেওয়া হয় (অন্য কাজের ধাক্কা বাদ দিতে)।
    """
    spec = _checked(mode, sizes, device)
    if positive_int(repeats, "repeats") > 100:
        raise ValueError(f"repeats অবাস্তব রকম বড় (too many repeats; at most 100); পেয়েছি {repeats}")
    model, forward, optimizer, x, y = build(mode, sizes, device)
    scaler, ctx = grad_scaler(device, spec.precision), autocast(device, spec.precision)
    config = TrainConfig(precision=spec.precision, steps=sizes.steps, clip_norm=1.0, device=device)

    def plain(n):
        repeat_step(forward, optimizer, scaler, ctx, x, y, n, clip_norm=1.0)

    def looped(n):
        train(forward, optimizer, lambda: (x, y), replace(config, steps=n), scaler=scaler)

    def timed(fn):
        sync(device)
        start = time.perf_counter()
        fn(sizes.steps)
        sync(device)
        return (time.perf_counter() - start) / sizes.steps

    with _fp32_matmul(mode):
        plain(sizes.warmup)
        looped(sizes.warmup)
        best_plain, best_loop = float("inf"), float("inf")
        for _ in range(repeats):
            best_plain = min(best_plain, timed(plain))
            best_loop = min(best_loop, timed(looped))
    del model
    forward = optimizer = None                            # মুক্ত করা; closure-গুলোও আর এদের ধরে রাখে না
    release(device)
    return {"mode": mode, "plain_step_s": best_plain, "train_step_s": best_loop,
            "overhead_percent": 100 * (best_loop / best_plain - 1)}


def has_cxx_compiler() -> bool:
    """CPU-তে torch.compile-এর C++ compiler (g++, c++ বা clang++) PATH-এ আছে কি না (পাঠ ০৭)।"""
    return any(shutil.which(c) for c in ("g++", "c++", "clang++"))


def _report(report, device: str = "cpu"):
    """report (hardware.device_report-এর ফল) আর device ('cpu' বা 'cuda') যাচাই।"""
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device হবে 'cpu' বা 'cuda' (device must be 'cpu' or 'cuda'); পেয়েছি {device!r}")
    if not all(hasattr(report, a) for a in ("capability", "tf32", "bf16", "fp8", "name", "device")):
        raise TypeError(f"report হবে mishran.hardware.device_report(...)-এর ফল (report must be a DeviceReport); "
                        f"পেয়েছি {report!r}")
    return report


def skip_reason(mode: str, device: str, report) -> str | None:
    """এই device-এ mode চলবে না কেন (বাংলায়), চললে None। ক্ষমতা জানা হয় mishran.hardware-এর রিপোর্ট থেকে।"""
    spec, _ = mode_spec(mode), _report(report, device)
    capability = report.capability
    sm = f"sm_{capability[0]}{capability[1]}" if capability else ""
    if mode == "tf32" and device == "cpu":
        return "TF32 শুধু NVIDIA GPU-র matmul mode (sm_80+); CPU-তে নেই"
    if mode == "tf32" and not report.tf32:
        return f"TF32-এর জন্য sm_80 (Ampere) বা নতুন GPU লাগে; এটি {sm}"
    if spec.precision == "bf16" and device == "cuda" and not report.bf16:
        if getattr(report, "simulated", False):
            return (f"অনুকরণ করা GPU ({sm}, simulated)-তে BF16 hardware নেই; আসল GPU-র BF16 গতি এখানে মাপলে "
                    "ভুল ছবি দিত, তাই মাপা হলো না")
        return (f"এই GPU ({sm})-তে BF16 hardware নেই: BF16 এখানে software-এ (emulation) চলে, তার গতি মাপা অর্থহীন; "
                "এই GPU-র পথ FP16 + loss scaling (mode fp16)")
    if spec.fp8 and device == "cpu":
        return ("FP8 tensor core আছে শুধু NVIDIA Ada (sm_89) আর Hopper (sm_90) GPU-তে; CPU-তে নেই। "
                "হিসাবটা CPU-তে দেখতে: mishran.numerics.fp8 (পাঠ ০৭)")
    if spec.fp8 and not report.fp8:
        return f"এই GPU ({sm})-তে FP8 tensor core নেই; লাগে Ada (sm_89) বা Hopper (sm_90)"
    if spec.fp8 and importlib.util.find_spec("torchao") is None:
        return "torchao ইনস্টল করা নেই (not installed): pip install 'mishran[fp8]' বা pip install torchao"
    if spec.compile and device == "cpu" and not has_cxx_compiler():
        return "CPU-তে torch.compile-এর C++ compiler (g++/clang++) পাওয়া যায়নি"
    if spec.compile and device == "cuda" and importlib.util.find_spec("triton") is None:
        return "GPU-তে torch.compile-এর Triton ইনস্টল করা নেই (not installed)"
    return None


def _reference(results: list, names) -> dict | None:
    return next((r for name in names for r in results if r["mode"] == name), None)


def run(sizes: BenchSizes, device: str, modes=MODES, compare: bool = False, report=None) -> dict:
    """সব mode মেপে একটি dict ফেরত দেয় (--json ঠিক এটাই লেখে)।

    compile বা FP8-এর mode চালাতে গিয়ে ভুল হলে (যেমন পুরোনো driver) থামে না: সেটি কারণসহ 'skipped'-এ যায়।
    """
    as_sizes(sizes)
    as_device(device)
    if isinstance(modes, (str, bytes)) or not isinstance(modes, (list, tuple)):
        raise TypeError(f"modes হবে mode-এর নামের তালিকা, যেমন ('fp32', 'bf16') (modes must be a list of names); "
                        f"পেয়েছি {modes!r}")
    compare = as_bool(compare, "compare")
    report = _report(device_report(device) if report is None else report)
    capability = report.capability
    peak_label, peaks = peak_tflops(report.name) if device == "cuda" else (None, {})
    flops = count_flops(sizes)
    results, skipped = [], []
    for mode in modes:
        spec = mode_spec(mode)
        why = skip_reason(mode, device, report)
        if why:
            skipped.append({"mode": mode, "why": why})
            continue
        try:
            r = {"mode": mode, **time_mode(mode, sizes, device)}
        except Exception as err:                              # কারণসহ 'skipped'-এ জানানো হয়, চাপা নয়
            if not (spec.compile or spec.fp8):
                raise
            release(device)
            skipped.append({"mode": mode, "why": f"চালাতে গিয়ে ভুল (error): {type(err).__name__}: "
                                                 f"{str(err).strip().splitlines()[0][:300] if str(err) else ''}"})
            continue
        r["tflops"] = flops / r["step_s"] / 1e12
        r["peak_tflops"] = peaks.get(spec.peak_key)
        r["fraction_of_peak"] = mfu(flops, r["step_s"], r["peak_tflops"])     # কোর্সের একটিই MFU সূত্র
        r["final_loss"] = r["losses"][-1]
        if spec.precision == "bf16" and device == "cuda" and not report.bf16:
            r["note"] = "এই GPU-তে BF16 hardware নেই; emulation"
        results.append(r)
    base = _reference(results, ["fp32"])
    bf16 = _reference(results, ["bf16"])
    loss_ref = _reference(results, ["bf16-compile", "bf16"])
    for r in results:
        r["speedup_vs_fp32"] = base["step_s"] / r["step_s"] if base else None
        r["speedup_vs_bf16"] = bf16["step_s"] / r["step_s"] if bf16 else None
        r["loss_vs_bf16"] = (r["final_loss"] / loss_ref["final_loss"] - 1) if loss_ref else None
    out = {
        "device": {"device": report.device, "name": report.name,
                   "capability": list(capability) if capability else None,
                   "torch": report.torch_version, "cuda": report.cuda_version,
                   "torchao": package_version("torchao")},
        "sizes": asdict(sizes),
        "parameters": count_parameters(sizes),
        "flops_per_step": flops,
        "peak_source": f"{PEAK_SOURCE} ({peak_label})" if peak_label else None,
        "loss_reference": loss_ref["mode"] if loss_ref else None,
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
    lines = ["mishran.measure.bench — এক training step (forward + backward + optimizer step) কত সময় নেয়", "",
             str(report), "",
             f"মডেল: nn.TransformerEncoder, {s['layers']} স্তর (layers), d_model {s['d_model']}, "
             f"batch {s['batch']} × seq {s['seq']}, vocab {s['vocab']}, {out['parameters'] / 1e6:.1f}M parameter",
             f"warm-up {s['warmup']} step বাদ দিয়ে {s['steps']} step-এর গড়; "
             f"এক step-এ {_flop_text(out['flops_per_step'])} "
             "(FlopCounterMode: forward + backward-এর matmul ও attention)",
             ""]
    cuda = out["device"]["device"] == "cuda"
    by = "fp32" if any(r["mode"] == "fp32" for r in out["results"]) else "bf16"
    key = f"speedup_vs_{by}"
    w = max([6] + [len(r["mode"]) for r in out["results"] + out["skipped"]])
    head = (f"{'mode':<{w}} {'ms/step':>10} {'speedup':>8} {'peak mem':>10} {'TFLOP/s':>9} {'peak':>8} "
            f"{'of peak':>8} {'শেষ loss':>9}")
    lines += [head, "-" * len(head)]
    for r in out["results"]:
        mem = f"{r['peak_memory_bytes'] / 2 ** 30:.2f} GiB" if r["peak_memory_bytes"] is not None else "—"
        speed = f"{r[key]:.2f}×" if r[key] else "—"
        peak = f"{r['peak_tflops']:g}" if r["peak_tflops"] else "—"
        frac = f"{100 * r['fraction_of_peak']:.1f}%" if r["fraction_of_peak"] is not None else "—"
        tflops = f"{r['tflops']:.3g}"
        lines.append(f"{r['mode'].upper():<{w}} {1000 * r['step_s']:>10.2f} {speed:>8} {mem:>10} {tflops:>9} "
                     f"{peak:>8} {frac:>8} {r['final_loss']:>9.4f}" + (f"  ({r['note']})" if r.get("note") else ""))
    for sk in out["skipped"]:
        lines.append(f"{sk['mode'].upper():<{w}} {'বাদ (skipped)':>10}: {sk['why']}")
    lines += ["", f"ms/step: এক step-এর সময়; speedup: {by.upper()}-এর তুলনায় কত গুণ দ্রুত; peak mem: "
              "torch.cuda.max_memory_allocated — ওজন, gradient, AdamW-এর অবস্থা আর activation মিলিয়ে "
              "(প্রতি mode-এ নতুন করে গোনা);",
              "TFLOP/s: এক step-এর FLOP ÷ সময়; peak: এই GPU-র সর্বোচ্চ; of peak: তার কত ভাগ পাওয়া গেল "
              "(FP8-এর mode-ও BF16-এর dense peak-এর সঙ্গে তুলনা করা); শেষ loss: একই batch-এ শেষ step-এর loss।"]
    if any(r["mode"] in SPEED_MODES[1:] for r in out["results"]):
        lines.append("BF16-LOOP/FOREACH/FUSED: AdamW-এর বাস্তবায়ন; BF16-COMPILE: torch.compile + fused AdamW; "
                     "FP8-*: torchao.float8 (MLP-র Linear) + torch.compile + fused AdamW (পাঠ ০৭)।")
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
        lines += ["", "train()-এর loop বনাম শুধু amp_step-এর loop (একই মডেল, batch, precision, clip_norm=1.0):",
                  f"{'mode':<6} {'plain ms':>10} {'train ms':>10} {'overhead':>9}"]
        for c in out["compare_loop"]:
            lines.append(f"{c['mode'].upper():<6} {1000 * c['plain_step_s']:>10.2f} {1000 * c['train_step_s']:>10.2f} "
                         f"{c['overhead_percent']:>+8.1f}%")
    return "\n".join(lines)


def _integer(text: str, least: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < least:
        raise argparse.ArgumentTypeError(f"{what} চাই ({'positive' if least else 'non-negative'} integer); "
                                         f"পেয়েছি {text!r}")
    return value


def _positive(text: str) -> int:
    return _integer(text, 1, "১ বা তার বেশি পূর্ণসংখ্যা")


def _non_negative(text: str) -> int:
    return _integer(text, 0, "০ বা তার বেশি পূর্ণসংখ্যা")


_GROUPS = {"all": ALL_MODES, "speed": SPEED_MODES, "precision": MODES}


def parse_modes(text: str) -> list[str]:
    """'fp32,bf16' বা দলের নাম ('speed', 'precision', 'all') → mode-এর তালিকা, ক্রম রেখে, একটিও দুবার নয়
    (--modes এটাই পড়ে); অচেনা নামে ArgumentTypeError, বাংলা + English।"""
    if not isinstance(text, str):
        raise argparse.ArgumentTypeError(f"mode-এর নাম লেখায় দাও, যেমন 'fp32,bf16' (modes must be a str); পেয়েছি "
                                         f"{text!r}")
    modes = []
    for m in (m.strip().lower() for m in text.split(",") if m.strip()):
        modes += [x for x in _GROUPS.get(m, [m]) if x not in modes]
    bad = [m for m in modes if m not in ALL_MODES]
    if bad or not modes:
        raise argparse.ArgumentTypeError(f"অচেনা mode {bad or text!r} (unknown mode); চেনা: {', '.join(ALL_MODES)}; "
                                         f"দল (groups): {', '.join(_GROUPS)}")
    return modes


def main(argv=None) -> dict:
    """`python -m mishran.measure.bench`: এই যন্ত্রে প্রতিটি mode-এর এক step-এর সময়, মেমরি আর TFLOP/s (পাঠ ০৩, ০৭)।"""
    parser = argparse.ArgumentParser(prog="python -m mishran.measure.bench",
                                     description="training step-এর সময়, মেমরি আর TFLOP/s: FP32/TF32/FP16/BF16 (পাঠ ০৩); "
                                                 "fused AdamW, torch.compile, FP8 (পাঠ ০৭)")
    parser.add_argument("--device", choices=["cpu", "cuda"], default=None, help="না দিলে GPU থাকলে cuda")
    parser.add_argument("--layers", type=_positive)
    parser.add_argument("--d-model", type=_positive)
    parser.add_argument("--batch", type=_positive)
    parser.add_argument("--seq", type=_positive)
    parser.add_argument("--vocab", type=_positive)
    parser.add_argument("--steps", type=_positive, help="মাপা step-এর সংখ্যা")
    parser.add_argument("--warmup", type=_non_negative, help="warm-up step (মাপা হয় না)")
    parser.add_argument("--modes", type=parse_modes, default=list(MODES),
                        help="যেমন fp32,bf16; পাঠ ০৭-এর mode: speed; সব: all")
    parser.add_argument("--compare-loop", action="store_true", help="mishran.engines.amp-এর loop-এর বাড়তি খরচ মাপো")
    parser.add_argument("--json", action="store_true", help="যন্ত্রে পড়ার মতো JSON লেখো")
    args = parser.parse_args(argv)
    device = args.device or default_device()
    if device == "cuda" and not torch.cuda.is_available():
        parser.error("CUDA GPU পাওয়া যায়নি (CUDA is not available); --device cpu দাও")
    sizes = BenchSizes.for_device(device)
    chosen = {k: getattr(args, k) for k in asdict(sizes) if getattr(args, k) is not None}
    sizes = replace(sizes, **chosen)
    report = device_report(device)
    out = run(sizes, device, args.modes, compare=args.compare_loop, report=report)
    print(json.dumps(out, ensure_ascii=False, indent=2) if args.json else _format(out, report))
    return out


if __name__ == "__main__":
    main()
