"""পাঠ ০২ (underflow আর loss scaling) অনুশীলনীর যাচাই।"""
from __future__ import annotations

import math
from collections.abc import Callable

import torch

from mishran.numerics import formats
from mishran.numerics.scaling import DeepSpeedLossScaler, DynamicLossScaler, LossScaleAtMinimumError, underflow_report

from .core import Verdict, check_number, dict_answer, finite_number, function_answer, say

__all__ = ["SCALE_CHOICES", "check_min_normal_scale", "check_pytorch_scale_after", "check_deepspeed_scale_after",
           "check_scale_for_budget", "check_scaled_clip_step"]


def _overflow_flags(sequence) -> list[bool]:
    """'..x.xx' (বিন্দু = ঠিকঠাক ধাপ, x = overflow) বা bool-এর list → bool-এর list।"""
    if isinstance(sequence, str):
        bad = set(sequence) - set(".xX ")
        if bad:
            raise ValueError(f"ধারায় শুধু '.' (ঠিকঠাক ধাপ) আর 'x' (overflow) চলে; পেয়েছি {sorted(bad)}")
        return [ch in "xX" for ch in sequence if ch != " "]
    return [bool(f) for f in sequence]


def check_min_normal_scale(grad: float, answer) -> Verdict:
    """অনুশীলনী ০২.১: সবচেয়ে ছোট কোন 2-এর ঘাত S (S ≥ 1) দিয়ে গুণ করলে |grad| × S FP16-এর normal পরিসরে ঢোকে।"""
    f = formats.get_format("fp16")
    g = abs(float(grad))
    if not (g > 0 and math.isfinite(g)):
        raise ValueError(f"grad হবে শূন্য নয় এমন সসীম সংখ্যা; পেয়েছি {grad!r}")
    k = 0
    while math.ldexp(g, k) < f.min_normal:          # ২-এর ঘাতে গুণ নির্ভুল, তাই সীমানাতেও ঠিক
        k += 1
    hint = (f"FP16-এর সবচেয়ে ছোট normal 2^{f.emin} ≈ {f.min_normal:.3g}; {g:g} × S তার সমান বা বড় হওয়া চাই, আর S একটি "
            "২-এর ঘাত। S-কে একবার করে দ্বিগুণ করলে গুণফলও দ্বিগুণ হয়: কোন ঘাতে সে প্রথম সীমা পেরোয়, আর তার ঠিক আগেরটিতে "
            "কেন পেরোয় না — দুটোই যাচাই করো।")
    a = finite_number(answer)
    if a is not None and a > 0 and not math.log2(a).is_integer():
        return say(False, f"{answer!r} 2-এর ঘাত নয় (not a power of two)। loss scale সবসময় 2-এর ঘাত নেওয়া হয়, "
                          "কারণ তাতে গুণ-ভাগ নির্ভুল (শুধু exponent বদলায়)। " + hint)
    if a is not None and 0 < a < 2.0 ** k:
        hint = f"এই S-এ {g:g} × S এখনো normal পরিসরের নিচে (subnormal বা শূন্য)। " + hint
    elif a is not None and a > 2.0 ** k:
        hint = "এই S-এ গুণফল normal পরিসরে ঢোকে, কিন্তু আরও ছোট একটি ২-এর ঘাতেও ঢোকে। " + hint
    return check_number(answer, 2.0 ** k, f"{g:g}-কে FP16-এর normal পরিসরে আনার সবচেয়ে ছোট scale", hint)


def check_pytorch_scale_after(sequence, answer, init_scale: float = 2.0 ** 16, growth_interval: int = 2000) -> Verdict:
    """অনুশীলনী ০২.২: overflow-এর একটি ধারার পরে torch.amp.GradScaler-এর scale কত।"""
    flags = _overflow_flags(sequence)
    s = DynamicLossScaler(init_scale=init_scale, growth_interval=growth_interval)
    for f in flags:
        s.update(f)
    hint = (f"নিয়ম: overflow হলে scale × 0.5 আর গোনা আবার শূন্য থেকে; পরপর {growth_interval}টি ঠিকঠাক ধাপ হলে "
            "scale × 2 আর গোনা শূন্য। ধারাটা বাঁ থেকে ডানে এক এক করে চালাও, প্রতিটির পরে scale আর গোনা লিখে রাখো।")
    return check_number(answer, s.scale, f"PyTorch-এর নিয়মে ধারার শেষে scale (শুরু {init_scale:g}, "
                                         f"growth_interval {growth_interval})", hint)


