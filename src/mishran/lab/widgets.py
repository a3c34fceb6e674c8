"""ipywidgets দিয়ে খেলার জিনিস: বিট-বিন্যাস অনুসন্ধানী (পাঠ ০১), loss scaling simulator (পাঠ ০২)।

    bit_explorer()            # একটি সংখ্যা লেখো: প্রতিটি ফরম্যাটে তার বিট
    loss_scale_simulator()    # নিয়ম আর slider বদলাও: scale-এর সময়রেখা

হিসাবের অংশ browser ছাড়াই test করা যায়; widget শুধু সেটা দেখায়। ipywidgets 7.7 (Colab) আর 8 (JupyterLab 4)
দুটোতেই চলে: কেবল Text, Dropdown, IntSlider, FloatSlider, HTML, Output, VBox আর observe ব্যবহার করে।
"""
from __future__ import annotations

import ast
import html
import math
import numbers
import operator
import random
import re
import unicodedata
import warnings

import ipywidgets as widgets
import matplotlib.pyplot as plt

from mishran.checks import finite_float
from mishran.lab.display import table_html
from mishran.lab.figures import EVENT_STYLE, FIELD_COLORS, setup_bengali, timeline_figure
from mishran.numerics import formats
from mishran.numerics.scaling import DeepSpeedLossScaler, DynamicLossScaler, simulate

__all__ = ["DEFAULT_FORMATS", "MAX_INPUT", "parse_number", "explore", "explorer_html", "bit_explorer",
           "POLICY_LABELS", "simulate_timeline", "timeline_summary", "timeline_html",
           "simulator_view", "loss_scale_simulator"]

DEFAULT_FORMATS = ("fp32", "tf32", "bf16", "fp16", "fp8_e5m2", "fp8_e4m3")

_SYMBOLS = str.maketrans({"−": "-", "–": "-", "×": "*", "÷": "/", "∞": " inf ", ",": None})
MAX_INPUT = 200                     # এর চেয়ে লম্বা লেখা পড়ি না (bit explorer-এর বাক্সে একটি সংখ্যা লেখার কথা)
NOT_A_NUMBER = ("'{text}' সংখ্যা হিসেবে পড়া গেল না (not a number); লেখো যেমন 0.1, 1e-5, 2**-24, 1/3, "
                "-8**0.5 বা 10**400")
# সংখ্যা যেভাবে লেখা যায়: 12, 1_000, .5, 5., 1e-5 — প্রতিটি float() দিয়ে পড়া, তাই 007-ও 7 আর 1..2 ভুল
_NUMBER = re.compile(r"[0-9.][0-9._]*(?:[eE][+-]?[0-9][0-9_]*)?")
_ALLOWED = re.compile(r"[0-9A-Za-z._+\-*/() ]*")
_NAMED = {"inf": math.inf, "infinity": math.inf, "nan": math.nan}


def _ascii_digits(text: str) -> str:
    """যেকোনো লিপির দশমিক অঙ্ক (বাংলা ৬৫৫০৪, আরবি ٣, পূর্ণ-প্রস্থ ３) → 0-9।"""
    return "".join(str(unicodedata.decimal(ch, ch)) for ch in text)


def _divide(a: float, b: float) -> float:
    """IEEE 754-এর ভাগ: x/0 = ±inf, 0/0 = NaN (Python ZeroDivisionError তোলে, FP16/FP32 তোলে না)।"""
    if b != 0 or math.isnan(b):
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _odd_integer(b: float) -> bool:
    return math.isfinite(b) and b.is_integer() and abs(b) < 2.0 ** 53 and int(b) % 2 == 1


def _power(a: float, b: float) -> float:
    """IEEE 754-এর pow: খুব বড় হলে inf (OverflowError নয়), ঋণাত্মক ভিত্তির ভগ্নাংশ ঘাত NaN (complex নয়)।"""
    try:
        return math.pow(a, b)
    except OverflowError:                                          # 10**400, 2**2**2**2**2**2
        return -math.inf if (a < 0 and _odd_integer(b)) else math.inf
    except ValueError:                                             # (-8)**0.5 বা 0**-1
        if a == 0 and b < 0:
            return math.copysign(math.inf, a) if _odd_integer(b) else math.inf
        return math.nan


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: _divide, ast.Pow: _power}


