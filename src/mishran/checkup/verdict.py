"""check-up-এর রায়: কোন precision, কোন module FP32-এ রাখতে হবে, আর বাংলায় পরামর্শ — কোড আর DeepSpeed-এর block সহ
(পাঠ ১০)।

নিয়ম: লক্ষ্যের প্রস্তাব আসে mishran.precision.for_device থেকে (T4/V100 → fp16 + loss scaling, Ampere/Hopper → bf16,
CPU → bf16); BF16-এ step ভেঙে গেলে (loss বা gradient inf/NaN, বা gradient-এর cosine COSINE_FLOOR-এর নিচে) → fp32।
FP16-এর লক্ষ্যে আর কিছু নেই, তাই fp16 থাকে — ভাঙা module-গুলো keep_fp32-এ।
"""
from __future__ import annotations

import json
import math

from mishran import precision

__all__ = ["ADDED_LIMIT", "ERROR_FLOOR", "COSINE_FLOOR", "innermost", "keep_fp32", "broken", "recommend",
           "ds_config", "advice"]

ADDED_LIMIT = 10.0
"""একটি module নিজে তার input-এর ত্রুটির (বা ফরম্যাটের unit roundoff-এর) এত গুণ ত্রুটি যোগ করলে সে সন্দেহভাজন…"""

ERROR_FLOOR = 0.01
"""…যদি তার output-এর আপেক্ষিক ত্রুটি অন্তত এটুকু (1%) হয়।"""

COSINE_FLOOR = 0.9
"""১৬-বিটের gradient আর FP32-এর gradient-এর cosine এর নিচে নামলে step "ভাঙা"।"""


def innermost(names) -> list[str]:
    """যে নামের কোনো উত্তরসূরি (child, grandchild…) তালিকায় আছে, তাকে বাদ দেয়: দোষটা সবচেয়ে ভেতরের module-এর
    (পাঠ ১০)। মূল মডেলের নাম ''।"""
    names = list(dict.fromkeys(names))
    return [n for n in names if not any(o != n and (n == "" or o.startswith(n + ".")) for o in names)]


def keep_fp32(rows, name: str) -> list[str]:
    """name precision-এ যে module-গুলো নিজেই inf/NaN বা max-এর বেশি বানায় (forward বা backward), বা নিজে অনেক ত্রুটি
    যোগ করে (added ≥ ADDED_LIMIT আর rel_error ≥ ERROR_FLOOR) — সবচেয়ে ভেতরেরগুলো (পাঠ ১০)।"""
    flagged = []
    for row in rows:
        run = row.runs.get(name)
        if run and (run.forward_overflow or run.backward_overflow
                    or (run.added >= ADDED_LIMIT and run.rel_error >= ERROR_FLOOR)):
            flagged.append(row.name)
    return innermost(flagged)


def broken(loss: float, cosine: float, grads_nonfinite: bool, error: str | None) -> bool:
    """একটি ১৬-বিটের step ভাঙা কি না: চলেইনি, loss বা gradient inf/NaN, বা gradient-এর দিক সরে গেছে (পাঠ ১০)।"""
    return error is not None or not math.isfinite(loss) or grads_nonfinite or not cosine >= COSINE_FLOOR


def recommend(candidate: str, is_broken: dict) -> str:
    """লক্ষ্যের প্রস্তাব (candidate) আর কোন precision ভাঙা (precision → bool) থেকে সুপারিশ (পাঠ ১০)।"""
    if candidate == "bf16" and is_broken.get("bf16", False):
        return "fp32"
    return candidate


def ds_config(name: str, init_scale: float | None) -> dict:
    """DeepSpeed config-এর precision block (mishran.precision.ds_block); fp16-এ dynamic loss scale আর শুরুর
    scale-এর ঘাত (initial_scale_power) সহ (পাঠ ১০)।"""
    block = precision.ds_block(name)
    if name == "fp16" and init_scale:
        block["fp16"].update({"loss_scale": 0, "initial_scale_power": round(math.log2(init_scale))})
    return block


