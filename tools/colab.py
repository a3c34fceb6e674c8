#!/usr/bin/env python3
"""Open-in-Colab badges and setup cells, all written from one repository URL and one ref in pyproject.toml.

    python tools/colab.py notebooks/*.ipynb          # rewrite badges and setup cells in place
    python tools/colab.py --check notebooks/*.ipynb  # exit 1 if any notebook differs (tests use this)
    python tools/colab.py --repo https://github.com/teacher/mishran --ref class-2027 notebooks/*.ipynb
                                                     # a teacher's fork and pin (make host): pyproject, then all

The URL is [project.urls] Repository, the ref is [tool.mishran] ref: a branch, a tag or a full commit hash.
--repo and --ref rewrite those two lines of pyproject.toml first, so a later --check still agrees. --repo takes
what GitHub's Code button gives (https://github.com/o/n.git or git@github.com:o/n.git) and writes
https://github.com/o/n; --ref takes a shortened commit hash (bfe6b7e) when this clone's git knows the commit, and
writes the full hash (Colab's `git fetch` and the badges need it); one it does not know is refused. The badge is the
line in the first markdown cell that links to colab.research.google.com (it opens notebooks/NAME at that ref);
the setup cell is the code cell tagged `colab-setup`.

On Colab the setup cell fetches that one ref of the course (git init, git fetch --depth 1 REPO REF, checkout
FETCH_HEAD: works alike for a branch, a tag and a full commit hash, where git clone --branch takes no hash) into
/tmp/mishran-src and calls colab_setup() below from that copy, so the install logic is the pinned course's own.
With the default ref, main, a class gets the newest course; with a tag, the same lesson every day of the term.
colab_setup() installs the course only when the fetched commit is not the installed one (a re-run picks up a
moved branch), and says whether the runtime must restart: when matplotlib < 3.11 was already imported (Colab
imports it when a runtime starts, so the first run of a fresh runtime normally needs one restart), or when an
older mishran was already imported.
The cell then raises CourseSetupStop, which stops Runtime -> Run all there with only the Bengali message
(IPython prints _render_traceback_() instead of a traceback). We raise rather than kill the kernel
(os.kill(os.getpid(), 9)): an error is what Jupyter and Colab both define to stop Run all, the learner reads
why, and there is no "session crashed" notice; after a kill the learner would have to Run all again anyway.
MISHRAN_REPO and MISHRAN_REF override the repository and the ref (tests point them at a local git repository).
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
DEFAULT_REF = "main"                           # the course's own ref: its newest commit
GITHUB_RE = re.compile(r"https://github\.com/[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+")
REF_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/-]*")   # tag, branch or commit: safe in a URL and in a string
SSH_RE = re.compile(r"(?:ssh://)?git@github\.com[:/](?P<path>\S+)")   # GitHub's "SSH" clone address
SHORT_HASH_RE = re.compile(r"[0-9a-f]{7,39}")          # git's shortened commit hash (7 hex digits by default)
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


def course_ref(pyproject=ROOT / "pyproject.toml"):
    """Which branch, tag or commit of the repository the badges, setup cells and handouts open: [tool.mishran]
    ref (main when absent: the newest course)."""
    return str(read_toml(pyproject).get("tool", {}).get("mishran", {}).get("ref", DEFAULT_REF))


def normalize_url(url):
    """The clone address a teacher copies from GitHub (https with .git, or SSH) as the repository's https URL, the
    form Colab's badges and the setup cell's `git fetch` both take: https://github.com/o/n."""
    url = url.strip()
    ssh = SSH_RE.fullmatch(url)
    if ssh:
        url = "https://github.com/" + ssh["path"]
    url = url.rstrip("/")
    return url[:-4] if url.endswith(".git") else url


