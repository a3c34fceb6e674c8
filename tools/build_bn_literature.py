"""পাঠ ০৮-এর দুটি সংকলন বানায়, public domain বাংলা সাহিত্য থেকে, কয়েকটি GitHub repository-র নির্দিষ্ট commit থেকে।

    python tools/build_bn_literature.py --sources DIR [--out data/]

DIR-এ প্রতিটি repository-র একটি git directory, নাম <owner>+<name> (bare, বা clone যার ভেতরে .git)। এই script
ইন্টারনেটে যায় না, শুধু `git show` আর `git ls-tree` দিয়ে পড়ে। DIR বানাতে (একবার, ইন্টারনেটসহ):

    mkdir -p DIR && cd DIR
    git clone --bare https://github.com/majantali/majantali.github.io majantali+majantali.github.io
    git clone --bare https://github.com/deep5050/RabiGuru deep5050+RabiGuru
    git clone --bare https://github.com/7shi/bou-thakuranir_haat 7shi+bou-thakuranir_haat
    git clone --bare https://github.com/ronik18/earnalism-digital-library ronik18+earnalism-digital-library
    git clone --bare https://github.com/gsurma/text_predictor gsurma+text_predictor
    git clone --bare https://github.com/shuhanmirza/Bengali-Poem-Dataset shuhanmirza+Bengali-Poem-Dataset

কোন commit পড়া হয়, তা bn_literature_tables.COMMITS-এ লেখা (clone যত নতুনই হোক, ফল বাইটে বাইটে এক; majantali/gitabitan
সেখানে আছে কেবল provenance-এর জন্য: তার গান বাদ, কারণ bn_literature_tables.LEFT_OUT_FULL-এ, তাই এটা পড়া হয় না)। লেখে:
  data/bn_literature.txt                   — ছোট সংকলন (পাঠ ০৮ এটাই পড়ে): majantali.github.io-র bnarchive/
  data/bn_literature_provenance.json       — তার উৎস, প্রতিটি বই: লেখক, জীবনকাল, প্রকাশকাল; বাদ দেওয়া বই কারণসহ;
                                             markup আর NFC-তে কী বদলাল
  data/bn_literature_full.txt              — বড় সংকলন: ছোটটির সব বই, হুবহু, আর অন্য উৎসের নতুন বই
  data/bn_literature_full_provenance.json  — একই তথ্য বড়টির, প্রতিটি বইয়ের repository আর commit-সহ, আর কোন খণ্ড
                                             অন্য খণ্ডের প্রতিলিপি বলে বাদ গেল
প্রতিটি খণ্ড (গল্প, কবিতা, অধ্যায়) "### <বই>/<ক্রম> <শিরোনাম>" লাইনের পরে; held-out ভাগ হয় এই খণ্ড ধরে।
নিয়ম (bn_literature_tables.RULE, data/bn_literature_LICENSE.md): লেখকের মৃত্যুর পরে ৬০ বছর পেরিয়েছে, আর লেখাটি
১৯৩০-এর আগে প্রথম প্রকাশিত; সন্দেহ থাকলে বাদ।
"""
from __future__ import annotations

import argparse
import collections
import json
import time
import unicodedata
import zlib
from pathlib import Path

import bn_literature_sources as src
import bn_literature_tables as tables
from bn_literature_tables import KEPT, LEFT_OUT, PUBLISHED_BN, RULE, WHY_BN  # noqa: F401  (tests read them here)

OUT = {"small": ("bn_literature.txt", "bn_literature_provenance.json"),
       "full": ("bn_literature_full.txt", "bn_literature_full_provenance.json")}
FORMAT = ("each piece starts with a line '### <work id>/<piece number> <title>'; mishran.capstone.literature reads "
          "these lines as boundaries and does not train on them")
SHINGLE = 50               # অক্ষর: এত লম্বা হুবহু অংশ দুই আলাদা লেখায় প্রায় কখনো মেলে না
SAMPLE = 4                 # crc32 % SAMPLE == 0 এমন shingle-ই রাখা: লেখা দিয়ে বাছা, তাই দুই দিকে একই shingle
DUPLICATE_SHARE = 0.3      # একটি খণ্ডের এত ভাগ shingle আগের কোনো খণ্ডে থাকলে সেটি প্রতিলিপি
PARSERS = {"gora": src.gora_pieces, "bou": src.bou_pieces, "earnalism": src.earnalism_pieces,
           "stories": src.story_pieces}


