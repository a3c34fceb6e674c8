"""conftest.py: a notebook over the per-notebook time budget fails the run, it is not only reported."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tiny_notebook(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import time\ntime.sleep(0.2)\nprint(1 + 1)")]
    nbformat.write(nb, tmp_path / "tiny.ipynb")
    return tmp_path


def _run(folder, limit, **extra):
    env = {**os.environ, "MISHRAN_NOTEBOOK_LIMIT_S": str(limit), "PYTHONPATH": str(ROOT), **extra}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "--nbval-lax", "-p", "no:cacheprovider",
                           "-p", "conftest", "tiny.ipynb"], cwd=folder, capture_output=True, text=True, env=env,
                          timeout=180)


def test_a_notebook_over_the_budget_fails_the_run(tiny_notebook):
    slow = _run(tiny_notebook, 0.05)
    assert slow.returncode == 1, slow.stdout[-1500:]
    assert "1 passed" in slow.stdout and "the per-notebook time budget" in slow.stdout
    fast = _run(tiny_notebook, 600)
    assert fast.returncode == 0, fast.stdout[-1500:]
    assert "time budget" not in fast.stdout and "tiny.ipynb" in fast.stdout        # still reported


def test_the_budget_is_two_minutes_by_default():
    code = "import conftest; print(conftest.NOTEBOOK_LIMIT_S)"
    env = {k: v for k, v in os.environ.items() if k != "MISHRAN_NOTEBOOK_LIMIT_S"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    assert float(done.stdout) == 120.0


def test_outputs_are_recorded_when_asked(tiny_notebook, tmp_path):
    """MISHRAN_NBVAL_OUTPUTS keeps what each cell printed (the record of a GPU-machine run), errors included."""
    nb = nbformat.read(tiny_notebook / "tiny.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("raise ValueError('ভুল মান')"))
    nbformat.write(nb, tiny_notebook / "tiny.ipynb")
    record = tmp_path / "record"
    done = _run(tiny_notebook, 600, MISHRAN_NBVAL_OUTPUTS=str(record))
    assert done.returncode == 1, done.stdout[-1500:]                 # the failing cell still fails the run
    text = (record / "tiny.txt").read_text(encoding="utf-8")
    assert "── cell 0 ──\n2\n" in text and "ERROR ValueError: ভুল মান" in text
    shutil.rmtree(record)
    quiet = _run(tiny_notebook, 600)                                  # off unless asked
    assert quiet.returncode == 1 and not record.exists()
