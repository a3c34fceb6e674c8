"""checkup(): যেকোনো nn.Module-এর precision check-up (পাঠ ১০)।

    from mishran.checkup.run import checkup
    report = checkup(model, (x, y), loss_fn=torch.nn.CrossEntropyLoss(), target="t4")
    report.recommended_precision, report.fp16_init_scale, report.keep_fp32, report.first_nonfinite

একটি FP32 reference forward+backward (TF32 বন্ধ রেখে), তারপর লক্ষ্য যে ১৬-বিট precision-গুলো চালাতে পারে তাদের
প্রতিটিতে একই step (BF16 autocast; FP16 autocast প্রস্তাবিত loss scale-সহ) — প্রতিটি একই RNG আর buffer থেকে।
শেষে খরচ: প্রতিটি precision-এর forward+backward-এর সময় (mishran.timer; optimizer step নয়), backward-এর জন্য রাখা
বাইট, এক step-এর FLOP।
মডেলটি যেমন ছিল তেমনই ফেরত যায় (mishran.checkup.state) — ভুল হলেও।
"""
from __future__ import annotations

import contextlib
import math
import statistics
from dataclasses import dataclass, field

import torch

from mishran import precision
from mishran.checkup import dust, verdict
from mishran.checkup.gradients import CHUNK, UNDERFLOW_LIMIT, log2_histogram, scale_range, underflow_share
from mishran.checkup.keep import KeepFP32
from mishran.checkup.ops import OpRecorder
from mishran.checkup.probe import ModuleProbe
from mishran.checkup.report import WHOLE_MODEL, CheckupReport, CostRow, ParamRow, ParamRun
from mishran.checkup.state import ModelState
from mishran.checkup.step import LossFnFailed, NoDropout, loss_of, run_model, split_batch, tensors_in
from mishran.checkup.target import Target, resolve_target
from mishran.measure.flops import mfu, peak_tflops_for
from mishran.measure.memory import SavedTensorCounter
from mishran.timer import time_steps

__all__ = ["checkup"]

_SIXTEEN = {torch.float16: "FP16", torch.bfloat16: "BF16"}


def _where(module: str | None) -> str:
    """বার্তায় module-এর নাম: মূল মডেল ('') হলে "(পুরো মডেল)"।"""
    return WHOLE_MODEL if module == "" else repr(module)


class _ModelFailed(Exception):
    def __init__(self, module: str | None, error: Exception):
        super().__init__(f"{module!r}: {type(error).__name__}: {error}")
        self.module, self.error = module, error


@dataclass
class _Run:
    """একটি ১৬-বিটের step-এর ফল।"""

    loss: float = math.nan
    saved: object = None
    params: dict = field(default_factory=dict)    # parameter-এর নাম → ParamRun
    ops: list = field(default_factory=list)
    error: str | None = None
    bad: list = field(default_factory=list)       # gradient inf/NaN হওয়া parameter
    cosine: float = math.nan
    rel: float = math.nan


@dataclass
class _Step:
    """মডেল, batch আর loss: এক step চালানোর সব কিছু।"""

    model: torch.nn.Module
    inputs: object
    target: object
    loss_fn: object
    device: torch.device
    probe: ModuleProbe
    dropouts_skipped: int = 0          # তুলনার step-এ কতগুলো dropout বন্ধ করা হলো

    def loss(self, name: str, dropout: bool = True) -> torch.Tensor:
        quiet = contextlib.nullcontext() if dropout else NoDropout()
        with precision.autocast(self.device, name), quiet:
            try:
                output = run_model(self.model, self.inputs)
            except Exception as err:  # noqa: BLE001 — মডেলের যেকোনো ভুল: কোন module-এ, তা বলে আবার ছোড়া হয়
                raise _ModelFailed(self.probe.failed_at, err) from err
            loss = loss_of(output, self.target, self.loss_fn)
        if not dropout:
            self.dropouts_skipped = max(self.dropouts_skipped, quiet.skipped)
        return loss

    def __call__(self, name: str, scale: float = 1.0) -> None:
        self.model.zero_grad(set_to_none=True)
        (self.loss(name).float() * scale).backward()


def _device_type(device) -> str:
    try:
        return torch.device(device).type
    except (RuntimeError, TypeError, ValueError, OverflowError):
        raise ValueError(f"অচেনা device {device!r} (unknown device): 'cpu', 'cuda' বা None দাও") from None


