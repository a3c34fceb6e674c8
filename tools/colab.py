#!/usr/bin/env python3
"""Open-in-Colab badges and setup cells, all written from the one repository URL in pyproject.toml.

    python tools/colab.py notebooks/*.ipynb          # rewrite badges and setup cells in place
    python tools/colab.py --check notebooks/*.ipynb  # exit 1 if any notebook differs (tests use this)

The badge is the line in the first markdown cell that links to colab.research.google.com; the setup cell is
the code cell tagged `colab-setup`. Change the URL in pyproject.toml ([project.urls] Repository), then run this.

On Colab the setup cell clones the course (git clone --depth 1) into /tmp/mishran-src and calls colab_setup()
below from that fresh copy, so the install logic is the course's newest one. colab_setup() installs the course
only when the cloned commit is not the installed one (a re-run picks up a newer course), and says whether the
runtime must restart: when matplotlib < 3.11 was already imported (Colab imports it when a runtime starts, so
the first run of a fresh runtime normally needs one restart), or when an older mishran was already imported.
The cell then raises CourseSetupStop, which stops Runtime -> Run all there with only the Bengali message
(IPython prints _render_traceback_() instead of a traceback). We raise rather than kill the kernel
(os.kill(os.getpid(), 9)): an error is what Jupyter and Colab both define to stop Run all, the learner reads
why, and there is no "session crashed" notice; after a kill the learner would have to Run all again anyway.
MISHRAN_REPO overrides the repository (tests point it at a local git repository).
This file uses only the standard library (and tomli on Python 3.10, only to read pyproject.toml): it runs on Colab
before anything is installed.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEEPSPEED_LESSONS = ("05", "06", "07", "08")   # lessons whose setup cell installs DeepSpeed as well
FP8_LESSONS = ("07", "08")                     # ... and the fp8 extra (torchao), only on an FP8 GPU (sm_89+)
EXTRA_MODULES = {"deepspeed": "deepspeed", "fp8": "torchao"}   # pyproject extra -> the module it brings
MARKER = "mishran-colab-commit.txt"            # in site-packages: which commit of the course is installed
BADGE_RE = re.compile(r"^\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)[ \t]*$", re.MULTILINE)


def read_toml(path):
    """A TOML file as a dict: tomllib (Python 3.11+), or on 3.10 tomli, the same parser before it joined the
    standard library (pytest, a test dependency, requires it there)."""
    try:
        import tomllib
    except ModuleNotFoundError:
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            sys.exit("Python 3.10-এ pyproject.toml পড়তে tomli লাগে (tomli needed): pip install tomli, "
                     "বা Python 3.11+ নাও।")
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def repo_url(pyproject=ROOT / "pyproject.toml"):
    url = read_toml(pyproject).get("project", {}).get("urls", {}).get("Repository")
    if not url:
        sys.exit("pyproject.toml has no [project.urls] Repository = \"...\"")
    return url.rstrip("/")


def badge(url, notebook_name):
    gh = re.sub(r"^https://github\.com/", "", url)
    return (f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
            f"(https://colab.research.google.com/github/{gh}/blob/main/notebooks/{notebook_name})")


def setup_source(url, notebook_name):
    lesson = notebook_name[:2]
    return f'''# Colab-এ কোর্সটি ইনস্টল বা হালনাগাদ করে; অন্য কোথাও (ল্যাপটপ, JupyterLab, GPU মেশিন) কিছুই করে না।
# torch আবার ইনস্টল হয় না: Colab-এর নিজের torch-ই থাকে। আবার চালালে নতুন সংস্করণ থাকলে আনে।
# কী করে, বিস্তারিত: কোর্সের tools/colab.py-র colab_setup()।
import sys


class CourseSetupStop(Exception):      # Run all এখানেই থামে; traceback নয়, শুধু বার্তাটি
    def _render_traceback_(self):
        return [str(self)]


if "google.colab" in sys.modules:
    import importlib.util, os, runpy, shutil, subprocess
    REPO = os.environ.get("MISHRAN_REPO", "{url}")
    SRC = "/tmp/mishran-src"                         # কোর্সের সর্বশেষ কপি এখানে নামে
    shutil.rmtree(SRC, ignore_errors=True)
    git = subprocess.run(["git", "clone", "-q", "--depth", "1", REPO, SRC],
                         capture_output=True, text=True)
    if git.returncode == 0:
        message, stop = runpy.run_path(f"{{SRC}}/tools/colab.py")["colab_setup"](SRC, lesson="{lesson}")
    elif importlib.util.find_spec("mishran"):
        message, stop = "নতুন সংস্করণ আছে কি না দেখা গেল না (ইন্টারনেট?); আগেরটাই চলবে।", False
    else:
        message, stop = (f"কোর্স নামানো গেল না (git clone failed):\\n{{git.stderr.strip()[-400:]}}\\n"
                         "ইন্টারনেট সংযোগ আর REPO ঠিকানাটা দেখো, তারপর এই ঘর আবার চালাও। "
                         "আরও: docs/troubleshooting.md, অংশ ৫.৩।"), True
    if stop:
        raise CourseSetupStop(message)
    print(message)'''


def _version_tuple(version):
    return tuple(int(p) for p in re.findall(r"\d+", str(version))[:2])


def _gpu_has_fp8():
    """sm_89 বা নতুন GPU (MISHRAN_SIMULATE_CC দেওয়া থাকলে সেটাই ধরে); torch না থাকলে বা GPU না থাকলে False।"""
    try:
        import torch
    except ImportError:
        return False
    if not torch.cuda.is_available():
        return False
    cap = tuple(torch.cuda.get_device_capability(0))
    sim = os.environ.get("MISHRAN_SIMULATE_CC", "").replace("sm_", "").strip()
    if sim:
        cap = min(cap, _version_tuple(sim if "." in sim else ".".join(sim)))
    return cap >= (8, 9)


def install_plan(lesson, fp8_gpu=None):
    """এই পাঠের জন্য pyproject-এর কোন extras: পাঠ ০৫–০৮-এ 'deepspeed', ০৭–০৮-এ FP8 GPU থাকলে 'fp8'-ও।"""
    extras = ["deepspeed"] if lesson in DEEPSPEED_LESSONS else []
    if lesson in FP8_LESSONS and (_gpu_has_fp8() if fp8_gpu is None else fp8_gpu):
        extras.append("fp8")
    return extras


def _importable(name):
    try:
        return name in sys.modules or importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _tail(text, n=12):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-n:])


def colab_setup(src, lesson, python=sys.executable, fp8_gpu=None):
    """src-এ clone করা কোর্সটি দরকার হলে ইনস্টল করে। ফেরত: (বার্তা, থামতে হবে কি না)।

    ইনস্টল হয় তখনই, যখন src-এর commit ইনস্টল করা commit নয়, বা এই পাঠের লাগে এমন প্যাকেজ
    (DeepSpeed, torchao) নেই। pip ব্যর্থ হলে কী হলো আর কী করতে হবে, বাংলায়।
    """
    commit = subprocess.run(["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    marker = Path(sysconfig.get_paths()["purelib"]) / MARKER
    installed = marker.read_text(encoding="utf-8").strip() if marker.exists() else None
    extras = install_plan(lesson, fp8_gpu)
    missing = [e for e in extras if not _importable(EXTRA_MODULES[e])]
    if not _importable("mishran"):
        installed = None
    lines, restart = [], []
    if installed != commit or missing:
        target = f"{src}[{','.join(extras)}]" if extras else str(src)
        cmd = [python, "-m", "pip", "install", "-q", "--no-color", "--disable-pip-version-check", target]
        print("কোর্স ইনস্টল হচ্ছে (প্রথমবার এক-দুই মিনিট লাগতে পারে) …", flush=True)
        pip = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if pip.returncode != 0:
            return ("কোর্স ইনস্টল হলো না (pip install failed)। pip-এর শেষ কথা:\n" + _tail(pip.stderr + pip.stdout)
                    + "\n\nকী করবে: ইন্টারনেট সংযোগ আছে কি না দেখো, তারপর এই ঘর আবার চালাও। বারবার হলে "
                    "Runtime → Disconnect and delete runtime, তারপর নতুন করে শুরু। "
                    "আরও: docs/troubleshooting.md, অংশ ৫.৩।"), True
        marker.write_text(commit + "\n", encoding="utf-8")
        what = "ইনস্টল হলো" if installed is None else "হালনাগাদ হলো"
        lines.append(f"কোর্স {what} (commit {commit[:7]})" + (f", সঙ্গে {', '.join(extras)}" if extras else "") + "।")
        if installed is not None and "mishran" in sys.modules:
            restart.append("এই session-এ কোর্সের পুরোনো সংস্করণ আগেই load হয়ে আছে")
    else:
        lines.append(f"কোর্সের সর্বশেষ সংস্করণই ইনস্টল করা আছে (commit {commit[:7]})।")
    mpl = getattr(sys.modules.get("matplotlib"), "__version__", None)
    if mpl and _version_tuple(mpl) < (3, 11):
        restart.append(f"Colab runtime শুরুতেই matplotlib {mpl} load করে রেখেছে; বাংলা যুক্তাক্ষরের জন্য "
                       "লাগে 3.11+ — সেটা এখন ইনস্টল করা আছে, কিন্তু চালু হবে restart-এর পরে")
    if not restart:
        return "\n".join(lines + ["restart লাগবে না; পরের ঘরে যাও।"]), False
    return "\n".join(lines + [
        "এখন একবার restart লাগবে: " + "; আর ".join(restart) + "।",
        ("Colab-এ প্রথমবার এটাই স্বাভাবিক। এখন Runtime → Restart session চাপো, তারপর Runtime → Run all "
         "(বা এই ঘর থেকে একে একে)। তখন এই ঘর আর থামবে না।")]), True


def cell_source(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def set_source(cell, text):
    cell["source"] = text.splitlines(keepends=True)


def rewrite(nb, name, url):
    """Returns a list of what changed (empty when already up to date)."""
    changes = []
    md = next((c for c in nb["cells"] if c["cell_type"] == "markdown"), None)
    if md is None:
        return ["no markdown cell for the badge"]
    text = cell_source(md)
    new = badge(url, name)
    if BADGE_RE.search(text):
        fixed = BADGE_RE.sub(lambda _: new, text, count=1)
    else:
        fixed = text.rstrip("\n") + "\n\n" + new + "\n"
    if fixed != text:
        set_source(md, fixed)
        changes.append("badge")
    setup = [c for c in nb["cells"] if "colab-setup" in c.get("metadata", {}).get("tags", [])]
    if len(setup) != 1:
        changes.append(f"{len(setup)} cells tagged colab-setup (want 1)")
    elif cell_source(setup[0]) != setup_source(url, name):
        set_source(setup[0], setup_source(url, name))
        changes.append("setup cell")
    return changes


def main(argv):
    check = "--check" in argv
    paths = [Path(a) for a in argv if not a.startswith("--")]
    url, bad = repo_url(), 0
    for p in paths:
        nb = json.loads(p.read_text(encoding="utf-8"))
        changes = rewrite(nb, p.name, url)
        if changes:
            bad += 1
            print(f"{p}: {', '.join(changes)}" + (" differ" if check else " rewritten"))
            if not check:
                p.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
