"""`python -m mishran.measure.bench`: এই device-এ FP32, TF32, FP16, BF16-এ একটি training step কত সময় নেয় (পাঠ ০৩);
fused/foreach AdamW, torch.compile আর FP8 (torchao.float8) দিয়ে আরও কত দ্রুত হয় (পাঠ ০৭)।

এক step = mishran.engines.amp.amp_step (train() যা চালায়), মাপা কোর্সের একটাই ঘড়িতে (mishran.timer.time_steps):
warm-up বাদ, প্রতি step-এর আগে-পরে sync, প্রতিটি mode-এ নতুন মডেল আর নতুন করে গোনা peak memory।
একটি mode = Mode(precision, optimizer, compile, fp8, tf32); 'bf16-fused'-এর মতো নাম শুধু দরজায় পড়া হয় (MODES)।

    python -m mishran.measure.bench                       # এই device-এর মাপে
    python -m mishran.measure.bench --modes fp32,bf16 --json
    python -m mishran.measure.bench --compare-loop        # train()-এর পুরো loop বনাম শুধু amp_step-এর loop
    python -m mishran.measure.bench --modes speed         # পাঠ ০৭-এর সব mode
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import shutil
import statistics
import warnings
from dataclasses import asdict, dataclass, replace

import torch
import torch.nn as nn

from mishran import cli
from mishran.checks import as_bool, as_device
from mishran.engines.amp import TrainConfig, amp_step, train
from mishran.hardware import PEAK_SOURCE, default_device, device_report, peak_tflops
from mishran.measure.flops import mfu
from mishran.measure.memory import release
from mishran.models.reference import FP8_LINEARS, BenchSizes, ReferenceTransformer, count_flops, count_parameters
from mishran.precision import autocast, grad_scaler
from mishran.timer import time_steps
from mishran.versions import package_version

__all__ = ["Mode", "MODES", "GROUPS", "as_mode", "parse_modes", "ModeResult", "Skipped", "LoopOverhead",
           "BenchResult", "skip_reason", "has_cxx_compiler", "build", "repeat_step", "time_mode", "compare_loop", "run",
           "main"]


@dataclass(frozen=True)
class Mode:
    """bench-এর একটি mode: precision-এর নাম (mishran.precision.NAMES), আর তার ওপরে কী বদলায় (পাঠ ০৩, ০৭)।

    optimizer: AdamW-এর বাস্তবায়ন (default | loop | foreach | fused); compile: torch.compile; fp8: torchao.float8-এর
    recipe (None | tensorwise | rowwise; FP8 শুধু MLP-র Linear-এ, বাকিটা BF16-এ); tf32: FP32-এর কোড, matmul TF32-এ।
    """

    precision: str
    optimizer: str = "default"
    compile: bool = False
    fp8: str | None = None
    tf32: bool = False

    @property
    def name(self) -> str:
        """command line-এর বানান: 'fp32', 'tf32', 'bf16-fused', 'bf16-compile', 'fp8-rowwise' …"""
        if self.fp8:
            return f"fp8-{self.fp8}"
        extra = "compile" if self.compile else "" if self.optimizer == "default" else self.optimizer
        return ("tf32" if self.tf32 else self.precision) + (f"-{extra}" if extra else "")

    @property
    def peak_key(self) -> str:
        """PEAK_TFLOPS-এর কোন কলামের সঙ্গে তুলনা; FP8-এর mode-ও BF16-এর dense peak-এর সঙ্গে (MFU-র প্রচলিত মাপকাঠি)।"""
        return "tf32" if self.tf32 else self.precision


MODES = {m.name: m for m in (
    Mode("fp32"), Mode("fp32", tf32=True), Mode("fp16"), Mode("bf16"),          # পাঠ ০৩: precision-এর তুলনা
    # পাঠ ০৭: একই BF16 মডেল, শুধু optimizer-এর বাস্তবায়ন, torch.compile বা FP8 বদলায়
    Mode("bf16", "loop"), Mode("bf16", "foreach"), Mode("bf16", "fused"), Mode("bf16", "fused", compile=True),
    Mode("bf16", "fused", True, "tensorwise"), Mode("bf16", "fused", True, "rowwise"))}
"""command line-এর বানান → Mode।"""
GROUPS = {"precision": ("fp32", "tf32", "fp16", "bf16"),
          "speed": ("bf16", "bf16-loop", "bf16-foreach", "bf16-fused", "bf16-compile", "fp8-tensorwise", "fp8-rowwise"),
          "all": tuple(MODES)}
"""--modes-এ দলের নাম → mode-এর নাম; 'precision' (পাঠ ০৩) ডিফল্ট।"""


def as_mode(mode) -> Mode:
    """Mode, বা তার নাম ('bf16-fused') → Mode; অচেনা নামে বাংলা + English ভুলবার্তা (run আর profile_step-এর দরজা)।"""
    if isinstance(mode, Mode):
        return mode
    if not isinstance(mode, str) or mode not in MODES:
        raise ValueError(f"অচেনা mode {mode!r} (unknown mode); চেনা: {', '.join(MODES)}")
    return MODES[mode]


def parse_modes(text: str) -> list[str]:
    """'fp32,bf16' বা দলের নাম ('speed', 'precision', 'all') → mode-এর নামের তালিকা, ক্রম রেখে, একটিও দুবার নয়
    (--modes এটাই পড়ে; run() নামগুলো Mode-এ পড়ে); অচেনা নামে ArgumentTypeError, বাংলা + English (exit status 2)।"""
    names = []
    for m in (m.strip().lower() for m in text.split(",") if m.strip()):
        names += [x for x in GROUPS.get(m, [m]) if x not in names]
    bad = [m for m in names if m not in MODES]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"অচেনা mode {bad or text!r} (unknown mode); চেনা: {', '.join(MODES)}; "
                                         f"দল (groups): {', '.join(GROUPS)}")
    return names


@dataclass
class ModeResult:
    """একটি mode-এর মাপ (পাঠ ০৩, ০৭); সময় সেকেন্ডে, মেমরি বাইটে। time_mode প্রথম ছয়টি ভরে, run() বাকিগুলো।"""

    mode: str                           # Mode.name
    step_s: float                       # warm-up-এর পরে এক step-এর গড় সময়
    first_step_s: float                 # প্রথম step, compile থাকলে তা-সহ
    peak_memory_bytes: int | None       # CUDA-তে torch.cuda.max_memory_allocated; CPU-তে None (counter নেই)
    adamw: str                          # AdamW-এর যে বাস্তবায়ন চলল: loop, foreach বা fused
    losses: list                        # প্রতি step-এর loss, warm-up সহ
    tflops: float | None = None         # এক step-এর FLOP ÷ সময়
    peak_tflops: float | None = None    # এই GPU-র dense peak (অজানা হলে None)
    fraction_of_peak: float | None = None   # MFU
    final_loss: float | None = None
    speedup_vs_fp32: float | None = None
    speedup_vs_bf16: float | None = None
    loss_vs_bf16: float | None = None   # শেষ loss, (compiled) BF16-এর তুলনায় আপেক্ষিক


@dataclass
class Skipped:
    """যে mode এই যন্ত্রে চলেনি, আর কেন (বাংলায়)।"""

    mode: str
    why: str


@dataclass
class LoopOverhead:
    """compare_loop-এর ফল: একই step খালি loop-এ আর train()-এ, সবচেয়ে কম সময় (সেকেন্ড/step)।"""

    mode: str
    plain_step_s: float
    train_step_s: float
    overhead_percent: float


@dataclass
class BenchResult:
    """bench.run-এর ফল (পাঠ ০৩, ০৭)। to_dict() JSON-এর জন্য (--json ঠিক এটাই লেখে); from_dict() রেকর্ড করা ফল
    (যেমন mishran/results/h200_lesson07.json-এর) আবার এই রূপে পড়ে।"""

    device: dict
    sizes: BenchSizes
    parameters: int
    flops_per_step: int
    peak_source: str | None
    loss_reference: str | None
    results: list[ModeResult]
    skipped: list[Skipped]
    compare_loop: list[LoopOverhead] | None = None

    def by_mode(self) -> dict[str, ModeResult]:
        """mode-এর নাম → তার ModeResult।"""
        return {r.mode: r for r in self.results}

    def to_dict(self) -> dict:
        """JSON-এর জন্য dict (আগের সব রেকর্ডের রূপ)।"""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> BenchResult:
        """to_dict()-এর (বা রেকর্ড করা JSON-এর) dict থেকে আবার BenchResult।"""
        return cls(**{**d, "sizes": BenchSizes(**d["sizes"]), "results": [ModeResult(**r) for r in d["results"]],
                      "skipped": [Skipped(**s) for s in d["skipped"]],
                      "compare_loop": d.get("compare_loop") and [LoopOverhead(**c) for c in d["compare_loop"]]})


@contextlib.contextmanager
def _fp32_matmul(mode: Mode):
    """tf32 mode-এ FP32 matmul TF32-এ চলে ('high'), বাকি সবখানে পুরো FP32 ('highest'); শেষে আগের মান ফেরে।"""
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high" if mode.tf32 else "highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


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


def build(mode: Mode, sizes: BenchSizes, device: str):
    """mode অনুযায়ী (model, forward (compile হলে compiled), optimizer, x, y) (পাঠ ০৩, ০৭)। প্রতিটি mode-এ একই seed:
    ওজনের শুরু আর batch হুবহু এক, তাই loss-ও তুলনা করা যায়।"""
    torch.manual_seed(0)
    model = ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab).to(device)
    x, y = (torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq), device=device) for _ in range(2))
    if mode.fp8:
        with warnings.catch_warnings():               # torchao-র নিজের ফাইলের SyntaxWarning (আমাদের নয়)
            warnings.simplefilter("ignore", SyntaxWarning)
            from torchao.float8 import Float8LinearConfig, convert_to_float8_training
        convert_to_float8_training(model.encoder, module_filter_fn=_fp8_filter,
                                   config=Float8LinearConfig.from_recipe_name(mode.fp8))
    optimizer = _optimizer(model.parameters(), mode.optimizer)
    forward = torch.compile(model) if mode.compile else model
    return model, forward, optimizer, x, y


def repeat_step(model, optimizer, scaler, ctx, x, y, n: int, clip_norm: float | None = None) -> list:
    """একই (x, y)-এ n-টি training step, প্রতিটি mishran.engines.amp.amp_step; প্রতি step-এর loss (device tensor,
    host-এ আনা হয় না, তাই GPU থামে না) (পাঠ ০৩, ০৭)।"""
    return [amp_step(model, optimizer, scaler, ctx, [(x, y)], clip_norm=clip_norm)[0] for _ in range(n)]


def time_mode(mode: Mode, sizes: BenchSizes, device: str) -> ModeResult:
    """একটি mode-এ গড় step-সময়, প্রথম step-এর সময় (compile থাকলে তা-সহ), CUDA-তে peak memory, আর প্রতি step-এর
    loss (warm-up সহ)। ঘড়ি mishran.timer.time_steps: warm-up বাদ, প্রতি step-এর আগে-পরে sync(device)।"""
    model, forward, optimizer, x, y = build(mode, sizes, device)
    scaler, ctx = grad_scaler(device, mode.precision), autocast(device, mode.precision)
    losses = []

    def step():
        losses.extend(repeat_step(forward, optimizer, scaler, ctx, x, y, 1))

    with _fp32_matmul(mode):
        first = time_steps(step, 1, device)[0]                       # প্রথম step: compile এখানে
        time_steps(step, 0, device, warmup=max(sizes.warmup - 1, 0))
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        seconds = statistics.fmean(time_steps(step, sizes.steps, device))
    peak = torch.cuda.max_memory_allocated() if device == "cuda" else None
    adamw = _default_adamw(device) if mode.optimizer == "default" else mode.optimizer
    losses = torch.stack(losses).float().tolist()
    del model
    forward = optimizer = scaler = None                   # মুক্ত করা; step-এর closure-ও আর এদের ধরে রাখে না
    release(device)
    return ModeResult(mode.name, seconds, first, peak, adamw, losses)


def compare_loop(mode: Mode, sizes: BenchSizes, device: str, repeats: int = 3) -> LoopOverhead:
    """train()-এর loop নিজে কত খরচ করে (পাঠ ০৩): একই মডেল, batch, precision, clip_norm=1.0-এ খালি
    `for _ in range(n): amp_step(...)` বনাম train() (যা step-এর ওপরে batch আনা, হিসাব রাখা আর tqdm যোগ করে)।
    পালা করে `repeats` বার মেপে প্রত্যেকের সবচেয়ে কম সময় (অন্য কাজের ধাক্কা বাদ দিতে)।"""
    model, forward, optimizer, x, y = build(mode, sizes, device)
    scaler, ctx = grad_scaler(device, mode.precision), autocast(device, mode.precision)
    config = TrainConfig(precision=mode.precision, steps=sizes.steps, clip_norm=1.0, device=device)

    def plain(n):
        repeat_step(forward, optimizer, scaler, ctx, x, y, n, clip_norm=1.0)

    def looped(n):
        train(forward, optimizer, lambda: (x, y), replace(config, steps=n), scaler=scaler)

    def timed(fn):
        return time_steps(lambda: fn(sizes.steps), 1, device)[0] / sizes.steps

    with _fp32_matmul(mode):
        plain(sizes.warmup)
        looped(sizes.warmup)
        rounds = [(timed(plain), timed(looped)) for _ in range(repeats)]       # পালা করে
    best_plain, best_loop = (min(times) for times in zip(*rounds, strict=True))
    del model
    forward = optimizer = None                            # মুক্ত করা; closure-গুলোও আর এদের ধরে রাখে না
    release(device)
    return LoopOverhead(mode.name, best_plain, best_loop, 100 * (best_loop / best_plain - 1))


def has_cxx_compiler() -> bool:
    """CPU-তে torch.compile-এর C++ compiler (g++, c++ বা clang++) PATH-এ আছে কি না (পাঠ ০৭)।"""
    return any(shutil.which(c) for c in ("g++", "c++", "clang++"))


def skip_reason(mode: Mode, device: str, report) -> str | None:
    """এই device-এ mode চলবে না কেন (বাংলায়), চললে None (পাঠ ০৩, ০৭); ক্ষমতা আসে mishran.hardware.device_report থেকে।"""
    sm = f"sm_{report.capability[0]}{report.capability[1]}" if report.capability else ""
    if mode.tf32 and device == "cpu":
        return "TF32 শুধু NVIDIA GPU-র matmul mode (sm_80+); CPU-তে নেই"
    if mode.tf32 and not report.tf32:
        return f"TF32-এর জন্য sm_80 (Ampere) বা নতুন GPU লাগে; এটি {sm}"
    if mode.precision == "bf16" and device == "cuda" and not report.bf16:
        if getattr(report, "simulated", False):
            return (f"অনুকরণ করা GPU ({sm}, simulated)-তে BF16 hardware নেই; আসল GPU-র BF16 গতি এখানে মাপলে "
                    "ভুল ছবি দিত, তাই মাপা হলো না")
        return (f"এই GPU ({sm})-তে BF16 hardware নেই: BF16 এখানে software-এ (emulation) চলে, তার গতি মাপা অর্থহীন; "
                "এই GPU-র পথ FP16 + loss scaling (mode fp16)")
    if mode.fp8 and device == "cpu":
        return ("FP8 tensor core আছে শুধু NVIDIA Ada (sm_89) আর Hopper (sm_90) GPU-তে; CPU-তে নেই। "
                "হিসাবটা CPU-তে দেখতে: mishran.numerics.fp8 (পাঠ ০৭)")
    if mode.fp8 and not report.fp8:
        return f"এই GPU ({sm})-তে FP8 tensor core নেই; লাগে Ada (sm_89) বা Hopper (sm_90)"
    if mode.fp8 and importlib.util.find_spec("torchao") is None:
        return "torchao ইনস্টল করা নেই (not installed): pip install 'mishran[fp8]' বা pip install torchao"
    if mode.compile and device == "cpu" and not has_cxx_compiler():
        return "CPU-তে torch.compile-এর C++ compiler (g++/clang++) পাওয়া যায়নি"
    if mode.compile and device == "cuda" and importlib.util.find_spec("triton") is None:
        return "GPU-তে torch.compile-এর Triton ইনস্টল করা নেই (not installed)"
    return None


def _time_or_skip(mode: Mode, sizes: BenchSizes, device: str, report) -> ModeResult | Skipped:
    """mode-টি মাপা, না চললে কারণসহ Skipped। compile বা FP8 চালাতে গিয়ে ভুল হলে (যেমন পুরোনো driver) থামে না।"""
    why = skip_reason(mode, device, report)
    if why:
        return Skipped(mode.name, why)
    try:
        return time_mode(mode, sizes, device)
    except Exception as err:                              # কারণসহ 'skipped'-এ জানানো হয়, চাপা নয়
        if not (mode.compile or mode.fp8):
            raise
        release(device)
        first = str(err).strip().splitlines()[0][:300] if str(err).strip() else ""
        return Skipped(mode.name, f"চালাতে গিয়ে ভুল (error): {type(err).__name__}: {first}")


def run(sizes: BenchSizes, device: str, modes=GROUPS["precision"], compare: bool = False, report=None) -> BenchResult:
    """সব mode মেপে BenchResult (পাঠ ০৩, ০৭)। modes: নাম ('bf16-fused') বা Mode — একটি, বা তাদের তালিকা।
    যে mode এই যন্ত্রে চলে না, বা compile/FP8 চালাতে গিয়ে ভাঙে, তা কারণসহ skipped-এ যায়।"""
    as_device(device)
    modes = [as_mode(m) for m in (modes if isinstance(modes, (list, tuple)) else [modes])]
    compare = as_bool(compare, "compare")
    report = device_report(device) if report is None else report
    peak_label, peaks = peak_tflops(report.name) if device == "cuda" else (None, {})
    flops = count_flops(sizes)
    outcomes = [(m, _time_or_skip(m, sizes, device, report)) for m in modes]
    ran = [(m, r) for m, r in outcomes if isinstance(r, ModeResult)]
    by = {r.mode: r for _, r in ran}
    base, bf16, loss_ref = by.get("fp32"), by.get("bf16"), by.get("bf16-compile") or by.get("bf16")
    for mode, r in ran:
        r.tflops = flops / r.step_s / 1e12
        r.peak_tflops = peaks.get(mode.peak_key)
        r.fraction_of_peak = mfu(flops, r.step_s, r.peak_tflops)     # কোর্সের একটিই MFU সূত্র
        r.final_loss = r.losses[-1]
        r.speedup_vs_fp32 = base.step_s / r.step_s if base else None
        r.speedup_vs_bf16 = bf16.step_s / r.step_s if bf16 else None
        r.loss_vs_bf16 = r.final_loss / loss_ref.losses[-1] - 1 if loss_ref else None
    return BenchResult(
        device={"device": report.device, "name": report.name,
                "capability": list(report.capability) if report.capability else None,
                "torch": report.torch_version, "cuda": report.cuda_version, "torchao": package_version("torchao")},
        sizes=sizes, parameters=count_parameters(sizes), flops_per_step=flops,
        peak_source=f"{PEAK_SOURCE} ({peak_label})" if peak_label else None,
        loss_reference=loss_ref.mode if loss_ref else None, results=[r for _, r in ran],
        skipped=[s for _, s in outcomes if isinstance(s, Skipped)],
        compare_loop=[compare_loop(m, sizes, device) for m, _ in ran] if compare else None)


def _flop_text(flops: int) -> str:
    return f"{flops / 1e12:.3g} TFLOP" if flops >= 1e12 else f"{flops / 1e9:.3g} GFLOP"


def _row(r: ModeResult, key: str, w: int) -> str:
    """সারণির একটি সারি; key: 'speedup_vs_fp32' বা 'speedup_vs_bf16'।"""
    mem = f"{r.peak_memory_bytes / 2 ** 30:.2f} GiB" if r.peak_memory_bytes is not None else "—"
    speed = f"{getattr(r, key):.2f}×" if getattr(r, key) else "—"
    peak = f"{r.peak_tflops:g}" if r.peak_tflops else "—"
    frac = f"{100 * r.fraction_of_peak:.1f}%" if r.fraction_of_peak is not None else "—"
    return (f"{r.mode.upper():<{w}} {1000 * r.step_s:>10.2f} {speed:>8} {mem:>10} {r.tflops:>9.3g} {peak:>8} "
            f"{frac:>8} {r.final_loss:>9.4f}")


def _format(out: BenchResult, report) -> str:
    s = out.sizes
    lines = ["mishran.measure.bench — এক training step (forward + backward + optimizer step) কত সময় নেয়", "",
             str(report), "",
             f"মডেল: nn.TransformerEncoder, {s.layers} স্তর (layers), d_model {s.d_model}, "
             f"batch {s.batch} × seq {s.seq}, vocab {s.vocab}, {out.parameters / 1e6:.1f}M parameter",
             f"warm-up {s.warmup} step বাদ দিয়ে {s.steps} step-এর গড়; এক step-এ {_flop_text(out.flops_per_step)} "
             "(FlopCounterMode: forward + backward-এর matmul ও attention)",
             ""]
    by = "fp32" if "fp32" in out.by_mode() else "bf16"
    w = max([6] + [len(r.mode) for r in out.results + out.skipped])
    head = (f"{'mode':<{w}} {'ms/step':>10} {'speedup':>8} {'peak mem':>10} {'TFLOP/s':>9} {'peak':>8} "
            f"{'of peak':>8} {'শেষ loss':>9}")
    lines += [head, "-" * len(head)] + [_row(r, f"speedup_vs_{by}", w) for r in out.results]
    lines += [f"{sk.mode.upper():<{w}} {'বাদ (skipped)':>10}: {sk.why}" for sk in out.skipped]
    lines += ["", f"ms/step: এক step-এর সময়; speedup: {by.upper()}-এর তুলনায় কত গুণ দ্রুত; peak mem: "
              "torch.cuda.max_memory_allocated — ওজন, gradient, AdamW-এর অবস্থা আর activation মিলিয়ে "
              "(প্রতি mode-এ নতুন করে গোনা);",
              "TFLOP/s: এক step-এর FLOP ÷ সময়; peak: এই GPU-র সর্বোচ্চ; of peak: তার কত ভাগ পাওয়া গেল "
              "(FP8-এর mode-ও BF16-এর dense peak-এর সঙ্গে তুলনা করা); শেষ loss: একই batch-এ শেষ step-এর loss।"]
    if any(r.mode in GROUPS["speed"][1:] for r in out.results):
        lines.append("BF16-LOOP/FOREACH/FUSED: AdamW-এর বাস্তবায়ন; BF16-COMPILE: torch.compile + fused AdamW; "
                     "FP8-*: torchao.float8 (MLP-র Linear) + torch.compile + fused AdamW (পাঠ ০৭)।")
    if out.peak_source:
        lines.append(f"peak-এর সংখ্যা: {out.peak_source}।")
    elif out.device["device"] == "cuda":
        lines.append("এই GPU-র peak TFLOP/s আমাদের তালিকায় নেই, তাই 'of peak' দেখানো হলো না।")
    else:
        lines += ["CPU-তে peak memory মাপা হয়নি: torch-এ CPU-র জন্য max_memory_allocated-এর মতো কোনো counter নেই; "
                  "CPU-র peak TFLOP/s-ও অজানা।",
                  "CPU-র সংখ্যা GPU-র ছবি নয়: বেশিরভাগ CPU-তে FP16 গুণের দ্রুত পথ নেই, তাই FP16 এখানে ধীর হতে পারে; "
                  "ছোট মডেলে সময়ের বড় অংশ যায় op চালু করার খরচে।"]
    if out.compare_loop:
        lines += ["", "train()-এর loop বনাম শুধু amp_step-এর loop (একই মডেল, batch, precision, clip_norm=1.0):",
                  f"{'mode':<6} {'plain ms':>10} {'train ms':>10} {'overhead':>9}"]
        lines += [f"{c.mode.upper():<6} {1000 * c.plain_step_s:>10.2f} {1000 * c.train_step_s:>10.2f} "
                  f"{c.overhead_percent:>+8.1f}%" for c in out.compare_loop]
    return "\n".join(lines)


def main(argv=None) -> BenchResult:
    """`python -m mishran.measure.bench`: এই যন্ত্রে প্রতিটি mode-এর এক step-এর সময়, মেমরি আর TFLOP/s (পাঠ ০৩, ০৭)।"""
    parser = argparse.ArgumentParser(prog="python -m mishran.measure.bench", description=main.__doc__)
    parser.add_argument("--device", choices=["cpu", "cuda"], default=None, help="না দিলে GPU থাকলে cuda")
    for name in ("layers", "d-model", "batch", "seq", "vocab"):
        parser.add_argument(f"--{name}", type=cli.positive_int)
    parser.add_argument("--steps", type=cli.positive_int, help="মাপা step-এর সংখ্যা")
    parser.add_argument("--warmup", type=cli.non_negative_int, help="warm-up step (মাপা হয় না)")
    parser.add_argument("--modes", type=parse_modes, default=list(GROUPS["precision"]),
                        help="যেমন fp32,bf16; পাঠ ০৭-এর mode: speed; সব: all")
    parser.add_argument("--compare-loop", action="store_true", help="mishran.engines.amp-এর loop-এর বাড়তি খরচ মাপো")
    parser.add_argument("--json", action="store_true", help="যন্ত্রে পড়ার মতো JSON লেখো (পর্দায়)")
    args = parser.parse_args(argv)
    device = args.device or default_device()
    if device == "cuda" and not torch.cuda.is_available():
        parser.error("CUDA GPU পাওয়া যায়নি (CUDA is not available); --device cpu দাও")
    sizes = BenchSizes.for_device(device)
    sizes = replace(sizes, **{k: getattr(args, k) for k in asdict(sizes) if getattr(args, k) is not None})
    report = device_report(device)
    out = run(sizes, device, args.modes, compare=args.compare_loop, report=report)
    if args.json:
        cli.write_record(out, "-")
    else:
        print(_format(out, report))
    return out


if __name__ == "__main__":
    main()
