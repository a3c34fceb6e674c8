"""যেকোনো মডেলকে একটি batch খাওয়ানো আর তার loss বের করা — check-up-এর দরজা (পাঠ ১০)।

batch একটি tensor হলে model(batch), tuple/list হলে model(*batch), dict হলে model(**batch)। loss আসে output থেকে:
একটি scalar tensor, `.loss` (HF-এর ধাঁচে), dict-এর "loss", বা tuple-এর প্রথম scalar। loss_fn দিলে batch হবে
(inputs, target) জোড়া: model(inputs)-এর logits (tensor, `.logits`, dict-এর "logits" বা tuple-এর প্রথমটি) আর target
যায় loss_fn(logits, target)-এ; batch জোড়া না হলে loss_fn(logits)।
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping

import torch
from torch.nn import functional as F
from torch.overrides import TorchFunctionMode

__all__ = ["tensors_in", "split_batch", "run_model", "loss_of", "NoDropout", "LossFnFailed"]

_NO_TARGET = object()
_DROPOUTS = {F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout,
             torch.dropout, torch.alpha_dropout, torch.feature_dropout, torch.feature_alpha_dropout}
_SDPA_ARGS = ("attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")     # query, key, value-এর পরে
_MHA = inspect.signature(F.multi_head_attention_forward)


class NoDropout(TorchFunctionMode):
    """with-block-এর ভেতরে dropout বন্ধ: F.dropout-এর পরিবার input-ই ফেরত দেয়, scaled_dot_product_attention-এর
    dropout_p হয় 0 (পাঠ ১০)। কেন: একই RNG থেকেও CUDA-তে FP32 আর ১৬-বিটের dropout-এর mask আলাদা হয় (kernel dtype
    অনুযায়ী আলাদা), তখন তুলনাটা precision-এর থাকে না। skipped: কতবার বন্ধ করা হলো।"""

    def __init__(self):
        super().__init__()
        self.skipped = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _DROPOUTS:
            p = args[1] if len(args) > 1 else kwargs.get("p", 0.5)
            acting = p and (args[2] if len(args) > 2 else kwargs.get("training", kwargs.get("train", True)))
            self.skipped += bool(acting)
            return args[0] if args else kwargs["input"]
        if func is F.multi_head_attention_forward:
            # এর ভেতরের SDPA-র dropout mode দেখতে পায় না (handler চলার সময় mode বন্ধ থাকে): dropout_p-ই 0
            bound = _MHA.bind(*args, **kwargs)
            if bound.arguments.get("dropout_p") and bound.arguments.get("training", True):
                self.skipped += 1
                bound.arguments["dropout_p"] = 0.0
            return func(*bound.args, **bound.kwargs)
        if func is F.scaled_dot_product_attention:
            kwargs = {**dict(zip(_SDPA_ARGS, args[3:], strict=False)), **kwargs}
            args = args[:3]
            if kwargs.get("dropout_p"):
                self.skipped += 1
                kwargs["dropout_p"] = 0.0
        return func(*args, **kwargs)


def tensors_in(obj) -> list[torch.Tensor]:
    """obj-এর ভেতরের সব tensor, ক্রমে: tensor, tuple/list, dict (HF-এর ModelOutput-ও), dataclass, বা .loss/.logits
    আছে এমন output (পাঠ ১০)।"""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for item in obj for t in tensors_in(item)]
    if isinstance(obj, Mapping):
        return [t for item in obj.values() for t in tensors_in(item)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [t for f in dataclasses.fields(obj) for t in tensors_in(getattr(obj, f.name))]
    found = [getattr(obj, key, None) for key in ("loss", "logits")]
    return [t for item in found if item is not None for t in tensors_in(item)]


def split_batch(batch, loss_fn):
    """batch → (model-এর inputs, loss_fn-এর target) (পাঠ ১০)। loss_fn না থাকলে পুরো batch-ই inputs।"""
    if loss_fn is None:
        return batch, _NO_TARGET
    if isinstance(loss_fn, type):
        name = loss_fn.__name__
        raise TypeError(f"loss_fn একটি class ({name}), বস্তু (instance) নয়: বানিয়ে দাও — loss_fn={name}() "
                        "(pass an instance, not the class)")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn হবে একটি function, যেমন torch.nn.CrossEntropyLoss() (loss_fn must be callable); "
                        f"পেয়েছি {type(loss_fn).__name__}")
    if isinstance(batch, (list, tuple)) and len(batch) == 2:
        return batch[0], batch[1]
    return batch, _NO_TARGET


def run_model(model, inputs):
    """model-কে inputs খাওয়ায়: tensor → model(x), tuple/list → model(*x), dict → model(**x) (পাঠ ১০)।"""
    if isinstance(inputs, Mapping):
        return model(**inputs)
    if isinstance(inputs, (list, tuple)):
        return model(*inputs)
    return model(inputs)


def _field(output, key):
    if isinstance(output, Mapping):
        return output.get(key)
    return getattr(output, key, None)


def _scalar(loss, where: str) -> torch.Tensor:
    if not isinstance(loss, torch.Tensor) or not loss.is_floating_point():
        raise TypeError(f"{where} একটি floating-point tensor নয় (the loss must be a floating-point tensor); "
                        f"পেয়েছি {type(loss).__name__}")
    if loss.numel() != 1:
        raise ValueError(f"{where} scalar নয়, আকার {tuple(loss.shape)} (non-scalar loss): backward-এর জন্য একটি "
                         "সংখ্যা লাগে — যেমন loss.mean() নাও, বা reduction='mean' দাও")
    return loss.reshape(())


def _loss_in(output) -> torch.Tensor:
    if isinstance(output, torch.Tensor):
        if output.numel() == 1:
            return _scalar(output, "মডেলের output")
    elif _field(output, "loss") is not None:
        return _scalar(_field(output, "loss"), "output-এর loss")
    elif isinstance(output, (list, tuple)):
        found = [t for t in output if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel() == 1]
        if found:
            return found[0].reshape(())
    raise ValueError("মডেলের output-এ কোনো loss নেই (no loss in the output, and no loss_fn): output একটি scalar, "
                     "`.loss`, বা (logits, loss) ধাঁচের tuple হতে হবে — নইলে loss_fn দাও, যেমন "
                     "checkup(model, (x, y), loss_fn=torch.nn.CrossEntropyLoss()); HF মডেলে batch-এ labels দাও")


def _logits(output) -> torch.Tensor:
    if isinstance(output, torch.Tensor):
        return output
    found = _field(output, "logits")
    if found is None and isinstance(output, (list, tuple)) and output:
        found = output[0]
    if not isinstance(found, torch.Tensor):
        raise TypeError(f"output থেকে logits পাওয়া গেল না (no logits in the output: {type(output).__name__}); "
                        "মডেল একটি tensor, `.logits`, বা (logits, ...) tuple ফেরত দিক")
    return found


class LossFnFailed(ValueError):
    """শিক্ষার্থীর loss_fn নিজেই ভুল তুলল (পাঠ ১০): বার্তায় output আর target-এর আকার ও dtype, কী মেলাতে হবে।"""


def _shape_of(obj) -> str:
    if isinstance(obj, torch.Tensor):
        return f"আকার (shape) {tuple(obj.shape)}, dtype {str(obj.dtype).removeprefix('torch.')}"
    return f"{type(obj).__name__}, tensor নয়"


def _loss_failed(err: Exception, logits, target) -> LossFnFailed:
    if target is _NO_TARGET:              # batch দুই ভাগের নয়: loss_fn পেল শুধু output — target-টাই নেই
        return LossFnFailed(
            f"loss_fn(output) চলল না (loss_fn failed): {type(err).__name__}: {err} — output: {_shape_of(logits)}। batch "
            "দুই ভাগের নয়, তাই loss_fn পেল শুধু output, কোনো target নয়: target লাগলে batch দাও দুটির একটি tuple, "
            "(inputs, target), যেমন (x, y) — তখন model(inputs) আর loss_fn(output, target) (with loss_fn, the batch "
            "is (inputs, target))")
    seen = f"output: {_shape_of(logits)}; target: {_shape_of(target)}"
    return LossFnFailed(
        f"loss_fn(output, target) চলল না (loss_fn failed): {type(err).__name__}: {err} — {seen}। loss_fn যা চায়, "
        "আকার আর dtype সেভাবে মেলাও: যেমন CrossEntropyLoss চায় output (N, C) আর target (N,), dtype long (int64); "
        "(B, T, C)-এর logits হলে loss_fn-এর ভেতরে logits.flatten(0, 1) আর target.flatten()")


def loss_of(output, target, loss_fn) -> torch.Tensor:
    """মডেলের output (আর target) থেকে scalar loss (পাঠ ১০); না পেলে বা scalar না হলে বাংলা + ইংরেজি বার্তায় ভুল;
    loss_fn নিজে ভুল তুললে LossFnFailed, output আর target-এর আকার ও dtype সহ।"""
    if loss_fn is None:
        return _loss_in(output)
    logits = _logits(output)
    try:
        loss = loss_fn(logits) if target is _NO_TARGET else loss_fn(logits, target)
    except Exception as err:  # noqa: BLE001 — শিক্ষার্থীর loss_fn-এর যেকোনো ভুল: আকার আর dtype দেখিয়ে আবার ছোড়া হয়
        raise _loss_failed(err, logits, target) from err
    return _scalar(loss, "loss_fn-এর ফল")
