"""bench-এর মডেল আর তার মাপ (পাঠ ০৩, ০৭): BenchSizes, ReferenceTransformer (embedding → TransformerEncoder → head),
আর meta device-এ গোনা ওজন ও এক step-এর FLOP। mishran.measure.bench এগুলো দিয়ে সময় মাপে,
mishran.measure.profiler FP8-এর ভাগ গোনে।"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from mishran.checks import positive_int

__all__ = ["BenchSizes", "ReferenceTransformer", "FP8_LINEARS", "count_parameters", "flop_counts", "count_flops"]

FP8_LINEARS = ("linear1", "linear2")             # FP8-এ যায় শুধু encoder-এর MLP-র এই দুটি Linear (পাঠ ০৭)


@dataclass
class BenchSizes:
    """reference মডেল আর মাপার আকার (পাঠ ০৩, ০৭); warmup ০ চলে, বাকি সব ধনাত্মক পূর্ণসংখ্যা।"""

    layers: int
    d_model: int
    batch: int
    seq: int
    vocab: int
    steps: int
    warmup: int

    def __post_init__(self):
        for name in ("layers", "d_model", "batch", "seq", "vocab", "steps"):
            positive_int(getattr(self, name), name)
        if isinstance(self.warmup, bool) or not isinstance(self.warmup, int) or self.warmup < 0:
            raise ValueError(f"warmup হবে ০ বা বেশি পূর্ণসংখ্যা (warmup must be an integer >= 0); পেয়েছি {self.warmup!r}")

    @classmethod
    def for_device(cls, device: str) -> BenchSizes:
        """বড় GPU-তে FACTS-এর মাপ (৮ স্তর, d=1024, 32×512); CPU-তে ছোট, যাতে কয়েক সেকেন্ডে শেষ হয়।"""
        if device == "cuda":
            return cls(layers=8, d_model=1024, batch=32, seq=512, vocab=8192, steps=20, warmup=5)
        return cls(layers=2, d_model=128, batch=4, seq=32, vocab=256, steps=5, warmup=3)


class ReferenceTransformer(nn.Module):
    """bench-এর মডেল: embedding → nn.TransformerEncoder → linear head; nanoGPT-এর মতো (logits, loss) দেয়।"""

    def __init__(self, layers: int, d_model: int, vocab: int):
        super().__init__()
        heads = max(1, d_model // 64) if d_model % 64 == 0 else 1
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, 0.0, "gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab)

    def forward(self, idx, targets=None):
        """idx (B, T) → logits, আর targets দিলে (logits, loss) (পাঠ ০৩, ০৭)।"""
        logits = self.head(self.encoder(self.embed(idx)))          # (B, T, vocab)
        loss = None if targets is None else F.cross_entropy(logits.flatten(0, 1), targets.flatten())
        return logits, loss


def count_parameters(sizes: BenchSizes) -> int:
    """reference মডেলের ওজনের সংখ্যা (meta device-এ বানিয়ে গোনা, তাই মেমরি লাগে না)।"""
    with torch.device("meta"):
        return sum(p.numel() for p in ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab).parameters())


def flop_counts(sizes: BenchSizes) -> dict:
    """এক training step-এর FLOP, module ধরে: {module-এর নাম: {op: FLOP}}, 'Global' পুরো মডেল (পাঠ ০৭)। meta device-এ
    গোনা: হিসাব বা মেমরি লাগে না, আর attention ভেঙে bmm হয় বলে তা-ও গোনা পড়ে (CPU-র fused kernel FlopCounterMode চেনে না)।"""
    with torch.device("meta"):
        model = ReferenceTransformer(sizes.layers, sizes.d_model, sizes.vocab)
        x = torch.randint(0, sizes.vocab, (sizes.batch, sizes.seq))
    with FlopCounterMode(display=False) as counter:
        _, loss = model(x, x)
        loss.backward()
    return counter.get_flop_counts()


def count_flops(sizes: BenchSizes) -> int:
    """এক training step-এর মোট FLOP (forward + backward-এর matmul ও attention; optimizer-এর elementwise কাজ নয়)
    (পাঠ ০৩, ০৭)।"""
    return sum(flop_counts(sizes)["Global"].values())
