#!/usr/bin/env python3
"""Lesson 09's recorded GPU figures from the runs of tools/lesson09_gpu.sh (standard library only).

    python3 tools/lesson09_record.py OUT_DIR [--out src/mishran/results/lesson09_h200.json]

Reads OUT_DIR/{zero1,zero2,zero3,fsdp2}_n{1,2}.json (what `mishran.engines.multi_gpu --out` writes) and
fsdp2_n1_seed1.json, and writes one JSON: the device, versions, date, one row per run (engine, GPUs, held-out
loss, ms per step, tokens/s, peak memory and model state per GPU, the largest over the ranks) and the noise: the
held-out difference between two seeds of the same FSDP2 run, the yardstick the lesson compares the engines with.
Runs that are missing (no second GPU) are named in two_gpu_note instead of being invented.
"""
import argparse
import datetime
import json
import sys
from pathlib import Path

ENGINES = (("zero1", "DeepSpeed ZeRO-1"), ("zero2", "DeepSpeed ZeRO-2"), ("zero3", "DeepSpeed ZeRO-3"),
           ("fsdp2", "FSDP2 (bf16 policy, reduce fp32)"))
GIB = 2 ** 30
MIN_NOISE = 0.005          # two seeds can land closer than rounding between engines; never compare below this


def row(name: str, label: str, report: dict) -> dict:
    """One run of mishran.engines.multi_gpu as a row of the lesson's table."""
    peaks = [r["peak_memory_bytes"] or 0 for r in report["per_rank"]]
    states = [r["model_state_bytes"]["total"] for r in report["per_rank"]]
    return {"engine": label, "key": name, "world_size": report["world_size"],
            "heldout_loss": report["heldout_loss"], "final_train_loss": report["losses"][-1],
            "ms_per_step": report["ms_per_step"], "tokens_per_s": report["tokens_per_s"],
            "peak_gib": max(peaks) / GIB, "model_state_gib": max(states) / GIB,
            "num_params": report["num_params"], "global_batch": report["global_batch"], "steps": report["steps"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", type=Path)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows, missing, first = [], [], None
    for n in (1, 2):
        for name, label in ENGINES:
            path = args.runs / f"{name}_n{n}.json"
            if not path.is_file():
                missing.append(f"{label}, {n} GPU")
                continue
            report = json.loads(path.read_text(encoding="utf-8"))
            first = first or report
            rows.append(row(name, label, report))
    if first is None:
        print(f"no runs in {args.runs}", file=sys.stderr)
        return 1
    seed1 = json.loads((args.runs / "fsdp2_n1_seed1.json").read_text(encoding="utf-8"))
    base = next(r for r in rows if r["key"] == "fsdp2" and r["world_size"] == 1)
    measured = abs(seed1["heldout_loss"] - base["heldout_loss"])
    two_gpu = [m for m in missing if "2 GPU" in m]
    record = {
        "device": first["device"], "versions": first["versions"],
        "date": datetime.date.today().isoformat(), "precision": first["precision"],
        "model_size": first["model_size"], "num_params": first["num_params"],
        "global_batch": first["global_batch"], "block_size": first["block_size"], "steps": first["steps"],
        "seed_difference": measured, "noise": max(2 * measured, MIN_NOISE),
        "runs": rows,
        "two_gpu_note": ("দুই GPU-র সারি এখনো মাপা হয়নি (two-GPU runs not yet measured): রেকর্ডের দিন একটিই GPU "
                         "পাওয়া গিয়েছিল।" if two_gpu else None),
        "missing_runs": missing,
    }
    text = json.dumps(record, ensure_ascii=False, indent=1)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
