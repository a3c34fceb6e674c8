"""পাঠ ০৩ (AMP-এর training loop) অনুশীলনীর যাচাই: GradScaler-এর scale-এর ধারা, মেমরির বাজেট, নতুন torch.amp API,
forward-এর overflow।"""
from __future__ import annotations

import copy
import warnings

import torch
import torch.nn.functional as F

from mishran import precision

from .core import Verdict, blank_verdict, check_fields, choice_answer, dict_answer, function_answer, is_blank, say

__all__ = ["MEMORY_BUDGET", "OVERFLOW_FIXES", "check_max_micro_batch", "check_modern_amp_step",
           "check_overflow_diagnosis", "check_scale_sequence"]


def _low_dtype(device):
    """এই device-এ autocast-এর ১৬-বিট dtype: precision.for_device-এর নিয়ম; fp32 হলে (tensor core ছাড়া GPU) তবু FP16।"""
    return precision.dtype_of(precision.for_device(device).replace("fp32", "fp16"))


def _reference_amp_step(model, optimizer, scaler, x, y, device_type, dtype):
    with torch.amp.autocast(device_type, dtype=dtype):
        loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)


def _amp_problem(device):
    """অনুশীলনী ০৩.৩-এর ছোট সমস্যা: দুই স্তরের net (gradient-এর norm ১-এর নিচে), x, y — প্রতিবার একই।"""
    g = torch.Generator().manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.2 * torch.randn(p.shape, generator=g))    # gradient-এর norm ১-এর নিচে: clip দিলেও একই
    x = torch.randn(16, 4, generator=g).to(device)
    y = (0.1 * torch.randn(16, 1, generator=g)).to(device)
    return model.to(device), x, y


def _fresh_parts(model, device_type):
    """model-এর একটি কপি, তার SGD আর একটি নতুন GradScaler (init_scale 2^10)।"""
    m = copy.deepcopy(model)
    return m, torch.optim.SGD(m.parameters(), lr=0.1), torch.amp.GradScaler(device_type, init_scale=2.0 ** 10)


def _weight_change(after, before):
    return torch.cat([(a - b).detach().flatten() for a, b in zip(after.parameters(), before.parameters(), strict=True)])


def _run_learner_amp_step(step_fn, model, x, y, device_type, dtype) -> dict:
    """শিক্ষার্থীর step দুবার: একবার স্বাভাবিক, তারপর (update ঠিক থাকলে) y-তে inf দিয়ে। যা দেখা গেল তার খাতা।"""
    m, opt, scaler = _fresh_parts(model, device_type)
    seen = []
    hook = m[0].register_forward_hook(lambda mod, inp, out: seen.append(out.dtype))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = step_fn(m, opt, scaler, x, y, device_type, dtype)
            got = _weight_change(m, model)
            tracker, scale = scaler.state_dict().get("_growth_tracker"), scaler.get_scale()
            old = [p.detach().clone() for p in m.parameters()]
            bad_y = y.clone()
            bad_y[0] = float("inf")                      # ইচ্ছা করে overflow
            if tracker == 1:
                step_fn(m, opt, scaler, x, bad_y, device_type, dtype)
    finally:
        hook.remove()
    return {"caught": caught, "seen": seen, "loss": loss, "got": got, "tracker": tracker, "scale": scale,
            "overflow_moved": any(not torch.equal(a, b) for a, b in zip(old, m.parameters(), strict=True)),
            "scale_after_overflow": scaler.get_scale()}