def url(repo: str) -> str:
    return f"https://github.com/{repo}"


def bengali_digits(text: str) -> str:
    return text.translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))


# ---------------------------------------------------------------- বই পড়া

def small_works(sources: Path, markup: collections.Counter) -> list[dict]:
    """ছোট সংকলনের বই, KEPT-এর ক্রমে: majantali.github.io-র bnarchive/ থেকে (REJECTED_PIECES-এর খণ্ড বাদ)।"""
    repo, commit = src.git_dir(sources, tables.SMALL_REPO), tables.COMMITS[tables.SMALL_REPO]
    works = []
    for stem, work_id, author_en, years, published, kind in KEPT:
        path = f"bnarchive/{stem}.md"
        md = src.git_show(repo, commit, path)
        meta = src.front_matter(md)
        pieces = [(t or meta.get("title", work_id), text) for t, text in src.majantali_pieces(md, markup)
                  if (work_id, t) not in tables.REJECTED_PIECES]
        works.append({"id": work_id, "pieces": pieces, "meta": {
            "repository": url(tables.SMALL_REPO), "commit": commit, "files": [path], "title": meta.get("title"),
            "author": meta.get("author"), "author_en": author_en, "author_years": years,
            "first_published": published, "first_published_bn": PUBLISHED_BN[work_id], "kind": kind,
            "source_noted_in_file": meta.get("source"), "licence": tables.LICENCE}})
    return works


def _meta(spec: dict, files: list[str]) -> dict:
    keys = ("title", "author", "author_en", "author_years", "first_published", "first_published_bn", "why_kept",
            "kind")
    return {"repository": url(spec["repo"]), "commit": tables.COMMITS[spec["repo"]], "files": files,
            **{k: spec[k] for k in keys}, "licence": tables.LICENCE}


def table_works(sources: Path, markup: dict) -> list[dict]:
    """NEW_WORKS-এর বই: প্রতিটি তার নিজের parser দিয়ে।"""
    works = []
    for spec in tables.NEW_WORKS:
        repo = src.git_dir(sources, spec["repo"])
        counts = markup.setdefault(url(spec["repo"]), collections.Counter())
        pieces = []
        for path in spec["files"]:
            pieces += PARSERS[spec["parser"]](src.git_show(repo, tables.COMMITS[spec["repo"]], path), counts,
                                              **spec["args"])
        works.append({"id": spec["id"], "pieces": pieces, "meta": _meta(spec, spec["files"])})
    return works


def _nfc_table(table: dict) -> dict:
    """সারণির চাবি NFC-তে: উৎসের 'য়' দুই code point হলেও, সারণিতে এক code point হলেও মেলে।"""
    return {unicodedata.normalize("NFC", k): v for k, v in table.items()}


def _poem_left_out(tag, count: int, chars: int) -> dict:
    published, why, why_bn = _nfc_table(tables.TAGORE_LATE_BOOKS).get(tag, tables.NO_BOOK)
    return {"repository": url(tables.POEM_REPO), "file": f"dataset/{tables.TAGORE[0]}/*/ ending '({tag})'"
            if tag else f"dataset/{tables.TAGORE[0]}/*/ without a book tag", "author_en": tables.TAGORE[1],
            "author_years": tables.TAGORE[2], "first_published": published, "why": why, "why_bn": why_bn,
            "poems": count, "characters": chars}


def _poem_work(work_id: str, title: str, who, published: str, published_bn: str, why: str) -> dict:
    spec = {"repo": tables.POEM_REPO, "title": title, "author": who[0], "author_en": who[1], "author_years": who[2],
            "first_published": published, "first_published_bn": published_bn, "why_kept": why,
            "kind": "poems; each poem is one piece"}
    return {"id": work_id, "pieces": [], "meta": _meta(spec, [])}


