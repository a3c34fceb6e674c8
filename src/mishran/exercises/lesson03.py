"""পাঠ ০৩ (AMP-এর training loop) অনুশীলনীর যাচাই: ধাপের ক্রম, autocast-এর dtype, নতুন torch.amp API।"""
from __future__ import annotations

from mishran import precision
from mishran.numerics import formats

from .core import Verdict, blank_verdict, check_fields, dict_answer, is_blank, say

__all__ = [
    "MEMORY_BUDGET",
    "OVERFLOW_FIXES",
    "SCALE_HALVING_CHOICES",
    "autocast_dtypes",
    "check_amp_step_order",
    "check_autocast_dtypes",
    "check_max_micro_batch",
    "check_modern_amp_step",
    "check_overflow_diagnosis",
    "check_scale_halving_cause",
    "check_scale_sequence",
]

_AMP_STEP_ORDER = ("backward", "unscale_", "clip", "step", "update")
_AMP_STEP_NAMES = {
    "backward": "backward", "scale": "backward", "scale/backward": "backward",
    "scaler.scale(loss).backward()": "backward",
    "unscale_": "unscale_", "unscale": "unscale_", "scaler.unscale_(optimizer)": "unscale_",
    "clip": "clip", "clip_grad_norm_": "clip",
    "step": "step", "scaler.step(optimizer)": "step",
    "update": "update", "scaler.update()": "update",
}


def _step_order(answer) -> tuple[list | None, str]:
    """শিক্ষার্থীর list → চেনা ধাপের নামের list; না পারলে (None, কী ভুল)।"""
    names = ", ".join(repr(n) for n in _AMP_STEP_ORDER)
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        return None, (f"পাঁচটি নামের একটি list চাই (a list of step names), যেমন [{names}] — তবে ঠিক ক্রমে; "
                      f"পেয়েছি {answer!r}।")
    try:
        items = list(answer)
    except TypeError:                                # যেমন 0-মাত্রার tensor: __iter__ আছে, ঘোরানো যায় না
        return None, f"পাঁচটি নামের একটি list চাই (a list of step names); পেয়েছি {answer!r}।"
    unknown = [a for a in items if not isinstance(a, str) or a.strip().lower() not in _AMP_STEP_NAMES]
    if unknown:
        return None, f"অচেনা ধাপ {unknown[0]!r} (unknown step); চেনা নাম: {names}।"
    return [_AMP_STEP_NAMES[a.strip().lower()] for a in items], ""


def _why_out_of_order(order: list) -> str:
    """পাঁচটি ধাপ আছে, ক্রম ভুল: প্রথম যে নিয়ম ভাঙে, তার ব্যাখ্যা।"""
    pos = {n: i for i, n in enumerate(order)}
    if order[0] != "backward":
        return ("আগে gradient চাই: scaler.scale(loss).backward() সবার আগে — তার আগে unscale বা clip করার মতো "
                "কোনো gradient-ই নেই।")
    if pos["clip"] < pos["unscale_"]:
        return ("clip আগে, unscale_ পরে হলে clip_grad_norm_ দেখে scale-গুণ gradient: তার norm আসলের চেয়ে scale গুণ "
                "বড়, তাই ক্লিপ আসলে হয় clip_norm ÷ scale-এ — প্রায় সব gradient মুছে যায়।")
    if pos["step"] < pos["clip"] or pos["step"] < pos["unscale_"]:
        return ("step-এর পরে unscale বা clip করে লাভ নেই: ওজন ততক্ষণে বদলে গেছে। gradient ঠিক করা (unscale_, "
                "clip) step-এর আগে।")
    if pos["update"] < pos["step"]:
        return ("update() সবশেষে: সে এই step-এ inf/NaN পাওয়া গেল কি না দেখে scale বদলায়, তারপর খাতা মুছে দেয়। "
                "step-এর আগে ডাকলে step() নতুন scale দিয়ে আবার unscale করে — gradient দুবার ভাগ হয়।")
    first = next(i for i, (a, b) in enumerate(zip(order, _AMP_STEP_ORDER, strict=True)) if a != b)
    return f"{first + 1} নম্বর ধাপে {order[first]!r} নয়।"


