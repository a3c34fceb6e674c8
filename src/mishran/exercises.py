"""অনুশীলনীর উত্তর যাচাই (check functions), বাংলায় মতামতসহ।

নিয়ম (COURSE_PLAN §5): অনুশীলনীর ঘরে উত্তরের জায়গায় ... (Ellipsis) থাকে। ফাঁকা থাকলে check_...()
শুধু মনে করিয়ে দেয়, ভুল তোলে না; ভুল উত্তরে কী ভুল বলে; ঠিক উত্তরে সত্য (truthy) Verdict ফেরত দেয়।
সমাধানের ঘর একই check ডাকে `assert`-এর ভেতরে, তাই test-এ সমাধান ভুল হলে ধরা পড়ে।
"""
from __future__ import annotations

import math
from typing import Callable

from . import formats

__all__ = ["BLANK", "Verdict", "is_blank", "check_number", "check_fp16_bits_value", "check_bf16_round",
           "check_first_unrepresentable_integer", "check_e4m3_max", "check_fp16_decoder"]

BLANK = ...


def is_blank(answer) -> bool:
    return answer is ... or answer is None


class Verdict:
    """check_...()-এর ফল: `assert`-এ True/False-এর মতো কাজ করে, কিন্তু ঘরের শেষে আলাদা করে কিছু ছাপে না।"""

    def __init__(self, ok: bool):
        self.ok = bool(ok)

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return f"Verdict({self.ok})"

    def _ipython_display_(self):   # বার্তা আগেই ছাপা হয়েছে; Jupyter যেন আবার True/False না দেখায়
        pass


def _say(ok: bool | None, text: str) -> Verdict:
    mark = {True: "✅ ঠিক!", False: "❌ এখনো হয়নি।", None: "✏️"}[ok]
    print(f"{mark} {text}")
    return Verdict(bool(ok))


def _blank() -> Verdict:
    return _say(None, "উত্তর এখনো লেখা হয়নি: ... -এর জায়গায় তোমার উত্তর বসিয়ে ঘরটি আবার চালাও।")


def check_number(answer, expected: float, what: str, hint: str = "", rel_tol: float = 0.0) -> Verdict:
    """সাধারণ সংখ্যা-উত্তর যাচাই; নির্দিষ্ট অনুশীলনীর check-গুলো এটাকেই ডাকে।"""
    if is_blank(answer):
        return _blank()
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return _say(False, f"{what}: উত্তর একটি সংখ্যা হওয়া চাই (a number), পেয়েছি {answer!r}।")
    same = (math.isnan(value) and math.isnan(expected)) or value == expected or (
        rel_tol and math.isclose(value, expected, rel_tol=rel_tol))
    if same:
        return _say(True, f"{what} = {answer!r}।")
    return _say(False, f"{what}: {answer!r} নয়। {hint}".rstrip())


# ---------- পাঠ ০১: বিট-বিন্যাস ----------

def check_fp16_bits_value(bits: str, answer) -> Verdict:
    """অনুশীলনী ০১.১: FP16 বিট-প্যাটার্ন হাতে পড়ে মান বের করা।"""
    clean = bits.replace(" ", "").replace(".", "")
    d = formats.decode_bits(int(clean, 2), "fp16")
    hint = (f"ধাপে ধাপে: sign={d.sign_bits}, exponent={d.exponent_bits} (= {d.exponent}), "
            f"mantissa={d.mantissa_bits}। মান = (−1)^sign × 1.mantissa × 2^(exponent − 15)।")
    return check_number(answer, d.value, f"FP16 {d.sign_bits} {d.exponent_bits} {d.mantissa_bits}-এর মান", hint)


def check_bf16_round(x: float, answer) -> Verdict:
    """অনুশীলনী ০১.২: একটি সংখ্যা BF16-এ কী হয়ে যায়।"""
    expected = formats.round_to(x, "bf16")
    hint = (f"BF16-এ mantissa মাত্র ৭ বিট: {x}-এর কাছে দুই প্রতিবেশীর দূরত্ব "
            f"{formats.spacing(x, 'bf16')}। টাই হলে যার mantissa জোড় (even) সেদিকে যায়।")
    return check_number(answer, expected, f"BF16({x})", hint)


def check_first_unrepresentable_integer(fmt: str, answer) -> Verdict:
    """অনুশীলনী ০১.৩: কোন ধনাত্মক পূর্ণসংখ্যা প্রথম fmt-এ ঠিকঠাক রাখা যায় না।"""
    f = formats.get_format(fmt)
    expected = 2 ** (f.mantissa_bits + 1) + 1
    hint = (f"{f.label}-এ mantissa {f.mantissa_bits} বিট, লুকানো বিটসহ {f.mantissa_bits + 1}। "
            "কোন ঘাত (power of 2)-এর পর দুই প্রতিবেশীর দূরত্ব ২ হয়ে যায়?")
    return check_number(answer, expected, f"{f.label}-এ প্রথম যে পূর্ণসংখ্যা রাখা যায় না", hint)


