"""Grading a class's returned notebooks (tools/student.py --collect): one row per exercise and learner.

Each returned notebook is matched to a lesson by the checks it calls (or its file name's two digits), and each
exercise is found by the check its cell calls, never by counting cells: a duplicated, moved or re-tagged cell does
not shift the exercises after it. The reference for the questions is the handouts the class was given
(--handouts DIR; by default the lessons in notebooks/, which the handouts copy).

Graded handouts (mishran.exercises.graded) leave one record per check call in the cell's output. Of an exercise's
records, the last one in the notebook is the answer; the others are listed as earlier attempts, and many of them,
or several from one cell (a loop over the options), flag the row as possible brute force. The question values in a
record (every argument of the check that is not the learner's answer) are compared with what the handout's cell
passes (its literals, and the defaults it leaves alone): a changed question is flagged and the answer is scored on
the handout's question, not the learner's own. A record marked invalid (a typo: "1.3b", an unknown name) is shown
as invalid, not as wrong. An exercise with no record whose cell shows "submitted", or whose code holds an answer,
is "record missing — grade by hand" (a notebook saved somewhere that dropped the record's custom output type),
never "blank". Practice (normal) handouts are scored from what the check printed there.

Beside each answer: what the learner wrote under it (the handout's `reasoning` cell, and comments added to the
exercise cell), the 4-point rubric of docs/lesson_rubrics.md suggested from the score and the reasoning, and that
exercise's partial-credit line from the rubric, so that grading a lesson means reading one CSV.
"""
import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbclean  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
FROM_BN = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")
MIME = "application/vnd.mishran.answer+json"     # mishran.exercises.graded.MIME, read here without importing it
SUBMITTED = "জমা হলো (submitted)"                  # graded.SUBMITTED: what a graded check shows the learner
GRADED_TAG = "graded-mode"
REASONING_TAG = "reasoning"
REASONING_PROMPT = ("**তোমার যুক্তি (reasoning):** এই উত্তরে কীভাবে পৌঁছালে — হিসাবটা বা কোন অংশ দেখে — দু-এক লাইনে "
                    "এই ঘরে লেখো (ঘরে দুবার ক্লিক করে)।")
MANY_ATTEMPTS = 3         # this many answers to one question in one notebook: flagged as possible brute force
PRINTED = {"ঠিক!": 1, "এখনো হয়নি:": 0}     # what a check prints first, outside graded mode
CSV_FIELDS = ["learner", "notebook", "exercise", "check", "question", "answer", "score", "rubric", "how", "flags",
              "attempts", "earlier", "reasoning", "partial", "said"]


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def bn(text):
    return str(text).translate(BN_DIGITS)


# ---------- the reference: each lesson's exercises, from the handouts (or lessons) the class was given ----------

@dataclass
class Exercise:
    lesson: str                  # "01"
    number: int                  # 1, 2, ... in the lesson's order
    check: str                   # the check_ the exercise cell calls
    source: str                  # the exercise cell as handed out
    question: dict = field(default_factory=dict)   # argument -> the value the handout's call gives it
    answers: tuple = ("answer",)                   # the arguments that hold the learner's answer
    solution: str = ""           # the lesson's solution cell (empty when the reference is a handout)

    @property
    def label(self):
        return f"{self.lesson}.{self.number}"


class _Arg:
    def __init__(self, node):
        self.node = node


def _constant(node):
    """The value of a literal or of arithmetic on literals (2**16, -1.5, 13e9); ValueError for anything else."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop)
    if all(isinstance(n, allowed) for n in ast.walk(node)):
        return eval(compile(ast.Expression(node), "<question>", "eval"), {"__builtins__": {}})  # noqa: S307
    raise ValueError("not a constant")


def _blank_names(tree):
    """Names the cell sets to something holding ... (the learner's answer goes there)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(n, ast.Constant) and n.value is ...
                                                for n in ast.walk(node.value)):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _first_call(tree, names=None):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("check_"):
            if names is None or node.func.id in names:
                return node
    return None


