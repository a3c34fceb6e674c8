"""এক training step-এর সময় কোথায় যায় (torch.profiler), MFU, আর tensor core-বান্ধব মাপ (পাঠ ০৭)।

মডেল, optimizer আর mode আসে mishran.measure.bench থেকে, আর step হলো mishran.engines.amp.amp_step
(bench.repeat_step দিয়ে); তাই এখানে মাপা step, `python -m mishran.measure.bench`-এর step আর train()-এর step একই।
ঘড়ি কোর্সের একটাই: mishran.timer।
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import warnings
from dataclasses import asdict, dataclass, field, replace
from importlib import resources

import torch
from torch.autograd import DeviceType

from mishran import cli
from mishran.checks import as_device, positive_int
from mishran.hardware import default_device, device_report
from mishran.measure import bench
from mishran.measure.memory import release
from mishran.models import reference
from mishran.precision import autocast, dtype_of, for_device, grad_scaler
from mishran.timer import sync, time_steps
from mishran.versions import package_version

__all__ = ["CATEGORIES", "categorize", "StepProfile", "profile_step", "op_events", "fp8_matmul_share",
           "fp8_step_bound", "FP8_RECIPE_FIELDS", "FP8_RECIPES_0_18", "fp8_recipes", "MatmulTime", "time_matmul",
           "VocabStep", "vocab_sweep", "reference_figures", "main"]

CATEGORIES = ("matmul", "attention", "optimizer", "other")          # ভাগগুলো, যে ক্রমে দেখানো হয়

_ATTENTION = re.compile(r"attention|flash|fmha|sdpa|softmax_backward_data", re.I)
_MATMUL = re.compile(r"\b(aten::)?(mm|addmm|bmm|baddbmm|matmul|_scaled_mm|linear)\b|^(mm|addmm|bmm)backward|"
                     r"gemm|cutlass|xmma|sm90_|extern_kernels\.(mm|addmm|bmm)", re.I)
_OPTIMIZER = re.compile(r"^Optimizer\.(step|zero_grad)|adam|^aten::_foreach_|^aten::_fused_", re.I)


def categorize(name: str, in_optimizer: bool = False) -> str:
    """একটি op বা kernel-এর নাম থেকে তার ভাগ: matmul, attention, optimizer, other (elementwise, norm, cast …)।"""
    if in_optimizer or _OPTIMIZER.search(name):
        return "optimizer"
    if _ATTENTION.search(name):
        return "attention"
    if _MATMUL.search(name):
        return "matmul"
    return "other"


@contextlib.contextmanager
def _quiet_profiler_log():
    """profiler-এর C++ অংশ (Kineto) stderr-এ 'STAGE … Completed Stage' লাইন লেখে; মাপার সময়টুকু চুপ রাখা।"""
    try:
        saved = os.dup(2)
    except OSError:                       # stderr-এর fd নেই (কিছু পরিবেশে): যেমন আছে থাকুক
        yield
        return
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


_PROFILER_OWN = ("Activity Buffer Request", "Lazy Function Loading")     # profiler-এর নিজের ঘটনা, মডেলের কাজ নয়


def _inside_optimizer(event) -> bool:
    parent = event.cpu_parent
    while parent is not None and not parent.name.startswith("Optimizer."):
        parent = parent.cpu_parent
    return parent is not None


def _activities(device: str) -> list:
    cuda = [torch.profiler.ProfilerActivity.CUDA] if torch.device(device).type == "cuda" else []
    return [torch.profiler.ProfilerActivity.CPU, *cuda]


def _own_times(prof, device: str):
    """(ঘটনা, মাইক্রোসেকেন্ড): GPU-তে kernel-এর সময় (self device time), CPU-তে op-এর নিজের সময় (self CPU time), তাই
    প্রতিটি সময় ঠিক একবার গোনা পড়ে; শূন্য আর profiler-এর নিজের ঘটনা বাদ।"""
    for event in prof.events():
        us = event.self_device_time_total if device == "cuda" else event.self_cpu_time_total
        if event.device_type == DeviceType.CPU and us > 0 and event.name not in _PROFILER_OWN:
            yield event, us


@dataclass
class StepProfile:
    """profile_step-এর ফল (পাঠ ০৭); সময় প্রতি step-এ, সেকেন্ডে।"""

    mode: str
    device: str
    by_category: dict                   # ভাগ (CATEGORIES) → সময়
    calls_per_step: dict                # ভাগ → কয়টি op/kernel সময় নিল
    top: list                           # সবচেয়ে বেশি সময় নেওয়া ১২টি [নাম, সেকেন্ড, ভাগ]
    wall_s: float                       # এক step-এর ঘড়ির সময়
    counted: str                        # কী গোনা হলো: GPU kernel-এর সময়, নাকি CPU-তে op-এর নিজের সময়
    ops: list = field(default_factory=list)     # সব [নাম, সেকেন্ড, ভাগ], বড় থেকে ছোট (রেকর্ড করা ফলে নেই)

    def to_dict(self) -> dict:
        """JSON-এর জন্য dict; StepProfile(**d) তা আবার পড়ে (রেকর্ড করা ফলও)।"""
        return asdict(self)


def profile_step(mode, sizes: reference.BenchSizes, device: str, steps: int = 3) -> StepProfile:
    """bench-এর মডেলে `steps`টি step torch.profiler দিয়ে মেপে, প্রতি step-এ কোন ভাগে কত সময় (পাঠ ০৭)।

    mode: bench.Mode বা তার নাম ('bf16-fused')। GPU-তে গোনা হয় kernel-এর সময়, CPU-তে op-এর নিজের সময়।
    """
    mode, steps = bench.as_mode(mode), positive_int(steps, "steps")
    as_device(device)
    model, forward, optimizer, x, y = bench.build(mode, sizes, device)
    scaler, ctx = grad_scaler(device, mode.precision), autocast(device, mode.precision)

    def run(n):
        bench.repeat_step(forward, optimizer, scaler, ctx, x, y, n)

    run(max(sizes.warmup, 1))                               # warm-up (compile-ও)
    sync(device)
    with _quiet_profiler_log(), torch.profiler.profile(activities=_activities(device)) as prof:
        wall = time_steps(lambda: run(steps), 1, device)[0] / steps
    timed = [(e.name, categorize(e.name, _inside_optimizer(e)), us / 1e6 / steps) for e, us in _own_times(prof, device)]
    by_name: dict[tuple, float] = {}
    for name, category, seconds in timed:
        by_name[(name, category)] = by_name.get((name, category), 0.0) + seconds
    ops = sorted(([n, s, c] for (n, c), s in by_name.items()), key=lambda t: -t[1])
    del model
    forward = optimizer = None                              # মুক্ত করা; run-এর closure-ও আর এদের ধরে রাখে না
    release(device)
    by_category = {c: sum((s for _, k, s in timed if k == c), 0.0) for c in CATEGORIES}
    calls = {c: sum(k == c for _, k, _ in timed) / steps for c in CATEGORIES}
    return StepProfile(mode.name, device, by_category, calls, ops[:12], wall,
                       "GPU kernel-এর সময়" if device == "cuda" else "CPU-তে op-এর নিজের সময়", ops)


def op_events(fn, *args, device: str = "cpu") -> list:
    """fn(*args) একবার চালিয়ে যে op/kernel সময় নিল তাদের তালিকা [(নাম, মাইক্রোসেকেন্ড)] (পাঠ ০৭: compile-এর fusion)।"""
    with _quiet_profiler_log(), torch.profiler.profile(activities=_activities(device)) as prof:
        fn(*args)
        sync(device)
    return [(e.name, us) for e, us in _own_times(prof, device)
            if not e.name.startswith(("Torch-Compiled", "CompiledFunction"))]


def fp8_matmul_share(sizes: reference.BenchSizes) -> float:
    """bench-এর মডেলের এক step-এর matmul-এর (mm, addmm; attention বাদে) FLOP-এর কত ভাগ FP8-এ যায় (পাঠ ০৭): torchao
    শুধু reference.FP8_LINEARS-এর (MLP-র) Linear বদলায়; attention-এর projection আর head BF16-এই থাকে।"""
    counts = reference.flop_counts(sizes)

    def matmul_flops(ops) -> int:
        return sum(v for op, v in ops.items() if str(op).split(".")[-1] in ("mm", "addmm"))

    fp8 = sum(matmul_flops(ops) for name, ops in counts.items() if name.rsplit(".", 1)[-1] in reference.FP8_LINEARS)
    return fp8 / matmul_flops(counts["Global"])


def fp8_step_bound(matmul_share: float, fp8_share: float, matmul_speedup: float = 2.0) -> float:
    """FP8-এ পুরো step সর্বোচ্চ কত গুণ দ্রুত হতে পারে (Amdahl-এর নিয়ম), যদি cast আর amax-এর কাজ শূন্য হতো (পাঠ ০৭)।

    matmul_share: BF16 step-এর সময়ের কত ভাগ matmul (profile থেকে); fp8_share: তার কত ভাগ FP8-এ যায়;
    matmul_speedup: FP8-এর matmul BF16-এর কত গুণ দ্রুত (datasheet-এর peak-এ ২)। বাকি সময় একই থাকে।
    """
    touched = matmul_share * fp8_share
    return 1 / (1 - touched + touched / matmul_speedup)


# torchao-র Float8LinearConfig-এর যে সুইচগুলো পাঠ ০৭ দেখায়: (বাংলা নাম, config-এর attribute)
FP8_RECIPE_FIELDS = (("input-এর FP8", "cast_config_input"), ("ওজনের FP8", "cast_config_weight"),
                     ("gradient-এর (grad_output) FP8", "cast_config_grad_output"),
                     ("forward-এর গুণে use_fast_accum", "gemm_config_output"),
                     ("backward, grad_input-এর গুণে use_fast_accum", "gemm_config_grad_input"),
                     ("backward, grad_weight-এর গুণে use_fast_accum", "gemm_config_grad_weight"),
                     ("round_scales_to_power_of_2", "round_scales_to_power_of_2"))
# torchao 0.18.0-এর torchao/float8/config.py থেকে হাতে লেখা (tensorwise, rowwise), FP8_RECIPE_FIELDS-এর ক্রমে
FP8_RECIPES_0_18 = (("e4m3fn", "e4m3fn"), ("e4m3fn", "e4m3fn"), ("e5m2", "e4m3fn"), ("True", "True"),
                    ("False", "False"), ("False", "False"), ("False", "True"))


def _recipe_value(config, attr: str) -> str:
    value = getattr(config, attr)
    if hasattr(value, "target_dtype"):                  # CastConfig: কোন FP8 ফরম্যাট
        return str(value.target_dtype).removeprefix("torch.float8_")
    return str(getattr(value, "use_fast_accum", value))  # Float8GemmConfig, নয়তো সোজা bool


def fp8_recipes() -> tuple[list, str]:
    """torchao-র দুই FP8 recipe (tensorwise, rowwise): কোন tensor কোন FP8-এ, কোন গুণে fast accumulation, scale
    ২-এর ঘাতে কি না (পাঠ ০৭)। torchao থাকলে তার নিজের Float8LinearConfig থেকে পড়া, না থাকলে 0.18.0-এর source
    থেকে লেখা সারণি। ফেরত (সারি: [নাম, tensorwise, rowwise], কোথা থেকে)।"""
    if importlib.util.find_spec("torchao") is None:
        values = FP8_RECIPES_0_18
        where = "torchao এখানে নেই: torchao 0.18.0-এর torchao/float8/config.py থেকে লেখা"
    else:
        with warnings.catch_warnings():                 # torchao-র নিজের ফাইলের SyntaxWarning (আমাদের নয়)
            warnings.simplefilter("ignore", SyntaxWarning)
            from torchao.float8 import Float8LinearConfig
        configs = [Float8LinearConfig.from_recipe_name(r) for r in ("tensorwise", "rowwise")]
        values = [tuple(_recipe_value(c, attr) for c in configs) for _, attr in FP8_RECIPE_FIELDS]
        where = f"এই যন্ত্রের torchao {package_version('torchao')}-এর Float8LinearConfig থেকে পড়া"
    return [[label, *v] for (label, _), v in zip(FP8_RECIPE_FIELDS, values, strict=True)], where


@dataclass
class MatmulTime:
    """time_matmul-এর ফল: (m, k, n), এক গুণের সেকেন্ড, আর TFLOP/s।"""

    shape: tuple
    seconds: float
    tflops: float


def time_matmul(m: int, k: int, n: int, dtype=torch.bfloat16, device: str = "cpu", repeats: int = 10) -> MatmulTime:
    """(m×k) @ (k×n) গুণের গড় সময় আর TFLOP/s (পাঠ ০৭: tensor core-বান্ধব মাপ)। ঘড়ি mishran.timer.time_steps:
    warm-up বাদ, sync করে; `repeats`টি গুণের তিনটি দফা মেপে সবচেয়ে কম (অন্য কাজের ধাক্কা বাদ)।"""
    m, k, n, repeats = (positive_int(v, name) for v, name in ((m, "m"), (k, "k"), (n, "n"), (repeats, "repeats")))
    if max(m * k, k * n, m * n) > 2 ** 28 or repeats > 1000:    # ১ GB-এর বেশি matrix, বা অনন্ত সময়ের মাপ
        raise ValueError(f"matrix বা repeats অনেক বড় (too large: at most 2**28 elements per matrix, 1000 repeats); "
                         f"পেয়েছি {m}×{k}×{n}, repeats={repeats}")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype হবে torch-এর একটি float dtype, যেমন torch.bfloat16 (dtype must be a floating torch "
                        f"dtype); পেয়েছি {dtype!r}")
    device = str(as_device(device))
    g = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(m, k, device=device, dtype=dtype, generator=g)       # শূন্য নয়: শূন্যে GPU দ্রুত চলে
    b = torch.randn(k, n, device=device, dtype=dtype, generator=g)

    def matmuls():
        for _ in range(repeats):
            a @ b

    best = min(time_steps(matmuls, 3, device, warmup=1)) / repeats
    return MatmulTime((m, k, n), best, 2 * m * k * n / best / 1e12)


@dataclass
class VocabStep:
    """vocab_sweep-এর একটি সারি: vocab, ৬৪-এর গুণিতক কি না, এক step-এর সেকেন্ড আর TFLOP/s।"""

    vocab: int
    multiple_of_64: bool
    step_s: float
    tflops: float


def vocab_sweep(sizes: reference.BenchSizes, device: str, vocabs=(8192, 8191, 8256),
                mode: bench.Mode = bench.MODES["bf16"]) -> list[VocabStep]:
    """একই মডেল, শুধু vocab বদলে: ৬৪-এর গুণিতক বনাম এক কম/বেশি — এক step-এর সময় (পাঠ ০৭)।"""
    rows = []
    for v in vocabs:
        s = replace(sizes, vocab=v)
        step_s = bench.time_mode(mode, s, device).step_s
        rows.append(VocabStep(v, v % 64 == 0, step_s, reference.count_flops(s) / step_s / 1e12))
    return rows


def reference_figures(lesson: str = "07") -> dict | None:
    """কোর্সের লেখকদের H200-এ মাপা পাঠ ০৬ বা ০৭-এর ফল (mishran/results/h200_lesson<lesson>.json), না থাকলে None:
    তুলনার জন্য, তোমার যন্ত্রে মাপা নয় — GPU ছাড়া নোটবুক এগুলো দেখায়, যন্ত্র আর তারিখ লিখে।"""
    path = resources.files("mishran") / "results" / f"h200_lesson{lesson}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def main(argv=None) -> dict:
    """`python -m mishran.measure.profiler`: profile-এর ভাগ, matmul-এর মাপ আর vocab-এর মাপ — JSON হিসেবে (পাঠ ০৭)।"""
    parser = argparse.ArgumentParser(prog="python -m mishran.measure.profiler", description=main.__doc__)
    parser.add_argument("--device", choices=["cpu", "cuda"], default=None, help="না দিলে GPU থাকলে cuda")
    parser.add_argument("--modes", type=bench.parse_modes, default=["bf16", "bf16-loop", "bf16-fused", "bf16-compile"],
                        help="কোন mode-গুলো profile করা হবে (কমা দিয়ে)")
    parser.add_argument("--out", default="-", help="JSON কোথায় লেখা হবে (না দিলে পর্দায়)")
    args = parser.parse_args(argv)
    device = args.device or default_device()
    if device == "cuda" and not torch.cuda.is_available():
        parser.error("CUDA GPU পাওয়া যায়নি (CUDA is not available); --device cpu দাও")
    sizes = reference.BenchSizes.for_device(device)
    report = device_report(device)
    base = for_device(device)                    # এই device-এর precision: matmul আর vocab-এর মাপ এতেই
    m, k, v = sizes.batch * sizes.seq, sizes.d_model, sizes.vocab
    record = {"device": {"name": report.name, "torch": report.torch_version, "cuda": report.cuda_version},
              "sizes": asdict(sizes), "flops_per_step": reference.count_flops(sizes),
              "profiles": [profile_step(mode, sizes, device).to_dict() for mode in args.modes
                           if bench.skip_reason(bench.MODES[mode], device, report) is None],
              "matmul": [asdict(time_matmul(m, k, n, dtype_of(base), device)) for n in (v, v - 1, v + 64)],
              "vocab": [asdict(r) for r in vocab_sweep(sizes, device, (v, v - 1, v + 64), bench.MODES[base])]}
    cli.write_record(record, args.out)
    return record


if __name__ == "__main__":
    main()