def check_amp_step_order(answer) -> Verdict:
    """অনুশীলনী ০৩.১: FP16 + GradScaler loop-এর পাঁচ ধাপ (backward, unscale_, clip, step, update) ঠিক ক্রমে।"""
    if is_blank(answer):
        return blank_verdict()
    order, problem = _step_order(answer)
    if order is None:
        return say(False, problem)
    missing = [n for n in _AMP_STEP_ORDER if n not in order]
    if missing or len(order) != len(_AMP_STEP_ORDER):
        return say(False, f"প্রতিটি ধাপ ঠিক একবার চাই (each step exactly once); বাদ পড়েছে: {missing or 'নেই'}, "
                           f"তুমি দিয়েছ {len(order)}টি।")
    if tuple(order) == _AMP_STEP_ORDER:
        return say(True, "scale(loss).backward() → unscale_ → clip → step → update। unscale_ আগে, তাই clip "
                          "আসল এককের gradient দেখে; step inf/NaN পেলে বাদ যায়; update সবশেষে scale ঠিক করে।")
    return say(False, _why_out_of_order(order))


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


def _answered_dtype(answer):
    """শিক্ষার্থীর লেখা dtype ('bf16', 'bfloat16', 'torch.bfloat16', torch.bfloat16, 'half', ...) → torch dtype;
    না চেনা গেলে None। বানানগুলো চেনে mishran.numerics.formats.get_format।"""
    try:
        return formats.get_format(answer.strip() if isinstance(answer, str) else answer).dtype
    except (TypeError, ValueError):
        return None


def _low_dtype(device):
    """এই device-এ autocast-এর ১৬-বিট dtype, পাঠ ০৩-এর low: precision.for_device-এর নিয়ম; fp32 হলে (tensor core
    ছাড়া পুরোনো GPU) তবু FP16।"""
    return precision.dtype_of(precision.for_device(device).replace("fp32", "fp16"))


def autocast_dtypes(device="cpu", dtype=None) -> dict:
    """পাঠ ০৩: কয়েকটি op autocast-এর ভেতরে চালিয়ে ফলের dtype, এই device-এ আর এই torch-এ।

    x একটি FP32 tensor; h = linear(x, w), অর্থাৎ autocast-এর ভেতরের একটি নিচু precision-এর activation।
    dtype না দিলে এই device-এর ১৬-বিট dtype (CPU-তে bfloat16; GPU-তে precision.for_device যা বলে)।
    """
    import torch
    import torch.nn.functional as F

    device_type = torch.device(device).type
    dtype = dtype or _low_dtype(device)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 8, generator=g).to(device)
    w = torch.randn(8, 8, generator=g).to(device)
    target = torch.randint(0, 8, (4,), generator=g).to(device)
    with torch.amp.autocast(device_type, dtype=dtype):
        h = F.linear(x, w)
        return {"linear": h.dtype, "softmax": F.softmax(h, dim=-1).dtype, "sum": h.sum().dtype,
                "cross_entropy": F.cross_entropy(h, target).dtype, "x + h": (x + h).dtype}


_AUTOCAST_HINTS = {
    "linear": "matmul-জাতীয় op (linear, matmul, bmm, conv): tensor core-এর জন্য autocast এদের নিচু precision-এ চালায়।",
    "softmax": "softmax-এ exp আর যোগফল আছে। CUDA-র autocast একে FP32-এর তালিকায় রাখে; CPU-র তালিকা ছোট, "
               "সেখানে এটি ইনপুটের dtype-এই চলে।",
    "sum": "অনেক সংখ্যার যোগফল (পাঠ ০১-এর accumulation)। CUDA-র autocast sum-কে FP32-এ দেয়; CPU-র autocast "
           "একে ছোঁয় না, তাই ইনপুটের dtype।",
    "cross_entropy": "loss: CPU আর CUDA দুই autocast-ই loss-কে FP32-এ হিসাব করে।",
    "x + h": "এটি autocast-এর তালিকার কাজ নয়, সাধারণ type promotion: FP32 আর ১৬-বিট মিশলে চওড়াটি (FP32) জেতে।",
}