def _device_of(model, batch, device) -> torch.device:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model হবে একটি torch.nn.Module (model must be an nn.Module); পেয়েছি {type(model).__name__}")
    params = list(model.parameters())
    if not params:
        raise ValueError("মডেলে কোনো parameter নেই (the model has no parameters): check-up-এ দেখার মতো gradient নেই")
    low = sorted({_SIXTEEN[p.dtype] for p in params if p.dtype in _SIXTEEN})
    if low:
        raise ValueError(f"মডেলটি আগে থেকেই half precision-এ ({'/'.join(low)} parameters): check-up-এর FP32 reference "
                         "লাগে, তাই এটা চালাব না (refused) — model.float() করে ডাকো; autocast নিজেই ১৬-বিটে চালাবে")
    if any(p.dtype != torch.float32 for p in params):
        raise ValueError("মডেলের সব parameter FP32 হতে হবে (parameters must be float32); model.float() করে ডাকো")
    where = {p.device for p in params}
    if len(where) > 1:
        raise ValueError(f"মডেলের parameter কয়েকটি device-এ ({', '.join(map(str, where))}); check-up এক device-এ চলে")
    here = where.pop()
    if device is not None and _device_type(device) != here.type:
        raise ValueError(f"মডেল আছে {here}-এ, কিন্তু device={device!r} (device mismatch): model.to({device!r}) করো")
    elsewhere = sorted({str(t.device) for t in tensors_in(batch) if t.device != here})
    if elsewhere:
        raise ValueError(f"batch-এর tensor {', '.join(elsewhere)}-এ, মডেল {here}-এ (batch on another device): "
                         f"batch-কে .to('{here}') করো")
    return here


def _tf32_switches() -> list:
    """TF32-এর সুইচগুলো (বস্তু, নাম, বন্ধের মান): torch ≥ 2.9-এর fp32_precision, নইলে পুরোনো allow_tf32 — দুটো মেশালে
    নতুন torch ভুল ধরে, তাই যেটা আছে কেবল সেটাই।"""
    try:
        torch.backends.cuda.matmul.fp32_precision  # noqa: B018 — আছে কি না দেখা
        return [(torch.backends.cuda.matmul, "fp32_precision", "ieee"),
                (torch.backends.cudnn.conv, "fp32_precision", "ieee")]
    except AttributeError:
        return [(torch.backends.cuda.matmul, "allow_tf32", False), (torch.backends.cudnn, "allow_tf32", False)]


@contextlib.contextmanager
def _exact_fp32(device: torch.device):
    """FP32 reference-এ TF32 বন্ধ: Ampere+ GPU-তে FP32 matmul/conv চুপচাপ ১০-বিট mantissa-য় চলতে পারে।"""
    switches = _tf32_switches() if device.type == "cuda" else []
    saved = [getattr(obj, name) for obj, name, _ in switches]
    for obj, name, off in switches:
        setattr(obj, name, off)
    try:
        yield
    finally:
        for (obj, name, _), value in zip(switches, saved, strict=True):
            setattr(obj, name, value)


def _max_abs(t: torch.Tensor) -> float:
    return max(abs(float(v)) for v in torch.aminmax(t.detach()))


def _nonfinite_names(grads: dict) -> list[str]:
    return [n for n, g in grads.items() if not bool(torch.isfinite(g).all())]


def _refusal(step: _Step, failed: _ModelFailed) -> ValueError:
    """FP32-এর step-এ মডেল ভাঙল: কোথায়, কী ভুল — আর tuple batch-এ loss_fn না দিয়ে forward-এর TypeError হলে, কেন।"""
    err = failed.error
    text = (f"মডেলটি এই batch-এ চলল না (the model fails on this batch), module {_where(failed.module)}-এ: "
            f"{type(err).__name__}: {err}")
    if (isinstance(err, TypeError) and failed.module in ("", None) and step.loss_fn is None
            and isinstance(step.inputs, (list, tuple))):
        text += (f" — batch একটি {type(step.inputs).__name__}, তাই model(*batch) ডাকা হলো ({len(step.inputs)}টি "
                 "argument); batch যদি (inputs, target) হয়, loss_fn দাও, যেমন loss_fn=torch.nn.CrossEntropyLoss() "
                 "(command line-এ: --loss torch.nn:CrossEntropyLoss)")
    return ValueError(text)


