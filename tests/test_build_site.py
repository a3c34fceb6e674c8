"""The website build: MathJax only for pages with formulas in their prose; the student site (--student) from the
handouts, without solutions."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)


def test_dollar_signs_inside_code_are_not_formulas():
    assert build_site.has_math("ধাপ $k$-এ loss ÷ k")
    assert build_site.has_math("$$\\frac{1}{k}$$")
    assert not build_site.has_math("run `PYTHONPATH=$PWD/src` then read `$RECORD/summary.txt`")
    assert not build_site.has_math("```bash\nexport OUT=$HOME/out\n```\nআর কিছু নয়")
    assert build_site.has_math("`$PWD` আর তারপর $x^2$")


def test_the_contributors_guide_has_no_formulas():
    # contributing.md shows shell variables in code; its page loaded MathJax, which then typeset nothing
    assert not build_site.has_math((ROOT / "docs" / "contributing.md").read_text(encoding="utf-8"))


def test_the_student_site_is_built_from_handouts_without_solutions(tmp_path):
    import json

    lesson = ROOT / "notebooks" / "01_bit_layouts.ipynb"
    [handout] = build_site.student_handouts([lesson], tmp_path / "notebooks")
    cells = json.loads(handout.read_text(encoding="utf-8"))["cells"]
    assert handout.parent == tmp_path / "notebooks" and handout.name == lesson.name
    assert not [c for c in cells if "solution" in c.get("metadata", {}).get("tags", [])]
    assert any("exercise" in c.get("metadata", {}).get("tags", []) for c in cells)
    assert build_site.parse_args(["--student"]).student and build_site.parse_args([]).out is None


def test_a_student_handouts_badge_opens_handouts_not_the_temporary_folder(tmp_path):
    import json

    lesson = ROOT / "notebooks" / "01_bit_layouts.ipynb"
    [handout] = build_site.student_handouts([lesson], tmp_path / "notebooks")
    first = "".join(json.loads(handout.read_text(encoding="utf-8"))["cells"][0]["source"])
    assert "/handouts/01_bit_layouts.ipynb" in first and "/notebooks/01_bit_layouts.ipynb" not in first


def test_the_student_site_has_no_teacher_page_and_no_link_to_one(tmp_path):
    import re

    assert set(build_site.TEACHER_DOCS) <= {p.stem for p in (ROOT / "docs").glob("*.md")}
    exporter = build_site.make_exporter()
    for student in (False, True):
        hidden = build_site.TEACHER_DOCS if student else ()
        docs, titles = build_site.doc_pages(hidden)
        teacher_pages = {p.stem for p in docs} & set(build_site.TEACHER_DOCS)
        assert teacher_pages == (set() if student else set(build_site.TEACHER_DOCS))
        out = tmp_path / str(student)
        out.mkdir()
        build_site.write_front_pages(out, exporter, [], titles, set(), hidden)
        for page in ("index.html", "README.html"):
            text = (out / page).read_text(encoding="utf-8")
            links = re.findall(r'href="[^"]*(?:teachers_guide|lesson_rubrics|class_plans)\.html', text)
            assert bool(links) != student, (page, student, links)
        index = (out / "index.html").read_text(encoding="utf-8")
        assert ("সমাধান নেই" in index) == student and ("ভাঁজ করা" in index) != student


def test_unlink_keeps_the_words_and_drops_only_the_named_pages():
    page = ('<p><a href="../docs/teachers_guide.html#x">নির্দেশিকা</a> আর '
            '<a href="glossary.html">পরিভাষা</a> <a href="class_plans.html">ক্লাস</a></p>')
    got = build_site.unlink(page, build_site.TEACHER_DOCS)
    assert got == '<p>নির্দেশিকা আর <a href="glossary.html">পরিভাষা</a> ক্লাস</p>'
    assert build_site.unlink(page, ()) == page
