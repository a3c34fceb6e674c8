"""পাঠ ০৮-এর সংকলনের উৎস পড়ার অংশ: git থেকে ফাইল, আর প্রতিটি উৎসের নিজের ফরম্যাট থেকে খণ্ড (শিরোনাম, লেখা)।

tools/build_bn_literature.py এগুলো ডাকে; এখানে কোনো নিয়ম (কোন বই রাখা হবে) নেই, কেবল পড়া আর markup সরানো।
প্রতিটি parser একটি collections.Counter-এ লেখে কী কতবার সরাল, provenance-এ তা থাকে।
"""
from __future__ import annotations

import collections
import re
import subprocess
from pathlib import Path

Counter = collections.Counter

# ---------------------------------------------------------------- git

def git_dir(sources: Path, repo: str) -> Path:
    """<sources>/<owner>+<name>: bare git dir, বা clone (ভেতরে .git), বা ভেতরে repo/ নামের git dir।"""
    base = sources / repo.replace("/", "+")
    for candidate in (base / ".git", base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    raise FileNotFoundError(f"{base}: no git directory for {repo} (clone it as shown in the tool's docstring)")


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def git_files(repo: Path, commit: str, folder: str) -> list[str]:
    """commit-এ folder-এর নিচের সব ফাইলের পথ, বাইট ধরে সাজানো (যাতে ক্রম সব যন্ত্রে এক)।"""
    out = subprocess.run(["git", "--git-dir", str(repo), "ls-tree", "-r", "-z", "--name-only", commit, "--", folder],
                         check=True, capture_output=True).stdout
    return sorted(p.decode("utf-8") for p in out.split(b"\0") if p)


# ---------------------------------------------------------------- লাইন পরিষ্কার

_LATIN = re.compile(r"[A-Za-z]")
_BENGALI_LETTER = re.compile(r"[\u0985-\u09b9\u09dc-\u09df]")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f\u3000]+")
_REVERSED_O = "\u09be\u09c7"          # া + ে, উল্টো ক্রমে টাইপ করা ো (U+09CB)


def latin_line(line: str) -> bool:
    """Latin হরফ বাংলার সমান বা বেশি: ইংরেজি টীকা, লাইসেন্স, navigation — বাংলা লেখা নয়।"""
    latin = len(_LATIN.findall(line))
    return latin > 0 and latin >= len(_BENGALI_LETTER.findall(line))


def fix_reversed_o(text: str, counts: Counter) -> str:
    """া + ে (উল্টো ক্রম) → ো: দেখতে এক, কিন্তু code point আলাদা হলে মডেল দুটোকে আলাদা অক্ষর শেখে।"""
    n = text.count(_REVERSED_O)
    if n:
        counts["reversed vowel signs U+09BE U+09C7 turned into U+09CB"] += n
    return text.replace(_REVERSED_O, "\u09cb")


def clean_lines(lines, counts: Counter, drop=None) -> str:
    """লাইনগুলো থেকে লেখা: ফাঁকা জায়গা এক space, Latin-প্রধান লাইন আর drop(line) যা বলে তা বাদ, ফাঁকা লাইন এক।"""
    kept = []
    for raw in lines:
        if "\u2191" in raw:
            counts["footnote arrows (↑, a link back to the note) removed"] += raw.count("\u2191")
            raw = raw.replace("\u2191", " ")
        line = _SPACES.sub(" ", raw).strip()
        if line != raw.strip():
            counts["lines with spaces squeezed (no-break spaces, tabs, runs)"] += 1
        if line and latin_line(line):
            counts["Latin-letter lines removed (English notes, not Bengali text)"] += 1
            continue
        reason = drop(line) if drop and line else None
        if reason:
            counts[reason] += 1
            continue
        kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")


def piece(title: str, body: str) -> tuple[str, str]:
    """(শিরোনাম, লেখা): লেখার প্রথম লাইন শিরোনাম, যদি না লেখা নিজেই তা দিয়ে শুরু হয়।"""
    title = title.strip()
    first = body.split("\n", 1)[0]
    return title, body if not title or first.startswith(title) else f"{title}\n{body}"


# ---------------------------------------------------------------- majantali/majantali.github.io (Markdown)

_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_FENCE = re.compile(r"^\s*`{3,}\s*$")
_RULE_LINE = re.compile(r"^\s*(\* ?){3,}\s*$")
_HEADING = re.compile(r"^(#+)\s*(.*?)\s*#*\s*$")


def front_matter(md: str) -> dict:
    m = _FRONT.match(md)
    out = {}
    if m:
        for line in m.group(1).splitlines():
            if ":" in line:
                key, value = line.split(":", 1)
                out[key.strip()] = value.strip().strip("'\"")
    return out


