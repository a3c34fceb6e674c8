"""tools/student.py (make student, make answer-key): handouts without solutions that still run up to every exercise,
open themselves in Colab and link to the hosted docs; graded handouts; the answer key; a class's answers as a CSV."""
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
import colab  # noqa: E402
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
    hosted = f"{colab.repo_url()}/blob/{colab.course_ref()}/"
    for cell in copy:                    # a link into the repository is its hosted page, and that file exists
        for target in "".join(cell["source"]).split("](")[1:]:
            target = target.split(")")[0].split("#")[0]
            assert not target.startswith("../"), target
            if target.startswith(hosted):
                assert (ROOT / target[len(hosted):]).is_file(), target


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


def test_a_handout_opens_itself_in_colab_at_the_teachers_fork_and_ref_and_links_the_hosted_docs(tmp_path):
    lesson = json.loads(NOTEBOOKS[0].read_text(encoding="utf-8"))
    url, ref = "https://github.com/teacher/mishran", "class-2027"
    nb = student.handout(lesson, NOTEBOOKS[0].name, ROOT / "handouts", url=url, ref=ref)
    text = json.dumps(nb, ensure_ascii=False)
    assert f"colab.research.google.com/github/teacher/mishran/blob/{ref}/handouts/{NOTEBOOKS[0].name}" in text
    assert f"]({url}/blob/{ref}/docs/troubleshooting.md" in text and "](../" not in text
    assert "mishran-course" not in text                           # nothing left pointing at the course's own repo
    assert f'\\"MISHRAN_REF\\", \\"{ref}\\"' in text                   # the setup cell installs the same pin


def test_a_graded_handout_turns_graded_mode_on_just_before_the_exercises(copies):
    lesson = json.loads((ROOT / "notebooks" / "01_bit_layouts.ipynb").read_text(encoding="utf-8"))
    plain = student.handout(lesson, "01_bit_layouts.ipynb", copies)["cells"]
    cells = student.handout(lesson, "01_bit_layouts.ipynb", copies, graded=True)["cells"]
    marked = [i for i, c in enumerate(cells) if student.GRADED_TAG in _tags(c)]
    first_exercise = next(i for i, c in enumerate(cells) if "exercise" in _tags(c))
    assert marked == [first_exercise - 1] and len(cells) == len(plain) + 1
    assert 'os.environ["MISHRAN_GRADED"] = "1"' in "".join(cells[marked[0]]["source"])


GRADED_WORK = [student.GRADED_CELL,
               "from mishran.exercises.lesson01 import check_e4m3_max, check_formats_for_range",
               "check_e4m3_max(448.0)", "check_formats_for_range(3e-9, 20.0, {'fp32'})", "check_e4m3_max(...)"]


def test_graded_answers_are_hidden_from_the_learner_and_scored_for_the_teacher(tmp_path):
    """A learner's graded notebook, run in a kernel: each check shows only 'submitted'; the CSV scores them with
    the real checks (right 1, wrong 0, blank left out of the score)."""
    import nbclient

    cells = [nbformat.v4.new_code_cell(src) for src in GRADED_WORK]
    for cell in cells[2:]:
        cell.metadata["tags"] = ["exercise"]
    nb = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    shown = [o.get("text", "") + o.get("data", {}).get("text/plain", "") for c in nb.cells[2:4] for o in c.outputs]
    assert shown == ["জমা হলো (submitted)"] * 2, shown                   # the same words, right or wrong
    (tmp_path / "rina").mkdir()
    nbformat.write(nb, tmp_path / "rina" / "01.ipynb")
    rows = student.write_csv(tmp_path, tmp_path / "scores.csv")
    assert [(r["learner"], r["exercise"], r["check"], r["score"]) for r in rows] == [
        ("rina", 1, "check_e4m3_max", 1), ("rina", 2, "check_formats_for_range", 0), ("rina", 3, "", "")]
    assert rows[2]["how"] == "blank"
    import csv
    with open(tmp_path / "scores.csv", encoding="utf-8") as f:
        assert [r["score"] for r in csv.DictReader(f)] == ["1", "0", ""]


def test_a_normal_handouts_answers_are_scored_from_what_the_check_printed(tmp_path):
    said = {"ঠিক! মিলেছে।": 1, "এখনো হয়নি: 448 নয়।": 0}
    cells = [{"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": "check_x(1)", "execution_count": 1,
              "outputs": [{"output_type": "stream", "name": "stdout", "text": text + "\n"}]} for text in said]
    (tmp_path / "02_loss_scaling.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    rows = student.score_rows(tmp_path)
    assert [(r["learner"], r["score"]) for r in rows] == [("02_loss_scaling", 1), ("02_loss_scaling", 0)]
    assert all(r["how"] == "printed (not rescored)" for r in rows)


def test_the_answer_key_has_every_exercise_with_its_question_and_solution(tmp_path):
    key = tmp_path / "key.md"
    assert student.main(["--answer-key", str(key)] + [str(p) for p in NOTEBOOKS]) == 0
    text = key.read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        assert f"(`{path.name}`)" in text
        for cell in cells:
            if "solution" in _tags(cell) or "exercise" in _tags(cell):
                assert "".join(cell["source"]).strip() in text, (path.name, "".join(cell["source"])[:60])
    exercises = sum("exercise" in _tags(c) for p in NOTEBOOKS for c in json.loads(p.read_text())["cells"])
    assert text.count("### অনুশীলনী") == exercises and text.count("সমাধান:\n") == exercises
    assert "**১. বাজেটে কোন মডেল আঁটে?**" in text                      # the question, from the lesson's prose
