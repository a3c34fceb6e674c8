"""পাঠ ০১ (বিট-বিন্যাস) অনুশীলনীর যাচাই: FP16/BF16/FP8-এর বিট, rounding, যোগফল জমানো।"""
from __future__ import annotations

import math
from collections.abc import Callable

from mishran.numerics import formats

from .core import Verdict, blank_verdict, check_number, function_answer, is_blank, say

__all__ = ["check_fp16_bits_value", "check_bf16_round", "check_first_unrepresentable_integer", "check_e4m3_max",
           "check_fp16_decoder", "check_sum_stall", "RANGE_FORMATS", "check_formats_for_range"]

RANGE_FORMATS = ("fp32", "fp16", "bf16", "fp8_e5m2", "fp8_e4m3")
"""অনুশীলনী ০১.৪-এর ফরম্যাটগুলো।"""

def check_fp16_bits_value(bits: str, answer) -> Verdict:
    """অনুশীলনী ০১.১: FP16 বিট-প্যাটার্ন হাতে পড়ে মান বের করা।"""
    clean = bits.replace(" ", "").replace(".", "")
    d = formats.decode_bits(int(clean, 2), "fp16")
    hint = (f"অংশগুলো আলাদা করে: sign={d.sign_bits}, exponent={d.exponent_bits} (= {d.exponent}), "
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
    early = function_answer(decoder, "যা 16-বিট পূর্ণসংখ্যা নিয়ে float ফেরত দেয়")
    if early is not None:
        return early
    for pattern in range(2 ** 16):
        want = formats.decode_bits(pattern, "fp16").value
        try:
            got = float(decoder(pattern))
        except Exception as err:  # শিক্ষার্থীর কোডের যেকোনো ভুল দেখাই
            return say(False, f"প্যাটার্ন {pattern:016b}-এ তোমার ফাংশন ভুল তুলেছে: {type(err).__name__}: {err}")
        same = (math.isnan(want) and math.isnan(got)) or (
            got == want and math.copysign(1, got) == math.copysign(1, want))
        if not same:
            kind = formats.decode_bits(pattern, "fp16").kind
            return say(False, f"প্যাটার্ন {pattern:016b} ({kind}): চাই {want!r}, পেয়েছি {got!r}। "
                               "subnormal (exponent 00000), inf/NaN (11111) আর −0-এর কথা ভেবো।")
    return say(True, "তোমার decoder সব ৬৫,৫৩৬টি FP16 প্যাটার্নে সঠিক মান দেয় (−0, subnormal, inf, NaN-সহ)।")


# ---------- পাঠ ০১ (আরও): যোগফল জমানো (accumulation) ----------

def _sum_stall(fmt, addend, max_steps: int = 1_000_000) -> float:
    """fmt-এ ০ থেকে বারবার addend যোগ করলে (প্রতি যোগের পর round) যোগফল যেখানে আটকে যায়। দুটি সংখ্যাই ছোট
    ফরম্যাটের, তাই float64-এ s + a নির্ভুল; তারপর round_to মানে একটি ছোট-ফরম্যাটের যোগ।"""
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


def check_formats_for_range(smallest: float, largest: float, answer) -> Verdict:
    """অনুশীলনী ০১.৪: কোন ফরম্যাটে, scale ছাড়া, smallest আর largest দুটোই শূন্য/inf/NaN না হয়ে টেকে (সত্যটা
    formats.round_to থেকে)।"""
    if is_blank(answer):
        return blank_verdict()
    try:
        chosen = {str(a).strip().lower() for a in answer} if not isinstance(answer, str) else {answer.strip().lower()}
    except TypeError:
        return say(False, f"ফরম্যাটের নামের একটি set দাও (a set of names), যেমন {{'fp16'}}; পেয়েছি {answer!r}।", form=True)
    unknown = chosen - set(RANGE_FORMATS)
    if unknown:
        return say(False, f"অচেনা নাম {sorted(unknown)} (unknown format); বেছে নাও: {', '.join(RANGE_FORMATS)}।",
                   form=True)
    works = {name for name in RANGE_FORMATS if formats.round_to(smallest, name) != 0
             and math.isfinite(formats.round_to(largest, name))}
    if chosen == works:
        return say(True, "দুই প্রান্তই যে ফরম্যাটগুলোতে টেকে, ঠিক সেগুলোই বেছেছ।")
    if chosen - works:
        return say(False, "তোমার বাছাইয়ের অন্তত একটি ফরম্যাটে কোনো এক প্রান্ত শূন্য বা inf/NaN হয়ে যায়। প্রতিটির সবচেয়ে "
                          "ছোট subnormal আর max দুই প্রান্তের সঙ্গে মিলিয়ে দেখো।")
    return say(False, "আরও অন্তত একটি ফরম্যাটে দুই প্রান্তই টেকে — বাদ পড়েছে। exponent-এর বিট বেশি এমন ফরম্যাটগুলো দেখো।")
