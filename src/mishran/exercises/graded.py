"""অনুশীলনীর পরীক্ষার ধারা (graded mode), সব পাঠের অনুশীলনীতে: MISHRAN_GRADED=1 থাকলে check_... ঠিক-ভুল বলে না।

তখন প্রতিটি check উত্তরটা জমা রাখে আর শুধু "জমা হলো (submitted)" দেখায়; নইলে বহুনির্বাচনী প্রশ্নে একে একে সব বিকল্প
চালিয়ে ঠিকটা বের করা যেত। জমা থাকে নোটবুকের output-এ (শিক্ষার্থী save করে ফেরত দিলে তার সঙ্গেই আসে): কোন পাঠের কোন
check, আর তার argument-গুলো JSON-এ। ঠিক না ভুল, তা রেকর্ডে থাকে না। শিক্ষকের দিকে rescore() একই check আবার ডাকে
(tools/student.py --collect), তাই নম্বরের সত্য একটাই: check নিজে। ফাঁকা উত্তর আর উত্তরের আকারের ভুল (সংখ্যা নয়, dict
নয়) তখনও বলা হয়: তাতে উত্তরের কিছু ফাঁস হয় না; সেই উত্তরও জমা থাকে, "invalid" চিহ্ন দিয়ে, যাতে শিক্ষক দেখেন
যে টাইপো ছিল (ভুল উত্তর নয়)।
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import math
import os

__all__ = ["ENV", "MIME", "SUBMITTED", "INVALID", "Unscorable", "active", "submit", "encode", "decode", "rescore"]

ENV = "MISHRAN_GRADED"
"""এই environment variable 1 হলে পরীক্ষার ধারা (0 বা ফাঁকা: সাধারণ ধারা)।"""
MIME = "application/vnd.mishran.answer+json"
"""নোটবুকের output-এ জমার রেকর্ডের MIME type; পাশে text/plain-এ শুধু SUBMITTED, শিক্ষার্থী সেটাই দেখে।"""
SUBMITTED = "জমা হলো (submitted)"
INVALID = "উত্তরের আকার ঠিক নয় (invalid); ঠিক করে ঘরটি আবার চালাও — নইলে শিক্ষক এটাকে অবৈধ উত্তর হিসেবে পাবেন"
"""আকারের ভুলে (টাইপো, সংখ্যার জায়গায় লেখা) পরীক্ষার ধারায় যা দেখায়; রেকর্ডে তখন "invalid": true।"""
MAX_TENSOR = 100_000   # এর বেশি উপাদানের tensor জমা হয় না (নোটবুক ফুলে যেত), শুধু তার বর্ণনা
PACKAGE = "mishran.exercises"


class Unscorable(ValueError):
    """জমা রাখা argument থেকে check আবার ডাকা যায় না (যেমন একটি model): নম্বর হাতে দিতে হবে।"""


def active() -> bool:
    """পরীক্ষার ধারা চালু কি না; প্রতিবার environment দেখে, তাই নোটবুকের মাঝেও চালু করা যায়।"""
    return os.environ.get(ENV, "").strip() not in ("", "0")


def _check_frame():
    """যে check_... নোটবুক ডেকেছে তার frame: mishran.exercises-এর সবচেয়ে বাইরের check_ frame (একটি check
    ভেতরে core-এর check_number ডাকলেও জমা হয় বাইরেরটা)।"""
    frame, found = inspect.currentframe(), None
    while frame is not None:
        if frame.f_code.co_name.startswith("check_") and frame.f_globals.get("__name__", "").startswith(PACKAGE):
            found = frame
        frame = frame.f_back
    return found


def _record(frame) -> dict:
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    args = {name: encode(frame.f_locals[name]) for name in names if name in frame.f_locals}
    return {"module": frame.f_globals["__name__"], "check": code.co_name, "args": args}


def submit(invalid: bool = False) -> None:
    """যে check এখন কথা বলছে তার উত্তর জমা রাখে (core.say পরীক্ষার ধারায় এটা ডাকে)। Jupyter-এ output-এর ভেতরে
    (MIME), অন্য কোথাও রেকর্ডটা JSON-এ ছাপা হয়। invalid: উত্তরের আকারই ভুল (টাইপো), রেকর্ডে সেই চিহ্ন।"""
    import json

    frame = _check_frame()
    record = _record(frame) if frame is not None else {"module": None, "check": None, "args": {}}
    del frame                                     # frame ধরে রাখলে তার সব local বেঁচে থাকে
    if invalid:
        record["invalid"] = True
    shown = INVALID if invalid else SUBMITTED
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display({MIME: record, "text/plain": shown}, raw=True)
    else:
        print(f"{shown}: {json.dumps(record, ensure_ascii=False)}")


def encode(value):
    """একটি উত্তর JSON-এ, যাতে পরে হুবহু ফেরানো যায় (decode): সংখ্যা, লেখা, list; tuple, set, dict, inf/NaN,
    tensor আর ফাংশন (তার source) চিহ্ন দিয়ে; বাকিটা শুধু repr (তখন আবার যাচাই হয় না)।"""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {"$float": repr(value)}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {"$tuple": [encode(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"$set": sorted((encode(v) for v in value), key=repr)}
    if isinstance(value, dict):
        return {"$dict": [[encode(k), encode(v)] for k, v in value.items()]}
    return _encode_object(value)


def _encode_object(value):
    if type(value).__module__ == "torch" and type(value).__name__ in ("Tensor", "Parameter"):
        if value.numel() <= MAX_TENSOR:
            return {"$tensor": value.detach().cpu().tolist(), "dtype": str(value.dtype).removeprefix("torch.")}
    elif inspect.isfunction(value):
        try:
            return {"$source": inspect.getsource(value), "name": value.__name__}
        except (OSError, TypeError):
            pass
    return {"$repr": repr(value)[:300]}


def _namespace() -> dict:
    """ফাংশন-উত্তরের source যে নামগুলো সাধারণত দেখে (পাঠের import-এর মতো): math, torch, F, fp8।"""
    import torch

    from mishran.numerics import fp8

    return {"math": math, "torch": torch, "F": torch.nn.functional, "fp8": fp8}


def decode(value):
    """encode-এর উল্টো; যা আবার বানানো যায় না (repr) তাতে Unscorable।"""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    tag = next(iter(value), None)
    if tag == "$float":
        return float(value["$float"])
    if tag == "$tuple":
        return tuple(decode(v) for v in value["$tuple"])
    if tag == "$set":
        return {decode(v) for v in value["$set"]}
    if tag == "$dict":
        return {decode(k): decode(v) for k, v in value["$dict"]}
    if tag == "$tensor":
        import torch

        return torch.tensor(value["$tensor"], dtype=getattr(torch, value["dtype"]))
    if tag == "$source":
        space = _namespace()
        exec(value["$source"], space)              # শিক্ষার্থীর লেখা ফাংশন: তার নোটবুক চালানোর মতোই
        return space[value["name"]]
    raise Unscorable(f"এই উত্তর আবার বানানো যায় না (cannot be rebuilt): {value.get('$repr', value)}")


def rescore(record: dict, question: dict | None = None) -> tuple[bool | None, str]:
    """জমা রাখা উত্তর একই check দিয়ে যাচাই (শিক্ষকের দিকে, পরীক্ষার ধারা বন্ধ রেখে)। question: প্রশ্নের মান
    (argument-এর নাম → হ্যান্ডআউটের মান), যা জমা রাখা মানের জায়গায় বসে — শিক্ষার্থী প্রশ্ন বদলালেও নম্বর আসে
    হ্যান্ডআউটের প্রশ্নে। ফেরত: (ঠিক কি না, check যা বলল); আবার যাচাই না গেলে (None, কারণ)।"""
    module = str(record.get("module") or "")
    if not module.startswith(PACKAGE + ".") or not str(record.get("check", "")).startswith("check_"):
        return None, f"অচেনা রেকর্ড (unknown record): {record.get('module')}.{record.get('check')}"
    check = getattr(importlib.import_module(module), record["check"])
    saved = os.environ.pop(ENV, None)
    try:
        args = {name: decode(value) for name, value in record.get("args", {}).items()}
        args.update(question or {})
        with contextlib.redirect_stdout(io.StringIO()) as said:
            verdict = check(**args)
        return bool(verdict), said.getvalue().strip()
    except Exception as err:                        # Unscorable, বা শিক্ষার্থীর ফাংশন নিজেই ভেঙে পড়ে
        return None, f"{type(err).__name__}: {err}"
    finally:
        if saved is not None:
            os.environ[ENV] = saved
