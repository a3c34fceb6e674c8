"""পাঠ ০৩–০৯-এর চিত্র: প্রশিক্ষণের loss আর scale, গতি, মেমরির খাতা, FP8, capstone, যোগাযোগের precision (বাংলা লেখাসহ matplotlib)।

লেখা বাংলায় দেখাতে আগে mishran.plots.setup_bengali() ডাকো। প্রতিটি ফাংশন একটি Figure ফেরত দেয়; ইনপুট যাচাই হয়
আঁকার আগেই (mishran.figure_inputs.checked), ভুল হলে বাংলা বার্তায়। পাঠগুলো এগুলো mishran.plots থেকেও import করে।
"""
from __future__ import annotations

from .figure_inputs import checked

__all__ = ["LEDGER_COLORS", "STEP_COLORS", "STEP_LABELS",
           # পাঠ ০৩–০৫
           "loss_curves_figure", "scale_resume_figure", "bench_figure", "activation_memory_figure",
           "zero_per_gpu_figure",
           # পাঠ ০৬–০৮
           "ledger_figure", "activation_growth_figure", "checkpoint_figure", "pruning_figure", "step_breakdown_figure",
           "fp8_scaling_figure", "fp8_speed_figure", "capstone_curves_figure", "overfitting_figure",
           "capstone_scale_figure",
           # পাঠ ০৯
           "COMM_STYLES", "comm_error_figure"]

# ---------------------------------------------------------------- পাঠ ০৩–০৫: প্রশিক্ষণ, গতি, ZeRO

@checked(losses="mapping", device="text", styles="dict?")
def loss_curves_figure(losses: dict, device: str, styles: dict | None = None):
    """পাঠ ০৩: একই মডেলের FP32/FP16/BF16 loss (বাঁয়ে) আর FP32-এর থেকে পার্থক্য (ডানে); Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    styles = styles or {"fp32": ("#444444", 3.0, "FP32"), "fp16": ("#1f77b4", 1.6, "FP16 + GradScaler"),
                        "bf16": ("#ff7f0e", 1.6, "BF16 (scaler ছাড়া)")}
    fig, (ax, ax_diff) = plt.subplots(1, 2, figsize=(12, 4.5))
    for name, values in losses.items():
        color, lw, label = styles[name]
        ax.plot(values, color=color, lw=lw, label=label, alpha=0.9)
        if name != "fp32" and "fp32" in losses:
            diff = [a - b for a, b in zip(values, losses["fp32"], strict=True)]
            ax_diff.plot(diff, color=color, lw=lw, label=f"{label} − FP32")
    ax.set(xlabel="step", ylabel="প্রশিক্ষণের loss", title=f"একই মডেল, একই ডেটা ({device})")
    ax_diff.axhline(0, color="#444444", lw=1)
    ax_diff.set(xlabel="step", ylabel="loss-এর পার্থক্য", title="FP32-এর থেকে কতটা সরে")
    ax.legend()
    if ax_diff.get_legend_handles_labels()[0]:
        ax_diff.legend(fontsize=11)
    else:                                   # শুধু FP32 চলেছে (যেমন এই যন্ত্রে আর কোনো precision নেই)
        ax_diff.text(0.5, 0.5, "তুলনার জন্য FP32 আর অন্য\nএকটি precision দুটোই চাই", ha="center", va="center",
                     transform=ax_diff.transAxes, color="#666666")
    for a in (ax, ax_diff):
        a.grid(alpha=0.3)
    fig.tight_layout()
    return fig


@checked(straight="trainlog", resumed="trainlog", forgot="trainlog", checkpoint_step="step")
def scale_resume_figure(straight, resumed, forgot, checkpoint_step: int):
    """পাঠ ০৩: একটানা, scaler-সহ resume আর scaler ভুলে resume — তিনটি TrainLog-এর loss scale; Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.plot(straight.steps, straight.scales, color="#444444", lw=3, label="একটানা")
    ax.plot(resumed.steps, resumed.scales, color="#2ca02c", lw=1.8, ls="--", label="resume, scaler-সহ")
    ax.plot(forgot.steps, forgot.scales, color="#d62728", lw=1.8, label="resume, scaler ভুলে")
    first = forgot.steps[0]
    ax.scatter(forgot.skipped, [forgot.scales[s - first] for s in forgot.skipped], color="#d62728", s=30,
               zorder=3, label="বাদ-পড়া ধাপ (scaler ভুলে)")
    ax.axvline(checkpoint_step - 0.5, color="#999999", ls=":", lw=1.5)
    ax.text(checkpoint_step - 0.8, 2 ** 15, "checkpoint", fontsize=11, color="#666666", ha="right")
    ax.set_yscale("log", base=2)
    ax.set(xlabel="step", ylabel="loss scale (লগ স্কেল)",
           title="scaler না রাখলে resume-এর পর scale আবার নিচে নামার পথ খোঁজে")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right", fontsize=11)
    fig.tight_layout()
    return fig


