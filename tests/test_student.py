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
import grading  # noqa: E402
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
    assert len(copy) == 3 and not any("reasoning" in _tags(c) for c in copy)      # no exercise: no reasoning cell
    assert "".join(copy[0]["source"]) == f"{lead} {student.NO_SOLUTION} শেষ।"
    assert "".join(copy[1]["source"]) == f"{student.NO_SOLUTION}\n\n**১.** প্রশ্ন"
    assert "".join(copy[2]["source"]) == "সামনের ১-টিকে বলে **লুকানো বিট** (hidden bit)।"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_copy_has_no_solution_and_every_exercise(copies, path):
    lesson = json.loads(path.read_text(encoding="utf-8"))["cells"]
    copy = json.loads((copies / path.name).read_text(encoding="utf-8"))["cells"]
    assert not [c for c in copy if "solution" in _tags(c)]
    exercises_n = sum("exercise" in _tags(c) for c in lesson)
    assert len(copy) == len(lesson) - sum("solution" in _tags(c) for c in lesson) + exercises_n   # + reasoning cells
    after = [copy[i + 1] for i, c in enumerate(copy) if "exercise" in _tags(c)]
    assert all(c["cell_type"] == "markdown" and "reasoning" in _tags(c) for c in after)
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


def test_collect_gathers_each_learners_answers_numbered_as_the_course_numbers_them(tmp_path, copies):
    nb = json.loads((copies / "01_bit_layouts.ipynb").read_text(encoding="utf-8"))
    first = next(c for c in nb["cells"] if "exercise" in _tags(c))
    first["outputs"] = [{"name": "stdout", "output_type": "stream", "text": ["সিদ্ধান্ত: ঠিক\n"]}]
    (tmp_path / "rina").mkdir()
    (tmp_path / "rina" / "01.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    page = grading.collect(tmp_path)
    assert page.startswith("## rina/01.ipynb")
    assert "".join(first["source"]).strip() in page and "সিদ্ধান্ত: ঠিক" in page
    assert page.count("### অনুশীলনী") == sum("exercise" in _tags(c) for c in nb["cells"])
    assert "### অনুশীলনী ০১.১ " in page and "### অনুশীলনী ০১.৬ " in page and "01.1" not in page


def test_a_handout_written_outside_the_project_still_opens_handouts(tmp_path):
    """The student site writes its handouts in a temporary folder named notebooks (tools/build_site.py): their
    badges must open handouts/ in the fork, never the lessons with their solutions."""
    lesson = json.loads(NOTEBOOKS[1].read_text(encoding="utf-8"))
    for out in (tmp_path / "notebooks", tmp_path / "mishran-handouts-x"):
        text = json.dumps(student.handout(lesson, NOTEBOOKS[1].name, out), ensure_ascii=False)
        assert f"/handouts/{NOTEBOOKS[1].name})" in text and f"/notebooks/{NOTEBOOKS[1].name}" not in text
    inside = json.dumps(student.handout(lesson, NOTEBOOKS[1].name, ROOT / "handouts-exam"), ensure_ascii=False)
    assert f"/handouts-exam/{NOTEBOOKS[1].name})" in inside


def test_the_student_sites_handouts_open_handouts(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
    build_site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_site)
    [page] = build_site.student_handouts([NOTEBOOKS[1]], tmp_path / "notebooks")
    badge = "".join(json.loads(page.read_text(encoding="utf-8"))["cells"][0]["source"])
    assert f"/blob/{colab.course_ref()}/handouts/{NOTEBOOKS[1].name})" in badge, badge


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_an_exam_handout_never_promises_a_hint_from_the_checks(path):
    """Above the cell that turns hints off, the exam copy must not say the check tells right from wrong."""
    lesson = json.loads(path.read_text(encoding="utf-8"))
    cells = student.handout(lesson, path.name, ROOT / "handouts", graded=True)["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    promises = [s for s in _sentences([{"source": text}]) if "check_" in s and ("ঠিক হলো কি না" in s or
                                                                              "ইঙ্গিত দেবে" in s)]
    assert not promises, promises
    plain = "\n".join("".join(c["source"]) for c in student.handout(lesson, path.name, ROOT / "handouts")["cells"])
    if "ঠিক হলো কি না" in plain:                          # the practice copy keeps it; the exam copy says why not
        assert student.GRADED_SAYS in text