def tagore_poem_works(sources: Path, markup: dict) -> tuple[list[dict], list[dict]]:
    """রবীন্দ্রনাথের কবিতা: শেষের বন্ধনীতে ১৯৩০-এর আগের বইয়ের নাম থাকলে সেই বইয়ে; বাকি সব বাদ, ট্যাগ ধরে গুনে।"""
    repo, commit = src.git_dir(sources, tables.POEM_REPO), tables.COMMITS[tables.POEM_REPO]
    counts = markup.setdefault(url(tables.POEM_REPO), collections.Counter())
    works, left, books = {}, collections.defaultdict(lambda: [0, 0]), _nfc_table(tables.TAGORE_BOOKS)
    for title, path in src.poem_folders(repo, commit, tables.TAGORE[0]).items():
        text = src.git_show(repo, commit, path)
        tag = src.poem_end_tag(text)
        tag = tag and unicodedata.normalize("NFC", tag)
        if tag not in books:
            left[tag][0] += 1
            left[tag][1] += len(text)
            continue
        work_id, book, year, year_bn = books[tag]
        work = works.setdefault(work_id, _poem_work(work_id, book, tables.TAGORE, year, year_bn,
                                                    f"book first published {year}; author died 1941"))
        work["pieces"].append(src.poem_piece(title, text, counts))
        work["meta"]["files"].append(path)
    order = sorted(works.values(), key=lambda w: (w["meta"]["first_published"], w["id"]))
    return order, [_poem_left_out(tag, n, c) for tag, (n, c) in sorted(left.items(), key=lambda kv: kv[0] or "")]


def poet_works(sources: Path, markup: dict) -> list[dict]:
    """POETS-এর কবিদের সব কবিতা, প্রতিটি কবির একটি বই।"""
    repo, commit = src.git_dir(sources, tables.POEM_REPO), tables.COMMITS[tables.POEM_REPO]
    counts = markup.setdefault(url(tables.POEM_REPO), collections.Counter())
    works = []
    for poet, (work_id, title, who, published, published_bn, why) in tables.POETS.items():
        work = _poem_work(work_id, title, who, published, published_bn, why)
        for name, path in src.poem_folders(repo, commit, poet).items():
            work["pieces"].append(src.poem_piece(name, src.git_show(repo, commit, path), counts))
            work["meta"]["files"].append(path)
        works.append(work)
    return works


# ---------------------------------------------------------------- প্রতিলিপি খোঁজা

def skeleton(text: str) -> str:
    """কেবল বাংলা অক্ষর আর কার-চিহ্ন (যতিচিহ্ন, ফাঁকা জায়গা, সংখ্যা, ZWNJ বাদ): দুই সংস্করণের বিন্যাস আলাদা হলেও মেলে।"""
    return "".join(ch for ch in unicodedata.normalize("NFC", text)
                   if "\u0980" <= ch <= "\u09ff" and unicodedata.category(ch)[0] in "LM")


def shingles(text: str) -> set[int]:
    """SHINGLE অক্ষরের টুকরোর crc32, যেগুলো SAMPLE দিয়ে বিভাজ্য; খুব ছোট লেখায় পুরো লেখাটি একটি টুকরো।"""
    sk = skeleton(text).encode("utf-8")
    width = SHINGLE * 3                    # বাংলা অক্ষর UTF-8-এ তিন বাইট
    if len(sk) <= width:
        return {zlib.crc32(sk)} if sk else set()
    hashes = (zlib.crc32(sk[i:i + width]) for i in range(0, len(sk) - width + 1, 3))
    return {h for h in hashes if h % SAMPLE == 0}


def title_key(title: str) -> str:
    """শিরোনাম মেলানোর চাবি: কেবল ব্যঞ্জন আর স্বরবর্ণ (কার, হসন্ত, ZWNJ বাদ), যাতে 'পোস্ট্‌মাস্টার' = 'পোস্টমাস্টার'।"""
    return "".join(ch for ch in unicodedata.normalize("NFC", title) if unicodedata.category(ch) == "Lo")


class Deduper:
    """খণ্ডগুলো ক্রমে দেখে: আগে রাখা কোনো খণ্ডের সঙ্গে DUPLICATE_SHARE ভাগ বা বেশি shingle মিললে বাদ।"""

    def __init__(self):
        self.owner = {}                    # shingle → প্রথম যে খণ্ডে দেখা গেল
        self.titles = {}                   # (বই, title_key) → খণ্ড

    def same_as(self, name: str, text: str) -> tuple[str, float] | None:
        sh = shingles(text)
        hits = collections.Counter(self.owner[h] for h in sh if h in self.owner)
        if sh and sum(hits.values()) / len(sh) >= DUPLICATE_SHARE:
            return hits.most_common(1)[0][0], round(sum(hits.values()) / len(sh), 3)
        for h in sh:
            self.owner.setdefault(h, name)
        return None

    def remember_title(self, work_id: str, title: str, name: str):
        self.titles[(work_id, title_key(title))] = name


