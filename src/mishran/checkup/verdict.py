"""check-up-এর রায়: কোন precision, কোন module FP32-এ রাখতে হবে, আর বাংলায় পরামর্শ — কোড আর DeepSpeed-এর block সহ
(পাঠ ১০)।

নিয়ম: লক্ষ্যের প্রস্তাব আসে mishran.precision.for_device থেকে (T4/V100 → fp16 + loss scaling, Ampere/Hopper → bf16,
CPU → bf16); BF16-এ step ভেঙে গেলে (loss বা gradient inf/NaN, বা gradient-এর cosine COSINE_FLOOR-এর নিচে) → fp32।
FP16-ও তাই: ভাঙলে, আর keep_fp32 রেখে আবার চালিয়েও না সারলে → fp32। প্রস্তাবের step চলেইনি (কোনো op এই
dtype-এ নেই): লক্ষ্যের হিসাব এই যন্ত্রে emulation হলে রায় অজানা (UNKNOWN: ভুলটা হয়তো এই যন্ত্রের, লক্ষ্যের নয়), নইলে fp32।
"""
from __future__ import annotations

import json
import math

from mishran import precision

__all__ = ["ADDED_LIMIT", "ERROR_FLOOR", "COSINE_FLOOR", "KEPT_SHARE_LIMIT", "UNKNOWN", "innermost", "keep_fp32",
           "broken", "recommend", "ds_config", "advice"]

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
    """name precision-এ যে module-গুলো নিজেই inf/NaN বা max-এর বেশি বানায় (forward বা backward), বা — পাতা (leaf)
    module হলে — নিজে অনেক ত্রুটি যোগ করে (added ≥ ADDED_LIMIT আর rel_error ≥ ERROR_FLOOR); সবচেয়ে ভেতরেরগুলো
    (পাঠ ১০)। ত্রুটির নিয়ম শুধু পাতায়: ভেতরে module আছে এমন module-এর (যেমন ResNet-এর পুরো encoder) "যোগ করা"
    ত্রুটি তার ভেতরের সবার ত্রুটির যোগফল — তাকে FP32-এ রাখার পরামর্শ মানে প্রায় পুরো মডেল FP32-এ।"""
    names = [row.name for row in rows]
    flagged = []
    for row in rows:
        run = row.runs.get(name)
        leaf = not any(o.startswith(row.name + ".") or (row.name == "" and o) for o in names)
        if run and (run.forward_overflow or run.backward_overflow
                    or (leaf and run.added >= ADDED_LIMIT and run.rel_error >= ERROR_FLOOR)):
            flagged.append(row.name)
    return innermost(flagged)


def broken(loss: float, cosine: float, grads_nonfinite: bool, error: str | None) -> bool:
    """একটি ১৬-বিটের step ভাঙা কি না: চলেইনি, loss বা gradient inf/NaN, বা gradient-এর দিক সরে গেছে (পাঠ ১০)।"""
    return error is not None or not math.isfinite(loss) or grads_nonfinite or not cosine >= COSINE_FLOOR


KEPT_SHARE_LIMIT = 0.5
"""keep_fp32-এর module-গুলোয় মডেলের parameter-এর এর বেশি ভাগ থাকলে ১৬-বিটে লাভ সামান্য: তখন সোজা FP32।"""


UNKNOWN = "unknown"
"""recommended_precision, যখন প্রস্তাবের step emulation-এ চলেইনি: রায় লক্ষ্যের যন্ত্রে চালিয়ে জানতে হবে।"""


def recommend(candidate: str, is_broken: dict, check: dict | None = None, failed: bool = False,
              emulated: bool = False) -> str:
    """লক্ষ্যের প্রস্তাব (candidate), কোন precision ভাঙা (precision → bool), আর keep_fp32 রেখে আবার চালানো step-এর
    ফল (check) থেকে সুপারিশ (পাঠ ১০): লক্ষ্যের ১৬-বিট (BF16 বা FP16) ভাঙলে, কিন্তু keep_fp32 রেখে না ভাঙলে আর
    সেগুলোয় ওজনের অর্ধেকের কম থাকলে — সেই ১৬-বিট (keep_fp32-সহ); নইলে FP32 (ধীর, কিন্তু ঠিক — T4-এও)। failed:
    candidate-এর step চলেইনি — তখন emulated হলে UNKNOWN, নইলে FP32।"""
    if failed:
        return UNKNOWN if emulated else "fp32"
    if candidate in ("bf16", "fp16") and is_broken.get(candidate, False):
        fixed = check is not None and not check["broken"] and check["param_share"] <= KEPT_SHARE_LIMIT
        return candidate if fixed else "fp32"
    return candidate


