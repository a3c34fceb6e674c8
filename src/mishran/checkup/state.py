"""check-up মডেলটিকে যেমন পেয়েছিল, বিটে বিটে তেমনই ফেরত দেয় (পাঠ ১০)।

যা রাখা হয়: ওজন (CPU-তে একটি কপি — GPU-র মেমরিতে নয়), gradient (যে tensor ছিল সেটাই, বা None), buffer (যেমন
BatchNorm-এর running statistics — প্রতিটি forward এগুলো বদলায়), প্রতিটি module-এর training/eval mode, আর RNG-এর
অবস্থা (torch-এর CPU RNG, CUDA-তে CUDA RNG-ও)। প্রতিটি চালানোর আগে reset() buffer আর RNG আগের জায়গায় আনে, তাই
FP32 আর ১৬-বিটের step একই dropout mask আর একই BatchNorm অবস্থা থেকে শুরু হয়।
"""
from __future__ import annotations

import torch

__all__ = ["ModelState"]

_INT_VIEW = {2: torch.int16, 4: torch.int32, 8: torch.int64}


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    b = b.to(a.device)
    if a.is_floating_point() and a.element_size() in _INT_VIEW:       # -0.0 বনাম 0.0, NaN-এর বিটও ধরা পড়ে
        kind = _INT_VIEW[a.element_size()]
        return torch.equal(a.detach().contiguous().view(kind), b.contiguous().view(kind))
    return torch.equal(a.detach(), b)


class ModelState:
    """একটি মডেলের পুরো অবস্থার ছবি; restore() সেটি বিটে বিটে ফেরত আনে (পাঠ ১০)।

        state = ModelState(model, device)
        try:
            state.reset(); ...          # প্রতিটি step-এর আগে
        finally:
            state.restore()
    """

    def __init__(self, model: torch.nn.Module, device: torch.device):
        self.device = torch.device(device)
        self.modes = [(m, m.training) for m in model.modules()]
        self.grads = [(p, p.grad) for p in model.parameters()]
        self.params = [(m, key, p, p.detach().to("cpu", copy=True))
                       for m in model.modules() for key, p in m.named_parameters(recurse=False)]
        self.buffers = [(m, key, b, b.detach().clone())
                        for m in model.modules() for key, b in m.named_buffers(recurse=False)]
        self.cpu_rng = torch.get_rng_state()
        self.cuda_rng = torch.cuda.get_rng_state(self.device) if self.device.type == "cuda" else None

    def reset(self) -> None:
        """buffer আর RNG আগের অবস্থায়, সব gradient None — পরের step শুরু হয় একই জায়গা থেকে।"""
        _put_back(self.buffers, "_buffers")
        torch.set_rng_state(self.cpu_rng)
        if self.cuda_rng is not None:
            torch.cuda.set_rng_state(self.cuda_rng, self.device)
        for p, _ in self.grads:
            p.grad = None

    def restore(self) -> None:
        """সব কিছু check-up-এর আগের মতো: ওজন (বদলে থাকলে), gradient-এর সেই tensor-ই, buffer, mode, RNG।"""
        self.reset()
        _put_back(self.params, "_parameters")
        for p, grad in self.grads:
            p.grad = grad
        for m, training in self.modes:
            m.training = training


def _put_back(entries, table: str) -> None:
    """প্রতিটি (module, নাম, আসল tensor, কপি): module-এর table-এ সেই আসল tensor-ই, আর তার বিট কপির মতো।"""
    with torch.no_grad():
        for m, key, original, saved in entries:
            slots = getattr(m, table)
            if slots.get(key) is not original:
                slots[key] = original
            if not _same_bits(original, saved):
                original.copy_(saved)