IMPORTS = ("from mishran.exercises.lesson01 import (RANGE_FORMATS, check_bf16_round, "
           "check_first_unrepresentable_integer, check_formats_for_range, check_fp16_bits_value, check_sum_stall)")
# Answers worked out by hand (not from the checks' code): FP16 1 01101 0100000000 is
# -(1 + 1/4) * 2^(13-15) = -0.3125; 0.3 lies in [1/4, 1/2) where BF16's spacing is 2^-9, and 0.3 / 2^-9 = 153.6,
# so BF16(0.3) = 154 * 2^-9 = 0.30078125; 0.5 is a power of two, exact in BF16.
WORK = {
    "right1": 'answer = -0.3125\ncheck_fp16_bits_value("1 01101 0100000000", answer)',
    "right2": "answer = 0.30078125\ncheck_bf16_round(0.3, answer)",
    "wrong2": "answer = 0.3\ncheck_bf16_round(0.3, answer)",
    "own2": "answer = 0.5\ncheck_bf16_round(0.5, answer)",            # the learner's own, easier question
    "typo3": 'answer = "1.6e7b"\ncheck_first_unrepresentable_integer("fp32", answer)',
    "loop4": ("import itertools\nfor k in range(1, 6):\n    for combo in itertools.combinations(RANGE_FORMATS, k):\n"
              "        check_formats_for_range(3e-9, 20.0, set(combo))"),
    "typo4": 'answer = {"FP23"}\ncheck_formats_for_range(3e-9, 20.0, answer)',
    "blank6": 'answer = ...\ncheck_sum_stall("bf16", 0.01, answer)',
}


@pytest.fixture(scope="module")
def worked():
    """Each cell of WORK run once in a kernel in graded mode (outputs as a learner's saved notebook holds them)."""
    import nbclient

    cells = [nbformat.v4.new_code_cell(src) for src in [student.GRADED_CELL, IMPORTS, *WORK.values()]]
    for cell in cells[2:]:
        cell.metadata["tags"] = ["exercise"]
    nb = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3").execute()
    cells = json.loads(nbformat.writes(nb))["cells"]
    cells[0]["metadata"]["tags"] = [student.GRADED_TAG]
    return {"graded": cells[0], "import": cells[1], **dict(zip(WORK, cells[2:], strict=True))}


def _hand_back(folder, learner, worked, names, reasoning=None):
    """A returned lesson-01 notebook from the worked cells (a name may repeat: a duplicated cell)."""
    cells = [worked["graded"], worked["import"]]
    for name in names:
        cells.append(json.loads(json.dumps(worked[name])))
        if reasoning and name in reasoning:
            cells.append({"cell_type": "markdown", "id": f"why-{len(cells)}", "metadata": {"tags": ["reasoning"]},
                          "source": grading.REASONING_PROMPT + "\n\n" + reasoning[name]})
    (folder / learner).mkdir(parents=True, exist_ok=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.from_dict(c) for c in cells])
    nbformat.write(nb, folder / learner / "01_bit_layouts.ipynb")
    return folder / learner / "01_bit_layouts.ipynb"


def _rows(folder):
    return {(r["learner"], r["exercise"]): r for r in grading.score_rows(folder)}


