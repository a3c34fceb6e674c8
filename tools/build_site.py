#!/usr/bin/env python3
"""মিশ্রণের ওয়েবসাইট বানায় (`make site`): প্রতিটি পাঠ CPU-তে একবার চালিয়ে nbconvert দিয়ে স্থির HTML,
ফল, চিত্র আর widget-এর শেষ অবস্থাসহ; docs/ আর README-ও একই template-এ; বাংলায় একটি index পাতা।

The course website: every notebook executed once (nbclient, widget state stored) and rendered with nbconvert's
lab template plus a small template of ours (site/templates/mishran); the docs and the README rendered the same
way; an index page in Bengali with the lesson map. Nothing comes from a CDN: the widget manager
(@jupyter-widgets/html-manager) and MathJax 3, each fetched once from the npm registry with `npm pack` and
cached in build/site-vendor/, and the Hind Siliguri font (fontpkg-hind-siliguri) are copied into _static/.

    python tools/build_site.py [--out out/site] [--no-cache] [--jobs N] [--timeout S] [NOTEBOOK ...]
    python tools/build_site.py --student [--out out/site-student]   # handouts, no solutions: make site STUDENT=1

Executed notebooks are cached in build/site-cache/, keyed by the notebook, mishran's sources and data/, so a
second build after a docs change does not run the lessons again. A cell that raises fails the build.
"""
from __future__ import annotations

import argparse
import hashlib
import html
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEMPLATES = REPO / "site" / "templates"
# From the npm registry (tarballs only, no dependencies): the widget manager that renders saved widget state
# (for ipywidgets 8, widget state version 2) and MathJax 3.
NPM_PACKAGES = {"@jupyter-widgets/html-manager": "1.0.15", "mathjax": "3.2.2"}
BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")
COLAB_BADGE = re.compile(r'<img[^>]*src="https://colab\.research\.google\.com/assets/colab-badge\.svg"[^>]*>')
DOC_ORDER = ["teachers_guide", "glossary", "troubleshooting", "colab", "benchmarks"]
# Pages for the teacher only (how grading works, the rubrics, the class plans): the student site (--student) leaves
# them out, and a link to one from another page becomes plain text there.
TEACHER_DOCS = ("teachers_guide", "lesson_rubrics", "class_plans")
SOLUTIONS_NOTE = {False: "অনুশীলনীর সমাধান ভাঁজ করা আছে — নিজে চেষ্টা করার পরে খোলো।",
                  True: "এই সাইটে অনুশীলনীর সমাধান নেই: আগে নিজে চেষ্টা করো, তারপর শিক্ষকের সঙ্গে মেলাও।"}


# ---------- assets shipped with the site ----------

def npm_package(name: str, version: str, cache: Path) -> Path:
    """npm registry-র একটি প্যাকেজ (কেবল তার tarball, `npm pack`), build/site-vendor/-এ একবার নামিয়ে রাখা।"""
    dest = cache / f"{name.replace('/', '+')}-{version}"
    if (dest / "package.json").is_file():
        return dest
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(f"build_site: npm পাওয়া যায়নি (npm not found); {name} লাগে। Debian/Ubuntu-তে "
                 "`apt-get install npm`, তারপর আবার `make site`।")
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([npm, "pack", "--silent", "--pack-destination", tmp, f"{name}@{version}"], check=True,
                       stdout=subprocess.DEVNULL)
        tgz = next(Path(tmp).glob("*.tgz"))
        with tarfile.open(tgz) as tar:
            tar.extractall(tmp, filter="data")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.move(str(Path(tmp) / "package"), dest)
    return dest


def vendor(cache: Path) -> dict[str, Path]:
    return {name: npm_package(name, version, cache) for name, version in NPM_PACKAGES.items()}


