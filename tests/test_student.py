"""tools/student.py (make student): solution-free lesson copies that still run up to every exercise."""
import json
import re
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


def _sentences(cells):
    text = "\n".join("".join(c["source"]) for c in cells)
    return [s.strip() for s in re.split(r"[।\n]", text) if s.strip()]


def _points_at_a_hidden_solution(sentence):
    """A sentence that sends the learner to a hidden solution cell, in Bengali or in English."""
    return bool(re.search(r"লুকানো", sentence) and re.search(r"সমাধান", sentence)) or bool(
        re.search(r"hidden", sentence, re.I) and re.search(r"solution", sentence, re.I))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_copy_holds_no_solution_and_no_pointer_to_one(copies, path):
    lesson = json.loads(path.read_text(encoding="utf-8"))["cells"]
    copy = json.loads((copies / path.name).read_text(encoding="utf-8"))["cells"]
    texts = ["".join(c["source"]) for c in copy]
    for solution in (c for c in lesson if "solution" in _tags(c)):      # by content, whatever the tags say
        assert "".join(solution["source"]) not in texts
    pointers = [s for s in _sentences(copy) if _points_at_a_hidden_solution(s)]
    assert not pointers, pointers
    if any(_points_at_a_hidden_solution(s) for s in _sentences(lesson)):   # the lesson said it: the copy says why not
        assert any(student.NO_SOLUTION in t for t in texts)


def test_each_wording_of_the_hidden_solution_sentence_is_replaced_and_nothing_else():
    lead = "`check_...` বলে দেবে ঠিক হলো কি না।"
    cells = [{"cell_type": "markdown", "metadata": {}, "source": f"{lead} প্রতিটির ঠিক পরের লুকানো ঘরে সমাধান আছে — "
                                                                 "আগে নিজে চেষ্টা করো। শেষ।"},
             {"cell_type": "markdown", "metadata": {}, "source": "প্রতিটির ঠিক পরের লুকানো ঘরে সমাধান আছে; আগে নিজে "
                                                                 "চেষ্টা করো।\n\n**১.** প্রশ্ন"},
             {"cell_type": "markdown", "metadata": {}, "source": "সামনের ১-টিকে বলে **লুকানো বিট** (hidden bit)।"},
             {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "assert check_x(1)",
              "outputs": [], "execution_count": None}]
    copy = student.student_copy({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})["cells"]
    assert len(copy) == 3
    assert "".join(copy[0]["source"]) == f"{lead} {student.NO_SOLUTION} শেষ।"
    assert "".join(copy[1]["source"]) == f"{student.NO_SOLUTION}\n\n**১.** প্রশ্ন"
    assert "".join(copy[2]["source"]) == "সামনের ১-টিকে বলে **লুকানো বিট** (hidden bit)।"


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
