"""check-up-এর ফল notebook-এ দেখা: সারণি, দুটি চিত্র আর পরামর্শ, বাংলায় (পাঠ ১০)।

    report = checkup(model, batch, target="t4")      # mishran.checkup.run
    show_checkup(report)                             # সব একসঙ্গে: সারণি, দুই চিত্র, পরামর্শ
    module_range_figure(report, top=12)              # প্রতিটি module-এর বৃহত্তম |মান| বনাম ফরম্যাটের পরিসর
    gradient_range_figure(report)                    # gradient-এর log2-histogram, loss scale-এর আগে আর পরে

CheckupReport সাদামাটা ডেটা; ছবি আর সারণি এখানে, কারণ checkup নিজে matplotlib বা IPython import করে না (GPU মেশিনের
script চিত্রের প্যাকেজ ছাড়াই চলে)। সারণি HTML আর সাধারণ লেখা দুভাবেই (Rich): JupyterLab, Colab আর শুধু-লেখার
পরিবেশ — সবখানে পড়া যায়।
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.patches import Patch
from matplotlib.ticker import MultipleLocator

from mishran.checks import positive_int
from mishran.checkup.report import WHOLE_MODEL, CheckupReport
from mishran.checkup.verdict import UNKNOWN
from mishran.lab.display import Rich, table_html
from mishran.lab.figures import setup_bengali
from mishran.numerics.formats import get_format
from mishran.numerics.scaling import format_regions

__all__ = ["module_range_figure", "gradient_range_figure", "show_checkup"]

_MIB = 2 ** 20
_NAME_WIDTH = 40                 # চিত্রের বাঁয়ে module-এর নাম এর বেশি অক্ষর হলে শুরুর দিকের ভাগ বাদ
_BAR = {"overflow": "#d62728", "near_max": "#ff7f0e", "ok": "#4c72b0"}
_BAND = {"underflow_to_zero": ("#bdbdbd", "শূন্যে মুছে যায়"), "subnormal": ("#fdd49e", "subnormal"),
         "normal": ("#e5f5e0", "normal"), "overflow": ("#fcbba1", "overflow")}


def _top(top) -> int:
    return positive_int(top, "top")


def _label(name: str) -> str:
    return name or WHOLE_MODEL


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power(k: int, sup: bool) -> str:
    """2-এর ঘাত লেখা: চিত্রে '2⁻¹⁴' (sup; mathtext নয়, কারণ mathtext-এর লাইনে বাংলা জোড়া লাগে না), সারণিতে '2^-14'।"""
    return "2" + str(k).translate(_SUPERSCRIPT) if sup else f"2^{k}"


def _pow2(value: float, sup: bool = False) -> str:
    """2-এর ঘাত হলে '2^16 = 65536' (ধনাত্মক ঘাতে পুরো পূর্ণসংখ্যা, যেমন 2^20 = 1048576), নইলে সংখ্যাটাই।"""
    k = math.log2(value) if value > 0 else math.nan
    if not (math.isfinite(k) and k == round(k)):
        return f"{value:g}"
    return f"{_power(round(k), sup)} = {int(value) if k >= 0 else format(value, 'g')}"


def _num(value) -> str:
    if value is None:
        return "—"
    return f"{value:.3g}" if isinstance(value, float) else str(value)


# ---------------------------------------------------------------- module-এর নাম আর বাছাই
def _suffix_unique(parts: list, k: int, names: list) -> bool:
    tail = ".".join(parts[-k:])
    return sum(1 for n in names if n == tail or n.endswith("." + tail)) == 1


def _short_names(names: list, every: list) -> list[str]:
    """names-এর প্রতিটির সবচেয়ে ছোট শেষাংশ (অন্তত দুই ভাগ, সংখ্যা দিয়ে শুরু নয় — 'h.0.ln_2', '0.ln_2' নয়) যা
    মডেলের আর কোনো module-এর (every) শেষাংশ নয়; বাদ পড়া শুরু '…' দিয়ে বোঝানো। তবুও _NAME_WIDTH-এর বেশি লম্বা
    হলে শুরুর দিক থেকে আরও ভাগ বাদ।"""
    out = []
    for name in names:
        parts = name.split(".") if name else [WHOLE_MODEL]
        k = min(2, len(parts))
        while k < len(parts) and (parts[-k].isdigit() or not _suffix_unique(parts, k, every)):
            k += 1
        while k > 1 and len(".".join(parts[-k:])) > _NAME_WIDTH:
            k -= 1
        out.append(("…" if k < len(parts) else "") + ".".join(parts[-k:]))
    return out


def _flagged(report: CheckupReport) -> dict:
    """module-এর নাম → ('overflow' বা 'near_max', কোন precision-এ): overflow আগে।"""
    marks = {}
    for key, lists in (("near_max", report.near_max_modules), ("overflow", report.overflow_modules)):
        for p, names in lists.items():
            marks.update({n: (key, p) for n in names})
    return marks


def _echoes(row, rows) -> bool:
    """container-এর output তার ভেতরের কোনো module-এর output-ই (একই বৃহত্তম |মান|) — তাহলে আলাদা দণ্ড লাগে না।"""
    return any(o is not row and (row.name == "" or o.name.startswith(row.name + ".")) and o.max_abs == row.max_abs
               for o in rows)


def _shown_modules(report: CheckupReport, top: int) -> tuple[list, int, int]:
    """চিত্রের module-গুলো, বৃহত্তম |মান| আগে: প্রথম top-টি আর চিহ্নিত (overflow, near max) সবগুলো; সঙ্গে কয়টি
    container বাদ (output ভেতরের module-এর সমান) আর কয়টি top-এর বাইরে বলে বাদ।"""
    marks = _flagged(report)
    kept = [r for r in report.modules if r.name in marks or not _echoes(r, report.modules)]
    kept.sort(key=lambda r: r.max_abs, reverse=True)
    shown = [r for i, r in enumerate(kept) if i < top or r.name in marks]
    return shown, len(report.modules) - len(kept), len(kept) - len(shown)


# ---------------------------------------------------------------- চিত্র ১: module-এর পরিসর
def _format_lines(ax) -> None:
    fp16, e4m3 = get_format("fp16"), get_format("fp8_e4m3")
    ax.axvspan(fp16.max, ax.get_xlim()[1], color=_BAND["overflow"][0], lw=0, zorder=0)
    ax.axvline(fp16.max, color=_BAR["overflow"], ls="--", lw=2,
               label=f"{fp16.label}-এর max {fp16.max:g}; ডানে overflow")
    ax.axvline(e4m3.max, color="#7b3294", ls=":", lw=2, label=f"{e4m3.label}-এর max {e4m3.max:g}")
    normal = _power(round(math.log2(fp16.min_normal)), True)
    ax.axvline(fp16.min_normal, color="#636363", ls="-.", lw=1.5,
               label=f"{fp16.label}-এর smallest normal {normal}; বাঁয়ে subnormal")


def _bar_legend(ax, marks: dict) -> None:
    seen = {}
    for key, p in marks.values():
        seen.setdefault(key, set()).add(p.upper())
    words = {"overflow": "overflow", "near_max": "max-এর কাছে (near max)"}
    bars = [Patch(color=_BAR[k], label=f"{words[k]}: {', '.join(sorted(seen[k]))}") for k in words if k in seen]
    bars.append(Patch(color=_BAR["ok"], label="ঠিক আছে"))
    lines, labels = ax.get_legend_handles_labels()
    ax.legend(bars + lines, [b.get_label() for b in bars] + labels, loc="upper left", bbox_to_anchor=(1.01, 1),
              fontsize=10, frameon=False)


def module_range_figure(report: CheckupReport, top: int = 12):
    """পাঠ ১০: প্রতিটি module-এর output-এর বৃহত্তম |মান| (FP32-এর reference step-এ), log₂ অক্ষে অনুভূমিক দণ্ডে,
    পাশে FP16-এর max 65504, FP8 E4M3-এর max 448 আর FP16-এর smallest normal 2^-14-এর দাগ। বড় মান ওপরে; প্রথম
    top-টি, আর overflow বা max-এর কাছে যাওয়া (near max) module সবসময় — লাল আর কমলা রঙে। যে container-এর output
    তার ভেতরের কোনো module-এর output-ই, তাকে বাদ দেয়; কয়টি বাদ পড়ল তা শিরোনামে। Figure ফেরত দেয়।"""
    top = _top(top)
    shown, echoed, rest = _shown_modules(report, top)
    marks = _flagged(report)
    fig, ax = plt.subplots(figsize=(12, 2.2 + 0.42 * len(shown)), layout="constrained")
    values = [r.max_abs for r in shown]
    floor = min([2.0 ** -18] + [v / 4 for v in values if v > 0])
    ceiling = max([2.0 ** 19] + [v * 16 for v in values])
    colors = [_BAR[marks.get(r.name, ("ok",))[0]] for r in shown]
    ax.barh(range(len(shown)), [max(v, floor) - floor for v in values], left=floor, color=colors, height=0.65,
            zorder=2)
    ax.set_xscale("log", base=2)
    ax.set_xlim(floor, ceiling)
    _format_lines(ax)
    for i, r in enumerate(shown):
        ax.text(max(r.max_abs, floor) * 1.15, i, f"{r.max_abs:.3g}  {r.kind}", va="center", fontsize=10, zorder=3)
    ax.set_yticks(range(len(shown)), _short_names([r.name for r in shown], [r.name for r in report.modules]),
                  fontsize=11)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(lambda v, _: f"$2^{{{round(math.log2(v))}}}$")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_xlabel("output-এর বৃহত্তম |মান| (FP32-এ মাপা; log₂ অক্ষ)")
    left = [f"{rest}টি ছোট মানের module" if rest else "", f"{echoed}টি container (output ভেতরের module-এর সমান)"
            if echoed else ""]
    note = "; ".join(x for x in left if x)
    ax.set_title(f"{report.model}: প্রতিটি module-এর output বনাম ফরম্যাটের পরিসর (লক্ষ্য {report.target})\n"
                 + (f"দেখানো হয়নি: {note}" if note else "সব module দেখানো হলো"), fontsize=13, loc="left")
    _bar_legend(ax, marks)
    return fig


# ---------------------------------------------------------------- চিত্র ২: gradient-এর histogram
def _merged_histogram(report: CheckupReport) -> dict:
    out: dict = {}
    for row in report.params:
        for b, c in row.histogram.items():
            out[int(b)] = out.get(int(b), 0) + c
    return out


def _bands(ax, xlim: tuple) -> None:
    """FP16-এর চার এলাকা পেছনে রঙে, আর প্রতিটির নাম ওপরে।"""
    for kind, lo, hi in format_regions("fp16").bands():
        lo, hi = max(lo, xlim[0]), min(hi, xlim[1])
        ax.axvspan(lo, hi, color=_BAND[kind][0], lw=0, zorder=0)
        if hi - lo >= 4:                                     # সরু এলাকায় নাম ধরে না; রংটা legend-এ
            ax.text((lo + hi) / 2, 0.97, _BAND[kind][1], transform=ax.get_xaxis_transform(), ha="center",
                    va="top", fontsize=10, color="#333333")


def _grad_panel(ax, hist: dict, shift: int, report: CheckupReport, xlim: tuple) -> None:
    """একটি প্যানেল: খোপ b (|g| ≤ 2^b, > 2^(b-1)) x-অক্ষের (b-1, b]-এ, loss scale 2^shift-এ ডানে সরানো।"""
    fp16, scale = get_format("fp16"), report.loss_scale
    _bands(ax, xlim)
    buckets = sorted(hist)
    ax.bar([b - 0.5 + shift for b in buckets], [hist[b] for b in buckets], width=1.0, color="#1f4e79", zorder=2,
           label="parameter-এর gradient (FP32), প্রতিটি খোপে কয়টি")
    zero = math.log2(fp16.min_subnormal / 2)
    ax.axvline(zero, color="black", ls="--", lw=1.5, zorder=3,
               label=f"শূন্যের সীমা {_power(round(zero), True)} (smallest subnormal ÷ 2): বাঁয়ের খোপ 0 হয়")
    ax.axvline(math.log2(fp16.max), color=_BAR["overflow"], ls="--", lw=1.5, zorder=3,
               label=f"{fp16.label}-এর max {fp16.max:g}")
    if scale.max_activation_grad > 0:
        ax.axvline(math.log2(scale.max_activation_grad) + shift, color="#ff7f0e", ls="-.", lw=2, zorder=3,
                   label="activation gradient-এর max (× scale)")
    ax.set_yscale("log")
    ax.set_ylim(0.5, max(hist.values(), default=1) * 40)
    ax.set_xlim(*xlim)
    ax.set_ylabel("উপাদানের সংখ্যা")
    ax.grid(True, axis="y", alpha=0.3)


def _grad_xlim(hist: dict, k: int, report: CheckupReport) -> tuple:
    fp16 = get_format("fp16")
    lo = min([math.log2(fp16.min_subnormal / 2)] + [b - 1 + min(k, 0) for b in hist])
    hi = max([math.log2(fp16.max)] + [b + max(k, 0) for b in hist])
    if report.loss_scale.max_activation_grad > 0:
        hi = max(hi, math.log2(report.loss_scale.max_activation_grad) + max(k, 0))
    return math.floor(lo) - 5, math.ceil(hi) + 5


def gradient_range_figure(report: CheckupReport):
    """পাঠ ১০: সব parameter-এর FP32 gradient-এর log2-histogram (report.params-এর histogram জোড়া দিয়ে), দুই
    প্যানেলে: loss scale 1-এ, আর প্রস্তাবিত loss scale-এ (report.loss_scale.init_scale — ঠিক log₂(scale) খোপ ডানে)।
    পেছনে FP16-এর এলাকা, দাগ: শূন্যে মুছে যাওয়ার সীমা (smallest subnormal ÷ 2), FP16-এর max 65504 আর activation
    gradient-এর max (সেও scale-এর সঙ্গে সরে, তাই scale-এর সীমা টানে)। প্রতিটি প্যানেলে শূন্য-নয় gradient-এর কত
    ভাগ শূন্য হয়। Figure ফেরত দেয়।"""
    hist, scale = _merged_histogram(report), report.loss_scale
    k = round(math.log2(scale.init_scale))
    xlim = _grad_xlim(hist, k, report)
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(12, 9), layout="constrained")
    total = sum(hist.values())
    window = (f"নিরাপদ scale-এর জানালা {_pow2(scale.low, True)} … {_pow2(scale.high, True)}" if scale.window_ok
              else f"নিরাপদ scale-এর জানালা নেই (no safe window); overflow ছাড়া সর্বোচ্চ {_pow2(scale.high, True)}")
    panels = [(0, scale.underflow_share_at_1, "loss scale 1 (scale ছাড়া)"),
              (k, scale.underflow_share_at_init, f"প্রস্তাবিত loss scale {_pow2(scale.init_scale, True)} ({window})")]
    for ax, (shift, share, title) in zip(axes, panels, strict=True):
        _grad_panel(ax, hist, shift, report, xlim)
        ax.set_title(f"{title}\nশূন্যে মুছে যায় (underflow): শূন্য-নয় gradient-এর {100 * share:.3g}%", fontsize=13,
                     loc="left")
    if not total:
        axes[0].text(0.5, 0.5, "কোনো শূন্য-নয় gradient নেই", transform=axes[0].transAxes, ha="center")
    axes[1].xaxis.set_major_locator(MultipleLocator(4 if xlim[1] - xlim[0] <= 64 else 8))
    axes[1].xaxis.set_major_formatter(lambda v, _: f"$2^{{{v:g}}}$")
    axes[1].set_xlabel("|gradient| × loss scale (log₂ অক্ষ; প্রতিটি খোপ এক ঘাত)")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=10,
               frameon=False)
    fig.suptitle(f"{report.model}: {total:,}টি শূন্য-নয় FP32 gradient বনাম FP16-এর পরিসর — loss scale সব মানকে "
                 "ডানে সরায়", fontsize=14)
    return fig


# ---------------------------------------------------------------- সারণি
@dataclass
class _Table:
    """একটি সারণি: শিরোনাম, কলাম, সারি, কয়টি সারি বাদ, আর সারি না থাকলে কী বলা হবে।"""

    title: str
    header: list | None
    rows: list
    left_out: int = 0
    empty: str = "কিছু নেই"


def _summary(report: CheckupReport) -> _Table:
    cap = f" (sm_{report.target_capability[0]}{report.target_capability[1]})" if report.target_capability else ""
    ls = report.loss_scale
    window = (f"{_pow2(ls.low)} … {_pow2(ls.high)}" if ls.window_ok else
              f"নেই (no safe window): underflow তুলতে লাগে ≥ {_pow2(ls.low)}, overflow ছাড়া সর্বোচ্চ {_pow2(ls.high)}"
              if ls.low else f"নেই (no safe window): 2^24 পর্যন্ত কোনো scale underflow তোলে না; সর্বোচ্চ {_pow2(ls.high)}")
    where = f"{report.numbers_label}; {report.autocast_rules.upper()}-র autocast-এর নিয়মে"
    chosen = report.recommended_precision.upper()
    if report.recommended_precision == UNKNOWN:
        chosen = (f"অজানা (unknown): {report.target_precision.upper()}-এর step এখানে চলেনি — লক্ষ্যের যন্ত্রে "
                  "check-up আবার চালাও")
    mode = ("train" if report.training else
            "eval — dropout বন্ধ, BatchNorm চলমান গড়ে; প্রশিক্ষণের রায় চাইলে আগে model.train()")
    rows = [["মডেল", report.model], ["মডেলের mode", mode], ["লক্ষ্য (target)", report.target + cap],
            ["সংখ্যা কোথা থেকে", where + (" — লক্ষ্যের যন্ত্রে মাপা নয়" if report.emulated else "")],
            ["সুপারিশ (recommended precision)", chosen],
            ["GradScaler-এর init_scale (fp16_init_scale)",
             _pow2(report.fp16_init_scale) if report.fp16_init_scale else
             "— (রায় অজানা)" if report.recommended_precision == UNKNOWN else "— (FP16 নয়)"],
            ["FP32-এ রাখো (keep_fp32)", (", ".join(_label(n) for n in report.keep_fp32) or "কিছু না") +
             (" — রেখেও সারে না (still broken)" if (report.keep_fp32_check or {}).get("broken") else "")],
            ["FP16-এর নিরাপদ scale-এর জানালা (safe window)", window]]
    return _Table("সারকথা", None, rows)


def _agreement(report: CheckupReport) -> _Table:
    rows = [["FP32", _num(report.loss.get("fp32")), "reference", "reference", "reference", "—", "—"]]
    for p in report.precisions:
        numbers = [report.loss, report.loss_rel_error, report.grad_rel_error, report.grad_cosine]
        # step চলেনি: nan, 1, 0 আসলে মাপা নয় — ভুলটা পরামর্শে
        cells = ["চলেনি (failed)"] * 4 if report.errors.get(p) else [_num(d.get(p)) for d in numbers]
        rows.append([p.upper(), *cells, ", ".join(_label(n) for n in report.overflow_modules.get(p, [])) or "নেই",
                     _label(report.first_nonfinite[p]) if report.first_nonfinite.get(p) is not None else "নেই"])
    return _Table("প্রতিটি precision বনাম FP32", ["precision", "loss", "loss-এর আপেক্ষিক ত্রুটি",
                                                "gradient-এর আপেক্ষিক ত্রুটি", "gradient-এর cosine", "overflow",
                                                "প্রথম inf/NaN"], rows)


def _flags(run) -> str:
    words = [w for w, on in (("forward overflow", run.forward_overflow), ("backward overflow", run.backward_overflow),
                             ("max-এর কাছে (near max)", run.near_max), ("inf/NaN", run.nonfinite)) if on]
    return ", ".join(words) or "—"


def _unique_worst(report: CheckupReport, p: str) -> tuple[list, int]:
    """worst_modules[p]-এর নাম, একই সংখ্যার সারি বাদ দিয়ে: container বা Dropout-এর output আগের module-এর output-ই
    (চিত্রের মতো) — প্রথমটি (যে বানায়) থাকে। সঙ্গে কয়টি বাদ।"""
    rows_by = {r.name: r for r in report.modules}
    seen, names = set(), []
    for name in report.worst_modules.get(p, []):
        row, run = rows_by[name], rows_by[name].runs[p]
        key = (row.max_abs, run.max_abs, run.rel_error, run.dtype)
        if key not in seen:
            seen.add(key)
            names.append(name)
    return names, len(report.worst_modules.get(p, [])) - len(names)


def _worst(report: CheckupReport, p: str, top: int) -> _Table:
    rows_by = {r.name: r for r in report.modules}
    names, folded = _unique_worst(report, p)
    rows = []
    for name in names[:top]:
        row, run = rows_by[name], rows_by[name].runs[p]
        rows.append([_label(name), row.kind, _num(row.max_abs), _num(run.max_abs), _num(run.rel_error),
                     _num(run.added), _flags(run)])
    same = f" ({folded}টি সারি বাদ: container বা Dropout, সংখ্যা আগের module-এর হুবহু)" if folded else ""
    return _Table(f"{p.upper()}: সবচেয়ে বেশি আপেক্ষিক ত্রুটির module{same}", ["module", "ধরন", "FP32 max|x|",
                  f"{p.upper()} max|x|", "আপেক্ষিক ত্রুটি", "নিজে যোগ করা (× input-এর ত্রুটি)", "চিহ্ন"],
                  rows, len(names) - len(rows))


def _underflow(report: CheckupReport, top: int) -> _Table:
    rows_by = {r.name: r for r in report.params}
    scale = report.loss_scale.init_scale
    names = list(dict.fromkeys(n for f in ("fp16", "bf16") for n in report.underflow_params.get(f, [])))
    names.sort(key=lambda n: rows_by[n].underflow_share["fp16"], reverse=True)
    rows = [[n, rows_by[n].numel, f"{100 * rows_by[n].underflow_share['fp16']:.3g}%",
             f"{100 * rows_by[n].underflow_share['bf16']:.3g}%", f"{100 * rows_by[n].underflow_share_at_init:.3g}%"]
            for n in names[:top]]
    return _Table("যে parameter-এর gradient শূন্যে মুছে যায় (underflow, loss scale 1-এ >1%)",
                  ["parameter", "উপাদান", "FP16, scale 1", "BF16, scale 1", f"FP16, scale {_pow2(scale)}"], rows,
                  len(names) - len(rows), "কোনো parameter নয়")


def _ops(report: CheckupReport, top: int) -> _Table:
    flagged = sorted((o for o in report.ops if o.flagged), key=lambda o: o.calls, reverse=True)
    rows = [[o.op, o.kind, o.dtype, o.calls, o.precision.upper()] for o in flagged[:top]]
    return _Table(f"১৬-বিটে চলা reduction, normalization, softmax বা loss ({report.autocast_rules.upper()}-র autocast-এর "
                  "নিয়মে)", ["op", "ধরন", "dtype", "কতবার", "precision"], rows, len(flagged) - len(rows),
                  "কোনোটা নয়")


def _times(cost, ref) -> str:
    return f"{cost / ref:.2f}×" if ref else "—"


def _costs(report: CheckupReport) -> _Table:
    ref = next((c for c in report.costs if c.precision == "fp32"), None)
    rows = []
    for c in report.costs:
        kept = c.activation_bytes + c.cast_cache_bytes
        ref_kept = ref.activation_bytes + ref.cast_cache_bytes if ref else 0
        ms = f"{1e3 * c.step_seconds:.3g}" if c.step_seconds else "মাপা হয়নি"
        rows.append([c.precision.upper(), ms, _times(c.step_seconds, ref and ref.step_seconds) if c.step_seconds
                     else "—", f"{c.activation_bytes / _MIB:.3g}", f"{c.cast_cache_bytes / _MIB:.3g}",
                     _times(kept, ref_kept), f"{100 * c.mfu:.3g}%" if c.mfu is not None else "—"])
    where = f"{report.device.upper()}-তে মাপা" + (", লক্ষ্যের যন্ত্রে নয়" if report.emulated else "")
    return _Table(f"খরচ (cost), এক step, {where}",
                  ["precision", "forward+backward (ms)", "সময় ÷ FP32", "activation (MiB)", "cast cache (MiB)",
                   "রাখা বাইট ÷ FP32", "MFU"], rows)


def _render(tables: list, top: int) -> Rich:
    parts, text = [], []
    for t in tables:
        parts.append(f"<p style='font-weight:bold;margin:14px 0 2px'>{html.escape(t.title)}</p>")
        text.append(f"\n== {t.title} ==")
        if t.rows:
            parts.append(table_html(t.rows, t.header))
            text += [" | ".join(map(str, r)) for r in ([t.header] if t.header else []) + t.rows]
        else:
            parts.append(f"<p style='margin:2px 0'>{html.escape(t.empty)}</p>")
            text.append(t.empty)
        if t.left_out:
            line = f"আরও {t.left_out}টি সারি দেখানো হয়নি (top={top}; সব সারি report-এর attribute-এ)"
            parts.append(f"<p style='margin:2px 0;color:#555555'>{html.escape(line)}</p>")
            text.append(line)
    return Rich("".join(parts), "\n".join(text).lstrip("\n"))


def show_checkup(report: CheckupReport, top: int = 12) -> None:
    """পাঠ ১০: check-up-এর পুরো ফল notebook-এ — সারকথা (লক্ষ্য, সংখ্যা কোথা থেকে, সুপারিশ, init_scale,
    keep_fp32, নিরাপদ loss scale), প্রতিটি precision বনাম FP32, সবচেয়ে বেশি ত্রুটির module, underflow হওয়া
    parameter, ১৬-বিটে চলা সন্দেহের op, খরচ, দুটি চিত্র (module_range_figure, gradient_range_figure), আর শেষে
    পরামর্শ (report.advice, কোডসহ)। প্রতিটি সারণি প্রথম top-টি সারি দেখায়, কয়টি বাদ তা বলে। কিছু ফেরত দেয় না।"""
    from IPython.display import display

    top = _top(top)
    setup_bengali()
    tables = [_summary(report), _agreement(report), *(_worst(report, p, top) for p in report.precisions),
              _underflow(report, top), _ops(report, top), _costs(report)]
    display(_render(tables, top))
    for fig in (module_range_figure(report, top), gradient_range_figure(report)):
        display(fig)
        plt.close(fig)
    pre = "<pre style='white-space:pre-wrap;background:#f7f7f7;padding:8px 12px'>"
    title = "পরামর্শ (advice)"
    display(Rich(f"<p style='font-weight:bold;margin:14px 0 2px'>{title}</p>{pre}{html.escape(report.advice)}</pre>",
                 f"== {title} ==\n{report.advice}"))