def copy_static(out: Path, cache: Path) -> None:
    static = out / "_static"
    packages = vendor(cache)
    # only what the pages load: embed.js (no require.js) with its icon fonts; MathJax's tex-chtml-full.js with
    # the components it may load later (fonts, menu, accessibility), not the other combined builds
    shutil.copytree(packages["@jupyter-widgets/html-manager"] / "dist", static / "html-manager",
                    ignore=shutil.ignore_patterns("*.map", "*amd.js"))
    other_builds = [p.name for p in (packages["mathjax"] / "es5").glob("*.js") if p.name != "tex-chtml-full.js"]
    shutil.copytree(packages["mathjax"] / "es5", static / "mathjax", ignore=shutil.ignore_patterns(*other_builds))
    import fontpkg_hind_siliguri
    fonts = static / "fonts"
    fonts.mkdir(parents=True)
    for ttf in sorted((fontpkg_hind_siliguri.ROOT / "files").glob("*.ttf")):
        shutil.copy2(ttf, fonts / ttf.name)
    shutil.copy2(fontpkg_hind_siliguri.ROOT / "LICENSE", fonts / "OFL.txt")
    shutil.copy2(REPO / "site" / "mishran.css", static / "mishran.css")


# ---------- executing the lessons ----------

def source_key(nb_path: Path) -> str:
    """নোটবুক, mishran-এর কোড আর data/ — যেকোনো একটা বদলালে নতুন করে চালাতে হয়।"""
    h = hashlib.sha256(nb_path.read_bytes())
    for folder in (REPO / "src" / "mishran", REPO / "data"):
        for p in sorted(folder.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(REPO)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()[:16]


class LessonFailed(RuntimeError):
    """একটি পাঠ চালাতে গিয়ে কোনো ঘর ব্যর্থ হলো।"""


def same_cells(a, b) -> bool:
    return [(c.cell_type, c.source) for c in a.cells] == [(c.cell_type, c.source) for c in b.cells]


def execute(nb_path: Path, workdir: Path, cache: Path | None, timeout: int,
            executed: Path | None = None) -> tuple[object, float, bool]:
    """নোটবুক চালায় (widget-এর অবস্থা রেখে); ফেরত: (nb, সেকেন্ড, আগে চালানো কপি থেকে কি না)।

    executed: browser test-এ JupyterLab যে কপি চালিয়ে save করেছে তার ফোল্ডার; কোষগুলো হুবহু এক হলে সেটাই নেয়।"""
    import nbformat
    from nbclient import NotebookClient

    if executed and (executed / nb_path.name).is_file():
        done = nbformat.read(executed / nb_path.name, as_version=4)
        if same_cells(done, nbformat.read(nb_path, as_version=4)):
            print(f"  browser   {nb_path.name} (run in JupyterLab by the browser test)", flush=True)
            return done, 0.0, True
        print(f"  {nb_path.name}: the browser's copy is out of date; running it", flush=True)
    cached = cache / f"{nb_path.stem}-{source_key(nb_path)}.ipynb" if cache else None
    if cached and cached.is_file():
        print(f"  cached    {nb_path.name}", flush=True)
        return nbformat.read(cached, as_version=4), 0.0, True
    nb = nbformat.read(nb_path, as_version=4)
    start = time.perf_counter()
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                       resources={"metadata": {"path": str(workdir)}}).execute()
    except Exception as err:                        # CellExecutionError, timeout, dead kernel
        raise LessonFailed(f"{nb_path.name}: {type(err).__name__}: {str(err)[-1500:]}") from None
    seconds = time.perf_counter() - start
    print(f"  {seconds:6.1f} s  {nb_path.name}", flush=True)
    if cached:
        cached.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, cached)
    return nb, seconds, False


# ---------- links, anchors, navigation ----------

def github_slug(text: str) -> str:
    """GitHub-এর heading anchor: ছোট হাতের অক্ষর, অক্ষর/অঙ্ক/চিহ্ন (mark)/-/_ ছাড়া সব বাদ, ফাঁকা → -।"""
    keep = []
    for ch in text.strip().lower():
        cat = unicodedata.category(ch)
        if ch in "-_" or cat[0] in "LMN" or cat == "Pc":
            keep.append(ch)
        elif ch == " ":
            keep.append("-")
    return "".join(keep)