def _reference(step: _Step, state: ModelState):
    """FP32-এর step (FLOP-ও এখানেই গোনা): loss, gradient, রাখা বাইট, FLOP। এখানে ভাঙলে শিক্ষার্থীর মডেল বা batch-এ
    ভুল — পরিষ্কার বার্তা।"""
    state.reset()
    step.probe.begin("fp32")
    step.probe.recorder = flops = OpRecorder()
    with _exact_fp32(step.device), flops:
        with SavedTensorCounter(step.model) as saved:
            try:
                loss = step.loss("fp32", dropout=False)
            except _ModelFailed as failed:
                raise _refusal(step, failed) from failed.error
        if not loss.requires_grad:
            raise ValueError("loss-এর কোনো gradient নেই (loss does not require grad): সব parameter কি "
                             "requires_grad=False, বা loss কি torch.no_grad()/detach()-এর ভেতরে বানানো?")
        if not torch.isfinite(loss):
            raise ValueError(f"FP32-এই loss {float(loss)} (non-finite loss in FP32): প্রথম inf/NaN module "
                             f"{_where(step.probe.first_nonfinite['fp32'])}-এ — আগে মডেল বা batch ঠিক করো")
        loss.backward()
    grads = {n: p.grad for n, p in step.model.named_parameters() if p.requires_grad and p.grad is not None}
    bad = _nonfinite_names(grads)
    if bad:
        raise ValueError(f"FP32-এই gradient inf/NaN (non-finite gradients in FP32): {', '.join(bad)}")
    step.probe.recorder = None
    return float(loss.detach()), grads, saved, flops.flops


def _sixteen(step: _Step, state: ModelState, name: str, scale: float, ref: dict) -> _Run:
    """একটি ১৬-বিটের step: autocast-এ forward (op-এর খাতাসহ), loss × scale-এর backward, gradient ÷ scale, আর
    FP32-এর gradient-এর সঙ্গে তুলনা — তারপর gradient ফেলে দেওয়া হয় (মেমরিতে একবারে একটি step-এর gradient)।"""
    state.reset()
    step.probe.begin(name)
    recorder = OpRecorder()
    step.probe.recorder = recorder
    run = _Run()
    try:
        with SavedTensorCounter(step.model) as run.saved, recorder:
            loss = step.loss(name, dropout=False)
        run.loss = float(loss.detach())
        (loss.float() * scale).backward()
    except _ModelFailed as failed:
        run.error = f"module {_where(failed.module)}: {type(failed.error).__name__}: {failed.error}"
    except LossFnFailed as failed:         # FP32-এ চলেছিল: এখানে ভুলটা এই dtype-এর (যেমন op নেই)
        run.error = f"loss_fn: {type(failed.__cause__).__name__}: {failed.__cause__}"
    except RuntimeError as err:            # যেমন কোনো op এই dtype-এ এই device-এ নেই (backward-এ)
        run.error = f"{type(err).__name__}: {err}"
    finally:
        step.probe.recorder = None
    run.ops = recorder.rows(name)
    grads = {n: p.grad.div_(scale) for n, p in step.model.named_parameters() if p.grad is not None}
    _compare_grads(run, grads, ref)
    state.reset()
    return run


def _with_kept(step: _Step, state: ModelState, name: str, scale: float, ref: dict, keep: list) -> dict:
    """পরামর্শ যাচাই: keep_fp32-এর module-গুলো FP32-এ রেখে name-এর একই step (_sixteen) আবার — FP32-এর সঙ্গে কতটা
    মেলে, আর মডেলের parameter-এর কত ভাগ ওই module-গুলোয় (সব ওজনই FP32-এ থাকলে লাভ নেই)। ডাকা হয় report-এর সারি
    পড়া শেষে, probe খুলে ফেলার পরে: তাই probe এই step-এর কিছু লেখে না, আগের সারিও বদলায় না।"""
    with KeepFP32(step.model, keep):
        run = _sixteen(step, state, name, scale, ref)
    kept = {id(p) for n in keep for p in step.model.get_submodule(n).parameters()}
    total = sum(p.numel() for p in step.model.parameters())
    return {"precision": name, "modules": list(keep), "loss": run.loss, "grad_rel_error": run.rel,
            "grad_cosine": run.cosine, "error": run.error,
            "broken": verdict.broken(run.loss, run.cosine, bool(run.bad), run.error),
            "param_share": sum(p.numel() for p in step.model.parameters() if id(p) in kept) / total}


