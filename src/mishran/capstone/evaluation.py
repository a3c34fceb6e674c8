"""একটি অক্ষর-ভিত্তিক ভাষা-মডেলের মাপকাঠি (পাঠ ০৮): bits per character, bigram-এর তুলনা, লেখা নমুনা আর তার
শব্দের কত ভাগ চেনা, গতি আর MFU; আর সেরা held-out-এর checkpoint (early stopping)।

    bpc = heldout_bpc(model, data.val_data, block_size=64, precision="bf16")
    text = sample(model, data.tokenizer, "সে দিন সকালে", max_new_tokens=100, top_k=20)
"""
from __future__ import annotations

import math
import unicodedata

import torch
from torch.nn import functional as F

from mishran.checks import as_device, as_seed, finite_float, positive_int
from mishran.measure.flops import mfu, peak_tflops_for
from mishran.precision import autocast

__all__ = ["bits_per_char", "bigram_bpc", "heldout_bpc", "BestCheckpoint", "sample", "vocabulary_share",
           "speed_figures"]


# ---------------------------------------------------------------- মাপ: bits per character

def bits_per_char(total_nll_nats: float, n_chars: int) -> float:
    """প্রতি অক্ষরে বিট = মোট negative log-likelihood (nat-এ) ÷ অক্ষরের সংখ্যা ÷ ln 2 (পাঠ ০৮)।"""
    return total_nll_nats / n_chars / math.log(2)


def _ids(ids, name: str, vocab_size: int) -> torch.Tensor:
    """অক্ষরের id-এর সারি (list বা 1-D পূর্ণসংখ্যার tensor, অন্তত দুটি, 0 থেকে vocab_size − 1) → tensor।"""
    try:
        ids = torch.as_tensor(ids)
    except (TypeError, ValueError, RuntimeError, OverflowError):
        ids = None
    if ids is None or ids.dim() != 1 or len(ids) < 2 or ids.dtype.is_floating_point or ids.dtype.is_complex \
            or ids.dtype == torch.bool or ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(f"{name} হবে অক্ষরের id-এর একটি সারি: অন্তত দুটি পূর্ণসংখ্যা, 0 থেকে vocab_size − 1 "
                         f"({name} must be a 1-D list of at least two token ids in range)")
    return ids


def bigram_bpc(train_ids, val_ids, vocab_size: int, alpha: float = 0.1) -> float:
    """bigram মডেল: P(পরের অক্ষর | এই অক্ষর) = (গোনা + alpha) / (সারির যোগ + alpha·V), train থেকে গোনা (পাঠ ০৮);
    held-out-এর প্রতিটি অক্ষর (প্রথমটি বাদে) আগেরটি দেখে আন্দাজ — transformer-এর মতো একই লক্ষ্যগুলো।"""
    if positive_int(vocab_size, "vocab_size") > 2 ** 14:          # V×V গোনার ছক: এর বেশি হলে মেমরিতে ধরে না
        raise ValueError(f"vocab_size অনেক বড় (vocab_size too large for a bigram table; at most 16384): {vocab_size}")
    alpha = finite_float(alpha, "alpha", positive=True)
    train_ids, val_ids = _ids(train_ids, "train_ids", vocab_size), _ids(val_ids, "val_ids", vocab_size)
    counts = torch.full((vocab_size, vocab_size), float(alpha), dtype=torch.float64)
    counts.index_put_((train_ids[:-1], train_ids[1:]), torch.ones(len(train_ids) - 1, dtype=torch.float64),
                      accumulate=True)
    logp = counts.log() - counts.sum(1, keepdim=True).log()
    nll = -logp[val_ids[:-1], val_ids[1:]].sum().item()
    return bits_per_char(nll, len(val_ids) - 1)


@torch.no_grad()
def heldout_bpc(model, val_ids, block_size: int, device="cpu", precision: str = "fp32", batch: int = 64,
                max_chars: int | None = None) -> float:
    """held-out-এর bits per character: লেখাটা block_size-এর পাশাপাশি টুকরোয় কেটে সব অক্ষর একবার করে (পাঠ ০৮);
    প্রতিটি টুকরোর প্রথম অক্ষর কম context পায় — সব মডেলের জন্য একই নিয়ম। max_chars দিলে শুধু শুরুর অতটুকু।"""
    ids = val_ids if max_chars is None else val_ids[:max_chars + 1]
    n = len(ids) - 1
    pad = -n % block_size                                            # শেষ টুকরোর খালি ঘর
    x = F.pad(ids[:-1], (0, pad)).view(-1, block_size)
    y = F.pad(ids[1:], (0, pad), value=-1).view(-1, block_size)     # -1: গোনা হয় না
    was_training = model.training
    model.eval()
    total = 0.0
    for i in range(0, len(x), batch):
        xb, yb = x[i:i + batch].to(device), y[i:i + batch].to(device)
        with autocast(device, precision):
            logits, _ = model(xb)
        total += F.cross_entropy(logits.float().view(-1, logits.size(-1)), yb.view(-1), ignore_index=-1,
                                 reduction="sum").item()
    model.train(was_training)
    return bits_per_char(total, n)


# ---------------------------------------------------------------- সেরা held-out checkpoint