HEADING = re.compile(r'<h([1-6]) id="([^"]*)">(.*?)</h\1>', re.S)


def add_github_anchors(page: str) -> str:
    """প্রতিটি heading-এ GitHub-এর মতো id-ও যোগ করে, যাতে README/docs-এর `#...` link site-এও কাজ করে।"""
    def fix(m):
        level, hid, inner = m.groups()
        text = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<a class="anchor-link".*?</a>', "", inner)))
        slug = github_slug(text)
        extra = f'<span id="{html.escape(slug)}"></span>' if slug and slug != hid else ""
        return f'<h{level} id="{hid}">{extra}{inner}</h{level}>'
    return HEADING.sub(fix, page)


def rewrite_links(page: str, src_dir: str, copy_files: set[str]) -> str:
    """repo-র ভেতরের link: .ipynb/.md → .html; অন্য ফাইল (যেমন LICENSE) site-এ কপি হয়।"""
    def fix(m):
        attr, url = m.group(1), html.unescape(m.group(2))
        if re.match(r"^[a-z][a-z0-9+.-]*:", url, re.I) or url.startswith(("#", "/")):
            return m.group(0)
        path, sep, frag = url.partition("#")
        if not path:
            return m.group(0)
        target = posixpath.normpath(posixpath.join(src_dir, path))
        if target.endswith((".ipynb", ".md")):
            path = posixpath.splitext(path)[0] + ".html"
        elif (REPO / target).is_file():
            copy_files.add(target)
        return f'{attr}="{html.escape(path + sep + frag, quote=True)}"'
    return re.sub(r'(href)="([^"]*)"', fix, page)


def first_heading(text: str) -> str:
    m = re.search(r"^#\s+(.+)$", text, re.M)
    return m.group(1).strip() if m else ""


def lesson_info(nb) -> dict:
    head = nb.cells[0].source if nb.cells else ""
    info = {"title": first_heading(head)}
    m = re.search(r"^\*([^*\n]+)\*\s*$", head, re.M)
    info["subtitle"] = m.group(1).strip() if m else ""
    for key, label in (("level", "স্তর"), ("time", "সময়")):
        m = re.search(rf"\*\*{label}:\*\*\s*(.+?)।?\s*(?:·|\*\*|$)", head, re.M)
        info[key] = m.group(1).strip() if m else ""
    return info


def nav_html(root: str, prev: tuple | None, nxt: tuple | None, docs: list[tuple]) -> str:
    """পথ-নির্দেশ: সব পাঠ, আগের/পরের পাঠ, আর সহায়ক পাতাগুলো। সরু পর্দায় (ফোন) সহায়ক পাতাগুলো একটি "মেনু" বোতামের
    পেছনে ভাঁজ করা থাকে (site/mishran.css; JavaScript ছাড়া, checkbox আর :has দিয়ে), যাতে প্রথম পর্দায় পাঠটাই দেখা যায়।"""
    parts = [f'<a class="mishran-home" href="{root}index.html">মিশ্রণ — সব পাঠ</a>']
    if prev:
        parts.append(f'<a href="{root}{prev[0]}">← {html.escape(prev[1])}</a>')
    if nxt:
        parts.append(f'<a href="{root}{nxt[0]}">{html.escape(nxt[1])} →</a>')
    parts.append('<span class="mishran-spacer"></span>')
    parts.append('<label class="mishran-menu-button"><input type="checkbox" aria-label="সহায়ক পাতার মেনু (menu)">'
                 '☰ মেনু</label>')
    links = "".join(f'<a href="{root}{href}">{html.escape(title)}</a>' for href, title in docs)
    parts.append(f'<span class="mishran-menu">{links}</span>')
    return "\n".join(parts)


# ---------- rendering ----------

def make_exporter():
    from nbconvert import HTMLExporter
    exporter = HTMLExporter(template_name="mishran", extra_template_basedirs=[str(TEMPLATES)])
    exporter.language_code = "bn"
    return exporter