def _evaluate(node) -> float:
    """ast-এর গাছ থেকে মান, শুধু এই কয়টি গিঁট চিনে: float, inf/nan, + - * / **, একক ±। বাকি সব ValueError।

    কিছুই Python-কে চালাতে দেওয়া হয় না (eval নেই); সব হিসাব float-এ, তাই 9**9**9-ও সঙ্গে সঙ্গে inf।
    """
    if isinstance(node, ast.Constant) and type(node.value) is float:
        return node.value
    if isinstance(node, ast.Name) and node.id.lower() in _NAMED:
        return _NAMED[node.id.lower()]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    raise ValueError(type(node).__name__)


def _number(match) -> str:
    """লেখা একটি সংখ্যা → float-এর repr, যাতে Python-এর parser শুধু float দেখে (007, 0_7-ও চলে); দুই পাশে ফাঁক,
    যাতে পাশাপাশি দুটি সংখ্যা ('2.5e-3202.5') জুড়ে একটি হয়ে না যায়।"""
    return f" {float(match.group())!r} "          # '1..2', '1_' হলে ValueError


def parse_number(text: str) -> float:
    """বাক্সে লেখা সংখ্যা বা ছোট হিসাব → float (পাঠ ০১-এর bit explorer)।

    পড়ে: '1e-5', '65520', '-0', 'inf', 'nan', '2**-24', '1/3', '(1+2)*3', বাংলা অঙ্ক '৬৫৫০৪', '1,000'।
    হিসাব চলে Python-এর ক্রমে (Python-এর নিজের parser, ast দিয়ে), কিন্তু IEEE 754 float-এর মতো: 10**400 = inf,
    0/0 = NaN, 1/0 = inf, (-8)**0.5 = NaN — exception নয়, কারণ FP16/FP32 নিজেও তাই দেয়। না পড়া গেলে বাংলা
    বার্তাসহ ValueError।
    """
    s = _ascii_digits(str(text)).translate(_SYMBOLS).strip()
    if not s:
        raise ValueError("একটি সংখ্যা লেখো (type a number), যেমন 0.1 বা 65520")
    if len(s) > MAX_INPUT:
        raise ValueError(f"লেখাটি খুব লম্বা ({len(s)} অক্ষর; too long) — {MAX_INPUT} অক্ষরের মধ্যে একটি সংখ্যা লেখো")
    if "^" in s:
        raise ValueError("ঘাতের (power) জন্য Python-এর মতো ** লেখো, যেমন 2**-24 (^ নয়)")
    s = "".join(" " if ch.isspace() else ch for ch in s)          # নতুন লাইন, tab, NBSP: সবই ফাঁক
    try:
        if not _ALLOWED.fullmatch(s):                             # #, ', [, অ, é ... কখনো সংখ্যার অংশ নয়
            raise ValueError(s)
        with warnings.catch_warnings():                           # '2(3)'-এর SyntaxWarning বাক্সে ছাপা নয়
            warnings.simplefilter("ignore")
            tree = ast.parse(_NUMBER.sub(_number, s).strip(), mode="eval")
        return float(_evaluate(tree.body))
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        shown = str(text) if len(str(text)) <= 40 else str(text)[:40] + "…"
        raise ValueError(NOT_A_NUMBER.format(text=shown)) from None


def _format_list(fmts) -> list:
    """ফরম্যাটের নামের অখালি list বা tuple → FloatFormat-এর list (অচেনা নামে formats-এর নিজের বাংলা ভুল)।"""
    if not isinstance(fmts, (list, tuple)) or not fmts:
        raise TypeError(f"fmts হবে ফরম্যাটের নামের একটি অখালি list, যেমন ('fp16', 'bf16') (a list of format names); "
                        f"পেয়েছি {fmts!r}")
    return [formats.get_format(name) for name in fmts]


def _as_value(value) -> float:
    """একটি বাস্তব সংখ্যা (বা এক উপাদানের tensor) → float; float-এ না আঁটা বড় পূর্ণসংখ্যা ±inf, যেমন FP32-এ হতো।"""
    if hasattr(value, "numel") and hasattr(value, "item") and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"value হবে একটি সংখ্যা (a real number), যেমন 0.1; লেখা থেকে পড়তে parse_number() ডাকো; "
                        f"পেয়েছি {value!r}")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def explore(value: float, fmts=DEFAULT_FORMATS) -> list[dict]:
    """প্রতিটি ফরম্যাটে value কী হয়: বিট, round-করা মান, ত্রুটি (error) আর শ্রেণি।"""
    value = _as_value(value)
    rows = []
    for f in _format_list(fmts):
        d = formats.decode(value, f)
        err = d.value - value if math.isfinite(d.value) and math.isfinite(value) else math.nan
        rel = abs(err) / abs(value) if value != 0 and math.isfinite(err) else (0.0 if err == 0 else math.nan)
        rows.append({"format": f.label, "sign": d.sign_bits, "exponent": d.exponent_bits,
                     "mantissa": d.mantissa_bits, "value": d.value, "abs_error": err, "rel_error": rel,
                     "kind": d.kind})
    return rows


