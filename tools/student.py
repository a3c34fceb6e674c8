#!/usr/bin/env python3
"""Handouts for a classroom (solution-free lessons), an answer key, and collecting the learners' answers.

    python tools/student.py --out handouts notebooks/*.ipynb          # → handouts/NN_*.ipynb (make student)
    python tools/student.py --graded --out handouts notebooks/*.ipynb # checks only record answers (graded mode)
    python tools/student.py --answer-key out/answer_key.md notebooks/*.ipynb            # (make answer-key)
    python tools/student.py --collect returned/ > answers.md          # every exercise answer, learner by learner
    python tools/student.py --collect returned/ --csv scores.csv      # one row per answer, scored by the checks

A handout is the lesson with every cell tagged `solution` removed and every output cleared (nbconvert's
TagRemovePreprocessor and ClearOutputPreprocessor); exercise cells (tag `exercise`) stay, blank, and their check_
functions still tell the learner whether an answer is right. What nbconvert does not do is done here: the copy is
stored clean as the lessons are (tools/nbclean.py); the lessons' sentence saying that each exercise's solution is in
the hidden cell right after it is replaced by one saying that this copy has no solutions; its Open-in-Colab badge
opens the handout itself (handouts/NAME in the repository, at pyproject's ref: the teacher commits handouts/ to the
fork), not the lesson with its solutions; and its links into the repository (../docs/x.md) become links to the
hosted page at the same ref (URL/blob/REF/docs/x.md), because a handout travels alone (an LMS, email, Colab's
upload) and a relative link only works inside a clone, while the hosted page at the pinned ref is the version of
the docs that goes with that lesson. --graded adds one cell before the exercises that turns on graded mode
(mishran.exercises.graded): a check then records the answer in the notebook's output without saying right or wrong.
--collect reads the notebooks the learners hand back (any folder tree; a learner's name is the first folder, or the
file's name) and prints, for each notebook, each exercise cell's code and what its check printed, as Markdown; with
--csv it writes one row per answer instead, scored by calling the same check again on the recorded answer (graded
handouts) or, for a normal handout, read from what the check printed there.
"""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import colab  # noqa: E402
import nbclean  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = Path("handouts")
GRADED_TAG = "graded-mode"
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
GRADED_CELL = """# পরীক্ষার কপি (graded): এখান থেকে check_... ঠিক-ভুল বলে না, শুধু উত্তর জমা রাখে ("জমা হলো")।
# শেষে নোটবুক save করে শিক্ষককে ফেরত দাও; নম্বর দেবেন শিক্ষক। এই ঘর বদলাবে না।
import os

os.environ["MISHRAN_GRADED"] = "1"
"""


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


# The lessons' exercise introductions say, in a few wordings, "each one's solution is in the hidden cell right
# after it; try yourself first". A copy without solutions must not send the learner looking for that cell.
# The sentence is the match after its leading blanks (group 1, kept): from the end of the one before it to its own
# end (the dari, ।).
HIDDEN_SOLUTION = re.compile(r"([ \t]*)[^।\n \t][^।\n]*লুকানো ঘরে সমাধান[^।\n]*।")
NO_SOLUTION = "এই কপিতে সমাধান নেই: সেই ইঙ্গিত ধরে নিজে চেষ্টা করো, আটকে গেলে শিক্ষককে জিজ্ঞেস করো।"


def _say_no_solutions(cell):
    text = nbclean.source(cell)
    if cell["cell_type"] == "markdown" and HIDDEN_SOLUTION.search(text):
        cell["source"] = HIDDEN_SOLUTION.sub(lambda m: m.group(1) + NO_SOLUTION, text).splitlines(keepends=True)


def student_copy(nb):
    """The notebook without solution cells, without any stored output, and saying so (a new dict; nb is not
    changed)."""
    try:
        import nbformat
        from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor
    except ImportError as err:       # a bare python3: nbconvert comes with JupyterLab (`make lab`)
        sys.exit(f"student.py: {err.name} পাওয়া যায়নি ({err.name} not found); এটা JupyterLab-এর সঙ্গে আসে: "
                 "`make lab` চালিয়ে .venv/bin/python tools/student.py ... দিয়ে চালাও।")

    node = nbformat.from_dict(json.loads(json.dumps(nb)))
    node, _ = TagRemovePreprocessor(remove_cell_tags={nbclean.SOLUTION_TAG}).preprocess(node, {})
    node, _ = ClearOutputPreprocessor().preprocess(node, {})
    nb = json.loads(json.dumps(node))
    for cell in nb["cells"]:
        _say_no_solutions(cell)
    return nbclean.clean(nb)


