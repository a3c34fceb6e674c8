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
    """'..x.xx' (বিন্দু = ঠিকঠাক step, x = overflow) বা bool-এর list → bool-এর list।"""
    if isinstance(sequence, str):
        bad = set(sequence) - set(".xX ")
        if bad:
            raise ValueError(f"ধারায় শুধু '.' (ঠিকঠাক step) আর 'x' (overflow) চলে; পেয়েছি {sorted(bad)}")
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
    hint = (f"নিয়ম: overflow হলে scale × 0.5 আর গোনা আবার শূন্য থেকে; পরপর {growth_interval}টি ঠিকঠাক step হলে "
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
    hint = (f"নিয়ম: overflow হলে step বাদ; hysteresis ({hysteresis}) যতক্ষণ ১-এর বেশি, scale না কমিয়ে শুধু "
            "hysteresis এক কমে; ১-এ নামলে প্রতিটি overflow-এ scale ÷ 2। scale বাড়ে শেষ overflow-এর পরের "
            f"{scale_window} + 1-তম ঠিকঠাক step-এ (তারপর প্রতি {scale_window}টিতে), আর তখনই hysteresis আবার ভরে।")
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
    """অনুশীলনী ০২.৫: GradScaler-সহ একটি step, যেখানে gradient clipping আছে — ক্রম ঠিক কি না।

    step_fn(model, optimizer, scaler, loss, max_norm) একটি পুরো step করবে: backward, clipping, optimizer step,
    scaler-এর হালনাগাদ। যাচাই হয় দুইভাবে: (ক) স্বাভাবিক step-এ ওজন ঠিক ততটা নড়ে যতটা আসল (unscale করা)
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
                           "gradient ছাঁটা হয়, তারপর step-এর সময় আবার ভাগ হয়ে হালনাগাদ প্রায় শূন্য।")
    # (খ) inf এলে step বাদ আর scale অর্ধেক
    model, opt, scaler, x, y = setup(2.0 ** 10)
    before = [p.detach().clone() for p in model.parameters()]
    loss = torch.nn.functional.mse_loss(model(x), y) * math.inf
    try:
        step_fn(model, opt, scaler, loss, 0.1)
    except Exception as err:
        return _say(False, f"loss inf হলে তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
    if not all(torch.equal(p, b) for p, b in zip(model.parameters(), before)):
        return _say(False, "gradient-এ inf/NaN থাকলেও ওজন বদলে গেছে। optimizer.step() সরাসরি না ডেকে "
                           "scaler.step(optimizer) ডাকো — সে inf দেখলে step বাদ দেয় (skipped step)।")
    if scaler.get_scale() != 2.0 ** 9:
        return _say(False, f"inf-এর পরে scale হওয়ার কথা {2.0 ** 9:g}, কিন্তু আছে {scaler.get_scale():g}। "
                           "প্রতি step-এর শেষে scaler.update() ডাকো — সে-ই scale কমায়-বাড়ায়।")
    return _say(True, "ক্রম ঠিক: scale → backward → unscale_ → clip → scaler.step → scaler.update। আসল gradient "
                      "ছাঁটা হলো, আর inf-এ step বাদ গিয়ে scale অর্ধেক হলো।")


__all__ += ["check_min_normal_scale", "check_pytorch_scale_after", "check_deepspeed_scale_after",
            "check_flushed_fraction", "check_scaled_clip_step"]


# ---------- পাঠ ০৪: gradient জমানো (gradient accumulation) ----------

def check_microbatch_weight(n_i: int, total: int, answer) -> Verdict:
    """অনুশীলনী ০৪.১: N-টি উদাহরণের ব্যাচে n_i মাপের micro-batch-এর গড় loss-কে কত দিয়ে গুণ করতে হয়।"""
    if not 0 < n_i <= total:
        raise ValueError(f"n_i হবে ১ থেকে N-এর মধ্যে (0 < n_i <= N); পেয়েছি n_i={n_i}, N={total}")
    hint = ("বড় ব্যাচের loss = সব উদাহরণের loss-এর যোগফল ÷ N। micro-batch-এর গড় = তার যোগফল ÷ n_i। "
            "তাহলে গড়টাকে কত দিয়ে গুণ করলে যোগফল ÷ N পাওয়া যায়? (1/k তখনই ঠিক, যখন সব micro-batch সমান।)")
    return check_number(answer, n_i / total, f"{total}-এর ব্যাচে {n_i}-এর micro-batch-এর ওজন (weight)", hint,
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
