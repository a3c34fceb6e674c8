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


# ---------------------------------------------------------------- পাঠ ০৬ (মেমরি কোথায় যায়)

LEDGER_COLORS = {"parameters": "#1f77b4", "gradients": "#ff7f0e", "master_weights": "#9467bd",
                 "optimizer_state": "#2ca02c", "activations": "#d62728", "cast_cache": "#8c564b"}


def ledger_figure(ledgers, title: str):
    """পাঠ ০৬: কয়েকটি mode-এর মেমরির খাতা, খাত ধরে স্তূপ করা দণ্ড (MiB); CUDA-তে মাপা সর্বোচ্চ মেমরি কালো দাগে।

    ledgers: mishran.memory.Ledger-এর তালিকা। Figure ফেরত দেয়।
    """
    import matplotlib.pyplot as plt

    from .memory import CATEGORIES

    mib = 2 ** 20
    fig, ax = plt.subplots(figsize=(10, 4.8))
    labels = [led.label.replace(" ", "\n") for led in ledgers]   # "ds_bf16\nZeRO-2": নাম গায়ে গায়ে না লাগে
    bottom = [0.0] * len(ledgers)
    for key, name in CATEGORIES.items():
        values = [getattr(led, key) / mib for led in ledgers]
        ax.bar(labels, values, bottom=bottom, color=LEDGER_COLORS[key], label=name)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    for i, led in enumerate(ledgers):
        if led.peak_allocated:
            ax.hlines(led.peak_allocated / mib, i - 0.4, i + 0.4, colors="black", lw=2.5,
                      label="allocator-এর মাপা সর্বোচ্চ" if i == 0 else None)
    ax.set(ylabel="মেমরি (MiB)", title=title)
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


def activation_growth_figure(batch_sizes, batch_bytes, seq_lens, seq_bytes, model_state_bytes, device: str):
    """পাঠ ০৬: activation-এর বাইট ব্যাচের মাপ আর sequence-এর দৈর্ঘ্যের সঙ্গে; model state স্থির দাগ। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    mib = 2 ** 20
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    panels = [(axes[0], batch_sizes, batch_bytes, "ব্যাচের মাপ B (T স্থির)"),
              (axes[1], seq_lens, seq_bytes, "sequence-এর দৈর্ঘ্য T (B স্থির)")]
    for ax, xs, ys, xlabel in panels:
        ax.plot(xs, [y / mib for y in ys], "o-", lw=2, color=LEDGER_COLORS["activations"], label="activation")
        ax.axhline(model_state_bytes / mib, color="gray", ls=":", lw=2, label="model state (স্থির)")
        ax.set(xlabel=xlabel)
        ax.grid(alpha=0.3)
    axes[0].set(ylabel="মেমরি (MiB)")
    axes[0].legend(fontsize=10, loc="upper left")
    fig.suptitle(f"activation বাড়ে B × T-এর সঙ্গে, model state বাড়ে না — {device}")
    fig.tight_layout()
    return fig


def checkpoint_figure(seq_lens, plain_bytes, ckpt_bytes, device: str, ylabel: str = "activation (MiB)"):
    """পাঠ ০৬: sequence-এর দৈর্ঘ্য বনাম মেমরি, activation checkpointing ছাড়া ও সহ। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    mib = 2 ** 20
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    ax.plot(seq_lens, [b / mib for b in plain_bytes], "o-", lw=2, color="#d62728", label="checkpointing ছাড়া")
    ax.plot(seq_lens, [b / mib for b in ckpt_bytes], "s-", lw=2, color="#2ca02c", label="checkpointing সহ")
    ax.set(xlabel="sequence-এর দৈর্ঘ্য T", ylabel=ylabel,
           title=f"activation checkpointing: backward-এর জন্য রাখা মেমরি — {device}")
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def pruning_figure(sparsities, losses, baseline_loss: float, semi_structured_loss: float | None = None):
    """পাঠ ০৬: pruning-এর মাত্রা (শূন্যের ভাগ) বনাম held-out loss; pruning-হীন loss দাগে। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    ax.plot([100 * s for s in sparsities], losses, "o-", lw=2, color="#1f77b4", label="unstructured (magnitude)")
    ax.axhline(baseline_loss, color="gray", ls=":", lw=2, label="pruning ছাড়া")
    if semi_structured_loss is not None:
        ax.plot([50], [semi_structured_loss], "D", ms=9, color="#ff7f0e", label="2:4 নকশা (৫০%)")
    ax.set(xlabel="Linear ওজনের কত শতাংশ শূন্য", ylabel="held-out loss",
           title="pruning: কতটা শূন্য করলে মডেল কতটা খারাপ হয়")
    ax.legend(fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


STEP_COLORS = {"matmul": "#1f77b4", "attention": "#9467bd", "optimizer": "#d62728", "other": "#ff7f0e"}
STEP_LABELS = {"matmul": "matmul (tensor core)", "attention": "attention", "optimizer": "optimizer (AdamW)",
               "other": "বাকি: elementwise, norm, cast"}


def step_breakdown_figure(profiles, title: str):
    """পাঠ ০৭: প্রতিটি mode-এ এক ধাপের সময় ভাগে ভাগে (speed.profile_step-এর ফল), আড়াআড়ি স্তূপ। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 0.8 * len(profiles) + 1.8))
    names = [p["mode"].upper() for p in profiles]
    for i, p in enumerate(profiles):
        left = 0.0
        for cat, color in STEP_COLORS.items():
            ms = 1000 * p["by_category"][cat]
            ax.barh(i, ms, left=left, color=color, label=STEP_LABELS[cat] if i == 0 else None)
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
    import math

    import matplotlib.pyplot as plt
    import torch

    from mishran.formats import get_format

    f = get_format(fmt)
    x = torch.as_tensor(values).double().abs().flatten()
    x = x[x > 0]
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
    for ax, data, name in [(axes[0], x, "scale-এর আগে"), (axes[1], x * scale, f"× scale ({scale:.3g})-এর পরে")]:
        logs = torch.log2(data).numpy()
        ax.axvspan(math.log2(f.min_subnormal), math.log2(f.min_normal), color="#ffd27f", alpha=0.5,
                   label="subnormal (কম সূক্ষ্ম)")
        ax.axvspan(math.log2(f.min_normal), math.log2(f.max), color="#a6d8a6", alpha=0.5, label=f"{f.label}-এর normal")
        ax.hist(logs, bins=60, color="#1f77b4")
        ax.axvline(math.log2(f.max), color="#d62728", lw=2, ls="--", label=f"max = {f.max:g}")
        ax.set(xlabel="log2 |x|", title=name)
        ax.grid(alpha=0.3)
    axes[0].set(ylabel="কতগুলো সংখ্যা")
    axes[1].legend(fontsize=9, loc="upper left")
    fig.suptitle(title or f"per-tensor scaling: সংখ্যাগুলোকে {f.label}-এর পরিসরে সরানো")
    fig.tight_layout()
    return fig