def check_autocast_dtypes(answers, device="cpu", dtype=None) -> Verdict:
    """অনুশীলনী ০৩.২: autocast-এর ভেতরে কোন op কোন dtype দেয় — অনুমান, এই device-এ চালিয়ে মেলানো।"""
    if is_blank(answers):
        return blank_verdict()
    if not isinstance(answers, dict):
        return say(False, f"op-এর নাম থেকে dtype-এর একটি dict চাই, যেমন {{'linear': torch.bfloat16, ...}}; "
                           f"পেয়েছি {answers!r}।")
    truth = autocast_dtypes(device, dtype)
    if all(is_blank(answers.get(op)) for op in truth):
        return blank_verdict()
    wrong, blank = [], []
    for op, want in truth.items():
        given = answers.get(op)
        if is_blank(given):
            blank.append(op)
            continue
        if _answered_dtype(given) != want:
            wrong.append(f"{op}: {given!r} নয়, এখানে {_dtype_name(want)}। {_AUTOCAST_HINTS[op]}")
    if wrong:
        return say(False, "\n   ".join([f"{len(wrong)}টি মেলেনি (device {device}):"] + wrong))
    if blank:
        return say(False, f"যেগুলো লিখেছ সব ঠিক; এখনো বাকি: {', '.join(blank)}।")
    return say(True, f"{len(truth)}টি op-এর dtype-ই এই device-এ ({device}) মিলেছে: matmul নিচু precision-এ, loss "
                      "FP32-এ, মিশ্র ইনপুট চওড়া dtype-এ; softmax আর sum device-এর তালিকা মেনে।")


def _reference_amp_step(model, optimizer, scaler, x, y, device_type, dtype):
    import torch
    import torch.nn.functional as F

    with torch.amp.autocast(device_type, dtype=dtype):
        loss = F.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return loss


def _amp_problem(device):
    """অনুশীলনী ০৩.৩-এর ছোট সমস্যা: দুই স্তরের net (gradient-এর norm ১-এর নিচে), x, y — প্রতিবার একই।"""
    import torch

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
    import copy

    import torch

    m = copy.deepcopy(model)
    return m, torch.optim.SGD(m.parameters(), lr=0.1), torch.amp.GradScaler(device_type, init_scale=2.0 ** 10)


def _weight_change(after, before):
    import torch

    return torch.cat([(a - b).detach().flatten() for a, b in zip(after.parameters(), before.parameters(), strict=True)])


def _run_learner_amp_step(step_fn, model, x, y, device_type, dtype) -> dict:
    """শিক্ষার্থীর step দুবার: একবার স্বাভাবিক, তারপর (update ঠিক থাকলে) y-তে inf দিয়ে। যা দেখা গেল তার খাতা।"""
    import warnings

    import torch

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
    import torch

    old_api = [w for w in run["caught"] if issubclass(w.category, FutureWarning) and "torch.cuda.amp" in str(w.message)]
    if old_api:
        return (f"এখনো পুরোনো API: {old_api[0].message} — torch.amp.autocast(device_type, dtype=dtype) "
                "আর torch.amp.GradScaler(device_type) নাও।")
    seen, loss, got = run["seen"], run["loss"], run["got"]
    if not seen or seen[0] != dtype:
        return (f"প্রথম Linear-এর ফল {_dtype_name(seen[0]) if seen else 'কিছুই না'}, {_dtype_name(dtype)} "
                "নয়: forward কি torch.amp.autocast(device_type, dtype=dtype)-এর ভেতরে?")
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
    if is_blank(step_fn):
        return blank_verdict()
    if not callable(step_fn):
        return say(False, f"একটি ফাংশন চাই (a function) step_fn(model, optimizer, scaler, x, y, device_type, dtype); "
                           f"পেয়েছি {step_fn!r}।")
    import torch

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


SCALE_HALVING_CHOICES = {
    "a": "শুরুর scale (65536) বেশি বড়; init_scale কমালেই সেরে যাবে।",
    "b": "growth_interval খুব ছোট, তাই scale বারবার বেড়ে আবার overflow করছে।",
    "c": "forward pass-এই FP16 overflow: activation 65504 ছাড়িয়ে inf, তাই loss নিজেই inf/NaN; scale যত কমাও, "
         "সারবে না — ইনপুট normalize করো বা BF16 নাও।",
    "d": "learning rate বেশি বড়, তাই ওজন প্রতি step-এ ফুলে উঠছে।",
}
_BENGALI_CHOICE = {"ক": "a", "খ": "b", "গ": "c", "ঘ": "d"}