def test_graded_answers_are_hidden_from_the_learner_and_scored_for_the_teacher(tmp_path, worked):
    """Each check shows only 'submitted'; the CSV scores the answers with the real checks and maps them to the
    rubric: right with reasoning 4, right without 3, wrong 1-2, blank 0."""
    shown = [grading.text_of(worked[name]["outputs"]) for name in ("right2", "wrong2")]
    assert shown == ["জমা হলো (submitted)"] * 2, shown                   # the same words, right or wrong
    _hand_back(tmp_path, "rina", worked, ["right1", "wrong2", "blank6"], reasoning={"right1": "১.২৫ × ২^-২, ঋণাত্মক"})
    rows = _rows(tmp_path)
    got = {k[1]: (r["score"], r["rubric"], r["how"]) for k, r in rows.items()}
    assert got["01.1"][:2] == (1, "4") and got["01.2"][:2] == (0, "1-2") and got["01.6"] == ("", "0", "blank")
    assert rows[("rina", "01.1")]["reasoning"] == "১.২৫ × ২^-২, ঋণাত্মক"
    assert rows[("rina", "01.1")]["answer"] == "-0.3125" and rows[("rina", "01.1")]["partial"]   # the rubric's line
    assert student.main(["--collect", str(tmp_path), "--csv", str(tmp_path / "scores.csv")]) == 0
    import csv
    with open(tmp_path / "scores.csv", encoding="utf-8") as f:
        assert {r["exercise"]: r["rubric"] for r in csv.DictReader(f)}["01.1"] == "4"


def test_a_loop_over_the_options_is_one_answer_the_last_and_flagged(tmp_path, worked):
    _hand_back(tmp_path, "babu", worked, ["loop4"])
    row = _rows(tmp_path)[("babu", "01.4")]
    assert len([r for r in _rows(tmp_path) if r[1] == "01.4"]) == 1
    assert row["attempts"] == 31 and "brute force?" in row["flags"] and "loop?" in row["flags"]
    assert row["answer"] == "{'bf16', 'fp16', 'fp32', 'fp8_e4m3', 'fp8_e5m2'}"   # the loop's last: all five
    assert row["score"] == 0 and row["rubric"] == ""                      # the last subset is all five: wrong
    assert row["earlier"].count("→") == 30


def test_a_changed_question_is_flagged_and_scored_on_the_handouts_question(tmp_path, worked):
    _hand_back(tmp_path, "mita", worked, ["own2"])
    row = _rows(tmp_path)[("mita", "01.2")]
    assert "question changed: x=0.5 (handout: 0.3)" in row["flags"]
    assert row["score"] == 0 and row["rubric"] == ""                      # 0.5 is not BF16(0.3)


def test_a_duplicated_exercise_cell_shifts_nothing_and_the_last_answer_counts(tmp_path, worked):
    _hand_back(tmp_path, "tanu", worked, ["right1", "wrong2", "right2", "typo3"])
    rows = _rows(tmp_path)
    assert rows[("tanu", "01.2")]["score"] == 1 and rows[("tanu", "01.2")]["attempts"] == 2
    assert "0.3 → 0" in rows[("tanu", "01.2")]["earlier"]
    assert rows[("tanu", "01.3")]["check"] == "check_first_unrepresentable_integer"


def test_typos_are_recorded_as_invalid_not_as_wrong(tmp_path, worked):
    assert "1.6e7b" in grading.text_of(worked["typo3"]["outputs"])          # the learner was told at once
    _hand_back(tmp_path, "rafi", worked, ["typo3", "typo4"])
    rows = _rows(tmp_path)
    for key in (("rafi", "01.3"), ("rafi", "01.4")):
        assert rows[key]["score"] == "" and rows[key]["how"].startswith("invalid answer"), rows[key]


def test_a_lost_record_with_an_answer_in_the_cell_is_to_be_graded_by_hand_not_blank(tmp_path, worked):
    path = _hand_back(tmp_path, "nila", worked, ["right1", "right2"])
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:                           # what a platform that drops unknown output types leaves
        for out in cell.get("outputs", []):
            out.get("data", {}).pop(grading.MIME, None)
    path.write_text(json.dumps(nb), encoding="utf-8")
    for key in (("nila", "01.1"), ("nila", "01.2")):
        row = _rows(tmp_path)[key]
        assert row["how"] == "submitted, record missing — grade by hand" and row["score"] == "", row
    assert "answer = -0.3125" in _rows(tmp_path)[("nila", "01.1")]["answer"]


