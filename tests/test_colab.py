"""The Colab setup cell, run in a simulated Colab kernel.

The simulated runtime: a small virtual environment whose own site-packages holds matplotlib 3.10 (as Colab's
image does) and which sees this checkout's .venv (torch, DeepSpeed, ipykernel, ...) only *behind* it, through a
.pth line; a fake `google.colab` module imported when the kernel starts; and, like Colab, matplotlib imported at
start-up. The course is installed by the setup cell itself, from a git repository holding a snapshot of this
working tree (MISHRAN_REPO points there), with pip offline (a small wheelhouse cached in build/colab-test/).

What is checked, end to end:
- a fresh runtime without matplotlib loaded: the cell installs the course and the lesson's imports work;
- the normal first run (matplotlib 3.10 loaded): the cell installs, then stops Run all (the kernel aborts every
  later cell) with the Bengali restart message; after a restart it does not stop and the lesson's imports work;
- the same two paths for every lesson, with the template's setup cell (tools/colab.py) in place of the stored one
  (one kernel before the restart and one after it, each running the lessons in turn);
- a wrong repository address and a failing pip each stop with a Bengali explanation;
- a re-run after the course changed installs the new commit and asks for a restart;
- a pinned setup cell (a teacher's `make host ... REF=`) installs the tag's commit, or the given full commit hash,
  not the branch tip.
The first run fills the cache (needs the network once: pip download of three wheels); later runs are offline.
The setup cell clones into Colab's own fixed /tmp/mishran-src, as it does there; the module removes that clone
when it is done, so nothing of the test stays in the system's temporary folder.
"""
import contextlib
import fcntl
import json
import os
import queue
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")
from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import colab  # noqa: E402

CACHE = Path(os.environ.get("MISHRAN_COLAB_TEST_CACHE", ROOT / "build" / "colab-test"))   # build/ is git-ignored
COLAB_SRC = Path("/tmp/mishran-src")           # where the setup cell clones the course, as on Colab
LOCK = Path("/tmp/mishran-src.test-lock")      # beside the clone: one per machine, whichever checkout tests
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
OLD_MPL = "3.10.9"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
START_OLD_MPL = "import google.colab; import matplotlib"          # what Colab's start-up does, in short


# ------------------------------------------------------------------ the simulated runtime

