"""The project's own rules: dependency lists agree, notebooks are stored clean and follow the lesson anatomy."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
sys.path.insert(0, str(ROOT / "tools"))
import colab  # noqa: E402
import nbclean  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    from pip._vendor import tomli as tomllib


def _names(reqs):
    return {re.split(r"[<>=!~ \[]", r.strip(), maxsplit=1)[0].lower().replace("_", "-"): r.replace(" ", "")
            for r in reqs}


def test_environment_yml_installs_what_pyproject_does():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    want = project["dependencies"] + project["optional-dependencies"]["lab"] + project["optional-dependencies"]["test"]
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    pip_block = text.split("- pip:", 1)[1]
    got = [ln.strip()[2:] for ln in pip_block.splitlines() if ln.strip().startswith("- ")]
    assert _names(got) == _names(want)
    assert "python>=3.10" in text and project["requires-python"] == ">=3.10"


def test_there_are_lessons():
    assert [p.name[:2] for p in NOTEBOOKS][:2] == ["00", "01"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_clean(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4
    assert nbclean.problems(nb) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_colab_badge_and_setup_cell_come_from_the_one_url(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert colab.rewrite(nb, path.name, colab.repo_url()) == []
    assert colab.repo_url() in "".join(nb["cells"][1]["source"])       # the setup cell is the second cell


def _source(cell):
    return "".join(cell["source"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_exercise_has_a_hidden_solution_that_asserts_the_same_check(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    tags = [c.get("metadata", {}).get("tags", []) for c in cells]
    exercises = [i for i, t in enumerate(tags) if "exercise" in t]
    if not path.name.startswith("00"):
        assert len(exercises) >= 3
    for i in exercises:
        sol = cells[i + 1]
        assert "solution" in sol["metadata"].get("tags", []), f"cell {i + 1} should be the solution of cell {i}"
        assert sol["metadata"].get("jupyter", {}).get("source_hidden") is True
        assert sol["metadata"].get("cellView") == "form"          # Colab's own way of hiding a cell's code
        checks = set(re.findall(r"\b(check_\w+)\(", _source(cells[i])))
        assert checks, f"exercise cell {i} calls no check_ function"
        # the verdict is asserted directly, or collected (e.g. under redirect_stdout, so the output stays quiet)
        # into a variable that is then asserted: `solved = [check_x(...)]` ... `assert all(solved)`
        collected = re.findall(r"^\s*assert (?:all\()?(\w+)\)?\s*$", _source(sol), re.M)
        for name in checks:
            direct = re.search(rf"^\s*assert .*\b{name}\(", _source(sol), re.M)
            via = any(re.search(rf"\b{var}\b[^\n]*=[^=][\s\S]*\b{name}\(", _source(sol)) for var in collected)
            assert direct or via, f"solution {i + 1} must assert {name}"
        assert "..." in _source(cells[i]), f"exercise cell {i} leaves no blank (...)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_checked_outputs_are_present(path):
    """A cell whose output nbval checks must carry that output, or nbval would check nothing."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code" and nbclean.CHECK_MARK in _source(cell):
            assert cell["outputs"], _source(cell)[:80]


def test_core_modules_do_not_import_plotting_or_widgets():
    code = ("import sys, mishran.formats, mishran.hardware, mishran.exercises; "
            "bad = [m for m in ('matplotlib', 'ipywidgets', 'mishran.plots', 'mishran.widgets') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).returncode == 0


def test_glossary_gives_one_bengali_term_per_concept():
    rows = [ln.split("|")[1:3] for ln in (ROOT / "docs/glossary.md").read_text(encoding="utf-8").splitlines()
            if ln.startswith("| ") and not ln.startswith("| বাংলা")]
    bengali = [r[0].strip() for r in rows]
    english = [r[1].strip().lower() for r in rows]
    assert len(rows) >= 30
    assert len(set(bengali)) == len(bengali) and len(set(english)) == len(english)


def test_ci_calls_make_test_and_readme_names_it():
    assert "make test" in (ROOT / ".ci/run").read_text()
    assert "make test" in (ROOT / "README.md").read_text(encoding="utf-8")
