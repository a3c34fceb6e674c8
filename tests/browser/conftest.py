"""Browser tests: the lessons in a real JupyterLab driven by Chromium, and the built website.

They are slow (minutes), so the plain `pytest tests` (`make unit`) does not collect them: they run with
`make browser-test` (part of `make test`), which sets MISHRAN_BROWSER=1, or when a path inside tests/browser/
is named on the command line. Chromium is Debian's (/usr/bin/chromium) driven by Playwright's Python package;
Playwright's own browser download is never used. No Chromium: the tests skip and say how to install it.
Helpers and fixtures live in browser_support.py.
"""
from __future__ import annotations

import os
from pathlib import Path

from browser_support import OUT, TIMES, browser, clear_old_outputs, lab, shots  # noqa: F401  (fixtures)

HERE = Path(__file__).resolve().parent


def _requested(config) -> bool:
    if os.environ.get("MISHRAN_BROWSER") == "1":
        return True
    for arg in config.args:
        p = Path(arg.split("::")[0]).resolve()
        if p == HERE or HERE in p.parents:
            return True
    return False


def pytest_ignore_collect(collection_path, config):
    """`pytest tests` skips this folder unless asked (see the module docstring)."""
    if not _requested(config) and collection_path.resolve() != HERE and HERE in collection_path.resolve().parents:
        return True
    return None


def _requested_files(config) -> set[str]:
    """The browser test files this run collects: those named, or all of them for a folder that holds them."""
    files = set()
    for arg in config.args:
        p = Path(arg.split("::")[0]).resolve()
        if p.is_dir() and (p == HERE or p in HERE.parents):
            files |= {f.name for f in HERE.glob("test_*.py")}
        elif p.parent == HERE:
            files.add(p.name)
    return files


def pytest_sessionstart(session):
    """Old screenshots and saved lessons go before the run, in the process that leads it (with pytest-xdist the
    workers, one JupyterLab and one Chromium each, share out/browser/)."""
    if not hasattr(session.config, "workerinput") and _requested(session.config):
        clear_old_outputs(_requested_files(session.config))


def pytest_runtest_logreport(report):
    """Each lesson's times come with its test's report (also from a pytest-xdist worker)."""
    for name, value in getattr(report, "user_properties", ()):
        if name == "browser_times":
            TIMES.update(value)


def pytest_terminal_summary(terminalreporter):
    if not TIMES:
        return
    terminalreporter.section("browser times (JupyterLab + Chromium)")
    for name, t in sorted(TIMES.items()):
        parts = "  ".join(f"{k} {v:6.1f} s" for k, v in t.items() if k != "total")
        terminalreporter.write_line(f"{t.get('total', 0):7.1f} s  {name}   ({parts})")
    terminalreporter.write_line(f"{sum(t.get('total', 0) for t in TIMES.values()):7.1f} s  all lessons")
    terminalreporter.write_line(f"screenshots: {OUT}")
