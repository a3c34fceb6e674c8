#!/usr/bin/env python3
"""Handouts for a classroom (solution-free lessons), an answer key, and collecting the learners' answers.

    python tools/student.py --out handouts notebooks/*.ipynb          # → handouts/NN_*.ipynb (make student)
    python tools/student.py --graded --out handouts notebooks/*.ipynb # checks only record answers (graded mode)
    python tools/student.py --answer-key out/answer_key.md notebooks/*.ipynb            # (make answer-key)
    python tools/student.py --final-answers out/final_answers.md notebooks/*.ipynb  # values, not code (slow)
    python tools/student.py --collect returned/ > answers.md          # every exercise answer, learner by learner
    python tools/student.py --collect returned/ --csv scores.csv      # one row per answer, scored by the checks
    python tools/student.py --collect returned/ --handouts handouts-exam --csv scores.csv   # against these handouts
    python tools/student.py --student-repo ../mishran-class --repo URL --ref REF    # what students may see, alone

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
(mishran.exercises.graded): a check then records the answer in the notebook's output without saying right or wrong,
and the exercises' introduction says so instead of promising hints. Under every exercise cell a handout has a
markdown cell (tag `reasoning`) for the learner's reasoning, which the rubric's 4 points ask for.
--collect reads the notebooks the learners hand back (any folder tree; a learner's name is the first folder, or the
file's name): tools/grading.py says how, exercise by exercise (never by counting cells), with flags for brute
force, changed questions, typos and missing records; Markdown by default, --csv one row per answer with the rubric.
--final-answers runs each lesson with graded mode on, so that every solution cell's check records the values it was
given: a sheet of final values beside the answer key's code. --student-repo writes a folder to publish as the
class's own repository: handouts, the package and the learners' docs, no lessons with solutions, no tests, no
teacher's pages (docs/teachers_guide.md says what a determined student can still find).
"""
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import colab  # noqa: E402
import grading  # noqa: E402
import nbclean  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = Path("handouts")
GRADED_TAG = grading.GRADED_TAG
REASONING = grading.REASONING_TAG
BN_DIGITS = grading.BN_DIGITS
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
NO_SOLUTION_GRADED = "এই কপিতে সমাধান নেই; প্রতিটি উত্তরের নিচের ঘরে লেখো কীভাবে সেখানে পৌঁছালে।"
# In a graded copy the checks give no hints: the introduction's "check_... will say whether it is right, and give a
# hint" (any sentence that promises the check's verdict) becomes what the check does there.
CHECK_SAYS = re.compile(r"([ \t]*)(?=\S)[^।\n]*`check_\.\.\.`[^।\n]*ঠিক হলো কি না[^।\n]*।")
GRADED_SAYS = ("এই পরীক্ষার কপিতে `check_...` ঠিক-ভুল বলে না, ইঙ্গিতও দেয় না: শুধু উত্তর জমা রাখে (\"জমা হলো\"); "
               "উত্তর ফাঁকা থাকলে বা তার আকার ভুল হলে (যেমন সংখ্যার জায়গায় লেখা) শুধু সেটুকু বলে।")


def _say_no_solutions(cell, graded=False):
    text = nbclean.source(cell)
    if cell["cell_type"] != "markdown":
        return
    if HIDDEN_SOLUTION.search(text):
        said = NO_SOLUTION_GRADED if graded else NO_SOLUTION
        text = HIDDEN_SOLUTION.sub(lambda m: m.group(1) + said, text)
    if graded:
        text = CHECK_SAYS.sub(lambda m: m.group(1) + GRADED_SAYS, text)
    cell["source"] = text.splitlines(keepends=True)


