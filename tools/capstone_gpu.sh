#!/usr/bin/env bash
# Lesson 08 (capstone) on the GPU machine; every run writes JSON to $OUT. The configuration for an H200: size h200
# (57M weights), micro-batch 128 x 256 characters, 1600 steps, learning rate 6e-4 with 200 warm-up steps and a cosine
# decay, dropout 0.2, torch.compile, held-out bpc every 100 steps (the run keeps the best).
#   1) BF16 on the full corpus; the same model and budget on the small corpus (overfitting; stops after 5
#      evaluations without a new best); the resume check (checkpoint half-way, a fresh process resumes;
#      deterministic algorithms on)
#   2) FP32 on the full corpus (the same run in FP32: about five times longer)
#   3) DeepSpeed ZeRO-1 on one GPU and on two (launcher), same global batch, no compile (only with 2 GPUs)
# One GPU: everything runs on GPU 0, one run after another, and phase 3 is left out (it says so). PHASES="1" etc.
# Test on a CPU with tiny settings:  CPU=1 SIZE=tiny STEPS=6 EVAL=3 MB=4 OUT=/tmp/cap bash tools/capstone_gpu.sh
set -uo pipefail
OUT=${OUT:-capstone_out}; mkdir -p "$OUT"
SIZE=${SIZE:-h200}; STEPS=${STEPS:-1600}; EVAL=${EVAL:-100}; MB=${MB:-128}; LR=${LR:-6e-4}; DROPOUT=${DROPOUT:-0.2}
WARM=${WARM:-200}
RSIZE=${RSIZE:-small}; RSTEPS=${RSTEPS:-200}
COMMON="--size $SIZE --steps $STEPS --eval-every $EVAL --lr $LR --dropout $DROPOUT --lr-warmup $(( WARM < STEPS ? WARM : 0 )) --lr-decay --warmup 20 --micro-batch $MB"
PY=${PY:-python3}
if [ "${CPU:-0}" = 1 ]; then
  # no GPUs here: same runs in single processes on the CPU (the launcher lines become plain python -m)
  one()  { shift; "$PY" -m mishran.capstone --cpu "$@"; }
  launch() { shift 2; "$PY" -m mishran.capstone --cpu "$@"; }
  ROPT="--cpu"; COMPILE=""
else
  one()  { CUDA_VISIBLE_DEVICES=$1 "$PY" -m mishran.capstone "${@:2}"; }
  launch() { "$PY" -m deepspeed.launcher.runner --num_gpus "$1" --master_port "$2" --module mishran.capstone "${@:3}"; }
  ROPT=""; COMPILE="--compile"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$OUT/gpus.txt"
fi
NGPU=$( [ "${CPU:-0}" = 1 ] && echo 2 || nvidia-smi -L | wc -l ); G1=$(( NGPU >= 2 ? 1 : 0 ))
PHASES=${PHASES:-"1 2 3"}
bg() { if [ "$NGPU" -ge 2 ]; then "$@" & else "$@"; fi; }
t0=$(date +%s)
if [[ " $PHASES " == *" 1 "* ]]; then
echo "phase 1: BF16 on the full corpus (GPU 0); the small corpus and the resume check (GPU $G1)"
bg one 0 $COMMON $COMPILE --corpus full --precision bf16 --out "$OUT/torch_bf16.json" > "$OUT/torch_bf16.log" 2>&1
bg eval '
  one $G1 $COMMON $COMPILE --corpus small --precision bf16 --patience 5 --out "$OUT/torch_bf16_small.json" \
    > "$OUT/torch_bf16_small.log" 2>&1
  R="--size $RSIZE --steps $RSTEPS --eval-every $(( RSTEPS / 2 )) --precision bf16 --micro-batch 16 --dropout 0.1 --lr-warmup 20 --lr-decay --deterministic $ROPT"
  CK="$OUT/resume_ckpt.pt"
  one $G1 $R --checkpoint "$CK" --save-at $(( RSTEPS / 2 )) --out "$OUT/resume_full.json" > "$OUT/resume.log" 2>&1 &&
  one $G1 $R --resume "$CK" --out "$OUT/resume_resumed.json" >> "$OUT/resume.log" 2>&1
  rm -f "$CK"
'
wait
echo "phase 1 done after $(( $(date +%s) - t0 )) s"
fi
if [[ " $PHASES " == *" 2 "* ]]; then
echo "phase 2: FP32 on the full corpus (GPU 0)"
one 0 $COMMON $COMPILE --corpus full --precision fp32 --out "$OUT/torch_fp32.json" > "$OUT/torch_fp32.log" 2>&1
echo "phase 2 done after $(( $(date +%s) - t0 )) s"
fi
if [[ " $PHASES " == *" 3 "* ]] && [ "$NGPU" -ge 2 ]; then
echo "phase 3: DeepSpeed ZeRO-1 on one GPU, then on two (same global batch)"
if [ "${CPU:-0}" = 1 ]; then L1="launch 1 0"; L2="launch 2 0"; else L1="launch 1 29511"; L2="launch 2 29512"; fi
$L1 $COMMON --corpus full --zero-stage 1 --precision bf16 --micro-batch $(( MB / 2 )) --accumulation-steps 2 \
  --out "$OUT/ds_1gpu.json" > "$OUT/ds_1gpu.log" 2>&1
$L2 $COMMON --corpus full --zero-stage 1 --precision bf16 --micro-batch $(( MB / 2 )) --accumulation-steps 1 \
  --out "$OUT/ds_2gpu.json" > "$OUT/ds_2gpu.log" 2>&1
echo "phase 3 done after $(( $(date +%s) - t0 )) s"
else echo "phase 3 (two GPUs) not run: $NGPU GPU(s) here or not asked for"; fi
"$PY" - "$OUT" <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1]); r = {}
for name in ("torch_bf16", "torch_bf16_small", "torch_fp32", "ds_1gpu", "ds_2gpu", "resume_full",
             "resume_resumed"):
    f = out / f"{name}.json"
    r[name] = json.loads(f.read_text()) if f.exists() else None
s = {}
for name in ("torch_bf16", "torch_bf16_small", "torch_fp32", "ds_1gpu", "ds_2gpu"):
    x = r[name]
    if x:
        s[name] = {k: x.get(k) for k in ("precision", "world_size", "global_batch", "heldout_bpc", "bigram_bpc",
                                         "margin_vs_bigram", "tokens_per_s", "peak_memory_bytes", "mfu",
                                         "best_step", "final_bpc", "stopped_early")}
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
