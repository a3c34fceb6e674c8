#!/usr/bin/env bash
# Lesson 09, part 4 on the GPU machine: DeepSpeed ZeRO-1/2/3 (deepspeed launcher) and FSDP2 (torchrun) side by side,
# all through `mishran.engines.multi_gpu`: the same model (size h200, 57M weights), the same data and seed, the same global
# batch and steps, BF16. One GPU: a one-rank world for each engine, and the two-GPU figures are recorded as not
# measured. Two or more GPUs: also N = 2. A second FSDP2 run with another seed gives the run-to-run noise the lesson
# compares the engines' held-out losses with. Every run writes JSON to $OUT; tools/lesson09_record.py turns them into
# src/mishran/results/lesson09_h200.json (what the lesson shows off-GPU).
# Test on a CPU with tiny settings:  CPU=1 STEPS=4 SIZE=tiny GB=8 MB=2 OUT=/tmp/l09 bash tools/lesson09_gpu.sh
set -uo pipefail
OUT=${OUT:-lesson09_out}; mkdir -p "$OUT"
STEPS=${STEPS:-300}; SIZE=${SIZE:-h200}; GB=${GB:-64}; MB=${MB:-8}; WARMUP=${WARMUP:-20}
PY=${PY:-python3}
COMMON="--steps $STEPS --size $SIZE --global-batch $GB --micro-batch $MB --precision bf16 --warmup $WARMUP"
if [ "${CPU:-0}" = 1 ]; then
  COMMON="$COMMON --cpu"; NGPU=1
  ds()  { shift 2; "$PY" -m mishran.engines.multi_gpu "$@"; }
  tr()  { shift 2; "$PY" -m mishran.engines.multi_gpu "$@"; }
else
  NGPU=$(nvidia-smi -L | wc -l)
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$OUT/gpus.txt"
  ds()  { "$PY" -m deepspeed.launcher.runner --num_gpus "$1" --master_port "$2" --module mishran.engines.multi_gpu "${@:3}"; }
  tr()  { "$PY" -m torch.distributed.run --standalone --nproc_per_node "$1" -m mishran.engines.multi_gpu "${@:3}"; }
fi
WORLDS="1"; [ "$NGPU" -ge 2 ] && WORLDS="1 2"
fail=0
t0=$(date +%s)
for N in $WORLDS; do
  for Z in 1 2 3; do
    echo "ZeRO-$Z, $N GPU"
    ds "$N" $((29500 + 10 * N + Z)) --zero-stage "$Z" $COMMON --out "$OUT/zero${Z}_n$N.json" \
      > "$OUT/zero${Z}_n$N.log" 2>&1 || { echo "  failed: $OUT/zero${Z}_n$N.log"; tail -5 "$OUT/zero${Z}_n$N.log"; fail=1; }
  done
  echo "FSDP2, $N GPU"
  tr "$N" 0 --engine fsdp2 $COMMON --out "$OUT/fsdp2_n$N.json" > "$OUT/fsdp2_n$N.log" 2>&1 \
    || { echo "  failed: $OUT/fsdp2_n$N.log"; tail -5 "$OUT/fsdp2_n$N.log"; fail=1; }
done
echo "FSDP2, 1 GPU, seed 1 (run-to-run noise)"
tr 1 0 --engine fsdp2 $COMMON --seed 1 --out "$OUT/fsdp2_n1_seed1.json" > "$OUT/fsdp2_n1_seed1.log" 2>&1 \
  || { echo "  failed: $OUT/fsdp2_n1_seed1.log"; tail -5 "$OUT/fsdp2_n1_seed1.log"; fail=1; }
echo "all runs: $(( $(date +%s) - t0 )) s"
"$PY" tools/lesson09_record.py "$OUT" --out "$OUT/lesson09_h200.json" || fail=1
exit $fail
