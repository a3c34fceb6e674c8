"""Helpers and fixtures of the browser tests: Chromium through Playwright, JupyterLab on a copy
of the course, the fonts Chromium really used. conftest.py re-exports the fixtures."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
OUT = Path(os.environ.get("MISHRAN_BROWSER_OUT", REPO / "out" / "browser"))
# The flags Chromium needs on a machine with no network but loopback; a fresh profile comes from Playwright.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
INSTALL_HINT = ("install Debian's Chromium and a Bengali font: `apt-get install chromium fonts-beng` "
                "(Ubuntu: `chromium-browser`), or point MISHRAN_CHROMIUM at a Chrome/Chromium binary")
INSTALL_FONT = "apt-get install fonts-beng (Debian/Ubuntu), or any font with Bengali glyphs"
TIMES: dict[str, dict[str, float]] = {}     # lesson → {phase: seconds}, printed at the end (conftest.py)
# Each lesson as JupyterLab saved it after Run All (outputs and widget state): `make browser-test` builds the
# website from these, so the lessons run once for both (tools/build_site.py --executed).
EXECUTED = OUT / "executed"
# one empty file a lesson that passed every check here (`make test` then needs no nbval run of it)
VERIFIED = OUT / "verified"


# ---------- Chromium ----------

def find_chromium() -> str | None:
    for candidate in (os.environ.get("MISHRAN_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def clear_old_outputs(test_files: set[str]) -> None:
    """Before a run, once (conftest.py calls it in the process that leads the run, not in each pytest-xdist
    worker, which would delete what another has just written): the old screenshots of the test files about to
    run (site_*.png belong to the site's test), and for the lessons' test the lessons saved last time, so that only
    this run's reach the website (a lesson that fails now leaves no copy behind)."""
    for png in OUT.glob("*.png"):
        owner = "test_site_in_browser.py" if png.name.startswith("site_") else "test_lessons_in_browser.py"
        if owner in test_files:
            png.unlink()
    if "test_lessons_in_browser.py" in test_files:
        shutil.rmtree(EXECUTED, ignore_errors=True)
        shutil.rmtree(VERIFIED, ignore_errors=True)


@pytest.fixture(scope="session")
def shots() -> Path:
    """Screenshots folder (cleared of the old ones before the run: clear_old_outputs)."""
    OUT.mkdir(parents=True, exist_ok=True)
    return OUT


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is missing: pip install -e '.[test]'")
    exe = find_chromium()
    if exe is None:
        pytest.skip(f"no Chromium on this machine: {INSTALL_HINT}")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def bengali_font_families() -> set[str]:
    """The installed font families that cover Bengali (fontconfig, which Chromium uses on Linux)."""
    try:
        out = subprocess.run(["fc-list", ":lang=bn", "family"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {name.strip() for line in out.splitlines() for name in line.split(",") if name.strip()}


def platform_fonts(page, selector: str) -> list[dict]:
    """Fonts Chromium really used for the text directly inside the first element matching selector
    (DevTools CSS.getPlatformFontsForNode): [{familyName, isCustomFont, glyphCount}, ...]."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if not node:
            return []
        return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    finally:
        cdp.detach()


MARK_BENGALI_JS = """
([scope, mark]) => {
  // the first element inside `scope` whose own text (not its children's) has Bengali letters
  const bn = /[\\u0980-\\u09FF]/;
  for (const el of document.querySelectorAll(scope)) {
    for (const n of el.childNodes) {
      if (n.nodeType === 3 && bn.test(n.textContent)) { el.setAttribute('data-mishran-bn', mark); return true; }
    }
  }
  return false;
}
"""


def bengali_fonts_used(page, scope: str, mark: str) -> list[dict] | None:
    """Platform fonts of the first element under `scope` with Bengali text; None if there is none."""
    if not page.evaluate(MARK_BENGALI_JS, [scope, mark]):
        return None
    return platform_fonts(page, f'[data-mishran-bn="{mark}"]')


# ---------- JupyterLab ----------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LAB_SETTINGS = {
    # every cell in the DOM (JupyterLab 4 otherwise renders only the visible ones)
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # never write the served copy back (it is a copy anyway)
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    # saving a notebook keeps its widgets' state (the website is built from the notebooks saved here)
    "@jupyter-widgets/jupyterlab-manager/plugin.jupyterlab-settings": {"saveState": True},
    # no news/update toast over the notebook
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                       "checkForUpdates": False},
}


@dataclass
class Lab:
    base: str
    token: str
    root: Path
    proc: subprocess.Popen
    log: Path

    def url(self, path: str, query: str = "") -> str:
        return f"{self.base}/{path}?{query + '&' if query else ''}token={self.token}"

    def api(self, method: str, path: str):
        req = urllib.request.Request(f"{self.base}/api/{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        for s in self.api("GET", "sessions") or []:
            self.api("DELETE", f"sessions/{s['id']}")


def lesson_source_dir() -> Path:
    """Where the lessons come from: notebooks/, or MISHRAN_BROWSER_NOTEBOOKS (a scratch copy, e.g. to show that
    a broken widget fails the test)."""
    return Path(os.environ.get("MISHRAN_BROWSER_NOTEBOOKS", REPO / "notebooks")).resolve()


def lesson_names() -> list[str]:
    return sorted(p.name for p in lesson_source_dir().glob("[0-9][0-9]_*.ipynb"))


def _start_lab(tmp: Path) -> Lab:
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}    # inline figures, as a learner sees
    env.update(JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
               JUPYTER_PLATFORM_DIRS="1")
    log = tmp / f"lab-{port}.log"
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tmp / 'course'}",
           f"--LabApp.user_settings_dir={tmp / 'settings'}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
           "--ServerApp.port_retries=0"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    with open(log, "w") as fh:
        proc = subprocess.Popen(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT, cwd=tmp / "course",
                                start_new_session=True)
    lab = Lab(f"http://127.0.0.1:{port}", token, tmp / "course", proc, log)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            lab.api("GET", "status")
            return lab
        except OSError:
            time.sleep(0.5)
    _stop(proc)
    raise RuntimeError(f"JupyterLab did not start on port {port}:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)        # its own process group: the server and its kernels
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


@pytest.fixture(scope="session")
def lab():
    """JupyterLab serving a temporary copy of the course (so nothing on disk is ever modified), on a free
    loopback port with a random token. Only the start is retried (a port can be taken in between)."""
    tmp = Path(tempfile.mkdtemp(prefix="mishran-browser-"))
    course = tmp / "course"
    shutil.copytree(lesson_source_dir(), course / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    for extra in ("docs", "data"):
        if (REPO / extra).is_dir():
            shutil.copytree(REPO / extra, course / extra)
    for name in ("README.md",):
        shutil.copy2(REPO / name, course / name)
    for rel, value in LAB_SETTINGS.items():
        path = tmp / "settings" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    errors = []
    for _ in range(3):
        try:
            server = _start_lab(tmp)
            break
        except RuntimeError as err:
            errors.append(str(err))
    else:
        pytest.fail("JupyterLab did not start (3 tries):\n" + "\n".join(errors))
    try:
        yield server
    finally:
        _stop(server.proc)
        shutil.rmtree(tmp, ignore_errors=True)


# ---------- the checked outputs of a lesson JupyterLab ran (what `pytest --nbval-lax` compares) ----------

CHECK_TAG = "nbval-check-output"
# nbval's own list of what it leaves out of a comparison (its default, without --nbdime): figures, widget model ids,
# execution counts and metadata
NBVAL_SKIP = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
              "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")


class _NbvalComparison:
    """nbval's cell comparison (IPyNbCell.compare_outputs, with its stream coalescing) outside a pytest item: the
    same rules decide, only the report of a mismatch is written here."""

    def __init__(self):
        from nbval.plugin import IPyNbCell, nocolors
        self._compare = IPyNbCell.compare_outputs
        self.parent = type("Parent", (), {"skip_compare": NBVAL_SKIP, "sanitize_patterns": {}})()
        self.colors = nocolors
        self.comparison_traceback: list[str] = []

    def sanitize(self, s):
        return s                                  # the course keeps no sanitize file: outputs compare as they are

    def format_output_compare(self, key, left, right):
        import difflib
        diff = difflib.unified_diff(str(left).splitlines(), str(right).splitlines(), "stored", "JupyterLab",
                                    lineterm="", n=1)
        self.comparison_traceback.append(f"mismatch in {key!r}:\n" + "\n".join(list(diff)[:40]))

    def differs(self, test_outputs, ref_outputs) -> str | None:
        from nbval.plugin import coalesce_streams
        self.comparison_traceback = []
        same = self._compare(self, coalesce_streams(test_outputs), coalesce_streams(ref_outputs))
        return None if same else "\n".join(self.comparison_traceback)


def checked_output_mismatches(executed: Path, reference: Path) -> list[str]:
    """Each cell of `reference` tagged nbval-check-output (and run there) must have printed the same in `executed`
    (the copy JupyterLab ran and saved), by nbval's rules. Returns one message a cell that differs."""
    import copy

    import nbformat
    ran = nbformat.read(executed, as_version=4).cells
    stored = nbformat.read(reference, as_version=4).cells
    if [c.source for c in ran] != [c.source for c in stored]:
        return [f"{executed.name}: the saved copy's cells are not the repository's (cells added, removed or edited)"]
    compare, found = _NbvalComparison(), []
    for i, (test, ref) in enumerate(zip(ran, stored, strict=True)):
        if ref.cell_type != "code" or CHECK_TAG not in ref.metadata.get("tags", []) or ref.execution_count is None:
            continue
        why = compare.differs(copy.deepcopy(test.outputs), copy.deepcopy(ref.outputs))
        if why:
            found.append(f"{reference.name}, cell {i} (tagged {CHECK_TAG}):\n{why}")
    return found


SOLVED = "সমাধান যাচাই হলো (the solution checks)।"        # the fixed line a silenced solution cell may print
RIGHT = "ঠিক!"                                            # mishran.exercises.core.say's mark for a right answer


def solution_output_leaks(executed: Path) -> dict:
    """Run All must not print an exercise's answer: every line a hidden solution cell (tag solution) showed in the
    copy JupyterLab ran and saved, beyond a checker's verdict ("ঠিক! …", its indented continuation lines, or SOLVED).
    A figure or other rich output counts as a line. Returns {cell: [lines]}; tests/test_solution_cells.py holds the
    same rule statically for every `make test`."""
    import nbformat
    found = {}
    for i, cell in enumerate(nbformat.read(executed, as_version=4).cells):
        if "solution" not in cell.metadata.get("tags", []):
            continue
        lines = []
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                lines += [ln for ln in out.text.splitlines() if ln.strip()]
            elif out.output_type in ("display_data", "execute_result"):
                lines.append(f"<{out.output_type}: {sorted(out.get('data', {}))}>")
        extra = [ln for ln in lines if not (ln.startswith(RIGHT) or ln == SOLVED or ln.startswith("   "))]
        if extra:
            found[i] = extra
    return found
