"""পাঠ ০৩ (AMP-এর training loop) অনুশীলনীর যাচাই: epoch-লুপের নীরব ভুল, মেমরির বাজেটে পথ বাছাই, নতুন torch.amp
API, forward-এর overflow।"""
from __future__ import annotations

import copy
import warnings

import torch
import torch.nn.functional as F

from mishran import precision
from mishran.data import synthetic_regression
from mishran.models.mlp import MLP

from .core import Verdict, choice_answer, dict_answer, finite_number, function_answer, number_answer, say

__all__ = ["EPOCH_LOOP", "MEMORY_BUDGET", "MEMORY_SETUPS", "OVERFLOW_FIXES", "check_epoch_loop_bug",
           "check_memory_choice", "check_modern_amp_step", "check_overflow_diagnosis", "run_epoch_loop"]


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


EPOCH_LOOP = """\
model.train()
for epoch in range(epochs):
    scaler = torch.amp.GradScaler(device)
    order = torch.Generator().manual_seed(epoch)
    for x, y in batches(order):
        with torch.amp.autocast(device, dtype=torch.float16):
            loss = F.mse_loss(model(x).float(), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        scales.append(scaler.get_scale())
"""
"""অনুশীলনী ০৩.১: FP16-এর একটি epoch-লুপ, এক লাইনে নীরব ভুল — প্রতিটি epoch কয়েকটি ব্যাচ নষ্ট করে।"""

_EPOCH_LOOP_BUG = 3               # scaler প্রতি epoch-এ নতুন: শেখা scale আর growth-এর গোনা মুছে যায়


