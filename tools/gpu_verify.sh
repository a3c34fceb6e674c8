#!/usr/bin/env bash
# Run the whole suite on a GPU machine that has torch but no network (COURSE_PLAN §10).
# Here (CPU machine), once:   echo /.whl/ >> .git/info/exclude && bash ../shared/tools/gpu_wheels.sh
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
