"""বাংলা লেখাসহ matplotlib চিত্র (পাঠ ০০ থেকে সব পাঠে)।

setup_bengali() একবার ডাকলেই হয়: Hind Siliguri ফন্ট (fontpkg-hind-siliguri প্যাকেজ থেকে) যোগ করে, Latin
অক্ষরের জন্য DejaVu Sans রাখে, আর projector-এ পড়ার মতো বড় লেখা ঠিক করে। বাংলা যুক্তাক্ষর ও কার-চিহ্ন
ঠিকভাবে জোড়া লাগাতে (text shaping) matplotlib 3.11 বা নতুন লাগে; 3.10 অক্ষরগুলো ভেঙে দেখায়।
"""
from __future__ import annotations

import math

import matplotlib
from matplotlib import font_manager

__all__ = ["setup_bengali", "BENGALI_FONT", "FIELD_COLORS", "MIN_MATPLOTLIB", "EVENT_STYLE", "ZERO_LOG2", "INF_LOG2",
           "scale_log2", "draw_timeline", "timeline_figure"]

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


# ---------------------------------------------------------------- পাঠ ০২: loss scale-এর সময়রেখা
EVENT_STYLE = {   # ঘটনা → (রং, চিহ্ন, বাংলা নাম); চিত্র আর widget-এর সারসংক্ষেপ দুই জায়গায় একই
    "backoff": ("#d62728", "v", "overflow: ধাপ বাদ, scale অর্ধেক"),
    "hysteresis": ("#ff7f0e", "o", "overflow: ধাপ বাদ, hysteresis খরচ (scale একই)"),
    "grow": ("#2ca02c", "^", "scale দ্বিগুণ"),
    "error": ("#000000", "X", "DeepSpeed থামে (error): প্রশিক্ষণ শেষ"),
}
ZERO_LOG2 = -152     # scale = 0-কে log₂ অক্ষের কোথায় আঁকি: FP32-এর সবচেয়ে ছোট subnormal 2^-149-এর নিচে


INF_LOG2 = 1030      # scale = inf (DeepSpeed-এর float বাড়তে বাড়তে) আঁকি float64-এর সীমা 2^1024-এর ওপরে


def scale_log2(scale: float) -> float:
    """log₂(scale), কিন্তু scale 0 হলে (FP32 underflow) ZERO_LOG2, inf হলে INF_LOG2 — log-এ এ দুটো আঁকা যায় না
    (পাঠ ০২)।"""
    if scale > 0 and math.isfinite(scale):
        return math.log2(scale)
    return ZERO_LOG2 if scale == 0 else INF_LOG2


def draw_timeline(rows: list[dict], ax=None, label: str | None = None, color: str = "#1f77b4",
                  events: bool = True, ls: str = "-", lw: float = 2):
    """scale-এর সময়রেখা আঁকে (log₂ অক্ষে), overflow/বাড়া/hysteresis চিহ্নসহ; ax ফেরত দেয় (পাঠ ০২)।

    rows আসে mishran.widgets.simulate_timeline বা mishran.scaling.simulate থেকে। scale 0 হলে
    (FP32-এ underflow) রেখা নামে অক্ষের নিচের "0" দাগে।
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4.5))
    steps = [r["step"] for r in rows]
    ys = [scale_log2(r["scale"]) for r in rows]
    ax.step(steps, ys, where="post", color=color, lw=lw, ls=ls, label=label)
    if events:
        for event, (c, marker, name) in EVENT_STYLE.items():
            hit = [r for r in rows if r["event"] == event]
            if hit:
                ax.scatter([r["step"] for r in hit], [scale_log2(r["scale"]) for r in hit], color=c,
                           marker=marker, s=45, zorder=3, label=name)
    if any(r["scale"] == 0 for r in rows):
        ax.axhline(ZERO_LOG2, color="#d62728", ls="--", lw=1, label="scale = 0 (FP32 underflow)")
    ax.set_xlabel("ধাপ (step)")
    ax.set_ylabel("loss scale (log₂)")
    if ZERO_LOG2 in ys:                                          # 0-এর দাগ, আর তার কাছাকাছি কোনো ঘাত নয়
        ticks = MaxNLocator(integer=True, nbins=8).tick_values(ZERO_LOG2, max(ys))
        ax.set_yticks([t for t in ticks if ZERO_LOG2 + 8 < t <= max(ys) + 1] + [ZERO_LOG2])
        ax.set_ylim(ZERO_LOG2 - 6, max(ys) + 6)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))   # কেবল 2-এর পূর্ণ ঘাত
    if INF_LOG2 in ys:
        ax.axhline(INF_LOG2, color="#d62728", ls="--", lw=1, label="scale = inf")
    ax.yaxis.set_major_formatter(
        lambda v, _: "0" if v <= ZERO_LOG2 else ("inf" if v >= INF_LOG2 else f"$2^{{{v:g}}}$"))
    ax.grid(True, alpha=0.3)
    return ax


def timeline_figure(rows: list[dict], title: str, overflow_above_log2: int | None = None):
    """পাঠ ০২-এর simulator-এর চিত্র: সময়রেখা, overflow-সীমার দাগ, আর legend চিত্রের বাইরে ডানে
    (scale নামলেও রেখা ঢাকে না); Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 4))
    draw_timeline(rows, ax)
    if overflow_above_log2 is not None:
        ax.axhline(overflow_above_log2, color="#999999", ls=":", lw=1.5,
                   label=f"এর ওপরে সবসময় overflow (2^{overflow_above_log2})")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=10, borderaxespad=0)
    fig.tight_layout()
    return fig
