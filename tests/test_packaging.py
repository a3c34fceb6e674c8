"""What a plain (non-editable) install gets, e.g. on Colab from git: every subpackage, the corpus, the results.

The wheel is built from this checkout with pip (no network: --no-build-isolation), unpacked into a folder far from
the checkout, and imported from there in a fresh process, so mishran.data must find the packaged corpus.
"""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from setup import corpus_files  # noqa: E402


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    tree = tmp_path_factory.mktemp("tree")         # a clean copy: a stale build/ in the checkout could hide a bug
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE", "LICENSE-CONTENT"):
        shutil.copy(ROOT / name, tree / name)
    for folder in ("src", "data"):
        shutil.copytree(ROOT / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                           "-w", str(out), str(tree)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and "No module named pip" in done.stderr:
        pytest.skip("pip is not available")
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = out.glob("mishran-*.whl")
    return path


def test_the_wheel_holds_every_subpackage_the_corpus_and_the_results(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for init in (ROOT / "src").rglob("__init__.py"):
        assert init.relative_to(ROOT / "src").as_posix() in names
    for module in (ROOT / "src/mishran/exercises").glob("*.py"):
        assert f"mishran/exercises/{module.name}" in names
    assert corpus_files() and "bn_corpus.txt" in corpus_files()
    for name in corpus_files():
        assert f"mishran/corpus/{name}" in names, name
        assert zipfile.ZipFile(wheel).read(f"mishran/corpus/{name}") == (ROOT / "data" / name).read_bytes()
    for result in (ROOT / "src/mishran/results").glob("*.json"):
        assert f"mishran/results/{result.name}" in names


def test_an_installed_wheel_reads_the_packaged_corpus(wheel, tmp_path):
    """The fallback Colab uses: no data/ folder beside the package, the corpus comes from mishran/corpus/."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import mishran, mishran.data as d, mishran.exercises.lesson01; "
            "p = d.corpus_path(); text = d.load_corpus(); "
            "assert 'site' in str(mishran.__file__), mishran.__file__; "
            "assert str(p).startswith(str(__import__('pathlib').Path(mishran.__file__).parent)), p; "
            "print(len(text))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    want = len(__import__("unicodedata").normalize("NFC", (ROOT / "data/bn_corpus.txt").read_text(encoding="utf-8")))
    assert int(done.stdout.strip()) == want


def test_the_build_installs_what_setup_py_needs_to_read_pyproject_on_python_3_10():
    """setup.py reads pyproject.toml with tomllib, new in Python 3.11; on 3.10 the build must bring tomli."""
    from packaging.requirements import Requirement

    from setup import tomllib
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["requires-python"] == ">=3.10"
    tomli = [r for r in map(Requirement, pyproject["build-system"]["requires"]) if r.name == "tomli"]
    assert len(tomli) == 1 and tomli[0].marker is not None
    assert tomli[0].marker.evaluate({"python_version": "3.10"})
    assert not tomli[0].marker.evaluate({"python_version": "3.11"})     # 3.11+ has tomllib: nothing to install
    assert corpus_files() == pyproject["tool"]["mishran"]["corpus-files"]


def test_the_editable_build_prints_no_setuptools_banner(tmp_path):
    code = ("from setuptools import build_meta; import sys; "
            f"sys.stdout.write(build_meta.build_editable({str(tmp_path)!r}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    noise = done.stdout + done.stderr
    assert "*****" not in noise and "meta path finder" not in noise, noise[-2000:]