def run_epoch_loop(loop: str = EPOCH_LOOP, device="cpu", epochs: int = 3, batch: int = 32) -> dict:
    """লুপটা একটি ছোট regression-এ চালায় (পাঠ ০৩, অনুশীলনী ১): লক্ষ্যমান বড় আর noise-ভরা, তাই FP16-এ শুরুর
    ৬৫৫৩৬ scale সবসময় overflow করে, আর scale-কে কয়েক ধাপ নামতে হয়। ফেরত {"scales": প্রতি epoch-এ প্রতি ধাপের
    scale, "skipped": প্রতি epoch-এ বাদ-পড়া ধাপ (epoch-এর ভেতরে শূন্য থেকে গোনা)}।"""
    x, y = synthetic_regression(n=256, d=8, seed=1, noise=1.0)
    y = 5 * y                                     # বড় লক্ষ্যমান আর noise, বড় gradient: scale-কে নামতে হয়
    model = MLP(8, 64, 1, n_layers=3, seed=0).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scales, taken = [], set()
    real_step = optimizer.step

    def counted_step(*args, **kwargs):            # scaler.step কেবল ঠিকঠাক ধাপেই optimizer.step ডাকে
        taken.add(len(scales))
        return real_step(*args, **kwargs)

    optimizer.step = counted_step

    def batches(order):
        perm = torch.randperm(len(x), generator=order)
        for i in range(0, len(x), batch):
            yield x[perm[i:i + batch]].to(device), y[perm[i:i + batch]].to(device)

    names = {"torch": torch, "F": F, "model": model, "optimizer": optimizer, "batches": batches,
             "device": torch.device(device).type, "epochs": epochs, "scales": scales}
    exec(loop, names)                             # এই মডিউলের নিজের লুপ (বা তার সারানো রূপ), যা শিক্ষার্থী ছাপা দেখে
    per_epoch = -(-len(x) // batch)
    return {"scales": [scales[e * per_epoch:(e + 1) * per_epoch] for e in range(epochs)],
            "skipped": [[i - e * per_epoch for i in range(e * per_epoch, (e + 1) * per_epoch) if i not in taken]
                        for e in range(epochs)]}


_ONCE_A_STEP = ("এই লাইন প্রতিটি ধাপে একইভাবে চলে, আর ৬ নম্বর অংশের ক্রমে ঠিক জায়গায় আছে। কিন্তু বাদ-পড়া ধাপগুলো "
                "জমে প্রতিটি epoch-এর শুরুর দিকে। কোন লাইন epoch-এ একবার চলে, আর কী নতুন করে শুরু করে?")
_LOOP_HINTS = {
    1: "model.train() লুপের আগে একবারই চলে, আর শুধু dropout-এর মতো স্তরের ধরন বদলায়; epoch-এর শুরুতে যা ফিরে "
       "ফিরে আসে, তার সঙ্গে এর যোগ নেই।",
    2: "epoch-এর লুপ নিজে তো শুধু গোনে। তার ভেতরে epoch-এ একবার কী কী নতুন বানানো হয়?",
    4: "প্রতি epoch-এ ব্যাচের নতুন ক্রম (shuffle) স্বাভাবিক; ব্যাচগুলো সেই একই, শুধু ক্রম আলাদা। তাতে প্রতি epoch-এর "
       "প্রথম কয়েকটি ধাপেই overflow হবে কেন? ছাপা scale-গুলো দেখো: প্রতিটি epoch কোন scale থেকে নামতে শুরু করে?",
    5: "ব্যাচ আসে এখান থেকে; এটা প্রতিটি ধাপে একইভাবে চলে। প্রতিটি epoch-এর শুরুতে scale কোথা থেকে শুরু হয়, "
       "আর সেটা কে ঠিক করে?",
    14: "এই লাইন শুধু খাতায় লেখে, প্রশিক্ষণে কিছু বদলায় না।",
}


def check_epoch_loop_bug(answer) -> Verdict:
    """অনুশীলনী ০৩.১ (ভুল খোঁজো): EPOCH_LOOP-এর কোন লাইনে (১ থেকে গোনা) সেই ভুল, যাতে প্রতিটি epoch ব্যাচ নষ্ট করে।"""
    line, early = number_answer(answer, "উত্তর একটি লাইন নম্বর (line number), ১ থেকে গোনা")
    if early is not None:
        return early
    n_lines = len(EPOCH_LOOP.splitlines())
    if not line.is_integer() or not 1 <= line <= n_lines:
        return say(False, f"উত্তর 1 থেকে {n_lines}-এর একটি পূর্ণসংখ্যা (line number); পেয়েছি {answer!r}।", form=True)
    if int(line) == _EPOCH_LOOP_BUG:
        return say(True, "scaler যা শিখেছিল — কোন scale-এ overflow হয় না, আর টানা ঠিকঠাক ধাপের গোনা — এই লাইন প্রতি "
                         "epoch-এ মুছে দেয়; নতুন scaler আবার শুরুর scale থেকে overflow করে করে নামে। লুপের আগে একবার "
                         "বানাও — ঠিক যে কারণে checkpoint-এ scaler-এর অবস্থা রাখতে হয় (৭ নম্বর অংশ)।")
    return say(False, f"লাইন {int(line)}: " + _LOOP_HINTS.get(int(line), _ONCE_A_STEP))


MEMORY_BUDGET = {"params": 350e6, "gpu_bytes": 24e9, "lr": 1e-4, "need": 24, "act_fp32_per_example": 1.0e9,
                 "act_amp_per_example": 0.6e9, "act_bf16_per_example": 0.5e9}
"""অনুশীলনী ০৩.২-এর সংখ্যা: ওজনের সংখ্যা, GPU-র মেমরি, AdamW-এর learning rate, দরকারি ব্যাচ (উদাহরণের সংখ্যা), আর
প্রতি উদাহরণে activation — FP32-এ, autocast-এ, আর পুরো মডেল BF16-এ।"""

MEMORY_SETUPS = {
    "a": "FP32: autocast নেই",
    "b": "torch.amp.autocast(device, dtype=torch.bfloat16), মডেল যেমন আছে",
    "c": "model.to(torch.bfloat16): ওজন, gradient আর AdamW-এর দুটি গড় — সবই BF16",
}
"""অনুশীলনী ০৩.২-এর তিন পথ: কোনটায় দরকারি ব্যাচ ধরে আর প্রশিক্ষণও ঠিক চলে।"""


def _largest_batches(budget: dict) -> dict:
    """প্রতিটি পথে সবচেয়ে বড় ব্যাচ: model state (FP32-এ ৪ + ৪ + ৮; autocast-এ তার ওপর ২ বাইটের cast
    cache, যা backward শেষ না হওয়া পর্যন্ত থাকে; BF16-এ ২ + ২ + ২ + ২) বাদে বাকি জায়গা activation-এর।"""
    psi, gpu = budget["params"], budget["gpu_bytes"]
    return {"a": int((gpu - 16 * psi) // budget["act_fp32_per_example"]),
            "b": int((gpu - 18 * psi) // budget["act_amp_per_example"]),
            "c": int((gpu - 8 * psi) // budget["act_bf16_per_example"])}


def _bf16_update_lost(lr: float) -> bool:
    """১ থেকে শুরু একটি BF16 ওজনে (যেমন LayerNorm-এর) torch-এর AdamW-এর একটি ধাপ হারিয়ে যায় কি না।"""
    w = torch.nn.Parameter(torch.ones(1, dtype=torch.bfloat16))
    w.grad = torch.ones_like(w)
    torch.optim.AdamW([w], lr=lr).step()
    return w.item() == 1.0


_SETUP_HINTS = {
    "a": "a-তে {need} উদাহরণের ব্যাচ ধরে কি? FP32-এ AdamW-এর model state প্রতি ওজনে কত বাইট, আর বাকি জায়গায় FP32-এর "
         "activation কয়টি উদাহরণের — হিসাব করে দেখো।",
    "b": "b-তে {need} উদাহরণের ব্যাচ ধরে কি? autocast-এ model state প্রতি ওজনে কত বাইট, তার ওপর ওজনের ১৬-বিট কপি — "
         "হিসাব করে দেখো।",
    "c": "c-তে মেমরি সবচেয়ে কম লাগে, কিন্তু ওজন নিজেই BF16। AdamW-এর একটি ধাপে ওজন মোটামুটি lr পরিমাণ নড়ে; ১ থেকে "
         "শুরু একটি ওজন (যেমন LayerNorm-এর) BF16-এ তার পাশের সংখ্যা থেকে কত দূরে (পাঠ ০১)? ৪ নম্বর অংশে FP16 ওজনে "
         "1 − 0.0001-এর কী হয়েছিল?",
}


def _batch_hint(micro: float, budget: dict, most: dict) -> str:
    """autocast-এর ব্যাচের চেনা ভুল হিসাবের ইঙ্গিত (উত্তর না বলে)।"""
    psi, gpu, amp = budget["params"], budget["gpu_bytes"], budget["act_amp_per_example"]
    if micro in ((gpu - 16 * psi) // amp, most["b"] + 1):
        return ("ওজনের ১৬-বিট কপিটা (cast cache, প্রতি ওজনে ২ বাইট) গুনেছ? সেটা backward শেষ না হওয়া পর্যন্ত থাকে। "
                "আর ব্যাচে উদাহরণ পূর্ণসংখ্যায়: মেমরিতে ধরতে হলে নিচের দিকে নাও।")
    if micro in ((gpu - 8 * psi) // amp, (gpu - 10 * psi) // amp):
        return ("autocast মডেল বদলায় না — ওজন, gradient আর AdamW-এর অবস্থা কোন dtype-এ থাকে? ১৬-বিট হয় কেবল "
                "কিছু হিসাব আর ওজনের একটি কপি।")
    return ("প্রতি ওজনে model state কত বাইট, তার ওপর ওজনের ১৬-বিট কপি; বাকি জায়গা autocast-এর activation-এর। "
            "ব্যাচে উদাহরণ পূর্ণসংখ্যায়, নিচের দিকে।")


def check_memory_choice(answer, budget: dict | None = None) -> Verdict:
    """অনুশীলনী ০৩.২ (মেমরির বাজেটে বাছাই): MEMORY_SETUPS-এর কোন পথে need উদাহরণের ব্যাচ ধরে আর ওজনের হালনাগাদও
    হারায় না, আর সেই পথে সবচেয়ে বড় ব্যাচ: answer = {"setup": ..., "batch": ...}।"""
    values, early = dict_answer(answer, ("setup", "batch"), numbers=False)
    if early is not None:
        return early
    setup, early = choice_answer(values["setup"], MEMORY_SETUPS, "setup", fold=lambda s: s.lower().strip("()"))
    if early is not None:
        return early
    micro = finite_number(values["batch"])
    if micro is None or not micro.is_integer():
        return say(False, f"batch একটি পূর্ণসংখ্যা (an integer); পেয়েছি {values['batch']!r}।", form=True)
    budget = budget or MEMORY_BUDGET
    most = _largest_batches(budget)
    trains = {"a": True, "b": True, "c": not _bf16_update_lost(budget["lr"])}
    good = [s for s in MEMORY_SETUPS if trains[s] and most[s] >= budget["need"]]
    best = max(good, key=most.get) if good else None
    if setup != best:
        return say(False, _SETUP_HINTS[setup].format(need=budget["need"]))
    if micro == most[best]:
        return say(True, "মেমরি আর শেখা, দুই শর্তই মিলেছে: যেখানে ওজন FP32, সেখানে model state প্রতি ওজনে ১৬ বাইটের নিচে "
                         "নামে না — বাঁচে activation-এ; আর যেখানে ওজন ১৬ বিটে, সেখানে ছোট হালনাগাদ হারায়।")
    if best != "b":                                # নিজের বাজেট: শুধু সাধারণ কথা
        return say(False, "এই পথে model state আর activation মিলিয়ে হিসাব আবার দেখো; ব্যাচ নিচের দিকে।")
    return say(False, _batch_hint(micro, budget, most))


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
