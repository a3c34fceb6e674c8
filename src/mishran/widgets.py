"""ipywidgets দিয়ে খেলার জিনিস: বিট-বিন্যাস অনুসন্ধানী (পাঠ ০১), loss scaling simulator (পাঠ ০২)।

হিসাবের অংশ (explore, explorer_html) browser ছাড়াই test করা যায়; widget শুধু সেটা দেখায়।
ipywidgets 7.7 (Colab) আর 8 (JupyterLab 4) দুটোতেই চলে: কেবল Text, Dropdown, IntSlider, FloatSlider, HTML,
Output, VBox আর observe ব্যবহার করে।
"""
from __future__ import annotations

import html
import math
import random

from . import formats
from .plots import FIELD_COLORS
from .scaling import DeepSpeedLossScaler, DynamicLossScaler, simulate

__all__ = ["parse_number", "explore", "explorer_html", "bit_explorer"]

DEFAULT_FORMATS = ("fp32", "tf32", "bf16", "fp16", "fp8_e5m2", "fp8_e4m3")


def parse_number(text: str) -> float:
    """লেখা থেকে সংখ্যা: '1e-5', '65520', '-0', 'inf', 'nan', '2**-24', '1/3' বা বাংলা অঙ্ক '৬৫৫০৪'।"""
    s = str(text).strip().translate(str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")).replace(",", "").replace("−", "-")
    if not s:
        raise ValueError("একটি সংখ্যা লেখো (type a number), যেমন 0.1 বা 65520")
    try:
        return float(s)
    except ValueError:
        pass
    for op in ("**", "/"):
        left, sep, right = s.partition(op)
        if sep:
            a, b = parse_number(left), parse_number(right)
            if op == "**":
                return float(a ** b)
            return a / b if b != 0 else math.copysign(math.inf, a)
    raise ValueError(f"'{text}' সংখ্যা হিসেবে পড়া গেল না (not a number); লেখো যেমন 0.1, 1e-5, 2**-24 বা 1/3")


def explore(value: float, fmts=DEFAULT_FORMATS) -> list[dict]:
    """প্রতিটি ফরম্যাটে value কী হয়: বিট, round-করা মান, ত্রুটি (error) আর শ্রেণি।"""
    rows = []
    for name in fmts:
        f = formats.get_format(name)
        d = formats.decode(value, f)
        err = d.value - value if math.isfinite(d.value) and math.isfinite(value) else math.nan
        rel = abs(err) / abs(value) if value not in (0.0,) and math.isfinite(err) else (0.0 if err == 0 else math.nan)
        rows.append({"format": f.label, "sign": d.sign_bits, "exponent": d.exponent_bits,
                     "mantissa": d.mantissa_bits, "value": d.value, "abs_error": err, "rel_error": rel,
                     "kind": d.kind})
    return rows


KIND_BN = {"normal": "normal", "subnormal": "subnormal", "zero": "শূন্য (zero)", "inf": "অসীম (inf)", "nan": "NaN"}


def explorer_html(text: str, fmts=DEFAULT_FORMATS) -> str:
    """ইনপুট লেখা থেকে HTML সারণি; ভুল ইনপুটে বাংলায় বার্তা।"""
    try:
        value = parse_number(text)
    except ValueError as err:
        return f"<p style='color:{FIELD_COLORS['sign']}'>{html.escape(str(err))}</p>"
    span = lambda bits, field: (f"<span style='color:{FIELD_COLORS[field]};font-family:monospace;"  # noqa: E731
                                f"font-weight:bold'>{bits}</span>")
    head = ("<tr><th>ফরম্যাট</th><th>বিট: <span style='color:{s}'>sign</span> "
            "<span style='color:{e}'>exponent</span> <span style='color:{m}'>mantissa</span></th>"
            "<th>রাখা মান</th><th>ত্রুটি (error)</th><th>শ্রেণি</th></tr>").format(
                s=FIELD_COLORS["sign"], e=FIELD_COLORS["exponent"], m=FIELD_COLORS["mantissa"])
    body = []
    for r in explore(value, fmts):
        bits = " ".join([span(r["sign"], "sign"), span(r["exponent"], "exponent"), span(r["mantissa"], "mantissa")])
        err = "—" if math.isnan(r["abs_error"]) else f"{r['abs_error']:.3g} (আপেক্ষিক {r['rel_error']:.3g})"
        body.append(f"<tr><td>{r['format']}</td><td>{bits}</td><td>{r['value']!r}</td><td>{err}</td>"
                    f"<td>{KIND_BN[r['kind']]}</td></tr>")
    return (f"<p>ইনপুট: <b>{value!r}</b></p><table style='border-collapse:collapse'>{head}"
            + "".join(body) + "</table>")


def bit_explorer(initial: str = "0.1", fmts=DEFAULT_FORMATS):
    """একটি সংখ্যা লেখো, Enter চাপো: প্রতিটি ফরম্যাটে তার বিট, রাখা মান আর ত্রুটি দেখো।"""
    import ipywidgets as widgets

    box = widgets.Text(value=initial, description="সংখ্যা:", continuous_update=False,
                       placeholder="যেমন 0.1, 65520, 1e-8, 2**-24")
    out = widgets.HTML(value=explorer_html(initial, fmts))

    def on_change(change):
        out.value = explorer_html(change["new"], fmts)

    box.observe(on_change, names="value")
    return widgets.VBox([box, out])


# ---------- পাঠ ০২: loss scaling simulator ----------
# হিসাবের অংশ (simulate_timeline, timeline_summary, timeline_html) browser ছাড়াই test করা যায়; নিয়মগুলো
# নিজে এখানে লেখা নেই — আসে mishran.scaling থেকে (DynamicLossScaler, DeepSpeedLossScaler, simulate)।

POLICY_LABELS = {"pytorch": "PyTorch (torch.amp.GradScaler)", "deepspeed": "DeepSpeed (fp16 loss scaler)"}
EVENT_STYLE = {   # ঘটনা → (রং, চিহ্ন, বাংলা নাম); চিত্র আর সারসংক্ষেপ দুই জায়গায় একই
    "backoff": ("#d62728", "v", "overflow: ধাপ বাদ, scale অর্ধেক"),
    "hysteresis": ("#ff7f0e", "o", "overflow: ধাপ বাদ, hysteresis খরচ (scale একই)"),
    "grow": ("#2ca02c", "^", "scale দ্বিগুণ"),
    "error": ("#000000", "X", "সর্বনিম্ন scale-এ আবার overflow: প্রশিক্ষণ থামে"),
}


def scaler_for_policy(policy: str, interval: int, hysteresis: int = 2, init_scale: float = 2.0 ** 16,
                      min_scale: float = 1.0):
    """policy অনুযায়ী mishran.scaling-এর scaler (পাঠ ০২)। interval = growth_interval বা loss_scale_window।"""
    if policy == "pytorch":
        return DynamicLossScaler(init_scale=init_scale, growth_interval=interval)
    if policy == "deepspeed":
        return DeepSpeedLossScaler(init_scale=init_scale, scale_window=interval, hysteresis=hysteresis,
                                   min_scale=min_scale)
    raise ValueError(f"অচেনা policy {policy!r} (unknown policy); বেছে নাও: {', '.join(POLICY_LABELS)}")


def simulate_timeline(policy: str = "pytorch", interval: int = 100, hysteresis: int = 2, p_overflow: float = 0.01,
                      steps: int = 500, seed: int = 0, overflow_above: float | None = None,
                      init_scale: float = 2.0 ** 16, min_scale: float = 1.0) -> list[dict]:
    """scale-এর সময়রেখা, mishran.scaling.simulate দিয়ে (পাঠ ০২-এর simulator-এর হিসাব)।

    প্রতিটি ধাপে overflow হয় দুই কারণে: (ক) p_overflow সম্ভাবনায় হঠাৎ একটি বড় gradient (seed দিলে
    একই ধারা — দুই policy একই seed-এ একই ধাপে ধাক্কা খায়); (খ) overflow_above দিলে, scale তার চেয়ে
    বড় হলেই (আসল প্রশিক্ষণের মতো: বড় scale-এ gradient FP16-এর max ছাড়ায়)।
    ফেরত দেয় simulate()-এর সারিগুলো: step, scale, found_inf, stepped, new_scale, event, message, error।
    """
    if not 0.0 <= p_overflow <= 1.0:
        raise ValueError(f"p_overflow হবে 0 থেকে 1-এর মধ্যে একটি সম্ভাবনা (a probability); পেয়েছি {p_overflow!r}")
    scaler = scaler_for_policy(policy, interval, hysteresis, init_scale, min_scale)
    rng = random.Random(seed)

    def overflow(step, scale):
        spike = rng.random() < p_overflow           # প্রতি ধাপে ঠিক একটি এলোমেলো সংখ্যা
        return spike or (overflow_above is not None and scale > overflow_above)

    return simulate(scaler, overflow, steps=steps)


def timeline_summary(rows: list[dict]) -> dict:
    """সময়রেখার সংক্ষেপ: কয়টি ধাপ, কয়টি বাদ, কয়বার বাড়ল/কমল, শেষ scale, থেমে গেল কি না।"""
    events = [r["event"] for r in rows]
    return {"steps": len(rows), "overflows": sum(r["found_inf"] for r in rows),
            "skipped": sum(not r["stepped"] for r in rows), "grows": events.count("grow"),
            "backoffs": events.count("backoff"), "hysteresis": events.count("hysteresis"),
            "final_scale": rows[-1]["new_scale"] if rows else None,
            "min_scale": min((r["scale"] for r in rows), default=None),
            "max_scale": max((r["scale"] for r in rows), default=None),
            "error": next((r["error"] for r in rows if r["error"]), None)}


def _pow2(x: float) -> str:
    """2-এর ঘাত হলে '2^k', নইলে সাধারণ সংখ্যা।"""
    if x and x > 0 and math.log2(x).is_integer():
        return f"2^{int(math.log2(x))}"
    return f"{x:g}"


def timeline_html(rows: list[dict], policy: str = "pytorch") -> str:
    """সময়রেখার সংক্ষেপ, এক অনুচ্ছেদ HTML (widget-এর নিচে দেখায়)।"""
    s = timeline_summary(rows)
    if not rows:
        return "<p>কোনো ধাপ নেই (no steps)।</p>"
    text = (f"<b>{html.escape(POLICY_LABELS[policy])}</b>: {s['steps']}টি ধাপ, তার {s['overflows']}টিতে overflow, "
            f"বাদ পড়েছে {s['skipped']}টি ({100 * s['skipped'] / s['steps']:.1f}%)। scale কমেছে {s['backoffs']} বার, "
            f"বেড়েছে {s['grows']} বার")
    if policy == "deepspeed":
        text += f", hysteresis খরচ {s['hysteresis']} বার"
    text += (f"। scale ছিল {_pow2(s['min_scale'])} থেকে {_pow2(s['max_scale'])}; শেষে {_pow2(s['final_scale'])}।")
    if s["error"]:
        first = html.escape(s["error"].splitlines()[0])
        text += f"<br><span style='color:{EVENT_STYLE['error'][0]}'>DeepSpeed থেমে গেছে: <code>{first}</code></span>"
    return f"<p>{text}</p>"


def draw_timeline(rows: list[dict], ax=None, label: str | None = None, color: str = "#1f77b4", events: bool = True,
                  ls: str = "-", lw: float = 2):
    """scale-এর সময়রেখা আঁকে (log2 অক্ষে), overflow/বাড়া/hysteresis চিহ্নসহ; ax ফেরত দেয় (পাঠ ০২)।"""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4.5))
    steps = [r["step"] for r in rows]
    ax.step(steps, [math.log2(r["scale"]) for r in rows], where="post", color=color, lw=lw, ls=ls, label=label)
    if events:
        for event, (c, marker, name) in EVENT_STYLE.items():
            hit = [r for r in rows if r["event"] == event]
            if hit:
                ax.scatter([r["step"] for r in hit], [math.log2(r["scale"]) for r in hit], color=c, marker=marker,
                           s=45, zorder=3, label=name)
    ax.set_xlabel("ধাপ (step)")
    ax.set_ylabel("loss scale (log₂)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))       # কেবল 2-এর পূর্ণ ঘাত
    ax.yaxis.set_major_formatter(lambda v, _: f"$2^{{{v:g}}}$")
    ax.grid(True, alpha=0.3)
    return ax


def loss_scale_simulator(policy: str = "pytorch", interval: int = 20, hysteresis: int = 2, p_overflow: float = 0.005,
                         steps: int = 500, seed: int = 0, overflow_above_log2: int | None = 20):
    """নিজে খেলো (পাঠ ০২): policy, growth interval / scale window, hysteresis, overflow-এর সম্ভাবনা বদলাও,
    scale-এর সময়রেখা দেখো। overflow_above_log2 = k মানে scale > 2^k হলেই overflow (None: এমন সীমা নেই)।
    ipywidgets 7.7 ও 8 দুটোতেই চলে।"""
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .plots import setup_bengali

    setup_bengali()                                          # চিত্রের বাংলা লেখার জন্য
    style = {"description_width": "170px"}
    layout = widgets.Layout(width="460px")
    w_policy = widgets.Dropdown(options=[(v, k) for k, v in POLICY_LABELS.items()], value=policy,
                                description="নিয়ম (policy):", style=style, layout=layout)
    w_interval = widgets.IntSlider(value=interval, min=1, max=500, step=1, description="বাড়ার বিরতি (interval):",
                                   style=style, layout=layout, continuous_update=False)
    w_hyst = widgets.IntSlider(value=hysteresis, min=1, max=5, step=1, description="hysteresis:", style=style,
                               layout=layout, continuous_update=False)
    w_p = widgets.FloatSlider(value=p_overflow, min=0.0, max=0.2, step=0.005, readout_format=".3f",
                              description="হঠাৎ overflow-এর সম্ভাবনা:", style=style, layout=layout,
                              continuous_update=False)
    # Dropdown-এ None মানে "কিছুই বাছা নেই", তাই "নেই"-এর মান 0
    w_above = widgets.Dropdown(options=[("নেই (none)", 0)] + [(f"scale > 2^{k}", k) for k in range(8, 33)],
                               value=overflow_above_log2 or 0, description="এর ওপরে সবসময় overflow:", style=style,
                               layout=layout)
    w_steps = widgets.IntSlider(value=steps, min=50, max=3000, step=50, description="ধাপ (step):", style=style,
                                layout=layout, continuous_update=False)
    w_seed = widgets.IntSlider(value=seed, min=0, max=20, step=1, description="seed:", style=style, layout=layout,
                               continuous_update=False)
    summary = widgets.HTML()
    out = widgets.Output()

    def redraw(change=None):
        w_hyst.disabled = w_policy.value != "deepspeed"          # PyTorch-এ hysteresis নেই
        above = 2.0 ** w_above.value if w_above.value else None
        rows = simulate_timeline(w_policy.value, w_interval.value, w_hyst.value, w_p.value, w_steps.value,
                                 w_seed.value, overflow_above=above)
        summary.value = timeline_html(rows, w_policy.value)
        with out:
            out.clear_output(wait=True)
            fig, ax = plt.subplots(figsize=(9, 4))
            draw_timeline(rows, ax)
            if above is not None:
                ax.axhline(w_above.value, color="#999999", ls=":", lw=1)
            ax.set_title(POLICY_LABELS[w_policy.value])
            ax.legend(loc="lower right", fontsize=9)
            fig.tight_layout()
            plt.show()
            plt.close(fig)                                  # inline ছাড়া অন্য backend-এ যেন জমে না থাকে

    for w in (w_policy, w_interval, w_hyst, w_p, w_above, w_steps, w_seed):
        w.observe(redraw, names="value")
    redraw()
    controls = widgets.VBox([w_policy, w_interval, w_hyst, w_p, w_above, w_steps, w_seed])
    return widgets.VBox([controls, summary, out])


__all__ += ["POLICY_LABELS", "scaler_for_policy", "simulate_timeline", "timeline_summary", "timeline_html",
            "draw_timeline", "loss_scale_simulator"]