_KIND_BN = {"normal": "normal", "subnormal": "subnormal", "zero": "শূন্য (zero)", "inf": "অসীম (inf)", "nan": "NaN"}


def explorer_html(text: str, fmts=DEFAULT_FORMATS) -> str:
    """ইনপুট লেখা থেকে HTML সারণি (প্রতি ঘরে padding); ভুল ইনপুটে বাংলায় বার্তা (পাঠ ০১)।"""
    try:
        value = parse_number(text)
    except ValueError as err:
        return f"<p style='color:{FIELD_COLORS['sign']}'>{html.escape(str(err))}</p>"

    def span(bits, field):
        return (f"<span style='color:{FIELD_COLORS[field]};font-family:monospace;font-weight:bold'>"
                f"{html.escape(bits)}</span>")

    head = ["ফরম্যাট", "বিট: " + " ".join(f"<span style='color:{FIELD_COLORS[k]}'>{k}</span>" for k in FIELD_COLORS),
            "রাখা মান", "ত্রুটি (error)", "শ্রেণি"]
    rows = []
    for r in explore(value, fmts):
        bits = " ".join(span(r[k], k) for k in ("sign", "exponent", "mantissa"))
        err = "—" if math.isnan(r["abs_error"]) else f"{r['abs_error']:.3g} (আপেক্ষিক {r['rel_error']:.3g})"
        rows.append([html.escape(r["format"]), bits, html.escape(repr(r["value"])), html.escape(err),
                     html.escape(_KIND_BN[r["kind"]])])
    note = ""
    if math.isinf(value):
        note = "<p>ইনপুট নিজেই float64-এ অসীম (inf): এত বড় সংখ্যা কোনো ফরম্যাটেই ধরে না — এটাই overflow।</p>"
    elif math.isnan(value):
        note = "<p>ইনপুট NaN (not a number): যেমন 0/0 বা inf − inf; NaN সব ফরম্যাটে NaN-ই থাকে।</p>"
    return f"<p>ইনপুট: <b>{html.escape(repr(value))}</b></p>{note}" + table_html(rows, head, escape=False)


def bit_explorer(initial: str = "0.1", fmts=DEFAULT_FORMATS):
    """একটি সংখ্যা লেখো, Enter চাপো: প্রতিটি ফরম্যাটে তার বিট, রাখা মান আর ত্রুটি দেখো।"""
    if not isinstance(initial, str):
        raise TypeError(f"initial হবে বাক্সের শুরুর লেখা (a str), যেমন '0.1'; পেয়েছি {initial!r}")
    _format_list(fmts)                                   # ভুল fmts প্রোগ্রামের ভুল: বাক্সের বার্তা নয়, error

    box = widgets.Text(value=initial, description="সংখ্যা:", continuous_update=False,
                       placeholder="যেমন 0.1, 65520, 1e-8, 2**-24")
    out = widgets.HTML(value=explorer_html(initial, fmts))

    def on_change(change):
        out.value = explorer_html(change["new"], fmts)

    box.observe(on_change, names="value")
    return widgets.VBox([box, out])


# ---------- পাঠ ০২: loss scaling simulator (নিয়মগুলো mishran.numerics.scaling-এর, এখানে লেখা নেই) ----------

POLICY_LABELS = {"pytorch": "PyTorch (torch.amp.GradScaler)", "deepspeed": "DeepSpeed (fp16 loss scaler)"}