def _pip(python, *args):
    return subprocess.run([str(python), "-m", "pip", "-q", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, check=False)


def _wheelhouse():
    """matplotlib 3.10 (Colab's), the matplotlib this .venv has (>= 3.11), setuptools (pip's build backend)."""
    import matplotlib
    house = CACHE / "wheelhouse"
    want = {f"matplotlib-{OLD_MPL}-": f"matplotlib=={OLD_MPL}",
            f"matplotlib-{matplotlib.__version__}-": f"matplotlib=={matplotlib.__version__}",
            "setuptools-": "setuptools>=77"}
    house.mkdir(parents=True, exist_ok=True)
    for prefix, req in want.items():
        if not any(p.name.startswith(prefix) for p in house.glob("*.whl")):
            out = _pip(sys.executable, "download", "--no-deps", "-d", str(house), req)
            if out.returncode:
                pytest.skip(f"cannot fill the wheel cache {house} (needs the network once): {out.stderr[-300:]}")
    return house


def _template_venv(house):
    """A venv with matplotlib 3.10 in its own site-packages and this .venv behind it (cached)."""
    import hashlib
    behind_key = hashlib.sha1(sys.prefix.encode()).hexdigest()[:8]    # which course .venv it sees behind it
    venv = CACHE / f"venv-py{PY}-mpl{OLD_MPL}-{behind_key}"
    python = venv / "bin" / "python"
    if (venv / "ready").exists():
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    behind = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_behind_course_venv.pth").write_text("\n".join(sorted(behind)) + "\n", encoding="utf-8")
    out = _pip(python, "install", "--no-deps", "--no-index", "--find-links", str(house), f"matplotlib=={OLD_MPL}")
    assert out.returncode == 0, out.stderr
    (venv / "ready").touch()
    return venv


def _snapshot_repo(dest):
    """A git repository holding this working tree as it is now (tracked and untracked, not ignored)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    _commit(dest, "snapshot of the working tree")
    return dest


def _commit(repo, message):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    if not (repo / ".git").exists():
        # on main, as on GitHub: the setup cell fetches the ref pyproject names (main by default), not HEAD
        subprocess.run(["git", "init", "-q", "-b", colab.course_ref(), str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)


class Runtime:
    """One simulated Colab runtime: its venv (a fresh copy of the template) and how to start kernels in it."""

    def __init__(self, root, template, repo, house, old_mpl_dir):
        self.venv = root / "venv"
        shutil.copytree(template, self.venv, symlinks=True)
        self.python = self.venv / "bin" / "python"
        fake = root / "fake"                       # google.colab, as far as the setup cell looks
        (fake / "google" / "colab").mkdir(parents=True)
        (fake / "google" / "colab" / "__init__.py").write_text('"""fake google.colab for tests"""\n')
        self.old_mpl_dir = old_mpl_dir
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root),
                    "PYTHONPATH": str(fake), "MISHRAN_REPO": f"file://{repo}", "PIP_NO_INDEX": "1",
                    "PIP_FIND_LINKS": str(house), "PIP_NO_CACHE_DIR": "1", "MPLBACKEND": "Agg",
                    "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
        self.specs = root / "kernels"
        self.ksm = KernelSpecManager(kernel_dirs=[str(self.specs)])

    def kernel(self, startup=START_OLD_MPL, old_mpl_on_path=False):
        """A started kernel client; startup is what runs before the first cell (as Colab's start-up does)."""
        lines = []
        if old_mpl_on_path:                         # Colab's old matplotlib, though a newer one is installed
            lines.append(f"import sys; sys.path.insert(0, {str(self.old_mpl_dir)!r})")
        lines.append(startup)
        if old_mpl_on_path:
            lines.append(f"sys.path.remove({str(self.old_mpl_dir)!r})")
        name = f"sim{len(list(self.specs.glob('*')))}"
        (self.specs / name).mkdir(parents=True)
        argv = [str(self.python), "-m", "ipykernel_launcher", "-f", "{connection_file}",
                f"--IPKernelApp.exec_lines={json.dumps(lines)}"]
        (self.specs / name / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": name,
                                                                   "language": "python"}))
        for attempt in range(3):
            km = jupyter_client.KernelManager(kernel_name=name, kernel_spec_manager=self.ksm)
            km.start_kernel(env=dict(self.env))
            kc = km.client()
            kc.start_channels()
            try:
                kc.wait_for_ready(timeout=120)
                return km, kc
            except RuntimeError:
                # "Kernel died before replying": jupyter_client picks free TCP ports, then the kernel binds them;
                # on a busy machine another process took one in between (the kernel's log: "Address already in
                # use"). A race of the harness, not of the course: start the kernel again, at most three times.
                kc.stop_channels()
                km.shutdown_kernel(now=True)
                if attempt == 2:
                    raise