def _strip_whole_file(md: str, counts: Counter) -> str:
    """ফাইল-জোড়া markup সরায়: front matter, HTML comment আর tag, byte order mark।"""
    m = _FRONT.match(md)
    if m:
        md = md[m.end():]
        counts["front matter blocks removed"] += 1
    counts["HTML comments removed"] += len(_COMMENT.findall(md))
    md = _COMMENT.sub("", md)
    counts["HTML tags removed"] += len(_TAG.findall(md))
    md = _TAG.sub("", md)
    counts["byte order marks (U+FEFF) removed"] += md.count("\ufeff")
    return md.replace("\ufeff", "")


def _kept_line(raw: str, counts: Counter) -> str | None:
    """একটি লাইন markup-এর লাইন (code fence, '* * *') হলে None; নইলে শেষের hard line-break '\\' ছাড়া লাইনটি।"""
    if _FENCE.match(raw):
        counts["code fence lines removed"] += 1
        return None
    if _RULE_LINE.match(raw):
        counts["'* * * *' separator lines removed"] += 1
        return None
    if raw.rstrip().endswith("\\"):
        counts["hard line-break backslashes removed"] += 1
        return raw.rstrip()[:-1]
    return raw


def _prose_line(line: str, counts: Counter) -> str:
    """'---' থেকে em dash, আর ফাঁকা জায়গা এক space-এ।"""
    if "---" in line:
        counts["'---' turned into an em dash"] += line.count("---")
        line = line.replace("---", "\u2014")
    squeezed = re.sub(r"[ \t\u00a0]+", " ", line).strip()
    if squeezed != line:
        counts["lines with spaces squeezed or trimmed"] += 1
    return squeezed


def majantali_pieces(md: str, counts: Counter) -> list[tuple[str, str]]:
    """bnarchive-এর Markdown → [(শিরোনাম, লেখা)], প্রথম স্তরের শিরোনাম (# ...) ধরে খণ্ড; লেখার প্রথম লাইন শিরোনাম।"""
    pieces, title, lines = [], None, []

    def flush():
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        if body or title:
            pieces.append((title or "", f"{title}\n{body}" if title else body))

    for raw in fix_reversed_o(_strip_whole_file(md, counts), counts).splitlines():
        line = _kept_line(raw, counts)
        if line is None:
            continue
        h = _HEADING.match(line)
        if h:
            counts[f"level-{len(h.group(1))} heading markers removed"] += 1
            if len(h.group(1)) == 1:
                flush()
                title, lines = h.group(2), []
                continue
            line = h.group(2)
        line = _prose_line(line, counts)
        if line.startswith(">"):
            counts["blockquote markers ('>') removed"] += 1
            line = line[1:].lstrip()
        if line and latin_line(line):
            counts["Latin-letter lines removed (English notes, not Bengali text)"] += 1
            continue
        lines.append(line)
    flush()
    return pieces


# ---------------------------------------------------------------- deep5050/RabiGuru: গোরা.md

def gora_pieces(md: str, counts: Counter) -> list[tuple[str, str]]:
    """'## N' লাইনে অধ্যায় (N পাতা ধরে আবার ১ থেকে গোনে); অধ্যায়ের প্রথম লাইন তার আসল ক্রম (১ … ৭৬, পরিশিষ্ট)।"""
    counts["HTML tags removed"] += len(_TAG.findall(md))
    md = _TAG.sub("", md)
    chapters = re.split(r"^## .*$", md, flags=re.M)
    counts["'## N' chapter lines removed"] += len(chapters) - 1
    if chapters[0].strip() != "গোরা":
        raise ValueError("গোরা.md: unexpected text before the first chapter")
    pieces = []
    for chapter in chapters[1:]:
        body = clean_lines(chapter.splitlines(), counts)
        title, _, rest = body.partition("\n")
        pieces.append(piece(title, rest.strip("\n")))
    return pieces


# ---------------------------------------------------------------- 7shi/bou-thakuranir_haat: all/bn.md

def bou_pieces(md: str, counts: Counter) -> list[tuple[str, str]]:
    """'# বই' লাইন বাদ, '## … পরিচ্ছেদ।' লাইনে অধ্যায়।"""
    md = fix_reversed_o(md, counts)
    parts = re.split(r"^## (.*)$", md, flags=re.M)
    if parts[0].strip().lstrip("# ").strip() != "বৌ-ঠাকুরাণীর হাট":
        raise ValueError("all/bn.md: unexpected text before the first chapter")
    counts["'#' title line removed"] += 1
    counts["'##' chapter heading markers removed"] += (len(parts) - 1) // 2
    return [piece(parts[i].strip(), clean_lines(parts[i + 1].splitlines(), counts))
            for i in range(1, len(parts), 2)]