def _agreement(got: torch.Tensor, ref: torch.Tensor) -> list[float]:
    """[‖g − r‖², g·r, ‖g‖², ‖r‖²], FP64-এ, একবার পড়ে। ‖g − r‖/‖r‖ হলো numerics.error.relative_error-এর একই
    সংজ্ঞা; এখানে একসঙ্গে cosine-ও লাগে বলে যোগফলগুলো একবারে (বড় মডেলে gradient কয়েক কোটি উপাদানের)।"""
    sums = torch.zeros(4, dtype=torch.float64, device=ref.device)
    for g, r in zip(got.detach().reshape(-1).split(CHUNK), ref.detach().reshape(-1).split(CHUNK), strict=True):
        g, r = g.double(), r.double()
        sums += torch.stack([(g - r).square().sum(), (g * r).sum(), g.square().sum(), r.square().sum()])
    return sums.tolist()


def _rel_cos(sums) -> tuple[float, float]:
    dd, dot, gg, rr = sums
    if not math.isfinite(gg):
        return math.inf, math.nan
    rel = math.sqrt(dd / rr) if rr else (0.0 if dd == 0 else math.inf)
    cos = dot / math.sqrt(gg * rr) if gg and rr else (1.0 if gg == rr else 0.0)
    return rel, cos


def _compare_grads(run: _Run, grads: dict, ref: dict) -> None:
    total = [0.0] * 4
    for n, r in ref.items():
        sums = _agreement(grads.get(n, torch.zeros_like(r)), r)
        rel, cos = _rel_cos(sums)
        run.params[n] = ParamRun(rel, cos, not math.isfinite(sums[2]))
        total = [a + b for a, b in zip(total, sums, strict=True)]
    run.bad = [n for n, p in run.params.items() if p.nonfinite]
    run.rel, run.cosine = _rel_cos(total)


def _param_rows(ref: dict, runs: dict, hists: dict, init_scale: float) -> list[ParamRow]:
    """প্রতিটি parameter-এর সারি: FP32 gradient-এর histogram আর underflow, আর প্রতিটি ১৬-বিট step-এর gradient-এর ত্রুটি।"""
    return [ParamRow(n, g.numel(), _max_abs(g), g.numel() - int(torch.count_nonzero(g)), hists[n],
                     {f: underflow_share(hists[n], f) for f in ("fp16", "bf16")},
                     underflow_share(hists[n], "fp16", init_scale), {p: run.params[n] for p, run in runs.items()})
            for n, g in ref.items()]


def _costs(step: _Step, state: ModelState, names: list, scale: float, steps: int, saved: dict, flops: int) -> list:
    """প্রতিটি precision-এর এক step-এর সময় (warm-up ১টি), রাখা বাইট, আর peak জানা থাকলে MFU।"""
    gpu = torch.cuda.get_device_name(step.device) if step.device.type == "cuda" else None
    rows = []
    for name in names:
        seconds = None
        if steps:
            state.reset()
            s = scale if name == "fp16" else 1.0
            seconds = statistics.median(time_steps(lambda n=name, s=s: step(n, s), steps, step.device, warmup=1))
        peak = peak_tflops_for(gpu, name) if gpu else None
        rows.append(CostRow(name, seconds, saved[name].activations, saved[name].cast_cache,
                            mfu(flops, seconds, peak) if seconds and peak else None))
    return rows


def _innermost_where(rows, name: str, test) -> list[str]:
    return verdict.innermost(row.name for row in rows if name in row.runs and test(row.runs[name]))