CODE_IN_MARKDOWN = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def has_math(markdown: str) -> bool:
    """$…$ in the prose, not inside code (a shell's `$OUT` in a code span is not a formula for MathJax)."""
    return "$" in CODE_IN_MARKDOWN.sub("", markdown)


def render(exporter, nb, root: str, nav: str, title: str) -> str:
    math = any(c.cell_type == "markdown" and has_math(c.source) for c in nb.cells)
    exporter.widget_renderer_url = f"{root}_static/html-manager/embed.js"
    nb.metadata["title"] = title
    footer = (f'কোড MIT (<a href="{root}LICENSE">LICENSE</a>), পাঠের লেখা আর docs CC BY-SA 4.0 '
              f'(<a href="{root}LICENSE-CONTENT">LICENSE-CONTENT</a>)। ফন্ট Hind Siliguri, SIL Open Font License '
              f'(<a href="{root}_static/fonts/OFL.txt">OFL.txt</a>)।')
    body, _ = exporter.from_notebook_node(nb, resources={"mishran": {"root": root, "nav": nav, "math": math,
                                                                    "footer": footer}})
    return body


def markdown_notebook(text: str):
    import nbformat.v4 as v4
    nb = v4.new_notebook(cells=[v4.new_markdown_cell(text)])
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def prepare_lesson(nb) -> None:
    """সমাধানের ঘর <details>-এর ভেতরে কোডসহ দেখায়, তাই source_hidden তুলে দেওয়া হয়।"""
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            cell.metadata.get("jupyter", {}).pop("source_hidden", None)


def unlink(page: str, stems) -> str:
    """<a href="…/STEM.html…">লেখা</a> → শুধু লেখা, stems-এর প্রতিটি পাতার জন্য (ছাত্রদের সাইটে শিক্ষকের পাতা)।"""
    if not stems:
        return page
    names = "|".join(map(re.escape, stems))
    return re.sub(rf'<a\b[^>]*\bhref="(?:[^"/]*/)*(?:{names})\.html(?:#[^"]*)?"[^>]*>(.*?)</a>', r"\1", page,
                  flags=re.S)


def finish(page: str, src_dir: str, copy_files: set[str], name: str, hidden=()) -> str:
    page = COLAB_BADGE.sub('<span class="mishran-colab">Colab-এ খোলো (Open in Colab)</span>', page)
    page = add_github_anchors(unlink(rewrite_links(page, src_dir, copy_files), hidden))
    external = re.findall(r'<(?:img|script|link|iframe)\b[^>]*\b(?:src|href)="(https?:[^"]+)"', page)
    if external:
        sys.exit(f"build_site: {name} loads from outside the site (no CDN allowed): {sorted(set(external))}")
    return page


def lesson_map(lessons: list[tuple[Path, dict]]) -> str:
    rows = ["| পাঠ | শিরোনাম | স্তর | সময় |", "|---|---|---|---|"]
    for path, info in lessons:
        number = path.name[:2].translate(BN_DIGITS)
        sub = f" — *{info['subtitle']}*" if info["subtitle"] else ""
        rows.append(f"| {number} | [{info['title']}](notebooks/{path.name}){sub} | {info['level']} | {info['time']} |")
    return "\n".join(rows)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="*", type=Path, help="default: notebooks/*.ipynb")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--no-cache", action="store_true", help="run every lesson again")
    ap.add_argument("--jobs", type=int, default=1, help="lessons executed at once (default 1: 2 cores)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    ap.add_argument("--student", action="store_true", help="a site for learners, built from the handouts "
                    "(tools/student.py): no solution cells; default --out out/site-student")
    ap.add_argument("--executed", type=Path, help="lessons already run and saved by the browser test "
                    "(out/browser/executed): used where their cells equal the repository's, so nothing runs twice")
    return ap.parse_args(argv)