def simulate_timeline(policy: str = "pytorch", interval: int = 100, hysteresis: int = 2, p_overflow: float = 0.01,
                      steps: int = 500, seed: int = 0, overflow_above: float | None = None,
                      init_scale: float = 2.0 ** 16, min_scale: float = 1.0) -> list[dict]:
    """scale-এর সময়রেখা: simulate()-এর সারি, policy-র scaler দিয়ে (পাঠ ০২-এর simulator-এর হিসাব)।

    interval = growth_interval (pytorch) বা scale window (deepspeed)। overflow হয় দুই কারণে: (ক) p_overflow
    সম্ভাবনায় হঠাৎ একটি বড় gradient (একই seed-এ দুই policy একই ধাপে ধাক্কা খায়); (খ) scale overflow_above-এর
    চেয়ে বড় হলেই (আসল প্রশিক্ষণের মতো: বড় scale-এ gradient FP16-এর max ছাড়ায়)।
    """
    def run(n):
        scaler = (DynamicLossScaler(init_scale=init_scale, growth_interval=interval) if policy == "pytorch" else
                  DeepSpeedLossScaler(init_scale=init_scale, scale_window=interval, hysteresis=hysteresis,
                                      min_scale=min_scale))
        rng = random.Random(seed)
        reached = []

        def overflow(step, scale):
            reached.append(step)
            spike = rng.random() < p_overflow           # প্রতি ধাপে ঠিক একটি এলোমেলো সংখ্যা
            # scale inf হলে loss × inf = inf: সেই ধাপে overflow নিশ্চিত
            return spike or (overflow_above is not None and scale > overflow_above) or math.isinf(scale)

        try:
            return simulate(scaler, overflow, steps=n), None
        except OverflowError as err:                    # DeepSpeed-এর নিজের log লাইন: int(inf)
            return None, (reached[-1], f"OverflowError: {err}")

    rows, crash = run(steps)
    if crash is None:
        return rows
    step, text = crash                                  # থামার আগের ধাপগুলো আবার, তারপর থামার সারি
    rows, _ = run(step)
    scale = rows[-1]["new_scale"] if rows else init_scale
    return rows + [{"step": step, "scale": scale, "found_inf": True, "stepped": False, "new_scale": scale,
                    "event": "error", "message": None, "error": text}]


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
    """2-এর ঘাত হলে '2^k', নইলে সাধারণ সংখ্যা (0 হলে '0')।"""
    if x and x > 0 and math.isfinite(x) and math.log2(x).is_integer():
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
    if s["min_scale"] == 0:
        first_zero = next(r["step"] for r in rows if r["scale"] == 0)
        text += (f"<br><span style='color:{EVENT_STYLE['backoff'][0]}'><b>ধাপ {first_zero}-এ scale 0 হয়ে গেছে।</b>"
                 "</span> scale রাখা হয় FP32-এ; সবচেয়ে ছোট ধনাত্মক FP32 (subnormal) 2^-149, তার অর্ধেক round হয়ে 0 "
                 "(underflow)। PyTorch-এর GradScaler-এ scale-এর কোনো নিচের সীমা নেই, তাই এটা সত্যিই ঘটে। তখন "
                 "loss × 0 = 0, সব gradient 0, আর unscale (÷ 0) সেগুলোকে NaN বানায়: প্রশিক্ষণ আর এগোয় না, আর "
                 "0-কে দ্বিগুণ করলেও 0 থাকে। প্রায় প্রতি ধাপে overflow মানে মডেলেই inf/NaN আছে — scale দোষী নয়। "
                 "DeepSpeed এই জন্যই min_loss_scale-এ থামে।")
    if s["max_scale"] == math.inf:
        text += ("<br>scale বাড়তে বাড়তে <b>inf</b> হয়েছে: DeepSpeed scale রাখে Python float-এ আর তার ওপরের কোনো "
                 "সীমা নেই (GradScaler FP32-এ inf হতে দেয় না)। inf scale-এ loss × inf = inf, তাই পরের ধাপেই overflow"
                 " — আর DeepSpeed নিজের log লাইনে int(inf) লিখতে গিয়ে OverflowError তুলে থেমে যায়। overflow ছাড়া "
                 "অনেক ধাপ আর খুব ছোট scale window একসঙ্গে হলে এটা ঘটে।")
    if s["error"]:
        first = html.escape(s["error"].splitlines()[0])
        text += f"<br><span style='color:{EVENT_STYLE['error'][0]}'>DeepSpeed থেমে গেছে: <code>{first}</code></span>"
    return f"<p>{text}</p>"


def simulator_view(policy: str, interval: int, hysteresis: int, p_overflow: float, above_log2: int | None,
                   steps: int, seed: int, figure: bool = True):
    """simulator-এর একটি অবস্থা: (সারি, সারসংক্ষেপের HTML, চিত্র বা None) — widget যা দেখায় ঠিক তা (পাঠ ০২)।
    above_log2 = k মানে scale > 2^k হলেই overflow; 0 বা None: এমন সীমা নেই।"""
    above = 2.0 ** above_log2 if above_log2 else None
    rows = simulate_timeline(policy, interval, hysteresis, p_overflow, steps, seed, overflow_above=above)
    fig = timeline_figure(rows, POLICY_LABELS[policy], above_log2 or None) if figure else None
    return rows, timeline_html(rows, policy), fig