def ds_config(name: str, init_scale: float | None) -> dict:
    """DeepSpeed config-এর precision block (mishran.precision.ds_block); fp16-এ dynamic loss scale আর শুরুর
    scale-এর ঘাত (initial_scale_power) সহ (পাঠ ১০)।"""
    if name == UNKNOWN or (name == "fp16" and init_scale and init_scale < 1):
        return {}                         # DeepSpeed-এর loss scale ১-এর নিচে নামে না (min_loss_scale ≥ 1)
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


def _unknown_line(report) -> str:
    p = report.target_precision.upper()
    return (f"সুপারিশ (recommended precision): অজানা (unknown) — {p}-এর step এই যন্ত্রে চলেনি (failed), আর লক্ষ্য "
            f"{report.target}-এর হিসাব এখানে emulation (emulated on {report.autocast_rules.upper()}): ভুলটা হয়তো এই যন্ত্রের "
            f"autocast-এর সীমা (যেমন CPU-র oneDNN-এ FP16-এর LSTM নেই), {report.target}-এর নয়। লক্ষ্যের যন্ত্রে "
            "check-up আবার চালাও।")


def _verdict_lines(report) -> list[str]:
    name = report.recommended_precision
    if name == UNKNOWN:
        return [_unknown_line(report)]
    failed = report.errors.get(report.target_precision)
    if name == "fp32" and failed:
        return [f"সুপারিশ (recommended precision): FP32 — {report.target_precision.upper()}-এর step এই যন্ত্রেই চলেনি "
                "(failed; ভুলটা নিচে), তাই নিরাপদ পথ FP32।"]
    if name == "fp16":
        k = round(math.log2(report.fp16_init_scale))
        return [f"সুপারিশ (recommended precision): FP16 autocast + loss scaling — "
                f"grad_scaler(device, 'fp16', init_scale=2.0**{k})  # = {_int(report.fp16_init_scale)}"]
    if name == "bf16":
        return ["সুপারিশ (recommended precision): BF16 autocast — পরিসর FP32-এর সমান, loss scaling লাগে না।"]
    target = report.target_precision
    if target == "fp32" or target not in report.precisions:
        return ["সুপারিশ (recommended precision): FP32।"]
    kept = " — keep_fp32 রেখেও সারে না" if report.keep_fp32 else ""
    return [f"সুপারিশ (recommended precision): FP32। {target.upper()}-এ step ভেঙে যায় (loss/gradient inf/NaN বা দিক "
            f"সরে যায়){kept}: FP32-এ ধীর কিন্তু ঠিক; নয়তো যে module ভাঙে, তার কোড সারাও (অনুশীলনী ১০.৪-এর মতো)।"]


def _int(value: float) -> str:
    """loss scale (২-এর ধনাত্মক ঘাত) পুরো পূর্ণসংখ্যায়: 1048576, 1.04858e+06 নয়।"""
    return str(int(value)) if value >= 1 and value == int(value) else f"{value:g}"


def _window(scale) -> str:
    if scale.window_ok:
        return f"নিরাপদ scale-এর জানালা (safe window): {_int(scale.low)} থেকে {_int(scale.high)}"
    need = (f"underflow ১%-এর নিচে নামাতে লাগে ≥ {_int(scale.low)}" if scale.low
            else "2**24 পর্যন্ত কোনো scale underflow ১%-এর নিচে নামায় না")
    return (f"overflow নেই আর underflow ≤ ১% — দুই শর্তই মেটায় এমন loss scale নেই (নিরাপদ scale-এর জানালা নেই, "
            f"no safe window): {need}, কিন্তু overflow ছাড়া সর্বোচ্চ {_int(scale.high)}; init_scale তাই এই সর্বোচ্চটাই। "
            "যে parameter-গুলো নিচের সীমা টানে, তাদের gradient কি গণিতে শূন্য (যেমন BatchNorm-এর ঠিক আগের bias, "
            "attention-এর key-র bias)? তাহলে তাদের underflow ক্ষতি করে না")


