"""পাঠ ০৮-এর দুই সংকলন: data/bn_literature.txt ("small") আর data/bn_literature_full.txt ("full")।

provenance বলে যা tools/build_bn_literature.py-র সারণি বলে; লেখায় markup নেই, সব NFC; বড়টিতে কোনো খণ্ড অন্য খণ্ডের
প্রতিলিপি নয়; ছোটটির প্রতিটি বই বড়টিতে হুবহু; held-out পুরো খণ্ড ধরে; ভুল সংকলনের নামে পরিষ্কার ভুল-বার্তা।
"""
import json
import re
import sys
import unicodedata
from pathlib import Path

import pytest

from mishran.capstone import literature

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import bn_literature_tables as tables  # noqa: E402
import build_bn_literature as tool  # noqa: E402

CORPORA = ("small", "full")


@pytest.fixture(scope="module")
def pieces():
    return {corpus: literature.load_pieces(corpus=corpus) for corpus in CORPORA}


@pytest.fixture(scope="module")
def prov():
    return {corpus: literature.provenance(corpus) for corpus in CORPORA}


def test_the_full_corpus_has_three_million_characters_the_small_one_lesson_08s_size(prov):
    full = literature.literature_path("full").read_text(encoding="utf-8")
    small = literature.literature_path("small").read_text(encoding="utf-8")
    assert len(full) >= 3_000_000 and len(full) == prov["full"]["output_characters"]
    assert len(small.encode("utf-8")) >= 1_000_000      # পাঠ ০৮ এটা assert করে
    assert len(small) == prov["small"]["output_characters"]
    assert literature.literature_path().name == literature.LITERATURE_FILE == "bn_literature.txt"


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_provenance_counts_what_the_file_holds(corpus, pieces, prov):
    works = prov[corpus]["works"]
    assert [w["id"] for w in works] == list(dict.fromkeys(p.work for p in pieces[corpus]))
    for w in works:
        mine = [p for p in pieces[corpus] if p.work == w["id"]]
        assert (w["pieces"], w["characters"]) == (len(mine), sum(len(p.text) for p in mine)), w["id"]
        assert [p.index for p in mine] == list(range(len(mine)))


MARKUP = ("```", "<img", "<!--", "* * *", "####", "](http", "\ufeff")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_LATIN = re.compile(r"[A-Za-z]")
_BENGALI = re.compile(r"[\u0985-\u09b9\u09dc-\u09df]")


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_text_is_nfc_with_no_markup_and_no_english_lines(corpus, pieces):
    text = literature.literature_path(corpus).read_text(encoding="utf-8")
    assert unicodedata.normalize("NFC", text) == text
    body = "\n".join(p.text for p in pieces[corpus])
    assert [m for m in MARKUP if m in body] == []
    assert _TAG.findall(body) == []
    latin = [line for line in body.split("\n") if _LATIN.search(line)
             and len(_LATIN.findall(line)) >= len(_BENGALI.findall(line))]
    assert latin == []
    assert "\u09be\u09c7" not in body      # া + ে উল্টো ক্রমে: ো হওয়ার কথা


def shared_runs(pieces, letters=50, anchor="ন"):
    """কোন খণ্ড-জোড়া একই `letters` অক্ষরের টুকরো ভাগ করে (কেবল বাংলা অক্ষর আর কার; প্রতিটি 'ন' থেকে শুরু)।"""
    not_letter, owner, pairs = re.compile(r"[^\u0981-\u09e3\u09f0\u09f1]+"), {}, set()
    for i, p in enumerate(pieces):
        letters_only = not_letter.sub("", p.text)
        for m in re.finditer(anchor, letters_only):
            run = letters_only[m.start():m.start() + letters]
            if len(run) == letters and owner.setdefault(run, i) != i:
                pairs.add((f"{pieces[owner[run]].work}/{pieces[owner[run]].index}", f"{p.work}/{p.index}"))
    return pairs


def test_no_piece_of_the_full_corpus_repeats_another(pieces):
    """একই লেখা দুই উৎসে থাকলে (যেমন গল্পগুচ্ছের গল্প) একবারই: নইলে held-out-এর খণ্ড train-এ আবার আসত।"""
    assert shared_runs(pieces["full"]) == set()
    doubled = pieces["full"][:3] + [literature.Piece("copy", 0, "", pieces["full"][1].text[100:3000])]
    assert shared_runs(doubled) == {(f"{pieces['full'][1].work}/1", "copy/0")}     # পরীক্ষাটা নিজে ধরতে পারে