def test_a_graded_notebook_whose_checks_printed_verdicts_is_flagged(tmp_path, worked):
    path = _hand_back(tmp_path, "ovi", worked, ["right1"])
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["cells"][2]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ঠিক! মিলেছে।\n"}]
    path.write_text(json.dumps(nb), encoding="utf-8")
    row = _rows(tmp_path)[("ovi", "01.1")]
    assert row["score"] == 1 and "graded mode was off" in row["flags"] and row["rubric"] == ""


def test_a_normal_handouts_answers_are_scored_from_what_the_check_printed(tmp_path):
    said = {"ঠিক! মিলেছে।": "check_min_normal_scale(3e-7, 2**5)",
            "এখনো হয়নি: 448 নয়।": "check_pytorch_scale_after(EX_SEQ, 2**15, init_scale=2**16, growth_interval=4)"}
    cells = [{"cell_type": "code", "metadata": {"tags": ["exercise"]}, "source": code, "execution_count": 1,
              "outputs": [{"output_type": "stream", "name": "stdout", "text": text + "\n"}]}
             for text, code in said.items()]
    (tmp_path / "02_loss_scaling.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    rows = grading.score_rows(tmp_path)
    assert [(r["learner"], r["exercise"], r["score"]) for r in rows[:2]] == [("02_loss_scaling", "02.1", 1),
                                                                          ("02_loss_scaling", "02.2", 0)]
    assert all(r["how"] == "printed (not rescored)" for r in rows[:2])


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


def test_the_final_answer_sheet_holds_values_not_code(tmp_path):
    """A tiny lesson (E4M3's largest finite number is 1.75 * 2^8 = 448: S.1111.110) run in graded mode: the sheet
    has the value the solution gave its check, numbered as the course numbers exercises."""
    cells = [nbformat.v4.new_code_cell("from mishran.exercises.lesson01 import check_e4m3_max"),
             nbformat.v4.new_code_cell("answer = ...\ncheck_e4m3_max(answer)"),
             nbformat.v4.new_code_cell("# সমাধান (solution)\nassert check_e4m3_max(1.75 * 2**8)")]
    cells[1].metadata["tags"], cells[2].metadata["tags"] = ["exercise"], ["solution"]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "01_tiny.ipynb")
    sheet = student.final_answers([tmp_path / "01_tiny.ipynb"])
    assert "| ০১.১ | `check_e4m3_max` |  | 448.0 |" in sheet and "assert" not in sheet


def test_the_student_repository_holds_what_students_see_and_nothing_that_answers(tmp_path):
    url, ref = "https://github.com/teacher/mishran-class", "class-2027"
    dest, *_ = student.student_repo(tmp_path / "class", url, ref)
    files = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    assert not [f for f in files if f.startswith(("notebooks/", "tests/"))]
    assert not {"docs/teachers_guide.md", "docs/lesson_rubrics.md", "docs/class_plans.md"} & files
    assert {f"handouts/{p.name}" for p in NOTEBOOKS} <= files and "src/mishran/exercises/lesson01.py" in files
    assert (colab.repo_url(dest / "pyproject.toml"), colab.course_ref(dest / "pyproject.toml")) == (url, ref)
    first = json.loads((dest / "handouts" / NOTEBOOKS[1].name).read_text(encoding="utf-8"))["cells"][0]
    badge = "".join(first["source"])
    assert f"teacher/mishran-class/blob/{ref}/handouts/{NOTEBOOKS[1].name}" in badge
    for path in NOTEBOOKS:                       # no solution cell's code anywhere in the repository
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if "solution" in _tags(cell):
                solution = "".join(cell["source"])
                assert not any(solution in (dest / f).read_text(encoding="utf-8", errors="ignore")
                               for f in files if f.endswith((".ipynb", ".md")))
    (dest / "handouts" / "extra.txt").write_text("x")
    student.student_repo(dest, url, ref)          # a rebuild starts clean
    assert not (dest / "handouts" / "extra.txt").exists()
    with pytest.raises(SystemExit):
        student.student_repo(ROOT / "out" / "class")            # never inside the course's own repository