def _modern_step_mistake(run: dict, want, dtype) -> str:
    """_run_learner_amp_step-এর খাতা থেকে প্রথম ভুলের ব্যাখ্যা; ঠিক থাকলে ফাঁকা লেখা।"""
    old_api = [w for w in run["caught"] if issubclass(w.category, FutureWarning) and "torch.cuda.amp" in str(w.message)]
    if old_api:
        return (f"এখনো পুরোনো API: {old_api[0].message} — torch.amp.autocast(device_type, dtype=dtype) "
                "আর torch.amp.GradScaler(device_type) নাও।")
    seen, loss, got = run["seen"], run["loss"], run["got"]
    if not seen or seen[0] != dtype:
        got_name = str(seen[0]).removeprefix("torch.") if seen else "কিছুই না"
        return (f"প্রথম Linear-এর ফল {got_name}, {str(dtype).removeprefix('torch.')} নয়: forward কি "
                "torch.amp.autocast(device_type, dtype=dtype)-এর ভেতরে?")
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        return f"ফাংশনটি loss (একটি সংখ্যার tensor) ফেরত দেবে; পেয়েছি {loss!r}।"
    if not bool(got.abs().sum() > 0):
        return "ওজন একটুও বদলায়নি: scaler.step(optimizer) ডাকা হয়েছে তো?"
    rel = float((got - want).norm() / want.norm())
    if rel > 0.05:
        return (f"ওজনের বদল ঠিক AMP step-এর চেয়ে আলাদা (আপেক্ষিক পার্থক্য {rel:.2g}): "
                "scaler.scale(loss).backward() দিয়েছ? scale না করলে scaler.step ভাগ করে ফেলে scale দিয়ে, "
                "আর optimizer.step() সরাসরি ডাকলে scale-গুণ gradient দিয়েই ওজন বদলায়।")
    if run["tracker"] != 1 or run["scale"] != 2.0 ** 10:
        return ("scaler.update() ডাকা হয়নি (growth tracker বাড়েনি): প্রতিটি step-এর শেষে update চাই, "
                "নইলে scale কখনো বদলায় না আর পরের step-এ scaler.step() ভুল তোলে।")
    if run["overflow_moved"]:
        return ("overflow-এর step-এ (y-তে inf) ওজন বদলে গেছে: optimizer.step() সরাসরি নয়, "
                "scaler.step(optimizer) ডাকো — সে inf/NaN পেলে step বাদ দেয়।")
    if run["scale_after_overflow"] != run["scale"] * 0.5:
        return (f"overflow-এর পর scale {run['scale_after_overflow']:g}, হওয়ার কথা {run['scale'] * 0.5:g}: "
                "scaler.update()।")
    return ""


def check_modern_amp_step(step_fn, device="cpu") -> Verdict:
    """অনুশীলনী ০৩.৩: বাতিলের পথে থাকা torch.cuda.amp-এর step নতুন torch.amp দিয়ে লেখা।

    step_fn(model, optimizer, scaler, x, y, device_type, dtype) একটি AMP step নেয় আর loss ফেরত দেয়। যাচাই:
    কোনো FutureWarning নেই; Linear-এর ফল নিচু precision-এ (autocast চালু); ওজনের বদল নির্ভুল AMP step-এর
    সমান (loss scale করা, তারপর unscale); scaler.update() ডাকা হয়; overflow-এ step বাদ আর scale অর্ধেক।
    dtype: এই device-এর ১৬-বিট dtype (CPU-তে bfloat16; GPU-তে precision.for_device যা বলে)।
    """
    early = function_answer(step_fn, "step_fn(model, optimizer, scaler, x, y, device_type, dtype)")
    if early is not None:
        return early
    device_type = torch.device(device).type
    dtype = _low_dtype(device)
    model, x, y = _amp_problem(device)
    ref_model, ref_opt, ref_scaler = _fresh_parts(model, device_type)
    _reference_amp_step(ref_model, ref_opt, ref_scaler, x, y, device_type, dtype)
    want = _weight_change(ref_model, model)
    try:
        run = _run_learner_amp_step(step_fn, model, x, y, device_type, dtype)
    except Exception as err:  # noqa: BLE001 — শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return say(False, f"তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
    mistake = _modern_step_mistake(run, want, dtype)
    if mistake:
        return say(False, mistake)
    return say(True, "নতুন torch.amp API: কোনো FutureWarning নেই, forward autocast-এ, loss scale হয়ে backward, "
                      "scaler.step overflow-এ step বাদ দেয়, update scale অর্ধেক করে।")


