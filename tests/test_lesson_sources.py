"""What modules and lessons use of each other, and what lessons show of the package's code.

1. Seams are public: no module in src/mishran and no lesson reaches into another mishran module's `_private`
   names (`bench._sync`, `from mishran.x import _y`): a rename then breaks nothing silently.
2. Lessons show package code by name: `show_source(amp_step)`, never a slice of `inspect.getsource(...)` text cut
   between two markers (a moved marker once made lesson 03 show the whole of train() and nobody noticed). What a
   lesson shows is a small public function, its prose names it, and it holds, in order, the lines the prose
   talks about.
"""
import ast
import importlib
import importlib.util
import inspect
import json
import re
from pathlib import Path

import pytest

from mishran.lab import display

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "mishran"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MODULE_FILES = sorted(p for p in PACKAGE.rglob("*.py"))
MAX_SHOWN_LINES = 40

# lesson → {shown object: lines its prose talks about, in the order they must appear}
SHOWN = {
    "03_amp_training_loop": {
        "mishran.engines.amp.amp_step": ["with ctx:", "scaler.scale(loss).backward()", "scaler.unscale_(optimizer)",
                                   "clip_grad_norm_(", "scaler.step(optimizer)", "scaler.update()",
                                   "optimizer.zero_grad("],
        "mishran.measure.bench.time_mode": ["build(mode, sizes, device)", "time_steps(step, 1, device)", "warmup=",
                                            "reset_peak_memory_stats()", "time_steps(step, sizes.steps, device)",
                                            "max_memory_allocated()", "release(device)"],
    },
    "04_gradient_accumulation": {
        "mishran.engines.amp.amp_step": ["for i, (x, y) in enumerate(each_pair(micro_batches))", "loss = loss / k",
                                   "scaler.scale(loss).backward()", "scaler.unscale_(optimizer)",
                                   "scaler.step(optimizer)", "scaler.update()", "optimizer.zero_grad("],
    },
    "07_speed_and_fp8": {
        "mishran.numerics.fp8.scaled_matmul": ["amax(", "compute_scale(", "quantize(", "a8 @ b8", "/ (sa * sb)"],
        "mishran.measure.bench.build": ["convert_to_float8_training", "Float8LinearConfig.from_recipe_name",
                                "torch.compile("],
    },
    "09_fsdp_mixed_precision": {
        "mishran.engines.fsdp.shard_model": ["model.to(", "for block in blocks:", "fully_shard(block",
                                             "fully_shard(model"],
        "mishran.engines.fsdp.mp_policy": ["MixedPrecisionPolicy("],
        "mishran.numerics.communication.ring_order_sum": ["first = (", "for k in range(1, world):", "acc = acc + own",
                                                  "acc.to(hop_dtype)"],
    },
    "10_your_own_model": {
        "mishran.exercises.lesson10.PlantedNet.forward": ["torch.tanh(self.embed(x))",
                                                          "torch.softmax(self.sharpen(self.score(h)"],
        "mishran.exercises.lesson10.Sharpen.forward": ["x * self.factor"],
    },
}

# A lesson that still cuts a library's source text by hand. Strict: when it is fixed, remove it from here.
HAND_CUT: dict = {}   # lessons still cutting source by hand (none now); each entry an expected failure


# ---------------------------------------------------------------- reading code

def _code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for c in cells:
        if c["cell_type"] == "code":
            text = "".join(c["source"])
            # IPython's own syntax (%magic, !shell) is not Python
            out.append("\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in text.splitlines()))
    return out


def _notebook_tree(path: Path) -> ast.Module:
    return ast.parse("\n\n".join(_code_cells(path)), filename=path.name)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _package_of(path: Path) -> str:
    """The dotted package a file in src/mishran belongs to (for relative imports)."""
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])


def _bindings(tree: ast.Module, package: str | None = None) -> tuple[dict, list]:
    """Names bound by imports → the dotted thing they stand for; and imports of a private mishran name."""
    names, private = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                names[a.asname or a.name] = f"{base}.{a.name}"
                if base.startswith("mishran") and a.name.startswith("_") and not a.name.startswith("__"):
                    private.append(f"line {node.lineno}: from {base} import {a.name}")
    return names, private


