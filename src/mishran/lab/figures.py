"""বাংলা লেখাসহ matplotlib চিত্র, পাঠ ধরে সাজানো (পাঠ ০০ থেকে সব পাঠে)।

    setup_bengali()                   # একবার: Hind Siliguri ফন্ট, projector-এ পড়ার মতো বড় লেখা
    rounding_error_figure(x)          # প্রতিটি ফাংশন একটি Figure (বা Axes) ফেরত দেয়

বাংলা যুক্তাক্ষর জোড়া লাগাতে (text shaping) matplotlib 3.11 বা নতুন লাগে। ইনপুট আসে পাঠের নিজের হিসাব থেকে,
তাই এখানে যাচাই নেই: চিত্র তার ডাকনেওয়ালাকে বিশ্বাস করে।
"""
from __future__ import annotations

import math
import sys

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib import font_manager
from matplotlib.ticker import MaxNLocator

from mishran.measure.memory import CATEGORIES
from mishran.numerics.formats import FORMATS, get_format, round_to
from mishran.numerics.scaling import format_regions, log2_magnitudes, underflow_report
from mishran.versions import version_at_least

__all__ = ["setup_bengali", "BENGALI_FONT", "FIELD_COLORS", "EVENT_STYLE", "ZERO_LOG2", "INF_LOG2",
           "bit_layout_bars", "model_state_bars", "bit_fields_figure", "rounding_error_figure", "log2_hist",
           "scale_sweep_figure", "scale_panels_figure", "scale_log2", "draw_timeline", "timeline_figure",
           "loss_curves_figure", "scale_resume_figure", "bench_figure", "activation_memory_figure",
           "zero_per_gpu_figure", "ledger_figure", "activation_growth_figure", "checkpoint_figure", "pruning_figure",
           "step_breakdown_figure", "fp8_scaling_figure", "fp8_speed_figure", "capstone_curves_figure",
           "capstone_precision_figure", "overfitting_figure", "capstone_scale_figure", "comm_error_figure",
           "ring_reduce_scatter_figure", "rank_bytes_figure"]

BENGALI_FONT = "Hind Siliguri"
# বিটের অংশের রং — চিত্র আর widget দুই জায়গাতেই একই (রং-অন্ধ পাঠকের জন্যও আলাদা করা যায় এমন)।
FIELD_COLORS = {"sign": "#d62728", "exponent": "#1f77b4", "mantissa": "#2ca02c"}
_MIB = 2 ** 20


def setup_bengali(font_size: float = 13) -> str:
    """matplotlib-কে বাংলার জন্য তৈরি করে; ব্যবহৃত ফন্টের নাম ফেরত দেয়।"""
    if not version_at_least(matplotlib.__version__, "3.11"):
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
        "font.size": font_size, "axes.titlesize": font_size + 2, "axes.labelsize": font_size,
        "figure.dpi": 100, "savefig.dpi": 150,
        "axes.unicode_minus": False,                     # '−' চিহ্নের বদলে '-' — সব ফন্টে আছে
    })
    return BENGALI_FONT


def _stack(ax, x, layers, **bar_kw) -> list:
    """layers = [(উচ্চতার তালিকা, রং, লেবেল)] একটির ওপর আরেকটি দণ্ডে আঁকে; স্তূপের ওপরের কিনারা ফেরত দেয়।"""
    top = [0.0] * len(x)
    for heights, color, label in layers:
        ax.bar(x, heights, bottom=top, color=color, label=label, **bar_kw)
        top = [t + h for t, h in zip(top, heights, strict=True)]
    return top


# ---------------------------------------------------------------- পাঠ ০০: বিট আর বাইটের চিত্র
_STATE_STYLE = {"weights": ("#1f77b4", "ওজন (weights)"), "gradients": ("#ff7f0e", "gradient"),
                "master": ("#9467bd", "FP32 master ওজন"), "adam": ("#17becf", "Adam-এর দুই moment")}


def bit_layout_bars(ax, formats=None):
    """পাঠ ০০: প্রতিটি ফরম্যাটে একটি সংখ্যার বিট — চিহ্ন, exponent, mantissa স্তূপ করে; TF32-এর বাকি বিট
    (মেমরিতে FP32 হিসেবে থাকে) ধূসর ডোরায়। ax ফেরত দেয়।"""
    names = list(formats or FORMATS)
    fmts = [FORMATS[n] for n in names]
    stored = [FORMATS["fp32" if n == "tf32" else n].total_bits for n in names]
    x = range(len(names))
    top = _stack(ax, x, [([1] * len(names), FIELD_COLORS["sign"], "চিহ্ন (sign)"),
                         ([f.exponent_bits for f in fmts], FIELD_COLORS["exponent"], "exponent"),
                         ([f.mantissa_bits for f in fmts], FIELD_COLORS["mantissa"], "mantissa")])
    ax.bar(x, [s - f.total_bits for s, f in zip(stored, fmts, strict=True)], bottom=top, color="#dddddd",
           hatch="//", edgecolor="#888888", label="অব্যবহৃত (FP32 হিসেবে রাখা)")
    for i, (s, f) in enumerate(zip(stored, fmts, strict=True)):
        ax.text(i, s + 0.5, f"{f.total_bits}+{s - f.total_bits}" if s > f.total_bits else str(s), ha="center")
    ax.set_xticks(x, [f.label.replace(" ", "\n") for f in fmts])
    ax.set(ylabel="বিট", ylim=(0, 50), title="একটি সংখ্যার বিট-বিন্যাস")
    ax.legend(fontsize=10, loc="upper center", ncol=2)
    return ax


