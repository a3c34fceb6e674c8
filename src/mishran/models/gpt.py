"""TinyGPT: nanoGPT-এর ধাঁচে অক্ষর-ভিত্তিক ছোট ভাষা-মডেল, আর তার মাপের সারণি (পাঠ ০২ থেকে; পুরোটা পাঠ ০৭-এ)।

কোড device-নিরপেক্ষ: .to("cuda") করলে GPU-তে চলে, আর torch.autocast-এর ভেতরে (BF16 বা FP16) চলে।
seed দিলে ওজন আসে নিজস্ব torch.Generator থেকে, তাই একই seed মানে হুবহু একই মডেল; seed না দিলে
torch.manual_seed দিয়ে ঠিক করা global RNG।
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint as _checkpoint

from mishran.checks import as_bool, as_seed, finite_float, positive_int

__all__ = ["GPTConfig", "TinyGPT", "CausalSelfAttention", "FeedForward", "Block", "MAX_NEW_TOKENS", "GPT_SIZES"]

GPT_SIZES = {
    "tiny": dict(block_size=64, n_layer=2, n_head=4, n_embd=64),       # ≈ 0.1M ওজন: CPU-তে কয়েক সেকেন্ডে
    "small": dict(block_size=128, n_layer=4, n_head=4, n_embd=128),    # ≈ 0.8M ওজন: CPU-তে এক-দুই মিনিটে
    "gpu": dict(block_size=256, n_layer=6, n_head=6, n_embd=384),      # ≈ 10.7M ওজন (nanoGPT-এর char মডেলের মাপ)
    # ≈ 57M ওজন: H200-এ BF16-এ GPU ব্যস্ত থাকে (micro-batch 128-এ MFU ~30%, compile করলে ~36%); gpu-মাপে ~9%
    "h200": dict(block_size=256, n_layer=8, n_head=12, n_embd=768),
}
"""কোর্সের TinyGPT-এর মাপ, নাম → GPTConfig-এর ঘর (vocab_size ছাড়া), একটাই সারণি: capstone (পাঠ ০৮) আর
কয়েক-GPU-র launcher mishran.engines.multi_gpu (পাঠ ০৫, ০৯: CPU-তে tiny, GPU-তে h200) দুজনেই এখান থেকে নেয়।"""

MAX_NEW_TOKENS = 1_000_000     # generate() এক অক্ষর করে লেখে: এর বেশি মানে CPU-তে ঘণ্টা, কোনো পাঠে লাগে না


@dataclass
class GPTConfig:
    """TinyGPT-এর মাপ। ডিফল্টে প্রায় এক লাখ ওজন: CPU-তে কয়েক সেকেন্ডে শতখানেক ধাপ (পাঠ ০২, ০৭)।"""

    vocab_size: int
    block_size: int = 64     # একবারে সবচেয়ে বেশি কয়টি অক্ষর দেখে (context)
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    dropout: float = 0.0
    checkpoint: bool = False  # activation checkpointing, প্রতিটি block (পাঠ ০৬): মেমরি কম, backward-এ আবার forward

    def __post_init__(self):
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            setattr(self, name, positive_int(getattr(self, name), name))
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd ({self.n_embd}) n_head ({self.n_head}) দিয়ে বিভাজ্য হতে হবে (n_embd must be "
                             "divisible by n_head): প্রতিটি head সমান মাপের")
        self.dropout = finite_float(self.dropout, "dropout", minimum=0.0)
        if self.dropout >= 1:
            raise ValueError(f"dropout হবে 0 থেকে 1-এর নিচে (dropout must be in [0, 1)); পেয়েছি {self.dropout!r}")
        self.checkpoint = as_bool(self.checkpoint, "checkpoint")


class CausalSelfAttention(nn.Module):
    """প্রতিটি অক্ষর কেবল নিজের আর আগের অক্ষরগুলো দেখে (causal), সামনেরগুলো নয়।"""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.n_head = config.n_head
        self.dropout = config.dropout
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)  # q, k, v একসঙ্গে
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.resid_dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        """x (B, T, C) → (B, T, C): প্রতিটি অবস্থানে আগের অবস্থানগুলোর মানের ভারযুক্ত গড়, n_head টি মাথায় আলাদা করে।"""
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)   # প্রতিটি (B, nh, T, hs)
                   for t in self.c_attn(x).split(C, dim=2))                       # q, k, v একসঙ্গে হিসাব
        # is_causal=True: ভবিষ্যতের অক্ষর ঢেকে রাখে; GPU-তে flash attention kernel নিজে বেছে নেয়
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=True)              # (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)               # মাথাগুলো আবার পাশাপাশি
        return self.resid_dropout(self.c_proj(y))


class FeedForward(nn.Module):
    """প্রতিটি অবস্থানে আলাদা করে দুই স্তরের MLP: C → 4C → GELU → C (পাঠ ০৭)।"""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        """x (B, T, C) → (B, T, C), প্রতিটি অবস্থান আলাদা করে।"""
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    """LayerNorm আগে (pre-norm), তারপর attention আর MLP; দুটোই residual যোগ।"""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = FeedForward(config)

    def forward(self, x):
        """x (B, T, C) → (B, T, C): x + attention(LayerNorm(x)), তারপর একইভাবে MLP।"""
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


class TinyGPT(nn.Module):
    """ছোট decoder-only transformer: আগের অক্ষরগুলো দেখে পরের অক্ষর আন্দাজ করে (পাঠ ০২, ০৭)।"""

    def __init__(self, config: GPTConfig, seed: int | None = None):
        super().__init__()
        self.config = config
        seed = as_seed(seed)                  # ভুল seed হলে কিছু বানানোর আগেই থামি
        g = None if seed is None else torch.Generator().manual_seed(seed)
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),   # অক্ষরের embedding
            wpe=nn.Embedding(config.block_size, config.n_embd),   # অবস্থানের embedding
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        # weight tying: ইনপুটের embedding আর আউটপুটের ওজন একই tensor; ওজন কমে, শেখাও ভালো হয়
        self.transformer.wte.weight = self.lm_head.weight

        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02, generator=g)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        # residual পথে যোগ হওয়া প্রক্ষেপণ ছোট করে শুরু (GPT-2): স্তর বাড়লেও যোগফলের মাপ না ফুলুক
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer), generator=g)

    def num_parameters(self) -> int:
        """মোট ওজনের সংখ্যা (tied ওজন একবারই গোনা)।"""
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx, targets=None):
        """idx: (B, T) int64 → (logits (B, T, vocab_size), loss বা None)।"""
        B, T = idx.shape
        if T > self.config.block_size:
            raise ValueError(f"ইনপুট {T} অক্ষর লম্বা, কিন্তু block_size মাত্র {self.config.block_size} "
                             "(sequence too long); ছোট টুকরো দাও")
        pos = torch.arange(T, device=idx.device)                                  # (T,)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))  # (B, T, C)
        for block in self.transformer.h:
            if self.config.checkpoint and torch.is_grad_enabled():
                # block-এর ভেতরের activation রাখা হয় না, শুধু তার ইনপুট x; backward-এ block আবার চলে (পাঠ ০৬)
                x = _checkpoint(block, x, use_reentrant=False)
            else:
                x = block(x)
        x = self.transformer.ln_f(x)
        logits = self.lm_head(x)                                                  # (B, T, V)
        loss = None
        if targets is not None:
            # loss FP32-এ: autocast-এর ভেতরে logits 16 বিটের হতে পারে, আর log-softmax-এর যোগফলে সূক্ষ্মতা লাগে
            loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None,
                 generator: torch.Generator | None = None):
        """idx (B, T)-এর পরে একে একে max_new_tokens অক্ষর যোগ করে (B, T + max_new_tokens) ফেরত দেয়।

        temperature < 1 মানে বেশি নিশ্চিত, > 1 মানে বেশি এলোমেলো। generator দিলে একই seed-এ একই লেখা। আগে model.eval()
        ডেকে নাও (dropout বন্ধ)। max_new_tokens আর temperature যাচাই হয় এখানেই: শিক্ষার্থীর দরজা evaluation.sample এটা ডাকে।
        """
        if (isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int)
                or not 0 <= max_new_tokens <= MAX_NEW_TOKENS):
            raise ValueError(f"max_new_tokens হবে 0 থেকে {MAX_NEW_TOKENS:,}-এর একটি পূর্ণসংখ্যা (max_new_tokens must be "
                             f"an integer in [0, {MAX_NEW_TOKENS:,}]); পেয়েছি {str(max_new_tokens)[:40]}")
        temperature = finite_float(temperature, "temperature", minimum=1e-3)   # আরও ছোট: logits ÷ T = inf
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -self.config.block_size:]       # context block_size-এর বেশি নয়
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :].float() / temperature    # (B, V): কেবল শেষ অবস্থানের আন্দাজ
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("inf")
            probs = F.softmax(logits, dim=-1)
            if generator is not None and generator.device != probs.device:
                # CPU generator দিয়ে GPU মডেল থেকেও একই নমুনা: নমুনা CPU-তে টানা হয়
                idx_next = torch.multinomial(probs.cpu(), 1, generator=generator).to(idx.device)
            else:
                idx_next = torch.multinomial(probs, 1, generator=generator)  # (B, 1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx
