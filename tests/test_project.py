"""The project's own rules: dependency lists agree, notebooks are stored clean with the outputs nbval compares,
Colab badges come from the one URL, core modules stay free of plotting, and the README maps every file."""
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
except ModuleNotFoundError:  # Python 3.10: tomli, which pytest itself requires there
    import tomli as tomllib


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


def test_repo_url_is_the_one_in_project_urls(tmp_path):
    """Read as TOML, not by pattern: a 'Repository' key in another table, or a comment, is not the URL."""
    toml = tmp_path / "pyproject.toml"
    toml.write_text('[tool.other]\nRepository = "https://example.org/wrong"\n# Repository = "https://x/y"\n'
                    '[project]\nname = "x"\n[project.urls]\nRepository = "https://github.com/a/b/"\n',
                    encoding="utf-8")
    assert colab.repo_url(toml) == "https://github.com/a/b"
    toml.write_text('[project]\nname = "x"\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="Repository"):
        colab.repo_url(toml)


# Lessons whose printed numbers nbval compares cell by cell. 00 (orientation) and 08 (capstone) print nothing
# that must stay the same: their numbers depend on the machine, so nbval only runs them.
LESSONS_WITH_CHECKED_OUTPUT = {"01", "02", "03", "04", "05", "06", "07"}


def _checked_cells(path):
    """(cell number, cell) of every cell tagged nbval-check-output: nbval compares their stored output."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, c) for i, c in enumerate(cells) if nbclean.CHECK_TAG in c.get("metadata", {}).get("tags", [])]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_checked_cells_carry_the_output_nbval_compares(path):
    """A tagged cell without a stored output, or without an execution count, is silently not compared by nbval."""
    checked = _checked_cells(path)
    if path.name[:2] in LESSONS_WITH_CHECKED_OUTPUT:
        assert len(checked) > 0, f"{path.name}: no cell tagged {nbclean.CHECK_TAG}, nbval compares nothing"
    for i, cell in checked:
        assert cell["cell_type"] == "code", f"cell {i} is tagged {nbclean.CHECK_TAG} but is not code"
        assert cell.get("outputs"), f"cell {i} is tagged {nbclean.CHECK_TAG} but stores no output to compare"
        assert cell.get("execution_count") == 1, f"cell {i}: execution_count {cell.get('execution_count')}, " \
            "nbval skips an unrun reference cell"


def test_nbval_compares_outputs_somewhere():
    assert sum(len(_checked_cells(p)) for p in NOTEBOOKS) >= len(LESSONS_WITH_CHECKED_OUTPUT)


def _mishran_modules():
    src = ROOT / "src"
    return sorted(".".join(p.relative_to(src).with_suffix("").parts) for p in (src / "mishran").rglob("*.py")
                  if p.name != "__init__.py")


# Only these two may draw or make widgets; every other module (the core) must import in a bare Python without
# matplotlib or ipywidgets, e.g. on a GPU machine running the DeepSpeed scripts.
FRONT_END = {"mishran.lab.figures", "mishran.lab.widgets", "mishran.lab.checkup"}


def test_core_modules_do_not_import_plotting_or_widgets():
    core = [m for m in _mishran_modules() if m not in FRONT_END]
    assert {"mishran.numerics.formats", "mishran.numerics.scaling", "mishran.engines.amp",
            "mishran.exercises.core"} <= set(core)
    code = (f"import sys, importlib; [importlib.import_module(m) for m in {core!r}]; "
            "bad = [m for m in ('matplotlib', 'ipywidgets', 'mishran.lab.figures', 'mishran.lab.widgets') "
            "if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_glossary_gives_one_bengali_term_per_concept():
    rows = [ln.split("|")[1:3] for ln in (ROOT / "docs/glossary.md").read_text(encoding="utf-8").splitlines()
            if ln.startswith("| ") and not ln.startswith("| বাংলা")]
    bengali = [r[0].strip() for r in rows]
    english = [r[1].strip().lower() for r in rows]
    assert len(rows) >= 30
    assert len(set(bengali)) == len(bengali) and len(set(english)) == len(english)


def test_readme_names_every_tool_doc_and_module_and_the_check_tag():
    """The README's folder map is where a newcomer looks first: a file missing there is a file nobody finds."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for folder in ("tools", "docs") for p in (ROOT / folder).iterdir() if p.is_file())
    modules = sorted(p.stem for p in (ROOT / "src/mishran").rglob("*.py") if p.stem not in ("__init__", "__main__"))
    modules += sorted(p.name for p in (ROOT / "src/mishran").iterdir() if (p / "__init__.py").exists())
    assert [f for f in files if f not in text] == []
    assert [m for m in modules if not re.search(rf"\b{m}\b", text)] == []
    assert "docs/contributing.md" in text
    assert nbclean.CHECK_TAG in text and nbclean.CHECK_MARK not in text     # the tag, not the old comment marker


def test_ci_calls_make_test_and_readme_names_it():
    assert "make test" in (ROOT / ".ci/run").read_text()
    assert "make test" in (ROOT / "README.md").read_text(encoding="utf-8")