def _by_precision(rows: list, params: list, runs: dict, probe: ModuleProbe, ref_loss: float) -> dict:
    """CheckupReport-এর precision → ... ঘরগুলো।"""
    def worst(p):
        ran = [r for r in rows if p in r.runs]
        return [r.name for r in sorted(ran, key=lambda r: r.runs[p].rel_error, reverse=True)]

    return {
        "overflow_modules": {p: _innermost_where(rows, p, lambda r: r.forward_overflow or r.backward_overflow)
                             for p in runs},
        "near_max_modules": {p: _innermost_where(rows, p, lambda r: r.near_max) for p in runs},
        "underflow_params": {f: [r.name for r in params if r.underflow_share[f] > UNDERFLOW_LIMIT]
                             for f in ("fp16", "bf16")},
        "first_nonfinite": {p: probe.first_nonfinite.get(p) for p in runs},
        "worst_modules": {p: worst(p) for p in runs},
        "loss": {"fp32": ref_loss, **{p: run.loss for p, run in runs.items()}},
        "loss_rel_error": {p: abs(run.loss - ref_loss) / abs(ref_loss) if ref_loss else abs(run.loss)
                           for p, run in runs.items()},
        "grad_rel_error": {p: run.rel for p, run in runs.items()},
        "grad_cosine": {p: run.cosine for p, run in runs.items()},
        "errors": {p: run.error for p, run in runs.items()},
    }


def _notes(target: Target, frozen: list, unused: list, runs: dict, dropouts: int) -> list[str]:
    notes = []
    if dropouts:
        notes.append(f"তুলনার step-গুলোয় dropout বন্ধ ছিল ({dropouts}টি জায়গায়; dropout off): CUDA-তে একই RNG থেকেও "
                     "FP32 আর ১৬-বিটের mask আলাদা হয়; সময় মাপার step-এ dropout চালু, activation-এর বাইটে mask নেই।")
    if frozen:
        notes.append(f"requires_grad=False parameter বাদ (skipped, frozen): {', '.join(frozen)}")
    if unused:
        notes.append(f"এই parameter-গুলো loss-এ পৌঁছায়নি, gradient None (unused): {', '.join(unused)}")
    if target.emulated:
        rules = target.autocast_rules.upper()
        notes.append(f"লক্ষ্য {target.label}, কিন্তু হিসাব চলল {rules}-তে (emulated on {rules})। দুই যন্ত্রের "
                     "autocast-এর op-তালিকা আলাদা: যেমন CUDA-র autocast softmax আর layer_norm FP32-এ চালায়, CPU-র FP16 "
                     "autocast চালায় না (ইনপুট FP16 হলে output-ও FP16)। সময়ও এই ডিভাইসে মাপা।")
    for p, run in runs.items():
        if run.error is None and not math.isfinite(run.loss):
            notes.append(f"{p.upper()}-এ loss {run.loss} (non-finite loss)।")
    return notes


def _verdict_fields(step: _Step, state: ModelState, target: Target, rows: list, runs: dict, scale, ref) -> dict:
    is_broken = {p: verdict.broken(run.loss, run.cosine, bool(run.bad), run.error) for p, run in runs.items()}
    failed = target.candidate in runs and runs[target.candidate].error is not None
    keep = [] if failed else verdict.keep_fp32(rows, target.candidate)   # চলেনি: কী FP32-এ রাখতে হবে, অজানা
    check = None
    if keep and target.candidate in runs:
        s = scale.init_scale if target.candidate == "fp16" else 1.0
        check = _with_kept(step, state, target.candidate, s, ref, keep)
    name = verdict.recommend(target.candidate, is_broken, check, failed, target.emulated)
    init = scale.init_scale if name == "fp16" else None
    return {"recommended_precision": name, "fp16_init_scale": init, "keep_fp32": keep, "keep_fp32_check": check,
            "ds_config": verdict.ds_config(name, init)}


def _check_batch(batch) -> None:
    if not tensors_in(batch):
        raise TypeError(f"batch-এ কোনো tensor নেই (no tensors in the batch; পেয়েছি {type(batch).__name__}): batch হবে "
                        "tensor, tuple/list বা dict, যার ভেতরে tensor — DataLoader থেকে একটি batch নাও: "
                        "next(iter(loader)); numpy array হলে torch.from_numpy(x)")


MAX_STEPS = 100
"""সময় মাপার step-এর ঊর্ধ্বসীমা: median-এর জন্য কয়েকটিই যথেষ্ট, বেশি দিলে check-up শুধু দীর্ঘ হয়।"""


def _check_steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, int) or not 0 <= steps <= MAX_STEPS:
        raise ValueError(f"steps হবে ০ থেকে {MAX_STEPS}-এর মধ্যে পূর্ণসংখ্যা (steps must be an integer in "
                         f"0..{MAX_STEPS}); পেয়েছি {steps!r}")
    return steps