def _git(repo, *args):
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    except OSError:                     # no git at all
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def resolve_ref(ref, repo=ROOT):
    """ref as the setup cell's `git fetch REPO REF` takes it. A shortened commit hash (7-39 hex digits) that is not a
    branch or tag of this clone becomes the full hash of the commit it names here, with a note; one this clone does
    not know stops with a Bengali explanation (GitHub's fetch refuses a shortened hash). Digits only, unknown: taken
    as the name of a tag still to be made. Returns (ref, note or None)."""
    if not SHORT_HASH_RE.fullmatch(ref):
        return ref, None
    for kind in ("tags", "heads"):
        if _git(repo, "show-ref", "--verify", "--quiet", f"refs/{kind}/{ref}") is not None:
            return ref, None
    full = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if full and full.startswith(ref):
        return full, (f"ছোট করা commit hash {ref} → পুরো hash {full} (shortened hash resolved; Colab-এর git fetch "
                      "পুরোটা চায়)।")
    if ref.isdigit():
        return ref, None
    sys.exit(f"'{ref}' দেখতে ছোট করা commit hash-এর মতো (a shortened commit hash), কিন্তু এই clone-এর git এই commit "
             "চেনে না, আর GitHub থেকে Colab-এর `git fetch` ছোট hash নেয় না। পুরো ৪০ অক্ষরের hash দিন (`git rev-parse "
             f"{ref}` যে clone-এ commit-টা আছে), বা একটি tag (যেমন REF=class-2027)। tag-এর নাম হলে আগে tag-টা বানান: "
             f"`git tag {ref}`।")


def check_host(url, ref):
    """A GitHub https URL (Colab opens notebooks only from there) and a ref that git and a URL path both take as
    it is. Returns a Bengali explanation of what is wrong, or None."""
    if not GITHUB_RE.fullmatch(url.rstrip("/")):
        return (f"'{url}' GitHub-এর repository-র ঠিকানা নয় (not a GitHub repository URL); Colab শুধু GitHub থেকে "
                "নোটবুক খোলে। যেমন: https://github.com/আপনার-নাম/mishran")
    if not REF_RE.fullmatch(ref) or ".." in ref or ref.endswith((".", "/", ".lock")):
        return (f"'{ref}' git-এর ref হিসেবে চলে না (invalid ref); একটি tag, branch বা পুরো ৪০ অক্ষরের commit hash "
                "দিন, যেমন class-2027 (অক্ষর, সংখ্যা, . _ - /; ফাঁকা জায়গা নয়)।")
    return None


def set_host(url, ref, pyproject=ROOT / "pyproject.toml"):
    """Writes url and ref into pyproject.toml ([project.urls] Repository, [tool.mishran] ref), keeping every
    other line (and comment) as it is: tomllib cannot write, so the two lines are replaced by pattern, and the
    result is read back as TOML to be sure the right keys changed."""
    given = url
    url = normalize_url(url)
    if url != given.strip().rstrip("/"):
        print(f"repository-র ঠিকানা: {given.strip()} → {url} (clone-এর ঠিকানা থেকে badge-এর ঠিকানা)।")
    problem = check_host(url, ref)
    if problem:
        sys.exit(problem)
    ref, note = resolve_ref(ref, Path(pyproject).parent)
    if note:
        print(note)
    text = Path(pyproject).read_text(encoding="utf-8")
    text = _set_key(text, "project.urls", "Repository", url.rstrip("/"))
    text = _set_key(text, "tool.mishran", "ref", ref)
    Path(pyproject).write_text(text, encoding="utf-8")
    if (repo_url(pyproject), course_ref(pyproject)) != (url.rstrip("/"), ref):
        sys.exit(f"{pyproject}: Repository/ref লেখা গেল না (could not write); হাতে ঠিক করুন।")