# পূর্ণসংখ্যার slider: নাম → (সবচেয়ে কম, সবচেয়ে বেশি, এক ঘর, লেখা)
_SLIDERS = {"interval": (1, 500, 1, "বাড়ার বিরতি (interval):"), "hysteresis": (1, 5, 1, "hysteresis:"),
            "steps": (50, 3000, 50, "ধাপ (step):"), "seed": (0, 20, 1, "seed:")}
_ABOVE_CHOICES = range(8, 33)                    # "এর ওপরে সবসময় overflow"-এর তালিকা: 2^8 … 2^32


def _check_controls(policy, p_overflow, above_log2, start: dict) -> None:
    """loss_scale_simulator-এর শুরুর মান (start: পূর্ণসংখ্যার slider-গুলোর) সীমার মধ্যে কি না; নইলে সীমা বলে ValueError।"""
    if not isinstance(policy, str) or policy not in POLICY_LABELS:
        raise ValueError(f"অচেনা policy {policy!r} (unknown policy); বেছে নাও: {', '.join(POLICY_LABELS)}")
    for name, value in start.items():
        lo, hi = _SLIDERS[name][:2]
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not lo <= value <= hi:
            raise ValueError(f"{name} হবে {lo} থেকে {hi}-এর একটি পূর্ণসংখ্যা (the slider's range; {name} must be an "
                             f"integer in [{lo}, {hi}]); পেয়েছি {value!r}")
    if not 0.0 <= finite_float(p_overflow, "p_overflow") <= 0.2:
        raise ValueError(f"p_overflow হবে 0 থেকে 0.2 (the slider's range); পেয়েছি {p_overflow!r}")
    if above_log2 is not None and (isinstance(above_log2, bool) or not isinstance(above_log2, numbers.Integral)
                                   or above_log2 != 0 and above_log2 not in _ABOVE_CHOICES):
        raise ValueError(f"overflow_above_log2 হবে None (সীমা নেই) বা 8 থেকে 32-এর একটি পূর্ণসংখ্যা (one of the "
                         f"choices); পেয়েছি {above_log2!r}")


def loss_scale_simulator(policy: str = "pytorch", interval: int = 20, hysteresis: int = 2, p_overflow: float = 0.005,
                         steps: int = 500, seed: int = 0, overflow_above_log2: int | None = 20):
    """নিজে খেলো (পাঠ ০২): policy, growth interval / scale window, hysteresis, overflow-এর সম্ভাবনা বদলাও, scale-এর
    সময়রেখা দেখো। overflow_above_log2 = k: scale > 2^k হলেই overflow (None: সীমা নেই)। মান slider-এর সীমার বাইরে হলে
    বাংলা বার্তায় ValueError।"""
    start = {"interval": interval, "hysteresis": hysteresis, "steps": steps, "seed": seed}
    _check_controls(policy, p_overflow, overflow_above_log2, start)
    setup_bengali()                                          # চিত্রের বাংলা লেখার জন্য
    look = {"style": {"description_width": "170px"}, "layout": widgets.Layout(width="460px")}
    w_policy = widgets.Dropdown(options=[(v, k) for k, v in POLICY_LABELS.items()], value=policy,
                                description="নিয়ম (policy):", **look)
    w_interval, w_hyst, w_steps, w_seed = (
        widgets.IntSlider(value=start[name], min=lo, max=hi, step=step, description=label, continuous_update=False,
                          **look) for name, (lo, hi, step, label) in _SLIDERS.items())
    w_p = widgets.FloatSlider(value=p_overflow, min=0.0, max=0.2, step=0.005, readout_format=".3f",
                              description="হঠাৎ overflow-এর সম্ভাবনা:", continuous_update=False, **look)
    # Dropdown-এ None মানে "কিছুই বাছা নেই", তাই "নেই"-এর মান 0
    w_above = widgets.Dropdown(options=[("নেই (none)", 0)] + [(f"scale > 2^{k}", k) for k in _ABOVE_CHOICES],
                               value=overflow_above_log2 or 0, description="এর ওপরে সবসময় overflow:", **look)
    controls = [w_policy, w_interval, w_hyst, w_p, w_above, w_steps, w_seed]     # simulator_view-এর ক্রমে
    summary = widgets.HTML()
    out = widgets.Output()

    def redraw(change=None):
        w_hyst.disabled = w_policy.value != "deepspeed"          # PyTorch-এ hysteresis নেই
        with out:
            out.clear_output(wait=True)
            _, summary.value, fig = simulator_view(*(w.value for w in controls))
            plt.show()
            plt.close(fig)                                  # inline ছাড়া অন্য backend-এ যেন জমে না থাকে

    for w in controls:
        w.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.VBox(controls), summary, out])
