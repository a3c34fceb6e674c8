"""Notebook-এ পড়ার জিনিস দেখানো: HTML সারণি আর রং-করা source code (সব পাঠে; পাঠ ০০ প্রথম দেখায়)।

    show_table([["FP16", 65504.0]], header=["ফরম্যাট", "max"])
    show_source(amp_step)

লেখা দিয়ে সাজানো সারণি (padding-করা text) বাংলা থাকলে কলাম হারায়: একটি যুক্তাক্ষর কয়েকটি অক্ষর হলেও
জায়গা নেয় কম। তাই সারণি HTML-এ, প্রতিটি ঘরে padding দিয়ে। matplotlib বা ipywidgets এখানে লাগে না।
"""
from __future__ import annotations

import html
import inspect
import numbers
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass

from mishran.checks import as_bool

__all__ = ["table_html", "show_table", "source_text", "source_html", "show_source", "Rich", "print_wrapped"]

CELL_STYLE = "padding:4px 12px;border-bottom:1px solid #d0d0d0;vertical-align:top"
HEAD_STYLE = "padding:4px 12px;border-bottom:2px solid #808080;vertical-align:bottom;font-weight:bold"


@dataclass(repr=False)
class Rich:
    """HTML আর সাধারণ লেখা দুটোই বহন করে: JupyterLab/Colab HTML দেখায়, লেখা-শুধু পরিবেশ লেখা।"""

    html: str
    text: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


_NUMERIC = re.compile(r"^[+\-−]?[\d.,]+(e[+\-]?\d+)?%?$")


def _is_number(value) -> bool:
    """সংখ্যা, বা সংখ্যার মতো লেখা ("0.42", "1,024", "36%") — এগুলো ডানে সাজানো।"""
    if isinstance(value, str):
        return bool(_NUMERIC.match(value.strip())) and any(ch.isdigit() for ch in value)
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _cell(value, tag: str, style: str, escape: bool) -> str:
    text = html.escape(str(value)) if escape else str(value)
    align = "right" if _is_number(value) else "left"
    return f"<{tag} style='{style};text-align:{align}'>{text}</{tag}>"


def _is_list(x) -> bool:
    """ঘরের তালিকা হতে পারে এমন কিছু: list, tuple, 1-D array — লেখা (str) বা 0-মাত্রার array নয়।"""
    return isinstance(x, Iterable) and not isinstance(x, (str, bytes)) and bool(getattr(x, "ndim", 1))


def _rows(rows, header, caption, escape) -> tuple:
    """show_table-এর দরজা: সারি (ঘরের তালিকার তালিকা, সবগুলো সমান লম্বা), শিরোনাম (ঘরের তালিকা বা None), caption আর
    escape যাচাই করে; সারি আর শিরোনাম list-এ আনে।"""
    given = rows
    rows = list(rows) if _is_list(rows) else [rows]                   # একটি লেখা বা সংখ্যা: নিচে ধরা পড়ে
    if not all(_is_list(r) for r in rows):
        raise TypeError(f"rows হবে সারির তালিকা, প্রতিটি সারি ঘরের তালিকা (rows must be a list of lists); পেয়েছি "
                        f"{given!r}")
    if header is not None and not _is_list(header):
        raise TypeError(f"header হবে ঘরের তালিকা বা None (header must be a list); পেয়েছি {header!r}")
    escape = as_bool(escape, "escape")
    if caption is not None and not isinstance(caption, str):
        raise TypeError(f"caption হবে লেখা বা None (caption must be a str or None); পেয়েছি {caption!r}")
    rows, header = [list(r) for r in rows], None if header is None else list(header)
    width = len(header) if header is not None else max((len(r) for r in rows), default=0)
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ValueError(f"সারি {i}-এ {len(r)}টি ঘর, শিরোনামে {width}টি (row length differs from header)")
    return rows, header


def table_html(rows, header=None, caption: str | None = None, escape: bool = True) -> str:
    """সারির তালিকা (প্রতিটি সারি ঘরের তালিকা) থেকে HTML সারণি; সংখ্যা ডানে, লেখা বাঁয়ে সাজানো।

    escape=False দিলে ঘরের লেখা HTML হিসেবে বসে (যেমন রং-করা বিট); তখন লেখা নিরাপদ কি না তোমার দায়িত্ব।
    """
    def row(cells, tag, style):
        return "<tr>" + "".join(_cell(v, tag, style, escape) for v in cells) + "</tr>"

    cap = f"<caption style='text-align:left;padding:4px 0'>{html.escape(caption)}</caption>" if caption else ""
    head = "" if header is None else f"<thead>{row(header, 'th', HEAD_STYLE)}</thead>"
    body = "".join(row(r, "td", CELL_STYLE) for r in rows)
    return f"<table style='border-collapse:collapse;margin:6px 0'>{cap}{head}<tbody>{body}</tbody></table>"


