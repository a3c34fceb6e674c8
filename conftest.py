"""pytest: each notebook's run time (all its cells) is reported, and a notebook over the limit fails the run.

The course promises every lesson runs on a CPU in at most 2 minutes (README, docs/contributing.md), so that a learner
without a GPU can follow it; a slower one is a failure, not a note. MISHRAN_NOTEBOOK_LIMIT_S overrides the limit
(tests of this hook use a tiny one).
"""
import base64
import os
from collections import defaultdict
from pathlib import Path

NOTEBOOK_LIMIT_S = float(os.environ.get("MISHRAN_NOTEBOOK_LIMIT_S", "120"))
OUTPUTS_DIR = os.environ.get("MISHRAN_NBVAL_OUTPUTS")
_seconds = defaultdict(float)


def _record_outputs(item) -> None:
    """One cell's outputs, as nbval received them, appended to OUTPUTS_DIR/<notebook>.txt (figures as PNG files)."""
    outs = getattr(item, "test_outputs", None)
    if outs is None:
        return
    folder = Path(OUTPUTS_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    stem, cell = Path(item.nodeid.split("::", 1)[0]).stem, getattr(item, "cell_num", "?")
    lines = [f"── cell {cell} ──"]
    for k, out in enumerate(outs):
        kind = out.get("output_type")
        if kind == "stream":
            lines.append(out.get("text", "").rstrip("\n"))
        elif kind == "error":
            lines.append(f"ERROR {out.get('ename')}: {out.get('evalue')}")
        else:
            data = out.get("data", {})
            if "image/png" in data:
                name = f"{stem}_cell{cell}_{k}.png"
                (folder / name).write_bytes(base64.b64decode(data["image/png"]))
                lines.append(f"[figure {name}]")
            elif "text/plain" in data:
                lines.append(data["text/plain"])
    with open(folder / f"{stem}.txt", "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def pytest_runtest_makereport(item, call):
    if OUTPUTS_DIR and call.when == "call" and str(item.nodeid).split("::", 1)[0].endswith(".ipynb"):
        _record_outputs(item)


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        _seconds[path] += report.duration


def _over_limit():
    return {path: s for path, s in _seconds.items() if s > NOTEBOOK_LIMIT_S}


def pytest_sessionfinish(session, exitstatus):
    if _over_limit() and session.exitstatus == 0:
        session.exitstatus = 1                 # pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if not _seconds:
        return
    terminalreporter.section("notebook times")
    for path, s in sorted(_seconds.items()):
        flag = "" if s <= NOTEBOOK_LIMIT_S else f"  ← over {NOTEBOOK_LIMIT_S:g} s: FAILED (time budget)"
        terminalreporter.write_line(f"{s:7.1f} s  {path}{flag}")
    terminalreporter.write_line(f"{sum(_seconds.values()):7.1f} s  sum of all notebooks")
    for path, s in sorted(_over_limit().items()):
        terminalreporter.write_line(f"FAILED {path}: {s:.1f} s > {NOTEBOOK_LIMIT_S:g} s, the per-notebook time budget",
                                    red=True)