def check_deepspeed_scale_after(sequence, answer, init_scale: float = 2.0 ** 16, scale_window: int = 1000,
                                hysteresis: int = 2, min_scale: float = 1.0) -> Verdict:
    """অনুশীলনী ০২.৩: একই ধারার পরে DeepSpeed-এর loss scale কত (hysteresis-সহ)।"""
    flags = _overflow_flags(sequence)
    s = DeepSpeedLossScaler(init_scale=init_scale, scale_window=scale_window, hysteresis=hysteresis,
                            min_scale=min_scale)
    try:
        for f in flags:
            s.update(f)
    except LossScaleAtMinimumError:
        raise ValueError("এই ধারায় DeepSpeed সর্বনিম্ন scale-এ থেমে যায়; অন্য ধারা দাও") from None
    hint = (f"নিয়ম: overflow হলে ধাপ বাদ; hysteresis ({hysteresis}) যতক্ষণ ১-এর বেশি, scale না কমিয়ে শুধু "
            "hysteresis এক কমে; ১-এ নামলে প্রতিটি overflow-এ scale ÷ 2। scale বাড়ে শেষ overflow-এর পরের "
            f"{scale_window} + 1-তম ঠিকঠাক ধাপে (তারপর প্রতি {scale_window}টিতে), আর তখনই hysteresis আবার ভরে।")
    return check_number(answer, s.scale, f"DeepSpeed-এর নিয়মে ধারার শেষে scale (শুরু {init_scale:g}, "
                                         f"loss_scale_window {scale_window}, hysteresis {hysteresis})", hint)


SCALE_CHOICES = tuple(2 ** k for k in range(10, 25, 2))
"""অনুশীলনী ০২.৪-এর বিকল্প: loss scale, 2^10 থেকে 2^24, দুই ঘাত পরপর।"""


def _below_normal(values, fmt: str, scale: float) -> tuple[float, float]:
    """values × scale-কে fmt-এ রাখলে (normal-এর নিচে পড়া ভাগ — subnormal আর শূন্যে মোছা, শুধু শূন্যে মোছা ভাগ)।"""
    r = underflow_report(values, fmt, scale)
    return r.fraction("subnormal") + r.fraction("underflow_to_zero"), r.fraction("underflow_to_zero")


def _overflows(largest: float, fmt: str, scale: float) -> bool:
    """largest × scale fmt-এ রাখলে inf হয় কি না (torch নিজে round করে)।"""
    product = torch.tensor(float(largest) * scale, dtype=torch.float64)
    return bool(torch.isinf(product.to(formats.get_format(fmt).dtype)))


def _power(scale: int) -> str:
    """২-এর ঘাত, লেখায় যেমন পাঠ লেখে: 65536 → '2**16'।"""
    return f"2**{scale.bit_length() - 1}"


def _scale_mistake(values, largest: float, scale: int, budget: float, fmt: str) -> str:
    """একটি scale কোন শর্ত ভাঙে, তার ব্যাখ্যা (উত্তরের কোনো সংখ্যা না বলে); দুই শর্তই মানলে ফাঁকা লেখা।"""
    low, zeroed = _below_normal(values, fmt, scale)
    if _overflows(largest, fmt, scale):
        return ("এই scale-এ ছোটগুলো বাঁচে, কিন্তু সবচেয়ে বড় gradient × scale FP16-এর সবচেয়ে বড় সংখ্যা ছাড়িয়ে যায়: "
                "inf, আর GradScaler গোটা ধাপটাই বাদ দেয়। ওপরের সীমাটাও হিসাবে রাখো।")
    if low > budget and zeroed <= budget:
        return ("এই scale-এ শূন্যে মোছা ভাগ বাজেটের মধ্যে, কিন্তু শর্তটা normal পরিসরের নিচে পড়া সব মানের: subnormal-ও "
                "সূক্ষ্মতা হারায় (পাঠ ০১)। ২ নম্বর অংশের সারণির কোন দুই সারি মিলিয়ে গুনতে হবে?")
    if low > budget:
        return ("এই scale-এ বাজেটের চেয়ে বেশি gradient normal পরিসরের নিচে পড়ে। আরও বড় scale লাগবে — কত বড়, তা ঠিক "
                "করে gradient-গুলোর মাপ আর FP16-এর সবচেয়ে ছোট normal।")
    return ""