def _relink(nb, url, ref):
    """Markdown links like ](../docs/x.md) point from notebooks/ into the repository: make them the hosted pages
    at the handout's own ref (a handout is read away from any clone)."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and "](../" in nbclean.source(cell):
            text = nbclean.source(cell).replace("](../", f"]({url}/blob/{ref}/")
            cell["source"] = text.splitlines(keepends=True)
    return nb


def _add_graded_cell(nb):
    """The cell that turns on graded mode, just before the first exercise (the lesson before it runs as ever)."""
    first = next((i for i, c in enumerate(nb["cells"]) if "exercise" in tags(c)), None)
    if first is not None:
        nb["cells"].insert(first, {"cell_type": "code", "execution_count": None, "id": "graded-mode",
                                   "metadata": {"tags": [GRADED_TAG]}, "outputs": [],
                                   "source": GRADED_CELL.splitlines(keepends=True)})
    return nb


def _badge_folder(out):
    """Where the handouts are in the repository, for the badge: out from the project's root (handouts by
    default); a folder outside the project, as in a test: its own name."""
    try:
        return Path(out).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return Path(out).name


def handout(nb, name, out, graded=False, url=None, ref=None):
    """The handout of one lesson: student_copy, its badge opening out/name at ref, its repository links hosted."""
    url = colab.repo_url() if url is None else url
    ref = colab.course_ref() if ref is None else ref
    nb = _relink(student_copy(nb), url, ref)
    colab.rewrite(nb, name, url, ref, folder=_badge_folder(out))
    return _add_graded_cell(nb) if graded else nb


def write_copies(paths, out=DEFAULT_OUT, graded=False):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for p in map(Path, paths):
        nb = handout(json.loads(p.read_text(encoding="utf-8")), p.name, out, graded)
        target = out / p.name
        target.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.append(target)
    return written


def _text(outputs):
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            parts.append(nbclean.source({"source": o["text"]}))
        elif "text/plain" in o.get("data", {}):
            parts.append(nbclean.source({"source": o["data"]["text/plain"]}))
        elif o.get("output_type") == "error":
            parts.append(f"{o.get('ename')}: {o.get('evalue')}")
    return "".join(parts).strip()


def _returned(folder):
    """(learner, relative path, cells) of every returned notebook under folder."""
    for p in sorted(Path(folder).rglob("*.ipynb")):
        if ".ipynb_checkpoints" in p.parts:
            continue
        rel = p.relative_to(folder)
        learner = rel.parts[0] if len(rel.parts) > 1 else p.stem
        yield learner, rel, json.loads(p.read_text(encoding="utf-8"))["cells"]


def collect(folder):
    """Markdown: for every returned notebook under folder, each exercise's code and its printed verdict."""
    lines = []
    for _, rel, cells in _returned(folder):
        lines.append(f"## {rel}\n")
        for n, cell in enumerate((c for c in cells if "exercise" in tags(c)), start=1):
            lines.append(f"### অনুশীলনী {n}\n\n```python\n{nbclean.source(cell).strip()}\n```\n")
            said = _text(cell.get("outputs", []))
            lines.append(f"```text\n{said}\n```\n" if said else "(চালানো হয়নি — no output)\n")
    return "\n".join(lines)


CSV_FIELDS = ["learner", "notebook", "exercise", "check", "answer", "score", "how", "said"]
PRINTED = {"ঠিক!": 1, "এখনো হয়নি:": 0}     # what a check prints first, outside graded mode


def _records(cell, mime):
    """The graded records in a cell's outputs, each once (a check that speaks twice records twice)."""
    found = []
    for o in cell.get("outputs", []):
        record = o.get("data", {}).get(mime)
        if record is not None and record not in found:
            found.append(record)
    return found


def _printed_row(said):
    """A normal handout's exercise: the score the check printed there (the learner saw it; not rescored)."""
    for mark, score in PRINTED.items():
        if said.startswith(mark):
            return {"score": score, "how": "printed (not rescored)"}
    return {"score": "", "how": "blank" if said else "not run"}