def run_all(kc, sources, timeout=300, stop_on_error=True):
    """Runtime → Run all: every cell is queued at once with stop_on_error, as a notebook front-end does.

    Returns, per cell, (status, text): status 'ok', 'error' or 'aborted' (the kernel skipped it after an error).
    stop_on_error=False runs cell after cell whatever happens (for a scripted sequence of cases).
    """
    ids = [kc.execute(src, stop_on_error=stop_on_error) for src in sources]
    status, text = {}, {i: [] for i in ids}
    deadline = time.monotonic() + timeout
    while len(status) < len(ids):
        msg = kc.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
        pid = msg["parent_header"].get("msg_id")
        if pid in text:
            status[pid] = msg["content"]["status"]
    idle = False
    while not idle:                                  # the outputs, up to the last cell's idle
        try:
            msg = kc.get_iopub_msg(timeout=10)
        except queue.Empty:
            break
        pid, c = msg["parent_header"].get("msg_id"), msg["content"]
        if pid not in text:
            continue
        if msg["msg_type"] == "stream":
            text[pid].append(c["text"])
        elif msg["msg_type"] == "error":
            text[pid].append(f"{c['ename']}: " + "\n".join(c["traceback"]))
        elif msg["msg_type"] in ("execute_result", "display_data"):
            text[pid].append(c["data"].get("text/plain", ""))
        idle = pid == ids[-1] and msg["msg_type"] == "status" and c["execution_state"] == "idle"
    return [(status[i], "".join(text[i])) for i in ids]


