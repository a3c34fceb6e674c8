#!/usr/bin/env bash
# Run lessons under nbval on the GPU machine, each as a job: "05" (this GPU as it is) or "05@7.5" (the course
# behaving as on compute capability 7.5, a T4, through MISHRAN_SIMULATE_CC, with older_gpu_guard.guard_simulation()
# logging any BF16/TF32/FP8 path taken). Each job's printed output and figures are kept (conftest.py,
# MISHRAN_NBVAL_OUTPUTS) under $RECORD/<job>/, with its time, exit status and guard log in $RECORD/summary.txt.
#   bash tools/gpu_lessons.sh 00 01 05@7.5        (from the repo root; .whl/ beside it, see tools/gpu_verify.sh)
# TOTAL_S (default 590) bounds the whole call: a job gets what is left of it, and a job with under 30 s left is
# skipped (said in the summary). RECORD defaults to $OUT/record, else ./record.
set -uo pipefail
RECORD=${RECORD:-${OUT:-.}/record}
mkdir -p "$RECORD"
source "$(dirname "$0")/gpu_env.sh"
unset MPLBACKEND        # the kernels keep the inline backend, so figures come back as PNGs in the record
export MISHRAN_NOTEBOOK_LIMIT_S=${MISHRAN_NOTEBOOK_LIMIT_S:-600}
guard=$(mktemp -d); trap 'rm -rf "$guard"' EXIT      # the sitecustomize below, gone when the run ends
printf 'import os\nif os.environ.get("MISHRAN_GUARD_LOG"):\n    from mishran import older_gpu_guard\n    older_gpu_guard.guard_simulation(os.environ["MISHRAN_GUARD_LOG"])\n' > "$guard/sitecustomize.py"
for job in "$@"; do
  lesson=${job%@*}; cc=""; [ "$job" != "$lesson" ] && cc=${job#*@}
  nb=$(ls notebooks/${lesson}_*.ipynb 2>/dev/null | head -1)
  [ -n "$nb" ] || { echo "$job: no notebook" | tee -a "$RECORD/summary.txt"; continue; }
  dir="$RECORD/${lesson}${cc:+_cc$cc}"; mkdir -p "$dir"; log="$dir/guard.txt"; : > "$log"
  left=$(( ${TOTAL_S:-590} - SECONDS ))
  if [ "$left" -lt 30 ]; then echo "$job skipped: ${left} s left of TOTAL_S" | tee -a "$RECORD/summary.txt"; continue; fi
  start=$(date +%s)
  simulate=()
  [ -n "$cc" ] && simulate=(MISHRAN_SIMULATE_CC="$cc" MISHRAN_GUARD_LOG="$log" PYTHONPATH="$guard:$PYTHONPATH")
  env "${simulate[@]}" MISHRAN_NBVAL_OUTPUTS="$dir" \
    timeout "$left" python3 -m pytest -q -p no:cacheprovider --nbval-lax "$nb" > "$dir/pytest.txt" 2>&1
  rc=$?
  echo "$job rc=$rc $(( $(date +%s) - start )) s; $(tail -1 "$dir/pytest.txt"); guard: $(wc -l < "$log") lines" \
    | tee -a "$RECORD/summary.txt"
done
