"""Browser tests (issue 12): the lessons in a real JupyterLab driven by Chromium, and the built website.

They are slow (minutes), so the plain `pytest tests` (`make unit`) does not collect them: they run with
`make browser-test` (part of `make test`), which sets MISHRAN_BROWSER=1, or when a path inside tests/browser/
is named on the command line. Chromium is Debian's (/usr/bin/chromium) driven by Playwright's Python package;
Playwright's own browser download is never used. No Chromium: the tests skip and say how to install it.
Helpers and fixtures live in browser_support.py.
"""
from __future__ import annotations

import os
from pathlib import Path

from browser_support import OUT, TIMES, browser, lab, shots  # noqa: F401  (fixtures)

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


def pytest_terminal_summary(terminalreporter):
    if not TIMES:
        return
    terminalreporter.section("browser times (JupyterLab + Chromium)")
    for name, t in sorted(TIMES.items()):
        parts = "  ".join(f"{k} {v:6.1f} s" for k, v in t.items() if k != "total")
        terminalreporter.write_line(f"{t.get('total', 0):7.1f} s  {name}   ({parts})")
    terminalreporter.write_line(f"{sum(t.get('total', 0) for t in TIMES.values()):7.1f} s  all lessons")
    terminalreporter.write_line(f"screenshots: {OUT}")
