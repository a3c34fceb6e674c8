#!/usr/bin/env bash
# Run the whole suite on a GPU machine that has torch but no network: the CI machine has no GPU, so the CUDA
# paths (FP16 with GradScaler, BF16, FP8, DeepSpeed on GPUs) are verified this way, by hand, on a real GPU.
# On a CPU machine with network, once:   bash tools/gpu_wheels.sh      (the missing wheels, into .whl/)
# There, from the repo root: bash tools/gpu_verify.sh [pytest args...]   (with .whl/ copied beside the project)
set -uo pipefail
source "$(dirname "$0")/gpu_env.sh"
export MPLBACKEND=Agg
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "from mishran.hardware import device_report; print(device_report())"
python3 -m pytest -q -p no:cacheprovider tests "$@"; unit=$?
start=$(date +%s)
python3 -m pytest -q -p no:cacheprovider --nbval-lax notebooks "$@"; nb=$?
echo "notebooks: $(( $(date +%s) - start )) s in all; unit rc=$unit notebooks rc=$nb"
exit $(( unit || nb ))
