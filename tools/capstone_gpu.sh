#!/usr/bin/env bash
# Lesson 08 (capstone) comparisons on a 2-GPU machine; every run writes JSON to $OUT.
#   1) PyTorch AMP loop: BF16 on GPU 0 and FP32 on GPU 1 at the same time (same steps, same global batch)
#   2) DeepSpeed ZeRO-1 on one GPU (launcher) and, on GPU 1 meanwhile, the resume check (checkpoint at half-way,
#      a fresh process resumes; deterministic algorithms on)
#   3) DeepSpeed ZeRO-1 on two GPUs (launcher), same global batch as 2)
# Test on a CPU with tiny settings:  CPU=1 SIZE=tiny STEPS=6 EVAL=3 MB=4 OUT=/tmp/cap bash tools/capstone_gpu.sh
set -uo pipefail
OUT=${OUT:-capstone_out}; mkdir -p "$OUT"
SIZE=${SIZE:-gpu}; STEPS=${STEPS:-1200}; EVAL=${EVAL:-200}; MB=${MB:-32}; LR=${LR:-1e-3}; DROPOUT=${DROPOUT:-0.2}
ACC1=${ACC1:-2}   # phase 1: accumulation steps (global batch = MB × ACC1)
RSIZE=${RSIZE:-small}; RSTEPS=${RSTEPS:-200}
COMMON="--size $SIZE --steps $STEPS --eval-every $EVAL --lr $LR --dropout $DROPOUT"
PY=${PY:-python3}
if [ "${CPU:-0}" = 1 ]; then
  # no GPUs here: same runs in single processes on the CPU (the launcher lines become plain python -m)
  one()  { shift; "$PY" -m mishran.capstone --cpu "$@"; }
  launch() { shift 2; "$PY" -m mishran.capstone --cpu "$@"; }
  CUDA0=""; CUDA1=""; ROPT="--cpu"
else
  one()  { CUDA_VISIBLE_DEVICES=$1 "$PY" -m mishran.capstone "${@:2}"; }
  launch() { "$PY" -m deepspeed.launcher.runner --num_gpus "$1" --master_port "$2" --module mishran.capstone "${@:3}"; }
  ROPT=""
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$OUT/gpus.txt"
fi
# one GPU only: everything runs on GPU 0, one run after another, and the two-GPU phase is left out
NGPU=$( [ "${CPU:-0}" = 1 ] && echo 2 || nvidia-smi -L | wc -l ); G1=$(( NGPU >= 2 ? 1 : 0 ))
PHASES=${PHASES:-"1 2 3"}
bg() { if [ "$NGPU" -ge 2 ]; then "$@" & else "$@"; fi; }
t0=$(date +%s)
if [[ " $PHASES " == *" 1 "* ]]; then
echo "phase 1: PyTorch loop, BF16 (GPU 0) and FP32 (GPU $G1)"
bg one 0 $COMMON --precision bf16 --micro-batch "$MB" --accumulation-steps "$ACC1" --out "$OUT/torch_bf16.json" \
  > "$OUT/torch_bf16.log" 2>&1
bg one $G1 $COMMON --precision fp32 --micro-batch "$MB" --accumulation-steps "$ACC1" --out "$OUT/torch_fp32.json" \
  > "$OUT/torch_fp32.log" 2>&1
wait
echo "phase 1 done after $(( $(date +%s) - t0 )) s"
fi
if [[ " $PHASES " == *" 2 "* ]]; then
echo "phase 2: DeepSpeed on one GPU (GPU 0); resume check (GPU 1)"
if [ "${CPU:-0}" = 1 ]; then L1="launch 1 0"; else L1="launch 1 29511"; fi
bg $L1 $COMMON --zero-stage 1 --precision bf16 --micro-batch "$MB" --accumulation-steps 2 \
  --out "$OUT/ds_1gpu.json" > "$OUT/ds_1gpu.log" 2>&1
bg eval '
  R="--size $RSIZE --steps $RSTEPS --eval-every $(( RSTEPS / 2 )) --precision bf16 --micro-batch 16 --dropout 0.1 --deterministic $ROPT"
  CK="$OUT/resume_ckpt.pt"
  one $G1 $R --checkpoint "$CK" --save-at $(( RSTEPS / 2 )) --out "$OUT/resume_full.json" > "$OUT/resume.log" 2>&1 &&
  one $G1 $R --resume "$CK" --out "$OUT/resume_resumed.json" >> "$OUT/resume.log" 2>&1
  rm -f "$CK"
'
wait
echo "phase 2 done after $(( $(date +%s) - t0 )) s"
fi
if [[ " $PHASES " == *" 3 "* ]] && [ "$NGPU" -ge 2 ]; then
echo "phase 3: DeepSpeed on two GPUs"
if [ "${CPU:-0}" = 1 ]; then L2="launch 2 0"; else L2="launch 2 29512"; fi
$L2 $COMMON --zero-stage 1 --precision bf16 --micro-batch "$MB" --accumulation-steps 1 \
  --out "$OUT/ds_2gpu.json" > "$OUT/ds_2gpu.log" 2>&1
echo "phase 3 done after $(( $(date +%s) - t0 )) s"
else echo "phase 3 (two GPUs) not run: $NGPU GPU(s) here or not asked for"; fi
"$PY" - "$OUT" <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1]); r = {}
for name in ("torch_bf16", "torch_fp32", "ds_1gpu", "ds_2gpu", "resume_full", "resume_resumed"):
    f = out / f"{name}.json"
    r[name] = json.loads(f.read_text()) if f.exists() else None
s = {}
for name in ("torch_bf16", "torch_fp32", "ds_1gpu", "ds_2gpu"):
    x = r[name]
    if x:
        s[name] = {k: x.get(k) for k in ("precision", "world_size", "global_batch", "heldout_bpc", "bigram_bpc",
                                         "margin_vs_bigram", "tokens_per_s", "peak_memory_bytes", "mfu")}
        s[name]["best_bpc"] = min(c["bpc"] for c in x["curve"])
        s[name]["train_seconds"] = sum(x["step_times"])
        s[name]["sample_word_share"] = x["sample"]["share"]
def diff(a, b):
    return abs(r[a]["heldout_bpc"] - r[b]["heldout_bpc"]) if r[a] and r[b] else None
s["fp32_vs_bf16_bpc"] = diff("torch_fp32", "torch_bf16")
s["one_vs_two_gpu_bpc"] = diff("ds_1gpu", "ds_2gpu")
if r["ds_1gpu"] and r["ds_2gpu"]:
    s["scaling_factor"] = r["ds_2gpu"]["tokens_per_s"] / r["ds_1gpu"]["tokens_per_s"]
f, g = r["resume_full"], r["resume_resumed"]
if f and g:
    half = g["start_step"]
    s["resume_exact"] = g["losses"] == f["losses"][half:]
    s["resume_max_abs_diff"] = max(abs(a - b) for a, b in zip(g["losses"], f["losses"][half:]))
(out / "summary.json").write_text(json.dumps(s, ensure_ascii=False, indent=1))
# one bundle (few files come back from the GPU machine): every run and the end of every log
logs = {f.name: f.read_text(errors="replace")[-3000:] for f in sorted(out.glob("*.log"))}
(out / "all.json").write_text(json.dumps({"runs": r, "summary": s, "logs": logs}, ensure_ascii=False))
for f in list(out.glob("*.log")) + [out / f"{n}.json" for n in r if r[n]]:
    f.unlink()
print(json.dumps(s, ensure_ascii=False, indent=1))
EOF
echo "all done after $(( $(date +%s) - t0 )) s"