def _add_reasoning_cells(nb):
    """Under every exercise cell, a markdown cell for the learner's reasoning (the rubric's 4 points need it;
    --collect reads it beside the answer)."""
    cells = []
    for cell in nb["cells"]:
        cells.append(cell)
        if "exercise" in tags(cell):
            cells.append({"cell_type": "markdown", "id": f"reasoning-{sum(REASONING in tags(c) for c in cells) + 1}",
                          "metadata": {"tags": [REASONING]},
                          "source": grading.REASONING_PROMPT.splitlines(keepends=True)})
    nb["cells"] = cells
    return nb


def student_copy(nb, graded=False):
    """The notebook without solution cells, without any stored output, and saying so; a reasoning cell under each
    exercise (a new dict; nb is not changed). graded: the introduction says that checks only record."""
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
        _say_no_solutions(cell, graded)
    return nbclean.clean(_add_reasoning_cells(nb))


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
    default). A folder outside the project (the student site's temporary copy, a test's) is not where the fork
    keeps them: its badge opens handouts/, where `make student` writes and the teacher commits."""
    try:
        return Path(out).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return DEFAULT_OUT.as_posix()


def handout(nb, name, out, graded=False, url=None, ref=None, folder=None):
    """The handout of one lesson: student_copy, its badge opening folder/name (by default where out is in the
    repository) at ref, its repository links hosted."""
    url = colab.repo_url() if url is None else url
    ref = colab.course_ref() if ref is None else ref
    nb = _relink(student_copy(nb, graded), url, ref)
    colab.rewrite(nb, name, url, ref, folder=folder or _badge_folder(out))
    return _add_graded_cell(nb) if graded else nb


def write_copies(paths, out=DEFAULT_OUT, graded=False, url=None, ref=None, folder=None):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for p in map(Path, paths):
        nb = handout(json.loads(p.read_text(encoding="utf-8")), p.name, out, graded, url, ref, folder)
        target = out / p.name
        target.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.append(target)
    return written


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


def _lesson_values(path, timeout):
    """Rows of the final-answer sheet for one lesson: its exercises' recorded values, from running it."""
    import shutil
    import tempfile

    import nbclient
    import nbformat

    graded = grading._graded_module()
    with tempfile.TemporaryDirectory() as tmp:       # a lesson writes files beside itself: not in the repository
        shutil.copytree(path.parent, Path(tmp) / path.parent.name)
        nb = nbformat.read(path, as_version=4)
        problem = ""
        try:
            nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                                    resources={"metadata": {"path": str(Path(tmp) / path.parent.name)}}).execute()
        except Exception as err:                      # the sheet says so, and goes on with the next lesson
            problem = f"{type(err).__name__}: {err}"[:200]
    cells = json.loads(json.dumps(nb))["cells"]
    exercises = grading.exercises(path)
    rows = []
    for exercise, work in zip(exercises, grading.gather(cells, exercises).values(), strict=True):
        for _, record in work.records or [(None, None)]:
            if record is None:
                rows.append(f"| {grading.bn(exercise.label)} | `{exercise.check}` | | (মান পাওয়া যায়নি: উত্তরপত্র দেখুন) |")
                continue
            args = record.get("args", {})
            asked = ", ".join(f"{k}={grading.shown(v, graded)}" for k, v in args.items()
                              if k not in exercise.answers and len(json.dumps(v)) < 80)
            given = "; ".join(grading.shown(args[k], graded) for k in exercise.answers if k in args)
            rows.append(f"| {grading.bn(exercise.label)} | `{exercise.check}` | {asked} | {given} |".replace("\n", " "))
    return rows, problem


