"""পাঠ ০৮-এর সংকলন বানায়: public domain বাংলা সাহিত্য, majantali/majantali.github.io-র bnarchive/ থেকে।

    python tools/build_bn_literature.py --repo /path/to/majantali.github.io(.git) [--commit HEAD]

repository-টি আগে নামিয়ে রাখো (git clone, বা bare git dir); এই script ইন্টারনেটে যায় না, শুধু `git show`
দিয়ে Markdown ফাইল পড়ে। লেখে:
  data/bn_literature.txt              — সব লেখা, প্রতিটি খণ্ড (গল্প, কবিতা, অধ্যায়) "### " দিয়ে শুরু হওয়া
                                        একটি শিরোনাম-লাইনের পরে; held-out ভাগ হয় এই খণ্ড ধরে
  data/bn_literature_provenance.json  — repository, commit, প্রতিটি বই: লেখক, লেখকের জীবনকাল, প্রকাশকাল,
                                        লাইসেন্সের অবস্থা; বাদ দেওয়া বইও কারণসহ; markup আর NFC-তে কী বদলাল
নিয়ম (data/bn_literature_LICENSE.md-তেও লেখা): একটি বই রাখা হয় কেবল তখন, যখন (ক) লেখকের মৃত্যুর পরে
৬০ বছর পেরিয়েছে (বাংলাদেশ আর ভারতের কপিরাইট আইন: মৃত্যুর পরের বছর থেকে ৬০ বছর), এবং (খ) বইটি ১৯৩০-এর
আগে প্রকাশিত (যুক্তরাষ্ট্রে ১ জানুয়ারি ২০২৬ থেকে ১৯৩০ পর্যন্ত প্রকাশিত লেখা public domain; আমরা এক বছর বেশি সাবধান)।
সন্দেহ থাকলে বাদ।
"""
from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import unicodedata
from pathlib import Path

REPO_URL = "https://github.com/majantali/majantali.github.io"
OUT_TEXT = "bn_literature.txt"
OUT_PROVENANCE = "bn_literature_provenance.json"
RULE = ("kept only if the author died more than 60 years before 2026 (Bangladesh and India: 60 years counted from "
        "the year after death) AND the work was first published before 1930 (in the US, works published in 1930 or "
        "earlier are public domain from 2026-01-01, 95 years after publication; before 1930 is one year stricter); "
        "when in doubt, left out")

# (ফাইলের নাম, id, লেখক (ইংরেজি), লেখকের জীবনকাল, প্রথম প্রকাশ, টীকা)
KEPT = [
    ("RabindranathTagore_Prose_GalpaGuchchha_1", "galpaguchchha1", "Rabindranath Tagore", "1861-1941",
     "stories first published in periodicals from 1884 to the 1890s; collected 1900-1901; "
     "Visva-Bharati edition 1926",
     "short stories (গল্প); each story is one piece"),
    ("RabindranathTagore_Prose_Lipika", "lipika", "Rabindranath Tagore", "1861-1941", "1922",
     "prose pieces"),
    ("RabindranathTagore_Poetry_Kalpana", "kalpana", "Rabindranath Tagore", "1861-1941", "1900",
     "poems"),
    ("RabindranathTagore_Songs_Bhanusimha", "bhanusimha", "Rabindranath Tagore", "1861-1941", "1884",
     "Bhanusimha Thakurer Padabali, songs in Brajabuli"),
    ("MichaelMadhusudanDutta_Poetry_Chaturdashpadi", "chaturdashpadi", "Michael Madhusudan Dutt", "1824-1873",
     "1866", "sonnets"),
    ("BharatChandraRay_Rasamanjari", "rasamanjari", "Bharatchandra Ray Gunakar", "1712-1760",
     "18th century (before 1760)", "verse"),
    ("SukumarRay_Poetry_AbolTabol", "aboltabol", "Sukumar Ray", "1887-1923", "1923", "nonsense verse"),
    ("SukumarRay_Prose_Hajabarala", "hajabarala", "Sukumar Ray", "1887-1923",
     "serialised in Sandesh from 1921, before the author's death in 1923", "novella"),
]

