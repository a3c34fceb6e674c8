# Shared set-up of the GPU-machine scripts (gpu_verify.sh, gpu_lessons.sh), sourced from the repo root: the wheels
# in .whl/ go into /tmp/site once per machine, then the paths and flags the runs need, and the python3 kernel.
if [ ! -d /tmp/site/deepspeed ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { echo "wheel install failed"; exit 1; }
fi
export PYTHONPATH=/tmp/site:$PWD/src TORCH_CUDA_ARCH_LIST=9.0 PYTHONUNBUFFERED=1
python3 -m ipykernel install --user --name python3 >/dev/null 2>&1 || true