def model_state_bars(ax, recipes: dict):
    """পাঠ ০০: Adam-সহ প্রশিক্ষণে প্রতি ওজনে model state-এর বাইট, রেসিপি অনুযায়ী স্তূপ করে।

    recipes: {নাম: {"weights": বাইট, "gradients": বাইট, "master": বাইট, "adam": বাইট}}; ax ফেরত দেয়।"""
    names = list(recipes)
    layers = [([recipes[n].get(key, 0) for n in names], color, label) for key, (color, label) in _STATE_STYLE.items()]
    top = _stack(ax, range(len(names)), [layer for layer in layers if any(layer[0])], width=0.6)
    for i, total in enumerate(top):
        ax.text(i, total + 0.4, f"মোট {total:g}", ha="center", fontweight="bold")
    ax.set_xticks(range(len(names)), names)
    ax.set(ylabel="বাইট / ওজন", ylim=(0, max(top) * 1.45),
           title="Adam-সহ প্রশিক্ষণ: model state প্রতি ওজনে")
    ax.legend(fontsize=10, loc="upper center", ncol=2)
    return ax


# ---------------------------------------------------------------- পাঠ ০১: বিট আর rounding-এর চিত্র
def bit_fields_figure(names=("fp32", "tf32", "bf16", "fp16", "fp8_e5m2", "fp8_e4m3")):
    """পাঠ ০১: প্রতিটি ফরম্যাটের বিট এক সারিতে, প্রতিটি বিট একটি রঙিন খোপ; TF32-এর যে ১৩টি বিট matmul ফেলে দেয়
    সেগুলো ধূসর ডোরায়। Figure ফেরত দেয়।"""
    names_bn = {"sign": "চিহ্ন (sign)", "exponent": "exponent → পরিসর", "mantissa": "mantissa → সূক্ষ্মতা"}
    fig, ax = plt.subplots(figsize=(10, 5), layout="tight")
    for r, name in enumerate(names):
        f, y, x = FORMATS[name], len(names) - 1 - r, 0           # ওপর থেকে নিচে
        for field, n in [("sign", 1), ("exponent", f.exponent_bits), ("mantissa", f.mantissa_bits)]:
            for i in range(n):                                   # প্রতিটি বিট একটি রঙিন চৌকো
                ax.add_patch(plt.Rectangle((x + i, y), 1, 0.8, facecolor=FIELD_COLORS[field], edgecolor="white"))
            ax.text(x + n / 2, y + 0.4, str(n), ha="center", va="center", color="white", fontsize=11,
                    fontweight="bold", bbox=dict(facecolor=FIELD_COLORS[field], edgecolor="none", pad=1))
            x += n
        if name == "tf32":                                       # মেমরিতে ৩২ বিট, matmul নিচের ১৩টি ফেলে দেয়
            for i in range(x, 32):
                ax.add_patch(plt.Rectangle((i, y), 1, 0.8, facecolor="#e0e0e0", edgecolor="white", hatch="//"))
            ax.text((x + 32) / 2, y + 0.4, "matmul-এ বাদ পড়ে", ha="center", va="center", fontsize=10)
        ax.text(-0.5, y + 0.4, f.label, ha="right", va="center", fontsize=13)
        ax.text((32 if name == "tf32" else x) + 0.5, y + 0.4, f"{f.total_bits} বিট", va="center", fontsize=12)
    handles = [plt.Rectangle((0, 0), 1, 1, color=FIELD_COLORS[k]) for k in names_bn]
    ax.legend(handles, names_bn.values(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
    ax.set(xlim=(-6.5, 36.5), ylim=(-0.1, len(names)), title="প্রতিটি ফরম্যাট তার বিটগুলো কীভাবে ভাগ করে")
    ax.axis("off")
    return fig


def rounding_error_figure(x, colors=None):
    """পাঠ ০১: x-এর প্রতিটি সংখ্যা FP16 আর BF16-এ round করার আপেক্ষিক ত্রুটি (লগ-লগ), দুই ফরম্যাটের তল আর
    max-এর দাগ, আর eps/2-এর অনুভূমিক রেখা। x: float64 tensor। Figure ফেরত দেয়।"""
    colors = colors or {"bf16": "#ff7f0e", "fp16": "#1f77b4"}   # FP16 পরে আঁকি, যাতে ওপরে থাকে
    fig, ax = plt.subplots(figsize=(10, 5), layout="tight")
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
    return fig


# ---------------------------------------------------------------- পাঠ ০২: gradient-এর histogram, loss scale
_BAND_STYLE = {"underflow_to_zero": ("#bdbdbd", "শূন্যে মুছে যায়"), "subnormal": ("#fdd49e", "subnormal"),
               "normal": ("#c7e9c0", "normal"), "overflow": ("#fcbba1", "overflow")}


def log2_hist(ax, tensors, title, scale=1.0, color="#1f4e79", fmt="fp16", xlim=(-52, 22)):
    """পাঠ ০২: log₂|g|-এর histogram, পেছনে fmt-এর চার এলাকা (শূন্যে round, subnormal, normal, overflow) আর প্রতিটির
    ভাগ; scale দিলে সব মান scale দিয়ে গুণ করা ধরে নেয়। underflow_report ফেরত দেয়।"""
    bands = [(kind, max(lo, xlim[0]), min(hi, xlim[1])) for kind, lo, hi in format_regions(fmt).bands()]
    for kind, lo, hi in bands:
        ax.axvspan(lo, hi, color=_BAND_STYLE[kind][0], lw=0)
    logs = (log2_magnitudes(tensors) + math.log2(scale)).numpy()   # 2^k দিয়ে গুণ = log2-এ k খোপ ডানে
    counts, edges = np.histogram(logs, bins=np.arange(xlim[0], xlim[1] + 1))
    ax.stairs(100 * counts / len(logs), edges, fill=True, color=color)
    rep = underflow_report(tensors, fmt, scale)                     # আসল rounding দিয়ে গোনা
    top = ax.get_ylim()[1]
    ax.set_ylim(0, top * 1.3)
    for kind, lo, hi in bands:
        ax.text((lo + hi) / 2, top * 1.17, f"{_BAND_STYLE[kind][1]}\n{100 * rep.fraction(kind):.2f}%", ha="center",
                va="center", fontsize=11)
    ax.set(xlim=xlim, ylabel="মানের ভাগ (%)")
    ax.set_title(title, fontsize=13)
    return rep


def scale_sweep_figure(ks, sweep: dict, k_best: int):
    """পাঠ ০২: scale 2^k-এর সঙ্গে শূন্যে round, subnormal আর overflow-এর ভাগ, দুই প্যানেলে (sweep["w"], sweep["a"]:
    প্রতিটি k-এর underflow_report); বেছে নেওয়া k সবুজ দাগে। Figure ফেরত দেয়।"""
    styles = {"underflow_to_zero": ("#636363", "-", "শূন্যে মুছে যায়"), "subnormal": ("#e6550d", "--", "subnormal"),
              "overflow": ("#cb181d", ":", "overflow")}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True, layout="tight")
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
    return fig


def scale_panels_figure(panels, line_at_log2: float, title: str):
    """পাঠ ০২: কয়েকটি scale-এর সময়রেখা পাশাপাশি (panels: [(simulate-এর সারি, শিরোনাম)]), বাদ-পড়া ধাপ লাল ×,
    line_at_log2-এ সবুজ দাগ। Figure ফেরত দেয়।"""
    fig, axes = plt.subplots(1, len(panels), figsize=(11, 4.5), squeeze=False, layout="tight")
    for ax, (rws, panel_title) in zip(axes[0], panels, strict=True):   # squeeze=False: একটি প্যানেলেও সারি
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
    axes[0, 0].set_ylabel("loss scale")
    fig.suptitle(title, fontsize=15)
    return fig


EVENT_STYLE = {   # ঘটনা → (রং, চিহ্ন, বাংলা নাম); চিত্র আর widget-এর সারসংক্ষেপ দুই জায়গায় একই
    "backoff": ("#d62728", "v", "overflow: ধাপ বাদ, scale অর্ধেক"),
    "hysteresis": ("#ff7f0e", "o", "overflow: ধাপ বাদ, hysteresis খরচ (scale একই)"),
    "grow": ("#2ca02c", "^", "scale দ্বিগুণ"),
    "error": ("#000000", "X", "DeepSpeed থামে (error): প্রশিক্ষণ শেষ"),
}
ZERO_LOG2 = -152     # scale = 0-কে log₂ অক্ষের কোথায় আঁকি: FP32-এর সবচেয়ে ছোট subnormal 2^-149-এর নিচে


INF_LOG2 = 1030      # scale = inf (DeepSpeed-এর float বাড়তে বাড়তে) আঁকি float64-এর সীমা 2^1024-এর ওপরে


def scale_log2(scale: float) -> float:
    """log₂(scale); log-এ আঁকা যায় না বলে scale 0 হলে ZERO_LOG2, inf হলে INF_LOG2 (পাঠ ০২)।"""
    if scale == 0:
        return ZERO_LOG2
    return math.log2(scale) if scale <= sys.float_info.max else INF_LOG2   # inf, বা float-এ না আঁটা পূর্ণসংখ্যা


def draw_timeline(rows: list[dict], ax=None, label: str | None = None, color: str = "#1f77b4",
                  events: bool = True, ls: str = "-", lw: float = 2):
    """simulate()-এর সারি থেকে scale-এর সময়রেখা (log₂ অক্ষে), overflow/বাড়া/hysteresis চিহ্নসহ; scale 0 (FP32
    underflow) আর inf আলাদা দাগে। ax ফেরত দেয় (পাঠ ০২)।"""
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4.5))
    ys = [scale_log2(r["scale"]) for r in rows]
    ax.step([r["step"] for r in rows], ys, where="post", color=color, lw=lw, ls=ls, label=label)
    if events:
        for event, (c, marker, name) in EVENT_STYLE.items():
            hit = [r for r in rows if r["event"] == event]
            if hit:
                ax.scatter([r["step"] for r in hit], [scale_log2(r["scale"]) for r in hit], color=c,
                           marker=marker, s=45, zorder=3, label=name)
    ax.set(xlabel="ধাপ (step)", ylabel="loss scale (log₂)")
    if ZERO_LOG2 in ys:                                          # 0-এর দাগ, আর তার কাছাকাছি কোনো ঘাত নয়
        ax.axhline(ZERO_LOG2, color="#d62728", ls="--", lw=1, label="scale = 0 (FP32 underflow)")
        ticks = MaxNLocator(integer=True, nbins=8).tick_values(ZERO_LOG2, max(ys))
        ax.set_yticks([t for t in ticks if ZERO_LOG2 + 8 < t <= max(ys) + 1] + [ZERO_LOG2])
        ax.set_ylim(ZERO_LOG2 - 6, max(ys) + 6)
    else:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))   # কেবল 2-এর পূর্ণ ঘাত
    if INF_LOG2 in ys:
        ax.axhline(INF_LOG2, color="#d62728", ls="--", lw=1, label="scale = inf")
    ax.yaxis.set_major_formatter(lambda v, _: "0" if v <= ZERO_LOG2 else ("inf" if v >= INF_LOG2 else f"$2^{{{v:g}}}$"))
    ax.grid(True, alpha=0.3)
    return ax