LEFT_OUT = [
    ("RabindranathTagore_Poetry_Punashcha", "Rabindranath Tagore", "1861-1941", "1932",
     "first published 1932: not public domain in the US before 2028"),
    ("RabindranathTagore_Songs_Puja", "Rabindranath Tagore", "1861-1941", "Gitabitan, 1931-1941",
     "songs written up to 1941, collected in Gitabitan from 1931: publication before 1930 not shown song by song"),
    ("RabindranathTagore_Songs_Swadesh", "Rabindranath Tagore", "1861-1941", "Gitabitan, 1931-1941",
     "as for Puja: publication before 1930 not shown song by song"),
    ("SukumarRay_Poetry_KhaiKhai", "Sukumar Ray", "1887-1923", "1950", "first published as a book in 1950"),
    ("SukumarRay_Prose_PaglaDashu", "Sukumar Ray", "1887-1923", "1940",
     "collected in 1940; first publication of each story before 1930 not shown here"),
    ("AbanindranathTagore_Prose_BuroAngla", "Abanindranath Tagore", "1871-1951", "1941",
     "published 1941: not public domain in the US before 2037"),
    ("GaganendranathTagore_Prose_BhondorBahadur", "Gaganendranath Tagore", "1867-1938", "not established here",
     "author dead more than 60 years, but the first publication year could not be established"),
    ("Historic_Charyapad", "Buddhist siddhacharyas", "c. 8th-12th century", "first printed 1916",
     "Old Bengali (a different stage of the language), and the edition this text follows is not stated"),
]

# পাঠ ০৮-এর সারণির জন্য বাংলায় (ইংরেজি মূল তথ্য ওপরের তালিকায়)
PUBLISHED_BN = {
    "galpaguchchha1": "গল্পগুলো পত্রিকায় ১৮৮৪ থেকে ১৮৯০-এর দশকে; সংকলন ১৯০০–১৯০১; বিশ্বভারতী সংস্করণ ১৯২৬",
    "lipika": "১৯২২", "kalpana": "১৯০০", "bhanusimha": "১৮৮৪", "chaturdashpadi": "১৮৬৬",
    "rasamanjari": "অষ্টাদশ শতক (১৭৬০-এর আগে)", "aboltabol": "১৯২৩",
    "hajabarala": "সন্দেশ পত্রিকায় ধারাবাহিক, ১৯২১ থেকে, লেখকের মৃত্যুর (১৯২৩) আগে",
}
WHY_BN = {
    "RabindranathTagore_Poetry_Punashcha": "প্রথম প্রকাশ ১৯৩২: যুক্তরাষ্ট্রে ২০২৮-এর আগে public domain নয়",
    "RabindranathTagore_Songs_Puja": "গান ১৯৪১ পর্যন্ত লেখা, গীতবিতানে সংকলিত ১৯৩১ থেকে: প্রতিটি গান ১৯৩০-এর আগে "
                                     "প্রকাশিত, তা দেখানো যায়নি",
    "RabindranathTagore_Songs_Swadesh": "পূজার মতোই: প্রতিটি গান ১৯৩০-এর আগে প্রকাশিত, তা দেখানো যায়নি",
    "SukumarRay_Poetry_KhaiKhai": "বই হিসেবে প্রথম প্রকাশ ১৯৫০-এ",
    "SukumarRay_Prose_PaglaDashu": "সংকলন ১৯৪০-এ; প্রতিটি গল্প ১৯৩০-এর আগে প্রকাশিত, তা এখানে দেখানো যায়নি",
    "AbanindranathTagore_Prose_BuroAngla": "প্রকাশ ১৯৪১: যুক্তরাষ্ট্রে ২০৩৭-এর আগে public domain নয়",
    "GaganendranathTagore_Prose_BhondorBahadur": "লেখকের মৃত্যুর পরে ৬০ বছরের বেশি, কিন্তু প্রথম প্রকাশের বছর "
                                                 "নিশ্চিত করা যায়নি",
    "Historic_Charyapad": "প্রাচীন বাংলা (ভাষার আলাদা এক স্তর), আর এই লেখা কোন সংস্করণ অনুসরণ করে তা লেখা নেই",
}

_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_FENCE = re.compile(r"^\s*`{3,}\s*$")
_RULE_LINE = re.compile(r"^\s*(\* ?){3,}\s*$")
_HEADING = re.compile(r"^(#+)\s*(.*?)\s*#*\s*$")


def git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def resolve_commit(repo: Path, commit: str) -> str:
    return subprocess.run(["git", "--git-dir", str(repo), "rev-parse", commit], check=True,
                          capture_output=True, text=True).stdout.strip()


def front_matter(md: str) -> dict:
    m = _FRONT.match(md)
    out = {}
    if m:
        for line in m.group(1).splitlines():
            if ":" in line:
                key, value = line.split(":", 1)
                out[key.strip()] = value.strip().strip("'\"")
    return out


def _strip_whole_file(md: str, counts: collections.Counter) -> str:
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


def _kept_line(raw: str, counts: collections.Counter) -> str | None:
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