def check_scale_for_budget(values, largest: float, answer, budget: float = 0.01, fmt: str = "fp16") -> Verdict:
    """অনুশীলনী ০২.৪ (বাজেটে বাছাই): SCALE_CHOICES-এর যে scale-গুলোয় values-এর বড়জোর budget ভাগ normal পরিসরের
    নিচে (subnormal বা শূন্য) পড়ে, আর মডেলের সবচেয়ে বড় gradient (largest) × scale overflow করে না — তাদের সবচেয়ে
    ছোট আর সবচেয়ে বড়টি: answer = {"smallest": ..., "largest": ...}। নিচের প্রান্ত ঠিক করে বাজেট, ওপরেরটা overflow।
    চেনা দুই ভুল: শুধু শূন্যে মোছা গোনা (subnormal-এর সূক্ষ্মতা হারানো ভুলে), আর ওপরের সীমা ভুলে যাওয়া।"""
    answer, early = dict_answer(answer, ("smallest", "largest"),
                                need='{"smallest": ..., "largest": ...}, দুটোই SCALE_CHOICES-এর সংখ্যা (numbers)')
    if early is not None:
        return early
    if any(v not in SCALE_CHOICES for v in answer.values()):
        names = ", ".join(map(_power, SCALE_CHOICES))
        return say(False, f"দুটো scale-ই হবে {names}-এর একটি (one of SCALE_CHOICES); পেয়েছি {answer!r}।", form=True)
    small, big = int(answer["smallest"]), int(answer["largest"])
    if small > big:
        return say(False, f"smallest ({_power(small)}) largest ({_power(big)})-এর চেয়ে বড়: দুটো জায়গা বদল হয়ে গেছে কি?",
                   form=True)
    mistakes = {s: _scale_mistake(values, largest, s, budget, fmt) for s in SCALE_CHOICES}
    fits = [s for s, mistake in mistakes.items() if not mistake]
    for scale, edge in ((small, "smallest"), (big, "largest")):
        if mistakes[scale]:
            return say(False, f"{edge} = {_power(scale)}: {mistakes[scale]}")
    if small != min(fits):
        return say(False, f"smallest = {_power(small)} দুই শর্তই পূরণ করে, কিন্তু আরও ছোট একটি বিকল্পও "
                          "করে। নিচের প্রান্ত ঠিক করে বাজেট: ছোট থেকে একে একে scale নিয়ে গুনে দেখো, কোনটায় প্রথম "
                          "বাজেটের মধ্যে আসে।")
    if big != max(fits):
        return say(False, f"largest = {_power(big)} দুই শর্তই পূরণ করে, কিন্তু আরও বড় একটি বিকল্পও overflow "
                          "করে না। ওপরের প্রান্ত ঠিক করে সবচেয়ে বড় gradient আর FP16-এর সবচেয়ে বড় সংখ্যা।")
    return say(True, "এই জানালার প্রতিটি scale-এ ছোট gradient-গুলো বাজেট মেনে normal পরিসরে ওঠে, আর সবচেয়ে বড়টিও "
                     "FP16-এ আঁটে। জানালা থেকে এক বিকল্প বাইরে গেলেই একটি শর্ত ভাঙে।")


def _clip_setup(init_scale: float = 2.0 ** 10):
    """অনুশীলনী ০২.৫-এর ছোট সমস্যা: একটি Linear, SGD, GradScaler আর স্থির ডেটা (প্রতিবার একই)।"""
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=1000)
    x = torch.linspace(-2.0, 2.0, 32).reshape(8, 4)
    y = torch.ones(8, 1)
    return model, opt, scaler, x, y


def _clipped_by_hand(model, x, y, max_norm: float, lr: float = 0.1):
    """ঠিক উত্তর হাতে: আসল gradient, clip, SGD — (clip-এর পরের ওজন, clip ছাড়া যা হতো)।"""
    ref = torch.nn.Linear(4, 1)
    ref.load_state_dict(model.state_dict())
    torch.nn.functional.mse_loss(ref(x), y).backward()
    unclipped = [(p - lr * p.grad).detach() for p in ref.parameters()]
    torch.nn.utils.clip_grad_norm_(ref.parameters(), max_norm)
    with torch.no_grad():
        for p in ref.parameters():
            p -= lr * p.grad
    return list(ref.parameters()), unclipped


def _max_moved(params, others) -> float:
    """দুই সারি ওজনের সবচেয়ে বড় পার্থক্য।"""
    return max((p - q).abs().max().item() for p, q in zip(params, others, strict=True))


_SCALER_ASSERTS = {
    "_scale is None": "GradScaler বলছে loss আগে scale হয়নি: backward-এর আগে scaler.scale(loss) দাও — নইলে scaler জানে না "
                      "gradient-গুলো কোন scale-এ।",
    "No inf checks were recorded": "scaler.update() ডাকার আগে scaler.step(optimizer) চাই: inf/NaN খোঁজা আর ধাপ বাদ দেওয়ার "
                                   "সিদ্ধান্ত সে-ই নেয়, আর update সেই খোঁজের ফল দেখে scale বদলায়।",
}


