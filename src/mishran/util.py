"""ছোট সাধারণ সাহায্যকারী, প্রতিটির একটাই ঘর (সব পাঠ ব্যবহার করে)।

ধনাত্মক পূর্ণসংখ্যার যাচাই, প্যাকেজের সংস্করণ পড়া আর তুলনা (packaging.version দিয়ে), process group-এর জন্য
খালি port (পাঠ ০৪-০৫), আর নিজে থেকে মুছে যাওয়া অস্থায়ী ফোল্ডার (পাঠ ০৩, ০৫-এর checkpoint)।
এই মডিউল torch, deepspeed, matplotlib কিছুই import করে না।
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import numbers
import pathlib
import socket
import tempfile
from collections.abc import Iterator

from packaging.version import InvalidVersion, Version

__all__ = ["positive_int", "package_version", "parse_version", "version_at_least", "free_port", "scratch_dir"]


def positive_int(value, name: str, error: type[Exception] = ValueError) -> int:
    """value একটি ধনাত্মক পূর্ণসংখ্যা (bool নয়) হলে int ফেরত দেয়, নইলে বাংলা + ইংরেজি বার্তায় error (সব পাঠ)।"""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise error(f"{name} হবে ধনাত্মক পূর্ণসংখ্যা ({name} must be a positive integer); পেয়েছি {value!r}")
    return int(value)


def package_version(name: str) -> str | None:
    """ইনস্টল করা প্যাকেজের সংস্করণ (যেমন '0.19.8'); ইনস্টল না থাকলে None (পাঠ ০০-এর device report, পাঠ ০৫)।"""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def parse_version(text: str) -> Version:
    """সংস্করণের লেখা → তুলনা করা যায় এমন Version ('2.11.0+cu130', '3.11.0rc1' চলে) (সব পাঠ)।"""
    try:
        return Version(str(text))
    except InvalidVersion:
        raise ValueError(f"সংস্করণ পড়া গেল না (not a version string): {text!r}") from None


def version_at_least(text: str, minimum: str) -> bool:
    """text-এর সংস্করণ minimum-এর সমান বা নতুন কি না; local অংশ (+cu130) আর pre-release-এর সংখ্যাটুকু ধরে (সব পাঠ)।"""
    return parse_version(text).release >= parse_version(minimum).release


def free_port() -> int:
    """এই যন্ত্রের একটি খালি TCP port, MASTER_PORT-এর জন্য (পাঠ ০৪-এর DDP ডেমো, পাঠ ০৫-এর DeepSpeed)।"""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def scratch_dir(prefix: str = "mishran-") -> Iterator[pathlib.Path]:
    """with-block-এর জন্য একটি অস্থায়ী ফোল্ডার; block শেষ হলে (ভুল হলেও) মুছে যায় (পাঠ ০৩, ০৫-এর checkpoint)।

        with scratch_dir() as folder:
            save_checkpoint(folder / "ckpt.pt", model, optimizer)
    """
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield pathlib.Path(name)
