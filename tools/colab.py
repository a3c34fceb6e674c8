#!/usr/bin/env python3
"""Open-in-Colab badges and setup cells, all written from the one repository URL in pyproject.toml.

    python tools/colab.py notebooks/*.ipynb          # rewrite badges and setup cells in place
    python tools/colab.py --check notebooks/*.ipynb  # exit 1 if any notebook differs (tests use this)

The badge is the line in the first markdown cell that links to colab.research.google.com; the setup cell is
the code cell tagged `colab-setup`. Change the URL in pyproject.toml ([project.urls] Repository), then run this.
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEEPSPEED_LESSONS = ("05", "06", "07")   # lessons whose setup cell installs DeepSpeed as well
BADGE_RE = re.compile(r"^\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)[ \t]*$", re.M)


def repo_url(pyproject=ROOT / "pyproject.toml"):
    m = re.search(r'^Repository\s*=\s*"([^"]+)"', Path(pyproject).read_text(encoding="utf-8"), re.M)
    if not m:
        sys.exit("pyproject.toml has no [project.urls] Repository = \"...\"")
    return m.group(1).rstrip("/")


def badge(url, notebook_name):
    gh = re.sub(r"^https://github\.com/", "", url)
    return (f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
            f"(https://colab.research.google.com/github/{gh}/blob/main/notebooks/{notebook_name})")


def setup_source(url, notebook_name):
    extra = "[deepspeed]" if notebook_name[:2] in DEEPSPEED_LESSONS else ""
    return f'''# Colab-এ কোর্সটি ইনস্টল করে; অন্য কোথাও (ল্যাপটপ, JupyterLab, GPU মেশিন) কিছুই করে না।
# torch আবার ইনস্টল হয় না: Colab-এর নিজের torch-ই থাকে।
import sys
if "google.colab" in sys.modules:
    import subprocess
    REPO = "{url}"
    old_mpl = getattr(sys.modules.get("matplotlib"), "__version__", None)   # আগেই load হয়ে থাকলে
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", f"mishran{extra} @ git+{{REPO}}"], check=True)
    if old_mpl and tuple(int(p) for p in old_mpl.split(".")[:2]) < (3, 11):
        print(f"matplotlib {{old_mpl}} → 3.11+ হালনাগাদ হলো। বাংলা লেখার জন্য একবার Runtime → Restart session "
              "চাপো, তারপর এই ঘর থেকে আবার চালাও।")
    else:
        print("কোর্স ইনস্টল হয়েছে; restart লাগবে না।")'''


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
