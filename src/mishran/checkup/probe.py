"""প্রতিটি module-এর forward hook: output-এর মাপ, inf/NaN, FP32-এর তুলনায় ত্রুটি, আর backward-এ gradient (পাঠ ১০)।

activation-এর কপি রাখা হয় না, শুধু পরিসংখ্যান: বৃহত্তম |মান|, কত ভাগ subnormal, inf/NaN আছে কি না। FP32-এর সঙ্গে
ত্রুটি মাপতে FP32 step-এ প্রতিটি output আর input থেকে বড়জোর SAMPLE-টি উপাদান রাখা হয় (একই নির্দিষ্ট জায়গার —
ছোট tensor হলে সবগুলো, তখন ত্রুটি নির্ভুল); ১৬-বিটের step-এ একই জায়গাগুলো মিলিয়ে mishran.numerics.error-এর
relative_error। hook-এর ভেতরে কোনো module ভেঙে পড়লে failed_at তার নাম বলে।
"""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import torch

from mishran.checkup.gradients import CHUNK
from mishran.checkup.report import ModuleRow, ModuleRun
from mishran.checkup.step import tensors_in
from mishran.numerics.error import relative_error
from mishran.numerics.formats import get_format

__all__ = ["SAMPLE", "NEAR_MAX_FACTOR", "ModuleProbe"]

SAMPLE = 2 ** 14
"""FP32-এর তুলনার জন্য প্রতিটি output/input থেকে যতগুলো উপাদান রাখা হয় (এর চেয়ে ছোট হলে সবগুলো)।"""

NEAR_MAX_FACTOR = 4.0
"""output-এর বৃহত্তম |মান| ফরম্যাটের max ÷ 4-এর বেশি (২ বিটের কম জায়গা) হলে "max-এর কাছে" (near max)।"""

_FP16 = get_format("fp16")
_E4M3 = get_format("fp8_e4m3")


@dataclass
class _Tally:
    """একটি module, একটি step: সব ডাক মিলিয়ে।"""

    calls: int = 0
    order: int = -1
    dtype: str = ""
    max_abs: float = 0.0
    nonzero: int = 0
    subnormal: int = 0
    nonfinite: bool = False
    input_nonfinite: bool = False
    produced: bool = False
    rel_error: float = 0.0
    input_rel_error: float = 0.0
    grad_max: float = 0.0
    grad_out_nonfinite: bool = False
    grad_in_nonfinite: bool = False


def _floats(obj) -> list[torch.Tensor]:
    return [t for t in tensors_in(obj) if t.is_floating_point() and t.numel()]


def _extent(tensors) -> tuple[float, bool]:
    """(বৃহত্তম |মান|, সব সসীম কি না), প্রতিটি tensor একবার পড়ে (aminmax NaN-ও ছড়িয়ে দেয়)।"""
    top, finite = 0.0, True
    for t in (t for t in tensors if t.numel()):
        lo, hi = (float(v) for v in torch.aminmax(t.detach()))
        finite &= math.isfinite(lo) and math.isfinite(hi)
        top = max(top, abs(lo), abs(hi)) if finite else math.inf
    return top, finite


def _worse(old: float, new: float) -> float:
    return math.inf if not math.isfinite(new) else max(old, new)


def _ratio(top: float, value: float) -> float:
    return top / value if value > 0 else math.inf