def _torch_scale_sequence(pattern, init_scale: float, growth_interval: int) -> list:
    """torch-এর নিজের GradScaler চালিয়ে প্রতিটি update()-এর পরের scale (oracle: torch নিজেই)।"""
    w = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([w], lr=0.0)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval)
    scales = []
    for overflow in pattern:
        scaler.scale(torch.ones(()))                  # scaler-কে এই ধাপের scale জানায়, যেমন scale(loss)
        w.grad = torch.full((1,), float("inf") if overflow else scaler.get_scale())
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales


def check_scale_sequence(pattern, answer, init_scale: float = 2.0 ** 10, growth_interval: int = 3) -> Verdict:
    """অনুশীলনী ০৩.১ (আগে অনুমান, তারপর চালাও): overflow-এর ধারায় প্রতিটি update()-এর পরে GradScaler-এর scale।"""
    if is_blank(answer):
        return blank_verdict()
    pattern = [bool(p) for p in pattern]
    try:
        given = [float(a) for a in answer]
    except (TypeError, ValueError):
        return say(False, f"প্রতিটি ধাপের জন্য একটি সংখ্যা, একটি list-এ (a list of numbers); পেয়েছি {answer!r}।", form=True)
    if len(given) != len(pattern):
        return say(False, f"ধারায় {len(pattern)}টি ধাপ, তুমি দিয়েছ {len(given)}টি সংখ্যা।", form=True)
    truth = _torch_scale_sequence(pattern, init_scale, growth_interval)
    if given == truth:
        return say(True, "torch-এর GradScaler ঠিক এই ধারাই দিল: overflow-এ অর্ধেক আর গোনা শূন্য; টানা "
                          f"{growth_interval}টি ঠিকঠাক ধাপের পর দ্বিগুণ, তারপর গোনা আবার শূন্য থেকে।")
    first = next(i for i, (a, b) in enumerate(zip(given, truth, strict=True)) if a != b)
    if pattern[first]:
        why = "এই ধাপে overflow: update() কী করে, আর টানা ঠিকঠাক ধাপের গোনাটা তখন কোথায় যায়?"
    else:
        why = (f"এই ধাপে overflow নেই। শেষ overflow (বা শুরু) থেকে কয়টি টানা ঠিকঠাক ধাপ হলো গোনো; scale বাড়ে ঠিক "
               f"{growth_interval}-তম ঠিকঠাক ধাপে, আর তারপর গোনা আবার শূন্য থেকে শুরু হয়।")
    return say(False, f"ধাপ {first} (শূন্য থেকে গোনা) পর্যন্ত মেলেনি। {why}")


MEMORY_BUDGET = {"params": 350e6, "gpu_bytes": 24e9, "act_fp32_per_example": 1.0e9, "act_amp_per_example": 0.6e9}
"""অনুশীলনী ০৩.২-এর সংখ্যা: ওজনের সংখ্যা, GPU-র মেমরি, আর প্রতি উদাহরণে activation (FP32 আর autocast-এ)।"""