def dedupe(works: list[dict], fixed: int) -> list[dict]:
    """প্রথম `fixed`টি বই (ছোট সংকলন) হুবহু থাকে, শুধু সূচিতে যায়; পরের বইয়ের প্রতিলিপি খণ্ড বাদ। ফেরত: কী বাদ।"""
    seen, dropped = Deduper(), []
    for k, work in enumerate(works):
        kept = []
        for title, text in work["pieces"]:
            name = f"{work['id']}/{len(kept):03d} {title}"      # ক্রম: বাদের পরে যা হবে, সংকলনে যেমন
            match = _title_match(seen, work, title) if k >= fixed else None
            match = match or seen.same_as(name, text)
            if match and k >= fixed:
                by = "title" if match[1] is None else "text"
                dropped.append({"work": work["id"], "title": unicodedata.normalize("NFC", title),
                                "same_as": unicodedata.normalize("NFC", match[0]), "by": by,
                                "shared": match[1]})
                continue
            seen.remember_title(work["id"], title, name)
            kept.append((title, text))
        work["pieces"] = kept
    return dropped


def _title_match(seen: Deduper, work: dict, title: str):
    if work["id"] != "tagore_stories":
        return None
    for other in tables.STORIES_ALREADY_IN:
        name = seen.titles.get((other, title_key(title)))
        if name:
            return name, None
    return None


def drop_late_stories(work: dict) -> list[dict]:
    """LEFT_OUT_STORIES-এর গল্প সরায় (প্রতিলিপি খোঁজার আগে, যাতে বাদ পড়া গল্প অন্য খণ্ডকে প্রতিলিপি না বানায়)।"""
    late, left = _nfc_table(tables.LEFT_OUT_STORIES), []
    for title, _ in work["pieces"]:
        if unicodedata.normalize("NFC", title) in late:
            published, why, why_bn = late[unicodedata.normalize("NFC", title)]
            left.append({"repository": work["meta"]["repository"], "file": f"{work['meta']['files'][0]} '####{title}'",
                         "author_en": tables.TAGORE[1], "author_years": tables.TAGORE[2],
                         "first_published": published, "why": why, "why_bn": why_bn})
    work["pieces"] = [(t, text) for t, text in work["pieces"] if unicodedata.normalize("NFC", t) not in late]
    return left


def date_stories(work: dict):
    """রাখা প্রতিটি গল্পের প্রথম প্রকাশ STORIES থেকে; কোনো গল্পের বছর না থাকলে build থামে (না জেনে রাখা নয়)।"""
    years = _nfc_table(tables.STORIES)
    missing = [t for t, _ in work["pieces"] if unicodedata.normalize("NFC", t) not in years]
    if missing:
        raise KeyError(f"no first-publication year for the stories {missing}: add them to STORIES or LEFT_OUT_STORIES")
    work["meta"]["stories"] = []
    for title, _ in work["pieces"]:
        title = unicodedata.normalize("NFC", title)
        year, where = years[title]
        work["meta"]["stories"].append({"title": title, "first_published": f"{year} ({where})" if where else str(year),
                                        "first_published_bn": bengali_digits(str(year))})


# ---------------------------------------------------------------- লেখা আর provenance

def nfc_changes(before: str, after: str) -> dict:
    """NFC কী বদলাল: কোন code point কতবার বাড়ল (+) বা কমল (−)।"""
    b, a = collections.Counter(before), collections.Counter(after)
    diff = {}
    for ch in sorted(set(b) | set(a)):
        d = a[ch] - b[ch]
        if d:
            diff[f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}"] = d
    return diff


def render(works: list[dict]) -> tuple[str, dict]:
    """সংকলনের লেখা (প্রতিটি খণ্ড NFC, '### ' শিরোনাম-লাইনের পরে), আর NFC-র আগে-পরের গোনা।"""
    out, raw_all, nfc_all = [], [], []
    for work in works:
        chars = 0
        for i, (title, text) in enumerate(work["pieces"]):
            done = unicodedata.normalize("NFC", text)
            raw_all.append(text)
            nfc_all.append(done)
            out.append(f"### {work['id']}/{i:03d} {unicodedata.normalize('NFC', title)}\n{done}\n")
            chars += len(done)
        work["meta"].update(pieces=len(work["pieces"]), characters=chars)
    raw, nfc = "".join(raw_all), "".join(nfc_all)
    return "\n".join(out), {"characters_before": len(raw), "characters_after": len(nfc),
                            "code_point_count_changes": nfc_changes(raw, nfc)}


