"""প্যাকেজের সংস্করণ: পড়া, তুলনা, আর কোর্সের চাহিদা pyproject.toml থেকে (পাঠ ০০)।
"""
from __future__ import annotations

import importlib.metadata

from packaging.version import Version

__all__ = ["package_version", "version_at_least", "course_requirements"]


def package_version(name: str) -> str | None:
    """ইনস্টল করা প্যাকেজের সংস্করণ (যেমন '0.19.8'); ইনস্টল না থাকলে None (পাঠ ০০-এর device report, পাঠ ০৫)।"""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def version_at_least(text: str, minimum: str) -> bool:
    """text-এর সংস্করণ minimum-এর সমান বা নতুন কি না; local অংশ (+cu130) আর pre-release-এর সংখ্যাটুকু ধরে (সব পাঠ)।
    অচেনা লেখায় (যেমন 'latest') packaging-এর InvalidVersion, যা একটি ValueError।"""
    return Version(str(text)).release >= Version(str(minimum)).release


def course_requirements(extra: str = "lab") -> tuple[str, list]:
    """কোর্সের প্যাকেজ (mishran) কী কী চায় (পাঠ ০০): (সংস্করণ, [(Requirement, এখনই লাগে কি না), ...])।

    মূল dependency-গুলো এখনই লাগে (True); `extra`-র গুলো (যেমন "lab") পরে (False)। ইনস্টল করা mishran-এর metadata
    থেকে পড়ে; ইনস্টল ছাড়া source থেকে চালালে (PYTHONPATH=src) পাশের pyproject.toml থেকে।
    """
    from packaging.requirements import Requirement
    try:
        version, texts = importlib.metadata.version("mishran"), importlib.metadata.requires("mishran") or []
    except importlib.metadata.PackageNotFoundError:
        version, texts = _requirements_from_pyproject()
    found = []
    for text in texts:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": extra}):
            now = req.marker is None
            req.marker = None
            found.append((req, now))
    return version, found


def _requirements_from_pyproject() -> tuple[str, list[str]]:
    """ইনস্টল না করা checkout-এর pyproject.toml থেকে (সংস্করণ, requirement-এর লেখা, extras সহ)।"""
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        import tomllib
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    except (ImportError, OSError, KeyError) as exc:
        raise RuntimeError("mishran ইনস্টল করা নেই, pyproject.toml-ও পড়া গেল না (mishran is not installed and "
                           f"{path} could not be read: {exc!r}); কোর্সের ফোল্ডারে `pip install -e .` চালাও") from None
    texts = list(project.get("dependencies", []))
    for name, reqs in project.get("optional-dependencies", {}).items():
        texts += [_with_extra(r, name) for r in reqs]
    return project["version"], texts


def _with_extra(requirement: str, extra: str) -> str:
    """extra-র requirement-এর লেখা, যেমন ইনস্টল-করা প্যাকেজের metadata লেখে: নিজের marker থাকলে (যেমন
    "platform_system != 'Windows'") দুটো and দিয়ে জোড়া — দুটি ';' হলে লেখাটা আর requirement থাকে না।"""
    base, marked, marker = requirement.partition(";")
    if marked:
        return f'{base.strip()}; ({marker.strip()}) and extra == "{extra}"'
    return f'{requirement}; extra == "{extra}"'