def _table_text(rows, header) -> str:
    """একই সারণি সাধারণ লেখায় (HTML দেখাতে না পারা পরিবেশের জন্য): ঘর আলাদা ' | ' দিয়ে।"""
    lines = [" | ".join(map(str, header))] if header is not None else []
    lines += [" | ".join(map(str, r)) for r in rows]
    return "\n".join(lines)


def show_table(rows, header=None, caption: str | None = None, escape: bool = True) -> None:
    """সারণিটি notebook-এ দেখায় (HTML, ঘরে padding); কিছু ফেরত দেয় না।"""
    from IPython.display import display

    rows, header = _rows(rows, header, caption, escape)
    display(Rich(table_html(rows, header, caption, escape), _table_text(rows, header)))


def source_text(obj, start: str | None = None, end: str | None = None) -> str:
    """obj-এর source (function, method, class বা module), বাঁয়ের বাড়তি ফাঁকা সরিয়ে (সব পাঠ)।

    কোর্সের নিজের কোড নাম ধরেই দেখাও: একটি ছোট function বা method পুরোটা। start/end শুধু বাইরের লাইব্রেরির
    (যেমন DeepSpeed) লম্বা function-এর একটি অংশের জন্য: start লেখা প্রথম লাইন থেকে তার পরের end লেখা লাইন পর্যন্ত;
    লাইব্রেরি বদলে লাইনটি না থাকলে বাংলা + English ভুলবার্তা, চুপচাপ অন্য কিছু দেখানো নয়।
    """
    code = obj if isinstance(obj, str) else inspect.getsource(obj)
    lines = code.splitlines()
    first = 0 if start is None else _line_with(lines, start, 0, obj)
    last = len(lines) - 1 if end is None else _line_with(lines, end, first + (start is not None), obj)
    return textwrap.dedent("\n".join(lines[first:last + 1])) + ("\n" if code.endswith("\n") else "")


def _line_with(lines: list, marker: str, begin: int, obj) -> int:
    for i in range(begin, len(lines)):
        if marker in lines[i]:
            return i
    name = getattr(obj, "__qualname__", type(obj).__name__)
    raise ValueError(f"{name}-এর source-এ {marker!r} লেখা লাইন নেই (marker not found): লাইব্রেরির কোড বদলেছে; "
                     "নতুন source দেখে start/end ঠিক করো।")


def source_html(obj, start: str | None = None, end: str | None = None) -> str:
    """source_text(obj, start, end), pygments দিয়ে রং করা HTML (inline রং: সব frontend-এ চলে)।"""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    formatter = HtmlFormatter(noclasses=True, nobackground=True,
                              prestyles="background:#f7f7f7;color:#1a1a1a;padding:8px 12px;"
                                        "line-height:1.35;overflow-x:auto")
    return highlight(source_text(obj, start, end), PythonLexer(), formatter)


def show_source(obj, start: str | None = None, end: str | None = None) -> None:
    """obj-এর source রং করে দেখায়, নাম ধরে — যেমন show_source(amp_step), show_source(GradScaler.update)।

    start/end: বাইরের লাইব্রেরির লম্বা function-এর একটি অংশ (source_text দেখো)।
    """
    from IPython.display import display

    for marker, name in ((start, "start"), (end, "end")):
        if marker is not None and not isinstance(marker, str):
            raise TypeError(f"{name} হবে লেখা (str) বা None ({name} must be a str or None); পেয়েছি {marker!r}")
    try:
        code = source_text(obj, start, end)
    except (TypeError, OSError):
        raise TypeError(f"source পাওয়া গেল না (no source code): obj হবে function, class, method বা module; পেয়েছি "
                        f"{obj!r}") from None
    display(Rich(source_html(code), code))


def print_wrapped(*parts, width: int = 96, indent: str = "  ") -> None:
    """print()-এর মতো, কিন্তু লম্বা লাইন শুধু ফাঁকা জায়গায় ভেঙে ছাপে, যাতে বাংলা যুক্তাক্ষর মাঝখানে না কাটে (পাঠ ০৩–০৫)।

    আগের লাইন-ভাঙা (\\n) যেমন আছে থাকে; ভাঙা লাইনের বাকিটা indent দিয়ে শুরু হয়।
    """
    lines = []
    for line in " ".join(str(p) for p in parts).split("\n"):
        lead = line[:len(line) - len(line.lstrip())]
        lines += textwrap.wrap(line, width, subsequent_indent=lead + indent, break_long_words=False,
                               break_on_hyphens=False) or [""]
    print("\n".join(lines))