def shutdown(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def lesson_cells(path):
    """The lesson's code cells, with the template's setup cell in place of the stored one (index 0 here)."""
    cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    tagged = [i for i, c in enumerate(cells) if "colab-setup" in c.get("metadata", {}).get("tags", [])]
    assert tagged == [0], f"{path.name}: the first code cell must be the one tagged colab-setup"
    sources = [colab.setup_source(colab.repo_url(), path.name)] + ["".join(c["source"]) for c in cells[1:]]
    first_import = next(i for i, s in enumerate(sources) if i and ("from mishran" in s or "import mishran" in s))
    return sources, sources[:first_import + 1]


COMPLETE_AFTER_RESTART = ("00", "01")
CHECK_COURSE = ("import matplotlib, mishran, sys\n"
                "print('MPL', matplotlib.__version__, 'FROM', mishran.__file__,\n"
                "      'COLAB', 'google.colab' in sys.modules)")


def assert_course_is_the_installed_one(text, runtime):
    words = text.split()
    mpl, origin = words[words.index("MPL") + 1], words[words.index("FROM") + 1]
    assert tuple(int(p) for p in mpl.split(".")[:2]) >= (3, 11), text
    assert origin.startswith(str(runtime.venv)), f"mishran came from {origin}, not from the setup cell's install"
    assert "COLAB True" in text


# ------------------------------------------------------------------ fixtures

@contextlib.contextmanager
def _one_suite_at_a_time():
    """This module on one machine, one run at a time: the setup cell clones into Colab's fixed /tmp/mishran-src
    (two checkouts testing at once used to trip over each other). A second run waits here for the first. At the
    end the clone and the lock file are removed; a run that waited on a lock file since removed takes a new one."""
    while True:
        handle = open(LOCK, "a")                                   # closed below, once the lock is let go
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            if os.stat(LOCK).st_ino == os.fstat(handle.fileno()).st_ino:
                break
        except FileNotFoundError:
            pass
        handle.close()
    try:
        yield
    finally:
        shutil.rmtree(COLAB_SRC, ignore_errors=True)
        LOCK.unlink(missing_ok=True)                               # still ours: removed before it is released
        handle.close()


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    with _one_suite_at_a_time():
        house = _wheelhouse()
        template = _template_venv(house)
        old = CACHE / f"old-mpl-{OLD_MPL}-py{PY}"      # matplotlib 3.10 alone, to be imported before the cell
        if not (old / "matplotlib").exists():
            out = _pip(sys.executable, "install", "--no-deps", "--no-index", "--find-links", str(house),
                       "--target", str(old), f"matplotlib=={OLD_MPL}")
            assert out.returncode == 0, out.stderr
        repo = _snapshot_repo(tmp_path_factory.mktemp("repo"))
        yield {"house": house, "template": template, "old": old, "repo": repo, "tmp": tmp_path_factory}


def new_runtime(parts, name):
    return Runtime(parts["tmp"].mktemp(name), parts["template"], parts["repo"], parts["house"], parts["old"])


@pytest.fixture(scope="module")
def first_run(parts):
    """A fresh Colab runtime, first run of lesson 00: wrong address, failing pip, Run all, then a restart."""
    rt = new_runtime(parts, "first")
    sources, until_imports = lesson_cells(NOTEBOOKS[0])
    setup = sources[0]
    km, kc = rt.kernel()
    try:
        failures = run_all(kc, [
            "import os; os.environ['MISHRAN_REPO'] = 'file:///no/such/mishran-repository'", setup,
            f"os.environ['MISHRAN_REPO'] = {rt.env['MISHRAN_REPO']!r}; os.environ['PIP_FIND_LINKS'] = '/nonexistent'",
            setup, f"os.environ['PIP_FIND_LINKS'] = {rt.env['PIP_FIND_LINKS']!r}"], stop_on_error=False)
    finally:
        shutdown(km, kc)
    km, kc = rt.kernel()                             # a new kernel: nothing was installed by the failures
    try:
        t0 = time.perf_counter()
        first = run_all(kc, sources)                 # Runtime → Run all, matplotlib 3.10 already loaded
        install_s = time.perf_counter() - t0
    finally:
        shutdown(km, kc)
    km, kc = rt.kernel()                             # Runtime → Restart session (start-up imports matplotlib)
    try:
        after = run_all(kc, until_imports + [CHECK_COURSE])
    finally:
        shutdown(km, kc)
    return {"runtime": rt, "failures": failures, "first": first, "after": after, "install_s": install_s}


# ------------------------------------------------------------------ tests

def test_fresh_runtime_without_matplotlib_loaded_installs_and_needs_no_restart(parts):
    rt = new_runtime(parts, "fresh")
    _, until_imports = lesson_cells(NOTEBOOKS[0])
    km, kc = rt.kernel(startup="import google.colab")
    try:
        res = run_all(kc, until_imports + [CHECK_COURSE])
    finally:
        shutdown(km, kc)
    assert [s for s, _ in res] == ["ok"] * len(res), res
    assert "ইনস্টল হলো" in res[0][1] and "restart লাগবে না" in res[0][1]
    assert_course_is_the_installed_one(res[-1][1], rt)


def test_wrong_repository_address_stops_with_a_bengali_explanation(first_run):
    status, text = first_run["failures"][1]
    assert status == "error" and "CourseSetupStop" in text
    assert "কোর্স নামানো গেল না (git fetch failed)" in text and "no/such/mishran-repository" in text
    assert "REPO ঠিকানা আর REF" in text and "troubleshooting" in text
    assert "Traceback" not in text                    # the message only, not a Python traceback


def test_failing_pip_stops_with_a_bengali_explanation_and_pips_own_words(first_run):
    status, text = first_run["failures"][3]
    assert status == "error" and "CourseSetupStop" in text
    assert "কোর্স ইনস্টল হলো না (pip install failed)" in text and "ইন্টারনেট সংযোগ" in text
    assert "No matching distribution" in text or "ERROR" in text        # pip's last lines are shown


def test_first_run_stops_run_all_at_the_setup_cell_with_the_restart_message(first_run):
    (status, text), rest = first_run["first"][0], first_run["first"][1:]
    assert status == "error" and "CourseSetupStop" in text and "Traceback" not in text
    assert "ইনস্টল হলো" in text and "matplotlib 3.10" in text
    assert "Runtime → Restart session" in text and "Runtime → Run all" in text
    assert rest and all(s == "aborted" for s, _ in rest), [s for s, _ in rest]   # nothing after it ran


def test_after_the_restart_the_cell_does_not_stop_and_the_lessons_imports_work(first_run):
    res = first_run["after"]
    assert [s for s, _ in res] == ["ok"] * len(res), res
    assert "এই সংস্করণই ইনস্টল করা আছে" in res[0][1] and "restart লাগবে না" in res[0][1]
    assert_course_is_the_installed_one(res[-1][1], first_run["runtime"])


@pytest.fixture(scope="module")
def every_lesson(first_run):
    """Every lesson in the runtime first_run installed the course into: before a restart (matplotlib 3.10 loaded),
    each lesson's Run all in turn; after the restart, each lesson up to its imports, 00–01 all the way through
    (00 is where the old matplotlib used to fail, at its Bengali figure; nbval runs every lesson in full).
    One kernel for each side of the restart, not two per lesson: the setup cell keeps nothing in the kernel (it
    fetches the course, then looks at what is installed and which matplotlib is imported), so it meets the same
    runtime in a kernel that ran other lessons before; starting 18 kernels was most of this module's time."""
    rt = first_run["runtime"]
    cells = {path.name[:2]: lesson_cells(path) for path in NOTEBOOKS}
    stale, after = {}, {}
    km, kc = rt.kernel(old_mpl_on_path=True)           # matplotlib 3.10 loaded, as on a fresh runtime
    try:
        for lesson, (sources, _) in cells.items():
            stale[lesson] = run_all(kc, sources)
    finally:
        shutdown(km, kc)
    km, kc = rt.kernel()                               # after the restart
    try:
        for lesson, (sources, until_imports) in cells.items():
            whole = lesson in COMPLETE_AFTER_RESTART
            after[lesson] = run_all(kc, (sources if whole else until_imports) + [CHECK_COURSE])
    finally:
        shutdown(km, kc)
    return {"stale": stale, "after": after, "runtime": rt}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:2])