def fp8_speed_figure(widths: dict, title: str):
    """পাঠ ০৭: প্রতিটি d_model-এ compiled BF16-এর তুলনায় FP8-এর গতি (×); widths = {d: {mode: step_s}}। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    modes = ["bf16-compile", "fp8-tensorwise", "fp8-rowwise"]
    colors = ["#ff7f0e", "#2ca02c", "#17becf"]
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    for j, (mode, color) in enumerate(zip(modes, colors)):
        xs, ys = [], []
        for i, steps in enumerate(widths.values()):
            if mode in steps and "bf16-compile" in steps:
                xs.append(i + (j - 1) * 0.27)
                ys.append(steps["bf16-compile"] / steps[mode])
        bars = ax.bar(xs, ys, width=0.25, color=color, label=mode)
        for bar, y in zip(bars, ys):
            ax.text(bar.get_x() + bar.get_width() / 2, y, f"{y:.2f}×", ha="center", va="bottom", fontsize=10)
    ax.axhline(1.0, color="gray", lw=1)
    ax.set_xticks(range(len(widths)), [f"d_model {d}" for d in widths])
    ax.set(ylabel="compiled BF16-এর তুলনায় গতি (×)", title=title)
    ax.margins(y=0.15)
    ax.grid(True, axis="y", alpha=0.3)
    fig.legend(fontsize=10, loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


# ---------------------------------------------------------------- পাঠ ০৮-এর চিত্র (LESSON08)

def capstone_curves_figure(curves: dict, bigram_bpc: float, title: str):
    """পাঠ ০৮: held-out bits per character বনাম step, কয়েকটি run আর bigram-এর রেখা; curves = {নাম: [{step, bpc}]}।"""
    import matplotlib.pyplot as plt

    palette = ["#444444", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd"]
    fig, ax = plt.subplots(figsize=(9, 4.6))
    for (name, points), color in zip(curves.items(), palette[:len(curves)], strict=True):
        ax.plot([p["step"] for p in points], [p["bpc"] for p in points], marker="o", ms=4, lw=2,
                color=color, label=name)
    ax.axhline(bigram_bpc, color="#d62728", ls="--", lw=1.5, label=f"bigram ({bigram_bpc:.2f})")
    ax.set(xlabel="step", ylabel="held-out bits per character", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=11)
    fig.tight_layout()
    return fig


def capstone_scale_figure(scales, skipped, start_step: int = 0, title: str = ""):
    """পাঠ ০৮: FP16 run-এর loss scale প্রতি step-এ (লগ স্কেল), বাদ-পড়া ধাপ লাল বিন্দুতে; Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    steps = list(range(start_step, start_step + len(scales)))
    fig, ax = plt.subplots(figsize=(9, 3.8))
    ax.step(steps, scales, where="post", color="#1f77b4", lw=2, label="loss scale")
    ax.scatter(skipped, [scales[s - start_step] for s in skipped], color="#d62728", s=40, zorder=3,
               label="বাদ-পড়া ধাপ (overflow)")
    ax.set_yscale("log", base=2)
    ax.set(xlabel="step", ylabel="loss scale (লগ স্কেল)", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=11)
    fig.tight_layout()
    return fig