def execute_all(notebooks: list[Path], cache: Path | None, timeout: int, executed: Path | None,
                jobs: int, lessons_dir: Path = REPO / "notebooks") -> list | None:
    """সব পাঠ চালায়; ফেরত প্রতিটির (nb, সেকেন্ড, আগে চালানো কি না), আর কোনো পাঠ ব্যর্থ হলে None (কারণ ছাপা হয়)।"""
    # নোটবুকগুলো একটি অস্থায়ী কপিতে চলে (তারা যা লেখে তা repo-তে পড়ে না); পাঠ ০০ notebooks/ ফোল্ডার দেখে
    work = Path(tempfile.mkdtemp(prefix="mishran-site-"))
    shutil.copytree(lessons_dir, work / "notebooks")
    shutil.copytree(REPO / "docs", work / "docs")
    print(f"executing {len(notebooks)} notebooks (cache: {cache or 'off'})", flush=True)

    def run(path):
        try:
            return execute(work / "notebooks" / path.name, work / "notebooks", cache, timeout, executed)
        except LessonFailed as err:
            return err

    try:
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            results = list(pool.map(run, notebooks))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = [r for r in results if isinstance(r, LessonFailed)]
    for err in failed:
        print(f"\nFAILED {err}", file=sys.stderr)
    if failed:
        print(f"build_site: {len(failed)} of {len(notebooks)} lessons failed; no site written", file=sys.stderr)
        return None
    return results


def doc_pages(hidden=()) -> tuple[list[Path], list[tuple[str, str]]]:
    """docs/*.md, DOC_ORDER আগে, বাকিগুলো নামের ক্রমে, hidden-এর পাতা বাদে; আর প্রতিটির (site-এ ঠিকানা, শিরোনাম)।"""
    docs = [REPO / "docs" / f"{name}.md" for name in DOC_ORDER if (REPO / "docs" / f"{name}.md").is_file()]
    docs += sorted(p for p in (REPO / "docs").glob("*.md") if p not in docs)
    docs = [p for p in docs if p.stem not in hidden]
    return docs, [(f"docs/{p.stem}.html", first_heading(p.read_text(encoding="utf-8")) or p.stem) for p in docs]


def write_lessons(out: Path, exporter, lessons, results, doc_titles, copy_files: set[str], hidden=()) -> None:
    pages = [(f"notebooks/{p.stem}.html", f"পাঠ {p.name[:2].translate(BN_DIGITS)}") for p, _ in lessons]
    for i, ((path, info), (nb, _, _)) in enumerate(zip(lessons, results, strict=True)):
        prepare_lesson(nb)
        nav = nav_html("../", pages[i - 1] if i else None, pages[i + 1] if i + 1 < len(pages) else None, doc_titles)
        page = render(exporter, nb, "../", nav, f"{info['title']} — মিশ্রণ")
        (out / "notebooks").mkdir(exist_ok=True)
        (out / "notebooks" / f"{path.stem}.html").write_text(
            finish(page, "notebooks", copy_files, path.name, hidden), encoding="utf-8")


def write_docs(out: Path, exporter, docs, doc_titles, copy_files: set[str], hidden=()) -> None:
    for doc, (href, title) in zip(docs, doc_titles, strict=True):
        nav = nav_html("../", None, None, doc_titles)
        page = render(exporter, markdown_notebook(doc.read_text(encoding="utf-8")), "../", nav, f"{title} — মিশ্রণ")
        (out / "docs").mkdir(exist_ok=True)
        (out / href).write_text(finish(page, "docs", copy_files, doc.name, hidden), encoding="utf-8")


