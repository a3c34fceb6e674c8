"""অনুশীলনীর যাচাইয়ের সাধারণ অংশ (সব পাঠ): Verdict, ফাঁকা উত্তর, সংখ্যা-, dict-, বিকল্প- আর ফাংশন-উত্তর।

নিয়ম সব পাঠে এক, যাতে শিক্ষার্থী একবার শিখেই সব অনুশীলনী চালাতে পারে: ঘরে উত্তরের জায়গায় ... (Ellipsis)
থাকে; ফাঁকা থাকলে check_...() শুধু মনে করিয়ে দেয়, ভুল উত্তরে কী ভুল বলে, ঠিক উত্তরে সত্য (truthy) Verdict দেয়।
সমাধানের ঘর একই check ডাকে `assert`-এর ভেতরে, তাই test-এ সমাধান ভুল হলে ধরা পড়ে। পরীক্ষার ধারায়
(MISHRAN_GRADED=1, মডিউল graded) check ঠিক-ভুল না বলে উত্তর জমা রাখে।
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import graded

__all__ = ["BLANK", "Verdict", "is_blank", "say", "blank_verdict", "as_number", "finite_number", "number_answer",
           "dict_answer", "choice_answer", "function_answer", "check_fields", "check_number"]

BLANK = ...
"""ফাঁকা উত্তরের চিহ্ন (সব পাঠের অনুশীলনী): ঘরে `answer = ...` লেখা থাকে।"""


def is_blank(answer) -> bool:
    """উত্তর এখনো ফাঁকা কি না (... বা None), সব পাঠের check-এ।"""
    return answer is ... or answer is None


@dataclass(frozen=True)
class Verdict:
    """check_...()-এর ফল (সব পাঠের অনুশীলনী): `assert`-এ True/False-এর মতো কাজ করে, কিন্তু ঘরের শেষে আলাদা করে কিছু ছাপে না।"""

    ok: bool

    def __bool__(self) -> bool:
        return self.ok

    def _ipython_display_(self):   # বার্তা আগেই ছাপা হয়েছে; Jupyter যেন আবার True/False না দেখায়
        pass


def say(ok: bool | None, text: str, form: bool = False) -> Verdict:
    """মতামত ছাপে (ঠিক, এখনো হয়নি, বা ফাঁকা) আর Verdict ফেরত দেয় (সব পাঠের check)।

    পরীক্ষার ধারায় ঠিক-ভুলের জায়গায় উত্তর জমা রাখে আর সব সময় একই সত্য Verdict দেয়, যাতে ফেরত মান দেখেও ঠিক-ভুল
    বোঝা না যায়। ফাঁকা (ok None) আর form=True (উত্তরের আকারই ভুল) তখনও বলা হয়: তাতে সত্যের কিছু নেই; আকারের ভুলও
    জমা থাকে, "invalid" হয়ে, যাতে শিক্ষক টাইপোকে ভুল উত্তর না ভাবেন।"""
    if ok is not None and graded.active():
        if form:
            print(f"এখনো হয়নি: {text}")
        graded.submit(invalid=form)
        return Verdict(not form)
    # চিহ্ন শব্দে (emoji নয়): emoji-র font না থাকলে ফাঁকা বাক্স দেখায়
    mark = {True: "ঠিক!", False: "এখনো হয়নি:", None: "ফাঁকা:"}[ok]
    print(f"{mark} {text}")
    return Verdict(bool(ok))


def blank_verdict() -> Verdict:
    """ফাঁকা উত্তরের মনে-করানো বার্তা; ভুল তোলে না, মিথ্যা Verdict দেয় (সব পাঠের অনুশীলনী)।"""
    return say(None, 'উত্তর এখনো লেখা হয়নি — "..."-এর জায়গায় তোমার উত্তর বসিয়ে ঘরটি আবার চালাও।')


def as_number(answer) -> float | None:
    """উত্তর সংখ্যা হিসেবে ('0.8', এক উপাদানের tensor-ও; float-এ না আঁটা পূর্ণসংখ্যা → ±inf), নইলে None (সব পাঠ)।"""
    if isinstance(answer, str):
        answer = answer.strip()
    try:
        return float(answer)
    except OverflowError:                         # float-এ আঁটে না এমন বড় পূর্ণসংখ্যা (যেমন 2**2000)
        return math.inf if answer > 0 else -math.inf
    except (TypeError, ValueError, RuntimeError):  # RuntimeError: একাধিক উপাদানের tensor
        return None


def finite_number(answer) -> float | None:
    """উত্তর সসীম সংখ্যা হলে float, নইলে (inf/NaN, লেখা, ফাঁকা) None (সব পাঠ)।"""
    value = as_number(answer)
    return value if value is not None and math.isfinite(value) else None


def number_answer(answer, need: str = "উত্তর একটি সংখ্যা হওয়া চাই (a number)") -> tuple[float | None, Verdict | None]:
    """একটি সংখ্যার উত্তর (সব পাঠ): (সসীম সংখ্যা, None), বা (None, ফাঁকা/ভুলের Verdict, যা check ফেরত দেয়)।"""
    if is_blank(answer):
        return None, blank_verdict()
    value = finite_number(answer)
    if value is None:
        return None, say(False, f"{need}; পেয়েছি {answer!r}।", form=True)
    return value, None


def dict_answer(answer, keys: tuple, numbers: bool = True,
                need: str | None = None) -> tuple[dict | None, Verdict | None]:
    """{key: ...} আকারের উত্তর (সব পাঠ): (dict, None), বা (None, ফাঁকা/ভুলের Verdict)।

    numbers=True হলে প্রতিটি ঘর সসীম সংখ্যায় বদলায়; না পারলে need দেওয়া থাকলে "{need}; পেয়েছি <পুরো উত্তর>।",
    নইলে প্রথম ভুল ঘরের নাম ধরে বলে।
    """
    if is_blank(answer):
        return None, blank_verdict()
    if not isinstance(answer, dict) or set(answer) != set(keys):
        shape = ", ".join(f"{k!r}: ..." for k in keys)
        return None, say(False, f"{{{shape}}} আকারের dict চাই; পেয়েছি {answer!r}।", form=True)
    if any(is_blank(v) for v in answer.values()):
        return None, blank_verdict()
    if not numbers:
        return {k: answer[k] for k in keys}, None
    values = {k: finite_number(answer[k]) for k in keys}
    bad = [k for k, v in values.items() if v is None]
    if bad and need:
        return None, say(False, f"{need}; পেয়েছি {answer!r}।", form=True)
    if bad:
        return None, say(False, f"{bad[0]!r}-এর উত্তর একটি সংখ্যা হওয়া চাই (a number); পেয়েছি {answer[bad[0]]!r}।",
                         form=True)
    return values, None


def choice_answer(answer, choices, what: str = "উত্তর", fold=None) -> tuple[object, Verdict | None]:
    """কয়েকটি বিকল্পের একটি (সব পাঠ): (বিকল্প, None), বা (None, ফাঁকা/ভুলের Verdict)। fold দিলে লেখা উত্তর ছেঁটে
    (strip) fold দিয়ে বদলে মেলায়, যেমন str.upper: তখন ' c ' মানে 'C'।"""
    if is_blank(answer):
        return None, blank_verdict()
    key = fold(str(answer).strip()) if fold else answer
    if key not in choices:
        names = ", ".join(map(str, choices))
        return None, say(False, f"{what} হবে {names}-এর একটি (one of); পেয়েছি {answer!r}।", form=True)
    return key, None


def function_answer(fn, shape: str) -> Verdict | None:
    """ফাংশন-উত্তর (সব পাঠ): ফাঁকা বা ফাংশন নয় হলে তার Verdict ("একটি ফাংশন চাই (a function) {shape}"), নইলে None।"""
    if is_blank(fn):
        return blank_verdict()
    if not callable(fn):
        return say(False, f"একটি ফাংশন চাই (a function) {shape}; পেয়েছি {fn!r}।", form=True)
    return None


def check_fields(values: dict, truth: dict, hints: dict, right: str, rel_tol: float | dict = 0.0) -> Verdict:
    """dict-উত্তর key ধরে মেলানো (সব পাঠ): যে key-তে values আর truth মেলেনি, "এই উত্তরটি/উত্তরগুলো আবার দেখো:"-এর
    নিচে তার hint (hints-এর ক্রমে); সব মিললে right। rel_tol: সব key-র একটি আপেক্ষিক সহনসীমা, বা key ধরে dict (যে key
    নেই সে হুবহু)।"""
    def same(key) -> bool:
        tol = rel_tol.get(key, 0.0) if isinstance(rel_tol, dict) else rel_tol
        return values[key] == truth[key] or bool(tol and math.isclose(values[key], truth[key], rel_tol=tol))

    wrong = [hint for key, hint in hints.items() if not same(key)]
    if wrong:
        lead = "এই উত্তরটি আবার দেখো:" if len(wrong) == 1 else "এই উত্তরগুলো আবার দেখো:"
        return say(False, "\n   ".join([lead] + wrong))
    return say(True, right)


def check_number(answer, expected: float, what: str, hint: str = "", rel_tol: float = 0.0) -> Verdict:
    """সংখ্যা-উত্তর যাচাই (সব পাঠ): expected-এর সমান (বা rel_tol-এর মধ্যে) হলে ঠিক, নইলে hint।"""
    if is_blank(answer):
        return blank_verdict()
    value = as_number(answer)
    if value is None:
        return say(False, f"{what}: উত্তর একটি সংখ্যা হওয়া চাই (a number), পেয়েছি {answer!r}।", form=True)
    same = (math.isnan(value) and math.isnan(expected)) or value == expected or (
        rel_tol and math.isclose(value, expected, rel_tol=rel_tol))
    if same:
        # উত্তরটা আবার ছাপা হয় না: সমাধানের ঘরের output যেন Run All-এ উত্তর ফাঁস না করে
        return say(True, f"{what}: তোমার উত্তর মিলেছে।")
    return say(False, f"{what}: {answer!r} নয়। {hint}".rstrip())