@checked(result="mapping")
def bench_figure(result: dict):
    """পাঠ ০৩: mishran.bench.run()-এর ফল — প্রতি mode-এ এক ধাপের সময় (আর GPU-তে সর্বোচ্চ মেমরি); Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    rows = result["results"]
    names = [r["mode"].upper() for r in rows]
    palette = {"FP32": "#444444", "TF32": "#9467bd", "FP16": "#1f77b4", "BF16": "#ff7f0e"}
    colors = [palette.get(n, "#2ca02c") for n in names]
    has_memory = all(r["peak_memory_bytes"] is not None for r in rows)
    fig, axes = plt.subplots(1, 2 if has_memory else 1, figsize=(11 if has_memory else 7.5, 4.2), squeeze=False)
    ax = axes[0, 0]
    bars = ax.bar(names, [1000 * r["step_s"] for r in rows], color=colors)
    ax.bar_label(bars, labels=[f"{r['speedup_vs_fp32']:.2f}×" for r in rows], padding=2, fontsize=12)
    ax.set(ylabel="এক ধাপের সময় (ms)", title=f"এক training ধাপ (কম = দ্রুত)\n{result['device']['name']}")
    ax.margins(y=0.12)
    if has_memory:
        mem = axes[0, 1]
        mem.bar(names, [r["peak_memory_bytes"] / 2 ** 30 for r in rows], color=colors)
        mem.set(ylabel="সর্বোচ্চ মেমরি (GiB)", title="সর্বোচ্চ মেমরি (কম = ভালো)")
    fig.tight_layout()
    return fig


@checked(sizes="numbers", saved_bytes="numbers", fixed_bytes="number", device="text", peak_bytes="items?")
def activation_memory_figure(sizes, saved_bytes, fixed_bytes, device: str, peak_bytes=None):
    """পাঠ ০৪: micro-batch-এর মাপ বনাম activation-এর বাইট (আর GPU-তে CUDA peak), পাশে স্থির ভাগ; Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    mib = 2 ** 20
    fig, ax = plt.subplots(figsize=(9, 4.5))
    ax.plot(sizes, [b / mib for b in saved_bytes], "o-", lw=2, label="activation (saved_tensors_hooks দিয়ে গোনা)")
    if peak_bytes:
        ax.plot(sizes, [b / mib for b in peak_bytes], "s--", lw=2, label="CUDA peak (max_memory_allocated)")
    ax.axhline(fixed_bytes / mib, color="gray", ls=":", lw=2, label="ওজন + gradient + optimizer-এর অবস্থা (স্থির)")
    ax.set(xlabel="micro-batch-এর (micro-batch) মাপ: কয়টি উদাহরণ", ylabel="মেমরি (MiB)",
           title=f"activation ব্যাচের সঙ্গে বাড়ে, বাকিটা স্থির — TinyGPT, {device}")
    ax.legend(loc="upper left", fontsize=11)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


@checked(bytes_per_weight="mapping", gpus="numbers", measured_per_weight="number")
def zero_per_gpu_figure(bytes_per_weight: dict, gpus, measured_per_weight: float):
    """পাঠ ০৫: ZeRO stage আর GPU-র সংখ্যায় ওজনপ্রতি বাইট; bytes_per_weight = {stage: [N-প্রতি মান]}; Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.8))
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
    ax.set_xlim(-0.7, len(gpus) - 0.4)
    ax.set(xlabel="GPU-র সংখ্যা", ylabel="প্রতি GPU-তে বাইট, প্রতি ওজনে", ylim=(0, 22),
           title="ZeRO: প্রতি GPU-তে model state, ওজনপ্রতি বাইটে (যেকোনো Ψ-এ একই)")
    ax.legend(fontsize=9, ncol=4, loc="upper right")
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- পাঠ ০৬: মেমরি কোথায় যায়; পাঠ ০৭: গতি আর FP8

LEDGER_COLORS = {"parameters": "#1f77b4", "gradients": "#ff7f0e", "master_weights": "#9467bd",
                 "optimizer_state": "#2ca02c", "activations": "#d62728", "cast_cache": "#8c564b"}


@checked(ledgers="sequence", title="text")
def ledger_figure(ledgers, title: str):
    """পাঠ ০৬: কয়েকটি mode-এর মেমরির খাতা, খাত ধরে স্তূপ করা দণ্ড (MiB); CUDA-তে মাপা সর্বোচ্চ মেমরি কালো দাগে।

    ledgers: mishran.memory.Ledger-এর তালিকা। Figure ফেরত দেয়।
    """
    import matplotlib.pyplot as plt

    from .memory import CATEGORIES

    mib = 2 ** 20
    fig, ax = plt.subplots(figsize=(11, 5))
    # "ds\nbf16\nZeRO-2": কয়েক লাইনে, যাতে পাশাপাশি দণ্ডের নাম গায়ে গায়ে না লাগে
    labels = [led.label.replace(" ", "\n").replace("_", "\n") for led in ledgers]
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


@checked(batch_sizes="numbers", batch_bytes="numbers", seq_lens="numbers", seq_bytes="numbers",
         model_state_bytes="number", device="text")
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


@checked(seq_lens="numbers", plain_bytes="numbers", ckpt_bytes="numbers", device="text", ylabel="text")
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


@checked(sparsities="numbers", losses="numbers", baseline_loss="number", semi_structured_loss="number?")
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


@checked(profiles="sequence", title="text")
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


@checked(values="tensor", scale="positive", fmt="format", title="text")
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


@checked(widths="mapping", title="text")
def fp8_speed_figure(widths: dict, title: str):
    """পাঠ ০৭: প্রতিটি d_model-এ compiled BF16-এর তুলনায় FP8-এর গতি (×); widths = {d: {mode: step_s}}। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    modes = ["bf16-compile", "fp8-tensorwise", "fp8-rowwise"]
    colors = ["#ff7f0e", "#2ca02c", "#17becf"]
    fig, ax = plt.subplots(figsize=(8.5, 4.2))
    for j, (mode, color) in enumerate(zip(modes, colors, strict=True)):
        xs, ys = [], []
        for i, steps in enumerate(widths.values()):
            if mode in steps and "bf16-compile" in steps:
                xs.append(i + (j - 1) * 0.27)
                ys.append(steps["bf16-compile"] / steps[mode])
        bars = ax.bar(xs, ys, width=0.25, color=color, label=mode)
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