def check_scale_halving_cause(answer) -> Verdict:
    """অনুশীলনী ০৩.৪: scale প্রতি step-এ অর্ধেক হচ্ছে, একটি step-ও নেওয়া হচ্ছে না — কেন?"""
    if is_blank(answer):
        return blank_verdict()
    key = _BENGALI_CHOICE.get(str(answer).strip(), str(answer).strip().lower().strip("()"))
    if key not in SCALE_HALVING_CHOICES:
        return say(False, f"'a', 'b', 'c' বা 'd' লেখো (অথবা ক, খ, গ, ঘ); পেয়েছি {answer!r}।")
    if key == "c":
        return say(True, "forward-এর overflow loss scaling সারাতে পারে না: scale শুধু backward-এর gradient বড় করে। "
                          "loss আগে থেকেই inf/NaN, তাই প্রতিটি step বাদ পড়ে আর scale অর্ধেক হতেই থাকে (GradScaler-এর "
                          "কোনো নিচের সীমা নেই)। ইনপুট normalize করো, বা পরিসরের জন্য BF16 নাও।")
    why = {
        "a": "শুরুর scale বড় হলে প্রথম কয়েকটি step বাদ পড়ে, তারপর scale এমন জায়গায় নামে যেখানে gradient আঁটে। "
             "এখানে scale ১-এর নিচে নেমেও বাদ পড়ছে — তাহলে সমস্যা scale-এ নয়। scale ছাড়া loss-টা দেখো।",
        "b": "growth_interval ছোট হলে scale বাড়ে-কমে, দোল খায়; মাঝে মাঝে step নেওয়াও হয়। এখানে scale শুধু কমছে।",
        "d": "যে step বাদ পড়ে, তাতে ওজন বদলায়ই না — তাহলে learning rate-এর কোনো ভূমিকা নেই। প্রথম step-এর আগেই "
             "loss কেমন, দেখো।",
    }[key]
    return say(False, why)


# ---------------------------------------------------------------- দ্বিতীয় দফার অনুশীলনী (পাঠ ০৩)

def _torch_scale_sequence(pattern, init_scale: float, growth_interval: int) -> list:
    """torch-এর নিজের GradScaler চালিয়ে প্রতিটি update()-এর পরের scale (oracle: torch নিজেই)।"""
    import torch

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
        return say(False, f"প্রতিটি ধাপের জন্য একটি সংখ্যা, একটি list-এ (a list of numbers); পেয়েছি {answer!r}।")
    if len(given) != len(pattern):
        return say(False, f"ধারায় {len(pattern)}টি ধাপ, তুমি দিয়েছ {len(given)}টি সংখ্যা।")
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
    import torch

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
    import torch

    truth = _first_nonfinite_module(model, x, torch.device(device).type)
    module = str(answer["module"]).strip()
    if module != truth:
        return say(False, f"module {module!r}-এ প্রথম inf নয়। প্রতিটি module-এ একটি forward hook বসাও "
                           "(register_forward_hook), আর FP16 autocast-এ একবার forward চালাও: কোনটার ফলে প্রথম "
                           "অসীম মান দেখা যায়? নাম লেখো named_modules()-এর মতো, যেমন 'net.2'।")
    fix = str(answer["fix"]).strip().lower().strip("()")
    if fix not in OVERFLOW_FIXES:
        return say(False, f"fix হবে {', '.join(OVERFLOW_FIXES)}-এর একটি; পেয়েছি {answer['fix']!r}।")
    if fix != "c":
        return say(False, "এই প্রতিকার scale বা ওজনের হালনাগাদ বদলায়। কিন্তু inf আসছে forward-এই, loss scale "
                           "হওয়ার আগে, আর বাদ-পড়া ধাপে ওজন বদলায়ই না। forward-এর সংখ্যাগুলো কোথা থেকে এত বড় হয়?")
    return say(True, f"forward-এই {truth}-এর ফল FP16-এর পরিসর ছাড়ায়, তাই loss নিজেই inf/NaN; scale যত কমাও, "
                      "সারবে না। ইনপুট normalize করলে (বা পরিসরের জন্য BF16 নিলে) activation FP16-এ ধরে।")
