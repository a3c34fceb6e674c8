"""The package is laid out by idea, and the layout is held here: sub-packages in one order, each import pointing down
the order (or across, inside one layer), no core package reaching the lab or a plotting/widget library, and every name
at one address (a module's __all__ holds only what the module itself defines)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "src" / "mishran"

# Lowest first. A module may import from its own layer or a lower one, never a higher one.
LAYERS = [
    {"checks", "versions", "cli", "hardware", "timer", "older_gpu_guard"},   # the doors and the machine
    {"numerics"},                                                          # number formats from the bits
    {"precision"},                                                         # the one owner of precision
    {"data", "models"},                                                    # what the course trains on and trains
    {"engines"},                                                           # the AMP step and loop, DeepSpeed,
                                                                           # FSDP2, DDP
    {"measure"},                                                           # time, memory, FLOPs, the bench
    {"capstone", "checkup"},                                               # whole runs built from all of the above
    {"lab"},                                                               # notebooks only: tables, figures, widgets
    {"exercises"},                                                         # the lessons' checkers
]
CORE = set().union(*LAYERS[:7])
NOT_IN_CORE = ("matplotlib", "ipywidgets", "IPython", "mishran.lab")


def _unit(path: Path) -> str:
    """The layer unit of a module: its sub-package, or its own name for a top-level module."""
    rel = path.relative_to(PKG).with_suffix("")
    return rel.parts[0]


def _layer(unit: str) -> int:
    found = [i for i, units in enumerate(LAYERS) if unit in units]
    assert found, f"{unit} is in no layer: add it to LAYERS (and to the README's package map)"
    return found[0]


def _modules():
    return sorted(p for p in PKG.rglob("*.py") if p.name != "__init__.py" or p.parent != PKG)


def _mishran_imports(tree: ast.AST) -> list[str]:
    """Every module an import statement reaches; `from mishran import precision` reaches mishran.precision."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
            if node.module == "mishran":
                found += [f"mishran.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names]
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_imports_point_down_the_layers(path):
    unit = _unit(path)
    layer = _layer(unit)
    for name in _mishran_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if name.startswith("mishran."):
            target = name.split(".")[1]
            assert _layer(target) <= layer, f"{path.name} ({unit}) imports {name}, a higher layer"
        if unit in CORE:
            assert not name.startswith(NOT_IN_CORE), f"core module {path.name} imports {name}"


def test_every_unit_of_the_package_has_a_layer():
    units = {p.stem for p in PKG.glob("*.py") if p.name != "__init__.py"} | {
        p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert units <= set().union(*LAYERS), units - set().union(*LAYERS)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PKG)))
def test_a_module_exports_only_what_it_defines(path):
    """No re-exports: a name has one address, the module that defines it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined, exported = set(), []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                defined |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                exported = [e.value for e in node.value.elts]
    assert not set(exported) - defined, f"re-exported: {sorted(set(exported) - defined)}"


def test_sub_packages_import_nothing_in_their_init():
    """A sub-package's __init__ is a docstring: lessons import each name from the module that holds it."""
    for init in PKG.glob("*/__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert not _mishran_imports(tree), init


def test_the_scan_sees_every_way_of_importing_a_module():
    tree = ast.parse("from mishran import precision\nimport mishran.lab.figures\n"
                     "from mishran.numerics.formats import x\ndef f():\n    from mishran.capstone import training\n")
    expected = {"mishran.precision", "mishran.lab.figures", "mishran.numerics.formats", "mishran.capstone"}
    assert set(_mishran_imports(tree)) >= expected


def test_every_function_of_the_package_is_at_most_60_lines():
    """Short functions read like the lessons: a longer one is split where its steps are (ruff holds C901 ≤ 10)."""
    long = [f"{path.relative_to(PKG)}:{node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in _modules() for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60]
    assert not long, long
