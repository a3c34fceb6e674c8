"""কোর্সের ডেটা: বাংলা লেখার সংকলন (corpus), অক্ষর-ভিত্তিক tokenizer, ব্যাচ আর ছোট কৃত্রিম ডেটা (পাঠ ০২ থেকে)।

ব্যাচ বানানো nanoGPT-এর get_batch-এর মতো: পুরো লেখা একটা লম্বা int64 tensor; তার ভেতরের এলোমেলো
জায়গা থেকে block_size লম্বা টুকরো কাটা হয়। এলোমেলো সংখ্যা আসে torch.Generator থেকে, তাই একই seed
দিলে হুবহু একই ব্যাচ। কিছুই ইন্টারনেট থেকে নামানো হয় না।
"""
from __future__ import annotations

import importlib.resources
import unicodedata
from pathlib import Path

import torch

from mishran.checks import as_seed, finite_float, positive_int

__all__ = ["data_file", "corpus_path", "load_corpus", "CharTokenizer", "CharDataset", "synthetic_regression",
           "BatchStream"]


def _text(text, what: str) -> str:
    """দরজার যাচাই: লেখা (str) কি না।"""
    if not isinstance(text, str):
        raise TypeError(f"{what} লেখা (str) নেয় (a str); পেয়েছি {type(text).__name__}: {str(text)[:60]!r}")
    return text


def data_file(name: str):
    """কোর্সের সঙ্গে আসা একটি data ফাইল কোথায় (পাঠ ০২, ০৮): repository-র data/ ফোল্ডারে (editable install বা git
    checkout), নইলে installed প্যাকেজের ভেতরে mishran/corpus/-এ (Colab-এ git থেকে সাধারণ install)।"""
    repo_file = Path(__file__).resolve().parents[2] / "data" / name
    if repo_file.is_file():
        return repo_file
    packaged = importlib.resources.files("mishran") / "corpus" / name
    if packaged.is_file():
        return packaged
    raise FileNotFoundError(f"কোর্সের ফাইল {name} পাওয়া যায়নি (data file not found); খুঁজেছি {repo_file} আর "
                            "mishran/corpus/-এ। repository থেকে কোর্সটা আবার install করো।")


def corpus_path():
    """কোর্সের corpus ফাইল কোথায় (পাঠ ০২)।"""
    return data_file("bn_corpus.txt")


def load_corpus(path=None) -> str:
    """corpus পড়ে NFC রূপে ফেরত দেয় (পাঠ ০২)। path না দিলে কোর্সের data/bn_corpus.txt।

    NFC কেন: একই বাংলা অক্ষর (যেমন ড়) দুইভাবে লেখা যায় — এক code point বা ড + ়। এক রূপে না আনলে
    tokenizer একই অক্ষরকে দুটো আলাদা অক্ষর ভাববে।
    """
    source = corpus_path() if path is None else Path(path)
    return unicodedata.normalize("NFC", source.read_text(encoding="utf-8"))


class CharTokenizer:
    """প্রতিটি আলাদা অক্ষর (Unicode code point) একটি token (পাঠ ০২)। শব্দভান্ডার (vocab) সাজানো ক্রমে।"""

    def __init__(self, text: str):
        self.chars = sorted(set(_text(text, "CharTokenizer()")))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        """শব্দভান্ডারে কয়টি আলাদা অক্ষর (token)।"""
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        """লেখা → token id-এর list (পাঠ ০২)।"""
        try:
            return [self.stoi[ch] for ch in text]
        except KeyError as err:
            raise ValueError(f"অক্ষর {err.args[0]!r} শব্দভান্ডারে নেই (unknown character); "
                             "tokenizer যে লেখা থেকে বানানো, তাতে এটা ছিল না") from None

    def decode(self, ids) -> str:
        """token id-এর list (বা 1-D tensor) → লেখা (পাঠ ০২)।"""
        if isinstance(ids, torch.Tensor):
            ids = ids.reshape(-1).tolist()
        return "".join(self.chars[i] for i in ids)

    def __repr__(self):
        return f"CharTokenizer(vocab_size={self.vocab_size})"


