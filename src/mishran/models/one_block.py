"""এক block-এর ভাষা-মডেল: DeepSpeed engine-এর ভেতরে কোন op কোন dtype-এ চলে তা দেখার মডেল (পাঠ ০৫)।
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["OneBlockLM"]


class OneBlockLM(nn.Module):
    """ছোট ভাষা-মডেল: embedding → LayerNorm → এক-head causal attention → logits → cross-entropy (পাঠ ০৫)।

    attention-এর softmax স্পষ্ট লেখা, যাতে তার dtype দেখা যায়। upcast=False: প্রতিটি op ওজন আর ইনপুটের dtype-এ চলে —
    ১৬-বিট engine-এ LayerNorm, softmax আর loss সবই ১৬ বিটে। upcast=True: TinyGPT-এর মতো LayerNorm আর softmax FP32-এ
    হিসাব করে ফল আবার মডেলের dtype-এ, আর loss-এর আগে logits.float()। forward-এর পরে self.dtypes: কোনটি কোন dtype-এ হলো।
    """

    def __init__(self, vocab_size: int, n_embd: int = 64, seed: int = 0, upcast: bool = False):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, n_embd)
        self.ln = nn.LayerNorm(n_embd)
        self.qkv = nn.Linear(n_embd, 3 * n_embd)
        self.head = nn.Linear(n_embd, vocab_size)
        self.upcast = upcast
        self.dtypes: dict = {}
        generator = torch.Generator().manual_seed(seed)       # একই seed মানে হুবহু একই ওজন, global RNG ছোঁয় না
        with torch.no_grad():
            for module in (self.emb, self.qkv, self.head):
                module.weight.copy_(torch.randn(module.weight.shape, generator=generator) * 0.02)
            self.qkv.bias.zero_()
            self.head.bias.zero_()

    def forward(self, idx, targets):
        """(B, T) অক্ষর → (logits (B, T, V), গড় cross-entropy)।"""
        x = self.emb(idx)
        if self.upcast:
            normed = F.layer_norm(x.float(), x.shape[-1:], self.ln.weight.float(), self.ln.bias.float())
            h = normed.to(x.dtype)
        else:
            normed = h = self.ln(x)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1))
        future = torch.ones(idx.size(1), idx.size(1), dtype=torch.bool, device=idx.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        weights = torch.softmax(scores.float() if self.upcast else scores, dim=-1)
        logits = self.head(h + weights.to(v.dtype) @ v)
        loss = F.cross_entropy((logits.float() if self.upcast else logits).flatten(0, 1), targets.flatten())
        self.dtypes = {"LayerNorm": normed.dtype, "softmax": weights.dtype, "logits": logits.dtype, "loss": loss.dtype}
        return logits, loss