def _dust_line(report) -> list[str]:
    """যে parameter-গুলোর rounding-এর গুঁড়ো জানালার নিচের প্রান্ত টানে (report.rounding_dust, checkup.dust), FP64-এর
    যাচাইসহ, আর গুঁড়ো বাদে জানালা কোথায় হতো। রায় বা init_scale বদলায় না — সিদ্ধান্ত শিক্ষার্থীর।"""
    found = report.rounding_dust
    if not found:
        return []
    other = report.window_without_dust
    without = (f"নিরাপদ scale-এর জানালা হতো {_int(other.low)} থেকে {_int(other.high)}" if other.window_ok
               else "নিচের প্রান্ত হতো " + (_int(other.low) if other.low else "2**24-এর ওপরে"))
    dust = [n for n, ok in found.items() if ok]
    real = [n for n, ok in found.items() if ok is False]
    unknown = [n for n, ok in found.items() if ok is None]
    lines = []
    if dust:
        lines.append(f"rounding-এর গুঁড়ো (rounding dust), FP64-এ যাচাই করা: {', '.join(dust)} — এদের যে gradient মডেলের "
                     "সবচেয়ে বড় gradient-এর 2**-24 ভাগেরও নিচে, FP64-এ ঠিক সেই জায়গাগুলো 2**-44 ভাগেরও নিচে নামে (FP64-এর "
                     "নিজের rounding-এর মাপ): FP32-এর হিসাবেও এরা rounding-এর শব্দ, FP32-এর প্রশিক্ষণও এই মান ঠিক পায় না — "
                     "তাই FP16-এ মুছে গেলে বাড়তি ক্ষতি নেই (প্রায়ই গণিতে শূন্য: attention-এর key-র bias, BatchNorm-এর ঠিক "
                     "আগের bias)।")
    if real:
        lines.append(f"{', '.join(real)}: gradient খুব ছোট, কিন্তু FP64-এও তা-ই — আসল gradient, গুঁড়ো নয়; জানালা যেমন আছে।")
    if unknown:
        lines.append(f"{', '.join(unknown)}: gradient সন্দেহজনক রকম ছোট (গুঁড়ো?), কিন্তু FP64-এ মডেলটি চালানো গেল না — "
                     "model.double()-এ এক step চালিয়ে নিজে দেখো, এগুলো আরও ছোট হয় কি না।")
    if dust or unknown:
        lines.append(f"গুঁড়ো বাদ দিলে {without}। করণীয়: ওপরের init_scale-ই নাও (GradScaler পরে নিজেই scale মানিয়ে নেয়); "
                     "BatchNorm-এর ঠিক আগের conv বা Linear-এ bias=False দিলে সেই parameter-টাই থাকে না।")
    return lines


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
        lines += _dust_line(report)
    flagged = sorted({row.op for row in report.ops if row.flagged})
    if flagged:
        lines.append(f"১৬-বিটে চলা reduction/normalization/softmax/loss ({report.autocast_rules.upper()}-র "
                     "autocast-এর নিয়মে): " + ", ".join(flagged))
    return lines


def _cost_line(report) -> list[str]:
    """সুপারিশের precision-এ খরচ কত বদলায়, FP32-এর তুলনায়: backward-এর জন্য রাখা বাইট আর step-এর সময় (এই device-এ)।"""
    costs = {c.precision: c for c in report.costs}
    ref, got = costs.get("fp32"), costs.get(report.recommended_precision)
    if ref is None or got is None or got is ref:
        return []
    kept = lambda c: c.activation_bytes + c.cast_cache_bytes                # noqa: E731
    unit, size = ("MiB", 2**20) if kept(ref) >= 2**20 else ("KiB", 2**10)
    line = (f"খরচ (cost), FP32-এর তুলনায়: backward-এর জন্য রাখা বাইট {kept(ref) / size:.1f} → "
            f"{kept(got) / size:.1f} {unit} (×{kept(got) / kept(ref):.2f})")
    if ref.step_seconds and got.step_seconds:
        line += (f"; forward+backward-এর সময় {ref.step_seconds * 1e3:.1f} → {got.step_seconds * 1e3:.1f} ms "
                 f"(×{got.step_seconds / ref.step_seconds:.2f}, {report.device.upper()}-তে মাপা")
        line += ", লক্ষ্যের যন্ত্রে নয়)" if report.emulated else ")"
    return [line]


