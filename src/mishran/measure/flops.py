"""FLOP গোনা আর MFU (model FLOPs utilization): এক token-এর FLOP, GPU-র চূড়ান্ত হার, কত ভাগ কাজে লাগল (পাঠ ০৭, ০৮)।
"""
from __future__ import annotations

from mishran.checks import finite_float, positive_int
from mishran.hardware import peak_tflops
from mishran.models.gpt import TinyGPT

__all__ = ["flops_per_token", "peak_tflops_for", "mfu"]


def flops_per_token(model: TinyGPT) -> int:
    """এক token-এ forward + backward-এর FLOP ≈ 6·N + 12·L·T·C (PaLM-এর হিসাব; N = matmul-এর ওজন) (পাঠ ০৮)।

    N থেকে অবস্থানের embedding বাদ (ওটা matmul নয়); বাঁধা অক্ষর-embedding lm_head-এ matmul, তাই গোনা।
    """
    c = model.config
    n = model.num_parameters() - model.transformer.wpe.weight.numel()
    return 6 * n + 12 * c.n_layer * c.block_size * c.n_embd


def peak_tflops_for(device_name: str, precision: str) -> float | None:
    """এই GPU-র নাম আর precision-এর নামে (mishran.precision.NAMES) dense সর্বোচ্চ TFLOP/s; অজানা হলে None (পাঠ ০৮)।"""
    return peak_tflops(device_name)[1].get(precision)


def mfu(flops: float, seconds: float, peak_tflops_per_gpu: float | None, world_size: int = 1) -> float | None:
    """MFU (model FLOPs utilization) = মডেলের দরকারি FLOP ÷ তাতে লাগা সেকেন্ড ÷ (GPU-প্রতি dense peak × GPU-র সংখ্যা)।

    peak অজানা (None বা 0) হলে None। পাঠ ০৭ এটি mishran.measure.flops.mfu নামে ডাকে (এক step: flops, step_s), পাঠ ০৮
    speed_figures দিয়ে (warmup-এর পরের সব step)।
    """
    if peak_tflops_per_gpu is None or not finite_float(peak_tflops_per_gpu, "peak_tflops_per_gpu (or None)", minimum=0):
        return None
    seconds = finite_float(seconds, "seconds (step time)", positive=True)
    world = positive_int(world_size, "world_size")
    return finite_float(flops, "flops", minimum=0) / seconds / (peak_tflops_per_gpu * 1e12 * world)
