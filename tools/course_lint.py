#!/usr/bin/env python3
"""Course lint (`make lint`): measures each notebook against the course conventions (docs/contributing.md).

Standard library only, so it runs with any Python 3.10+ before anything is installed. From the project's root:
    python3 tools/course_lint.py [notebooks/] [--strict] [--json]
Prints one row per notebook and the conventions it misses. With --strict it exits 1 when any
notebook misses one; otherwise it always exits 0 (it is guidance for authors; the gate is the tests, where
tests/test_conventions.py checks the same conventions one test per rule).
"""
import json
import re
import sys
import unicodedata
from pathlib import Path

MIN_BENGALI_SHARE = 0.60      # Bengali letters / (Bengali + Latin letters) in markdown prose
MIN_EXERCISES = 3             # cells tagged "exercise"
CHECK_TAG = "nbval-check-output"   # nbval compares the stored output of a cell with this tag (tools/nbclean.py)
ANATOMY = {                   # heading text every lesson notebook carries
    "objectives": "শেখার লক্ষ্য",
    "summary": "সারসংক্ষেপ",
    "exercises": "অনুশীলনী",
}


def is_bengali(ch):
    return "\u0980" <= ch <= "\u09ff" or ch in "\u0964\u0965"


def is_latin_letter(ch):
    return ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN")


def prose(md):
    """Markdown text without code, math, links' targets and HTML tags."""
    md = re.sub(r"```.*?```", " ", md, flags=re.S)
    md = re.sub(r"`[^`]*`", " ", md)
    md = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", " ", md, flags=re.S)
    md = re.sub(r"\]\([^)]*\)|https?://\S+|<[^>]+>", " ", md)
    return unicodedata.normalize("NFC", md)


def source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def measure(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb.get("cells", [])
    md = [source(c) for c in cells if c.get("cell_type") == "markdown"]
    code = [c for c in cells if c.get("cell_type") == "code"]
    text = prose("\n".join(md))
    bn = sum(1 for ch in text if is_bengali(ch) and unicodedata.category(ch)[0] in "LM")
    la = sum(1 for ch in text if is_latin_letter(ch))
    tags = [t for c in cells for t in c.get("metadata", {}).get("tags", [])]
    headings = [ln for m in md for ln in m.splitlines() if ln.lstrip().startswith("#")]
    outputs = [o for c in code for o in c.get("outputs", [])]
    code_src = "\n".join(source(c) for c in code)
    row = {
        "notebook": path.name,
        "cells": len(cells),
        "code_cells": len(code),
        "bengali_share": round(bn / max(1, bn + la), 3),
        "prose_letters": bn + la,
        "exercises": tags.count("exercise"),
        "solutions": tags.count("solution"),
        "asserts": len(re.findall(r"^\s*assert\b", code_src, flags=re.M)),
        "nbval_checked": sum(1 for c in code if CHECK_TAG in c.get("metadata", {}).get("tags", [])),
        "colab_badge": "colab.research.google.com" in "\n".join(md),
        "stored_outputs": len(outputs),
        "error_outputs": sum(1 for o in outputs if o.get("output_type") == "error"),
        "image_outputs": sum(1 for o in outputs if "image/png" in o.get("data", {})),
        "anatomy_missing": [k for k, word in ANATOMY.items()
                            if not any(word in h for h in headings)],
    }
    misses = []
    orientation = path.name.startswith("00")   # the orientation notebook needs no exercises
    if row["bengali_share"] < MIN_BENGALI_SHARE:
        misses.append(f"Bengali share {row['bengali_share']} < {MIN_BENGALI_SHARE}")
    if orientation:
        row["anatomy_missing"] = [k for k in row["anatomy_missing"] if k != "exercises"]
    if row["anatomy_missing"]:
        misses.append("no heading for " + ", ".join(row["anatomy_missing"]))
    if row["exercises"] < MIN_EXERCISES and not orientation:
        misses.append(f"{row['exercises']} cells tagged exercise (< {MIN_EXERCISES})")
    if row["exercises"] and row["solutions"] < row["exercises"]:
        misses.append("an exercise without a cell tagged solution")
    if not row["colab_badge"]:
        misses.append("no Open-in-Colab badge")
    if row["error_outputs"]:
        misses.append(f"{row['error_outputs']} stored error outputs")
    if row["image_outputs"]:
        misses.append(f"{row['image_outputs']} stored images (store no plots)")
    row["misses"] = misses
    return row


def main(argv):
    strict, as_json = "--strict" in argv, "--json" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = Path(args[0] if args else "notebooks")
    books = sorted(p for p in root.glob("*.ipynb") if not p.name.startswith("_"))
    if not books:
        print(f"course_lint: no notebooks under {root}/")
        return 1 if strict else 0
    rows = [measure(p) for p in books]
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
    else:
        print(f"{'notebook':44} {'bn':>5} {'ex':>3} {'sol':>3} {'assert':>6} {'chk':>3}  misses")
        for r in rows:
            print(f"{r['notebook'][:44]:44} {r['bengali_share']:5.2f} {r['exercises']:3} "
                  f"{r['solutions']:3} {r['asserts']:6} {r['nbval_checked']:3}  "
                  + ("; ".join(r["misses"]) or "-"))
    bad = sum(1 for r in rows if r["misses"])
    print(f"course_lint: {len(rows)} notebooks, {bad} miss a convention", file=sys.stderr if as_json else sys.stdout)
    return 1 if (strict and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