def timeline_figure(rows: list[dict], title: str, overflow_above_log2: int | None = None):
    """পাঠ ০২-এর simulator-এর চিত্র: সময়রেখা, overflow-সীমার দাগ, আর legend চিত্রের বাইরে ডানে
    (scale নামলেও রেখা ঢাকে না); Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(11, 4), layout="tight")
    draw_timeline(rows, ax)
    if overflow_above_log2 is not None:
        ax.axhline(overflow_above_log2, color="#999999", ls=":", lw=1.5,
                   label=f"এর ওপরে সবসময় overflow (2^{overflow_above_log2})")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=10, borderaxespad=0)
    return fig


# ---------------------------------------------------------------- পাঠ ০৩–০৫: প্রশিক্ষণ, গতি, ZeRO

def loss_curves_figure(losses: dict, device: str, styles: dict | None = None):
    """পাঠ ০৩: একই মডেলের FP32/FP16/BF16 loss (বাঁয়ে) আর FP32-এর থেকে পার্থক্য (ডানে); Figure ফেরত দেয়।"""
    styles = styles or {"fp32": ("#444444", 3.0, "FP32"), "fp16": ("#1f77b4", 1.6, "FP16 + GradScaler"),
                        "bf16": ("#ff7f0e", 1.6, "BF16 (scaler ছাড়া)")}
    fig, (ax, ax_diff) = plt.subplots(1, 2, figsize=(12, 4.5), layout="tight")
    for name, values in losses.items():
        color, lw, label = styles[name]
        ax.plot(values, color=color, lw=lw, label=label, alpha=0.9)
        if name != "fp32" and "fp32" in losses:
            diff = [a - b for a, b in zip(values, losses["fp32"], strict=True)]
            ax_diff.plot(diff, color=color, lw=lw, label=f"{label} − FP32")
    ax.set(xlabel="ধাপ (step)", ylabel="প্রশিক্ষণের loss", title=f"একই মডেল, একই ডেটা ({device})")
    ax_diff.axhline(0, color="#444444", lw=1)
    ax_diff.set(xlabel="ধাপ (step)", ylabel="loss-এর পার্থক্য", title="FP32-এর থেকে কতটা সরে")
    ax.legend()
    if ax_diff.get_legend_handles_labels()[0]:
        ax_diff.legend(fontsize=11)
    else:                                   # শুধু FP32 চলেছে (যেমন এই যন্ত্রে আর কোনো precision নেই)
        ax_diff.text(0.5, 0.5, "তুলনার জন্য FP32 আর অন্য\nএকটি precision দুটোই চাই", ha="center", va="center",
                     transform=ax_diff.transAxes, color="#666666")
    for a in (ax, ax_diff):
        a.grid(alpha=0.3)
    return fig


def scale_resume_figure(straight, resumed, forgot, checkpoint_step: int):
    """পাঠ ০৩: একটানা, scaler-সহ resume আর scaler ভুলে resume — তিনটি TrainLog-এর loss scale; Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(9, 4.5), layout="tight")
    ax.plot(straight.steps, straight.scales, color="#444444", lw=3, label="একটানা")
    ax.plot(resumed.steps, resumed.scales, color="#2ca02c", lw=1.8, ls="--", label="resume, scaler-সহ")
    ax.plot(forgot.steps, forgot.scales, color="#d62728", lw=1.8, label="resume, scaler ভুলে")
    ax.scatter(forgot.skipped, [forgot.scales[s - forgot.steps[0]] for s in forgot.skipped], color="#d62728", s=30,
               zorder=3, label="বাদ-পড়া ধাপ (scaler ভুলে)")
    ax.axvline(checkpoint_step - 0.5, color="#999999", ls=":", lw=1.5)
    ax.text(checkpoint_step - 0.8, 2 ** 15, "checkpoint", fontsize=11, color="#666666", ha="right")
    ax.set_yscale("log", base=2)
    ax.set(xlabel="ধাপ (step)", ylabel="loss scale (লগ স্কেল)",
           title="scaler না রাখলে resume-এর পর scale আবার নিচে নামার পথ খোঁজে")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=11)
    return fig