def _max_micro_batches(budget: dict) -> dict:
    psi = budget["params"]
    states = 16 * psi                  # ওজন ৪ + gradient ৪ + Adam-এর দুটি গড় ৮: FP32 আর autocast দুটিতেই
    cast_copies = 2 * psi              # autocast-এর ওজনের ১৬-বিট কপি: forward থেকে backward পর্যন্ত থাকে
    free = budget["gpu_bytes"] - states
    return {"fp32": int(free // budget["act_fp32_per_example"]),
            "amp": int((free - cast_copies) // budget["act_amp_per_example"])}


def check_max_micro_batch(answer, budget: dict | None = None) -> Verdict:
    """অনুশীলনী ০৩.২ (মেমরির বাজেটে বাছাই): AdamW-এ FP32 আর autocast-এ সবচেয়ে বড় কোন micro-batch ধরে।"""
    values, early = dict_answer(answer, ("fp32", "amp"), numbers=False)
    if early is not None:
        return early
    truth = _max_micro_batches(budget or MEMORY_BUDGET)
    hints = {"fp32": "fp32: AdamW-এ প্রতিটি ওজনের জন্য কয়টি FP32 সংখ্যা থাকে — ওজন, gradient, আর Adam-এর দুটি গড়? "
                     "বাকি জায়গা activation-এর; micro-batch পূর্ণসংখ্যা, নিচের দিকে নাও।",
             "amp": "amp: autocast মডেল বদলায় না — ওজন, gradient আর Adam-এর অবস্থা কোন dtype-এ থাকে? তার ওপর "
                    "forward থেকে backward পর্যন্ত ওজনের একটি ১৬-বিট কপিও থাকে। শুধু কোন অংশটা ছোট হয়?"}
    return check_fields(values, truth, hints, "model state দুই ক্ষেত্রেই প্রতি ওজনে ১৬ বাইট; autocast বাঁচায় "
                                              "activation-এ, আর তাতেই বড় micro-batch ধরে।")


OVERFLOW_FIXES = {
    "a": "init_scale=1.0 দিয়ে শুরু করা",
    "b": "growth_interval অনেক বড় করা",
    "c": "ইনপুট normalize করা (গড় ০, বিচ্যুতি ১)",
    "d": "learning rate ১০০ গুণ কমানো",
}
"""অনুশীলনী ০৩.৪-এর প্রতিকারগুলো: কোনটা সত্যি সারায়, তা খুঁজে বের করতে হয়।"""


def _first_nonfinite_module(model, x, device_type: str) -> str | None:
    found = []
    handles = [m.register_forward_hook(
        lambda mod, inp, out, name=name: found.append(name) if not found and not torch.isfinite(out).all() else None)
        for name, m in model.named_modules() if name]
    try:
        with torch.no_grad(), torch.amp.autocast(device_type, dtype=torch.float16):
            model(x)
    finally:
        for h in handles:
            h.remove()
    return found[0] if found else None


def check_overflow_diagnosis(answer, model, x, device="cpu") -> Verdict:
    """অনুশীলনী ০৩.৪: FP16-এ কোন module-এর ফলে প্রথম inf আসে, আর OVERFLOW_FIXES-এর কোনটা সত্যি সারায়।"""
    answer, early = dict_answer(answer, ("module", "fix"), numbers=False)
    if early is not None:
        return early
    truth = _first_nonfinite_module(model, x, torch.device(device).type)
    module = str(answer["module"]).strip()
    if module != truth:
        return say(False, f"module {module!r}-এ প্রথম inf নয়। প্রতিটি module-এ একটি forward hook বসাও "
                           "(register_forward_hook), আর FP16 autocast-এ একবার forward চালাও: কোনটার ফলে প্রথম "
                           "অসীম মান দেখা যায়? নাম লেখো named_modules()-এর মতো, যেমন 'net.2'।")
    fix, early = choice_answer(answer["fix"], OVERFLOW_FIXES, "fix", fold=lambda s: s.lower().strip("()"))
    if early is not None:
        return early
    if fix != "c":
        return say(False, "এই প্রতিকার scale বা ওজনের হালনাগাদ বদলায়। কিন্তু inf আসছে forward-এই, loss scale "
                           "হওয়ার আগে, আর বাদ-পড়া ধাপে ওজন বদলায়ই না। forward-এর সংখ্যাগুলো কোথা থেকে এত বড় হয়?")
    return say(True, f"forward-এই {truth}-এর ফল FP16-এর পরিসর ছাড়ায়, তাই loss নিজেই inf/NaN; scale যত কমাও, "
                      "সারবে না। ইনপুট normalize করলে (বা পরিসরের জন্য BF16 নিলে) activation FP16-এ ধরে।")