def test_every_work_of_the_small_corpus_is_in_the_full_one_unchanged(pieces):
    small, full = pieces["small"], pieces["full"]
    works = {p.work for p in small}
    assert [p for p in full if p.work in works] == small
    assert len({p.work for p in full}) > 3 * len(works)


@pytest.mark.parametrize("corpus", CORPORA)
def test_the_heldout_split_is_by_whole_pieces(corpus, pieces):
    train, held = literature.split_by_work(pieces[corpus])
    key = lambda p: (p.work, p.index)  # noqa: E731
    assert not {key(p) for p in train} & {key(p) for p in held}
    assert len(train) + len(held) == len(pieces[corpus])
    assert all(p.index % 10 == 5 for p in held)
    assert len({p.work for p in held}) >= 5            # প্রায় সব বই থেকে কিছু
    train_text = "\n\n".join(p.text for p in train)
    share = sum(len(p.text) for p in held) / (len(train_text) + sum(len(p.text) for p in held))
    assert 0.04 < share < 0.2
    # একটি held-out খণ্ডের কোনো বড় অংশ train-এর লেখায় নেই (ভাগ অক্ষর ধরে হলে থাকত)
    long_held = [p for p in held if len(p.text) > 2000]
    assert long_held
    for p in long_held:
        assert p.text[len(p.text) // 2: len(p.text) // 2 + 300] not in train_text


def test_lesson_08s_data_is_the_small_corpus_split_by_pieces(pieces):
    data = literature.LiteratureData()
    assert sorted(data.train_pieces + data.heldout_pieces, key=lambda p: (p.work, p.index)) == sorted(
        pieces["small"], key=lambda p: (p.work, p.index))
    share = len(data.val_data) / (len(data.val_data) + len(data.train_data))
    assert 0.04 < share < 0.2


def test_the_small_provenance_says_what_the_tools_tables_say(prov):
    """data/bn_literature_provenance.json বলে যা tools/bn_literature_tables.py বলে (ইংরেজি আর বাংলা)।"""
    p = prov["small"]
    assert (p["repository"], p["commit"]) == (tool.url(tables.SMALL_REPO), tables.COMMITS[tables.SMALL_REPO])
    kept = {w["id"]: w for w in p["works"]}
    assert list(kept) == [k[1] for k in tables.KEPT] and set(kept) == set(tables.PUBLISHED_BN)
    for stem, work_id, author_en, years, published, kind in tables.KEPT:
        w = kept[work_id]
        assert (w["files"], w["author_en"], w["author_years"], w["first_published"], w["kind"]) == (
            [f"bnarchive/{stem}.md"], author_en, years, published, kind)
        assert w["first_published_bn"] == tables.PUBLISHED_BN[work_id]
    assert [(w["file"], w["first_published"], w["why"], w["why_bn"]) for w in p["left_out"]] == [
        (f"bnarchive/{s}.md", pub, why, tables.WHY_BN[s]) for s, _, _, pub, why in tables.LEFT_OUT]
    assert "bhanusimha" not in kept and p["left_out"][0]["file"].endswith("Bhanusimha.md")
    assert p["rule"] == tables.RULE


def test_the_full_provenance_says_what_the_tools_tables_say(prov):
    p, small = prov["full"], prov["small"]
    assert p["sources"] == [{"repository": tool.url(r), "commit": c} for r, c in tables.COMMITS.items()]
    works = {w["id"]: w for w in p["works"]}
    assert [works[w["id"]] for w in small["works"]] == small["works"]
    for spec in tables.NEW_WORKS:
        w = works[spec["id"]]
        assert (w["repository"], w["commit"], w["files"]) == (
            tool.url(spec["repo"]), tables.COMMITS[spec["repo"]], spec["files"])
        assert {k: w[k] for k in ("title", "author", "author_en", "author_years", "first_published",
                                  "first_published_bn", "why_kept", "kind")} == {
            k: spec[k] for k in ("title", "author", "author_en", "author_years", "first_published",
                                 "first_published_bn", "why_kept", "kind")}
    years = {unicodedata.normalize("NFC", t): y for t, y in tables.STORIES.items()}
    for story in works["tagore_stories"]["stories"]:
        year, where = years[story["title"]]
        assert year < 1930 and story["first_published"].startswith(str(year))
        assert story["first_published_bn"] == tool.bengali_digits(str(year))
    books = {b[0]: b for b in tables.TAGORE_BOOKS.values()}
    for work_id, book, year, year_bn in books.values():
        assert (works[work_id]["title"], works[work_id]["first_published"], works[work_id]["first_published_bn"]) == (
            book, year, year_bn) and int(year) < 1930
    for work_id, title, who, published, published_bn, why in tables.POETS.values():
        assert (works[work_id]["title"], works[work_id]["author_en"], works[work_id]["first_published"],
                works[work_id]["first_published_bn"], works[work_id]["why_kept"]) == (
            title, who[1], published, published_bn, why)
    assert set(works) == {w["id"] for w in small["works"]} | {s["id"] for s in tables.NEW_WORKS} | set(books) | {
        v[0] for v in tables.POETS.values()}


def test_everything_left_out_of_the_full_corpus_is_listed_with_its_reason(prov):
    left = prov["full"]["left_out"]
    assert left[:len(tables.LEFT_OUT)] == prov["small"]["left_out"]
    rows = {(x["repository"], x["file"], x["why"], x["why_bn"]) for x in left}
    for repo, file, _, _, _, why, why_bn in tables.LEFT_OUT_FULL:
        assert (tool.url(repo), file, why, why_bn) in rows
    stories = tool.url("gsurma/text_predictor")
    for title, (_, why, why_bn) in tables.LEFT_OUT_STORIES.items():
        assert (stories, f"data/tagore/input.txt '####{title}'", why, why_bn) in rows
    assert all(x["why"] and x["why_bn"] and any("\u0980" <= ch <= "\u09ff" for ch in x["why_bn"]) for x in left)
    assert {x["work"] for x in prov["full"]["duplicates_dropped"]} <= {"tagore_stories", "madhusudan"}
    assert all(x["by"] == "title" or x["shared"] >= tool.DUPLICATE_SHARE for x in prov["full"]["duplicates_dropped"])


def test_the_deduper_drops_a_copy_and_keeps_a_different_text():
    text = "আমার পাঁচ বছর বয়সের ছোটো মেয়ে মিনি এক দণ্ড কথা না কহিয়া থাকিতে পারে না। " * 3
    seen = tool.Deduper()
    assert seen.same_as("a/000", text) is None
    assert seen.same_as("b/000", text.replace("।", ",").replace(" ", "\n")) == ("a/000", 1.0)
    assert seen.same_as("c/000", "রাজকন্যার নাম অপরাজিতা। উদয়নারায়ণের সভাকবি শেখর তাঁহাকে কখনো চক্ষেও দেখেন নাই।") is None
    assert tool.title_key("পোস্ট্‌মাস্টার") == tool.title_key("পোস্টমাস্টার")


@pytest.mark.parametrize("name", ["big", "Full", "", None, 3])
def test_a_bad_corpus_name_is_a_clear_error(name):
    with pytest.raises(ValueError, match=r"unknown corpus.*'small', 'full'") as err:
        literature.LiteratureData(pieces=[], corpus=name)       # the corpus is checked first, even with pieces given
    assert "অচেনা সংকলন" in str(err.value)


@pytest.mark.parametrize("pieces, every, offset, error, words", [
    (None, 1, 0, ValueError, "every >= 2"),
    (None, 10, 10, ValueError, "0 <= offset < every"),
    (None, 10.0, 5, ValueError, "integers"),
    ([literature.Piece("ক", 0, "", "অআ")], 10, 5, ValueError, "empty split"),
])
def test_literature_data_names_a_bad_split_in_bengali(pieces, every, offset, error, words):
    with pytest.raises(error, match=words) as err:
        literature.LiteratureData(pieces, every, offset)
    assert any("\u0980" <= ch <= "\u09ff" for ch in str(err.value))


def test_the_wheel_ships_both_corpora():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for text_file, prov_file in literature.CORPORA.values():
        assert f'"{text_file}"' in pyproject and f'"{prov_file}"' in pyproject
    assert json.loads((ROOT / "data" / literature.CORPORA["full"][1]).read_text(encoding="utf-8"))["output"] == \
        literature.CORPORA["full"][0]