def checkup(model, batch, loss_fn=None, device=None, target=None, *, steps: int = 3) -> CheckupReport:
    """যেকোনো nn.Module-এর precision check-up (পাঠ ১০)।

    batch: tensor, tuple/list (model(*batch)) বা dict (model(**batch)); loss আসে output থেকে (scalar, `.loss`, dict-এর
    "loss", tuple-এর প্রথম scalar), বা loss_fn দিলে batch = (inputs, target) আর loss = loss_fn(logits, target)।
    device: না দিলে মডেল যেখানে আছে; দিলে তা মডেলের device-ই হতে হবে। target: পরামর্শ কোন যন্ত্রের জন্য — 'cpu',
    't4', 'v100', 'a100', 'h100', 'h200', (7, 5)-এর মতো compute capability, বা None (এই device)। steps: প্রতিটি
    precision-এর সময় মাপার step (warm-up ছাড়া); 0 দিলে সময় মাপা হয় না।
    half precision-এর মডেল (FP16/BF16 parameter) নেওয়া হয় না: FP32 reference লাগে, তাই ValueError।
    মডেলের ওজন, gradient, buffer, mode আর RNG-এর অবস্থা বিটে বিটে আগের মতো ফেরত যায়।
    """
    here = _device_of(model, batch, device)
    _check_batch(batch)
    steps = _check_steps(steps)
    goal = resolve_target(target, here.type)
    inputs, y = split_batch(batch, loss_fn)
    if not any(p.requires_grad for p in model.parameters()):
        raise ValueError("মডেলের কোনো parameter-এর requires_grad নেই (no parameter requires grad): দেখার মতো "
                         "gradient নেই — অন্তত কিছু parameter-এ requires_grad_(True) দাও")
    state = ModelState(model, here)
    probe = ModuleProbe(model)
    step = _Step(model, inputs, y, loss_fn, here, probe)
    try:
        with torch.enable_grad():           # শিক্ষার্থী torch.no_grad()-এর ভেতর থেকে ডাকলেও backward চলে
            return _measure(step, state, goal, steps)
    finally:
        probe.detach()
        state.restore()


def _measure(step: _Step, state: ModelState, goal: Target, steps: int) -> CheckupReport:
    model, probe = step.model, step.probe
    probe.attach()
    ref_loss, ref, saved, flops = _reference(step, state)
    hists = {n: log2_histogram(g) for n, g in ref.items()}
    scale = scale_range(hists, max(_max_abs(g) for g in ref.values()), probe.max_grad("fp32"))
    runs = {p: _sixteen(step, state, p, scale.init_scale if p == "fp16" else 1.0, ref) for p in goal.precisions}
    probe.detach()
    rows = probe.rows(goal.precisions, {p: {n.rpartition(".")[0] for n in run.bad} for p, run in runs.items()})
    params = _param_rows(ref, runs, hists, scale.init_scale)
    saved_by = {"fp32": saved, **{p: run.saved for p, run in runs.items() if run.error is None}}
    costs = _costs(step, state, list(saved_by), scale.init_scale, steps, saved_by, flops)
    frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
    unused = [n for n, p in model.named_parameters() if p.requires_grad and n not in ref]
    report = CheckupReport(
        model=type(model).__name__, device=str(step.device), target=goal.label, target_capability=goal.capability,
        autocast_rules=goal.autocast_rules, emulated=goal.emulated, numbers_label=goal.numbers_label,
        training=model.training, precisions=list(goal.precisions), target_precision=goal.candidate,
        recommended_precision="", fp16_init_scale=None,
        keep_fp32=[], keep_fp32_check=None, loss_scale=scale, flops=flops, modules=rows, params=params,
        ops=[o for run in runs.values() for o in run.ops], costs=costs, frozen_params=frozen, unused_params=unused,
        notes=_notes(goal, frozen, unused, runs, step.dropouts_skipped), advice="", ds_config={},
        **_by_precision(rows, params, runs, probe, ref_loss))
    for key, value in _verdict_fields(step, state, goal, rows, runs, scale, ref).items():
        setattr(report, key, value)
    suspects, report.window_without_dust = dust.edge_setters(hists, scale)
    if suspects:                            # গুঁড়োই কি নিচের প্রান্ত টানছে? FP64-এর কপিতে একই step দিয়ে যাচাই
        state.reset()
        report.rounding_dust = dust.confirm_in_fp64(model, step.inputs, step.target, step.loss_fn, ref, suspects, scale)
    report.advice = verdict.advice(report)
    return report
