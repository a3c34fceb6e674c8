"""DeepSpeed engine-এর ভেতরের সংখ্যা: gradient কোন dtype-এ জমে, আর ১৬-বিট engine-এ কোন op কোন dtype-এ চলে (পাঠ ০৫)।

    from mishran.engines import deepspeed_config, deepspeed_engine
    from mishran.measure import deepspeed_numerics
    engine = deepspeed_engine.initialize(model, deepspeed_config.config_for_device(micro_batch=8, accumulation_steps=4))
    deepspeed_numerics.accumulation_error(engine, batches)      # optimizer যে জমানো gradient পায়, তার আপেক্ষিক ভুল
    ref = deepspeed_numerics.fp64_reference(one_block.OneBlockLM(vocab), batches)
    deepspeed_numerics.compare_with_reference(engine, engine.module, batches, ref, backward=engine.backward)
"""
from __future__ import annotations

import contextlib
import copy

import torch
from torch import nn

from mishran.numerics.error import relative_error

__all__ = ["accumulation_error", "accumulation_errors", "fp64_reference", "compare_with_reference"]


def accumulation_error(engine, micro_batches) -> dict:
    """engine-এর এক optimizer step-এর micro-batch-গুলো (ঠিক gradient_accumulation_steps-টি (x, y)) চালিয়ে, optimizer
    যে জমানো gradient পায় তার আপেক্ষিক ভুল মাপে (পাঠ ০৫)।

    তুলনা একই micro-gradient-গুলোর FP64 যোগফলের সঙ্গে (প্রতিটি ওজনের hook engine-এর পাওয়া gradient-টিই FP64-এ
    যোগ করে), তাই ভুলটা শুধু জমানো আর reduce-এর rounding। জমানো gradient পড়া হয় সীমানায়, optimizer step-এর আগে,
    DeepSpeed-এর safe_get_full_grad দিয়ে। ফেরত: {"k", "error", "accumulate_dtype", "communication_dtype", "optimizer"}।
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
    error = relative_error([g for g, _ in used], [s for _, s in used])
    engine.step()
    return {"k": k, "error": error, "accumulate_dtype": engine.get_data_types()[1],
            "communication_dtype": engine.communication_data_type, "optimizer": type(engine.optimizer).__name__}


def accumulation_errors(engine, micro_batches, ks) -> dict:
    """একই engine-এ কয়েকটি k, বড় থেকে ছোট, প্রতিটিতে প্রথম k-টি micro-batch-এর একটি optimizer step (পাঠ ০৫)।

    k বসে DeepSpeed-এর engine.set_train_batch_size দিয়ে, নতুন engine ছাড়াই; micro-step-এর সীমানা মেলাতে প্রতিটি k
    আগেরটির ভাজক (যেমন 64, 16, 4)। ফেরত: {k: accumulation_error-এর dict}।
    """
    micro_batches = list(micro_batches)
    out = {}
    for k in sorted(set(ks), reverse=True):
        if len(micro_batches) < k or engine.micro_steps % k:
            raise ValueError(f"k = {k}: micro-batch {len(micro_batches)}টি, engine-এর micro-step {engine.micro_steps}; "
                             "k-গুলো বড় থেকে ছোট, প্রতিটি আগেরটির ভাজক হতে হবে (each k must divide the larger ones, "
                             "and there must be at least k micro-batches)।")
        engine.set_train_batch_size(engine.train_micro_batch_size_per_gpu() * k * engine.dp_world_size)
        out[k] = accumulation_error(engine, micro_batches[:k])
    return out


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
                           context=contextlib.nullcontext, gradients: bool = True) -> dict:
    """একটি পথ (engine, autocast-এর ভেতরে মডেল, ...) FP64-এর তুলনায় কতটা সরে, আর কোন op কোন dtype-এ চলল (পাঠ ০৫)।

    forward(x, y) → (logits, loss); module: যার .dtypes আর .grad পড়া হয়; backward: প্রথম ব্যাচের loss-এর (ডিফল্ট
    loss.backward()); context: প্রতিটি forward ঘিরে; gradients=False: backward নেই (যেমন FP16 engine, যার .grad
    loss scale দিয়ে গুণ করা)। ফেরত: {"dtypes", "loss_error" (গড় |loss − FP64 loss|), "grad_error" (প্রথম ব্যাচে)}।
    """
    errors, grad_error = [], None
    for i, (x, y) in enumerate(batches):
        first = i == 0
        with torch.set_grad_enabled(first and gradients), context():
            _, loss = forward(x, y)
        if first:
            dtypes = dict(module.dtypes)
        if first and gradients:
            (backward or (lambda value: value.backward()))(loss)
            grad_error = relative_error([p.grad for p in module.parameters()], reference["grads"])
        errors.append(abs(loss.item() - reference["losses"][i]))
    return {"dtypes": dtypes, "loss_error": sum(errors) / len(errors), "grad_error": grad_error}