def final_answers(paths, timeout=600):
    """Markdown: every exercise's final values (not code), recorded by running each lesson with graded mode on:
    its solution cells then call the checks, which record what they were given — values the checks accept, since
    `make test` runs the same cells with graded mode off and asserts them."""
    import os

    lines = ["# মিশ্রণ — চূড়ান্ত উত্তর (final answers)\n",
             "শিক্ষকের জন্য; শিক্ষার্থীদের দেবেন না। প্রতিটি পাঠ চালিয়ে তার সমাধানের ঘর যে মান `check_...`-কে দেয়, "
             "তা-ই এখানে (`make test` একই ঘর চালিয়ে check দিয়ে যাচাই করে)। কোড আর যুক্তি: উত্তরপত্রে "
             "(`make answer-key`)। \"প্রশ্ন\" মানে check-এর বাকি argument (বড় মান বাদ)।\n"]
    saved = os.environ.get("MISHRAN_GRADED")
    os.environ["MISHRAN_GRADED"] = "1"               # the kernels inherit it: each check records instead of judging
    try:
        for path in map(Path, paths):
            rows, problem = _lesson_values(path, timeout)
            lines += [f"## `{path.name}`\n", "| অনুশীলনী | check | প্রশ্ন (question) | উত্তর (final answer) |",
                      "|---|---|---|---|", *rows, ""]
            if problem:
                lines.append(f"(পাঠটি পুরো চলেনি — did not run to the end: {problem})\n")
            print(f"{path.name}: {len(rows)}টি মান", file=sys.stderr)
    finally:
        if saved is None:
            os.environ.pop("MISHRAN_GRADED", None)
        else:
            os.environ["MISHRAN_GRADED"] = saved
    return "\n".join(lines)


# What a class's own repository holds (--student-repo): what learners run and read, nothing that answers.
STUDENT_PATHS = ("src/", "data/", "tools/", "site/", "pyproject.toml", "setup.py", "Makefile", "environment.yml",
                 "LICENSE", "LICENSE-CONTENT", "conftest.py")
STUDENT_DOCS = ("glossary.md", "troubleshooting.md", "colab.md", "versions.md", "benchmarks.md", "lesson_summaries.md")
STUDENT_MARK = ".mishran-student"
STUDENT_README = """# মিশ্রণ (mishran) — শিক্ষার্থীদের কপি

mixed precision training-এর কোর্স। এই repository-তে পাঠগুলো **হ্যান্ডআউট** হিসেবে (`handouts/`, সমাধান ছাড়া), কোর্সের
প্যাকেজ `mishran` আর শিক্ষার্থীর docs (`docs/`)।

- **Colab-এ:** প্রতিটি হ্যান্ডআউটের প্রথম ঘরের *Open in Colab* ব্যাজে খোলো; প্রথম ঘর (setup) কোর্সটা install করে।
- **নিজের যন্ত্রে:** `make lab`, তারপর JupyterLab-এ `handouts/`-এর পাঠ খোলো।

পাঠ:

"""


def _tracked(root):
    """The project's files: tracked and new (not ignored), from git; without git, every file but caches."""
    import subprocess

    done = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root,
                          capture_output=True, text=True)
    if done.returncode == 0:
        return [p for p in done.stdout.splitlines() if (root / p).is_file()]
    return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()
            and not {".git", ".venv", "__pycache__", "out", "build"} & set(p.relative_to(root).parts)]


def _empty_for_us(dest):
    """Make dest ready: a new folder, or one this command wrote before (its .git stays); refuse anything else."""
    import shutil

    dest = Path(dest).resolve()
    if dest == ROOT or ROOT in dest.parents:
        sys.exit(f"{dest}: course-এর ভেতরে নয় (not inside the course's repository); পাশে একটি ফোল্ডার দিন।")
    if dest.exists() and any(p.name != ".git" for p in dest.iterdir()) and not (dest / STUDENT_MARK).exists():
        sys.exit(f"{dest}: ফোল্ডারটি খালি নয় (not empty), আর আগে --student-repo দিয়ে লেখা নয়; নতুন ফোল্ডার দিন।")
    dest.mkdir(parents=True, exist_ok=True)
    for p in dest.iterdir():
        if p.name != ".git":
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    return dest


