#!/usr/bin/env bash
# Downloads into ./.whl/ the Python wheels that an H200 GPU machine (Python 3.12, torch preinstalled, no network)
# lacks for running this course's notebooks and tests: DeepSpeed and its pure-Python needs, transformers (lesson
# 10 builds GPT-2, BERT and ResNet-18 from their configs), nbval with a Jupyter kernel, ipywidgets,
# matplotlib>=3.11 (Bengali text shaping) and the Hind Siliguri font. More
# requirements may follow as arguments, e.g. `bash tools/gpu_wheels.sh torchao==0.18.0` (FP8 training; works with
# the image's torch 2.11).
# Packages the GPU image already has (numpy, pillow, pytest, ...) are dropped to stay small (~60 MB).
#
# Use, from the project's root on a CPU machine with network (.whl/ is in .gitignore):
#   bash tools/gpu_wheels.sh
# then copy the project with its .whl/ to the GPU machine and run tools/gpu_verify.sh or tools/gpu_lessons.sh
# there: both source tools/gpu_env.sh, which installs these wheels into /tmp/site and sets PYTHONPATH and
# TORCH_CUDA_ARCH_LIST=9.0 (the GPU image sets 9.0a, which DeepSpeed's JIT op builder cannot parse).
set -euo pipefail
DS_VERSION=${DS_VERSION:-0.19.8}
EXTRA=("$@")   # more requirement strings, if the project needs them on the GPU machine
out=.whl
mkdir -p "$out"
plat=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp "${plat[@]}" -d "$out" \
  nbval ipykernel ipywidgets "matplotlib>=3.11" fontpkg-hind-siliguri pydantic hjson py-cpuinfo tqdm \
  "transformers>=4.46,<6" "${EXTRA[@]}"
# DeepSpeed ships as a source distribution; its wheel is pure Python.
ls "$out"/deepspeed-"$DS_VERSION"-*.whl >/dev/null 2>&1 || python3 -m pip wheel -q --no-deps -w "$out" "deepspeed==$DS_VERSION"
# Already on the GPU image: keep one copy of each package, the image's.
for p in numpy pillow packaging psutil pygments pytest pluggy iniconfig typing_extensions attrs python_dateutil \
         pyparsing fonttools kiwisolver contourpy cycler coverage tqdm; do
  rm -f "$out"/"$p"-*.whl
done
# Not needed offline, and the device tool carries the work tree and .whl/ within 64 MiB: jedi/parso (IPython imports
# them only for tab completion), widgetsnbextension (the classic notebook's), and transformers' hub helpers hf_xet and
# kernels (nothing is downloaded: lesson 10 builds its models from configs). Ran on the H200 without them, 2026-12-05.
rm -f "$out"/jedi-*.whl "$out"/parso-*.whl "$out"/widgetsnbextension-*.whl "$out"/hf_xet-*.whl "$out"/kernels-*.whl
du -sh "$out"; ls "$out" | wc -l
