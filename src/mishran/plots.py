"""বাংলা লেখাসহ matplotlib চিত্র (পাঠ ০০ থেকে সব পাঠে)।

setup_bengali() একবার ডাকলেই হয়: Hind Siliguri ফন্ট (fontpkg-hind-siliguri প্যাকেজ থেকে) যোগ করে, Latin
অক্ষরের জন্য DejaVu Sans রাখে, আর projector-এ পড়ার মতো বড় লেখা ঠিক করে। বাংলা যুক্তাক্ষর ও কার-চিহ্ন
ঠিকভাবে জোড়া লাগাতে (text shaping) matplotlib 3.11 বা নতুন লাগে; 3.10 অক্ষরগুলো ভেঙে দেখায়।
এখানে পাঠ ০০–০২-এর চিত্র; পাঠ ০৩–০৯-এরগুলো mishran.figures-এ, আর এখান থেকেও import করা যায়। প্রতিটি চিত্রের
ইনপুট আঁকার আগেই যাচাই হয় (mishran.figure_inputs.checked), ভুল হলে বাংলা বার্তায়।
"""
from __future__ import annotations

import math
import numbers

import matplotlib
from matplotlib import font_manager

from .figure_inputs import checked
from .figures import (
    LEDGER_COLORS,
    STEP_COLORS,
    STEP_LABELS,
    activation_growth_figure,
    activation_memory_figure,
    bench_figure,
    capstone_curves_figure,
    capstone_scale_figure,
    checkpoint_figure,
    comm_error_figure,
    fp8_scaling_figure,
    fp8_speed_figure,
    ledger_figure,
    loss_curves_figure,
    overfitting_figure,
    pruning_figure,
    scale_resume_figure,
    step_breakdown_figure,
    zero_per_gpu_figure,
)
from .util import finite_float, version_at_least

__all__ = ["setup_bengali", "BENGALI_FONT", "FIELD_COLORS", "MIN_MATPLOTLIB", "EVENT_STYLE", "ZERO_LOG2", "INF_LOG2",
           "STATE_COLORS", "STATE_NAMES", "BAND_STYLE", "LEDGER_COLORS", "STEP_COLORS", "STEP_LABELS",
           # পাঠ ০০–০২
           "bit_layout_bars", "model_state_bars", "bit_fields_figure", "rounding_error_figure", "log2_hist",
           "scale_sweep_figure", "scale_panels_figure", "scale_log2", "draw_timeline", "timeline_figure",
           # পাঠ ০৩–০৫
           "loss_curves_figure", "scale_resume_figure", "bench_figure", "activation_memory_figure",
           "zero_per_gpu_figure",
           # পাঠ ০৬–০৮
           "ledger_figure", "activation_growth_figure", "checkpoint_figure", "pruning_figure", "step_breakdown_figure",
           "fp8_scaling_figure", "fp8_speed_figure", "capstone_curves_figure", "overfitting_figure",
           "capstone_scale_figure",
           # পাঠ ০৯
           "comm_error_figure"]

BENGALI_FONT = "Hind Siliguri"
MIN_MATPLOTLIB = (3, 11)
# বিটের অংশের রং — চিত্র আর widget দুই জায়গাতেই একই (রং-অন্ধ পাঠকের জন্যও আলাদা করা যায় এমন)।
FIELD_COLORS = {"sign": "#d62728", "exponent": "#1f77b4", "mantissa": "#2ca02c"}


def setup_bengali(font_size: float = 13) -> str:
    """matplotlib-কে বাংলার জন্য তৈরি করে; ব্যবহৃত ফন্টের নাম ফেরত দেয়।"""
    font_size = finite_float(font_size, "font_size", minimum=4.0)
    if font_size > 72:
        raise ValueError(f"font_size হবে 4 থেকে 72-এর মধ্যে (font_size must be at most 72); পেয়েছি {font_size:g}")
    if not version_at_least(matplotlib.__version__, ".".join(map(str, MIN_MATPLOTLIB))):
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


# ---------------------------------------------------------------- পাঠ ০০: বিট আর বাইটের চিত্র
STATE_COLORS = {"weights": "#1f77b4", "gradients": "#ff7f0e", "master": "#9467bd", "adam": "#17becf"}
STATE_NAMES = {"weights": "ওজন (weights)", "gradients": "gradient", "master": "FP32 master ওজন",
               "adam": "Adam-এর দুই moment"}


