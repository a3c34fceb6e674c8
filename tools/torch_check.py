"""`make`-এর torch ধাপের শেষ যাচাই: torch import হয় কি না, আর যা চাওয়া হয়েছিল তার সঙ্গে মেলে কি না।

    python tools/torch_check.py "torch==2.13.0" "--index-url https://download.pytorch.org/whl/cpu"
    python tools/torch_check.py --satisfies "torch>=2.11"

ঠিক থাকলে ইনস্টল করা torch-এর সংস্করণ ছাপে আর 0 দিয়ে শেষ করে (তখনই Makefile stamp লেখে); না মিললে বাংলা +
ইংরেজি বার্তা আর 1। pip আগে থেকে থাকা torch রেখে দেয় যদি সেটা TORCH_SPEC মানে — তাই কোনটা রইল তা বলা দরকার।

--satisfies: torch import না করে (শুধু ইনস্টলের metadata দেখে) বলে, ইনস্টল করা torch নতুন অনুরোধটা আগেই মানে কি না।
মানলে এক লাইন ছাপে আর 0; না মানলে (বা torch না থাকলে) কিছু ছাপে না আর 1। Makefile এটা দেখে ঠিক করে TORCH_SPEC
বদলালে আবার ইনস্টল লাগবে কি না (যেমন CI-র torch==2.13.0-এর পরে সাধারণ `make lab`-এর torch>=2.11)।
"""
from __future__ import annotations

import importlib.util
import sys
import warnings


def _requirement(spec: str):
    try:
        from packaging.requirements import Requirement
    except ImportError:                      # নতুন venv-এ packaging না-ও থাকতে পারে; pip-এর ভেতরেরটা আছেই
        from pip._vendor.packaging.requirements import Requirement
    return Requirement(spec)


def _meets(spec: str, version: str) -> bool:
    return _requirement(spec).specifier.contains(version.split("+")[0], prereleases=True)


def satisfies(spec: str) -> int:
    from importlib.metadata import PackageNotFoundError, version
    try:
        installed = version("torch")
    except PackageNotFoundError:
        return 1
    if not _meets(spec, installed):
        return 1
    print(f"ইনস্টল করা torch {installed} '{spec}' মানে: নতুন করে ইনস্টল হবে না (already satisfied)।")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--satisfies"]:
        return satisfies(argv[1] if len(argv) > 1 else "torch")
    spec = argv[0] if argv else "torch"
    pip_args = argv[1] if len(argv) > 1 else ""
    try:
        with warnings.catch_warnings():
            if importlib.util.find_spec("numpy") is None:
                # torch নিজে numpy চায় না, তাই এই ধাপে numpy থাকে না (পরের ধাপে pyproject-এর সঙ্গে আসে); না থাকলে
                # torch import-এর সময় "Failed to initialize NumPy" সতর্ক করে, যা এখানে কোনো ভুল নয়
                warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
            import torch
    except Exception as err:                 # ইনস্টল আধা-হওয়া torch যেকোনো ভুল তুলতে পারে
        print(f"torch import হলো না (torch does not import): {type(err).__name__}: {err}। "
              "`make` আবার চালাও; ধাপটি নতুন করে চলবে।", file=sys.stderr)
        return 1
    version = torch.__version__
    if not _meets(spec, version):
        print(f"ইনস্টল করা torch {version} চাওয়া '{spec}'-এর সঙ্গে মেলে না (installed torch differs from "
              f"TORCH_SPEC)। `{sys.executable} -m pip uninstall -y torch` করে `make` আবার চালাও।", file=sys.stderr)
        return 1
    build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU"
    print(f"torch {version} ({build}) আছে, চাওয়া ছিল '{spec}'" + (f" [{pip_args}]" if pip_args else "") + "।")
    if "whl/cpu" in pip_args and torch.version.cuda:
        print("সতর্কতা: CPU-র index চাওয়া হয়েছিল, কিন্তু রয়ে গেছে CUDA-র torch (a CUDA build is installed although "
              f"the CPU index was requested)। বদলাতে: `{sys.executable} -m pip uninstall -y torch`, তারপর `make`।")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
