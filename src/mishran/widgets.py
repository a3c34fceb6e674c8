"""ipywidgets দিয়ে খেলার জিনিস (পাঠ ০১): বিট-বিন্যাস অনুসন্ধানী (bit-layout explorer)।

হিসাবের অংশ (explore, explorer_html) browser ছাড়াই test করা যায়; widget শুধু সেটা দেখায়।
ipywidgets 7.7 (Colab) আর 8 (JupyterLab 4) দুটোতেই চলে: কেবল Text, HTML, VBox আর observe ব্যবহার করে।
"""
from __future__ import annotations

import html
import math

from . import formats
from .plots import FIELD_COLORS

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
