"""The website build loads MathJax only for pages with formulas in their prose."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)


def test_dollar_signs_inside_code_are_not_formulas():
    assert build_site.has_math("ধাপ $k$-এ loss ÷ k")
    assert build_site.has_math("$$\\frac{1}{k}$$")
    assert not build_site.has_math("run `PYTHONPATH=$PWD/src` then read `$RECORD/summary.txt`")
    assert not build_site.has_math("```bash\nexport OUT=$HOME/out\n```\nআর কিছু নয়")
    assert build_site.has_math("`$PWD` আর তারপর $x^2$")


def test_the_contributors_guide_has_no_formulas():
    # contributing.md shows shell variables in code; its page loaded MathJax, which then typeset nothing
    assert not build_site.has_math((ROOT / "docs" / "contributing.md").read_text(encoding="utf-8"))