def write_front_pages(out: Path, exporter, lessons, doc_titles, copy_files: set[str], hidden=()) -> None:
    """README.html আর index.html (site/index.md-এ পাঠের সারণি আর docs-এর তালিকা বসিয়ে)।"""
    readme = REPO / "README.md"
    page = render(exporter, markdown_notebook(readme.read_text(encoding="utf-8")), "", nav_html("", None, None,
                  doc_titles), "README — মিশ্রণ")
    (out / "README.html").write_text(finish(page, "", copy_files, "README.md", hidden), encoding="utf-8")
    index = (REPO / "site" / "index.md").read_text(encoding="utf-8")
    index = index.replace("{{SOLUTIONS_NOTE}}", SOLUTIONS_NOTE[bool(hidden)])
    index = index.replace("{{LESSON_MAP}}", lesson_map(lessons)).replace(
        "{{DOCS_LIST}}", "\n".join(f"- [{t}](docs/{Path(h).stem}.md)" for h, t in doc_titles))
    page = render(exporter, markdown_notebook(index), "", nav_html("", None, None, doc_titles), "মিশ্রণ")
    (out / "index.html").write_text(finish(page, "", copy_files, "index.md", hidden), encoding="utf-8")


def write_site(out: Path, notebooks: list[Path], results: list, vendor_cache: Path, student: bool = False) -> None:
    """out/-কে নতুন করে লেখে: _static, প্রতিটি পাঠ, docs, README, index, আর link করা repo-র ফাইল; student হলে
    শিক্ষকের পাতা (TEACHER_DOCS) বাদ, আর তাদের link শুধু লেখা।"""
    hidden = TEACHER_DOCS if student else ()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    copy_static(out, vendor_cache)
    docs, doc_titles = doc_pages(hidden)
    lessons = [(path, lesson_info(nb)) for path, (nb, _, _) in zip(notebooks, results, strict=True)]
    exporter = make_exporter()
    copy_files: set[str] = set()
    write_lessons(out, exporter, lessons, results, doc_titles, copy_files, hidden)
    write_docs(out, exporter, docs, doc_titles, copy_files, hidden)
    write_front_pages(out, exporter, lessons, doc_titles, copy_files, hidden)
    for rel in sorted(copy_files):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, out / rel)


def student_handouts(notebooks: list[Path], folder: Path) -> list[Path]:
    """শিক্ষার্থীদের সাইটের জন্য প্রতিটি পাঠের হ্যান্ডআউট (tools/student.py, সমাধান ছাড়া) folder-এ; ফেরত তাদের path।
    folder অস্থায়ী (পাঠ ০০ পাশে notebooks/ খোঁজে বলে তার নাম notebooks); badge খোলে repo-র handouts/, যেখানে
    `make student` লেখে আর শিক্ষক commit করেন।"""
    sys.path.insert(0, str(REPO / "tools"))
    import student

    return student.write_copies(notebooks, folder, folder=student.DEFAULT_OUT.as_posix())


def main(argv=None) -> int:
    args = parse_args(argv)
    os.environ.pop("MPLBACKEND", None)        # kernel-এ inline চিত্র চাই; CI-র MPLBACKEND=Agg চিত্র লুকাত
    notebooks = sorted(args.notebooks or (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    out = (args.out or REPO / "out" / ("site-student" if args.student else "site")).resolve()
    lessons_dir = REPO / "notebooks"
    if args.student:                  # the handouts stand in for the lessons, everywhere a lesson is read
        lessons_dir = Path(tempfile.mkdtemp(prefix="mishran-handouts-")) / "notebooks"
        notebooks = student_handouts(notebooks, lessons_dir)
    build = REPO / "build"
    t_all = time.perf_counter()
    vendor(build / "site-vendor")                  # npm first: fail early when it cannot be had
    cache = None if args.no_cache else build / "site-cache"
    results = execute_all(notebooks, cache, args.timeout, None if args.student else args.executed, args.jobs,
                          lessons_dir)
    if results is None:
        return 1
    write_site(out, notebooks, results, build / "site-vendor", student=args.student)
    if args.student:
        shutil.rmtree(lessons_dir.parent, ignore_errors=True)
    n_pages = len(list(out.rglob("*.html")))
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 2**20
    executed = sum(s for _, s, _ in results)
    print(f"site: {n_pages} pages, {size:.1f} MiB in {out} — lessons executed in {executed:.0f} s, "
          f"{time.perf_counter() - t_all:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
