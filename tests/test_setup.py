"""The set-up a new user runs: `make help`, the Python check, the atomic torch step, `make lab` as root, ruff.

The torch step is driven by a fake `python` (a shell script) so that nothing is downloaded: it records each call
and fails the torch install when told to.
"""
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make")
needs_make = pytest.mark.skipif(MAKE is None, reason="make is not installed")

FAKE_PYTHON = r"""#!/usr/bin/env bash
# a fake interpreter: logs its arguments; behaves as Python $FAKE_VERSION
echo "$0 $*" >> "$FAKE_LOG"
case "$1" in
  --version) echo "Python $FAKE_VERSION"; exit 0 ;;
  -c) [ "$FAKE_VERSION" != "3.9.18" ]; exit $? ;;
  -m)
    if [ "$2" = venv ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; exit 0; fi
    if [ "$2" = pip ] && [[ "$*" == *torch* ]]; then exit "${FAKE_TORCH_FAILS:-0}"; fi
    exit 0 ;;
  *) exit 0 ;;
esac
"""


# Variables a surrounding run may set (CI exports TORCH_SPEC and UV; `make test` passes MAKEFLAGS down): the make under
# test must see only what each test gives it.
_OUTER = {"TORCH_SPEC", "TORCH_PIP_ARGS", "UV", "PYTHON", "VENV", "LAB_ARGS", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}


def _make(*args, env=None, cwd=ROOT):
    base = {k: v for k, v in os.environ.items() if k not in _OUTER}
    return subprocess.run([MAKE, "--no-print-directory", *args], cwd=cwd, capture_output=True, text=True,
                          env={**base, **(env or {})}, timeout=60)


@pytest.fixture
def fake(tmp_path):
    python = tmp_path / "fakepython"
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "calls.log"
    log.touch()
    env = {"FAKE_LOG": str(log), "FAKE_VERSION": "3.12.3"}
    return python, log, env, tmp_path / "venv"


@needs_make
def test_make_help_lists_every_target():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-zA-Z][a-zA-Z_-]*):", text, re.M)) - {"FORCE"}
    out = _make("help").stdout
    listed = set(re.findall(r"^make (\S+)", out, re.M))
    assert targets <= listed, f"not in `make help`: {sorted(targets - listed)}"
    assert {"lab", "test", "lint-code"} <= listed


@needs_make
def test_an_old_python_is_refused_before_any_download(fake):
    python, log, env, venv = fake
    env["FAKE_VERSION"] = "3.9.18"
    done = _make(f"PYTHON={python}", f"VENV={venv}", f"{venv}/.stamp-torch", env=env)
    assert done.returncode != 0
    assert "Python >= 3.10 required" in done.stdout + done.stderr and "3.9.18" in done.stdout + done.stderr
    assert " -m " not in log.read_text(), "nothing may be installed with an old Python"


@needs_make
def test_a_failed_torch_install_leaves_no_stamp_and_is_retried(fake):
    python, log, env, venv = fake
    failed = _make(f"PYTHON={python}", f"VENV={venv}", f"{venv}/.stamp-torch", env={**env, "FAKE_TORCH_FAILS": "1"})
    assert failed.returncode != 0
    assert (venv / "bin/python").exists() and not (venv / ".stamp-torch").exists()
    log.write_text("")
    again = _make(f"PYTHON={python}", f"VENV={venv}", f"{venv}/.stamp-torch", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert (venv / ".stamp-torch").exists()
    assert re.search(r"-m pip install -q +torch>=", log.read_text()), "the torch step must run again"


@needs_make
def test_a_changed_torch_spec_is_said_and_installed(fake):
    python, log, env, venv = fake
    assert _make(f"PYTHON={python}", f"VENV={venv}", f"{venv}/.stamp-torch", env=env).returncode == 0
    log.write_text("")
    same = _make(f"PYTHON={python}", f"VENV={venv}", f"{venv}/.stamp-torch", env=env)
    assert "pip install" not in log.read_text() and "changed" not in same.stdout        # nothing to do
    other = _make(f"PYTHON={python}", f"VENV={venv}", "TORCH_SPEC=torch==2.13.0", f"{venv}/.stamp-torch", env=env)
    assert other.returncode == 0
    assert "TORCH_SPEC/TORCH_PIP_ARGS changed" in other.stdout and "torch==2.13.0" in log.read_text()


@needs_make
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="the --allow-root rule is for root")
def test_make_lab_keeps_allow_root_with_its_own_lab_args():
    done = _make("-n", "-o", ".venv/.stamp-lab", "lab", "LAB_ARGS=--no-browser --port 8899")
    line = [ln for ln in done.stdout.splitlines() if "jupyter lab" in ln]
    assert line and "--allow-root" in line[0] and "--port 8899" in line[0], done.stdout


def test_torch_check_says_when_the_installed_torch_does_not_match():
    import torch
    tool = ROOT / "tools/torch_check.py"
    ok = subprocess.run([sys.executable, str(tool), "torch>=2.0"], capture_output=True, text=True)
    assert ok.returncode == 0 and torch.__version__ in ok.stdout
    bad = subprocess.run([sys.executable, str(tool), "torch<2.0"], capture_output=True, text=True)
    assert bad.returncode == 1 and "installed torch differs from TORCH_SPEC" in bad.stderr


def test_ruff_finds_nothing_in_the_code():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    done = subprocess.run([ruff, "check", "src", "tests", "tools", "conftest.py", "setup.py"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]


def test_handouts_and_returned_work_are_ignored_by_git():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for path in ("out/student/01_bit_layouts.ipynb", "returned/রহিম/01.ipynb", "answers.md", "scores.csv"):
        done = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT)
        assert done.returncode == 0, f"{path} is not ignored"