def _prose_line(line: str, counts: collections.Counter) -> str:
    """'---' থেকে em dash, আর ফাঁকা জায়গা এক space-এ।"""
    if "---" in line:
        counts["'---' turned into an em dash"] += line.count("---")
        line = line.replace("---", "\u2014")
    squeezed = re.sub(r"[ \t\u00a0]+", " ", line).strip()
    if squeezed != line:
        counts["lines with spaces squeezed or trimmed"] += 1
    return squeezed


def strip_markup(md: str, counts: collections.Counter) -> list[tuple[str, str]]:
    """Markdown → [(শিরোনাম, লেখা)], প্রথম স্তরের শিরোনাম (# ...) ধরে খণ্ড। counts-এ কী কী সরানো হলো।"""
    pieces, title, lines = [], None, []

    def flush():
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        if body or title:
            pieces.append((title or "", body))

    for raw in _strip_whole_file(md, counts).splitlines():
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
        lines.append(_prose_line(line, counts))
    flush()
    return pieces


def nfc_changes(before: str, after: str) -> dict:
    """NFC কী বদলাল: কোন code point কতবার বাড়ল (+) বা কমল (−)।"""
    b, a = collections.Counter(before), collections.Counter(after)
    diff = {}
    for ch in sorted(set(b) | set(a)):
        d = a[ch] - b[ch]
        if d:
            diff[f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}"] = d
    return diff


def build(repo: Path, commit: str, out_dir: Path) -> dict:
    commit = resolve_commit(repo, commit)
    out_lines, works, markup = [], [], collections.Counter()
    raw_all, nfc_all = [], []
    for stem, work_id, author_en, years, published, note in KEPT:
        md = git_show(repo, commit, f"bnarchive/{stem}.md")
        meta = front_matter(md)
        pieces = strip_markup(md, markup)
        n_chars = 0
        for i, (title, body) in enumerate(pieces):
            text = f"{title}\n{body}" if title else body
            raw_all.append(text)
            text = unicodedata.normalize("NFC", text)
            nfc_all.append(text)
            header_title = unicodedata.normalize("NFC", title or meta.get("title", work_id))
            out_lines.append(f"### {work_id}/{i:03d} {header_title}\n{text}\n")
            n_chars += len(text)
        works.append({"id": work_id, "file": f"bnarchive/{stem}.md", "title": meta.get("title"),
                      "author": meta.get("author"), "author_en": author_en, "author_years": years,
                      "first_published": published, "first_published_bn": PUBLISHED_BN[work_id], "kind": note,
                      "pieces": len(pieces), "characters": n_chars,
                      "source_noted_in_file": meta.get("source"),
                      "licence": "public domain (author died before 1966; published before 1930)"})
    text = "\n".join(out_lines)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / OUT_TEXT).write_text(text, encoding="utf-8")
    raw, nfc = "".join(raw_all), "".join(nfc_all)
    provenance = {
        "repository": REPO_URL, "commit": commit, "folder": "bnarchive/",
        "rule": RULE,
        "output": OUT_TEXT, "output_bytes_utf8": len(text.encode("utf-8")),
        "output_characters": len(text),
        "format": "each piece starts with a line '### <work id>/<piece number> <title>'; mishran.capstone "
                  "reads these lines as boundaries and does not train on them",
        "works": works,
        "left_out": [{"file": f"bnarchive/{s}.md", "author_en": a, "author_years": y, "first_published": p,
                      "why": w, "why_bn": WHY_BN[s]} for s, a, y, p, w in LEFT_OUT],
        "markup_removed": dict(sorted(markup.items())),
        "nfc": {"characters_before": len(raw), "characters_after": len(nfc),
                "code_point_count_changes": nfc_changes(raw, nfc)},
        "built_by": "tools/build_bn_literature.py",
    }
    (out_dir / OUT_PROVENANCE).write_text(json.dumps(provenance, ensure_ascii=False, indent=1) + "\n",
                                          encoding="utf-8")
    return provenance


def main(argv=None):
    p = argparse.ArgumentParser(description="পাঠ ০৮-এর public domain বাংলা সংকলন বানাও")
    p.add_argument("--repo", required=True, help="majantali.github.io-র git directory (clone বা bare)")
    p.add_argument("--commit", default="HEAD")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data"))
    args = p.parse_args(argv)
    repo = Path(args.repo)
    if (repo / ".git").is_dir():
        repo = repo / ".git"
    prov = build(repo, args.commit, Path(args.out))
    print(f"{prov['output']}: {prov['output_characters']} characters, {prov['output_bytes_utf8']} bytes, "
          f"{sum(w['pieces'] for w in prov['works'])} pieces from {len(prov['works'])} works; commit {prov['commit']}")
    print("NFC:", prov["nfc"]["code_point_count_changes"])


if __name__ == "__main__":
    main()
