"""The course's notebook conventions (the lesson anatomy docs/contributing.md describes), checked for every
notebooks/*.ipynb that exists.

Each rule is one test per notebook. A lesson that does not meet a rule yet is listed in KNOWN_MISSES with a reason;
it runs as xfail(strict=True), so when its owner fixes it the test turns red until the entry is removed here.
A new notebook has no entry: it must meet every rule from the start.
"""
import ast
import json
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(p for p in (ROOT / "notebooks").glob("*.ipynb") if not p.name.startswith("_"))

MIN_BENGALI_SHARE = 0.60        # Bengali letters among all letters of the prose
MIN_EXERCISES = 3
MAX_CODE_LINE = 100             # characters
MAX_CODE_CELL = 30              # lines
HEADINGS = {"objectives": "শেখার লক্ষ্য", "exercises": "অনুশীলনী", "summary": "সারসংক্ষেপ"}

# (notebook prefix, rule) → why it is allowed to fail for now. Remove an entry when the notebook is fixed.
KNOWN_MISSES: dict[tuple[str, str], str] = {}


def _cases(rule):
    cases = []
    for path in NOTEBOOKS:
        reason = KNOWN_MISSES.get((path.name[:2], rule))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        cases.append(pytest.param(path, id=path.name, marks=marks))
    return cases


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def _orientation(path):
    return path.name.startswith("00")


