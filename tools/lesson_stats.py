#!/usr/bin/env python3
"""Lesson sizes and a student's time per lesson, measured from the notebooks (docs/term_plan.md's table).

Standard library only. From the project's root:
    python3 tools/lesson_stats.py [notebooks/] [--times LOG] [--wpm 120] [--lpm 15] [--exercise-min 6] [--json]

For each lesson it counts
  - prose words: whitespace-separated words in the markdown cells, without fenced code, HTML tags, link targets
    and image links (what a student reads);
  - code lines: non-blank lines of the code cells a student reads, i.e. without the setup cell (tag colab-setup)
    and the hidden solutions (tag solution); exercise cells are counted apart as well;
  - exercises: cells tagged exercise (one tagged reads-figure too counts twice);
and derives minutes = reading (words / wpm + code lines / lpm) + running (the lesson's CPU run time, rounded up to
a minute) + exercises (count × exercise-min). The run time comes from a `make test` / `pytest --nbval-lax` log
(`--times`: its "notebook times" section); without one, from CPU_SECONDS below.
"""
import argparse
import json
import math
import re
import sys
from pathlib import Path

# Wall seconds of each lesson under `pytest --nbval-lax notebooks/` on the course's 2-core CPU (torch 2.13.0+cpu,
# AMD EPYC, no AVX512-BF16, the machine shared with other work, load about 1.4; 2026-12-02; the same table as
# docs/benchmarks.md's CPU row). A student's laptop with 4+ cores is usually faster; a cell run twice is slower.
CPU_SECONDS = {"00": 23.7, "01": 19.7, "02": 65.4, "03": 44.2, "04": 35.8, "05": 117.3, "06": 68.3,
               "07": 49.6, "08": 60.9, "09": 20.0}

TIMES_LINE = re.compile(r"^\s*([\d.]+)\s*s\s+\S*?(\d\d)_[^/\s]*\.ipynb\s*$")


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def prose_words(markdown):
    """Words a student reads in a markdown cell: fenced code, HTML tags, images and link targets left out."""
    text = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\]\([^)]*\)", "] ", text)
    text = re.sub(r"<[^>]+>", " ", text)
    return [w for w in text.split() if re.search(r"\w", w)]


def code_lines(code):
    return sum(1 for line in code.splitlines() if line.strip())


def measure(path):
    """One lesson's counts: words, code lines read, exercise cells and their lines, cells."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    row = {"lesson": Path(path).name[:2], "notebook": Path(path).name, "cells": len(nb["cells"]),
           "words": 0, "code_lines": 0, "exercises": 0, "exercise_weight": 0, "exercise_lines": 0, "solution_lines": 0}
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        text = source(cell)
        if cell.get("cell_type") == "markdown":
            row["words"] += len(prose_words(text))
        elif cell.get("cell_type") == "code" and "colab-setup" not in tags:
            if "solution" in tags:
                row["solution_lines"] += code_lines(text)
                continue
            row["code_lines"] += code_lines(text)
            if "exercise" in tags:
                # an exercise answered by reading a figure (tag reads-figure) counts twice: a learner measured the
                # lessons with one (08.3, 09.3) 15–25 minutes over the single count
                row["exercises"] += 1
                row["exercise_weight"] += 2 if "reads-figure" in tags else 1
                row["exercise_lines"] += code_lines(text)
    return row


def parse_times(text):
    """{lesson: seconds} from the "notebook times" section that conftest.py prints after an nbval run."""
    times = {}
    for line in text.splitlines():
        m = TIMES_LINE.match(line)
        if m:
            times[m.group(2)] = float(m.group(1))
    return times


def minutes(row, seconds, wpm, lpm, exercise_min):
    """Reading, running and exercise minutes of one lesson, and their sum (all whole minutes, rounded up)."""
    reading = math.ceil(row["words"] / wpm + row["code_lines"] / lpm)
    running = math.ceil(seconds / 60) if seconds is not None else None
    exercises = row.get("exercise_weight", row["exercises"]) * exercise_min
    total = reading + (running or 0) + exercises
    return {"reading_min": reading, "running_min": running, "exercise_min": exercises, "total_min": total}


def table(rows):
    head = ("| পাঠ | শব্দ (লেখা) | কোডের লাইন | অনুশীলনী | CPU-তে চলা (s) | পড়া (মিনিট) | চালানো (মিনিট) | "
            "অনুশীলনী (মিনিট) | মোট (মিনিট) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    lines = [head]
    for r in rows:
        secs = "—" if r["seconds"] is None else f"{r['seconds']:.0f}"
        run = "—" if r["running_min"] is None else str(r["running_min"])
        lines.append(f"| {r['lesson']} | {r['words']:,} | {r['code_lines']:,} | {r['exercises']} | {secs} | "
                     f"{r['reading_min']} | {run} | {r['exercise_min']} | {r['total_min']} |")
    return "\n".join(lines)


def collect(folder, times, wpm, lpm, exercise_min):
    rows = []
    for path in sorted(Path(folder).glob("[0-9][0-9]_*.ipynb")):
        row = measure(path)
        row["seconds"] = times.get(row["lesson"])
        row.update(minutes(row, row["seconds"], wpm, lpm, exercise_min))
        rows.append(row)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", nargs="?", default="notebooks")
    p.add_argument("--times", help="a make test / pytest --nbval-lax log with the 'notebook times' section")
    p.add_argument("--wpm", type=float, default=120.0, help="prose words a minute (technical Bengali)")
    p.add_argument("--lpm", type=float, default=15.0, help="code lines a minute, read and run cell by cell")
    p.add_argument("--exercise-min", type=int, default=6, help="minutes per exercise")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.wpm <= 0 or args.lpm <= 0:
        p.error("--wpm and --lpm must be positive")
    times = dict(CPU_SECONDS)
    if args.times:
        times = parse_times(Path(args.times).read_text(encoding="utf-8"))
        if not times:
            p.error(f"{args.times}: no 'notebook times' lines found")
    rows = collect(args.folder, times, args.wpm, args.lpm, args.exercise_min)
    if not rows:
        p.error(f"{args.folder}: no lesson notebooks (NN_*.ipynb)")
    print(json.dumps(rows, ensure_ascii=False, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