def score_rows(folder):
    """One dict per answer: graded records rescored by their check (mishran.exercises.graded.rescore)."""
    try:
        from mishran.exercises import graded
    except ImportError as err:
        sys.exit(f"student.py --csv: mishran পাওয়া যায়নি ({err}); নম্বর দিতে check লাগে: `make lab` চালিয়ে "
                 ".venv/bin/python tools/student.py --collect ... --csv ... দিয়ে চালান।")
    rows = []
    for learner, rel, cells in _returned(folder):
        for n, cell in enumerate((c for c in cells if "exercise" in tags(c)), start=1):
            base = {"learner": learner, "notebook": str(rel), "exercise": n}
            records = _records(cell, graded.MIME)
            if not records:
                said = _text(cell.get("outputs", []))
                rows.append({**base, "check": "", "answer": "", "said": said[:200], **_printed_row(said)})
            for record in records:
                ok, said = graded.rescore(record)
                rows.append({**base, "check": record.get("check"), "score": "" if ok is None else int(ok),
                             "answer": json.dumps(record.get("args"), ensure_ascii=False)[:300],
                             "how": "rescored" if ok is not None else "not rescored: score by hand",
                             "said": said[:200]})
    return rows


def write_csv(folder, target):
    import csv

    rows = score_rows(folder)
    with open(target, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return rows


def _prompt(cells, i):
    """The markdown cells just before cell i (the exercise's question), without headings."""
    j = i
    while j > 0 and cells[j - 1]["cell_type"] == "markdown":
        j -= 1
    text = "\n\n".join(nbclean.source(c).strip() for c in cells[j:i])
    return "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#")).strip()


def answer_key(paths):
    """Markdown: for every lesson, each exercise's question, its blank cell and its solution cell's code (the same
    code `make test` runs and asserts, so the key cannot disagree with the checks)."""
    lines = ["# মিশ্রণ — অনুশীলনীর উত্তর (answer key)\n",
             "শিক্ষকের জন্য; শিক্ষার্থীদের দেবেন না। প্রতিটি সমাধান পাঠের লুকানো সমাধানের ঘর, হুবহু: `make test` "
             "এগুলো চালিয়ে একই `check_...` দিয়ে যাচাই করে।\n"]
    for p in map(Path, paths):
        cells = json.loads(p.read_text(encoding="utf-8"))["cells"]
        title = nbclean.source(cells[0]).strip().splitlines()[0].lstrip("# ").strip()
        lines.append(f"## {title} (`{p.name}`)\n")
        n = 0
        for i, cell in enumerate(cells):
            if "exercise" not in tags(cell):
                continue
            n += 1
            solution = cells[i + 1] if i + 1 < len(cells) and nbclean.SOLUTION_TAG in tags(cells[i + 1]) else None
            lines += [f"### অনুশীলনী {str(n).translate(BN_DIGITS)}\n", _prompt(cells, i) + "\n",
                      f"শিক্ষার্থীর ঘর:\n\n```python\n{nbclean.source(cell).strip()}\n```\n",
                      (f"সমাধান:\n\n```python\n{nbclean.source(solution).strip()}\n```\n" if solution
                       else "(এই অনুশীলনীর সমাধানের ঘর নেই)\n")]
    return "\n".join(lines)


def _take(argv, name):
    """The value after --name, and argv without the two."""
    i = argv.index(name)
    if i + 1 >= len(argv):
        sys.exit(f"{name}-এর পরে একটি মান দিন (a value after {name})।")
    return argv[i + 1], argv[:i] + argv[i + 2:]


def main(argv):
    argv = list(argv)
    if "--collect" in argv:
        folder, argv = _take(argv, "--collect")
        if "--csv" in argv:
            target, argv = _take(argv, "--csv")
            rows = write_csv(folder, target)
            print(f"{target}: {len(rows)}টি উত্তর (answers), {sum(r['score'] == 1 for r in rows)}টি ঠিক")
        else:
            print(collect(folder))
        return 0
    if "--answer-key" in argv:
        target, argv = _take(argv, "--answer-key")
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(answer_key([a for a in argv if not a.startswith("--")]), encoding="utf-8")
        print(f"{target}: উত্তরপত্র (answer key)")
        return 0
    out = DEFAULT_OUT
    if "--out" in argv:
        out, argv = _take(argv, "--out")
    graded = "--graded" in argv
    paths = [a for a in argv if not a.startswith("--")]
    for target in write_copies(paths, out, graded):
        print(f"{target}: সমাধান ছাড়া কপি (handout{', graded' if graded else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
