"""`make`'s torch step when only the request changed: a torch that already meets the new TORCH_SPEC is kept.

After CI (TORCH_SPEC=torch==2.13.0) a plain `make lab` asks for torch>=2.11; the installed torch meets it, so
nothing may be installed again. The venv here is a fake whose `python -m pip` only records its arguments; any
other call (tools/torch_check.py) runs this interpreter, so the installed torch is the real one.
"""
import os
import shutil
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")
TORCH = version("torch").split("+")[0]                     # e.g. 2.13.0
MET = f"torch>={'.'.join(TORCH.split('.')[:2])}"           # a request the installed torch meets
UNMET = "torch<1"

FAKE_PYTHON = f"""#!/usr/bin/env bash
# a venv's python: `-m pip` is only recorded; anything else runs the real interpreter (the real torch)
if [ "$1" = -m ] && [ "$2" = pip ]; then echo "$*" >> "$PIP_LOG"; exit 0; fi
exec {sys.executable} "$@"
"""
# What a surrounding run may set (CI exports TORCH_SPEC; `make test` passes MAKEFLAGS down).
_OUTER = {"TORCH_SPEC", "TORCH_PIP_ARGS", "PYTHON", "VENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}


@pytest.fixture
def venv(tmp_path):
    """A venv made by an earlier `make test` with TORCH_SPEC=torch==2.13.0: every stamp written, in order."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    (venv / ".torch-request").write_text(f"torch=={TORCH}\n")
    now = time.time()
    for age, stamp in ((300, ".torch-request"), (200, ".stamp-torch"), (100, ".stamp-test"), (100, ".stamp-lab")):
        (venv / stamp).touch()
        os.utime(venv / stamp, (now - age, now - age))
    return venv


def make(venv, target, *assignments):
    env = {k: v for k, v in os.environ.items() if k not in _OUTER}
    env["PIP_LOG"] = str(venv / "pip.log")
    done = subprocess.run([MAKE, "--no-print-directory", f"VENV={venv}", *assignments, f"{venv}/{target}"],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    pip = (venv / "pip.log").read_text() if (venv / "pip.log").exists() else ""
    return done, pip


def test_a_request_the_installed_torch_meets_installs_nothing(venv):
    torch_stamp = (venv / ".stamp-torch").stat().st_mtime_ns
    done, pip = make(venv, ".stamp-lab", f"TORCH_SPEC={MET}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert pip == "", f"pip ran although torch {TORCH} meets '{MET}': {pip}"
    assert "TORCH_SPEC/TORCH_PIP_ARGS changed" in done.stdout and "already satisfied" in done.stdout
    assert (venv / ".torch-request").read_text().splitlines()[0] == MET     # remembered: said once, not again
    assert (venv / ".stamp-torch").stat().st_mtime_ns == torch_stamp
    again, pip = make(venv, ".stamp-lab", f"TORCH_SPEC={MET}")
    assert again.returncode == 0 and pip == "" and "changed" not in again.stdout


def test_a_request_it_does_not_meet_runs_the_torch_step(venv):
    done, pip = make(venv, ".stamp-torch", f"TORCH_SPEC={UNMET}")
    assert "TORCH_SPEC/TORCH_PIP_ARGS changed" in done.stdout and "already satisfied" not in done.stdout
    assert f"install -q {UNMET}" in pip
    # the fake pip installed nothing: the real torch still fails the check, so the step fails and leaves no stamp
    assert done.returncode != 0 and "installed torch differs from TORCH_SPEC" in done.stderr
    assert not (venv / ".stamp-torch").exists()


def test_changed_pip_arguments_run_the_torch_step_even_when_the_version_is_met(venv):
    done, pip = make(venv, ".stamp-torch", f"TORCH_SPEC={MET}", "TORCH_PIP_ARGS=--index-url file:///nowhere")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"install -q --index-url file:///nowhere {MET}" in pip


def test_the_torch_check_is_quiet_before_numpy_is_installed():
    """The torch step installs torch alone (numpy comes with the course next): torch's "Failed to initialize NumPy"
    warning would be noise there, not a fault. Here numpy is made unimportable, as in that fresh venv."""
    code = ("import runpy, sys; sys.modules['numpy'] = None; sys.argv = ['torch_check.py', 'torch>=2']; "
            "runpy.run_path('tools/torch_check.py', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert TORCH in done.stdout and "NumPy" not in done.stderr, done.stderr
