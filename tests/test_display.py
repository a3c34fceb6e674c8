"""mishran.lab.display: HTML tables keep their cells (Bengali included) and source is shown whole and coloured."""
import html
import inspect
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from mishran.lab import display


class _Cells(HTMLParser):
    """An independent reading of the table: the text and style of every th/td, row by row."""

    def __init__(self):
        super().__init__()
        self.rows, self.styles, self._in = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._in = ""
            self.styles.append(dict(attrs).get("style", ""))

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self.rows[-1].append(self._in)
            self._in = None

    def handle_data(self, data):
        if self._in is not None:
            self._in += data


ROWS = [["FP16", 65504.0, "সর্বোচ্চ সসীম মান"], ["BF16", 3.39e38, "<b>আট</b> বিট exponent"]]
HEADER = ["ফরম্যাট", "মান", "মন্তব্য"]


def _read(page):
    p = _Cells()
    p.feed(page)
    return p


def test_table_has_every_cell_in_its_column_with_padding():
    p = _read(display.table_html(ROWS, HEADER))
    assert p.rows == [HEADER] + [[str(v) for v in r] for r in ROWS]      # text escaped, read back unchanged
    assert len(p.styles) == 9 and all("padding" in s for s in p.styles)
    assert "text-align:right" in p.styles[4] and "text-align:left" in p.styles[3]   # numbers right, words left


def test_table_escapes_unless_told_not_to():
    assert "<b>আট</b>" not in display.table_html(ROWS, HEADER)
    assert "<b>আট</b>" in display.table_html(ROWS, HEADER, escape=False)


def test_table_refuses_a_short_row_in_bengali():
    with pytest.raises(ValueError, match="ঘর"):
        display.show_table([["FP16", 1.0]], HEADER)


def test_show_table_displays_html_and_a_text_fallback(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    assert display.show_table(ROWS, HEADER, caption="সারণি") is None
    (obj,) = shown
    assert obj._repr_html_().startswith("<table") and "সারণি" in obj._repr_html_()
    assert repr(obj).splitlines()[0] == "ফরম্যাট | মান | মন্তব্য"


def _plain(page):
    """Tags stripped and entities decoded: what the reader sees."""
    out, inside = [], False
    for ch in page:
        if ch == "<":
            inside = True
        elif ch == ">":
            inside = False
        elif not inside:
            out.append(ch)
    return html.unescape("".join(out))


def test_source_is_shown_whole_and_coloured():
    page = display.source_html(display.table_html)
    assert _plain(page).strip() == inspect.getsource(display.table_html).strip()
    assert page.count("color:") > 10                                 # keywords, strings, names coloured
    assert "<span class=" not in page and "<style" not in page      # inline colours: no stylesheet needed


def test_show_source_text_fallback_is_the_source(monkeypatch):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj))
    display.show_source(display.show_table)
    assert repr(shown[0]) == inspect.getsource(display.show_table)


class _Example:
    def method(self, x):
        """A method: its source is indented inside the class."""
        y = x + 1
        if y > 2:
            y = 2 * y
        return y


def test_a_method_is_shown_by_name_without_the_class_indent():
    text = display.source_text(_Example.method)
    assert text.startswith("def method(self, x):\n")
    assert text == inspect.cleandoc("""
        def method(self, x):
            \"\"\"A method: its source is indented inside the class.\"\"\"
            y = x + 1
            if y > 2:
                y = 2 * y
            return y
        """) + "\n"
    assert display.source_text(_Example().method) == text                # bound or not, the same code


def test_an_excerpt_of_library_code_runs_from_the_start_line_to_the_next_end_line():
    text = display.source_text(_Example.method, start="y = x + 1", end="y = 2 * y")
    assert text == "y = x + 1\nif y > 2:\n    y = 2 * y\n"
    assert display.source_text(_Example.method, end="y = x + 1").startswith("def method")


@pytest.mark.parametrize("where", [{"start": "z = 3"}, {"end": "z = 3"}, {"start": "y = 2 * y", "end": "y = x + 1"}])
def test_a_missing_marker_is_a_clear_error_not_a_wrong_excerpt(where):
    with pytest.raises(ValueError, match="marker not found") as err:
        display.source_text(_Example.method, **where)
    assert "_Example.method" in str(err.value) and any("\u0980" <= ch <= "\u09ff" for ch in str(err.value))


def test_display_imports_no_plotting_or_widgets():
    code = ("import sys, mishran.lab.display; "
            "bad = [m for m in ('matplotlib', 'ipywidgets', 'mishran.lab.figures', 'mishran.lab.widgets') "
            "if m in sys.modules];"
            " sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