@checked(ax="axes", formats="items?")
def bit_layout_bars(ax, formats=None):
    """পাঠ ০০: প্রতিটি ফরম্যাটে একটি সংখ্যার বিট — চিহ্ন, exponent, mantissa স্তূপ করে; TF32-এর বাকি বিট
    (মেমরিতে FP32 হিসেবে থাকে) ধূসর ডোরায়। ax ফেরত দেয়।"""
    from .formats import FORMATS

    names = list(formats or FORMATS)
    stored = {n: FORMATS["fp32" if n == "tf32" else n].total_bits for n in names}
    x = range(len(names))
    bottom = [0] * len(names)
    parts = [("sign", [1] * len(names), "চিহ্ন (sign)"),
             ("exponent", [FORMATS[n].exponent_bits for n in names], "exponent"),
             ("mantissa", [FORMATS[n].mantissa_bits for n in names], "mantissa")]
    for field, heights, label in parts:
        ax.bar(x, heights, bottom=bottom, color=FIELD_COLORS[field], label=label)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    unused = [stored[n] - FORMATS[n].total_bits for n in names]
    ax.bar(x, unused, bottom=bottom, color="#dddddd", hatch="//", edgecolor="#888888",
           label="অব্যবহৃত (FP32 হিসেবে রাখা)")
    for i, n in enumerate(names):
        used = FORMATS[n].total_bits
        ax.text(i, stored[n] + 0.5, f"{used}+{stored[n] - used}" if stored[n] > used else str(used), ha="center")
    ax.set_xticks(list(x), [FORMATS[n].label.replace(" ", "\n") for n in names])
    ax.set(ylabel="বিট", ylim=(0, 50), title="একটি সংখ্যার বিট-বিন্যাস")
    ax.legend(fontsize=10, loc="upper center", ncol=2)
    return ax


@checked(ax="axes", recipes="mapping")
def model_state_bars(ax, recipes: dict):
    """পাঠ ০০: Adam-সহ প্রশিক্ষণে প্রতি প্যারামিটারে model state-এর বাইট, রেসিপি অনুযায়ী স্তূপ করে।

    recipes: {নাম: {"weights": বাইট, "gradients": বাইট, "master": বাইট, "adam": বাইট}}; ax ফেরত দেয়।"""
    names = list(recipes)
    x = range(len(names))
    bottom = [0.0] * len(names)
    for key, color in STATE_COLORS.items():
        heights = [recipes[n].get(key, 0) for n in names]
        if any(heights):
            ax.bar(x, heights, bottom=bottom, color=color, label=STATE_NAMES[key], width=0.6)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    for i, total in enumerate(bottom):
        ax.text(i, total + 0.4, f"মোট {total:g}", ha="center", fontweight="bold")
    ax.set_xticks(list(x), names)
    ax.set(ylabel="বাইট / প্যারামিটার", ylim=(0, max(bottom) * 1.45),
           title="Adam-সহ প্রশিক্ষণ: model state প্রতি প্যারামিটারে")
    ax.legend(fontsize=10, loc="upper center", ncol=2)
    return ax


