"""Every public name of the core modules has a docstring in Bengali that names the lesson teaching it (পাঠ ...);
every name a lesson imports from mishran is in its module's __all__ (so this rule sees it)."""
import ast
import importlib
import importlib.util
import inspect
import json
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# every module of the package, found on disk (sub-packages' __init__ files hold a docstring only)
CORE = sorted("mishran." + ".".join(p.relative_to(ROOT / "src" / "mishran").with_suffix("").parts)
              for p in (ROOT / "src" / "mishran").rglob("*.py")
              if p.name not in ("__init__.py", "__main__.py"))


def _public(module):
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    for name in names:
        obj = getattr(module, name)
        if inspect.ismodule(obj) or getattr(obj, "__module__", module.__name__) != module.__name__:
            continue
        yield name, obj


def _doc(module, name, obj):
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return inspect.getdoc(obj) or ""
    # a constant: its docstring is the string literal right after it, or a comment in the module text
    source = inspect.getsource(module)
    after = source.split(f"\n{name} = ", 1)[-1]
    return after if f"\n{name} = " in source else ""


@pytest.mark.parametrize("module_name", CORE)
def test_every_public_name_has_a_bengali_docstring_naming_its_lesson(module_name):
    module = importlib.import_module(module_name)
    assert "পাঠ" in (module.__doc__ or ""), f"{module_name}: the module docstring names no lesson"
    missing = []
    for name, obj in _public(module):
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        doc = _doc(module, name, obj)
        if not any("\u0980" <= ch <= "\u09ff" for ch in doc):
            missing.append(name)
        elif "পাঠ" not in doc and "পাঠ" not in (module.__doc__ or "")[:400]:
            missing.append(f"{name} (no lesson)")
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                    continue
                text = inspect.getdoc(member) or ""
                if not any("\u0980" <= ch <= "\u09ff" for ch in text):
                    missing.append(f"{name}.{attr}")
    assert not missing, f"{module_name}: {missing}"


@pytest.mark.parametrize("module_name", CORE)
def test_every_public_function_and_class_is_in_all(module_name):
    """A public def or class left out of __all__ is skipped by the docstring rule above: none may be left out."""
    module = importlib.import_module(module_name)
    defined = [name for name, obj in vars(module).items() if not name.startswith("_")
               and (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module_name]
    assert hasattr(module, "__all__"), f"{module_name} has no __all__"
    missing = [n for n in defined if n not in module.__all__]
    assert not missing, f"{module_name}: not in __all__: {missing}"


def _is_package(name: str) -> bool:
    return hasattr(importlib.import_module(name), "__path__")


def _mishran_names(sources) -> dict:
    """{module: {name}} for every `from mishran.X import a` and every `X.a` after `from mishran import X` or
    `import mishran.X as X` in these code texts (one notebook: an import in one cell serves the next ones)."""
    trees = []
    for src in sources:
        # IPython's %magic and !shell lines are not Python
        lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in src.splitlines()]
        trees.append(ast.parse("\n".join(lines)))
    found, modules = defaultdict(set), {}
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mishran":
            for a in node.names:                         # a module of a (sub-)package, or a name of a module
                if importlib.util.find_spec(f"{node.module}.{a.name}") if _is_package(node.module) else False:
                    modules[a.asname or a.name] = f"{node.module}.{a.name}"
                else:
                    found[node.module].add(a.name)
        elif isinstance(node, ast.Import):
            modules.update({a.asname: a.name for a in node.names if a.asname and a.name.startswith("mishran.")})
    for node in (n for tree in trees for n in ast.walk(tree)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules:
            found[modules[node.value.id]].add(node.attr)
    return found


def _lesson_names() -> dict:
    """{module: {name: [lesson, ...]}} over every lesson notebook."""
    uses = defaultdict(lambda: defaultdict(list))
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
        for module, names in _mishran_names(code).items():
            for name in names:
                uses[module][name].append(path.name[:2])
    return uses


LESSON_NAMES = _lesson_names()


def test_the_lesson_scan_finds_both_spellings():
    found = _mishran_names(["from mishran.lab.figures import (a,\n  b)\n%matplotlib inline",
                            "from mishran.numerics import fp8 as f",
                            "import mishran.engines.deepspeed_engine as ds\n!ls",
                            "f.scaled_matmul(x); ds.engine_step(); fp8.not_this()"])
    assert found == {"mishran.lab.figures": {"a", "b"}, "mishran.numerics.fp8": {"scaled_matmul"},
                     "mishran.engines.deepspeed_engine": {"engine_step"}}
    assert {"draw_timeline", "loss_curves_figure"} <= set(LESSON_NAMES["mishran.lab.figures"])
    assert "loss_scale_simulator" in LESSON_NAMES["mishran.lab.widgets"]
    assert "time_mode" in LESSON_NAMES["mishran.measure.bench"]


@pytest.mark.parametrize("module_name", sorted(LESSON_NAMES))
def test_every_name_a_lesson_uses_is_in_its_modules_all(module_name):
    module = importlib.import_module(module_name)
    public = getattr(module, "__all__", ())
    missing = {name: lessons for name, lessons in LESSON_NAMES[module_name].items()
               if not name.startswith("__") and name not in public
               and not inspect.ismodule(getattr(module, name, None))}
    assert not missing, f"{module_name}: used by lessons but not in __all__ (name: lessons): {missing}"