def _why(report) -> list[str]:
    rows = {row.name: row for row in report.modules}
    name = next((p for p in report.precisions if p == report.recommended_precision), report.precisions[0])
    lines = []
    for module in report.keep_fp32:
        run = rows[module].runs[name]
        what = ("forward-এ inf/NaN" if run.forward_overflow else "backward-এ inf/NaN" if run.backward_overflow
                else f"ত্রুটি (relative error) {run.rel_error:.2g}, input-এর {run.added:.0f} গুণ")
        lines.append(f"  - {module or '(পুরো মডেল)'} ({rows[module].kind}, {name.upper()}): {what}")
    return lines


def _code(report) -> list[str]:
    device = "cpu" if report.target_capability is None else "cuda"
    lines = []
    for name in report.keep_fp32:
        call = f'model.get_submodule("{name}")' if name else "model"
        lines += [f"    with torch.autocast(\"{device}\", enabled=False):", f"        x = {call}(x.float())"]
    return lines


def _verdict_lines(report) -> list[str]:
    name = report.recommended_precision
    if name == "fp16":
        k = round(math.log2(report.fp16_init_scale))
        return [f"সুপারিশ (recommended precision): FP16 autocast + loss scaling — "
                f"grad_scaler(device, 'fp16', init_scale=2.0**{k})  # = {report.fp16_init_scale:g}"]
    if name == "bf16":
        return ["সুপারিশ (recommended precision): BF16 autocast — পরিসর FP32-এর সমান, loss scaling লাগে না।"]
    why = " BF16-এ step ভেঙে যায় (loss/gradient inf/NaN বা দিক সরে যায়)।" if "bf16" in report.precisions else ""
    return [f"সুপারিশ (recommended precision): FP32।{why}"]


def _window(scale) -> str:
    if scale.window_ok:
        return f"নিরাপদ loss scale (safe range): {scale.low:g} থেকে {scale.high:g}"
    need = f"underflow তুলতে লাগে ≥ {scale.low:g}" if scale.low else "2**24 পর্যন্ত কোনো scale underflow তোলে না"
    return f"দুটোই মেটায় এমন loss scale নেই (no safe window): {need}, overflow ছাড়া সর্বোচ্চ {scale.high:g}"


def _finding_lines(report) -> list[str]:
    lines = []
    for p in report.precisions:
        if report.errors.get(p):
            lines.append(f"{p.upper()}-এ step চলেনি (failed): {report.errors[p]}")
        if report.overflow_modules.get(p):
            lines.append(f"{p.upper()}-এ overflow (inf/NaN বা max-এর বেশি): {', '.join(report.overflow_modules[p])}; "
                         f"প্রথম inf/NaN (first non-finite): {report.first_nonfinite.get(p)}")
        if report.near_max_modules.get(p):
            lines.append(f"{p.upper()}-এ max-এর কাছে (near max): {', '.join(report.near_max_modules[p])}")
    if report.underflow_params.get("fp16"):
        lines.append(f"FP16-এ loss scale 1-এ underflow (>1% gradient শূন্য): {', '.join(report.underflow_params['fp16'])}"
                     f"; {_window(report.loss_scale)}")
    flagged = sorted({row.op for row in report.ops if row.flagged})
    if flagged:
        lines.append(f"১৬-বিটে চলা reduction/normalisation/softmax/loss ({report.autocast_rules}-এর autocast-এর নিয়মে): "
                     + ", ".join(flagged))
    return lines


def advice(report) -> str:
    """CheckupReport-এর (advice ছাড়া বাকি সব ভরা) বাংলা পরামর্শ: কোথায় মাপা, সুপারিশ, কী পাওয়া গেল, কোন module
    FP32-এ রাখতে হবে তার কোড, আর DeepSpeed-এর block (পাঠ ১০)।"""
    cap = f" (sm_{report.target_capability[0]}{report.target_capability[1]})" if report.target_capability else ""
    lines = [f"check-up: {report.model}, লক্ষ্য (target) {report.target}{cap}; forward/backward-এর সংখ্যা "
             f"{report.numbers_label}, autocast-এর নিয়ম {report.autocast_rules}-এর।"]
    lines += _verdict_lines(report) + _finding_lines(report) + report.notes
    if report.keep_fp32:
        lines.append("এই module-গুলো FP32-এ রাখো (keep_fp32) — forward-এ autocast বন্ধ করে input upcast করো:")
        lines += _why(report) + _code(report)
    lines.append(f"DeepSpeed config-এর precision block: {json.dumps(report.ds_config)}")
    return "\n".join(lines)