# ---------------------------------------------------------------- পাঠ ০১: বিট আর rounding-এর চিত্র
@checked(names="sequence")
def bit_fields_figure(names=("fp32", "tf32", "bf16", "fp16", "fp8_e5m2", "fp8_e4m3")):
    """পাঠ ০১: প্রতিটি ফরম্যাটের বিট এক সারিতে, প্রতিটি বিট একটি রঙিন খোপ; TF32-এর যে ১৩টি বিট matmul ফেলে দেয়
    সেগুলো ধূসর ডোরায়। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    from .formats import FORMATS

    names_bn = {"sign": "চিহ্ন (sign)", "exponent": "exponent → পরিসর", "mantissa": "mantissa → সূক্ষ্মতা"}
    fig, ax = plt.subplots(figsize=(10, 5))
    for r, name in enumerate(names):
        f, y, x = FORMATS[name], len(names) - 1 - r, 0           # ওপর থেকে নিচে
        for field, n in [("sign", 1), ("exponent", f.exponent_bits), ("mantissa", f.mantissa_bits)]:
            for i in range(n):                                   # প্রতিটি বিট একটি রঙিন ঘর
                ax.add_patch(plt.Rectangle((x + i, y), 1, 0.8, facecolor=FIELD_COLORS[field],
                                           edgecolor="white"))
            ax.text(x + n / 2, y + 0.4, str(n), ha="center", va="center", color="white", fontsize=11,
                    fontweight="bold", bbox=dict(facecolor=FIELD_COLORS[field], edgecolor="none", pad=1))
            x += n
        if name == "tf32":                                       # মেমরিতে ৩২ বিট, matmul নিচের ১৩টি ফেলে দেয়
            for i in range(x, 32):
                ax.add_patch(plt.Rectangle((i, y), 1, 0.8, facecolor="#e0e0e0", edgecolor="white", hatch="//"))
            ax.text((x + 32) / 2, y + 0.4, "matmul-এ বাদ পড়ে", ha="center", va="center", fontsize=10)
        ax.text(-0.5, y + 0.4, f.label, ha="right", va="center", fontsize=13)
        ax.text(max(x, 32 if name == "tf32" else x) + 0.5, y + 0.4, f"{f.total_bits} বিট", va="center",
                fontsize=12)
    handles = [plt.Rectangle((0, 0), 1, 1, color=FIELD_COLORS[k]) for k in names_bn]
    ax.legend(handles, names_bn.values(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
    ax.set_xlim(-6.5, 36.5)
    ax.set_ylim(-0.1, len(names))
    ax.axis("off")
    ax.set_title("প্রতিটি ফরম্যাট তার বিটগুলো কীভাবে ভাগ করে")
    fig.tight_layout()
    return fig


@checked(x="tensor", colors="dict?")
def rounding_error_figure(x, colors=None):
    """পাঠ ০১: x-এর প্রতিটি সংখ্যা FP16 আর BF16-এ round করার আপেক্ষিক ত্রুটি (লগ-লগ), দুই ফরম্যাটের তল আর
    max-এর দাগ, আর eps/2-এর অনুভূমিক রেখা। x: float64 tensor। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    from .formats import FORMATS, round_to

    colors = colors or {"bf16": "#ff7f0e", "fp16": "#1f77b4"}   # FP16 পরে আঁকি, যাতে ওপরে থাকে
    fig, ax = plt.subplots(figsize=(10, 5))
    for name, color in colors.items():
        f = FORMATS[name]
        r = round_to(x, name).to(x.dtype)
        rel = ((r - x).abs() / x).nan_to_num(posinf=1.0).clamp(max=1.0)        # inf বা শূন্য → ১০০%
        ax.scatter(x, rel, s=3, color=color, alpha=0.5, label=f"{f.label}: ত্রুটি")
        for lim in (f.min_subnormal, f.max):
            ax.axvline(lim, color=color, ls="--", lw=1.5)
        ax.axhline(f.eps / 2, color=color, ls=":", lw=1)
    f16, bf = FORMATS["fp16"], FORMATS["bf16"]
    for xpos, text, c in [(f16.max * 3, "FP16 max", "fp16"), (bf.max / 1e5, "BF16 max", "bf16"),
                          (f16.min_subnormal / 1e4, "FP16-এর তল", "fp16"),
                          (bf.min_subnormal * 3, "BF16-এর তল", "bf16")]:
        ax.text(xpos, 2e-7, text, color=colors[c], rotation=90, fontsize=10)
    ax.set(xscale="log", yscale="log", ylim=(1e-7, 2), xlabel="সংখ্যার মান",
           ylabel="round করার আপেক্ষিক ত্রুটি", title="FP16: সরু কিন্তু সূক্ষ্ম;  BF16: চওড়া কিন্তু মোটা দাগের")
    ax.set_xticks([10.0 ** k for k in range(-40, 41, 10)])
    ax.legend(loc="lower center", bbox_to_anchor=(0.3, 0.02), markerscale=4, fontsize=11)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- পাঠ ০২: gradient-এর histogram আর scale
BAND_STYLE = {"underflow_to_zero": ("#bdbdbd", "শূন্যে মুছে যায়"), "subnormal": ("#fdd49e", "subnormal"),
              "normal": ("#c7e9c0", "normal"), "overflow": ("#fcbba1", "overflow")}


@checked(ax="axes", title="text", scale="positive", color="color", fmt="format", xlim="range")
def log2_hist(ax, tensors, title, scale=1.0, color="#1f4e79", fmt="fp16", xlim=(-52, 22)):
    """পাঠ ০২: log₂|g|-এর histogram, পেছনে fmt-এর চার এলাকা (শূন্যে round, subnormal, normal, overflow) আর প্রতিটির
    ভাগ; scale দিলে সব মান scale দিয়ে গুণ করা ধরে নেয়। underflow_report ফেরত দেয়।"""
    import numpy as np

    from .scaling import format_regions, log2_magnitudes, underflow_report

    regions = format_regions(fmt)
    for kind, lo, hi in regions.bands():
        ax.axvspan(max(lo, xlim[0]), min(hi, xlim[1]), color=BAND_STYLE[kind][0], lw=0)
    logs = (log2_magnitudes(tensors) + math.log2(scale)).numpy()   # 2^k দিয়ে গুণ = log2-এ k ঘর ডানে
    counts, edges = np.histogram(logs, bins=np.arange(xlim[0], xlim[1] + 1))
    ax.stairs(100 * counts / len(logs), edges, fill=True, color=color)
    rep = underflow_report(tensors, fmt, scale)                     # আসল rounding দিয়ে গোনা
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * 1.3)
    for kind, lo, hi in regions.bands():
        mid = (max(lo, xlim[0]) + min(hi, xlim[1])) / 2
        ax.text(mid, top * 1.17, f"{BAND_STYLE[kind][1]}\n{100 * rep.fraction(kind):.2f}%", ha="center",
                va="center", fontsize=11)
    ax.set_xlim(*xlim)
    ax.set_title(title, fontsize=13)
    ax.set_ylabel("মানের ভাগ (%)")
    return rep