def bench_figure(result: dict):
    """পাঠ ০৩: mishran.measure.bench.run()-এর ফল — প্রতি mode-এ এক ধাপের সময় (আর GPU-তে সর্বোচ্চ মেমরি); Figure ফেরত দেয়।"""
    rows = result["results"]
    names = [r["mode"].upper() for r in rows]
    palette = {"FP32": "#444444", "TF32": "#9467bd", "FP16": "#1f77b4", "BF16": "#ff7f0e"}
    colors = [palette.get(n, "#2ca02c") for n in names]
    has_memory = all(r["peak_memory_bytes"] is not None for r in rows)
    fig, axes = plt.subplots(1, 2 if has_memory else 1, figsize=(11 if has_memory else 7.5, 4.2), squeeze=False,
                             layout="tight")
    ax = axes[0, 0]
    bars = ax.bar(names, [1000 * r["step_s"] for r in rows], color=colors)
    ax.bar_label(bars, labels=[f"{r['speedup_vs_fp32']:.2f}×" for r in rows], padding=2, fontsize=12)
    ax.set(ylabel="এক ধাপের সময় (ms)", title=f"এক training ধাপ (কম = দ্রুত)\n{result['device']['name']}")
    ax.margins(y=0.12)
    if has_memory:
        axes[0, 1].bar(names, [r["peak_memory_bytes"] / 2 ** 30 for r in rows], color=colors)
        axes[0, 1].set(ylabel="সর্বোচ্চ মেমরি (GiB)", title="সর্বোচ্চ মেমরি (কম = ভালো)")
    return fig