@checked(curves="mapping", bigram_bpc="number", title="text")
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


@checked(runs="mapping", title="text")
def overfitting_figure(runs: dict, title: str):
    """পাঠ ০৮: একই মডেল কয়েকটি সংকলনে — train (ভাঙা রেখা) আর held-out (টানা রেখা) bpc বনাম step, সেরা
    held-out-এ তারা; runs = {নাম: [{step, bpc, train_bpc}]}। দুই রেখার ফাঁক বাড়া আর held-out-এর উঠে যাওয়া = overfitting।"""
    import matplotlib.pyplot as plt

    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"]
    if not 1 <= len(runs) <= len(palette):
        raise ValueError(f"runs-এ ১ থেকে {len(palette)}টি run দাও (1 to {len(palette)} runs); পেয়েছি {len(runs)}টি")
    fig, ax = plt.subplots(figsize=(9, 4.8))
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
    ax.set(xlabel="step", ylabel="bits per character", title=title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=10, ncol=2)
    fig.tight_layout()
    return fig


@checked(scales="numbers", skipped="items", start_step="step", title="text")
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


# ---------------------------------------------------------------- পাঠ ০৯: যোগাযোগের precision

COMM_STYLES = {"fp32": ("#444444", "o", "FP32"), "bf16": ("#ff7f0e", "s", "BF16 (ring)"),
               "fp16": ("#1f77b4", "^", "FP16 (ring, আগে-পরে ভাগ)"),
               "bf16_wire_fp32_sum": ("#2ca02c", "D", "BF16 তারে, FP32-এ যোগ (direct)")}
"""পাঠ ০৯: comm_precision.SCHEMES-এর প্রতিটি scheme-এর (রং, marker, লেবেল); অচেনা scheme পায় বাকি রংগুলো।"""


@checked(sweep="mapping", tolerance="positive?", ax="axes?")
def comm_error_figure(sweep: dict, tolerance: float | None = None, ax=None):
    """পাঠ ০৯: rank-এর সংখ্যা W বনাম গড় gradient-এর আপেক্ষিক ত্রুটি (log-log), প্রতিটি scheme-এর একটি রেখা, সঠিক গড়কে
    একবার BF16-এ round করার ত্রুটি ভাঙা রেখায়, আর চাইলে সহনসীমার রেখা; sweep = comm_precision.error_sweep()-এর
    ফল। Figure ফেরত দেয়।"""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(11.5, 5))
    worlds = sweep["worlds"]
    extra = iter(["#9467bd", "#8c564b", "#e377c2", "#17becf"])
    for name, errors in sweep["errors"].items():
        color, marker, label = COMM_STYLES.get(name) or (next(extra), "x", name)
        ax.plot(worlds, [max(e, 1e-12) for e in errors], marker=marker, ms=5, lw=2, color=color, label=label)
    ax.plot(worlds, sweep["bf16_rounding_floor"], ls="--", lw=1.5, color="#7f7f7f",
            label="সঠিক গড়কে একবার BF16-এ round (bf16_rounding_floor)")
    if tolerance is not None:
        ax.axhline(tolerance, color="#d62728", ls=":", lw=1.8, label=f"সহনসীমা ({tolerance:g})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(worlds, [str(w) for w in worlds])
    ax.set_yscale("log")
    ax.set(xlabel="rank-এর সংখ্যা (W)", ylabel="আপেক্ষিক ত্রুটি (FP64-এর গড়ের তুলনায়)",
           title="reduce-scatter-এর পরে গড় gradient-এর ত্রুটি, তারের (wire) dtype ধরে")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))     # অক্ষের ডানে: কোনো রেখা ঢাকে না
    ax.figure.tight_layout()
    return ax.figure
