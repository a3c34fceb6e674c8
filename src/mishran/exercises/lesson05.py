"""পাঠ ০৫ (DeepSpeed engine) অনুশীলনীর যাচাই: accumulation steps, শুরুর বাদ-পড়া ধাপ, ZeRO-র মেমরি, loop।"""
from __future__ import annotations

import math

from .. import formats
from .core import Verdict, blank_verdict, check_number, is_blank, say

__all__ = [
    "DEEPSPEED_LOOPS",
    "check_deepspeed_loop",
    "check_ds_accumulation_steps",
    "check_initial_skipped_steps",
    "check_smallest_zero_stage",
    "check_zero_gb_per_gpu",
]

def check_ds_accumulation_steps(train_batch_size: int, micro_batch: int, world_size: int, answer) -> Verdict:
    """অনুশীলনী ০৫.১: train_batch_size, micro-batch আর GPU-র সংখ্যা থেকে gradient_accumulation_steps।"""
    steps, rest = divmod(train_batch_size, micro_batch * world_size)
    if rest or steps < 1:
        raise ValueError(f"{train_batch_size} = {micro_batch} × k × {world_size} মেলে এমন পূর্ণসংখ্যা k নেই; অন্য সংখ্যা দাও")
    hint = ("DeepSpeed-এর নিয়ম: train_batch_size = train_micro_batch_size_per_gpu × gradient_accumulation_steps × "
            "GPU-র সংখ্যা। অজানাটিকে এক পাশে আনো।")
    return check_number(answer, steps, f"train_batch_size {train_batch_size}, micro-batch {micro_batch}, "
                                       f"{world_size}টি GPU-তে gradient_accumulation_steps", hint)


def _fp16_overflows(grad_max: float, scale: float) -> bool:
    """grad_max × scale FP16-এ রাখলে inf হয় কি না (FP16-এর rounding মেনে)।"""
    return math.isinf(formats.round_to(abs(grad_max) * scale, "fp16"))


def _initial_skipped_steps(grad_max: float, initial_scale_power: int = 32, hysteresis: int = 2) -> int:
    """শুরুতে কয়টি step বাদ পড়ে, যদি overflow হয় ঠিক তখন যখন grad_max × scale FP16-এ inf (পাঠ ০৫)।"""
    from ..scaling import DeepSpeedLossScaler

    scaler = DeepSpeedLossScaler(init_scale=2.0 ** initial_scale_power, scale_window=10 ** 9, hysteresis=hysteresis)
    skipped = 0
    while _fp16_overflows(grad_max, scaler.scale):
        scaler.update(True)
        skipped += 1
    return skipped


def check_initial_skipped_steps(grad_max: float, answer, initial_scale_power: int = 32, hysteresis: int = 2) -> Verdict:
    """অনুশীলনী ০৫.২: initial_scale_power থেকে নামতে নামতে DeepSpeed (ZeRO 1/2) শুরুতে কয়টি step বাদ দেয়।"""
    expected = _initial_skipped_steps(grad_max, initial_scale_power, hysteresis)
    hint = (f"প্রথমে খোঁজো কোন 2-এর ঘাত S-এ {grad_max:g} × S FP16-এ রাখলে inf হয় না — মনে রাখো, "
            f"{formats.FORMATS['fp16'].max:g}-এর একটু ওপরের মান rounding-এ আবার {formats.FORMATS['fp16'].max:g}-এ নামে, "
            f"inf হয় 65520 থেকে (পাঠ ০১)। 2^{initial_scale_power} থেকে সেখানে নামতে কয়টি অর্ধেক করা লাগে? তার "
            f"সঙ্গে hysteresis: প্রথম {hysteresis - 1}টি overflow-এ scale কমে না, শুধু step বাদ যায়।")
    return check_number(answer, expected, f"|g|max = {grad_max:g}, initial_scale_power {initial_scale_power}, "
                                          f"hysteresis {hysteresis}-এ শুরুতে বাদ-পড়া ধাপ", hint)


def check_zero_gb_per_gpu(num_params: float, stage: int, world_size: int, answer) -> Verdict:
    """অনুশীলনী ০৫.৩: ZeRO stage আর GPU-র সংখ্যায় প্রতি GPU-তে model state কত GB (10^9 বাইট)।"""
    psi, n = float(num_params), int(world_size)
    per_gpu = {0: 16 * psi, 1: 4 * psi + 12 * psi / n, 2: 2 * psi + 14 * psi / n, 3: 16 * psi / n}
    if stage not in per_gpu:
        raise ValueError(f"ZeRO stage হবে 0, 1, 2 বা 3; পেয়েছি {stage!r}")
    hint = ("mixed precision Adam-এ প্রতি ওজনে ১৬ বাইট: ১৬-বিট ওজন ২ + ১৬-বিট gradient ২ + optimizer-এর অবস্থা ১২ "
            "(FP32 মূল ওজন ৪, momentum ৪, variance ৪)। stage 1 ভাগ করে শুধু ১২-কে, stage 2 তার সঙ্গে gradient-এর ২-কে, "
            "stage 3 সবকিছু — ভাগ মানে ÷ GPU-র সংখ্যা। শেষে 10^9 দিয়ে ভাগ করো।")
    return check_number(answer, per_gpu[stage] / 1e9, f"Ψ = {psi:g}, ZeRO {stage}, {n}টি GPU-তে প্রতি GPU-র GB",
                        hint, rel_tol=5e-3)


