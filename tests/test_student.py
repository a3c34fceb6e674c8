"""tools/student.py (make student): solution-free lesson copies that still run up to every exercise."""
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))
import student  # noqa: E402


def _tags(cell):
    return cell.get("metadata", {}).get("tags", [])


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    done = subprocess.run([sys.executable, str(ROOT / "tools/student.py"), "--out", str(out)]
                          + [str(p) for p in NOTEBOOKS], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_copy_has_no_solution_and_every_exercise(copies, path):
    lesson = json.loads(path.read_text(encoding="utf-8"))["cells"]
    copy = json.loads((copies / path.name).read_text(encoding="utf-8"))["cells"]
    assert not [c for c in copy if "solution" in _tags(c)]
    assert len(copy) == len(lesson) - sum("solution" in _tags(c) for c in lesson)
    exercises = [c["source"] for c in lesson if "exercise" in _tags(c)]
    assert [c["source"] for c in copy if "exercise" in _tags(c)] == exercises
    assert all(not c.get("outputs") for c in copy if c["cell_type"] == "code")
    for cell in copy:                                   # a relative link still reaches the repository's docs
        for target in "".join(cell["source"]).split("](")[1:]:
            if target.startswith("../"):
                assert (copies / target.split(")")[0].split("#")[0]).resolve().exists(), target


def test_a_lesson_copy_runs_up_to_and_through_each_blank_exercise(copies):
    """Run a whole student copy: no cell fails, and each blank exercise prints its reminder (no solution follows)."""
    import nbclient

    path = copies / "01_bit_layouts.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(copies)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors[0]
    exercises = [c for c in nb.cells if "exercise" in _tags(c)]
    assert len(exercises) >= 3
    for cell in exercises:
        said = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        assert "উত্তর এখনো লেখা হয়নি" in said, cell.source[:80]


def test_collect_gathers_each_learners_answers(tmp_path, copies):
    nb = json.loads((copies / "01_bit_layouts.ipynb").read_text(encoding="utf-8"))
    first = next(c for c in nb["cells"] if "exercise" in _tags(c))
    first["outputs"] = [{"name": "stdout", "output_type": "stream", "text": ["সিদ্ধান্ত: ঠিক\n"]}]
    (tmp_path / "rina").mkdir()
    (tmp_path / "rina" / "01.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    page = student.collect(tmp_path)
    assert page.startswith("## rina/01.ipynb")
    assert "".join(first["source"]).strip() in page and "সিদ্ধান্ত: ঠিক" in page
    assert page.count("### অনুশীলনী") == sum("exercise" in _tags(c) for c in nb["cells"])