def _set_key(text, table, key, value):
    """text with `key = "value"` in [table]: the line replaced where it is, or added as the table's first key."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, ln in enumerate(lines) if ln.strip() == f"[{table}]"), None)
    if start is None:
        return text.rstrip("\n") + f'\n\n[{table}]\n{key} = "{value}"\n'
    end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    new = f'{key} = "{value}"\n'
    for i in range(start + 1, end):
        if re.match(rf"\s*{re.escape(key)}\s*=", lines[i]):
            lines[i] = new
            return "".join(lines)
    lines.insert(start + 1, new)
    return "".join(lines)


def badge(url, notebook_name, ref=None, folder="notebooks"):
    """The Open-in-Colab badge: folder/notebook_name of the repository at url, at ref (default: pyproject's)."""
    gh = re.sub(r"^https://github\.com/", "", url)
    ref = course_ref() if ref is None else ref
    return (f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
            f"(https://colab.research.google.com/github/{gh}/blob/{ref}/{folder}/{notebook_name})")


def setup_source(url, notebook_name, ref=None):
    lesson = notebook_name[:2]
    ref = course_ref() if ref is None else ref
    return f'''# Colab-এ কোর্সটি ইনস্টল বা হালনাগাদ করে (REF যে branch, tag বা commit, ঠিক সেটাই); অন্য কোথাও কিছু
# করে না। torch আবার ইনস্টল হয় না, Colab-এরটাই থাকে। বিস্তারিত: tools/colab.py-র colab_setup()।
import sys

class CourseSetupStop(Exception):      # Run all এখানেই থামে; traceback নয়, শুধু বার্তাটি
    def _render_traceback_(self):
        return [str(self)]

if "google.colab" in sys.modules:
    import importlib.util, os, runpy, shutil, subprocess
    REPO = os.environ.get("MISHRAN_REPO", "{url}")
    REF = os.environ.get("MISHRAN_REF", "{ref}")
    SRC = "/tmp/mishran-src"                         # কোর্সের ঠিক সেই সংস্করণ এখানে নামে
    shutil.rmtree(SRC, ignore_errors=True)
    for cmd in (["init", "-q", SRC], ["-C", SRC, "fetch", "-q", "--depth", "1", REPO, REF],
                ["-C", SRC, "checkout", "-q", "FETCH_HEAD"]):
        git = subprocess.run(["git", *cmd], capture_output=True, text=True)
        if git.returncode:
            break
    if git.returncode == 0:
        message, stop = runpy.run_path(f"{{SRC}}/tools/colab.py")["colab_setup"](SRC, lesson="{lesson}")
    elif importlib.util.find_spec("mishran"):
        message, stop = "নতুন সংস্করণ আছে কি না দেখা গেল না (ইন্টারনেট?); আগেরটাই চলবে।", False
    else:
        message, stop = (f"কোর্স নামানো গেল না (git fetch failed):\\n{{git.stderr.strip()[-400:]}}\\n"
                         "ইন্টারনেট সংযোগ, REPO ঠিকানা আর REF দেখো, তারপর এই ঘর আবার চালাও। "
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
        lines.append(f"কোর্সের এই সংস্করণই ইনস্টল করা আছে (commit {commit[:7]})।")
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


def rewrite(nb, name, url, ref=None, folder="notebooks"):
    """Writes the badge (opening folder/name at ref) and the setup cell; returns a list of what changed (empty
    when already up to date). ref None: pyproject's."""
    ref = course_ref() if ref is None else ref
    changes = []
    md = next((c for c in nb["cells"] if c["cell_type"] == "markdown"), None)
    if md is None:
        return ["no markdown cell for the badge"]
    text = cell_source(md)
    new = badge(url, name, ref, folder)
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
    elif cell_source(setup[0]) != setup_source(url, name, ref):
        set_source(setup[0], setup_source(url, name, ref))
        changes.append("setup cell")
    return changes


def _option(argv, name):
    """The value after --name (removed from argv with it), or None."""
    if name not in argv:
        return None
    i = argv.index(name)
    if i + 1 >= len(argv):
        sys.exit(f"{name}-এর পরে একটি মান দিন (a value after {name})।")
    value = argv[i + 1]
    del argv[i:i + 2]
    return value


def main(argv):
    argv = list(argv)
    new_url, new_ref = _option(argv, "--repo"), _option(argv, "--ref")
    check = "--check" in argv
    if new_url or new_ref:
        if check:
            sys.exit("--check পড়ে শুধু; --repo/--ref লেখে: একসঙ্গে নয় (not together)।")
        set_host(new_url or repo_url(), new_ref or course_ref())
    paths = [Path(a) for a in argv if not a.startswith("--")]
    url, ref, bad = repo_url(), course_ref(), 0
    for p in paths:
        nb = json.loads(p.read_text(encoding="utf-8"))
        changes = rewrite(nb, p.name, url, ref)
        if changes:
            bad += 1
            print(f"{p}: {', '.join(changes)}" + (" differ" if check else " rewritten"))
            if not check:
                p.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    if new_url or new_ref:
        print(f"কোর্স এখন {url} থেকে, ref {ref} (badge, setup ঘর; হ্যান্ডআউট: make student)।")
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