def check_e4m3_max(answer) -> Verdict:
    """অনুশীলনী ০১.৪: FP8 E4M3-এর সবচেয়ে বড় সসীম সংখ্যা।"""
    hint = ("E4M3-এ inf নেই, তাই exponent 1111-ও সাধারণ সংখ্যা; কেবল S.1111.111 হলো NaN। "
            "তাহলে সবচেয়ে বড় mantissa কোনটি, আর exponent 1111 মানে 2-এর কত ঘাত (bias 7)?")
    return check_number(answer, formats.FORMATS["fp8_e4m3"].max, "FP8 E4M3-এর max", hint)


def check_fp16_decoder(decoder: Callable[[int], float]) -> Verdict:
    """অনুশীলনী ০১.৫: নিজের লেখা FP16 decoder সব ৬৫,৫৩৬টি প্যাটার্নে যাচাই।"""
    if is_blank(decoder):
        return _blank()
    if not callable(decoder):
        return _say(False, f"একটি ফাংশন চাই (a function) যা 16-বিট পূর্ণসংখ্যা নিয়ে float ফেরত দেয়; পেয়েছি {decoder!r}।")
    for pattern in range(2 ** 16):
        want = formats.decode_bits(pattern, "fp16").value
        try:
            got = float(decoder(pattern))
        except Exception as err:  # শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
            return _say(False, f"প্যাটার্ন {pattern:016b}-এ তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
        same = (math.isnan(want) and math.isnan(got)) or (got == want and math.copysign(1, got) == math.copysign(1, want))
        if not same:
            kind = formats.decode_bits(pattern, "fp16").kind
            return _say(False, f"প্যাটার্ন {pattern:016b} ({kind}): চাই {want!r}, পেয়েছি {got!r}। "
                               "subnormal (exponent 00000), inf/NaN (11111) আর −0-এর কথা ভেবো।")
    return _say(True, "তোমার decoder সব ৬৫,৫৩৬টি FP16 প্যাটার্নে সঠিক মান দেয় (−0, subnormal, inf, NaN-সহ)।")


# ---------- পাঠ ০১ (আরও): যোগফল জমানো (accumulation) ----------

def _sum_stall(fmt, addend, max_steps: int = 1_000_000) -> float:
    """fmt-এ ০ থেকে বারবার addend যোগ করলে (প্রতি যোগের পর round) যোগফল যেখানে আটকে যায়।

    দুটি সংখ্যাই ছোট ফরম্যাটের, তাই float64-এ s + a নির্ভুল; তারপর round_to একটি ছোট-ফরম্যাটের যোগ।
    """
    a = formats.round_to(addend, fmt)
    s = 0.0
    for _ in range(max_steps):
        nxt = formats.round_to(s + a, fmt)
        if not math.isfinite(nxt):
            return nxt
        if nxt == s:
            return s
        s = nxt
    raise ValueError(f"{max_steps} বার যোগ করেও যোগফল থামেনি (no stall); addend বড় করো বা ছোট ফরম্যাট নাও।")


def check_sum_stall(fmt: str, addend: float, answer) -> Verdict:
    """অনুশীলনী ০১.৬: fmt-এর accumulator-এ বারবার addend যোগ করলে যোগফল কোথায় থেমে যায়।"""
    f = formats.get_format(fmt)
    a = formats.round_to(addend, f)
    hint = (f"{f.label}-এ addend আসলে {a!r}। যোগফল s বাড়ে যতক্ষণ addend > spacing(s)/2। "
            f"কোন 2-এর ঘাত (power of 2) থেকে spacing(s, '{f.name}')/2 addend-এর চেয়ে বড় হয়?")
    return check_number(answer, _sum_stall(f, addend), f"{f.label}-এ {addend} বারবার যোগ করলে যোগফল যেখানে থামে",
                        hint)


__all__ += ["check_sum_stall"]


# ---------- পাঠ ০২: underflow আর loss scaling ----------

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
    k = max(0, math.ceil(math.log2(f.min_normal / g)))
    while g * 2.0 ** k < f.min_normal:               # log2-এর rounding সামলাতে
        k += 1
    while k > 0 and g * 2.0 ** (k - 1) >= f.min_normal:
        k -= 1
    hint = (f"FP16-এর সবচেয়ে ছোট normal 2^{f.emin} = {f.min_normal:g}। {g:g} × S ≥ {f.min_normal:g} চাই; "
            f"log2({f.min_normal:g} / {g:g}) = {math.log2(f.min_normal / g):.3f} — তার ওপরের পূর্ণসংখ্যা k, তাহলে S = 2^k।")
    if not is_blank(answer):
        try:
            a = float(answer)
        except (TypeError, ValueError):
            a = None
        if a is not None and a > 0 and math.isfinite(a) and not math.log2(a).is_integer():
            return _say(False, f"{answer!r} 2-এর ঘাত নয় (not a power of two)। loss scale সবসময় 2-এর ঘাত নেওয়া হয়, "
                               "কারণ তাতে গুণ-ভাগ নির্ভুল (শুধু exponent বদলায়)। " + hint)
    return check_number(answer, 2.0 ** k, f"{g:g}-কে FP16-এর normal পরিসরে আনার সবচেয়ে ছোট scale", hint)


def check_pytorch_scale_after(sequence, answer, init_scale: float = 2.0 ** 16, growth_interval: int = 2000) -> Verdict:
    """অনুশীলনী ০২.২: overflow-এর একটি ধারার পরে torch.amp.GradScaler-এর scale কত।"""
    from .scaling import DynamicLossScaler

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
    from .scaling import DeepSpeedLossScaler, LossScaleAtMinimumError

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


def check_flushed_fraction(values, answer, fmt: str = "fp16", scale: float = 1.0) -> Verdict:
    """অনুশীলনী ০২.৪: একটি tensor-কে fmt-এ (scale দিয়ে গুণ করে) রাখলে কত ভাগ শূন্যে মুছে যায়।"""
    from .scaling import underflow_report

    r = underflow_report(values, fmt, scale)
    f = formats.get_format(fmt)
    hint = (f"{f.label}-এ |v| ≤ {f.min_subnormal / 2:g} (সবচেয়ে ছোট subnormal-এর অর্ধেক) হলে v শূন্য হয়ে যায়; "
            "তবে আগে থেকেই শূন্য মানগুলো 'মুছে যাওয়া' নয়। উত্তর একটি ভগ্নাংশ (0 থেকে 1), মোট মানের কত অংশ।")
    return check_number(answer, r.fraction("flushed_to_zero"), f"{f.label}-এ (scale {scale:g}) শূন্যে মুছে যাওয়া অংশ",
                        hint, rel_tol=1e-9)


def check_scaled_clip_step(step_fn: Callable) -> Verdict:
    """অনুশীলনী ০২.৫: GradScaler-সহ একটি ধাপ, যেখানে gradient clipping আছে — ক্রম ঠিক কি না।

    step_fn(model, optimizer, scaler, loss, max_norm) একটি পুরো ধাপ করবে: backward, clipping, optimizer step,
    scaler-এর হালনাগাদ। যাচাই হয় দুইভাবে: (ক) স্বাভাবিক ধাপে ওজন ঠিক ততটা নড়ে যতটা আসল (unscale করা)
    gradient clip করলে নড়ার কথা; (খ) gradient-এ inf এলে ওজন নড়ে না আর scale অর্ধেক হয়।
    """
    if is_blank(step_fn):
        return _blank()
    if not callable(step_fn):
        return _say(False, f"একটি ফাংশন চাই: def my_step(model, optimizer, scaler, loss, max_norm): ...; পেয়েছি {step_fn!r}")
    import torch

    def setup(seed_scale):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu", init_scale=seed_scale, growth_interval=1000)
        x = torch.linspace(-2.0, 2.0, 32).reshape(8, 4)
        y = torch.ones(8, 1)
        return model, opt, scaler, x, y

    # (ক) ঠিক উত্তর হাতে: আসল gradient, clip, SGD
    model, opt, scaler, x, y = setup(2.0 ** 10)
    ref = torch.nn.Linear(4, 1)
    ref.load_state_dict(model.state_dict())
    loss_ref = torch.nn.functional.mse_loss(ref(x), y)
    loss_ref.backward()
    unclipped = [(p - 0.1 * p.grad).detach() for p in ref.parameters()]     # clip ভুলে গেলে যা হতো
    torch.nn.utils.clip_grad_norm_(ref.parameters(), 0.1)
    with torch.no_grad():
        for p in ref.parameters():
            p -= 0.1 * p.grad
    loss = torch.nn.functional.mse_loss(model(x), y)
    try:
        step_fn(model, opt, scaler, loss, 0.1)
    except Exception as err:  # শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return _say(False, f"তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
    moved = [(p - q).abs().max().item() for p, q in zip(model.parameters(), ref.parameters())]
    if max(moved) > 1e-6:
        before = setup(2.0 ** 10)[0]
        if all((p - q).abs().max().item() < 1e-6 for p, q in zip(model.parameters(), unclipped)):
            return _say(False, "ওজন নড়েছে, কিন্তু clip ছাড়া যতটা নড়ত ঠিক ততটা: clip_grad_norm_(model.parameters(), "
                               "max_norm) ডাকোনি (unscale_-এর পরে, scaler.step-এর আগে)।")
        if all(torch.equal(p, q) for p, q in zip(model.parameters(), before.parameters())):
            return _say(False, "ওজন একটুও নড়েনি। scaler.step(optimizer) ডেকেছ তো? আর backward-এর আগে "
                               "scaler.scale(loss) — নইলে GradScaler জানে না কোন gradient দেখতে হবে।")
        return _say(False, "ওজন ঠিক পরিমাণে নড়েনি। clip করতে হয় আসল (unscale করা) gradient-কে: "
                           "scaler.scale(loss).backward() → scaler.unscale_(optimizer) → clip_grad_norm_ → "
                           "scaler.step(optimizer) → scaler.update()। unscale_ ছাড়া clip করলে scale-গুণ বড় "
                           "gradient ছাঁটা হয়, তারপর scaler.step-এর সময় আবার ভাগ হয়ে হালনাগাদ প্রায় শূন্য।")
    # (খ) inf এলে ধাপ বাদ আর scale অর্ধেক
    model, opt, scaler, x, y = setup(2.0 ** 10)
    before = [p.detach().clone() for p in model.parameters()]
    loss = torch.nn.functional.mse_loss(model(x), y) * math.inf
    try:
        step_fn(model, opt, scaler, loss, 0.1)
    except Exception as err:
        return _say(False, f"loss inf হলে তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
    if not all(torch.equal(p, b) for p, b in zip(model.parameters(), before)):
        return _say(False, "gradient-এ inf/NaN থাকলেও ওজন বদলে গেছে। optimizer.step() সরাসরি না ডেকে "
                           "scaler.step(optimizer) ডাকো — সে inf দেখলে ধাপ বাদ দেয় (skipped step)।")
    if scaler.get_scale() != 2.0 ** 9:
        return _say(False, f"inf-এর পরে scale হওয়ার কথা {2.0 ** 9:g}, কিন্তু আছে {scaler.get_scale():g}। "
                           "প্রতি ধাপের শেষে scaler.update() ডাকো — সে-ই scale কমায়-বাড়ায়।")
    return _say(True, "ক্রম ঠিক: scale → backward → unscale_ → clip → scaler.step → scaler.update। আসল gradient "
                      "ছাঁটা হলো, আর inf-এ ধাপ বাদ গিয়ে scale অর্ধেক হলো।")


__all__ += ["check_min_normal_scale", "check_pytorch_scale_after", "check_deepspeed_scale_after",
            "check_flushed_fraction", "check_scaled_clip_step"]


# ---------- পাঠ ০৪: gradient জমানো (gradient accumulation) ----------

def check_microbatch_weight(n_i: int, total: int, answer) -> Verdict:
    """অনুশীলনী ০৪.১: N-টি উদাহরণের ব্যাচে n_i মাপের micro-batch-এর গড় loss-কে কত দিয়ে গুণ করতে হয়।"""
    if not 0 < n_i <= total:
        raise ValueError(f"n_i হবে ১ থেকে N-এর মধ্যে (0 < n_i <= N); পেয়েছি n_i={n_i}, N={total}")
    hint = ("বড় ব্যাচের loss = সব উদাহরণের loss-এর যোগফল ÷ N। micro-batch-এর গড় = তার যোগফল ÷ n_i। "
            "তাহলে গড়টাকে কত দিয়ে গুণ করলে যোগফল ÷ N পাওয়া যায়? (1/k তখনই ঠিক, যখন সব micro-batch সমান।)")
    return check_number(answer, n_i / total, f"{total}-এর ব্যাচে {n_i}-এর ছোট ব্যাচের (micro-batch) ভার (weight)", hint,
                        rel_tol=1e-9)


def check_allreduce_count(steps: int, accum: int, no_sync: bool, answer, buckets: int = 1) -> Verdict:
    """অনুশীলনী ০৪.২: DDP-তে steps-টি optimizer step, প্রতিটিতে accum-টি micro-step — কয়টি allreduce।"""
    syncs = steps if no_sync else steps * accum
    how = "no_sync() সহ" if no_sync else "no_sync() ছাড়া"
    hint = ("DDP প্রতিটি sync করা backward-এ প্রতিটি bucket-এর জন্য একটি allreduce করে। no_sync()-এর ভেতরের "
            "backward কোনো যোগাযোগ করে না। প্রতি step-এ কয়টি backward sync করে?")
    return check_number(answer, syncs * buckets, f"{how} {steps} step × {accum} micro-step-এ allreduce-এর সংখ্যা",
                        hint)


BUGGY_ACCUMULATION_LOOP = """\
for step in range(max_steps):
    for micro_step in range(accum):
        x, y = get_batch()
        sync = micro_step == 0
        with nullcontext() if sync else model.no_sync():
            with torch.amp.autocast("cuda", dtype=torch.float16):
                loss = loss_fn(model(x), y) / accum
            scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
"""
BUGGY_ACCUMULATION_LINE = 4      # sync হওয়া উচিত শেষ micro-step-এ: micro_step == accum - 1


def check_accumulation_bug(answer) -> Verdict:
    """অনুশীলনী ০৪.৩: BUGGY_ACCUMULATION_LOOP-এর কোন লাইনে (১ থেকে গোনা) ভুল।"""
    if is_blank(answer):
        return _blank()
    try:
        line = int(answer)
    except (TypeError, ValueError):
        return _say(False, f"উত্তর একটি লাইন নম্বর (line number), ১ থেকে গোনা; পেয়েছি {answer!r}।")
    n_lines = len(BUGGY_ACCUMULATION_LOOP.splitlines())
    if line == BUGGY_ACCUMULATION_LINE:
        return _say(True, f"লাইন {line}: sync হয় প্রথম micro-step-এ, অথচ হওয়া উচিত শেষটিতে "
                          "(micro_step == accum - 1)। এখন শেষ k-1টি micro-batch-এর gradient কখনো allreduce হয় না, "
                          "তাই process-গুলোর ওজন আলাদা হয়ে যায় — কোনো ভুলবার্তা ছাড়াই।")
    if not 1 <= line <= n_lines:
        return _say(False, f"loop-এ লাইন ১ থেকে {n_lines}; পেয়েছি {line}।")
    if line == BUGGY_ACCUMULATION_LINE + 1:
        return _say(False, f"লাইন {line} নিজে ঠিক: sync হলে সাধারণ backward, নইলে no_sync()। কিন্তু sync কখন True "
                           "হয়, তা ঠিক করে আগের লাইন।")
    return _say(False, f"লাইন {line} ঠিক আছে। প্রশ্ন করো: DDP কোন micro-step-এ gradient গড় করে (allreduce), "
                       "আর সেটা কোন micro-step-এ হওয়া উচিত, যাতে সব micro-batch-এর gradient তাতে ধরা পড়ে?")


def check_effective_batch(micro: int, accum: int, world: int, answer) -> Verdict:
    """অনুশীলনী ০৪.৪: এক optimizer step কয়টি উদাহরণ দেখে (effective batch size)।"""
    hint = ("প্রতি process প্রতি micro-step-এ micro-টি উদাহরণ দেখে; একটি step-এ accum-টি micro-step; "
            "আর process আছে world-টি, সবাই আলাদা ডেটা দেখে। DeepSpeed-এর train_batch_size-ও এই গুণফল।")
    return check_number(answer, micro * accum * world,
                        f"micro-batch {micro} × accumulation {accum} × world size {world}-এ কার্যকর ব্যাচ", hint)


__all__ += ["check_microbatch_weight", "check_allreduce_count", "BUGGY_ACCUMULATION_LOOP", "BUGGY_ACCUMULATION_LINE",
            "check_accumulation_bug", "check_effective_batch"]


# ---------- পাঠ ০৩: AMP-এর training loop ----------

AMP_STEP_ORDER = ("backward", "unscale_", "clip", "step", "update")
_AMP_STEP_NAMES = {
    "backward": "backward", "scale": "backward", "scale/backward": "backward",
    "scaler.scale(loss).backward()": "backward",
    "unscale_": "unscale_", "unscale": "unscale_", "scaler.unscale_(optimizer)": "unscale_",
    "clip": "clip", "clip_grad_norm_": "clip",
    "step": "step", "scaler.step(optimizer)": "step",
    "update": "update", "scaler.update()": "update",
}


def check_amp_step_order(answer) -> Verdict:
    """অনুশীলনী ০৩.১: FP16 + GradScaler loop-এর পাঁচ ধাপ (backward, unscale_, clip, step, update) ঠিক ক্রমে।"""
    if is_blank(answer):
        return _blank()
    names = ", ".join(repr(n) for n in AMP_STEP_ORDER)
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        return _say(False, f"পাঁচটি নামের একটি list চাই (a list of step names), যেমন [{names}] — তবে ঠিক ক্রমে; "
                           f"পেয়েছি {answer!r}।")
    items = list(answer)
    unknown = [a for a in items if not isinstance(a, str) or a.strip().lower() not in _AMP_STEP_NAMES]
    if unknown:
        return _say(False, f"অচেনা ধাপ {unknown[0]!r} (unknown step); চেনা নাম: {names}।")
    order = [_AMP_STEP_NAMES[a.strip().lower()] for a in items]
    missing = [n for n in AMP_STEP_ORDER if n not in order]
    if missing or len(order) != len(AMP_STEP_ORDER):
        return _say(False, f"প্রতিটি ধাপ ঠিক একবার চাই (each step exactly once); বাদ পড়েছে: {missing or 'নেই'}, "
                           f"তুমি দিয়েছ {len(order)}টি।")
    if tuple(order) == AMP_STEP_ORDER:
        return _say(True, "scale(loss).backward() → unscale_ → clip → step → update। unscale_ আগে, তাই clip "
                          "আসল এককের gradient দেখে; step inf/NaN পেলে বাদ যায়; update সবশেষে scale ঠিক করে।")
    pos = {n: i for i, n in enumerate(order)}
    if order[0] != "backward":
        why = ("আগে gradient চাই: scaler.scale(loss).backward() সবার আগে — তার আগে unscale বা clip করার মতো "
               "কোনো gradient-ই নেই।")
    elif pos["clip"] < pos["unscale_"]:
        why = ("clip আগে, unscale_ পরে হলে clip_grad_norm_ দেখে scale-গুণ gradient: তার norm আসলের চেয়ে scale গুণ "
               "বড়, তাই ক্লিপ আসলে হয় clip_norm ÷ scale-এ — প্রায় সব gradient মুছে যায়।")
    elif pos["step"] < pos["clip"] or pos["step"] < pos["unscale_"]:
        why = ("step-এর পরে unscale বা clip করে লাভ নেই: ওজন ততক্ষণে বদলে গেছে। gradient ঠিক করা (unscale_, "
               "clip) step-এর আগে।")
    elif pos["update"] < pos["step"]:
        why = ("update() সবশেষে: সে এই step-এ inf/NaN পাওয়া গেল কি না দেখে scale বদলায়, তারপর খাতা মুছে দেয়। "
               "step-এর আগে ডাকলে step() নতুন scale দিয়ে আবার unscale করে — gradient দুবার ভাগ হয়।")
    else:
        first = next(i for i, (a, b) in enumerate(zip(order, AMP_STEP_ORDER)) if a != b)
        why = f"{first + 1} নম্বর ধাপে {order[first]!r} নয়।"
    return _say(False, why)


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


_DTYPE_ALIASES = {"fp32": "float32", "float32": "float32", "float": "float32", "torch.float32": "float32",
                  "fp16": "float16", "float16": "float16", "half": "float16", "torch.float16": "float16",
                  "bf16": "bfloat16", "bfloat16": "bfloat16", "torch.bfloat16": "bfloat16"}


def autocast_dtypes(device="cpu", dtype=None) -> dict:
    """পাঠ ০৩: কয়েকটি op autocast-এর ভেতরে চালিয়ে ফলের dtype, এই device-এ আর এই torch-এ।

    x একটি FP32 tensor; h = linear(x, w), অর্থাৎ autocast-এর ভেতরের একটি নিচু precision-এর activation।
    dtype না দিলে CPU-তে bfloat16, CUDA-তে float16।
    """
    import torch
    import torch.nn.functional as F

    device_type = torch.device(device).type
    dtype = dtype or (torch.float16 if device_type == "cuda" else torch.bfloat16)
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
        return _blank()
    if not isinstance(answers, dict):
        return _say(False, f"op-এর নাম থেকে dtype-এর একটি dict চাই, যেমন {{'linear': torch.bfloat16, ...}}; "
                           f"পেয়েছি {answers!r}।")
    truth = autocast_dtypes(device, dtype)
    if all(is_blank(answers.get(op)) for op in truth):
        return _blank()
    wrong, blank = [], []
    for op, want in truth.items():
        given = answers.get(op)
        if is_blank(given):
            blank.append(op)
            continue
        key = str(given).strip().lower()
        if _DTYPE_ALIASES.get(key) != _dtype_name(want):
            wrong.append(f"{op}: {given!r} নয়, এখানে {_dtype_name(want)}। {_AUTOCAST_HINTS[op]}")
    if wrong:
        return _say(False, "\n   ".join([f"{len(wrong)}টি মেলেনি (device {device}):"] + wrong))
    if blank:
        return _say(False, f"যেগুলো লিখেছ সব ঠিক; এখনো বাকি: {', '.join(blank)}।")
    return _say(True, f"{len(truth)}টি op-এর dtype-ই এই device-এ ({device}) মিলেছে: matmul নিচু precision-এ, loss "
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


def check_modern_amp_step(step_fn, device="cpu") -> Verdict:
    """অনুশীলনী ০৩.৩: বাতিলের পথে থাকা torch.cuda.amp-এর step নতুন torch.amp দিয়ে লেখা।

    step_fn(model, optimizer, scaler, x, y, device_type, dtype) একটি AMP step নেয় আর loss ফেরত দেয়। যাচাই:
    কোনো FutureWarning নেই; Linear-এর ফল নিচু precision-এ (autocast চালু); ওজনের বদল নির্ভুল AMP step-এর
    সমান (loss scale করা, তারপর unscale); scaler.update() ডাকা হয়; overflow-এ step বাদ আর scale অর্ধেক।
    dtype: CUDA-তে float16, CPU-তে bfloat16।
    """
    if is_blank(step_fn):
        return _blank()
    if not callable(step_fn):
        return _say(False, f"একটি ফাংশন চাই (a function) step_fn(model, optimizer, scaler, x, y, device_type, dtype); "
                           f"পেয়েছি {step_fn!r}।")
    import copy
    import warnings

    import torch

    device_type = torch.device(device).type
    dtype = torch.float16 if device_type == "cuda" else torch.bfloat16
    g = torch.Generator().manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(0.2 * torch.randn(p.shape, generator=g))    # gradient-এর norm ১-এর নিচে: clip দিলেও একই
    model = model.to(device)
    x = torch.randn(16, 4, generator=g).to(device)
    y = (0.1 * torch.randn(16, 1, generator=g)).to(device)

    def parts():
        m = copy.deepcopy(model)
        return m, torch.optim.SGD(m.parameters(), lr=0.1), torch.amp.GradScaler(device_type, init_scale=2.0 ** 10)

    ref_model, ref_opt, ref_scaler = parts()
    _reference_amp_step(ref_model, ref_opt, ref_scaler, x, y, device_type, dtype)
    want = torch.cat([(a - b).detach().flatten() for a, b in zip(ref_model.parameters(), model.parameters())])

    m, opt, scaler = parts()
    seen = []
    hook = m[0].register_forward_hook(lambda mod, inp, out: seen.append(out.dtype))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = step_fn(m, opt, scaler, x, y, device_type, dtype)
            got = torch.cat([(a - b).detach().flatten() for a, b in zip(m.parameters(), model.parameters())])
            tracker, scale = scaler.state_dict().get("_growth_tracker"), scaler.get_scale()
            old = [p.detach().clone() for p in m.parameters()]
            bad_y = y.clone()
            bad_y[0] = float("inf")                      # ইচ্ছে করে overflow
            if tracker == 1:
                step_fn(m, opt, scaler, x, bad_y, device_type, dtype)
    except Exception as err:  # শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
        return _say(False, f"তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
    finally:
        hook.remove()
    old_api = [w for w in caught if issubclass(w.category, FutureWarning) and "torch.cuda.amp" in str(w.message)]
    if old_api:
        return _say(False, f"এখনো পুরনো API: {old_api[0].message} — torch.amp.autocast(device_type, dtype=dtype) "
                           "আর torch.amp.GradScaler(device_type) নাও।")
    if not seen or seen[0] != dtype:
        return _say(False, f"প্রথম Linear-এর ফল {_dtype_name(seen[0]) if seen else 'কিছুই না'}, {_dtype_name(dtype)} "
                           "নয়: forward কি torch.amp.autocast(device_type, dtype=dtype)-এর ভেতরে?")
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        return _say(False, f"ফাংশনটি loss (একটি সংখ্যার tensor) ফেরত দেবে; পেয়েছি {loss!r}।")
    if not bool(got.abs().sum() > 0):
        return _say(False, "ওজন একটুও বদলায়নি: scaler.step(optimizer) ডাকা হয়েছে তো?")
    rel = float((got - want).norm() / want.norm())
    if rel > 0.05:
        return _say(False, f"ওজনের বদল ঠিক AMP step-এর চেয়ে আলাদা (আপেক্ষিক পার্থক্য {rel:.2g}): "
                           "scaler.scale(loss).backward() দিয়েছ? scale না করলে scaler.step ভাগ করে ফেলে scale দিয়ে, "
                           "আর optimizer.step() সরাসরি ডাকলে scale-গুণ gradient দিয়েই ওজন বদলায়।")
    if tracker != 1 or scale != 2.0 ** 10:
        return _say(False, "scaler.update() ডাকা হয়নি (growth tracker বাড়েনি): প্রতিটি step-এর শেষে update চাই, "
                           "নইলে scale কখনো বদলায় না আর পরের step-এ scaler.step() ভুল তোলে।")
    if any(not torch.equal(a, b) for a, b in zip(old, m.parameters())):
        return _say(False, "overflow-এর step-এ (y-তে inf) ওজন বদলে গেছে: optimizer.step() সরাসরি নয়, "
                           "scaler.step(optimizer) ডাকো — সে inf/NaN পেলে step বাদ দেয়।")
    if scaler.get_scale() != scale * 0.5:
        return _say(False, f"overflow-এর পর scale {scaler.get_scale():g}, হওয়ার কথা {scale * 0.5:g}: scaler.update()।")
    return _say(True, "নতুন torch.amp API: কোনো FutureWarning নেই, forward autocast-এ, loss scale হয়ে backward, "
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
        return _blank()
    key = _BENGALI_CHOICE.get(str(answer).strip(), str(answer).strip().lower().strip("()"))
    if key not in SCALE_HALVING_CHOICES:
        return _say(False, f"'a', 'b', 'c' বা 'd' লেখো (অথবা ক, খ, গ, ঘ); পেয়েছি {answer!r}।")
    if key == "c":
        return _say(True, "forward-এর overflow loss scaling সারাতে পারে না: scale শুধু backward-এর gradient বড় করে। "
                          "loss আগে থেকেই inf/NaN, তাই প্রতিটি step বাদ পড়ে আর scale অর্ধেক হতেই থাকে (GradScaler-এর "
                          "কোনো নিচের সীমা নেই)। ইনপুট normalize করো, বা পরিসরের জন্য BF16 নাও।")
    why = {
        "a": "শুরুর scale বড় হলে প্রথম কয়েকটি step বাদ পড়ে, তারপর scale এমন জায়গায় নামে যেখানে gradient আঁটে। "
             "এখানে scale ১-এর নিচে নেমেও বাদ পড়ছে — তাহলে সমস্যা scale-এ নয়। scale ছাড়া loss-টা দেখো।",
        "b": "growth_interval ছোট হলে scale বাড়ে-কমে, দোল খায়; মাঝে মাঝে step নেওয়াও হয়। এখানে scale শুধু কমছে।",
        "d": "যে step বাদ পড়ে, তাতে ওজন বদলায়ই না — তাহলে learning rate-এর কোনো ভূমিকা নেই। প্রথম step-এর আগেই "
             "loss কেমন, দেখো।",
    }[key]
    return _say(False, why)


__all__ += ["AMP_STEP_ORDER", "check_amp_step_order", "autocast_dtypes", "check_autocast_dtypes",
            "check_modern_amp_step", "SCALE_HALVING_CHOICES", "check_scale_halving_cause"]


# ---------- পাঠ ০৫: DeepSpeed engine ----------

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


def initial_skipped_steps(grad_max: float, initial_scale_power: int = 32, hysteresis: int = 2) -> int:
    """শুরুতে কয়টি step বাদ পড়ে, যদি overflow হয় ঠিক তখন যখন grad_max × scale FP16-এ inf (পাঠ ০৫)।"""
    from .scaling import DeepSpeedLossScaler

    scaler = DeepSpeedLossScaler(init_scale=2.0 ** initial_scale_power, scale_window=10 ** 9, hysteresis=hysteresis)
    skipped = 0
    while _fp16_overflows(grad_max, scaler.scale):
        scaler.update(True)
        skipped += 1
    return skipped


def check_initial_skipped_steps(grad_max: float, answer, initial_scale_power: int = 32, hysteresis: int = 2) -> Verdict:
    """অনুশীলনী ০৫.২: initial_scale_power থেকে নামতে নামতে DeepSpeed (ZeRO 1/2) শুরুতে কয়টি step বাদ দেয়।"""
    expected = initial_skipped_steps(grad_max, initial_scale_power, hysteresis)
    hint = (f"প্রথমে খোঁজো কোন 2-এর ঘাত S-এ {grad_max:g} × S FP16-এর সবচেয়ে বড় সংখ্যা ({formats.FORMATS['fp16'].max:g}) "
            f"ছাড়ায় না। 2^{initial_scale_power} থেকে সেখানে নামতে কয়টি অর্ধেক করা লাগে? তার সঙ্গে hysteresis: প্রথম "
            f"{hysteresis - 1}টি overflow-এ scale কমে না, শুধু step বাদ যায়।")
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
DEEPSPEED_LOOP_ANSWER = "C"
_DEEPSPEED_LOOP_WHY = {
    "A": ("A-তে loss দুবার ভাগ হয়: engine.backward() নিজেই gradient_accumulation_steps দিয়ে ভাগ করে। gradient "
          "accum গুণ ছোট হয়ে যায় (Adam-এ সেটা চোখে পড়ে না, SGD-তে হালনাগাদ ছোট হয়ে যায়)।"),
    "B": ("B-তে engine.step() শুধু সীমানায় ডাকা হয়, কিন্তু engine নিজে micro-step গোনে engine.step()-এর ভেতরে। "
          "সীমানার আগের step() ডাক না পেলে engine.micro_steps বাড়ে না, তাই is_gradient_accumulation_boundary() আর "
          "সত্যি হয় না — accum > 1 হলে একবারও optimizer step হয় না। step() প্রতিটি micro-batch-এ ডাকো; zero_grad-ও engine-ই করে।"),
    "D": ("D পুরনো tutorial-এর ভুল: engine নিজেই loss scale করে (FP16-এ); GradScaler-এর scale তার ওপর আরও এক দফা, "
          "আর scaler.step(optimizer) engine-কে এড়িয়ে যায় — accumulation, gradient-এর গড় আর master weight-এর "
          "হালনাগাদ বাদ পড়ে। 16-বিট engine-এ scaler.step ভুলও তোলে: 'No inf checks were recorded for this optimizer.'"),
}


def check_deepspeed_loop(answer) -> Verdict:
    """অনুশীলনী ০৫.৪: DEEPSPEED_LOOPS-এর কোন loop DeepSpeed engine-এর সঙ্গে ঠিক (A, B, C বা D)।"""
    if is_blank(answer):
        return _blank()
    key = str(answer).strip().upper()
    if key not in DEEPSPEED_LOOPS:
        return _say(False, f"উত্তর হবে একটি অক্ষর: {', '.join(DEEPSPEED_LOOPS)}; পেয়েছি {answer!r}।")
    if key == DEEPSPEED_LOOP_ANSWER:
        return _say(True, "C: প্রতিটি micro-batch-এ engine.backward(loss) আর engine.step()। ভাগ করা, loss scaling, "
                          "সীমানা চেনা, optimizer step আর zero_grad — সব engine করে।")
    return _say(False, _DEEPSPEED_LOOP_WHY[key])


__all__ += ["check_ds_accumulation_steps", "initial_skipped_steps", "check_initial_skipped_steps",
            "check_zero_gb_per_gpu", "DEEPSPEED_LOOPS", "DEEPSPEED_LOOP_ANSWER", "check_deepspeed_loop"]