def _check_line(check: dict | None) -> list[str]:
    if check is None:
        return []
    result = ("তবুও ভাঙা (still broken)" if check["broken"] else
              f"ঠিক আছে: gradient-এর cosine {check['grad_cosine']:.4f}, gradient-এর আপেক্ষিক ত্রুটি "
              f"{check['grad_rel_error']:.2g}")
    line = (f"যাচাই (checked): এগুলো FP32-এ রেখে {check['precision'].upper()}-এর step আবার চালানো হলো — {result}; "
            f"মডেলের ওজনের {100 * check['param_share']:.1f}% এই module-গুলোয়।")
    if check["broken"]:
        return [line + " তাই এগুলো FP32-এ রাখাই যথেষ্ট নয়।"]
    return [line + " প্রশিক্ষণে একই কাজ, মডেলের কোড না বদলে: KeepFP32(model, report.keep_fp32).apply()  "
                   "# mishran.checkup.keep"]


def advice(report) -> str:
    """CheckupReport-এর (advice ছাড়া বাকি সব ভরা) বাংলা পরামর্শ: কোথায় মাপা, সুপারিশ, কী পাওয়া গেল, কোন module
    FP32-এ রাখতে হবে তার কোড, আর DeepSpeed-এর block (পাঠ ১০)।"""
    cap = f" (sm_{report.target_capability[0]}{report.target_capability[1]})" if report.target_capability else ""
    rules = report.autocast_rules.upper()
    where = f"লক্ষ্যের যন্ত্রে নয়, {rules}-তে চালানো (emulated)" if report.emulated else f"{rules}-তে মাপা"
    lines = [f"check-up: {report.model}, লক্ষ্য (target) {report.target}{cap}; সংখ্যাগুলো {where}, "
             f"{rules}-র autocast-এর নিয়মে।"]
    lines += _verdict_lines(report) + _cost_line(report) + _finding_lines(report) + report.notes
    if report.keep_fp32 and report.recommended_precision == "fp32":      # চেষ্টা হয়েছিল, সারেনি
        lines.append("যে module-গুলোয় গোলমাল জন্মায় (keep_fp32), সেগুলো FP32-এ রেখেও দেখা হয়েছিল:")
        lines += _why(report) + _check_line(report.keep_fp32_check)
    elif report.keep_fp32:
        lines.append("এই module-গুলো FP32-এ রাখো (keep_fp32): forward-এ autocast বন্ধ করো, আর ইনপুট FP32-এ তোলো:")
        lines += _why(report) + _code(report) + _check_line(report.keep_fp32_check)
    if report.ds_config:                  # রায় অজানা হলে block-ও নেই
        lines.append(f"DeepSpeed config-এর precision block: {json.dumps(report.ds_config)} — মনে রেখো, DeepSpeed-এর "
                     "fp16/bf16 block autocast নয়: পুরো মডেলটাই ১৬-বিটে যায়, তাই ওপরের op-সারণি আর keep_fp32 সেখানে "
                     "হুবহু খাটে না; autocast-এর মতো চাইলে config-এর \"torch_autocast\" অংশ (DeepSpeed 0.19)।")
    elif report.recommended_precision == "fp16":
        lines.append(f"DeepSpeed: এখানে loss scale লাগবে {_int(report.fp16_init_scale)} — ১-এর নিচে, কিন্তু DeepSpeed-এর "
                     "loss scale ১-এর নিচে নামে না (min_loss_scale ≥ 1); তাই DeepSpeed-এর fp16 block দেওয়া হলো না।")
    return "\n".join(lines)