# ---------------------------------------------------------------- gsurma/text_predictor: data/tagore/input.txt

def story_pieces(text: str, counts: Counter) -> list[tuple[str, str]]:
    """'####শিরোনাম' লাইনে গল্প; শিরোনাম লেখার প্রথম লাইন।"""
    parts = re.split(r"^####(.*)$", text, flags=re.M)
    if parts[0].strip():
        raise ValueError("input.txt: text before the first '####' title")
    counts["'####' title markers removed"] += (len(parts) - 1) // 2
    return [piece(parts[i].strip(), clean_lines(parts[i + 1].splitlines(), counts))
            for i in range(1, len(parts), 2)]


# ---------------------------------------------------------------- ronik18/earnalism-digital-library: raw/source.txt

_CHAPTER = re.compile(r"^Chapter \d+\. (.*)$", re.M)
_PAGE_REF = re.compile(r"^[০-৯]{4} \(পৃ\. [০-৯\-–]*\)$")
_NUMBER_MARK = re.compile(r"^॥\s*\S+\s*॥$")


def earnalism_pieces(text: str, counts: Counter, running_header: str = "") -> list[tuple[str, str]]:
    """'Chapter N. শিরোনাম' লাইনে অধ্যায়; পাতার উল্লেখ ('১৯৬৩ (পৃ. ৪১-৪৩)'), '॥এক॥' আর running header বাদ।"""
    def drop(line):
        if _PAGE_REF.match(line):
            return "page-reference lines removed ('1963 (p. 41-43)')"
        if _NUMBER_MARK.match(line):
            return "chapter-number lines removed ('॥এক॥', the chapter title says it)"
        if running_header and line == running_header:
            return "running-header lines removed (the collection's name above each chapter)"
        return None

    parts = _CHAPTER.split(text)
    if parts[0].strip():
        raise ValueError("source.txt: text before the first 'Chapter' line")
    counts["'Chapter N.' markers removed"] += (len(parts) - 1) // 2
    return [piece(parts[i].strip(), clean_lines(parts[i + 1].splitlines(), counts, drop))
            for i in range(1, len(parts), 2)]


# ---------------------------------------------------------------- shuhanmirza/Bengali-Poem-Dataset

_END_TAG = re.compile(r"\(([^()\n]*)\)\s*\Z")
_SITE_NOTE = re.compile(r"(কাব্য ?গ্রন্থঃ ?-?.*|সংকলিত)\s*\Z")
_RULE_RUN = re.compile(r"\s*(={3,}|\*([ \u00a0]*\*){2,})\s*")
_SPACE_BEFORE_MARK = re.compile(r" +([,;:!?।])")


def poem_end_tag(text: str) -> str | None:
    """কবিতার শেষে বন্ধনীতে বইয়ের নাম, যেমন '(কণিকা কাব্যগ্রন্থ)'; না থাকলে None।"""
    m = _END_TAG.search(text)
    return m.group(1).strip() if m else None


def poem_piece(title: str, text: str, counts: Counter) -> tuple[str, str]:
    """একটি কবিতা: শেষের বইয়ের নাম, ওয়েবসাইটের টীকা ('কাব্য গ্রন্থঃ-…'), '====' বাদ; যতিচিহ্নের আগের space বাদ।"""
    tag = _END_TAG.search(text)
    if tag:
        text = text[:tag.start()]
        counts["book end tags removed ('(… কাব্যগ্রন্থ)')"] += 1
    note = _SITE_NOTE.search(text)
    if note:
        text = text[:note.start()]
        counts["website notes removed ('কাব্য গ্রন্থঃ-…', 'সংকলিত')"] += 1
    counts["'====' and '* * *' rules removed"] += len(_RULE_RUN.findall(text))
    text = _RULE_RUN.sub("\n", text)
    counts["'|' typed for the danda turned into '।'"] += text.count("|")
    text = text.replace("|", "\u0964")
    before = len(text)
    text = _SPACE_BEFORE_MARK.sub(r"\1", text)
    counts["spaces before punctuation removed"] += before - len(text)
    return piece(title, clean_lines(text.splitlines(), counts))


def poem_folders(repo: Path, commit: str, poet: str) -> dict[str, str]:
    """dataset/<কবি>/<কবিতা>/<কবিতা>.txt → {কবিতার নাম: পথ} (CLASS.txt, SOURCE.txt বাদ)।"""
    out = {}
    for path in git_files(repo, commit, f"dataset/{poet}/"):
        parts = path.split("/")
        if len(parts) == 4 and parts[3] == parts[2] + ".txt":
            out[parts[2]] = path
    return out