def activation_memory_figure(sizes, saved_bytes, fixed_bytes, device: str, peak_bytes=None):
    """পাঠ ০৪: micro-batch-এর মাপ বনাম activation-এর বাইট (আর GPU-তে CUDA peak), পাশে স্থির ভাগ; Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(9, 4.5), layout="tight")
    ax.plot(sizes, [b / _MIB for b in saved_bytes], "o-", lw=2, label="activation (saved_tensors_hooks দিয়ে গোনা)")
    if peak_bytes:
        ax.plot(sizes, [b / _MIB for b in peak_bytes], "s--", lw=2, label="CUDA peak (max_memory_allocated)")
    ax.axhline(fixed_bytes / _MIB, color="gray", ls=":", lw=2, label="ওজন + gradient + optimizer-এর অবস্থা (স্থির)")
    ax.set(xlabel="micro-batch-এর (micro-batch) মাপ: কয়টি উদাহরণ", ylabel="মেমরি (MiB)",
           title=f"activation ব্যাচের সঙ্গে বাড়ে, বাকিটা স্থির — TinyGPT, {device}")
    ax.legend(loc="upper left", fontsize=11)
    ax.grid(alpha=0.3)
    return fig


def zero_per_gpu_figure(bytes_per_weight: dict, gpus, measured_per_weight: float):
    """পাঠ ০৫: ZeRO stage আর GPU-র সংখ্যায় ওজনপ্রতি বাইট; bytes_per_weight = {stage: [N-প্রতি মান]}; Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(9, 4.8), layout="tight")
    width = 0.2
    colors = ["#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c"]
    for s, values in bytes_per_weight.items():
        xs = [i + (s - 1.5) * width for i in range(len(gpus))]
        bars = ax.bar(xs, values, width, color=colors[s], label=f"stage {s}" + (" (ভাগ নেই)" if s == 0 else ""))
        ax.bar_label(bars, fmt="{:.3g}", fontsize=8, padding=1)
    # তীরচিহ্ন N = 1-এর stage ০ দণ্ডের পাশ থেকে আসে, কোনো দণ্ডের লেখা ঢাকে না
    ax.annotate(f"এখানে মাপা: {measured_per_weight:.3g}\n(+ gradient 2Ψ)", xy=(-1.5 * width - width / 2, 14),
                xytext=(-0.62, 19.3), fontsize=9, ha="left", arrowprops={"arrowstyle": "->"})
    ax.set_xticks(range(len(gpus)), [f"N = {n}" for n in gpus])
    ax.set(xlim=(-0.7, len(gpus) - 0.4), xlabel="GPU-র সংখ্যা", ylabel="প্রতি GPU-তে বাইট, প্রতি ওজনে", ylim=(0, 22),
           title="ZeRO: প্রতি GPU-তে model state, ওজনপ্রতি বাইটে (যেকোনো Ψ-এ একই)")
    ax.legend(fontsize=9, ncol=4, loc="upper right")
    ax.grid(True, axis="y", alpha=0.3)
    return fig


# ---------------------------------------------------------------- পাঠ ০৬: মেমরি কোথায় যায়; পাঠ ০৭: গতি আর FP8

_LEDGER_COLORS = {"parameters": "#1f77b4", "gradients": "#ff7f0e", "master_weights": "#9467bd",
                  "optimizer_state": "#2ca02c", "activations": "#d62728", "cast_cache": "#8c564b"}


def ledger_figure(ledgers, title: str):
    """পাঠ ০৬: কয়েকটি mode-এর মেমরির খাতা (Ledger-এর তালিকা), খাত ধরে স্তূপ করা দণ্ড (MiB); CUDA-তে মাপা সর্বোচ্চ
    মেমরি কালো দাগে। Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(11, 5), layout="tight")
    # "ds\nbf16\nZeRO-2": কয়েক লাইনে, যাতে পাশাপাশি দণ্ডের নাম গায়ে গায়ে না লাগে
    labels = [led.label.replace(" ", "\n").replace("_", "\n") for led in ledgers]
    _stack(ax, labels, [([getattr(led, key) / _MIB for led in ledgers], _LEDGER_COLORS[key], name)
                        for key, name in CATEGORIES.items()])
    for i, led in enumerate(ledgers):
        if led.peak_allocated:
            ax.hlines(led.peak_allocated / _MIB, i - 0.4, i + 0.4, colors="black", lw=2.5,
                      label="allocator-এর মাপা সর্বোচ্চ" if i == 0 else None)
    ax.set(ylabel="মেমরি (MiB)", title=title)
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def activation_growth_figure(batch_sizes, batch_bytes, seq_lens, seq_bytes, model_state_bytes, device: str):
    """পাঠ ০৬: activation-এর বাইট ব্যাচের মাপ আর sequence-এর দৈর্ঘ্যের সঙ্গে; model state স্থির দাগ। Figure ফেরত দেয়।"""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True, layout="tight")
    panels = [(axes[0], batch_sizes, batch_bytes, "ব্যাচের মাপ B (T স্থির)"),
              (axes[1], seq_lens, seq_bytes, "sequence-এর দৈর্ঘ্য T (B স্থির)")]
    for ax, xs, ys, xlabel in panels:
        ax.plot(xs, [y / _MIB for y in ys], "o-", lw=2, color=_LEDGER_COLORS["activations"], label="activation")
        ax.axhline(model_state_bytes / _MIB, color="gray", ls=":", lw=2, label="model state (স্থির)")
        ax.set(xlabel=xlabel)
        ax.grid(alpha=0.3)
    axes[0].set(ylabel="মেমরি (MiB)")
    axes[0].legend(fontsize=10, loc="upper left")
    fig.suptitle(f"activation বাড়ে B × T-এর সঙ্গে, model state বাড়ে না — {device}")
    return fig


def checkpoint_figure(seq_lens, plain_bytes, ckpt_bytes, device: str, ylabel: str = "activation (MiB)"):
    """পাঠ ০৬: sequence-এর দৈর্ঘ্য বনাম মেমরি, activation checkpointing ছাড়া ও সহ। Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(8.5, 4.2), layout="tight")
    ax.plot(seq_lens, [b / _MIB for b in plain_bytes], "o-", lw=2, color="#d62728", label="checkpointing ছাড়া")
    ax.plot(seq_lens, [b / _MIB for b in ckpt_bytes], "s-", lw=2, color="#2ca02c", label="checkpointing সহ")
    ax.set(xlabel="sequence-এর দৈর্ঘ্য T", ylabel=ylabel,
           title=f"activation checkpointing: backward-এর জন্য রাখা মেমরি — {device}")
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    return fig


