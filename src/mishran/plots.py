"""বাংলা লেখাসহ matplotlib চিত্র (পাঠ ০০ থেকে সব পাঠে)।

setup_bengali() একবার ডাকলেই হয়: Hind Siliguri ফন্ট (fontpkg-hind-siliguri প্যাকেজ থেকে) যোগ করে, Latin
অক্ষরের জন্য DejaVu Sans রাখে, আর projector-এ পড়ার মতো বড় লেখা ঠিক করে। বাংলা যুক্তাক্ষর ও কার-চিহ্ন
ঠিকভাবে জোড়া লাগাতে (text shaping) matplotlib 3.11 বা নতুন লাগে; 3.10 অক্ষরগুলো ভেঙে দেখায়।
"""
from __future__ import annotations

import matplotlib
from matplotlib import font_manager

__all__ = ["setup_bengali", "BENGALI_FONT", "FIELD_COLORS", "MIN_MATPLOTLIB"]

BENGALI_FONT = "Hind Siliguri"
MIN_MATPLOTLIB = (3, 11)
# বিটের অংশের রং — চিত্র আর widget দুই জায়গাতেই একই (রং-অন্ধ পাঠকের জন্যও আলাদা করা যায় এমন)।
FIELD_COLORS = {"sign": "#d62728", "exponent": "#1f77b4", "mantissa": "#2ca02c"}


def _version_tuple(text: str) -> tuple:
    parts = []
    for p in text.split(".")[:2]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def setup_bengali(font_size: float = 13) -> str:
    """matplotlib-কে বাংলার জন্য তৈরি করে; ব্যবহৃত ফন্টের নাম ফেরত দেয়।"""
    if _version_tuple(matplotlib.__version__) < MIN_MATPLOTLIB:
        raise RuntimeError(
            f"matplotlib {matplotlib.__version__} বাংলা যুক্তাক্ষর জোড়া দিতে পারে না (no complex text shaping); "
            "matplotlib>=3.11 লাগবে: pip install -U 'matplotlib>=3.11', তারপর kernel restart করো।")
    try:
        import fontpkg_hind_siliguri
    except ImportError:
        raise RuntimeError("বাংলা ফন্ট প্যাকেজ নেই (font package missing): "
                           "pip install fontpkg-hind-siliguri, তারপর আবার চালাও।") from None
    known = {f.fname for f in font_manager.fontManager.ttflist}
    for path in sorted((fontpkg_hind_siliguri.ROOT / "files").glob("*.ttf")):
        if str(path) not in known:
            font_manager.fontManager.addfont(str(path))
    matplotlib.rcParams.update({
        "font.family": [BENGALI_FONT, "DejaVu Sans"],   # Latin বা চিহ্ন না পেলে DejaVu Sans
        "font.size": font_size,
        "axes.titlesize": font_size + 2,
        "axes.labelsize": font_size,
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "axes.unicode_minus": False,                     # '−' চিহ্নের বদলে '-' — সব ফন্টে আছে
    })
    return BENGALI_FONT