def _letters(markdown):
    """(Bengali letters, Latin letters) in the prose: code, math, link targets and HTML left out."""
    text = re.sub(r"```.*?```|`[^`\n]*`", " ", markdown, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)|https?://\S+|<[^>]*>", " ", text)
    text = unicodedata.normalize("NFC", text)
    bengali = sum(1 for ch in text if "\u0980" <= ch <= "\u09ff" and unicodedata.category(ch)[0] in "LM")
    latin = sum(1 for ch in text if ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN"))
    return bengali, latin


def test_every_notebook_is_covered():
    assert len(NOTEBOOKS) >= 6 and [p.name[:2] for p in NOTEBOOKS[:2]] == ["00", "01"]
    names = {p.name[:2] for p in NOTEBOOKS}
    stale = sorted(f"{k}/{rule}" for k, rule in KNOWN_MISSES if k not in names)
    assert not stale, f"KNOWN_MISSES names notebooks that do not exist: {stale}"


@pytest.mark.parametrize("path", _cases("anatomy"))
def test_anatomy_title_badge_and_headings(path):
    cells = _cells(path)
    first = _text(cells[0])
    assert cells[0]["cell_type"] == "markdown" and first.startswith("# "), "the first cell is the title (# ...)"
    assert re.search(r"^\*[A-Za-z][^*\n]+\*\s*$", first, re.M), "an English subtitle in *italics* under the title"
    assert "colab.research.google.com" in first, "the Open-in-Colab badge is in the title cell"
    headings = [ln for c in cells if c["cell_type"] == "markdown" for ln in _text(c).splitlines()
                if ln.startswith("#")]
    wanted = {k: w for k, w in HEADINGS.items() if not (k == "exercises" and _orientation(path))}
    missing = [w for w in wanted.values() if not any(ln.startswith("## ") and w in ln for ln in headings)]
    assert not missing, f"missing ## headings: {missing}"


def _asserts(solution, check):
    """True when a solution cell asserts check's verdict: directly (`assert check_x(...)`), or collected into a
    name that is then asserted (`solved = [check_x(...)]` ... `assert all(solved)`, e.g. under redirect_stdout so
    that the check's explanation does not give the answer away in the output)."""
    if re.search(rf"^\s*assert .*\b{check}\(", solution, re.M):
        return True
    collected = re.findall(r"^\s*assert (?:all\()?(\w+)\)?\s*$", solution, re.M)
    return any(re.search(rf"\b{var}\b[^\n]*=[^=][\s\S]*\b{check}\(", solution) for var in collected)


@pytest.mark.parametrize("path", _cases("exercises"))
def test_every_exercise_has_a_hidden_solution_that_asserts_its_check(path):
    cells = _cells(path)
    exercises = [i for i, c in enumerate(cells) if "exercise" in _tags(c)]
    solutions = [i for i, c in enumerate(cells) if "solution" in _tags(c)]
    if not _orientation(path):
        assert len(exercises) >= MIN_EXERCISES
    assert len(solutions) == len(exercises), "a solution cell that follows no exercise"
    for i in exercises:
        assert i + 1 < len(cells) and "solution" in _tags(cells[i + 1]), f"cell {i + 1} must be cell {i}'s solution"
        meta = cells[i + 1]["metadata"]
        assert meta.get("jupyter", {}).get("source_hidden") is True, f"solution {i + 1} is not hidden in Jupyter"
        assert meta.get("cellView") == "form", f"solution {i + 1} is not hidden in Colab (cellView form)"
        checks = set(re.findall(r"\b(check_\w+)\(", _text(cells[i])))
        assert checks, f"exercise cell {i} calls no check_ function"
        missing = [name for name in sorted(checks) if not _asserts(_text(cells[i + 1]), name)]
        assert not missing, f"solution {i + 1} must assert {missing}"
        assert "..." in _text(cells[i]), f"exercise cell {i} leaves no blank (...)"


@pytest.mark.parametrize("path", _cases("bengali_share"))
def test_prose_is_mostly_bengali(path):
    bengali, latin = _letters("\n".join(_text(c) for c in _cells(path) if c["cell_type"] == "markdown"))
    assert bengali + latin > 1000, "too little prose to be a lesson"
    share = bengali / (bengali + latin)
    assert share >= MIN_BENGALI_SHARE, f"Bengali share {share:.2f} < {MIN_BENGALI_SHARE}"


@pytest.mark.parametrize("path", _cases("clean_storage"))
def test_stored_outputs_are_text_only_and_error_free(path):
    """Stored outputs (only where nbval checks them: tools/nbclean.py) hold no errors, images or widget state."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in nb.get("metadata", {}), "widget state is stored"
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"cell {i} stores an error"
            assert "image/png" not in out.get("data", {}), f"cell {i} stores an image"


@pytest.mark.parametrize("path", _cases("code_line_length"))
def test_code_lines_are_at_most_100_characters(path):
    long = [(i, n, len(line)) for i, c in enumerate(_cells(path)) if c["cell_type"] == "code"
            for n, line in enumerate(_text(c).splitlines(), start=1) if len(line) > MAX_CODE_LINE]
    assert not long, f"(cell, line, length) over {MAX_CODE_LINE}: {long[:8]}"


@pytest.mark.parametrize("path", _cases("code_cell_length"))
def test_code_cells_are_at_most_30_lines(path):
    """Import lines are not counted: they are a list to skim, and a package laid out by idea names more modules."""
    def code_lines(cell):
        text = re.sub(r"^(\s*)[!%].*$", r"\1pass", _text(cell), flags=re.M)
        imports = sum(n.end_lineno - n.lineno + 1 for n in ast.parse(text).body
                      if isinstance(n, (ast.Import, ast.ImportFrom)))
        return len(text.splitlines()) - imports
    long = [(i, code_lines(c)) for i, c in enumerate(_cells(path))
            if c["cell_type"] == "code" and code_lines(c) > MAX_CODE_CELL]
    assert not long, f"(cell, lines) over {MAX_CODE_CELL}: {long}"


# ---------------------------------------------------------------- the checks themselves can fail

def test_bengali_share_counts_letters_not_code_or_links():
    assert _letters("বাংলা `english code` [লিংক](https://example.org/abc)") == (9, 0)      # 5 + 4
    assert _letters("mixed precision শেখা") == (4, 14)


def test_a_long_line_and_a_missing_solution_are_caught(tmp_path):
    bad = {"cells": [{"cell_type": "markdown", "source": "# শিরোনাম\n*Title*\n", "metadata": {}},
                     {"cell_type": "code", "source": "x = 1  # " + "ক" * 120, "metadata": {"tags": ["exercise"]},
                      "outputs": [], "execution_count": None}]}
    path = tmp_path / "99_bad.ipynb"
    path.write_text(json.dumps(bad), encoding="utf-8")
    for test in (test_code_lines_are_at_most_100_characters, test_anatomy_title_badge_and_headings,
                 test_every_exercise_has_a_hidden_solution_that_asserts_its_check):
        with pytest.raises(AssertionError):
            test(path)



def test_a_solution_that_does_not_assert_its_check_or_is_not_hidden_is_caught(tmp_path):
    def notebook(solution_source, solution_meta):
        return {"cells": [{"cell_type": "code", "source": "x = ...\ncheck_x(x)", "metadata": {"tags": ["exercise"]},
                           "outputs": [], "execution_count": None},
                          {"cell_type": "code", "source": solution_source, "outputs": [], "execution_count": None,
                           "metadata": dict(solution_meta, tags=["solution"])}]}
    hidden = {"jupyter": {"source_hidden": True}, "cellView": "form"}
    path = tmp_path / "00_sample.ipynb"                          # 00: the three-exercise minimum does not apply
    for source, meta, ok in [("assert check_x(3)", hidden, True),
                             ("solved = [check_x(3)]\nassert all(solved)", hidden, True),
                             ("check_x(3)", hidden, False),                       # called, never asserted
                             ("assert check_x(3)", {"cellView": "form"}, False),  # visible in Jupyter
                             ("assert check_x(3)", {"jupyter": {"source_hidden": True}}, False)]:   # and in Colab
        path.write_text(json.dumps(notebook(source, meta)), encoding="utf-8")
        if ok:
            test_every_exercise_has_a_hidden_solution_that_asserts_its_check(path)
        else:
            with pytest.raises(AssertionError):
                test_every_exercise_has_a_hidden_solution_that_asserts_its_check(path)

# One spelling per word, so that a learner never wonders whether two spellings are two words: the lessons chose
# these; docs, messages and code comments follow them.
SPELLINGS = {"পুরনো": "পুরোনো", "ইচ্ছে": "ইচ্ছা", "টিউটোরিয়েল": "টিউটোরিয়াল", "ট্রেনিং": "প্রশিক্ষণ", "লুকোনো": "লুকানো"}


def _course_text_files():
    yield from NOTEBOOKS
    yield from (ROOT / "docs").glob("*.md")
    yield from (ROOT / "data").glob("*.md")
    yield ROOT / "README.md"
    yield from (ROOT / "src" / "mishran").rglob("*.py")
    yield from (ROOT / "tools").glob("*.py")


def test_one_spelling_per_word():
    found = [(str(path.relative_to(ROOT)), other) for path in _course_text_files()
             for other in SPELLINGS if other in path.read_text(encoding="utf-8")]
    assert not found, f"use the course's spelling {SPELLINGS}: {found}"


# What a lesson's summary must not say: the answer of an exercise just before it (a learner reads the summary
# right after trying). Lesson 02 exercise 5 asks where unscale_ goes before clipping; lesson 08 exercise 4 asks
# whether top-k = 1 gives the same text for two seeds; lesson 10's ask which module overflows first (65520 is where
# FP16 turns to inf), what to keep in FP32 under a budget (the innermost module) and how to fix the planted fault.
SUMMARY_MUST_NOT_SAY = {"02_loss_scaling.ipynb": ["`unscale_` → clip", "unscale_ → clip"],
                        "08_capstone.ipynb": ["top-k যত ছোট", "greedy"],
                        "10_your_own_model.ipynb": ["65520", "সবচেয়ে ভেতরের", "x.float()"]}


@pytest.mark.parametrize("name", sorted(SUMMARY_MUST_NOT_SAY))
def test_a_summary_does_not_answer_the_exercises_before_it(name):
    summary = next(c for c in _cells(ROOT / "notebooks" / name)
                   if c["cell_type"] == "markdown" and "".join(c["source"]).startswith("## সারসংক্ষেপ"))
    text = "".join(summary["source"])
    assert not [p for p in SUMMARY_MUST_NOT_SAY[name] if p in text], text


def test_micro_batch_is_one_term_that_cannot_be_misread():
    """The glossary's term for a micro-batch is "micro-batch": "ছোট ব্যাচ" reads as any smaller batch."""
    places = [p for p in [*NOTEBOOKS, *sorted((ROOT / "src" / "mishran").rglob("*.py"))]
              if "ছোট ব্যাচ" in p.read_text(encoding="utf-8")]
    assert not places, places
