"""Run All must not print an exercise's answer: a hidden solution cell (tag `solution`) may show only its checker's
verdict. docs/contributing.md §4 says so; a lesson that prints "int64 নম্বরে 80%" under exercise 06.4 broke it.

Two oracles:

- Always (fast, every lesson): each solution cell's code is read (Python's ast) for every way a cell puts text on the
  screen — a print-like call, a figure, or a bare expression as the last statement (Jupyter displays it) — and each
  one must be a check_...() call (its verdict), the fixed line SOLVED, or sit inside
  `with contextlib.redirect_stdout(...)`.
- Executed: `make test`'s browser lane runs every lesson in JupyterLab (Run All) and checks the saved copy with
  tests/browser/browser_support.solution_output_leaks — every line each solution cell printed must be a verdict line,
  the checker's right answer ("ঠিক! ...") or SOLVED, with no figure or rich output. Without a browser, the same check
  runs here on request (MISHRAN_RUN_SOLUTIONS=1; each lesson in full with nbclient, 30-120 s on 2 cores).
"""
import ast
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOLVED = "সমাধান যাচাই হলো (the solution checks)।"
RIGHT = "ঠিক!"                               # mishran.exercises.core.say's mark for a right answer
# calls that put text or a picture on the screen (the course's own helpers, IPython's, matplotlib's)
SHOWS = {"print", "print_wrapped", "display", "show_table", "show_source", "pprint", "show", "imshow", "plot",
         "savefig", "bar", "barh", "hist", "scatter", "figure", "subplots"}


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def _code(cell) -> str:
    """The cell's Python: IPython's %magic and !shell lines left out (they are not Python)."""
    return "\n".join(line for line in "".join(cell["source"]).splitlines()
                     if not line.lstrip().startswith(("%", "!")))


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _silenced(node, parents) -> bool:
    """Inside `with contextlib.redirect_stdout(...)` (or redirect_stdout imported bare)?"""
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.With) and any(isinstance(i.context_expr, ast.Call)
                                              and _name(i.context_expr) == "redirect_stdout" for i in node.items):
            return True
    return False


def _allowed(call: ast.Call) -> bool:
    if _name(call).startswith("check_"):
        return True                          # the checker's verdict (it never repeats the answer: core.check_number)
    return _name(call) == "print" and [getattr(a, "value", None) for a in call.args] == [SOLVED] \
        and not call.keywords


def leaks(source: str) -> list[str]:
    """Each way this solution cell could show more than a verdict, as 'line N: what'."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = [f"line {n.lineno}: {_name(n)}(...)" for n in ast.walk(tree)
             if isinstance(n, ast.Call) and _name(n) in SHOWS and not _allowed(n) and not _silenced(n, parents)]
    last = tree.body[-1] if tree.body else None
    shown = isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and _name(last.value) in SHOWS
    if isinstance(last, ast.Expr) and not shown and not (isinstance(last.value, ast.Call) and _allowed(last.value)):
        found.append(f"line {last.lineno}: the last line is an expression, and Jupyter displays its value")
    return found


def _solutions(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, c) for i, c in enumerate(cells) if "solution" in _tags(c)]


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem[:2] for p in LESSONS])
def test_solution_cells_show_only_the_verdict(path):
    solutions = _solutions(path)
    if path.name.startswith(("01", "02", "03", "04", "05", "06", "07", "08", "09")):
        assert solutions, f"{path.name}: no solution cells"
    bad = {i: leaks(_code(c)) for i, c in solutions}
    bad = {i: found for i, found in bad.items() if found}
    assert not bad, f"{path.name}: solution cells that could print an answer (cell: where): {bad}"


@pytest.mark.parametrize("source, caught", [
    ('answer = 0.8\nprint(f"int64 নম্বরে {answer:.0%}")\nassert check_x(answer)', True),   # lesson 06's old leak
    ("answer = 3\nanswer", True),                                          # Jupyter shows the last expression
    ("answer = 3\nshow_table([[answer]], ['x'])\nassert check_x(answer)", True),
    ("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nassert check_x(1)", True),
    ("answer = 3\nassert check_x(answer)", False),
    ("answer = 3\ncheck_x(answer)", False),
    ("import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n    solved = [check_x(3)]\n"
     f"assert all(solved)\nprint({SOLVED!r})", False),
    ("import contextlib, io\nwith contextlib.redirect_stdout(io.StringIO()):\n    print(3)\n", False),
    ('print("সমাধান: 3")', True),                                          # a constant line is still a print
])
def test_the_static_rule_catches_a_leak(source, caught):
    """The rule itself, on cells written to leak and not to."""
    assert bool(leaks(source)) is caught, leaks(source)


def _verdict_lines(outputs) -> list[str]:
    """What a solution cell showed, line by line; a figure or other rich output is one line naming its kind."""
    lines = []
    for out in outputs:
        if out["output_type"] == "stream":
            lines += [ln for ln in out["text"].splitlines() if ln.strip()]
        elif out["output_type"] in ("display_data", "execute_result"):
            lines.append(f"<{out['output_type']}: {sorted(out.get('data', {}))}>")
        elif out["output_type"] == "error":
            lines.append(f"<error: {out.get('ename')}>")
    return lines


@pytest.mark.skipif(os.environ.get("MISHRAN_RUN_SOLUTIONS") != "1",
                    reason="runs every lesson in full (30-120 s each on 2 cores): MISHRAN_RUN_SOLUTIONS=1 to run")
@pytest.mark.parametrize("path", LESSONS, ids=[p.stem[:2] for p in LESSONS])
def test_solution_cells_print_only_verdicts_when_run(path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    shown = {i: _verdict_lines(nb.cells[i].get("outputs", [])) for i, _ in _solutions(path)}
    # a verdict line: the right-answer mark, the fixed SOLVED line, or the indented lines of a multi-line verdict
    bad = {i: [ln for ln in lines if not (ln.startswith(RIGHT) or ln == SOLVED or ln.startswith("   "))]
           for i, lines in shown.items()}
    bad = {i: lines for i, lines in bad.items() if lines}
    assert not bad, f"{path.name}: solution cells printed more than a verdict: {bad}"