DEEPSPEED_LOOPS = {
    "A": """\
for x, y in micro_batches:
    _, loss = engine(x, y)
    engine.backward(loss / accum)
    engine.step()
""",
    "B": """\
for x, y in micro_batches:
    _, loss = engine(x, y)
    engine.backward(loss)
    if engine.is_gradient_accumulation_boundary():
        engine.step()
        engine.zero_grad()
""",
    "C": """\
for x, y in micro_batches:
    _, loss = engine(x, y)
    engine.backward(loss)
    engine.step()
""",
    "D": """\
scaler = torch.amp.GradScaler("cuda")
for x, y in micro_batches:
    with torch.amp.autocast("cuda", dtype=torch.float16):
        _, loss = engine(x, y)
    engine.backward(scaler.scale(loss))
    scaler.step(optimizer)
    scaler.update()
""",
}
_DEEPSPEED_LOOP_ANSWER = "C"
_DEEPSPEED_LOOP_WHY = {
    "A": ("A-তে loss দুবার ভাগ হয়: engine.backward() নিজেই gradient_accumulation_steps দিয়ে ভাগ করে। gradient "
          "accum গুণ ছোট হয়ে যায় (Adam-এ সেটা চোখে পড়ে না, SGD-তে হালনাগাদ ছোট হয়ে যায়)।"),
    "B": ("B-তে engine.step() শুধু সীমানায় ডাকা হয়, কিন্তু engine নিজে micro-step গোনে engine.step()-এর ভেতরে। "
          "সীমানার আগের step() ডাক না পেলে engine.micro_steps বাড়ে না, তাই is_gradient_accumulation_boundary() আর "
          "সত্যি হয় না — accum > 1 হলে একবারও optimizer step হয় না। step() প্রতিটি micro-batch-এ ডাকো; "
          "zero_grad-ও engine-ই করে।"),
    "D": ("D পুরোনো tutorial-এর ভুল: engine নিজেই loss scale করে (FP16-এ); GradScaler-এর scale তার ওপর আরও এক দফা, "
          "আর scaler.step(optimizer) engine-কে এড়িয়ে যায় — accumulation, gradient-এর গড় আর master weight-এর "
          "হালনাগাদ বাদ পড়ে। 16-বিট engine-এ scaler.step ভুলও তোলে: 'No inf checks were recorded for this optimizer.'"),
}


def check_deepspeed_loop(answer) -> Verdict:
    """অনুশীলনী ০৫.৪: DEEPSPEED_LOOPS-এর কোন loop DeepSpeed engine-এর সঙ্গে ঠিক (A, B, C বা D)।"""
    if is_blank(answer):
        return blank_verdict()
    key = str(answer).strip().upper()
    if key not in DEEPSPEED_LOOPS:
        return say(False, f"উত্তর হবে একটি অক্ষর: {', '.join(DEEPSPEED_LOOPS)}; পেয়েছি {answer!r}।")
    if key == _DEEPSPEED_LOOP_ANSWER:
        return say(True, "C: প্রতিটি micro-batch-এ engine.backward(loss) আর engine.step()। ভাগ করা, loss scaling, "
                          "সীমানা চেনা, optimizer step আর zero_grad — সব engine করে।")
    return say(False, _DEEPSPEED_LOOP_WHY[key])


def _zero_per_gpu_bytes(psi: float, n: int) -> dict:
    """ZeRO প্রবন্ধের হিসাবে প্রতি GPU-তে model state (বাইট), stage 0-3।"""
    return {0: 16 * psi, 1: 4 * psi + 12 * psi / n, 2: 2 * psi + 14 * psi / n, 3: 16 * psi / n}


def check_smallest_zero_stage(num_params: float, world_size: int, budget_gb: float, answer) -> Verdict:
    """অনুশীলনী ০৫.৩ (মেমরির বাজেটে বাছাই): model state budget_gb-এ (10^9 বাইট) ধরে এমন সবচেয়ে ছোট ZeRO stage।"""
    if is_blank(answer):
        return blank_verdict()
    per_gpu = _zero_per_gpu_bytes(float(num_params), int(world_size))
    fits = [s for s, b in per_gpu.items() if b <= budget_gb * 1e9]
    if not fits:
        raise ValueError("কোনো stage-এই ধরে না (no stage fits); বাজেট বা GPU বাড়াও")
    if isinstance(answer, bool) or answer not in per_gpu:
        return say(False, f"ZeRO stage হবে 0, 1, 2 বা 3; পেয়েছি {answer!r}।")
    if answer == min(fits):
        return say(True, "এর আগের stage-এ ধরে না, এটাতে ধরে। বড় stage-ও ধরত, কিন্তু প্রতিটি ধাপে বেশি যোগাযোগ "
                          "(stage ৩-এ ওজনও প্রতি স্তরে আনা-নেওয়া) — তাই যেটা ধরে তার মধ্যে সবচেয়ে ছোট।")
    if answer not in fits:
        return say(False, f"stage {answer}-এ ধরে না। প্রতি ওজনে ১৬ বাইট (২ + ২ + ১২); stage ১ ভাগ করে শুধু ১২-কে, "
                           "stage ২ তার সঙ্গে gradient-এর ২-কে, stage ৩ সবকিছু। প্রতি GPU-র বাইট বাজেটের সঙ্গে মেলাও।")
    return say(False, f"stage {answer}-এ ধরে, কিন্তু তার চেয়ে ছোট একটি stage-এও ধরে — সেটা কম যোগাযোগে চলে।")