class CharDataset:
    """পুরো লেখা token-এ বদলে train/val দুই ভাগ: প্রথম ৯০% train, শেষ ১০% val (পাঠ ০২, ০৭)।

    text না দিলে কোর্সের corpus। একটানা কেটে ভাগ করা হয় (nanoGPT-এর মতো), এলোমেলো করে নয়, যাতে val
    লেখাটা মডেল প্রশিক্ষণে কখনো দেখেনি।
    """

    def __init__(self, text: str | None = None, val_fraction: float = 0.1, tokenizer: CharTokenizer | None = None):
        val_fraction = finite_float(val_fraction, "val_fraction", minimum=0.0)
        if val_fraction >= 1:
            raise ValueError(f"val_fraction হবে 0 থেকে 1-এর নিচে (val_fraction must be in [0, 1)), যেমন 0.1; "
                             f"পেয়েছি {val_fraction!r}")
        text = load_corpus() if text is None else unicodedata.normalize("NFC", _text(text, "CharDataset()"))
        self.tokenizer = tokenizer or CharTokenizer(text)
        data = torch.tensor(self.tokenizer.encode(text), dtype=torch.long)
        n_train = int(len(data) * (1 - val_fraction))
        self.train_data, self.val_data = data[:n_train], data[n_train:]

    @property
    def vocab_size(self) -> int:
        """শব্দভান্ডারে কয়টি আলাদা অক্ষর (token)।"""
        return self.tokenizer.vocab_size

    def get_batch(self, split: str, batch_size: int, block_size: int, device="cpu",
                  generator: torch.Generator | None = None):
        """(x, y) ফেরত দেয়, দুটোই int64, আকার (B, T)। y হলো x-এর এক অক্ষর পরের টুকরো: মডেল শেখে পরের অক্ষর।

        generator একটি CPU torch.Generator; একই seed দিলে একই ব্যাচ। না দিলে torch-এর global RNG।
        """
        if split not in ("train", "val"):
            raise ValueError(f"split হবে 'train' বা 'val' (unknown split); পেয়েছি {split!r}")
        data = self.train_data if split == "train" else self.val_data
        if len(data) <= block_size:
            raise ValueError(f"block_size={block_size} খুব বড় (block_size too large): '{split}' অংশে মাত্র "
                             f"{len(data)}টি token")
        ix = torch.randint(len(data) - block_size, (batch_size,), generator=generator)  # (B,) শুরুর জায়গা
        x = torch.stack([data[i:i + block_size] for i in ix])          # (B, T)
        y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])  # (B, T), এক ঘর সরানো
        if torch.device(device).type == "cuda":
            # pinned memory থেকে GPU-তে কপি CPU-কে আটকে রাখে না (non_blocking), nanoGPT-এর মতো
            return x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
        return x.to(device), y.to(device)

    def __repr__(self):
        return (f"CharDataset(vocab_size={self.vocab_size}, train={len(self.train_data)}, "
                f"val={len(self.val_data)})")


def synthetic_regression(n: int = 512, d: int = 8, seed: int = 0, noise: float = 0.05):
    """ছোট কৃত্রিম regression ডেটা MLP-র জন্য (পাঠ ০২–০৪): x ~ N(0, 1), y = sin(x·w) + নয়েজ।

    ফেরত দেয় (x, y): float32, আকার (n, d) আর (n, 1)। একই seed দিলে হুবহু একই ডেটা।
    """
    n, d = positive_int(n, "n"), positive_int(d, "d")
    noise = finite_float(noise, "noise", minimum=0.0)
    seed = as_seed(seed)
    g = torch.Generator().manual_seed(0 if seed is None else seed)      # None: seed 0
    x = torch.randn(n, d, generator=g)
    w = torch.randn(d, 1, generator=g) / d ** 0.5   # x·w-এর মাপ মোটামুটি ১
    y = torch.sin(x @ w) + noise * torch.randn(n, 1, generator=g)
    return x, y


class BatchStream:
    """প্রতি step-এ একটি global batch টানে, আর এই rank-এর micro-batch-গুলো একে একে দেয় (পাঠ ০৪, ০৫, ০৮)।

    সব rank একই seed-এর generator থেকে একই global batch টানে, আকার (accum, world, micro, T) করে rank r
    নেয় [:, r]; তাই GPU এক হোক বা দুই, এক step-এ মোট নমুনা একই। step-এর সীমানায় কেবল generator-এর
    অবস্থাই সব — checkpoint-এ সেটা রাখলেই resume-এ একই batch আসে।
    """

    def __init__(self, data, micro_batch: int, accumulation_steps: int, block_size: int, world_size: int = 1,
                 rank: int = 0, seed: int = 0):
        self.data, self.T, self.micro, self.accum = data, block_size, micro_batch, accumulation_steps
        self.world, self.rank = world_size, rank
        self.generator = torch.Generator().manual_seed(seed)
        self._queue = []

    @property
    def global_batch(self) -> int:
        """এক optimizer step-এ সব rank মিলে কয়টি sequence: micro × accumulation × world (পাঠ ০৮)।"""
        return self.micro * self.accum * self.world

    def __call__(self):
        if not self._queue:
            x, y = self.data.get_batch("train", self.global_batch, self.T, generator=self.generator)
            shape = (self.accum, self.world, self.micro, self.T)
            self._queue = list(zip(x.view(shape)[:, self.rank], y.view(shape)[:, self.rank], strict=True))
        return self._queue.pop(0)