def _dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _expand(dotted: str, names: dict) -> str:
    root, _, rest = dotted.partition(".")
    full = names.get(root, root)
    return f"{full}.{rest}" if rest else full


def _private_uses(tree: ast.Module, names: dict, own_module: str | None = None) -> list[str]:
    """`module._name` where module is a mishran module other than the file's own."""
    found = {}
    for node in ast.walk(tree):
        dotted = _dotted(node) if isinstance(node, ast.Attribute) else None
        parts = _expand(dotted, names).split(".") if dotted else []
        for i in range(1, len(parts)):
            module, attr = ".".join(parts[:i]), parts[i]
            if parts[0] != "mishran" or not _is_module(module):
                break
            if attr.startswith("_") and not attr.startswith("__") and module != own_module:
                found.setdefault((node.lineno, module, attr), f"line {node.lineno}: {dotted} ({module}.{attr})")
                break
    return [found[k] for k in sorted(found)]


def _resolve(full: str):
    parts = full.split(".")
    for i in range(len(parts), 0, -1):
        if _is_module(".".join(parts[:i])):
            obj = importlib.import_module(".".join(parts[:i]))
            for attr in parts[i:]:
                obj = getattr(obj, attr)
            return obj
    raise LookupError(full)


def _show_calls(path: Path) -> list[tuple[ast.Call, str | None]]:
    """Every show_source(...) call in a lesson, with its first argument as a full dotted name (None: not a name)."""
    tree = _notebook_tree(path)
    names, _ = _bindings(tree)
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (_dotted(node.func) or "").split(".")[-1] == "show_source":
            arg = node.args[0] if node.args else None
            dotted = _dotted(arg) if arg is not None else None
            calls.append((node, _expand(dotted, names) if dotted else None))
    return calls


def _lesson(path: Path) -> str:
    return path.stem


# ---------------------------------------------------------------- 1. public seams

