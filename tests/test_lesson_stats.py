"""tools/lesson_stats.py: the lesson sizes and student minutes that docs/term_plan.md's table is made from."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lesson_stats  # noqa: E402


def _cell(kind, text, tags=()):
    cell = {"cell_type": kind, "metadata": {"tags": list(tags)} if tags else {}, "source": text}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


@pytest.fixture
def lesson(tmp_path):
    cells = [
        _cell("markdown", "# শিরোনাম দুই\n\nএক দুই [link](https://example.org/a b) `code`\n"
                          "```python\nx = 1\ny = 2\n```\n<img src='a.png'> ![ছবি](a.png) —\n"),
        _cell("code", "# setup\nimport os\n", ["colab-setup"]),
        _cell("code", "a = 1\n\n   \nb = 2\n"),
        _cell("code", "answer = ...\ncheck(answer)\n", ["exercise"]),
        _cell("code", "# সমাধান\nassert check(3)\nprint(1)\n", ["solution"]),
    ]
    path = tmp_path / "03_demo.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
                    encoding="utf-8")
    return path


def test_counts_what_a_student_reads(lesson):
    row = lesson_stats.measure(lesson)
    # শিরোনাম, দুই, এক, দুই, link, `code` — not the fenced code, the tag, the image, the URL or the dash
    assert row["words"] == 6
    assert row["code_lines"] == 4            # 2 + 2: blank lines, the setup cell and the solution left out
    assert (row["exercises"], row["exercise_lines"], row["solution_lines"]) == (1, 2, 3)
    assert row["lesson"] == "03"


def test_minutes_add_reading_running_and_exercises():
    row = {"words": 240, "code_lines": 30, "exercises": 3}
    got = lesson_stats.minutes(row, 61.0, wpm=120, lpm=15, exercise_min=6)
    assert got == {"reading_min": 4, "running_min": 2, "exercise_min": 18, "total_min": 24}
    assert lesson_stats.minutes(row, None, 120, 15, 6)["running_min"] is None


def test_times_come_from_the_nbval_log():
    log = ("==== notebook times ====\n   23.7 s  notebooks/00_orientation.ipynb\n"
           "  117.3 s  notebooks/05_deepspeed_engine.ipynb\n  484.9 s  all notebooks\n401 passed in 485.50s\n")
    assert lesson_stats.parse_times(log) == {"00": 23.7, "05": 117.3}


def test_the_command_line_on_the_lessons(tmp_path):
    log = tmp_path / "nbval.log"
    log.write_text("   60.0 s  notebooks/02_loss_scaling.ipynb\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "tools/lesson_stats.py"), str(ROOT / "notebooks"),
                           "--times", str(log), "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = {r["lesson"]: r for r in json.loads(done.stdout)}
    assert sorted(rows) == sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert rows["02"]["seconds"] == 60.0 and rows["02"]["running_min"] == 1 and rows["03"]["seconds"] is None
    assert all(r["exercises"] >= 3 for r in rows.values())
    empty = subprocess.run([sys.executable, str(ROOT / "tools/lesson_stats.py"), str(tmp_path)],
                           capture_output=True, text=True)
    assert empty.returncode == 2 and "no lesson notebooks" in empty.stderr


def test_term_plan_table_matches_the_lessons():
    """docs/term_plan.md's measured table is this tool's output; a lesson that grew or shrank by more than a tenth
    since then means the table (and the plan's minutes) must be regenerated."""
    text = (ROOT / "docs/term_plan.md").read_text(encoding="utf-8")
    rows = lesson_stats.collect(ROOT / "notebooks", lesson_stats.CPU_SECONDS, 120, 15, 6)
    assert lesson_stats.table(rows).splitlines()[0] in text
    for row in rows:
        m = re.search(rf"^\| {row['lesson']} \| ([\d,]+) \| ([\d,]+) \|", text, flags=re.M)
        assert m, f"lesson {row['lesson']} missing from docs/term_plan.md's table"
        words, lines = (int(g.replace(",", "")) for g in m.groups())
        assert abs(words - row["words"]) <= 0.1 * row["words"], (row["lesson"], words, row["words"])
        assert abs(lines - row["code_lines"]) <= 0.1 * row["code_lines"], (row["lesson"], lines, row["code_lines"])


def test_each_lesson_and_lesson_00s_map_give_the_measured_minutes():
    """The minutes a lesson's header and lesson 00's map promise are docs/term_plan.md's measured totals (to the
    nearest 5), not an older guess."""
    text = (ROOT / "docs/term_plan.md").read_text(encoding="utf-8")
    totals = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| (\d\d) \|.*\| (\d+) \|\s*$", text, flags=re.M)}
    assert len(totals) == len(list((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    digits = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")
    header = re.compile(r"\*\*সম(?:\u09df|\u09af\u09bc):\*\* প্রায় ([০-৯]+) মিনিট")
    mapped = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        m = header.search("".join(cells[0]["source"]))
        assert m, f"{path.name}: no '**সময়:** প্রায় … মিনিট' in the first cell"
        assert int(m.group(1).translate(digits)) == 5 * round(totals[path.name[:2]] / 5), path.name
        if path.name.startswith("00"):
            source = next("".join(c["source"]) for c in cells if "LESSONS = [" in "".join(c["source"]))
            mapped = {n: int(v) for n, v in re.findall(r'\("(\d\d)",.*?, (\d+)\),', source, flags=re.S)}
    # a lesson on the map whose notebook is not written yet has no measured total: only the written ones must agree
    assert {n: v for n, v in mapped.items() if n in totals} == {n: 5 * round(t / 5) for n, t in totals.items()}