class BestCheckpoint:
    """সবচেয়ে কম held-out bpc-এর মূল্যায়ন: তার step আর ওজনের একটি কপি (CPU-তে, তাই GPU-র peak মেমরি বাড়ে না)।

    শেষের ওজন নয়, এটাই রাখার মতো: overfitting শুরু হলে train-এর loss কমতেই থাকে, held-out-এর bpc বাড়ে (পাঠ ০৮)।
    patience দিলে `stop` বলে কখন থামা উচিত: পরপর এতগুলো মূল্যায়নে নতুন সেরা আসেনি (early stopping)।"""

    def __init__(self, patience: int | None = None):
        self.bpc, self.step, self.weights, self.patience, self.since = math.inf, None, None, patience, 0

    def update(self, model: torch.nn.Module, step: int, bpc: float) -> bool:
        """নতুন মূল্যায়ন; আগের সেরার চেয়ে কম হলে ওজন কপি করে True।"""
        if bpc < self.bpc:
            self.bpc, self.step, self.since = bpc, step, 0
            self.weights = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
            return True
        self.since += 1
        return False

    @property
    def stop(self) -> bool:
        """patience-এর নিয়মে এখন থামা উচিত কি না।"""
        return self.patience is not None and self.since >= self.patience

    def restore(self, model: torch.nn.Module) -> None:
        """সেরা মূল্যায়নের ওজন মডেলে ফেরায় (কোনো মূল্যায়ন না হয়ে থাকলে কিছু করে না)।"""
        if self.weights is not None:
            model.load_state_dict(self.weights)

    def state_dict(self) -> dict:
        """checkpoint-এ রাখার জন্য: resume-এর পরেও সেরাটা হারায় না।"""
        return {"bpc": self.bpc, "step": self.step, "since": self.since, "weights": self.weights}

    def load_state_dict(self, state: dict) -> None:
        """state_dict()-এর উল্টো।"""
        self.bpc, self.step, self.since, self.weights = state["bpc"], state["step"], state["since"], state["weights"]


# ---------------------------------------------------------------- নমুনা লেখা

def sample(model, tokenizer, prompt: str, max_new_tokens: int = 200, temperature: float = 0.8,
           top_k: int | None = 20, seed: int = 0, device="cpu") -> str:
    """prompt-এর পরে মডেল যা লেখে (prompt বাদে), TinyGPT.generate দিয়ে (সে temperature-ও যাচাই করে) (পাঠ ০৮)।"""
    if not isinstance(prompt, str) or not prompt:           # মডেল অন্তত একটি অক্ষর দেখে তবে লেখে
        raise ValueError(f"prompt হবে অন্তত একটি অক্ষরের লেখা (prompt must be a non-empty str); পেয়েছি {prompt!r:.40}")
    seed = as_seed(-1 if seed is None else seed)            # None-ও নয়: একই seed-এ একই লেখা চাই
    top_k = None if top_k is None else positive_int(top_k, "top_k (or None)")
    device = as_device(device)
    prompt = unicodedata.normalize("NFC", prompt)
    idx = torch.tensor([tokenizer.encode(prompt)], dtype=torch.long, device=device)
    was_training = model.training
    model.eval()
    out = model.generate(idx, max_new_tokens, temperature=temperature, top_k=top_k,
                         generator=torch.Generator().manual_seed(seed))
    model.train(was_training)
    return tokenizer.decode(out[0, idx.size(1):])


_PUNCT = "।॥,;:!?.\"'‘’“”()[]—–-…"


def _words(text: str) -> list[str]:
    return [w for w in (t.strip(_PUNCT) for t in text.split()) if w]


def vocabulary_share(generated: str, train_text: str) -> dict:
    """লেখা শব্দের কত ভাগ train-এর শব্দভান্ডারে আছে (যতিচিহ্ন ছেঁটে; শেষ শব্দটি কাটা হতে পারে, তাই বাদ) (পাঠ ০৮)।"""
    vocab = set(_words(train_text))
    words = _words(generated)[:-1]
    known = sum(w in vocab for w in words)
    return {"words": len(words), "known": known, "share": known / len(words) if words else float("nan")}

# ---------------------------------------------------------------- গতি আর MFU

def speed_figures(step_times, warmup: int, tokens_per_step: int, flops_per_token: int, precision: str,
                  device_name: str | None = None, world_size: int = 1) -> dict:
    """একটি run-এর গতি: warmup বাদে token/s, এক token-এর FLOP, peak আর MFU (পাঠ ০৮)। peak যে precision-এ run চলল
    তারই (FP32-এর peak BF16-এর চেয়ে অনেক ছোট); device_name None (CPU) হলে peak অজানা, MFU None।"""
    timed = step_times[warmup:] if len(step_times) > warmup else step_times
    tokens_per_s = tokens_per_step * len(timed) / sum(timed) if timed and sum(timed) > 0 else None
    peak = peak_tflops_for(device_name, precision) if device_name else None
    return {"tokens_per_s": tokens_per_s, "flops_per_token": flops_per_token, "peak_tflops_per_gpu": peak,
            "mfu": mfu(flops_per_token * tokens_per_step * len(timed), sum(timed), peak, world_size)
            if tokens_per_s else None}