def _left_small() -> list[dict]:
    return [{"repository": url(tables.SMALL_REPO), "file": f"bnarchive/{s}.md", "author_en": a, "author_years": y,
             "first_published": p, "why": w, "why_bn": WHY_BN[s]} for s, a, y, p, w in LEFT_OUT]


def _rejected() -> list[dict]:
    return [{"work": w, "title": t, "why": why} for (w, t), why in tables.REJECTED_PIECES.items()]


def _left_full() -> list[dict]:
    return [{"repository": url(r), "file": f, "author_en": a, "author_years": y, "first_published": p, "why": w,
             "why_bn": wb} for r, f, a, y, p, w, wb in tables.LEFT_OUT_FULL]


def write(out_dir: Path, corpus: str, text: str, provenance: dict):
    name, prov_name = OUT[corpus]
    (out_dir / name).write_text(text, encoding="utf-8")
    provenance.update(output=name, output_bytes_utf8=len(text.encode("utf-8")), output_characters=len(text))
    (out_dir / prov_name).write_text(json.dumps(provenance, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def build_small(sources: Path, out_dir: Path) -> dict:
    markup = collections.Counter()
    works = small_works(sources, markup)
    text, nfc = render(works)
    prov = {"repository": url(tables.SMALL_REPO), "commit": tables.COMMITS[tables.SMALL_REPO], "folder": "bnarchive/",
            "rule": RULE, "format": FORMAT, "works": [{"id": w["id"], **w["meta"]} for w in works],
            "left_out": _left_small(), "pieces_rejected": _rejected(), "markup_removed": dict(sorted(markup.items())),
            "nfc": nfc, "built_by": "tools/build_bn_literature.py"}
    write(out_dir, "small", text, prov)
    return prov


def build_full(sources: Path, out_dir: Path) -> dict:
    markup = {url(tables.SMALL_REPO): collections.Counter()}
    works = small_works(sources, markup[url(tables.SMALL_REPO)])
    fixed = len(works)
    works += table_works(sources, markup)
    stories = next(w for w in works if w["id"] == "tagore_stories")
    tagore, left_poems = tagore_poem_works(sources, markup)
    works += tagore + poet_works(sources, markup)
    left_stories = drop_late_stories(stories)
    duplicates = dedupe(works, fixed)
    date_stories(stories)
    works = [w for w in works if w["pieces"]]
    text, nfc = render(works)
    prov = {"sources": [{"repository": url(r), "commit": c} for r, c in tables.COMMITS.items()],
            "rule": RULE, "format": FORMAT, "works": [{"id": w["id"], **w["meta"]} for w in works],
            "left_out": _left_small() + _left_full() + left_stories + left_poems, "pieces_rejected": _rejected(),
            "duplicates_dropped": duplicates, "duplicate_rule": (
                f"a piece is dropped when {DUPLICATE_SHARE:.0%} or more of its {SHINGLE}-letter shingles (Bengali "
                f"letters and signs only, one in {SAMPLE} by crc32) are in an earlier piece, or when a story has the "
                f"title of a story already in {', '.join(tables.STORIES_ALREADY_IN)}; earlier works win"),
            "markup_removed": {k: dict(sorted(v.items())) for k, v in markup.items()}, "nfc": nfc,
            "built_by": "tools/build_bn_literature.py"}
    write(out_dir, "full", text, prov)
    return prov


def main(argv=None):
    p = argparse.ArgumentParser(description="পাঠ ০৮-এর public domain বাংলা সংকলন দুটি বানাও")
    p.add_argument("--sources", required=True, help="যে ফোল্ডারে প্রতিটি repository-র git directory, <owner>+<name>")
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "data"))
    args = p.parse_args(argv)
    out, start = Path(args.out), time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    for prov in (build_small(Path(args.sources), out), build_full(Path(args.sources), out)):
        print(f"{prov['output']}: {prov['output_characters']:,} characters, {prov['output_bytes_utf8']:,} bytes, "
              f"{sum(w['pieces'] for w in prov['works'])} pieces from {len(prov['works'])} works")
    print(f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