def test_every_lesson_stops_before_a_restart_and_runs_after_it(every_lesson, path):
    lesson = path.name[:2]
    stale, res = every_lesson["stale"][lesson], every_lesson["after"][lesson]
    assert stale[0][0] == "error" and "Runtime → Restart session" in stale[0][1], stale[0]
    assert len(stale) > 1 and all(s == "aborted" for s, _ in stale[1:]), [s for s, _ in stale]
    assert [s for s, _ in res] == ["ok"] * len(res), [r for r in res if r[0] != "ok"][:1]
    assert_course_is_the_installed_one(res[-1][1], every_lesson["runtime"])
    if lesson in colab.DEEPSPEED_LESSONS:
        assert "deepspeed" in res[0][1] or "এই সংস্করণই" in res[0][1]


def test_rerun_after_the_course_changed_installs_the_new_commit_and_asks_for_a_restart(first_run, parts):
    rt, repo = first_run["runtime"], parts["repo"]
    sources, _ = lesson_cells(NOTEBOOKS[0])
    km, kc = rt.kernel(startup="import google.colab, matplotlib, mishran")   # the course is in use
    probe = repo / "src" / "mishran" / "_colab_update_probe.py"
    try:
        probe.write_text("VALUE = 'new'\n", encoding="utf-8")
        _commit(repo, "a newer course")
        res = run_all(kc, [sources[0]])
    finally:
        probe.unlink()
        _commit(repo, "back to the snapshot")          # later tests see the snapshot again
        shutdown(km, kc)
    status, text = res[0]
    assert status == "error" and "হালনাগাদ হলো" in text and "পুরোনো সংস্করণ" in text, res
    km, kc = rt.kernel()
    try:
        res = run_all(kc, ["import mishran._colab_update_probe as p; print(p.VALUE)"])
    finally:
        shutdown(km, kc)
    assert res == [("ok", "new\n")]


MARKER_OF_RUNTIME = ("import pathlib, sysconfig\n"
                     f"print(pathlib.Path(sysconfig.get_paths()['purelib'], {colab.MARKER!r}).read_text().strip())")


PROBE = ("try:\n    from mishran._colab_pin_probe import VALUE\nexcept ImportError:\n    VALUE = None\n"
         "print(VALUE)")


