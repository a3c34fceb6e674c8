"""pytest: after a notebook run, say how long each notebook took (the course wants < 2 minutes each on a CPU)."""
from collections import defaultdict

NOTEBOOK_LIMIT_S = 120
_seconds = defaultdict(float)


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::", 1)[0]
    if path.endswith(".ipynb"):
        _seconds[path] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _seconds:
        return
    terminalreporter.section("notebook times")
    for path, s in sorted(_seconds.items()):
        flag = "" if s < NOTEBOOK_LIMIT_S else f"  ← over {NOTEBOOK_LIMIT_S} s"
        terminalreporter.write_line(f"{s:7.1f} s  {path}{flag}")
    terminalreporter.write_line(f"{sum(_seconds.values()):7.1f} s  all notebooks")