class ModuleProbe:
    """মডেলের প্রতিটি module-এ hook বসিয়ে প্রতিটি step-এর পরিসংখ্যান রাখে (পাঠ ১০)।

        probe = ModuleProbe(model); probe.attach()
        probe.begin("fp32"); ...step...; probe.begin("bf16"); ...step...
        probe.detach(); rows = probe.rows(["bf16"], bad_params)
    """

    def __init__(self, model: torch.nn.Module):
        self.model = model
        self.names = {id(m): name for name, m in model.named_modules()}
        self.kinds = {name: type(m).__name__ for name, m in model.named_modules()}
        self.tallies: dict = {}           # precision → {module-এর নাম: _Tally}
        self.first_nonfinite: dict = {}   # precision → module-এর নাম বা None
        self.recorder = None              # OpRecorder থাকলে hook-এর নিজের op-গুলো তাতে গোনা হয় না
        self.stack: list = []
        self._ref: dict = {}
        self._index: dict = {}
        self._handles: list = []
        self._precision = "fp32"
        self._order = 0

    @property
    def failed_at(self) -> str | None:
        """যে module-এর forward শেষ হয়নি তাদের সবচেয়ে ভেতরেরটি (মডেল ভেঙে পড়লে সেখানেই পড়েছে)।"""
        return self.stack[-1] if self.stack else None

    def attach(self) -> None:
        """সব module-এ forward pre-hook আর forward hook বসায়।"""
        for m in self.model.modules():
            self._handles.append(m.register_forward_pre_hook(self._pre, with_kwargs=True))
            self._handles.append(m.register_forward_hook(self._post, with_kwargs=True))

    def detach(self) -> None:
        """সব hook সরায়; FP32-এর নমুনাও ফেলে দেয়।"""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._ref.clear()

    def begin(self, precision: str) -> None:
        """পরের step এই precision-এর (প্রথমটি 'fp32' — reference)।"""
        self._precision, self._order = precision, 0
        self.tallies[precision] = {}
        self.first_nonfinite[precision] = None
        self.stack.clear()

    @contextlib.contextmanager
    def _quiet(self):
        was = self.recorder.paused if self.recorder else False
        if self.recorder:
            self.recorder.paused = True
        try:
            with torch.no_grad():
                yield
        finally:
            if self.recorder:
                self.recorder.paused = was

    def _pre(self, module, args, kwargs):
        self.stack.append(self.names.get(id(module), type(module).__name__))

    def _post(self, module, args, kwargs, output):
        name = self.stack.pop() if self.stack else self.names.get(id(module), "")
        with self._quiet():
            self._record(name, _floats((args, kwargs)), _floats(output))

    def _record(self, name: str, ins: list, outs: list) -> None:
        tally = self.tallies[self._precision].setdefault(name, _Tally())
        call = tally.calls
        tally.calls += 1
        if tally.order < 0:
            tally.order, self._order = self._order, self._order + 1
        if not outs:
            return
        tally.dtype = tally.dtype or str(outs[0].dtype).removeprefix("torch.")
        top, finite = _extent(outs)
        clean_in = _extent(ins)[1]
        tally.max_abs, tally.nonfinite = max(tally.max_abs, top), tally.nonfinite or not finite
        tally.input_nonfinite |= not clean_in
        if not finite and self.first_nonfinite[self._precision] is None:
            self.first_nonfinite[self._precision] = name
        # max-এর বেশি শুধু ১৬-বিটের output-এ overflow: FP32-এ থাকা output (যেমন upcast করা) সেই মান রাখতে পারে
        sixteen = [t for t in outs if t.dtype in (torch.float16, torch.bfloat16)]
        if (not finite or (sixteen and _extent(sixteen)[0] > get_format(self._precision).max)) and clean_in:
            tally.produced = True
        if self._precision == "fp32":
            for t in outs:
                tally.nonzero += int(torch.count_nonzero(t))
                tally.subnormal += sum(int(((part != 0) & (part.abs() < _FP16.min_normal)).sum())
                                       for part in t.detach().reshape(-1).split(CHUNK))
        self._hook_gradients(tally, ins, outs)
        self._compare(tally, (name, call), ins, outs)

    def _hook_gradients(self, tally: _Tally, ins: list, outs: list) -> None:
        def on_output(grad):
            with torch.no_grad():
                top, finite = _extent([grad])
                tally.grad_out_nonfinite |= not finite
                tally.grad_max = max(tally.grad_max, top)

        def on_input(grad):
            with torch.no_grad():
                tally.grad_in_nonfinite |= not _extent([grad])[1]

        for t in outs:
            if t.requires_grad and t.numel() > 1:      # একটি সংখ্যা = loss: তার gradient loss scale নিজেই, FP32-এ
                t.register_hook(on_output)
        for t in ins:
            if t.requires_grad:
                t.register_hook(on_input)

    def _sample(self, t: torch.Tensor) -> torch.Tensor:
        flat = t.detach().reshape(-1)
        n = flat.numel()
        if n <= SAMPLE:
            return flat.float().clone()
        key = (n, flat.device)
        if key not in self._index:       # নিজস্ব generator: মডেলের RNG ছোঁয় না, আর প্রতিবার একই জায়গা
            gen = torch.Generator(device=flat.device).manual_seed(n)
            self._index[key] = torch.randint(n, (SAMPLE,), generator=gen, device=flat.device)
        return flat[self._index[key]].float()

    def _compare(self, tally: _Tally, key: tuple, ins: list, outs: list) -> None:
        now = ([self._sample(t) for t in ins], [self._sample(t) for t in outs])
        if self._precision == "fp32":
            self._ref[key] = now
            return
        ref = self._ref.get(key)
        for i, attr in ((0, "input_rel_error"), (1, "rel_error")):
            if ref and now[i] and [t.shape for t in now[i]] == [t.shape for t in ref[i]]:
                setattr(tally, attr, _worse(getattr(tally, attr), relative_error(now[i], ref[i])))

    def _run(self, tally: _Tally, precision: str, bad_params: set, name: str) -> ModuleRun:
        fmt = get_format(precision)
        added = tally.rel_error / max(tally.input_rel_error, fmt.eps / 2)
        clean = not (tally.nonfinite or tally.input_nonfinite or tally.grad_out_nonfinite)   # নইলে দোষ আগের কারও
        backward = clean and (tally.grad_in_nonfinite or name in bad_params)
        return ModuleRun(tally.dtype, tally.max_abs, tally.nonfinite,
                         not tally.nonfinite and tally.max_abs >= fmt.max / NEAR_MAX_FACTOR, tally.rel_error,
                         tally.input_rel_error, added, tally.produced, backward)

    def max_grad(self, precision: str = "fp32") -> float:
        """এই step-এ কোনো module-এর output-এর gradient-এর বৃহত্তম |মান| (activation gradient)।"""
        return max((t.grad_max for t in self.tallies.get(precision, {}).values()), default=0.0)

    def rows(self, precisions, bad_params: dict) -> list[ModuleRow]:
        """FP32 step-এ চলা প্রতিটি module-এর সারি, চলার ক্রমে (ভেতরেরটি আগে শেষ হয়)। bad_params: precision → যে
        module-গুলোর নিজের কোনো parameter-এর gradient inf/NaN।"""
        rows = []
        for name, ref in sorted(self.tallies["fp32"].items(), key=lambda item: item[1].order):
            runs = {p: self._run(self.tallies[p][name], p, bad_params.get(p, set()), name)
                    for p in precisions if name in self.tallies.get(p, {})}
            fp16, e4m3 = _ratio(_FP16.max, ref.max_abs), _ratio(_E4M3.max, ref.max_abs)
            rows.append(ModuleRow(name, self.kinds.get(name, ""), ref.calls, ref.max_abs,
                                  ref.subnormal / ref.nonzero if ref.nonzero else 0.0, fp16, math.log2(fp16), e4m3,
                                  math.log2(e4m3), ref.grad_max, runs))
        return rows
