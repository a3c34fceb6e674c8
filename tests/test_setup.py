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
  tools/torch_check.py) [ "$2" = --choose ] && exec "$REAL_PYTHON" "$@"; exit 0 ;;
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
    base["MISHRAN_NVIDIA_GPU"] = "1"            # as on a GPU machine, unless a test says otherwise
    return subprocess.run([MAKE, "--no-print-directory", *args], cwd=cwd, capture_output=True, text=True,
                          env={**base, **(env or {})}, timeout=60)


@pytest.fixture
def fake(tmp_path):
    python = tmp_path / "fakepython"
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "calls.log"
    log.touch()
    env = {"FAKE_LOG": str(log), "FAKE_VERSION": "3.12.3", "REAL_PYTHON": sys.executable}
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


CPU_INDEX = "--index-url https://download.pytorch.org/whl/cpu"


@needs_make
@pytest.mark.parametrize("gpu, given, index", [
    ("0", None, True),                     # a CPU laptop: the CPU build, by itself
    ("1", None, False),                    # an NVIDIA GPU: PyPI's (CUDA) build
    ("0", "", False),                      # TORCH_PIP_ARGS given, even empty: used as it is
    ("1", CPU_INDEX, True),
])
def test_the_torch_step_takes_the_cpu_build_where_no_nvidia_gpu_is_seen(fake, gpu, given, index):
    python, log, env, venv = fake
    args = [] if given is None else [f"TORCH_PIP_ARGS={given}"]
    done = _make(f"PYTHON={python}", f"VENV={venv}", *args, f"{venv}/.stamp-torch",
                 env={**env, "MISHRAN_NVIDIA_GPU": gpu})
    assert done.returncode == 0, done.stdout + done.stderr
    [install] = [ln for ln in log.read_text().splitlines() if "pip install" in ln and "torch>=" in ln]
    assert (CPU_INDEX in install) == index, install
    if given is None:                      # chosen, so said: which build, and why
        assert ("CPU build" if index else "CUDA build") in done.stderr, done.stderr
    assert (venv / ".torch-request").read_text().splitlines()[1:] == ([CPU_INDEX] if index else [])


@needs_make
@pytest.mark.parametrize("target", ["student", "answer-key", "host"])
def test_every_teacher_target_sets_up_the_venv_first_on_a_fresh_clone(fake, target):
    """No "nbformat not found" from the system's python: the target makes the .venv (as `make lab` does) and runs
    the venv's python."""
    python, log, env, venv = fake
    extra = ["REF=class-2027", "-n"] if target == "host" else []    # -n: host would rewrite this checkout
    done = _make(f"PYTHON={python}", f"VENV={venv}", f"HANDOUTS={venv}/h", target, *extra, env=env)
    calls = log.read_text() + done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    tool = "tools/colab.py" if target == "host" else "tools/student.py"
    if target == "host":                   # -n prints the sub-make's install rather than running it
        assert f"{venv}/.stamp-lab" in done.stdout and f"{venv}/bin/python {tool}" in done.stdout
        return
    lab = calls.index(".[lab]")
    assert calls.index("torch>=") < lab < calls.index(f"{venv}/bin/python {tool}"), calls
    assert f"{python} {tool}" not in calls


def _name(requirement):
    return re.sub(r"[-_.]+", "-", requirement.name).lower()


def _torch_specifiers(top):
    """Every requirement on torch that installing `top` (requirement strings) can meet, through the installed
    packages' own metadata: what pip would weigh against the torch already there."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    found, seen, todo = [], set(), [Requirement(r) for r in top]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        if _name(req) == "torch":
            found.append(str(req))
        if _name(req) in seen:
            continue
        seen.add(_name(req))
        try:
            todo += [Requirement(r) for r in requires(_name(req)) or []]
        except PackageNotFoundError:
            pass
    return found


def test_make_lab_and_the_colab_cell_keep_the_installed_torch():
    """pip keeps an installed package that meets every requirement on it (no --upgrade): so the lab extra (with
    transformers now) and the Colab cell's extras may not ask for a torch the installed one misses, and the installs
    may not upgrade. Colab's torch is ≥ 2.4, what pyproject asks."""
    from importlib.metadata import version

    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet

    sys.path.insert(0, str(ROOT / "tools"))
    import colab

    project = colab.read_toml(ROOT / "pyproject.toml")["project"]
    extras = project["optional-dependencies"]
    installed = version("torch").split("+")[0]
    for plan in (["lab"], ["deepspeed"], ["deepspeed", "fp8"]):
        top = project["dependencies"] + [r for e in plan for r in extras[e]]
        specs = _torch_specifiers(top)
        assert specs, plan
        for spec in specs:
            assert SpecifierSet(spec.split("torch", 1)[1].split(";")[0]).contains(installed, prereleases=True), spec
        assert not any(_name(Requirement(r)) == "torch" for e in plan for r in extras[e]), plan   # none names torch
    for e in ("lab", "deepspeed"):                                # the oldest torch Colab may have still qualifies
        assert all(SpecifierSet(s.split("torch", 1)[1].split(";")[0]).contains("2.4.0")
                   for s in _torch_specifiers(extras[e]) if "torch" in s), e
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for line in re.findall(r"^\t.*\$\(INSTALL\).*-e .*$", makefile, re.M):
        assert "--upgrade" not in line and "-U " not in line and "--force" not in line, line


def test_the_colab_cell_installs_without_upgrading(monkeypatch, tmp_path):
    sys.path.insert(0, str(ROOT / "tools"))
    import colab

    calls = []

    def run(cmd, **kwargs):
        calls.append(cmd)
        out = "f" * 40 if cmd[:1] == ["git"] else ""
        return subprocess.CompletedProcess(cmd, 0, out, "")

    monkeypatch.setattr(colab.subprocess, "run", run)
    monkeypatch.setattr(colab.sysconfig, "get_paths", lambda: {"purelib": str(tmp_path)})
    colab.colab_setup(tmp_path / "src", lesson="05", python="py", fp8_gpu=False)
    [pip] = [c for c in calls if c[:3] == ["py", "-m", "pip"]]
    assert pip[-1].endswith("[deepspeed]") and not {"-U", "--upgrade", "--force-reinstall"} & set(pip)
    assert not any(a.startswith("torch") for a in pip)


def test_deepspeed_is_left_out_of_the_lab_extra_on_native_windows():
    """Lessons 00-04 install on a native Windows Python without DeepSpeed (it may not build there); lessons 05+ say
    to use WSL or Colab. Checked by evaluating the markers as Windows and Linux would, not on Windows itself."""
    from packaging.requirements import Requirement

    sys.path.insert(0, str(ROOT / "tools"))
    import colab

    lab = [Requirement(r) for r in colab.read_toml(ROOT / "pyproject.toml")["project"]["optional-dependencies"]["lab"]]

    def names(system):
        env = {"platform_system": system, "sys_platform": {"Windows": "win32"}.get(system, "linux"), "extra": ""}
        return {_name(r) for r in lab if r.marker is None or r.marker.evaluate(env)}

    assert "deepspeed" not in names("Windows") and {"jupyterlab", "ipykernel"} <= names("Windows")
    assert "deepspeed" in names("Linux") and "deepspeed" in names("Darwin")
