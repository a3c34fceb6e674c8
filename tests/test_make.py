"""`make` itself: the torch step when only the request changed, and `make test`'s table of phase times.

After CI (TORCH_SPEC=torch==2.13.0) a plain `make lab` asks for torch>=2.11; the installed torch meets it, so
nothing may be installed again. The venv here is a fake whose python only records `-m pip`, `-m ruff`, `-m pytest`
and tools/build_site.py (failing the call that contains $FAIL_ON); any other call (tools/torch_check.py) runs this
interpreter, so the installed torch is the real one.
"""
import os
import re
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
# a venv's python: installs, ruff, pytest and the site build are only recorded; anything else is the real one
case "$1 $2" in
  "-m pip"|"-m ruff"|"-m pytest"|"tools/build_site.py "*)
    echo "$*" >> "$CALLS"
    if [ -n "$FAIL_ON" ] && [[ "$*" == *"$FAIL_ON"* ]]; then exit 3; fi
    exit 0 ;;
esac
exec {sys.executable} "$@"
"""
# What a surrounding run may set (CI exports TORCH_SPEC and UV; `make test` passes MAKEFLAGS down).
_OUTER = {"TORCH_SPEC", "TORCH_PIP_ARGS", "UV", "PYTHON", "VENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}


@pytest.fixture
def venv(tmp_path):
    """A venv made by an earlier `make test` with TORCH_SPEC=torch==2.13.0: every stamp written, in order."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    (venv / ".torch-request").write_text(f"torch=={TORCH}\n")
    now = time.time()                        # the stamps up to now: newer than pyproject.toml, however fresh it is
    for age, stamp in ((2, ".torch-request"), (1, ".stamp-torch"), (0, ".stamp-test"), (0, ".stamp-lab")):
        (venv / stamp).touch()
        os.utime(venv / stamp, (now - age, now - age))
    return venv


def make(venv, target, *assignments, fail_on=""):
    env = {k: v for k, v in os.environ.items() if k not in _OUTER}
    # as on a GPU machine: no pip arguments chosen for torch (tests/test_setup.py tests the CPU choice)
    env.update(CALLS=str(venv / "calls.log"), FAIL_ON=fail_on, MISHRAN_NVIDIA_GPU="1")
    target = target if target == "test" else f"{venv}/{target}"
    if not any(a.startswith("VERIFIED=") for a in assignments):     # not the checkout's out/browser/verified
        assignments = (*assignments, f"VERIFIED={venv}/verified-none")
    done = subprocess.run([MAKE, "--no-print-directory", f"VENV={venv}", *assignments, target],
                          cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    calls = (venv / "calls.log").read_text() if (venv / "calls.log").exists() else ""
    (venv / "calls.log").unlink(missing_ok=True)
    return done, calls


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


# the browser lane's phases in order, then the unit tests, which ran beside it
PHASES = ["ruff", "browser: lessons", "site build", "browser: site", "notebooks (nbval)", "unit tests"]
LESSONS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def table(stdout):
    """make test's closing table: {phase: status}, in order."""
    rows = stdout.split("make test: each phase's time", 1)[1].splitlines()[1:]
    return {row[:22].strip(): row[30:].strip() for row in rows if row.strip()}


def test_make_test_runs_every_phase_and_times_each_even_when_one_fails(venv):
    done, calls = make(venv, "test", "TORCH_SPEC=torch==" + TORCH, fail_on="--nbval-lax")
    seen = table(done.stdout)
    assert list(seen) == PHASES + ["in all"], done.stdout                    # nothing to install: no such row
    assert seen["notebooks (nbval)"] == "FAILED (exit 3)", done.stdout
    assert all(seen[p] == "ok" for p in PHASES if p != "notebooks (nbval)"), done.stdout
    assert done.returncode == 2 and re.search(r"\[(Makefile:\d+: )?test\] Error 3", done.stderr)   # the phase's status
    assert "test_site_in_browser.py" in calls                                # the phases after it still ran
    ok, _ = make(venv, "test", "TORCH_SPEC=torch==" + TORCH)
    assert ok.returncode == 0 and all(table(ok.stdout)[p] == "ok" for p in PHASES), ok.stdout


def test_make_test_reports_the_install_when_it_ran(venv):
    os.utime(venv / ".stamp-test", (0, 0))                                   # older than pyproject.toml
    done, calls = make(venv, "test", "TORCH_SPEC=torch==" + TORCH)
    assert "-e .[lab,test]" in calls and done.returncode == 0, done.stdout + done.stderr
    assert list(table(done.stdout)) == ["install"] + PHASES + ["in all"], done.stdout


def test_nbval_runs_only_the_lessons_the_browser_did_not_pass(venv, tmp_path):
    verified = tmp_path / "verified"
    verified.mkdir()
    for name in LESSONS[:-1]:                   # the browser test passed all but the last lesson
        (verified / name).touch()
    done, calls = make(venv, "test", "TORCH_SPEC=torch==" + TORCH, f"VERIFIED={verified}")
    nbval = [c for c in calls.splitlines() if "--nbval-lax" in c]
    assert nbval == [nbval[0]] and nbval[0].endswith(f"--nbval-lax notebooks/{LESSONS[-1]}"), calls
    (verified / LESSONS[-1]).touch()
    done, calls = make(venv, "test", "TORCH_SPEC=torch==" + TORCH, f"VERIFIED={verified}")
    assert "--nbval-lax" not in calls and table(done.stdout)["notebooks (nbval)"] == "ok", done.stdout
    assert "every lesson passed in JupyterLab" in done.stdout
