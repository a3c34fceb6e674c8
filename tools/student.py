#!/usr/bin/env python3
"""Solution-free copies of the lessons for a classroom, and collecting the learners' answers.

    python tools/student.py notebooks/*.ipynb                    # → out/student/NN_*.ipynb (make student)
    python tools/student.py --out handouts notebooks/01_*.ipynb  # another folder
    python tools/student.py --collect returned/ > answers.md     # every exercise answer, learner by learner

A student copy is the lesson with every cell tagged `solution` removed and every output cleared (nbconvert's
TagRemovePreprocessor and ClearOutputPreprocessor); exercise cells (tag `exercise`) stay, blank, and their check_
functions still tell the learner whether an answer is right. What nbconvert does not do is done here: the copy is
stored clean as the lessons are (tools/nbclean.py), its links to ../docs/ still reach the docs from out/student/,
and the lessons' sentence saying that each exercise's solution is in the hidden cell right after it is replaced by
one saying that this copy has no solutions.
--collect reads the notebooks the learners hand back (any folder tree) and prints, for each notebook, each
exercise cell's code and what its check printed, as Markdown.
"""
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbclean  # noqa: E402

DEFAULT_OUT = Path("out/student")


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


def _relink(nb, lesson_dir, out):
    """Markdown links like ](../docs/x.md) point from notebooks/; make them point there from out/ too."""
    prefix = Path(os.path.relpath(lesson_dir.resolve().parent, out.resolve())).as_posix() + "/"
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and "](../" in nbclean.source(cell):
            text = nbclean.source(cell).replace("](../", "](" + prefix)
            cell["source"] = text.splitlines(keepends=True)
    return nb


def write_copies(paths, out=DEFAULT_OUT):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for p in map(Path, paths):
        nb = _relink(student_copy(json.loads(p.read_text(encoding="utf-8"))), p.parent, out)
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


def collect(folder):
    """Markdown: for every returned notebook under folder, each exercise's code and its printed verdict."""
    lines = []
    for p in sorted(Path(folder).rglob("*.ipynb")):
        if ".ipynb_checkpoints" in p.parts:
            continue
        cells = json.loads(p.read_text(encoding="utf-8"))["cells"]
        lines.append(f"## {p.relative_to(folder)}\n")
        for n, cell in enumerate((c for c in cells if "exercise" in tags(c)), start=1):
            lines.append(f"### অনুশীলনী {n}\n\n```python\n{nbclean.source(cell).strip()}\n```\n")
            said = _text(cell.get("outputs", []))
            lines.append(f"```text\n{said}\n```\n" if said else "(চালানো হয়নি — no output)\n")
    return "\n".join(lines)


def main(argv):
    if "--collect" in argv:
        print(collect(argv[argv.index("--collect") + 1]))
        return 0
    out = DEFAULT_OUT
    if "--out" in argv:
        i = argv.index("--out")
        out, argv = Path(argv[i + 1]), argv[:i] + argv[i + 2:]
    paths = [a for a in argv if not a.startswith("--")]
    for target in write_copies(paths, out):
        print(f"{target}: সমাধান ছাড়া কপি (solution-free copy)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