@checked(ks="numbers", sweep="mapping", k_best="log2")
def scale_sweep_figure(ks, sweep: dict, k_best: int):
    """পাঠ ০২: scale 2^k-এর সঙ্গে শূন্যে round, subnormal আর overflow-এর ভাগ, দুই প্যানেলে (sweep["w"], sweep["a"]:
    প্রতিটি k-এর underflow_report); বেছে নেওয়া k সবুজ দাগে। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    styles = {"underflow_to_zero": ("#636363", "-", "শূন্যে মুছে যায়"), "subnormal": ("#e6550d", "--", "subnormal"),
              "overflow": ("#cb181d", ":", "overflow")}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for ax, key, title in [(axes[0], "w", "ওজনের gradient"), (axes[1], "a", "activation gradient (নমুনা)")]:
        for kind, (c, ls, label) in styles.items():
            ax.plot(ks, [100 * r.fraction(kind) for r in sweep[key]], color=c, ls=ls, lw=2.5, marker="o", ms=4,
                    label=label)
        ax.axvline(k_best, color="#2ca02c", lw=2)
        ax.text(k_best - 0.4, 3e-4, f"বেছে নেওয়া: $2^{{{k_best}}}$", color="#2ca02c", ha="right", fontsize=11,
                bbox=dict(facecolor="white", edgecolor="none", pad=1))
        ax.set(yscale="log", ylim=(1e-4, 200), xlabel="k  (loss scale = $2^k$)", title=title)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("মানের ভাগ (%, লগ স্কেলে)")
    axes[1].legend(loc="upper right", fontsize=10)
    fig.suptitle("scale বাড়ালে underflow কমে, একসময় overflow শুরু হয়", fontsize=15)
    fig.tight_layout()
    return fig


@checked(panels="sequence", line_at_log2="log2", title="text")
def scale_panels_figure(panels, line_at_log2: float, title: str):
    """পাঠ ০২: কয়েকটি scale-এর সময়রেখা পাশাপাশি (panels: [(simulate-এর সারি, শিরোনাম)]), বাদ-পড়া ধাপ লাল ×,
    line_at_log2-এ সবুজ দাগ। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, len(panels), figsize=(11, 4.5), squeeze=False)
    axes = axes[0]                                   # একটি প্যানেল হলেও তালিকা
    for ax, (rws, panel_title) in zip(axes, panels, strict=True):
        ax.step([r["step"] for r in rws], [scale_log2(r["scale"]) for r in rws], where="post", color="#1f77b4",
                lw=2)
        bad = [r for r in rws if not r["stepped"]]
        ax.scatter([r["step"] for r in bad], [scale_log2(r["scale"]) for r in bad], color="#d62728", marker="x",
                   s=60, zorder=3, label=f"overflow → ধাপ বাদ ({len(bad)}টি)")
        ax.axhline(line_at_log2, color="#2ca02c", ls=":", lw=1.5)
        ax.set_title(panel_title, fontsize=12)
        ax.set_xlabel("ধাপ (step)")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(lambda v, _: f"$2^{{{v:g}}}$")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=10)
    axes[0].set_ylabel("loss scale")
    fig.suptitle(title, fontsize=15)
    fig.tight_layout()
    return fig


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
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real) or scale < 0 or scale != scale:
        raise ValueError(f"scale হবে 0 বা ধনাত্মক একটি সংখ্যা (a scale >= 0), যেমন 2**16; পেয়েছি {str(scale)[:60]}")
    if scale == 0:
        return ZERO_LOG2
    try:
        value = float(scale)
    except OverflowError:                        # 2**2000-এর মতো পূর্ণসংখ্যা: float-এ inf
        value = math.inf
    return math.log2(value) if math.isfinite(value) else INF_LOG2


@checked(rows="items", ax="axes?", label="text?", color="color", events="bool", ls="text", lw="width")
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


@checked(rows="items", title="text", overflow_above_log2="log2?")
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
