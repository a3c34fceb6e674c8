"""command line-এর দরজা: argparse-এর type আর run-এর JSON record লেখা,
কোর্সের সব `python -m mishran...`-এর জন্য একটাই (পাঠ ০৩, ০৫–০৯)।

ভুল flag বা মান দিলে argparse এক লাইনের বার্তা (বাংলা, সঙ্গে ইংরেজি key term) ছাপে আর exit status 2 দেয় —
traceback নয়। উদাহরণ:

    parser.add_argument("--steps", type=cli.positive_int, default=100)
    ...
    cli.write_record(result, args.out)       # dataclass (to_dict) বা dict → JSON ফাইল, আর পর্দায় কোথায় লেখা হলো
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

__all__ = ["positive_int", "non_negative_int", "positive_float", "non_negative_float", "write_record"]


def _number(text: str, kind, positive: bool):
    """text → kind (int বা float), সসীম আর positive হলে > 0, নইলে ≥ 0; না হলে argparse-এর error (exit status 2)।"""
    what = "a whole number" if kind is int else "a number"
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' {what} নয় (not {what})") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' সসীম সংখ্যা নয় (must be finite)")
    if positive and not value > 0:
        need = "ধনাত্মক পূর্ণসংখ্যা দাও (must be a positive integer)" if kind is int else "ধনাত্মক সংখ্যা দাও (must be positive)"
        raise argparse.ArgumentTypeError(f"{value} চলবে না: {need}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} চলবে না: ০ বা তার বেশি দাও (must be >= 0)")
    return value


def positive_int(text: str) -> int:
    """'3' → 3; ০ বা ঋণাত্মক বা পূর্ণসংখ্যা না হলে argparse-এর error (exit status 2)।"""
    return _number(text, int, positive=True)


def non_negative_int(text: str) -> int:
    """'0' → 0; ঋণাত্মক হলে argparse-এর error।"""
    return _number(text, int, positive=False)


def positive_float(text: str) -> float:
    """'3e-4' → 0.0003; ০, ঋণাত্মক, inf বা NaN হলে argparse-এর error।"""
    return _number(text, float, positive=True)


def non_negative_float(text: str) -> float:
    """'0.1' → 0.1; ঋণাত্মক, inf বা NaN হলে argparse-এর error।"""
    return _number(text, float, positive=False)


def write_record(record, out: str | None) -> None:
    """run-এর ফল JSON-এ: out একটি ফাইলের পথ (ফোল্ডার না থাকলে বানায়), '-' হলে পর্দায়, None হলে কিছুই না।

    record: dict, বা to_dict() আছে এমন dataclass। অক্ষর যেমন আছে তেমনই (বাংলা escape হয় না)।
    """
    if out is None:
        return
    data = record.to_dict() if hasattr(record, "to_dict") else record
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    if out == "-":
        print(text)
        return
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n", encoding="utf-8")
    print(f"JSON লেখা হলো (written): {path}")