def pruning_figure(sparsities, losses, baseline_loss: float, semi_structured_loss: float | None = None):
    """পাঠ ০৬: pruning-এর মাত্রা (শূন্যের ভাগ) বনাম held-out loss; pruning-হীন loss দাগে। Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(8.5, 4.2), layout="tight")
    ax.plot([100 * s for s in sparsities], losses, "o-", lw=2, color="#1f77b4", label="unstructured (magnitude)")
    ax.axhline(baseline_loss, color="gray", ls=":", lw=2, label="pruning ছাড়া")
    if semi_structured_loss is not None:
        ax.plot([50], [semi_structured_loss], "D", ms=9, color="#ff7f0e", label="2:4 নকশা (৫০%)")
    ax.set(xlabel="Linear ওজনের কত শতাংশ শূন্য", ylabel="held-out loss",
           title="pruning: কতটা শূন্য করলে মডেল কতটা খারাপ হয়")
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    return fig


_STEP_STYLE = {"matmul": ("#1f77b4", "matmul (tensor core)"), "attention": ("#9467bd", "attention"),
               "optimizer": ("#d62728", "optimizer (AdamW)"), "other": ("#ff7f0e", "বাকি: elementwise, norm, cast")}


def step_breakdown_figure(profiles, title: str):
    """পাঠ ০৭: প্রতিটি mode-এ এক ধাপের সময় ভাগে ভাগে (profiler.profile_step-এর ফল), আড়াআড়ি স্তূপ। Figure ফেরত দেয়।"""
    fig, ax = plt.subplots(figsize=(10, 0.8 * len(profiles) + 1.8))
    names = [p["mode"].upper() for p in profiles]
    for i, p in enumerate(profiles):
        left = 0.0
        for cat, (color, label) in _STEP_STYLE.items():
            ms = 1000 * p["by_category"][cat]
            ax.barh(i, ms, left=left, color=color, label=label if i == 0 else None)
            left += ms
        ax.text(left, i, f"  {left:.1f} ms", va="center", fontsize=11)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.margins(x=0.15)
    ax.set(xlabel=f"এক ধাপে সময় (ms) — {profiles[0]['counted']}", title=title)
    ax.grid(True, axis="x", alpha=0.3)
    fig.legend(fontsize=10, loc="lower center", ncol=4)
    fig.tight_layout(rect=(0, 0.1 + 0.1 / len(profiles), 1, 1))
    return fig


def fp8_scaling_figure(values, scale: float, fmt: str = "fp8_e4m3", title: str = ""):
    """পাঠ ০৭: |x|-এর log2 বিন্যাস, scale-এর আগে আর পরে, FP8-এর normal ও subnormal এলাকা ছায়া দিয়ে। Figure ফেরত দেয়।"""
    f = get_format(fmt)
    x = torch.as_tensor(values).double().abs().flatten()
    x = x[x > 0]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True, layout="tight")
    low, normal, high = (math.log2(v) for v in (f.min_subnormal, f.min_normal, f.max))
    for ax, data, name in [(axes[0], x, "scale-এর আগে"), (axes[1], x * scale, f"× scale ({scale:.3g})-এর পরে")]:
        ax.axvspan(low, normal, color="#ffd27f", alpha=0.5, label="subnormal (কম সূক্ষ্ম)")
        ax.axvspan(normal, high, color="#a6d8a6", alpha=0.5, label=f"{f.label}-এর normal")
        ax.hist(torch.log2(data).numpy(), bins=60, color="#1f77b4")
        ax.axvline(high, color="#d62728", lw=2, ls="--", label=f"max = {f.max:g}")
        ax.set(xlabel="log2 |x|", title=name)
        ax.grid(alpha=0.3)
    axes[0].set(ylabel="কতগুলো সংখ্যা")
    axes[1].legend(fontsize=9, loc="upper left")
    fig.suptitle(title or f"per-tensor scaling: সংখ্যাগুলোকে {f.label}-এর পরিসরে সরানো")
    return fig


def fp8_speed_figure(widths: dict, title: str):
    """পাঠ ০৭: প্রতিটি d_model-এ compiled BF16-এর তুলনায় FP8-এর গতি (×); widths = {d: {mode: step_s}}। Figure ফেরত দেয়।"""
    colors = {"bf16-compile": "#ff7f0e", "fp8-tensorwise": "#2ca02c", "fp8-rowwise": "#17becf"}
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    for j, (mode, color) in enumerate(colors.items()):
        shown = [(i, s["bf16-compile"] / s[mode]) for i, s in enumerate(widths.values())
                 if mode in s and "bf16-compile" in s]
        ys = [y for _, y in shown]
        bars = ax.bar([i + (j - 1) * 0.27 for i, _ in shown], ys, width=0.25, color=color, label=mode)
        for bar, y in zip(bars, ys, strict=True):
            ax.text(bar.get_x() + bar.get_width() / 2, y, f"{y:.2f}×", ha="center", va="bottom", fontsize=10)
    ax.axhline(1.0, color="gray", lw=1)
    ax.set_xticks(range(len(widths)), [f"d_model {d}" for d in widths])
    ax.set(ylabel="compiled BF16-এর তুলনায় গতি (×)", title=title)
    ax.margins(y=0.15)
    ax.grid(True, axis="y", alpha=0.3)
    fig.legend(fontsize=10, loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


# ---------------------------------------------------------------- পাঠ ০৮: capstone-এর চিত্র

def capstone_curves_figure(curves: dict, bigram_bpc: float, title: str):
    """পাঠ ০৮: held-out bits per character বনাম step, কয়েকটি run আর bigram-এর রেখা; curves = {নাম: [{step, bpc}]}।"""
    palette = ["#444444", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd"]
    fig, ax = plt.subplots(figsize=(9, 4.6), layout="tight")
    for (name, points), color in zip(curves.items(), palette[:len(curves)], strict=True):
        ax.plot([p["step"] for p in points], [p["bpc"] for p in points], marker="o", ms=4, lw=2,
                color=color, label=name)
    ax.axhline(bigram_bpc, color="#d62728", ls="--", lw=1.5, label=f"bigram ({bigram_bpc:.2f})")
    ax.set(xlabel="ধাপ (step)", ylabel="held-out bits per character", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=11)
    return fig


def capstone_precision_figure(curves: dict, bigram_bpc: float, title: str):
    """পাঠ ০৮: দুই precision-এর held-out bpc বনাম ধাপ (বাঁয়ে, bigram-সহ) আর তাদের পার্থক্য (ডানে, দ্বিতীয় − প্রথম, যে
    ধাপে দুটোই মাপা); curves = {নাম: [{step, bpc}]}, ঠিক দুটি। পাঠ ০৩-এর চিত্রের মতো পার্থক্যের আলাদা প্যানেল।"""
    (first, a), (second, b) = curves.items()
    fig, (ax, ax_diff) = plt.subplots(1, 2, figsize=(12, 4.6), layout="tight", width_ratios=(3, 2))
    for (name, points), color in ((first, a), "#444444"), ((second, b), "#ff7f0e"):
        ax.plot([p["step"] for p in points], [p["bpc"] for p in points], marker="o", ms=4, lw=2, color=color,
                label=name)
    ax.axhline(bigram_bpc, color="#d62728", ls="--", lw=1.5, label=f"bigram ({bigram_bpc:.2f})")
    ax.set(xlabel="ধাপ (step)", ylabel="held-out bits per character", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=11)
    other = {p["step"]: p["bpc"] for p in b}
    pairs = [(p["step"], other[p["step"]] - p["bpc"]) for p in a if p["step"] in other]
    ax_diff.axhline(0, color="#444444", lw=1)
    ax_diff.plot([st for st, _ in pairs], [d for _, d in pairs], marker="o", ms=4, lw=2, color="#ff7f0e")
    ax_diff.set(xlabel="ধাপ (step)", ylabel=f"{second} − {first} (bpc)", title=f"{first}-এর থেকে কতটা সরে")
    ax_diff.grid(alpha=0.3)
    return fig


def overfitting_figure(runs: dict, title: str):
    """পাঠ ০৮: একই মডেল কয়েকটি সংকলনে — train (ভাঙা রেখা) আর held-out (টানা রেখা) bpc বনাম step, সেরা
    held-out-এ তারা; runs = {নাম: [{step, bpc, train_bpc}]}। দুই রেখার ফাঁক বাড়া আর held-out-এর উঠে যাওয়া = overfitting।"""
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"]
    fig, ax = plt.subplots(figsize=(9, 4.8), layout="tight")
    for i, ((name, points), color) in enumerate(zip(runs.items(), palette, strict=False)):
        steps = [p["step"] for p in points]
        held = [p["bpc"] for p in points]
        ax.plot(steps, [p["train_bpc"] for p in points], ls="--", lw=1.8, color=color, label=f"{name}: train")
        ax.plot(steps, held, marker="o", ms=4, lw=2.2, color=color, label=f"{name}: held-out")
        best = min(range(len(held)), key=held.__getitem__)
        ax.plot(steps[best], held[best], marker="*", ms=16, color=color, markeredgecolor="black", zorder=3)
        ax.annotate(f"সেরা: step {steps[best]}, {held[best]:.2f}", (steps[best], held[best]),
                    textcoords="offset points", xytext=(0, 14 if i % 2 == 0 else -24), ha="center", fontsize=10,
                    color=color)
    ax.set(xlabel="ধাপ (step)", ylabel="bits per character", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=10, ncol=2)
    return fig


def capstone_scale_figure(scales, skipped, start_step: int = 0, title: str = ""):
    """পাঠ ০৮: FP16 run-এর loss scale প্রতি step-এ (লগ স্কেল), বাদ-পড়া ধাপ লাল বিন্দুতে; Figure ফেরত দেয়।"""
    steps = range(start_step, start_step + len(scales))
    fig, ax = plt.subplots(figsize=(9, 3.8), layout="tight")
    ax.step(steps, scales, where="post", color="#1f77b4", lw=2, label="loss scale")
    ax.scatter(skipped, [scales[s - start_step] for s in skipped], color="#d62728", s=40, zorder=3,
               label="বাদ-পড়া ধাপ (overflow)")
    ax.set_yscale("log", base=2)
    ax.set(xlabel="ধাপ (step)", ylabel="loss scale (লগ স্কেল)", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=11)
    return fig


# ---------------------------------------------------------------- পাঠ ০৯: যোগাযোগের precision

# communication.SCHEMES-এর প্রতিটি scheme-এর (রং, marker, লেবেল); অচেনা scheme পায় বাকি রংগুলো
# লেবেলে SCHEMES-এর নামটাও (বন্ধনীতে), যাতে অনুশীলনীর উত্তর চিত্র থেকেই পড়া যায়
_COMM_STYLES = {"fp32": ("#444444", "o", "FP32, ring (fp32)"), "bf16": ("#ff7f0e", "s", "BF16, ring (bf16)"),
                "fp16": ("#1f77b4", "^", "FP16, ring, আগে-পরে ভাগ (fp16)"),
                "bf16_wire_fp32_sum": ("#2ca02c", "D", "direct: BF16 তারে, FP32-এ যোগ (bf16_wire_fp32_sum)")}


def comm_error_figure(sweep: dict, tolerance=None, ax=None):
    """পাঠ ০৯: rank-এর সংখ্যা W বনাম গড় gradient-এর আপেক্ষিক ত্রুটি (log-log), sweep = error_sweep()-এর ফল থেকে:
    প্রতিটি scheme-এর একটি রেখা (লেবেলে scheme-এর নাম), সঠিক গড়কে একবার BF16-এ round করার ত্রুটি ভাঙা রেখায়, চাইলে
    সহনসীমার রেখা (tolerance: একটি সংখ্যা বা কয়েকটির তালিকা)।"""
    if ax is None:
        _, ax = plt.subplots(figsize=(11.5, 5))
    worlds = sweep["worlds"]
    extra = iter(["#9467bd", "#8c564b", "#e377c2", "#17becf"])
    for name, errors in sweep["errors"].items():
        color, marker, label = _COMM_STYLES.get(name) or (next(extra), "x", name)
        ax.plot(worlds, [max(e, 1e-12) for e in errors], marker=marker, ms=5, lw=2, color=color, label=label)
    ax.plot(worlds, sweep["bf16_rounding_floor"], ls="--", lw=1.5, color="#7f7f7f",
            label="সঠিক গড়কে একবার BF16-এ round (bf16_rounding_floor)")
    lines = [] if tolerance is None else [tolerance] if isinstance(tolerance, (int, float)) else list(tolerance)
    for value, color in zip(lines, ["#d62728", "#9467bd", "#8c564b"], strict=False):
        ax.axhline(value, color=color, ls=":", lw=1.8, label=f"সহনসীমা ({value:g})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(worlds, [str(w) for w in worlds])
    ax.set(yscale="log", xlabel="rank-এর সংখ্যা (W)", ylabel="আপেক্ষিক ত্রুটি (FP64-এর গড়ের তুলনায়)",
           title="reduce-scatter-এর পরে গড় gradient-এর ত্রুটি, তারের (wire) dtype ধরে")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=11, loc="upper left", bbox_to_anchor=(1.01, 1))    # অক্ষের ডানে: কোনো রেখা ঢাকে না
    ax.figure.tight_layout()
    return ax.figure


def ring_reduce_scatter_figure(world: int = 4):
    """পাঠ ০৯: ring reduce-scatter, world টি rank (২–৬), প্রতিটি hop একটি প্যানেলে: segment s-এর যোগ শুরু rank s+1-এ,
    hop h-এ rank (s+h) mod W তার আংশিক যোগফল পাশের rank-কে পাঠায় (communication.ring_order_sum-এর ক্রম); শেষ
    প্যানেলে প্রতিটি rank-এর কাছে নিজের segment-এর পুরো যোগফল। তীরের লেখা: "s<segment>: g<rank>+…"।"""
    angles = [math.pi / 2 - 2 * math.pi * r / world for r in range(world)]
    where = [(math.cos(t), math.sin(t)) for t in angles]
    cols = 2 if world <= 4 else 3                                   # নোটবুকের ~900 px চওড়ায় লেখা পড়া যায়
    rows = -(-world // cols)
    fig, grid = plt.subplots(rows, cols, figsize=(4.6 * cols, 4.4 * rows + 0.6), layout="tight", squeeze=False)
    for ax in grid.flat[world:]:
        ax.remove()
    for hop, ax in enumerate(grid.flat[:world], start=1):
        ax.set(xlim=(-1.6, 1.6), ylim=(-1.6, 1.6), aspect="equal")
        ax.axis("off")
        last = hop == world
        ax.set_title("শেষে: প্রতিটি rank-এর নিজের segment" if last else f"hop {hop}", fontsize=12)
        for r, (x, y) in enumerate(where):
            held = f"\ns{r}: " + "+".join(f"g{(r + 1 + k) % world}" for k in range(world)) if last else ""
            ax.text(x, y, f"rank {r}{held}", ha="center", va="center", fontsize=12 if world <= 4 else 9,
                    bbox={"boxstyle": "round", "fc": "#dbe9f6" if last else "white", "ec": "#1f77b4"})
        if last:
            continue
        for s in range(world):
            src, dst = (s + hop) % world, (s + hop + 1) % world
            (x0, y0), (x1, y1) = where[src], where[dst]
            ax.annotate("", xy=(0.72 * x1 + 0.28 * x0, 0.72 * y1 + 0.28 * y0),
                        xytext=(0.72 * x0 + 0.28 * x1, 0.72 * y0 + 0.28 * y1),
                        arrowprops={"arrowstyle": "->", "color": "#ff7f0e", "lw": 1.8})
            label = f"s{s}: " + "+".join(f"g{(s + 1 + k) % world}" for k in range(hop))
            ax.text((x0 + x1) * 0.8, (y0 + y1) * 0.8, label, ha="center", va="center", fontsize=12 if world <= 4 else 9,
                    color="#8c3b00")                                     # তীরের বাইরের দিকে, তীর ঢাকে না
    fig.suptitle(f"ring reduce-scatter, {world}টি rank: প্রতিটি hop-এ আংশিক যোগফল তারের dtype-এ round হয়ে\n"
                 f"পাশের rank-এ যায় ({world - 1}টি hop)", fontsize=13)
    return fig


def rank_bytes_figure(worlds, per_weight: dict, title: str = ""):
    """পাঠ ০৯: GPU-র সংখ্যা N বনাম প্রতি rank-এ model state, ওজনপ্রতি বাইটে; per_weight = {নাম: [N-প্রতি মান]}
    (পাঠ নিজে ZeRO-র সূত্র থেকে হিসাব করে দেয়)। x আর y দুটোই log₂।"""
    fig, ax = plt.subplots(figsize=(10, 4.8), layout="tight")
    styles = iter([("#7f7f7f", "o", "-"), ("#1f77b4", "s", "-"), ("#ff7f0e", "^", "-"), ("#2ca02c", "D", "--"),
                   ("#9467bd", "x", ":")])
    for name, values in per_weight.items():
        color, marker, ls = next(styles)
        ax.plot(worlds, values, marker=marker, ms=6, lw=2, ls=ls, color=color, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(worlds, [str(w) for w in worlds])
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))   # 2⁴ নয়, 16
    ax.set(xlabel="GPU-র সংখ্যা (N)", ylabel="প্রতি rank-এ বাইট ÷ মডেলের মোট ওজন (Ψ)", title=title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=10)
    return fig
