"""Every public name of the core modules has a docstring in Bengali that names the lesson teaching it (পাঠ ...)."""
import importlib
import inspect

import pytest

CORE = ["mishran.formats", "mishran.scaling", "mishran.train", "mishran.data", "mishran.models", "mishran.ds",
        "mishran.ds_config", "mishran.util", "mishran.exercises.core", "mishran.exercises.lesson01",
        "mishran.exercises.lesson02", "mishran.exercises.lesson03", "mishran.exercises.lesson04",
        "mishran.exercises.lesson05"]


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
