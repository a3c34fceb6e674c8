"""DeepSpeed engine-এর ভেতরের সংখ্যা: gradient কোন dtype-এ জমে, আর ১৬-বিট engine-এ কোন op কোন dtype-এ চলে (পাঠ ০৫)।

    from mishran import ds, ds_config, ds_numerics
    engine = ds.initialize(model, ds_config.config_for_device(micro_batch=8, accumulation_steps=16))
    ds_numerics.accumulation_error(engine, batches)      # optimizer যে জমানো gradient পায়, তার আপেক্ষিক ভুল

    ref = ds_numerics.fp64_reference(ds_numerics.OneBlockLM(vocab), batches)
    ds_numerics.compare_with_reference(engine, engine.module, batches, ref, backward=engine.backward)

deepspeed import হয় শুধু accumulation_error-এর ভেতরে; matplotlib বা ipywidgets নয়।
"""
from __future__ import annotations

import contextlib
import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["accumulation_error", "OneBlockLM", "fp64_reference", "compare_with_reference"]


def _relative_error(got, reference) -> float:
    """‖got − reference‖ / ‖reference‖, সব tensor মিলিয়ে, FP64-এ।"""
    pairs = zip(got, reference, strict=True)
    diff = sum(float(((g.detach().double().reshape(-1) - r.reshape(-1)) ** 2).sum()) for g, r in pairs)
    norm = sum(float((r ** 2).sum()) for r in reference)
    return math.sqrt(diff / norm) if norm > 0 else math.sqrt(diff)


def accumulation_error(engine, micro_batches) -> dict:
    """engine-এর এক optimizer step-এর micro-batch-গুলো চালিয়ে, optimizer যে জমানো gradient পায় তার ভুল মাপে (পাঠ ০৫)।

    তুলনা একই micro-gradient-গুলোর FP64 যোগফলের সঙ্গে: প্রতিটি ওজনে একটি hook backward-এর সময় ঠিক সেই
    gradient পায়, যা engine জমাতে যাচ্ছে, আর সেটি FP64-এ যোগ করে। তাই ভুলটা শুধু জমানো আর পাঠানোর
    (reduce-এর) rounding, forward/backward-এর নয়। শেষ micro-batch-এর backward-এর পরে — সীমানায়, reduce-এর
    পরে, optimizer step-এর আগে — DeepSpeed-এর নিজের deepspeed.utils.safe_get_full_grad দিয়ে জমানো gradient
    পড়া হয়; তারপর engine.step()।
    micro_batches: (x, y)-এর তালিকা, সংখ্যায় ঠিক engine-এর gradient_accumulation_steps।
    ফেরত: {"k", "error" (‖G − R‖ / ‖R‖), "accumulate_dtype", "communication_dtype", "optimizer"}।
    """
    from deepspeed.utils import safe_get_full_grad

    micro_batches = list(micro_batches)
    k = engine.gradient_accumulation_steps()
    if len(micro_batches) != k:
        raise ValueError(f"micro-batch {len(micro_batches)}টি, কিন্তু engine-এর gradient_accumulation_steps {k} "
                         "(one optimizer step needs exactly gradient_accumulation_steps micro-batches)।")
    params = [p for p in engine.module.parameters() if p.requires_grad]
    sums = [None] * len(params)

    def recorder(i):
        def hook(grad):
            sums[i] = grad.detach().double() if sums[i] is None else sums[i] + grad.detach().double()
        return hook

    handles = [p.register_hook(recorder(i)) for i, p in enumerate(params)]
    try:
        for i, (x, y) in enumerate(micro_batches):
            _, loss = engine(x.to(engine.device), y.to(engine.device))
            engine.backward(loss)
            if i < k - 1:
                engine.step()                 # সীমানার আগে: কিছুই হয় না, শুধু engine গোনে
        accumulated = [safe_get_full_grad(p) for p in params]
    finally:
        for handle in handles:
            handle.remove()
    used = [(g, s) for g, s in zip(accumulated, sums, strict=True) if s is not None]
    error = _relative_error([g for g, _ in used], [s for _, s in used])
    engine.step()
    return {"k": k, "error": error, "accumulate_dtype": engine.get_data_types()[1],
            "communication_dtype": engine.communication_data_type, "optimizer": type(engine.optimizer).__name__}


class OneBlockLM(nn.Module):
    """ছোট ভাষা-মডেল: embedding → LayerNorm → এক-head causal attention → logits → cross-entropy (পাঠ ০৫)।

    attention-এর softmax স্পষ্ট লেখা, যাতে তার dtype দেখা যায়। upcast=False: প্রতিটি op ওজন আর ইনপুটের
    dtype-এ চলে — ১৬-বিট engine-এ LayerNorm, softmax আর loss সবই ১৬ বিটে। upcast=True: TinyGPT-এর মতো
    সংবেদনশীল op-গুলো FP32-এ — LayerNorm আর softmax FP32-এ হিসাব করে ফল আবার মডেলের dtype-এ, আর loss-এর
    আগে logits.float()। প্রতিটি forward-এর পরে self.dtypes: যে dtype-এ LayerNorm, softmax, logits আর loss হিসাব হলো।
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


def fp64_reference(model: nn.Module, batches) -> dict:
    """model-এর একটি FP64 কপিতে (একই ওজন, model বদলায় না): প্রতিটি ব্যাচের loss, আর প্রথম ব্যাচের gradient (পাঠ ০৫)।"""
    ref = copy.deepcopy(model).double()
    losses = []
    for i, (x, y) in enumerate(batches):
        with torch.set_grad_enabled(i == 0):
            _, loss = ref(x, y)
        if i == 0:
            loss.backward()
        losses.append(loss.item())
    return {"losses": losses, "grads": [p.grad.detach() for p in ref.parameters()]}


def compare_with_reference(forward, module: nn.Module, batches, reference: dict, backward=None,
                           context=contextlib.nullcontext) -> dict:
    """একটি পথ (engine, autocast-এর ভেতরে মডেল, ...) FP64-এর তুলনায় কতটা সরে, আর কোন op কোন dtype-এ চলল (পাঠ ০৫)।

    forward(x, y) → (logits, loss): যে পথটা মাপতে চাও; module: যার .dtypes আর ওজনের .grad পড়া হবে;
    backward: প্রথম ব্যাচের loss-এর backward (ডিফল্ট loss.backward(); engine-এ engine.backward); context: প্রতিটি
    forward ঘিরে (যেমন lambda: torch.autocast("cpu", dtype=torch.bfloat16))।
    ফেরত: {"dtypes", "loss_error" (|loss − FP64 loss|-এর গড়), "grad_error" (প্রথম ব্যাচে, ‖g − g64‖ / ‖g64‖)}।
    """
    errors = []
    for i, (x, y) in enumerate(batches):
        with torch.set_grad_enabled(i == 0), context():
            _, loss = forward(x, y)
        if i == 0:
            (backward or (lambda value: value.backward()))(loss)
            dtypes = dict(module.dtypes)
            grads = [p.grad for p in module.parameters()]
        errors.append(abs(loss.item() - reference["losses"][i]))
    return {"dtypes": dtypes, "loss_error": sum(errors) / len(errors),
            "grad_error": _relative_error(grads, reference["grads"])}