def student_repo(dest, url=None, ref=None, graded=False):
    """Write dest as the class's own repository: the handouts (badges and setup cells at url/ref, in handouts/),
    the package, the learners' docs, and pyproject.toml pointing at url/ref. Not there: notebooks/ (the lessons
    with their solutions), tests/ (every answer, computed independently), the teacher's pages."""
    import shutil

    dest = _empty_for_us(dest)
    keep = [p for p in _tracked(ROOT) if p.startswith(STUDENT_PATHS) or p in STUDENT_PATHS
            or (p.startswith("docs/") and p[5:] in STUDENT_DOCS)]
    for rel in keep:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    if url or ref:
        colab.set_host(url or colab.repo_url(), ref or colab.course_ref(), pyproject=dest / "pyproject.toml")
    url, ref = colab.repo_url(dest / "pyproject.toml"), colab.course_ref(dest / "pyproject.toml")
    lessons = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    written = write_copies(lessons, dest / "handouts", graded, url, ref, folder="handouts")
    listing = "".join(f"- [`{p.name}`](handouts/{p.name})\n" for p in written)
    (dest / "README.md").write_text(STUDENT_README + listing, encoding="utf-8")
    (dest / STUDENT_MARK).write_text(f"{url} {ref}\n", encoding="utf-8")
    return dest, url, ref


def _take(argv, name):
    """The value after --name, and argv without the two."""
    i = argv.index(name)
    if i + 1 >= len(argv):
        sys.exit(f"{name}-এর পরে একটি মান দিন (a value after {name})।")
    return argv[i + 1], argv[:i] + argv[i + 2:]


def _option(argv, name, default=None):
    return _take(argv, name) if name in argv else (default, argv)


def _collect(argv):
    folder, argv = _take(argv, "--collect")
    handouts, argv = _option(argv, "--handouts")
    if handouts is not None and not list(Path(handouts).glob("[0-9][0-9]_*.ipynb")):
        sys.exit(f"--handouts {handouts}: সেখানে কোনো NN_*.ipynb হ্যান্ডআউট নেই (no handouts there)।")
    if "--csv" in argv:
        target, argv = _take(argv, "--csv")
        rows = grading.write_csv(folder, target, handouts)
        flagged = sum(bool(r.get("flags")) for r in rows)
        by_hand = sum(r.get("score", "") == "" and r.get("how") != "blank" for r in rows)
        print(f"{target}: {len(rows)}টি উত্তর (answers), {sum(r.get('score') == 1 for r in rows)}টি ঠিক, "
              f"{flagged}টিতে সতর্কতা (flagged), {by_hand}টি হাতে দেখতে হবে (by hand)")
    else:
        print(grading.collect(folder, handouts))
    return 0


def _write(target, text, what):
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(text, encoding="utf-8")
    print(f"{target}: {what}")
    return 0


def main(argv):
    argv = list(argv)
    if "--collect" in argv:
        return _collect(argv)
    if "--answer-key" in argv:
        target, argv = _take(argv, "--answer-key")
        return _write(target, answer_key([a for a in argv if not a.startswith("--")]), "উত্তরপত্র (answer key)")
    if "--final-answers" in argv:
        target, argv = _take(argv, "--final-answers")
        return _write(target, final_answers([a for a in argv if not a.startswith("--")]),
                      "চূড়ান্ত উত্তরের তালিকা (final answers)")
    graded = "--graded" in argv
    if "--student-repo" in argv:
        dest, argv = _take(argv, "--student-repo")
        url, argv = _option(argv, "--repo")
        ref, argv = _option(argv, "--ref")
        dest, url, ref = student_repo(dest, url, ref, graded)
        print(f"{dest}: শিক্ষার্থীদের repository (student repository), {url} @ {ref}। এরপর সেখানে: git init (প্রথমবার), "
              f"git add -A, git commit, git tag {ref}, আর {url}-এ push (docs/teachers_guide.md)।")
        return 0
    out, argv = _option(argv, "--out", DEFAULT_OUT)
    paths = [a for a in argv if not a.startswith("--")]
    for target in write_copies(paths, out, graded):
        print(f"{target}: সমাধান ছাড়া কপি (handout{', graded' if graded else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