def _head(repo, ref="HEAD"):
    return subprocess.run(["git", "-C", str(repo), "rev-parse", ref], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_a_pinned_setup_cell_installs_the_tag_or_the_commit_not_the_branch_tip(first_run, parts):
    """A teacher pins the class to a tag; the course moves on; the class still gets the tag's course. A full
    commit hash pins the same way (git clone --branch would not take one)."""
    rt, repo = first_run["runtime"], parts["repo"]
    probe = repo / "src" / "mishran" / "_colab_pin_probe.py"
    snapshot = _head(repo)
    try:
        probe.write_text("VALUE = 'tagged'\n", encoding="utf-8")
        _commit(repo, "the course on the day of the class")
        subprocess.run(["git", "-C", str(repo), "tag", "class-2027"], check=True)
        tagged = _head(repo)
        probe.write_text("VALUE = 'tip'\n", encoding="utf-8")
        _commit(repo, "the course a week later")
        assert _head(repo) != tagged
        runs = {}
        for ref in ("class-2027", snapshot):
            km, kc = rt.kernel(startup="import google.colab")
            try:
                setup = colab.setup_source(colab.repo_url(), NOTEBOOKS[0].name, ref)
                runs[ref] = run_all(kc, [setup, MARKER_OF_RUNTIME, PROBE])
            finally:
                shutdown(km, kc)
    finally:
        probe.unlink(missing_ok=True)
        subprocess.run(["git", "-C", str(repo), "tag", "-d", "class-2027"], capture_output=True, check=False)
        _commit(repo, "back to the snapshot")
    pinned = runs["class-2027"]
    assert [s for s, _ in pinned] == ["ok"] * 3, pinned
    assert f"commit {tagged[:7]}" in pinned[0][1] and pinned[1][1].strip() == tagged
    assert pinned[2][1].strip() == "tagged"                     # the tag's course, not the tip's
    by_hash = runs[snapshot]
    assert [s for s, _ in by_hash] == ["ok"] * 3, by_hash
    assert by_hash[1][1].strip() == snapshot and by_hash[2][1].strip() == "None"   # before the probe existed


def test_host_writes_the_fork_and_ref_into_pyproject_and_every_badge_and_setup_cell(tmp_path, monkeypatch):
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[project]\nname = "x"\n\n[project.urls]\n# the one URL\nRepository = "https://github.com/a/b"\n'
                    '\n[tool.mishran]\ncorpus-files = []\n', encoding="utf-8")
    colab.set_host("https://github.com/teacher/mishran/", "class-2027", toml)
    assert colab.repo_url(toml) == "https://github.com/teacher/mishran" and colab.course_ref(toml) == "class-2027"
    assert "# the one URL" in toml.read_text(encoding="utf-8") and "corpus-files = []" in toml.read_text()
    colab.set_host("https://github.com/teacher/mishran", "a" * 40, toml)      # again: the lines are replaced
    assert colab.course_ref(toml) == "a" * 40 and toml.read_text().count("ref =") == 1
    for bad_url, bad_ref in (("https://gitlab.com/t/m", "x"), ("https://github.com/t/m", "class 2027"),
                             ("https://github.com/t/m", "-x"), ("https://github.com/t/m", 'a"; rm')):
        with pytest.raises(SystemExit):
            colab.set_host(bad_url, bad_ref, toml)
    nb = json.loads(NOTEBOOKS[1].read_text(encoding="utf-8"))
    assert colab.rewrite(nb, NOTEBOOKS[1].name, "https://github.com/teacher/mishran", "class-2027") == [
        "badge", "setup cell"]
    text = json.dumps(nb, ensure_ascii=False)
    assert ("colab.research.google.com/github/teacher/mishran/blob/class-2027/notebooks/01_bit_layouts.ipynb"
            in text)
    assert 'os.environ.get(\\"MISHRAN_REF\\", \\"class-2027\\")' in text
    assert "mishran-course" not in text