def _step_error(err: Exception, when: str = "") -> Verdict:
    """শিক্ষার্থীর ধাপ-ফাংশনের ভুল: GradScaler-এর চেনা দুই AssertionError বাংলায় বোঝাই, বাকিগুলো যেমন আছে।"""
    for key, text in _SCALER_ASSERTS.items():
        if isinstance(err, AssertionError) and key in str(err):
            return say(False, f"{when}তোমার ফাংশন ভুল তুলেছে (AssertionError): {text}")
    return say(False, f"{when}তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")


def _normal_step_mistake(step_fn) -> Verdict | None:
    """(ক) স্বাভাবিক ধাপে ওজন ঠিক ততটা নড়ে কি না, যতটা আসল gradient clip করলে নড়ার কথা; ভুলে তার Verdict।"""
    model, opt, scaler, x, y = _clip_setup()
    clipped, unclipped = _clipped_by_hand(model, x, y, 0.1)
    loss = torch.nn.functional.mse_loss(model(x), y)
    try:
        step_fn(model, opt, scaler, loss, 0.1)
    except Exception as err:  # শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return _step_error(err)
    if _max_moved(model.parameters(), clipped) <= 1e-6:
        return None
    if _max_moved(model.parameters(), unclipped) < 1e-6:
        return say(False, "ওজন নড়েছে, কিন্তু clip ছাড়া যতটা নড়ত ঠিক ততটা: clip_grad_norm_(model.parameters(), "
                          "max_norm) কি আদৌ চলেছে?")
    if all(torch.equal(p, q) for p, q in zip(model.parameters(), _clip_setup()[0].parameters(), strict=True)):
        return say(False, "ওজন একটুও নড়েনি। scaler.step(optimizer) ডেকেছ তো? আর backward-এর আগে "
                          "scaler.scale(loss) — নইলে GradScaler জানে না কোন gradient দেখতে হবে।")
    return say(False, "ওজন ঠিক পরিমাণে নড়েনি: আসল gradient clip করলে যতটা নড়ার কথা, তার চেয়ে অনেক কম। "
                      "clip_grad_norm_ যে norm মাপে, সেটা কোন মাপের gradient-এর — আসল, না scale-গুণ বড়? আর "
                      "scaler.step পরে gradient-এর সঙ্গে কী করে?")


def _overflow_step_mistake(step_fn) -> Verdict | None:
    """(খ) loss inf হলে ধাপ বাদ যায় আর scale অর্ধেক হয় কি না; ভুলে তার Verdict।"""
    model, opt, scaler, x, y = _clip_setup()
    before = [p.detach().clone() for p in model.parameters()]
    loss = torch.nn.functional.mse_loss(model(x), y) * math.inf
    try:
        step_fn(model, opt, scaler, loss, 0.1)
    except Exception as err:  # শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return _step_error(err, "loss inf হলে ")
    if not all(torch.equal(p, b) for p, b in zip(model.parameters(), before, strict=True)):
        return say(False, "gradient-এ inf/NaN থাকলেও ওজন বদলে গেছে। optimizer.step() সরাসরি না ডেকে "
                          "scaler.step(optimizer) ডাকো — সে inf দেখলে ধাপ বাদ দেয় (skipped step)।")
    if scaler.get_scale() != 2.0 ** 9:
        return say(False, f"inf-এর পরে scale হওয়ার কথা {2.0 ** 9:g}, কিন্তু আছে {scaler.get_scale():g}। "
                          "প্রতি ধাপের শেষে scaler.update() ডাকো — সে-ই scale কমায়-বাড়ায়।")
    return None


def check_scaled_clip_step(step_fn: Callable) -> Verdict:
    """অনুশীলনী ০২.৫: GradScaler-সহ একটি পুরো ধাপ (backward, clipping, optimizer step, scaler-এর হালনাগাদ) —
    step_fn(model, optimizer, scaler, loss, max_norm)। যাচাই: (ক) ওজন ঠিক ততটা নড়ে যতটা আসল (unscale করা) gradient
    clip করলে নড়ার কথা; (খ) gradient-এ inf এলে ওজন নড়ে না আর scale অর্ধেক হয়।"""
    early = function_answer(step_fn, "def my_step(model, optimizer, scaler, loss, max_norm): ...")
    if early is not None:
        return early
    for mistake in (_normal_step_mistake, _overflow_step_mistake):  # Verdict(False) নিজেই মিথ্যা, তাই `or` নয়
        verdict = mistake(step_fn)
        if verdict is not None:
            return verdict
    return say(True, "তোমার ধাপ-ফাংশন আসল মাপের gradient ছাঁটে, আর inf এলে ধাপ বাদ দিয়ে scale অর্ধেক করে।")
