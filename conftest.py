"""pytest: each notebook's run time (all its cells) is reported, and a notebook over the limit fails the run.

The course promises every lesson runs on a CPU in at most 2 minutes (COURSE_PLAN); a slower one is a failure, not a
note. MISHRAN_NOTEBOOK_LIMIT_S overrides the limit (tests of this hook use a tiny one).
"""
import os
from collections import defaultdict

NOTEBOOK_LIMIT_S = float(os.environ.get("MISHRAN_NOTEBOOK_LIMIT_S", "120"))
_seconds = defaultdict(float)


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
    terminalreporter.write_line(f"{sum(_seconds.values()):7.1f} s  all notebooks")
    for path, s in sorted(_over_limit().items()):
        terminalreporter.write_line(f"FAILED {path}: {s:.1f} s > {NOTEBOOK_LIMIT_S:g} s, the per-notebook time budget",
                                    red=True)