def test_install_plan_deepspeed_for_05_to_08_torchao_only_with_fp8():
    for lesson in ("00", "01", "02", "03", "04"):
        assert colab.install_plan(lesson, fp8_gpu=True) == []
    for lesson in ("05", "06"):
        assert colab.install_plan(lesson, fp8_gpu=True) == ["deepspeed"]
    for lesson in ("07", "08"):
        assert colab.install_plan(lesson, fp8_gpu=False) == ["deepspeed"]           # a T4: no FP8
        assert colab.install_plan(lesson, fp8_gpu=True) == ["deepspeed", "fp8"]


def test_the_extras_exist_in_pyproject():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        from pip._vendor import tomli as tomllib
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(colab.EXTRA_MODULES) <= set(extras)
    assert any(r.startswith("torchao") for r in extras["fp8"]) and any(r.startswith("deepspeed")
                                                                       for r in extras["deepspeed"])


def test_fp8_gpu_check_follows_the_capability(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.delenv("MISHRAN_SIMULATE_CC", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    for cap, fp8 in (((7, 5), False), ((8, 0), False), ((8, 6), False), ((8, 9), True), ((9, 0), True)):
        monkeypatch.setattr(torch.cuda, "get_device_capability", lambda *a, c=cap: c)
        assert colab._gpu_has_fp8() is fp8, cap
    monkeypatch.setenv("MISHRAN_SIMULATE_CC", "7.5")                    # an H200 simulating a T4
    assert colab._gpu_has_fp8() is False
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert colab._gpu_has_fp8() is False


def test_host_takes_the_clone_address_github_gives_and_writes_the_badge_address(tmp_path, capsys):
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[project.urls]\nRepository = "https://github.com/a/b"\n', encoding="utf-8")
    for given in ("https://github.com/teacher/mishran.git", "git@github.com:teacher/mishran.git",
                  " https://github.com/teacher/mishran.git/ ", "ssh://git@github.com/teacher/mishran"):
        colab.set_host(given, "class-2027", toml)
        assert colab.repo_url(toml) == "https://github.com/teacher/mishran", given
    assert "→ https://github.com/teacher/mishran" in capsys.readouterr().out
    badge = colab.badge(colab.repo_url(toml), "01_bit_layouts.ipynb", "class-2027")
    assert "/github/teacher/mishran/blob/class-2027/notebooks/" in badge and ".git" not in badge


def _git_repo(path):
    def git(*args):
        return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=True).stdout
    path.mkdir()
    git("init", "-q")
    (path / "pyproject.toml").write_text('[project.urls]\nRepository = "https://github.com/a/b"\n', encoding="utf-8")
    git("add", "pyproject.toml")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return git


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_host_resolves_a_short_hash_this_clone_knows_and_refuses_one_it_does_not(tmp_path, capsys):
    repo = tmp_path / "fork"
    git = _git_repo(repo)
    full = git("rev-parse", "HEAD").strip()
    toml = repo / "pyproject.toml"
    colab.set_host("https://github.com/teacher/mishran", full[:7], toml)
    assert colab.course_ref(toml) == full and f"{full[:7]} → পুরো hash {full}" in capsys.readouterr().out
    unknown = "bfe6b7e" if not full.startswith("bfe6b7e") else "cafe123"
    with pytest.raises(SystemExit) as stop:
        colab.set_host("https://github.com/teacher/mishran", unknown, toml)
    assert "shortened commit hash" in str(stop.value) and "৪০ অক্ষরের" in str(stop.value)
    assert colab.course_ref(toml) == full                                   # nothing written
    git("tag", "deadbeef")                       # a tag whose name looks like a hash is a tag: kept as it is
    colab.set_host("https://github.com/teacher/mishran", "deadbeef", toml)
    assert colab.course_ref(toml) == "deadbeef"
    colab.set_host("https://github.com/teacher/mishran", "20270901", toml)  # digits: a tag still to be made
    assert colab.course_ref(toml) == "20270901"
