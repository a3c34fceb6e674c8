"""autocast-এর forward-এ কোন aten op কোন dtype-এ চলল, তার খাতা (পাঠ ১০)।

autocast dispatcher-এর যে স্তরে ইনপুট cast করে, TorchDispatchMode তার নিচে বসে: তাই এখানে যা দেখা যায়, তা-ই আসলে
চলেছে — cast-গুলো (aten._to_copy) সহ। নিয়মগুলো এই device-এর autocast-এর: CPU-র তালিকা CUDA-র থেকে আলাদা (যেমন
CPU-তে FP16 autocast softmax আর layer_norm-কে FP32-এ তোলে না)। view আর detach গোনা হয় না — ওরা হিসাব করে না।

একই খাতা FLOP-ও গোনে, torch.utils.flop_counter-এর নিজের সূত্রে (FlopCounterMode যেগুলো ব্যবহার করে) — FlopCounterMode
নিজে প্রথমবার torch._dynamo import করে, যাতে কয়েক সেকেন্ড (ব্যস্ত CPU-তে আরও বেশি) লাগে; এই খাতা তা করে না।
"""
from __future__ import annotations

from collections import Counter

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from mishran.checkup.report import OpRow
from mishran.checkup.step import tensors_in

__all__ = ["OP_KINDS", "RISKY_KINDS", "op_kind", "OpRecorder"]

OP_KINDS = {
    "softmax": {"_softmax", "softmax", "_log_softmax", "log_softmax", "_safe_softmax"},
    "normalization": {"native_layer_norm", "layer_norm", "native_batch_norm", "_native_batch_norm_legit",
                      "_native_batch_norm_legit_no_training", "_batch_norm_with_update", "_batch_norm_no_update",
                      "batch_norm", "native_group_norm", "group_norm", "instance_norm", "rms_norm", "_fused_rms_norm",
                      "cudnn_batch_norm"},
    "reduction": {"sum", "mean", "var", "std", "var_mean", "std_mean", "norm", "linalg_vector_norm", "cumsum",
                  "cumprod", "prod", "logsumexp", "nansum"},
    "loss": {"nll_loss_forward", "nll_loss", "nll_loss2d_forward", "nll_loss_nd", "cross_entropy_loss", "mse_loss",
             "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
             "kl_div", "soft_margin_loss", "multilabel_margin_loss_forward", "poisson_nll_loss"},
    "matmul": {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "convolution", "_convolution",
               "cudnn_convolution", "mkldnn_convolution", "_scaled_dot_product_flash_attention",
               "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
               "_scaled_dot_product_flash_attention_for_cpu", "addmv", "mv", "dot"},
    "cast": {"_to_copy", "to", "copy_", "_to_dtype"},
}
"""op-এর ধরন → aten-এর নাম (overload ছাড়া)।"""

RISKY_KINDS = ("reduction", "normalization", "softmax", "loss")
"""এগুলো ১৬-বিটে চললে সূক্ষ্মতা (যোগফল, গড়, ভেদ) বা পরিসর (exp) হারাতে পারে — সারিতে flagged।"""

_SIXTEEN = (torch.float16, torch.bfloat16)


def op_kind(name: str) -> str:
    """aten op-এর নাম (যেমন '_softmax') → তার ধরন, না মিললে 'other' (পাঠ ১০)।"""
    return next((kind for kind, names in OP_KINDS.items() if name in names), "other")


class OpRecorder(TorchDispatchMode):
    """with-block-এর ভেতরে চলা প্রতিটি aten op আর তার প্রথম floating output-এর dtype গোনে, আর FLOP (পাঠ ১০)।

    paused=True থাকলে গোনে না (check-up-এর নিজের পরিসংখ্যানের op-গুলো খাতায় ওঠে না)।
    """

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # নতুন torch প্রতিটি mode-এর __torch_dispatch__ torch._dynamo.disable দিয়ে মোড়ে, আর প্রথম ডাকে পুরো dynamo
        # import করে (ব্যস্ত CPU-তে ১০ সেকেন্ডের বেশি)। এখানে কিছু compile হয় না, তাই মোড়ার দরকার নেই।
        return False

    def __init__(self):
        super().__init__()
        self.calls: Counter = Counter()
        self.flops = 0
        self.paused = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.paused:
            return out
        if func.overloadpacket in flop_registry:
            self.flops += flop_registry[func.overloadpacket](*args, **kwargs, out_val=out)
        name = func.overloadpacket.__name__
        if not (getattr(func, "is_view", False) or name in ("detach", "alias", "lift_fresh")):
            dtypes = [t.dtype for t in tensors_in(out) if t.is_floating_point()]
            if dtypes:
                self.calls[(name, dtypes[0])] += 1
        return out

    def rows(self, precision: str) -> list[OpRow]:
        """খাতাটি সারি হিসেবে, বেশি-ডাকা আগে।"""
        rows = []
        for (name, dtype), calls in self.calls.most_common():
            kind, low = op_kind(name), dtype in _SIXTEEN
            rows.append(OpRow(precision, f"aten.{name}", kind, calls, str(dtype).removeprefix("torch."), low,
                              low and kind in RISKY_KINDS))
        return rows