def calls(source):
    """The check_ functions a cell calls (import lines do not count)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:                          # a learner's half-edited cell: read it as text
        return re.findall(r"\b(check_\w+)\s*\(", source)
    return [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id.startswith("check_")]


def _signature(lesson, check):
    try:
        import importlib
        import inspect

        return inspect.signature(getattr(importlib.import_module(f"mishran.exercises.lesson{lesson}"), check))
    except (ImportError, AttributeError):        # no mishran here: the question is not compared
        return None


def _question(lesson, check, source):
    """(question, answers) of the handout's call: arguments given as literals, and those left at their default,
    are the question; those given ... (or a name the cell sets to ...) hold the answer. Arguments given any other
    way (a lesson's variable) are neither: they cannot be compared."""
    sig = _signature(lesson, check)
    tree = ast.parse(source)
    call = _first_call(tree, {check})
    if sig is None or call is None:
        return {}, ("answer",)
    blanks = _blank_names(tree)
    bound = sig.bind_partial(*map(_Arg, call.args), **{k.arg: _Arg(k.value) for k in call.keywords if k.arg}).arguments
    question, answers = {}, []
    for name, param in sig.parameters.items():
        node = bound[name].node if name in bound else None
        if node is None:
            if param.default is not param.empty:
                question[name] = param.default
        elif (isinstance(node, ast.Constant) and node.value is ...) or (isinstance(node, ast.Name)
                                                                        and node.id in blanks):
            answers.append(name)
        else:
            try:
                question[name] = _constant(node)
            except ValueError:
                pass
    return question, tuple(answers) or ("answer",)


def exercises(path):
    """The exercises of one lesson or handout file, in order."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    lesson = Path(path).name[:2]
    found = []
    for i, cell in enumerate(cells):
        if "exercise" not in tags(cell):
            continue
        source = nbclean.source(cell)
        names = calls(source)
        if not names:
            continue
        after = cells[i + 1] if i + 1 < len(cells) else {}
        solution = nbclean.source(after) if nbclean.SOLUTION_TAG in tags(after) else ""
        question, answers = _question(lesson, names[0], source)
        found.append(Exercise(lesson, len(found) + 1, names[0], source, question, answers, solution))
    return found


def reference(folder):
    """{lesson: [Exercise]} for every NN_*.ipynb in folder."""
    return {p.name[:2]: exercises(p) for p in sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))}


def rubric_partials(path=ROOT / "docs" / "lesson_rubrics.md"):
    """{(lesson, number): the rubric's partial-credit (2 points) line} from docs/lesson_rubrics.md."""
    found, lesson = {}, None
    if not Path(path).is_file():
        return found
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        head = re.match(r"## পাঠ ([০-৯]{2})", line)
        if head:
            lesson = head.group(1).translate(FROM_BN)
            continue
        row = re.match(r"\|\s*([০-৯]+)\s*\|.*\|\s*([^|]+?)\s*\|\s*$", line)
        if lesson and row:
            found[(lesson, int(row.group(1).translate(FROM_BN)))] = row.group(2)
    return found


# ---------- one returned notebook ----------

def returned(folder):
    """(learner, relative path, cells) of every returned notebook under folder."""
    for p in sorted(Path(folder).rglob("*.ipynb")):
        if ".ipynb_checkpoints" in p.parts:
            continue
        rel = p.relative_to(folder)
        learner = rel.parts[0] if len(rel.parts) > 1 else p.stem
        yield learner, rel, json.loads(p.read_text(encoding="utf-8"))["cells"]


def text_of(outputs):
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            parts.append(nbclean.source({"source": o["text"]}))
        elif "text/plain" in o.get("data", {}):
            parts.append(nbclean.source({"source": o["data"]["text/plain"]}))
        elif o.get("output_type") == "error":
            parts.append(f"{o.get('ename')}: {o.get('evalue')}")
    return "\n".join(p.strip() for p in parts if p.strip())


def records(cell):
    """The graded records in a cell's outputs, in order."""
    return [o["data"][MIME] for o in cell.get("outputs", []) if MIME in o.get("data", {})]


def lesson_of(path, cells, lessons):
    """Which lesson a returned notebook is: the one whose checks it calls most, else its name's two digits."""
    called = {r.get("check") for c in cells for r in records(c)}
    called |= {name for c in cells if c["cell_type"] == "code" for name in calls(nbclean.source(c))}
    overlap = {k: len(called & {e.check for e in v}) for k, v in lessons.items()}
    best = max(overlap, key=overlap.get, default=None)
    if best is not None and overlap[best]:
        return best
    return path.name[:2] if path.name[:2] in lessons else None


@dataclass
class Work:
    """What one notebook holds for one exercise: its cells (index, cell) and its records (cell index, record)."""
    cells: list = field(default_factory=list)
    records: list = field(default_factory=list)


def gather(cells, lesson_exercises):
    """{check: Work} for one returned notebook: every cell that calls an exercise's check (tagged or not, copied
    or not) and every record that names it."""
    by_check = {e.check: Work() for e in lesson_exercises}
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        for check in dict.fromkeys(calls(nbclean.source(cell))):
            if check in by_check:
                by_check[check].cells.append((i, cell))
        for record in records(cell):
            if record.get("check") in by_check:
                by_check[record["check"]].records.append((i, record))
    return by_check


def reasoning(cells, i, handed_out):
    """What the learner wrote about the exercise in cell i: the reasoning cells after it (up to the next code cell)
    without the prompt, and comment lines added to the cell itself."""
    written = []
    for cell in cells[i + 1:]:
        if cell["cell_type"] == "code":
            break
        if REASONING_TAG in tags(cell):
            text = nbclean.source(cell).replace(REASONING_PROMPT, "").strip()
            if text:
                written.append(text)
    given = [ln.strip() for ln in handed_out.splitlines()]
    added = [ln.strip() for ln in nbclean.source(cells[i]).splitlines()     # not the handout's own comments
             if ln.strip().startswith("#") and not any(ln.strip() in g for g in given)]
    return "\n".join(written + added).strip()


def _code(line):
    return line.split("  #")[0].strip()


def changed_lines(source, handed_out):
    """The lines of a cell that are not in the handout's cell (where the learner's answer is); a line that still
    holds ... is no answer, whatever its comment says."""
    given = {_code(ln) for ln in handed_out.splitlines()}
    return "\n".join(ln for ln in source.splitlines() if _code(ln) and _code(ln) not in given
                     and not re.fullmatch(r"\w+\s*=\s*\.\.\.", _code(ln)))


def copied_solution(source, exercise):
    """Does the cell hold the lesson's solution (its heading comment, or one of its longer lines)?"""
    if "# সমাধান (solution)" in source:
        return True
    given = {ln.strip() for ln in exercise.source.splitlines()}
    long = [ln.strip() for ln in exercise.solution.splitlines() if len(ln.strip()) > 30 and ln.strip() not in given
            and not ln.strip().startswith("assert")]
    return any(ln in source for ln in long)


# ---------- scoring ----------

def _graded_module():
    sys.path.insert(0, str(ROOT / "src"))         # the checks of this clone, even where mishran is not installed
    from mishran.exercises import graded

    return graded


def _same(got, want):
    if isinstance(got, bool) != isinstance(want, bool):
        return False
    try:
        return bool(got == want)
    except Exception:                              # a tensor against a number: not the handout's question
        return False


def _short(value, limit=300):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shown(encoded, graded):
    """A recorded value as a person reads it: the value itself; a function or an object by what it is."""
    if isinstance(encoded, dict) and "$source" in encoded:
        return f"function {encoded.get('name')} (its code: in the notebook)"
    if isinstance(encoded, dict) and "$tensor" in encoded:
        return f"tensor ({encoded.get('dtype')})"
    try:
        value = graded.decode(encoded)
    except graded.Unscorable:
        return f"object: {encoded.get('$repr', '')[:80]}"
    except Exception as err:                       # a record someone typed by hand
        return f"? {type(err).__name__}"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(map(repr, value))) + "}"
    return repr(value)


def rubric(score, has_reasoning, flags, copied):
    """The 4-point scale of docs/lesson_rubrics.md, as far as a machine can tell: 4 right with reasoning, 3 right
    without, 1-2 wrong (the rubric's partial line decides), 0 blank, 1 a copied solution; "" means by hand."""
    if copied:
        return "1"
    if flags or score == "":
        return ""
    if score == 1:
        return "4" if has_reasoning else "3"
    return "1-2"


class Grader:
    """Rows for the returned notebooks; score=False (the Markdown) does not call the checks."""

    def __init__(self, handouts=None, score=True):
        self.lessons = reference(handouts or ROOT / "notebooks")
        self.partials = rubric_partials()
        self.graded = _graded_module()
        self.scoring = score

    def score(self, record, exercise):
        """(1, 0 or "", what the check said) for a record, on the handout's question."""
        if not self.scoring:
            return "", ""
        try:
            ok, said = self.graded.rescore(record, question=exercise.question)
        except ImportError as err:
            return "", f"mishran-এর check import হলো না ({err}): .venv/bin/python দিয়ে চালান"
        return ("" if ok is None else int(ok)), said

    def question_of(self, record, exercise):
        """(the key of the question this record answers, {argument: the learner's value} where it differs from the
        handout's)."""
        free, changed = {}, {}
        for name, value in record.get("args", {}).items():
            if name in exercise.answers:
                continue
            if name in exercise.question:
                try:
                    got = self.graded.decode(value)
                except Exception:                  # cannot be rebuilt: not the handout's literal either
                    got = value
                if not _same(got, exercise.question[name]):
                    changed[name] = got
            else:
                free[name] = value
        return (json.dumps(free, sort_keys=True, ensure_ascii=False) if free else ""), changed

    def answer_of(self, record, exercise):
        args = record.get("args", {})
        given = [shown(args[k], self.graded) for k in exercise.answers if k in args]
        return _short("; ".join(given) if given else shown(args, self.graded))

    def rows(self, learner, rel, cells):
        """One dict per exercise (per question, where one cell asks several) of one returned notebook."""
        base = {"learner": learner, "notebook": str(rel)}
        lesson = lesson_of(Path(rel), cells, self.lessons)
        if lesson is None:
            return [{**dict.fromkeys(CSV_FIELDS, ""), **base,
                     "how": "unknown lesson: no exercise's check found — grade by hand"}]
        graded_nb = any(GRADED_TAG in tags(c) or "MISHRAN_GRADED" in nbclean.source(c) or records(c) for c in cells)
        rows = []
        for exercise, work in zip(self.lessons[lesson], gather(cells, self.lessons[lesson]).values(), strict=True):
            head = {**base, "exercise": exercise.label, "check": exercise.check,
                    "partial": self.partials.get((exercise.lesson, exercise.number), "")}
            found = self._recorded(exercise, work, cells) if work.records else [
                self._unrecorded(exercise, work, cells, graded_nb)]
            rows += [{**dict.fromkeys(CSV_FIELDS, ""), **head, **row} for row in found]
        return rows

    def _recorded(self, exercise, work, cells):
        """Rows from the records: per question asked, the last record is the answer."""
        groups = {}
        for i, record in work.records:
            key, changed = self.question_of(record, exercise)
            groups.setdefault(key, []).append((i, record, changed))
        return [self._answer_row(exercise, key, group, cells) for key, group in groups.items()]

    def _answer_row(self, exercise, key, group, cells):
        i, last, changed = group[-1]
        score, said = self.score(last, exercise)
        flags = []
        if changed:
            flags.append("question changed: " + ", ".join(f"{k}={v!r} (handout: {exercise.question[k]!r})"
                                                          for k, v in changed.items()))
        from_one_cell = max(sum(1 for j, _, _ in group if j == k) for k, _, _ in group)
        if from_one_cell > 1:
            flags.append(f"loop? {from_one_cell} answers from one cell")
        if len(group) >= MANY_ATTEMPTS:
            flags.append(f"brute force? {len(group)} attempts")
        copied = copied_solution(nbclean.source(cells[i]), exercise)
        how = ("rescored (on the handout's question)" if score != "" else "not rescored: grade by hand"
               if self.scoring else "recorded (scored by --csv)")
        if last.get("invalid"):
            score, how = "", "invalid answer (a typo?): grade by hand"
        earlier = []
        for _, record, _ in group[:-1]:
            mark = "invalid" if record.get("invalid") else self.score(record, exercise)[0]
            earlier.append(f"{self.answer_of(record, exercise)} → {mark}" if self.scoring or mark == "invalid"
                           else self.answer_of(record, exercise))
        written = reasoning(cells, i, exercise.source)
        return {"question": key, "answer": self.answer_of(last, exercise), "score": score, "how": how,
                "flags": "; ".join(flags + (["copied solution?"] if copied else [])), "attempts": len(group),
                "earlier": _short(" | ".join(earlier), 1000), "reasoning": written,
                "rubric": rubric(score, bool(written), flags, copied), "said": _short(said, 300)}

    def _unrecorded(self, exercise, work, cells, graded_nb):
        """The row of an exercise without a record: printed verdict (practice handout), blank, or a record that
        went missing — never a silent blank when the cell holds an answer."""
        if not work.cells:
            return {"how": "no cell: the exercise's cell was deleted — grade by hand", "score": "", "attempts": 0}
        i, cell = work.cells[-1]
        said = text_of(cell.get("outputs", []))
        answer = changed_lines(nbclean.source(cell), exercise.source)
        code = [ln for ln in answer.splitlines() if not ln.strip().startswith("#")]
        row = {"answer": _short(answer), "attempts": len(work.cells), "said": _short(said, 300),
               "reasoning": reasoning(cells, i, exercise.source), "score": ""}
        marks = [PRINTED[m] for ln in said.splitlines() for m in PRINTED if ln.startswith(m)]
        if SUBMITTED in said:
            row["how"] = "submitted, record missing — grade by hand"
        elif marks:
            row.update(score=min(marks), how="printed (not rescored)")
            if graded_nb:
                row["flags"] = "graded mode was off here (its cell removed or changed?)"
        elif code:
            row["how"] = ("answer written, never run — grade by hand" if not said or said.startswith("ফাঁকা:")
                          else "no record — grade by hand")
        else:
            row.update(how="blank", rubric="0")
            return row
        copied = copied_solution(nbclean.source(cell), exercise)
        row["flags"] = "; ".join(filter(None, [row.get("flags", ""), "copied solution?" if copied else ""]))
        row["rubric"] = rubric(row["score"], bool(row["reasoning"]), row["flags"] and not copied, copied)
        return row


def score_rows(folder, handouts=None, score=True):
    """Every row of every returned notebook under folder."""
    grader = Grader(handouts, score)
    return [row for learner, rel, cells in returned(folder) for row in grader.rows(learner, rel, cells)]


def write_csv(folder, target, handouts=None):
    import csv

    rows = score_rows(folder, handouts)
    with open(target, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    return rows


def collect(folder, handouts=None):
    """Markdown, learner by learner: each exercise (numbered as the course numbers them, ০১.৪), the learner's
    cell, what the check showed, the answer recorded, flags and reasoning."""
    grader = Grader(handouts, score=False)
    lines = []
    for learner, rel, cells in returned(folder):
        lines.append(f"## {rel}\n")
        for row in grader.rows(learner, rel, cells):
            lines.append(_markdown(row, cells, grader))
    return "\n".join(lines)


def _markdown(row, cells, grader):
    if "exercise" not in row:
        return f"{row['how']}\n"
    lesson, number = row["exercise"].split(".")
    exercise = grader.lessons[lesson][int(number) - 1]
    work = gather(cells, [exercise])[exercise.check]
    code = nbclean.source(work.cells[-1][1]).strip() if work.cells else ""
    parts = [f"### অনুশীলনী {bn(lesson)}.{bn(number)} (`{exercise.check}`)\n"]
    parts.append(f"```python\n{code}\n```\n" if code else "(ঘরটি নেই — cell deleted)\n")
    said = text_of(work.cells[-1][1].get("outputs", [])) if work.cells else ""
    parts.append(f"```text\n{said}\n```\n" if said else "(চালানো হয়নি — no output)\n")
    facts = [("উত্তর (answer)", row.get("answer")), ("প্রশ্ন (question)", row.get("question")),
             ("অবস্থা (status)", row.get("how")), ("সতর্কতা (flags)", row.get("flags")),
             ("আগের চেষ্টা (earlier)", row.get("earlier")), ("যুক্তি (reasoning)", row.get("reasoning"))]
    parts += [f"- **{name}:** {value}" for name, value in facts if value not in (None, "")]
    return "\n".join(parts) + "\n"
