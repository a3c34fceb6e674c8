"""বাংলা সাহিত্যের সংকলন (পাঠ ০৮): খণ্ড পড়া, পুরো খণ্ড ধরে train/held-out ভাগ, আর প্রতি step-এর batch।

    data = LiteratureData()                      # bn_literature.txt, NFC, খণ্ড ধরে ভাগ করা
    big = LiteratureData(corpus="full")          # চার গুণ বড় সংকলন, bn_literature_full.txt
    stream = BatchStream(data, micro_batch=16, accumulation_steps=2, block_size=64, seed=0)

প্রতিটি খণ্ড (গল্প, কবিতা, অধ্যায়) শুরু হয় "### বই/ক্রম শিরোনাম" লাইনে; held-out নেয় পুরো খণ্ড, তাই একটি
গল্পের কোনো অংশ দুই দিকে পড়ে না।
"""
from __future__ import annotations

import json
import numbers
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import torch

from mishran.data import CharDataset, CharTokenizer, data_file

__all__ = ["LITERATURE_FILE", "CORPORA", "Piece", "literature_path", "provenance", "load_pieces", "split_by_work",
           "LiteratureData"]

LITERATURE_FILE = "bn_literature.txt"
# সংকলনের নাম → (লেখার ফাইল, provenance ফাইল); দুটোই data/-এ আর wheel-এর mishran/corpus/-এ
CORPORA = {"small": (LITERATURE_FILE, "bn_literature_provenance.json"),
           "full": ("bn_literature_full.txt", "bn_literature_full_provenance.json")}

_HEADER = re.compile(r"^### (\S+)/(\d+) ?(.*)$", re.MULTILINE)


@dataclass
class Piece:
    """সংকলনের একটি খণ্ড: একটি গল্প, কবিতা বা অধ্যায় (পাঠ ০৮)। work: বইয়ের id; index: বইয়ের ভেতরে ক্রম।"""

    work: str
    index: int
    title: str
    text: str


def literature_path(corpus: str = "small"):
    """সংকলনের ("small" বা "full") ফাইল কোথায়: repository-র data/, নইলে installed প্যাকেজের mishran/corpus/ (পাঠ ০৮)।"""
    return data_file(CORPORA[corpus][0])


def provenance(corpus: str = "small") -> dict:
    """সংকলনের উৎস: repository, commit, প্রতিটি বই, লেখকের জীবনকাল, লাইসেন্স, NFC-র গোনা (পাঠ ০৮)।"""
    return json.loads(data_file(CORPORA[corpus][1]).read_text(encoding="utf-8"))


def load_pieces(path=None, corpus: str = "small") -> list[Piece]:
    """সংকলন (path, নইলে corpus-এর ফাইল) পড়ে খণ্ডের তালিকা (NFC); "### বই/ক্রম শিরোনাম" লাইন কেবল সীমানা (পাঠ ০৮)।"""
    source = literature_path(corpus) if path is None else Path(path)
    parts = _HEADER.split(unicodedata.normalize("NFC", source.read_text(encoding="utf-8")))[1:]
    # split-এর পরে চারটি করে: বই, ক্রম, শিরোনাম, পরের শিরোনাম পর্যন্ত লেখা
    return [Piece(parts[i], int(parts[i + 1]), parts[i + 2], parts[i + 3].strip("\n")) for i in range(0, len(parts), 4)]


def split_by_work(pieces, every: int = 10, offset: int = 5):
    """(train, held-out): প্রতিটি বইয়ের index % every == offset খণ্ডগুলো held-out — পুরো খণ্ড, অক্ষর নয় (পাঠ ০৮);
    held-out-এ প্রায় সব বই থেকে কিছু (প্রায় ১০%), আর একটি গল্পের কোনো অংশ দুই দিকে পড়ে না।"""
    return [p for p in pieces if p.index % every != offset], [p for p in pieces if p.index % every == offset]


class LiteratureData:
    """খণ্ড ধরে ভাগ করা ডেটা, CharDataset-এর মতো: tokenizer, train_data, val_data, get_batch (পাঠ ০৮)।

    tokenizer সব খণ্ডের অক্ষর থেকে (held-out-এর বিরল অক্ষরও যেন encode হয়); pieces না দিলে corpus-এর সব খণ্ড।
    """

    get_batch = CharDataset.get_batch

    def __init__(self, pieces=None, every: int = 10, offset: int = 5, corpus: str = "small"):
        if not isinstance(corpus, str) or corpus not in CORPORA:       # ভুল নাম আগেই ধরা পড়ুক, pieces দিলেও
            raise ValueError(f"অচেনা সংকলন {corpus!r} (unknown corpus); বেছে নাও: {', '.join(map(repr, CORPORA))}।")
        pieces = load_pieces(corpus=corpus) if pieces is None else pieces
        if any(isinstance(v, bool) or not isinstance(v, numbers.Integral) for v in (every, offset)) \
                or every < 2 or not 0 <= offset < every:
            raise ValueError(f"every ≥ 2 আর 0 ≤ offset < every, দুটোই পূর্ণসংখ্যা (integers with every >= 2, "
                             f"0 <= offset < every); পেয়েছি every={every!r}, offset={offset!r}")
        self.train_pieces, self.heldout_pieces = split_by_work(pieces, every, offset)
        if not self.train_pieces or not self.heldout_pieces:
            raise ValueError("train বা held-out ভাগ খালি (empty split); every/offset বদলাও বা আরও খণ্ড দাও")
        self.train_text = "\n\n".join(p.text for p in self.train_pieces)
        self.heldout_text = "\n\n".join(p.text for p in self.heldout_pieces)
        self.tokenizer = CharTokenizer("".join(p.text for p in pieces) + "\n")
        self.train_data = torch.tensor(self.tokenizer.encode(self.train_text), dtype=torch.long)
        self.val_data = torch.tensor(self.tokenizer.encode(self.heldout_text), dtype=torch.long)

    @property
    def vocab_size(self) -> int:
        """tokenizer-এর অক্ষর-সংখ্যা (পাঠ ০৮)।"""
        return self.tokenizer.vocab_size

    def __repr__(self):
        return (f"LiteratureData(vocab_size={self.vocab_size}, train={len(self.train_data)} অক্ষর "
                f"{len(self.train_pieces)} খণ্ডে, held-out={len(self.val_data)} অক্ষর {len(self.heldout_pieces)} খণ্ডে)")