@pytest.mark.parametrize("path", MODULE_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_uses_another_mishran_modules_private_names(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _package_of(path)
    own = ".".join([package, path.stem]) if path.stem != "__init__" else package
    names, private = _bindings(tree, package)
    found = private + _private_uses(tree, names, own)
    assert not found, f"{path.name} uses private names of other mishran modules: {found}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_lesson)
def test_no_lesson_uses_a_mishran_modules_private_names(path):
    tree = _notebook_tree(path)
    names, private = _bindings(tree)
    found = private + _private_uses(tree, names)
    assert not found, f"{path.name} uses private mishran names: {found}"


def test_the_scan_sees_the_ways_a_private_name_is_reached():
    code = ("from mishran.measure import bench\nimport mishran.engines.amp as t\nimport mishran.measure.memory\n"
            "from mishran.util import _x\nbench._sync('cpu')\nt._to_device\nmishran.measure.memory._storage_key\n"
            "bench.sync('cpu')\nbench.__name__\n")
    tree = ast.parse(code)
    names, private = _bindings(tree)
    found = private + _private_uses(tree, names)
    assert [f.split(":")[0] for f in found] == ["line 4", "line 5", "line 6", "line 7"], found
    assert _private_uses(tree, names, own_module="mishran.measure.bench") == [f for f in found[1:] if "bench" not in f]


# ---------------------------------------------------------------- 2. lessons show code by name

def _by_name_or_hand_cut(path):
    if _lesson(path) in HAND_CUT:
        return pytest.param(path, id=_lesson(path), marks=pytest.mark.xfail(strict=True,
                                                                              reason=HAND_CUT[_lesson(path)]))
    return pytest.param(path, id=_lesson(path))


@pytest.mark.parametrize("path", [_by_name_or_hand_cut(p) for p in NOTEBOOKS])
def test_lessons_show_code_by_name_never_by_cutting_source_text(path):
    calls = _show_calls(path)
    not_named = [f"line {c.lineno}: show_source({ast.unparse(c.args[0]) if c.args else ''})"
                 for c, full in calls if full is None]
    assert not not_named, f"{path.name} shows code that is not a named object: {not_named}"
    cut_ours = [f"line {c.lineno}: {full}" for c, full in calls if full.startswith("mishran") and c.keywords]
    assert not cut_ours, f"{path.name} shows only part of a mishran function; show a small one whole: {cut_ours}"
    tree = _notebook_tree(path)
    names, _ = _bindings(tree)
    sliced = [f"line {n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Call)
              and (_dotted(n.func) or "").endswith("getsource") and n.args and _dotted(n.args[0])
              and _expand(_dotted(n.args[0]), names).startswith("mishran")]
    assert not sliced, f"{path.name} reads a mishran object's source text itself: {sliced}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_lesson)
def test_what_each_lesson_shows_of_the_package_is_listed_with_its_key_lines(path):
    shown = sorted({full for _, full in _show_calls(path) if full and full.startswith("mishran")})
    assert shown == sorted(SHOWN.get(_lesson(path), {})), (
        f"{path.name} shows {shown}; list each in SHOWN with the lines its prose talks about")


SHOWN_CASES = [pytest.param(lesson, name, keys, id=f"{lesson}:{name.rsplit('.', 1)[-1]}")
               for lesson, objects in SHOWN.items() for name, keys in objects.items()]


@pytest.mark.parametrize("lesson, name, keys", SHOWN_CASES)
def test_a_shown_function_is_small_public_and_holds_the_lines_its_prose_describes_in_order(lesson, name, keys):
    obj = _resolve(name)
    assert inspect.isfunction(obj) or inspect.ismethod(obj), f"{name} is not a function or method"
    assert not any(part.startswith("_") for part in name.split(".")), f"{name} is not public"
    module = importlib.import_module(obj.__module__)
    assert obj.__name__ in getattr(module, "__all__", []) or "." in obj.__qualname__, f"{name} not in __all__"
    text = display.source_text(obj)
    assert len(text.splitlines()) <= MAX_SHOWN_LINES, f"{name}: {len(text.splitlines())} lines"
    at = 0
    for key in keys:
        found = text.find(key, at)
        assert found >= 0, f"{name}: {key!r} missing, or not after {text[:at].splitlines()[-1:]!r}"
        at = found + len(key)


@pytest.mark.parametrize("lesson, name, keys", SHOWN_CASES)
def test_the_prose_just_before_a_shown_function_names_it(lesson, name, keys):
    cells = json.loads((ROOT / "notebooks" / f"{lesson}.ipynb").read_text(encoding="utf-8"))["cells"]
    short = name.rsplit(".", 1)[-1]
    pattern = re.compile(rf"show_source\(\s*[\w.]*\b{short}\s*[,)]")
    shown_at = [i for i, c in enumerate(cells) if c["cell_type"] == "code" and pattern.search("".join(c["source"]))]
    assert shown_at, f"{lesson}: no show_source({short})"
    for i in shown_at:
        prose = next("".join(c["source"]) for c in reversed(cells[:i]) if c["cell_type"] == "markdown")
        assert re.search(rf"`[\w.]*\b{short}\b[\w.()]*`", prose), (
            f"{lesson}: the markdown before show_source({short}) does not name `{short}`")


def test_the_accumulation_step_does_the_optimizer_work_only_at_the_boundary():
    # lesson 04's table: loss / k and scale(loss).backward() in every micro-step; the rest once, after the loop
    lines = display.source_text(_resolve("mishran.engines.amp.amp_step")).splitlines()

    def indent(key):
        (line,) = [ln for ln in lines if key in ln]
        return len(line) - len(line.lstrip())

    inside = indent("scaler.scale(loss).backward()")
    assert indent("loss = loss / k") > indent("for i, (x, y) in enumerate(each_pair(micro_batches))")
    for boundary in ("scaler.unscale_(optimizer)", "scaler.step(optimizer)", "scaler.update()",
                     "optimizer.zero_grad("):
        assert indent(boundary) < inside, boundary
