"""Bad input, the way a learner types it, at the learner's door: every name of tests/learner_door.py's DOOR (the
functions, and the constructors of the classes) gets odd values (wrong types, signs, zero, inf/NaN, huge numbers) in
its value arguments, one at a time, in an otherwise valid call. Each call must either give a result or raise a clear
error (ValueError/TypeError, or the module's own error class) whose message has Bengali text and an English key term;
never a raw internal exception (OverflowError, AttributeError, KeyError, IndexError, ZeroDivisionError, ...).

A learner types values (numbers, names, text, sizes, flags, configs); the objects a door name also takes (a model, an
optimizer, a GradScaler, an autocast context, a loss function, a torch.Generator, a DeepSpeed engine, a tokenizer)
come from torch or from the course's own code, and are not fuzzed: OBJECT_ARGS lists them, name by name, and
test_object_args_are_objects holds that no value argument hides there. A config object (GPTConfig, TrainConfig,
BenchSizes, CapstoneConfig) is a door name of its own: its values are fuzzed where it is built.

The odd values are a fixed list plus a seeded random sample, so a failure names its exact call and repeats; a case
reports every odd call that failed, not only the first. Every call must also come back within HANG_S seconds (a hang,
e.g. a loop of 2**2000 steps, is a failure too). The fuzz covers exactly the door
(test_the_fuzz_covers_exactly_the_door): a name joins the door with a good call here, and a function off the door
trusts its caller and is not fuzzed. The exercise checks take a learner's answer and must give a verdict, never an
error; the command lines' flags are tests/test_command_lines.py's. Good calls use small sizes; names that run whole
training steps get one odd value of each kind (ODD_STEP), so the file stays cheap.
"""
import contextlib
import importlib
import inspect
import math
import random
import re
import signal
import time

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from learner_door import DOOR  # noqa: E402

from mishran import data, hardware, precision  # noqa: E402
from mishran.capstone import evaluation, literature, training  # noqa: E402
from mishran.checkup import keep  # noqa: E402
from mishran.checkup import run as checkup_run  # noqa: E402
from mishran.engines import amp, deepspeed_config, deepspeed_engine  # noqa: E402
from mishran.exercises import lesson01, lesson02, lesson03, lesson04, lesson05  # noqa: E402
from mishran.lab import checkup as lab_checkup  # noqa: E402
from mishran.lab import display, figures, widgets  # noqa: E402
from mishran.measure import bench, flops, memory, profiler  # noqa: E402
from mishran.models import gpt, mlp, reference  # noqa: E402
from mishran.numerics import communication, formats, fp8, int8, scaling  # noqa: E402

BENGALI = re.compile(r"[\u0980-\u09FF]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
ODD = [0, -1, 1, 2, -7, 2 ** 2000, -(2 ** 2000), 0.0, -0.0, 0.5, -0.5, 1e308, -1e308, 1e-320, math.inf, -math.inf,
       math.nan, True, False, None, "", "abc", "1e3", [], [1, 2], {}, {"x": 1}, (0,), object(), torch.tensor(2.0),
       torch.tensor([1.0, 2.0]), torch.tensor([]), torch.float16, "fp16"]
_rng = random.Random(8)
ODD += [_rng.choice([-1, 1]) * 10 ** _rng.uniform(-400, 400) for _ in range(6)] + [_rng.randint(-10 ** 9, 10 ** 9)]

# Drawing a widget's figure takes most of a second here (tight_layout), so the widgets that draw get one odd value of
# each kind: every category above (wrong types, None, bool, negative, zero, huge, inf/NaN, wrong strings, containers,
# tensors).
ODD_FIGURES = [0, -1, 2, 2 ** 2000, -(2 ** 2000), 0.5, 1e308, math.inf, math.nan, True, None, "", "abc", [], [1, 2],
               {}, {"x": 1}, (0,), object(), torch.tensor(2.0), torch.tensor([1.0, 2.0])]
DRAWING = {"widgets.bit_explorer", "widgets.loss_scale_simulator", "checkup.show_checkup",
           "checkup.module_range_figure"}

# A measured training step takes a fifth of a second: one value of each wrong kind.
ODD_STEP = [0, -1, 2 ** 2000, 0.5, math.inf, math.nan, True, None, "abc", [], object(), torch.tensor([1.0, 2.0])]
# The names that run (and time) whole training steps, or build an engine or a model per call: ODD_STEP for them.
MEASURED = {"memory.measure_step", "deepspeed_engine.initialize", "bench.run", "profiler.profile_step",
            "training.run", "run.checkup"}

# The arguments that are objects, not values a learner types: the fuzz leaves them as the good call gives them.
OBJECT_ARGS = {
    "scaling.simulate": {"scaler"},
    "int8.quantize_dynamic": {"model"},
    "data.CharDataset": {"tokenizer"},
    "gpt.TinyGPT": {"config"},
    "amp.train": {"model", "optimizer", "get_batch", "config", "scaler", "loss_fn", "lr_at"},
    "amp.amp_step": {"model", "optimizer", "scaler", "ctx", "micro_batches", "loss_fn", "sync"},
    "amp.save_checkpoint": {"model", "optimizer", "scaler", "generator"},
    "amp.load_checkpoint": {"model", "optimizer", "scaler", "generator"},
    "deepspeed_engine.initialize": {"model", "optimizer"},
    "memory.measure_step": {"model", "batch"},
    "bench.run": {"sizes", "report"},
    "profiler.profile_step": {"sizes"},
    "training.run": {"config", "data"},
    "evaluation.sample": {"model", "tokenizer"},
    "literature.LiteratureData": {"pieces"},
    "display.show_source": {"obj"},
    "run.checkup": {"model", "batch", "loss_fn"},
    "keep.KeepFP32": {"model"},
    "checkup.show_checkup": {"report"},
    "checkup.module_range_figure": {"report"},
}
"""door name → its parameters that hold an object from torch or the course's code, not a value a learner types."""

# What OBJECT_ARGS may name: a parameter called for an object made by torch (a model, an optimizer, a GradScaler, an
# autocast context, a torch.Generator, a training batch of tensors) or by the course's code (a DeepSpeed engine, a
# tokenizer, a data set or a corpus's pieces, a device report, a loss function or other callable), or one annotated
# with a class on the door (a config dataclass: the fuzz gives odd values to its own constructor). Never one annotated
# or defaulted as a value (test_object_args_are_objects).
OBJECT_NAMES = frozenset({"model", "optimizer", "scaler", "ctx", "generator", "micro_batches", "batch", "engine",
                          "tokenizer", "data", "pieces", "report", "loss_fn", "get_batch", "lr_at", "sync", "obj"})
VALUE_TYPES = frozenset({"int", "float", "str", "bool", "bytes", "complex", "dict", "list", "tuple", "set"})

# A clear error: the course's own classes (DeepSpeedConfigError is a ValueError), or ValueError/TypeError.
ALLOWED = (ValueError, TypeError, scaling.LossScaleAtMinimumError)
# No call may use more than HANG_S seconds of CPU on one odd argument. CPU time, not the clock: `make test` runs
# the unit tests beside the browser tests at a lower priority, where a call may wait for a core; a call that
# waits for nothing at all (a blocked lock) is caught by the clock after WALL_S.
HANG_S = 5
WALL_S = 60


class _Hang(BaseException):
    """Raised by the alarm; a BaseException, so no `except Exception` in the code under test can swallow it."""


def _alarm(signum, frame):
    raise _Hang()


class Fresh:
    """An argument made anew for every call (a new model), so one call's training does not pile up under the next."""

    def __init__(self, make):
        self.make = make


def _problem(fn, args, kwargs, where, allowed=ALLOWED) -> str | None:
    """What is wrong with one call (a raw error, an unclear message, a hang), or None when it is answered well."""
    args = [a.make() if isinstance(a, Fresh) else a for a in args]
    kwargs = {k: v.make() if isinstance(v, Fresh) else v for k, v in kwargs.items()}
    previous = signal.signal(signal.SIGPROF, _alarm), signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_PROF, HANG_S)                 # this process's CPU time, all its threads
    signal.setitimer(signal.ITIMER_REAL, WALL_S)
    start = time.process_time()
    try:
        fn(*args, **kwargs)
    except _Hang:
        return f"{where}: still running after {HANG_S} s of CPU (a hang)"
    except allowed as err:
        message = str(err)
        if not (BENGALI.search(message) and LATIN_WORD.search(message)):
            return f"{where}: unclear message {message!r}"
    except Exception as err:  # noqa: BLE001 — anything else is the bug this test exists for
        return f"{where}: raw {type(err).__name__}: {err}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])
        plt.close("all")
    if time.process_time() - start >= HANG_S:
        return f"{where}: took {HANG_S} s of CPU or more (a hang)"
    return None


def _check(fn, args, kwargs, where, allowed=ALLOWED):
    problem = _problem(fn, args, kwargs, where, allowed)
    if problem:
        pytest.fail(problem)


def _short(value, width=60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width] + "…"


def _fuzz(name, fn, args, kwargs=None, allowed=ALLOWED, odd_values=None, objects=frozenset()):
    """Replace each value argument in turn by each odd value; the arguments named in objects (OBJECT_ARGS) are left
    as given. Fails once, with a line for each argument that failed: its first failing call in full, then the other
    odd values it failed on."""
    kwargs = kwargs or {}
    calls = []                                      # (the argument, the odd value, args, kwargs)
    for i, parameter in enumerate(list(inspect.signature(fn).parameters)[:len(args)]):
        if parameter not in objects:
            calls += [(f"arg {i} {parameter}", odd, [*args[:i], odd, *args[i + 1:]], kwargs)
                      for odd in odd_values or ODD]
    for key in kwargs:
        if key not in objects:
            calls += [(key, odd, args, {**kwargs, key: odd}) for odd in odd_values or ODD]
    failed = {}
    for argument, odd, changed_args, changed_kwargs in calls:
        problem = _problem(fn, changed_args, changed_kwargs, f"{name}({argument}={_short(odd)})", allowed)
        if problem:
            failed.setdefault(argument, []).append((odd, problem))
    if failed:
        pytest.fail("\n".join(f"{first[1]}" + (f"\n    and {len(rest)} more odd values: "
                                               f"{', '.join(_short(odd, 12) for odd, _ in rest)}" if rest else "")
                               for first, *rest in failed.values()))


# ---- what the good calls need (small sizes: a good call takes milliseconds)
TEXT = "অআইঈউঊ" * 50
CONFIG = gpt.GPTConfig(vocab_size=6, block_size=8, n_layer=1, n_head=2, n_embd=8)
IDX = torch.zeros(2, 4, dtype=torch.long)
MAT = torch.tensor([[1.0, -2.0], [0.5, 4.0]])
TOKENIZER = data.CharTokenizer(TEXT)
PIECES = [literature.Piece("ক", i, f"খণ্ড {i}", TEXT[:40]) for i in range(4)]
LIT = literature.LiteratureData(PIECES, 2, 1)
SIZES = reference.BenchSizes(layers=1, d_model=8, batch=1, seq=4, vocab=8, steps=1, warmup=0)
REPORT = hardware.device_report("cpu")
ONES = (torch.ones(2, 2), torch.ones(2, 1))
SCALER = precision.grad_scaler("cpu", "fp32")
DS_CONFIG = deepspeed_config.config_for_device(micro_batch=2, precision="bf16", device="cpu")
CHECKUP_REPORT = checkup_run.checkup(torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Linear(4, 1)),
                                     torch.ones(4, 2), loss_fn=torch.mean, target="t4", steps=0)
COMM_GRADS = torch.randn(4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
CAPSTONE = dict(size="tiny", precision="fp32", micro_batch=1, accumulation_steps=1, zero_stage=None, steps=1,
                lr=1e-3, dropout=0.0, clip_norm=1.0, seed=0, eval_every=1, eval_chars=8, warmup=0, device="cpu",
                checkpoint_path=None, save_at=None, resume_from=None, prompt="অ", sample_tokens=1, temperature=0.8,
                top_k=2, progress=False, patience=None, compile=False, lr_warmup=0, lr_decay=False)


def _tiny_gpt():
    return gpt.TinyGPT(CONFIG, seed=0).eval()


def _mse(out, y):
    return torch.nn.functional.mse_loss(out, y)


def _checkup_model():
    return torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.Linear(4, 1))


class _Linear(torch.nn.Linear):
    """train()'s model: (logits, loss) when given targets, as nanoGPT, so the call without loss_fn works too."""

    def forward(self, x, y=None):
        out = super().forward(x)
        return out if y is None else (out, _mse(out, y))


LINEAR = _Linear(2, 1)
LINEAR_OPT = torch.optim.SGD(LINEAR.parameters(), lr=0.1)


def _simulate(overflow_flags, steps):
    return scaling.simulate(scaling.DynamicLossScaler(), overflow_flags, steps)


def _simulate_callable(steps):
    return scaling.simulate(scaling.DynamicLossScaler(), lambda step, scale: False, steps)


# (name, callable, args, kwargs[, extra allowed error classes]). The name is "module.door_name" (the module by the
# last part of its path, as in DOOR), with "(what)" after it where one name gets a second call. The callable is the
# door name itself, or a _helper here (its parameters named as the door name's) that binds what a learner does not
# give (the scaler that simulate drives).
DOOR_CALLS = [
    # numerics: formats, scaling, fp8, int8, communication
    ("formats.decode", formats.decode, (1.0, "fp16")),
    ("formats.decode_bits", formats.decode_bits, (0x3C00, "fp16")),
    ("formats.encode", formats.encode, (1.0, "bf16")),
    ("formats.round_to", formats.round_to, (1.0, "fp8_e4m3"), {"saturate": False}),
    ("formats.spacing", formats.spacing, (1.0, "fp16")),
    ("formats.get_format", formats.get_format, ("fp16",)),
    ("scaling.underflow_report", scaling.underflow_report, (torch.tensor([1e-8, 1.0]), "fp16", 1.0)),
    ("scaling.StaticLossScaler", scaling.StaticLossScaler, (1024.0,)),
    ("scaling.DynamicLossScaler", scaling.DynamicLossScaler, (1024.0, 2.0, 0.5, 10)),
    ("scaling.DeepSpeedLossScaler", scaling.DeepSpeedLossScaler, (1024, 10, 2, 1)),
    ("scaling.DeepSpeedLossScaler(flags)", scaling.DeepSpeedLossScaler, (1024, 10, 2, 1, False, True)),
    ("scaling.simulate", _simulate, ([False, True], 2)),
    ("scaling.simulate(callable)", _simulate_callable, (10,)),
    ("fp8.compute_scale", fp8.compute_scale, (4.0, "fp8_e4m3", False)),
    ("fp8.quantize", fp8.quantize, (MAT, "fp8_e4m3", 1.0)),
    ("fp8.scaled_matmul", fp8.scaled_matmul, (MAT, MAT, "fp8_e4m3", "fp8_e5m2", "rowwise", False)),
    ("int8.int8_scale", int8.int8_scale, (MAT, 1)),
    ("int8.to_int8", int8.to_int8, (MAT, torch.tensor(10.0))),
    ("int8.dequantize", int8.dequantize, (MAT, torch.tensor(10.0))),
    ("int8.quantize_dynamic", int8.quantize_dynamic, (Fresh(lambda: mlp.MLP(2, 4, 1, seed=0)), None, torch.qint8,
                                                      False)),
    ("communication.ring_reduce_scatter", communication.ring_reduce_scatter, (COMM_GRADS, "bf16", None)),
    ("communication.error_sweep", communication.error_sweep, ((2, 4), 32, 0),
     {"signal": 1.0, "noise": 1.0, "scale": 1e-3}),
    # precision and hardware
    ("precision.for_device", precision.for_device, ("cpu",)),
    ("precision.for_device(capability)", precision.for_device, (None, (7, 5))),
    ("precision.resolve", precision.resolve, ("auto", "cpu")),
    ("precision.dtype_of", precision.dtype_of, ("fp16",)),
    ("precision.name_of", precision.name_of, (torch.bfloat16,)),
    ("precision.needs_loss_scaling", precision.needs_loss_scaling, (torch.float16,)),
    ("precision.needs_loss_scaling(name)", precision.needs_loss_scaling, ("fp16",)),
    ("precision.autocast", precision.autocast, ("cpu", "bf16")),
    ("precision.grad_scaler", precision.grad_scaler, ("cpu", "fp16")),
    ("hardware.device_report", hardware.device_report, ("cpu",)),
    ("hardware.supports", hardware.supports, ("bf16", "cpu")),
    # data and models
    ("data.CharDataset", data.CharDataset, (TEXT, 0.1, None)),
    ("data.CharTokenizer", data.CharTokenizer, ("অআ",)),
    ("data.synthetic_regression", data.synthetic_regression, (16, 4, 0, 0.05)),
    ("mlp.MLP", mlp.MLP, (4, 8, 1), {"n_layers": 2, "seed": 0}),
    ("gpt.GPTConfig", gpt.GPTConfig, (), {"vocab_size": 8, "block_size": 8, "n_layer": 1, "n_head": 2, "n_embd": 8}),
    ("gpt.TinyGPT", gpt.TinyGPT, (CONFIG, 0)),
    ("reference.BenchSizes", reference.BenchSizes, (1, 8, 1, 4, 8, 1, 0)),
    # engines: the AMP loop and its checkpoints, DeepSpeed's config and engine
    ("amp.TrainConfig", amp.TrainConfig, (), {"precision": "bf16", "steps": 2, "accumulation_steps": 1,
                                              "clip_norm": 1.0, "log_every": 0}),
    ("amp.train", amp.train, (LINEAR, LINEAR_OPT, lambda: ONES, amp.TrainConfig(steps=1)),
     {"scaler": None, "start_step": 0, "loss_fn": _mse, "lr_at": None}),
    ("amp.amp_step", amp.amp_step, (LINEAR, LINEAR_OPT, SCALER, contextlib.nullcontext(), [ONES], 1, None, None,
                                    None)),
    ("amp.save_checkpoint", amp.save_checkpoint, ("ck.pt", LINEAR, LINEAR_OPT), {"step": 3, "generator": None}),
    ("amp.load_checkpoint", amp.load_checkpoint, ("saved.pt", LINEAR, LINEAR_OPT),
     {"scaler": None, "generator": None, "restore_rng": False, "return_extra": False}, (FileNotFoundError,)),
    ("deepspeed_config.config_for_device", deepspeed_config.config_for_device, (4, 2, 1),
     {"zero_stage": 1, "precision": "bf16", "device": "cpu", "lr": 1e-3, "gradient_clipping": 1.0}),
    ("deepspeed_config.validate_config", deepspeed_config.validate_config, ({"train_batch_size": 8}, 1, "cpu")),
    ("deepspeed_config.zero_model_state_bytes", deepspeed_config.zero_model_state_bytes, (1000, 2, 4)),
    ("deepspeed_config.zero_model_state_bytes(bytes)", deepspeed_config.zero_model_state_bytes, (1000, 2),
     {"world_size": 4, "param_bytes": 2, "grad_bytes": 2, "optimizer_bytes": 12}),
    ("deepspeed_engine.initialize", deepspeed_engine.initialize, (Fresh(_tiny_gpt), DS_CONFIG),
     {"optimizer": None, "lr": 1e-3, "replace_current": False}),
    # measure
    ("memory.measure_step", memory.measure_step, (Fresh(_tiny_gpt), (IDX, IDX)),
     {"mode": "fp32", "zero_stage": 0, "warmup": 0, "steps": 1}),
    ("bench.run", bench.run, (SIZES, "cpu", ("fp32",), False, REPORT)),
    ("profiler.profile_step", profiler.profile_step, ("fp32", SIZES, "cpu", 1)),
    ("profiler.time_matmul", profiler.time_matmul, (8, 8, 8), {"dtype": torch.float32, "device": "cpu", "repeats": 2}),
    ("flops.mfu", flops.mfu, (1e12, 0.5, 100.0)),
    ("flops.mfu(world_size)", flops.mfu, (1000.0, 1e6, 989.0, 1)),
    # capstone
    ("training.CapstoneConfig", training.CapstoneConfig, (), CAPSTONE),
    ("training.run", training.run, (training.CapstoneConfig(**CAPSTONE), LIT, False)),
    ("evaluation.sample", evaluation.sample, (Fresh(_tiny_gpt), TOKENIZER, TEXT[:3]),
     {"max_new_tokens": 3, "temperature": 0.8, "top_k": 2, "seed": 0, "device": "cpu"}),
    ("evaluation.bigram_bpc", evaluation.bigram_bpc, ([0, 1, 2, 1, 0, 5], [0, 1, 2], 6), {"alpha": 0.1}),
    ("literature.LiteratureData", literature.LiteratureData, (PIECES, 2, 1)),
    # lab: display and widgets
    ("display.show_source", display.show_source, (display.show_table, None, None)),
    ("display.show_table", display.show_table, ([[1, "অ"]], ["x", "y"], "c", True)),
    # the check-up: the learner's own model, batch and loss_fn are objects; device, target and steps are values
    ("run.checkup", checkup_run.checkup, (Fresh(_checkup_model), ONES, _mse, None, "t4"), {"steps": 1}),
    ("keep.KeepFP32", keep.KeepFP32, (Fresh(_checkup_model), ["0"])),
    ("checkup.show_checkup", lab_checkup.show_checkup, (CHECKUP_REPORT, 3)),
    ("checkup.module_range_figure", lab_checkup.module_range_figure, (CHECKUP_REPORT, 3)),
    ("widgets.explore", widgets.explore, (0.1, ("fp16", "bf16"))),
    ("widgets.bit_explorer", widgets.bit_explorer, ("0.1", ("fp16",))),
    ("widgets.loss_scale_simulator", widgets.loss_scale_simulator, ("pytorch", 5, 2, 0.1, 50, 0, 20)),
]


@pytest.mark.parametrize("call", DOOR_CALLS, ids=[c[0] for c in DOOR_CALLS])
def test_the_door_refuses_odd_arguments_clearly(call, monkeypatch, tmp_path):
    name, fn, args, *rest = call
    kwargs, allowed = (rest + [{}, ()])[:2] if rest else ({}, ())
    monkeypatch.chdir(tmp_path)                     # checkpoints, and files an odd name would make, go to tmp_path
    if name == "amp.load_checkpoint":
        amp.save_checkpoint("saved.pt", LINEAR, LINEAR_OPT)
    if name == "memory.measure_step":               # its gc.collect() afterwards frees memory; it checks nothing
        monkeypatch.setattr(memory, "release", lambda device: None, raising=False)
    if name in DRAWING:
        figures.setup_bengali()
    # the valid call first, outside the clock: it must work, and it pays for any first-use import (torch._dynamo)
    fn(*[a.make() if isinstance(a, Fresh) else a for a in args], **kwargs)
    plt.close("all")
    odd = ODD_STEP if name.split("(")[0] in MEASURED else ODD_FIGURES if name.split("(")[0] in DRAWING else None
    _fuzz(name, fn, args, kwargs, ALLOWED + tuple(allowed), odd, OBJECT_ARGS.get(name.split("(")[0], set()))


def _door_object(name):
    """The object a DOOR_CALLS name stands for: "formats.decode(what)" → mishran.numerics.formats.decode."""
    short, attr = name.split("(")[0].split(".")
    module = next(m for m in DOOR if m.rsplit(".", 1)[-1] == short)
    return getattr(importlib.import_module(module), attr)


def test_the_fuzz_covers_exactly_the_door():
    """A name on the door has a good call above, and nothing off the door is fuzzed (it trusts its caller)."""
    shorts = [m.rsplit(".", 1)[-1] for m in DOOR]
    assert len(set(shorts)) == len(shorts), "two DOOR modules end in the same name; DOOR_CALLS could not tell them"
    door = {f"{m.rsplit('.', 1)[-1]}.{n}" for m, names in DOOR.items() for n in names}
    fuzzed = {c[0].split("(")[0] for c in DOOR_CALLS}
    assert not door - fuzzed, f"door names with no fuzz entry: {sorted(door - fuzzed)}"
    assert not fuzzed - door, f"fuzzed names that are not on the door: {sorted(fuzzed - door)}"
    for name, fn, *_ in DOOR_CALLS:               # a name calls what it says (a _helper here binds the rest)
        assert fn is _door_object(name) or fn.__name__.startswith("_"), name
        helper = set(inspect.signature(fn).parameters) - set(inspect.signature(_door_object(name)).parameters)
        assert not helper, f"{name}: {fn.__name__}'s parameters {sorted(helper)} are not the door name's"
    for module, names in DOOR.items():            # and every door name is the module's own, listed in __all__
        loaded = importlib.import_module(module)
        assert set(names) <= set(loaded.__all__), f"{module}: {sorted(set(names) - set(loaded.__all__))}"


def _is_value(parameter) -> bool:
    """A parameter annotated as a value (int, str, dict, ...), or whose default is a value (anything but None)."""
    annotation = "" if parameter.annotation is inspect.Parameter.empty else str(parameter.annotation)
    default = parameter.default
    return bool(set(re.findall(r"\w+", annotation)) & VALUE_TYPES) or not (default is None or default is
                                                                           inspect.Parameter.empty)


def test_object_args_are_objects():
    """OBJECT_ARGS names only objects: a real parameter of a door name, called as an object is (OBJECT_NAMES) or
    annotated with a class on the door, and neither annotated nor defaulted as a value — no value argument hides
    there unfuzzed."""
    door = {f"{m.rsplit('.', 1)[-1]}.{n}" for m, names in DOOR.items() for n in names}
    door_classes = {n for m, names in DOOR.items() for n in names
                    if isinstance(getattr(importlib.import_module(m), n), type)}
    assert not set(OBJECT_ARGS) - door, f"OBJECT_ARGS for names off the door: {sorted(set(OBJECT_ARGS) - door)}"
    for name, objects in OBJECT_ARGS.items():
        parameters = inspect.signature(_door_object(name)).parameters
        for arg in sorted(objects):
            assert arg in parameters, f"{name} has no parameter {arg!r}"
            assert not _is_value(parameters[arg]), f"{name}({arg}) is a value (annotation or default): fuzz it"
            assert arg in OBJECT_NAMES or set(re.findall(r"\w+", str(parameters[arg].annotation))) & door_classes, \
                f"{name}({arg}) is not an object's name nor a door class: fuzz it"


def test_the_object_check_would_see_a_hidden_value(monkeypatch):
    """The check above itself: a value argument put in OBJECT_ARGS, to escape the fuzz, fails it."""
    train, step = OBJECT_ARGS["amp.train"], OBJECT_ARGS["amp.amp_step"]
    monkeypatch.setitem(OBJECT_ARGS, "amp.train", train | {"start_step"})           # start_step: int = 0
    with pytest.raises(AssertionError, match=r"amp.train\(start_step\) is a value"):
        test_object_args_are_objects()
    monkeypatch.setitem(OBJECT_ARGS, "amp.train", train)
    monkeypatch.setitem(OBJECT_ARGS, "amp.amp_step", step | {"clip_norm"})          # clip_norm=None, no annotation
    with pytest.raises(AssertionError, match=r"amp.amp_step\(clip_norm\) is not an object's name"):
        test_object_args_are_objects()
    monkeypatch.setitem(OBJECT_ARGS, "amp.amp_step", step | {"clip"})
    with pytest.raises(AssertionError, match="amp.amp_step has no parameter 'clip'"):
        test_object_args_are_objects()


def test_every_door_name_takes_a_value():
    """A door name is one a learner calls with values of their own (DOOR's rule): one whose every parameter is an
    object (OBJECT_ARGS) has nothing for a learner to type, and nothing for the fuzz to try."""
    bare = [name for name in sorted({c[0].split("(")[0] for c in DOOR_CALLS})
            if not set(inspect.signature(_door_object(name)).parameters) - OBJECT_ARGS.get(name, set())]
    assert not bare, f"door names that take only objects: {bare}"


ANSWER_CHECKS = [
    ("lesson01.check_fp16_bits_value", lambda a: lesson01.check_fp16_bits_value("0 01111 0000000000", a)),
    ("lesson01.check_bf16_round", lambda a: lesson01.check_bf16_round(257, a)),
    ("lesson01.check_first_unrepresentable_integer", lambda a: lesson01.check_first_unrepresentable_integer("fp16", a)),
    ("lesson01.check_e4m3_max", lesson01.check_e4m3_max),
    # FP8 E4M3 stalls at 16 after 16 additions (FP16 needs 2048, each a round_to): the answer's check is the same
    ("lesson01.check_sum_stall", lambda a: lesson01.check_sum_stall("fp8_e4m3", 1.0, a)),
    ("lesson02.check_min_normal_scale", lambda a: lesson02.check_min_normal_scale(3e-7, a)),
    ("lesson02.check_pytorch_scale_after", lambda a: lesson02.check_pytorch_scale_after("..x", a)),
    ("lesson02.check_deepspeed_scale_after", lambda a: lesson02.check_deepspeed_scale_after("..x", a)),
    ("lesson02.check_scale_for_budget", lambda a: lesson02.check_scale_for_budget(torch.tensor([1e-9, 1.0]), 0.5, a)),
    ("lesson03.check_epoch_loop_bug", lesson03.check_epoch_loop_bug),
    ("lesson03.check_memory_choice", lesson03.check_memory_choice),
    ("lesson04.check_partial_step_weight", lesson04.check_partial_step_weight),
    ("lesson04.check_no_sync_placement", lesson04.check_no_sync_placement),
    ("lesson04.check_accumulation_bug", lesson04.check_accumulation_bug),
    ("lesson04.check_rank_mean_weights", lesson04.check_rank_mean_weights),
    ("lesson05.check_config_on_fewer_gpus", lesson05.check_config_on_fewer_gpus),
    ("lesson05.check_initial_skipped_steps", lambda a: lesson05.check_initial_skipped_steps(3.0, a)),
    ("lesson05.check_smallest_zero_stage", lambda a: lesson05.check_smallest_zero_stage(13e9, 8, 60, a)),
    ("lesson05.check_boundary_only_loop", lesson05.check_boundary_only_loop),
]


# (check name → why it may still raise; owner). Strict: remove the entry when fixed.
KNOWN_CRASHES: dict[str, str] = {}


@pytest.mark.parametrize("call", [pytest.param(c, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_CRASHES[c[0]])]
                                               if c[0] in KNOWN_CRASHES else []) for c in ANSWER_CHECKS],
                         ids=[c[0] for c in ANSWER_CHECKS])
def test_an_exercise_check_never_raises_on_a_learners_answer(call, capsys):
    """Whatever the learner writes as the answer, the check says so (False verdict), it does not crash."""
    name, check = call
    for odd in ODD:
        try:
            verdict = check(odd)
        except Exception as err:  # noqa: BLE001
            pytest.fail(f"{name}(answer={odd!r}) raised {type(err).__name__}: {err}")
        assert isinstance(bool(verdict), bool)
    assert BENGALI.search(capsys.readouterr().out)


def test_the_issue_examples():
    assert formats.decode(2 ** 2000, "fp32").value == math.inf
    assert formats.decode(-(2 ** 2000), "fp16").value == -math.inf
    assert formats.decode(1.0, torch.float16).value == 1.0 and formats.decode(1.0, torch.bfloat16).fmt == "bf16"
    with pytest.raises(ValueError, match="hysteresis must be an integer >= 1"):
        scaling.DeepSpeedLossScaler(hysteresis=0)
    with pytest.raises(ValueError, match="min_scale must not exceed init_scale"):
        scaling.DeepSpeedLossScaler(init_scale=2, min_scale=4)
    with pytest.raises(ValueError, match="steps must be a non-negative integer"):
        scaling.simulate(scaling.DynamicLossScaler(), [False], steps=-1)


@pytest.mark.parametrize("call", [
    lambda: data.CharTokenizer(text=5), lambda: data.CharDataset(text=5), lambda: data.CharDataset("অআ", None),
    lambda: data.CharDataset("অআ", math.inf), lambda: data.CharDataset("অআ", math.nan),
    lambda: widgets.loss_scale_simulator(p_overflow="abc"), lambda: widgets.loss_scale_simulator(steps=2 ** 2000),
    lambda: precision.for_device(device=torch.tensor([1.0, 2.0])),
    lambda: evaluation.sample(_tiny_gpt(), TOKENIZER, "অ", max_new_tokens=2 ** 2000),
    lambda: reference.BenchSizes(layers=2 ** 2000, d_model=8, batch=1, seq=4, vocab=8, steps=1, warmup=0)], ids=[
    "CharTokenizer(5)", "CharDataset(5)", "val_fraction=None", "val_fraction=inf", "val_fraction=nan",
    "p_overflow='abc'", "steps=2**2000", "device=tensor", "max_new_tokens=2**2000", "layers=2**2000"])
def test_the_review_examples(call):
    """The raw errors and the hangs a review found, as a learner meets them at the door: each is a Bengali
    ValueError/TypeError, at once."""
    def refused():
        with pytest.raises((ValueError, TypeError)) as err:
            call()
        assert BENGALI.search(str(err.value))

    _check(refused, (), {}, "the review's example")


@pytest.mark.parametrize("value", ["", "abc", "1e3", "fp16", "7", "7.5.1", "-1.0", "sm_", "99.99", " 8.0 ", "৭.৫"])
def test_a_mistyped_simulation_switch_is_a_clear_error_or_a_capability(monkeypatch, value):
    """MISHRAN_SIMULATE_CC is typed by the learner too (the T4 lesson): the door names that read it answer clearly."""
    monkeypatch.setenv(hardware.SIMULATE_ENV, value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for fn in (lambda: precision.for_device("cuda"), lambda: hardware.device_report("cuda"),
               lambda: hardware.supports("bf16", "cuda")):
        # RuntimeError is hardware's own "no CUDA GPU here" (this CPU, the switch unset or not a GPU's)
        _check(fn, (), {}, f"{hardware.SIMULATE_ENV}={value!r}", ALLOWED + (RuntimeError,))


def test_the_fuzz_catches_a_raw_error():
    """The harness itself: a name that leaks an OverflowError or an English-only ValueError is reported."""
    def leaky(x):
        return float(x) * 2 if not isinstance(x, int) else math.exp(x)

    with pytest.raises(pytest.fail.Exception, match="raw OverflowError"):
        _fuzz("leaky", leaky, (1.0,))

    def english_only(x):
        raise ValueError("bad value")

    with pytest.raises(pytest.fail.Exception, match="unclear message"):
        _fuzz("english_only", english_only, (1.0,))


def test_the_fuzz_leaves_only_the_objects_alone():
    """The harness itself: an argument in objects keeps its good value; every other one, positional or keyword, is
    fuzzed, and each failing odd call is named."""
    def step(model, steps, clip=None):
        model.parameters()                          # an object: a raw AttributeError when given a number
        return steps

    _fuzz("step", step, (LINEAR, 1), {"clip": None}, objects={"model"})
    _fuzz("step", step, (), {"model": LINEAR, "steps": 1}, objects={"model"})
    with pytest.raises(pytest.fail.Exception, match=r"step\(arg 0 model=0\): raw AttributeError"):
        _fuzz("step", step, (LINEAR, 1), {"clip": None})


def test_the_fuzz_catches_a_hang(monkeypatch):
    """The harness itself: a call that never returns is reported as a hang, not waited for."""
    monkeypatch.setattr(f"{__name__}.HANG_S", 0.3)

    def endless(n):
        while True:
            pass

    with pytest.raises(pytest.fail.Exception, match="a hang"):
        _check(endless, (1,), {}, "endless(1)")


def test_the_fuzz_catches_a_call_that_waits_forever(monkeypatch):
    """A call blocked without using the CPU (here, asleep) is caught by the clock instead."""
    monkeypatch.setattr(f"{__name__}.WALL_S", 0.5)
    with pytest.raises(pytest.fail.Exception, match="a hang"):
        _check(time.sleep, (30,), {}, "time.sleep(30)")


def test_the_coverage_check_would_see_a_missing_or_extra_name(monkeypatch):
    """The coverage test itself: a door name with no entry, or an entry for a name off the door, fails it."""
    monkeypatch.setitem(DOOR, "mishran.numerics.formats", [*DOOR["mishran.numerics.formats"], "all_values"])
    with pytest.raises(AssertionError, match="no fuzz entry: \\['formats.all_values'\\]"):
        test_the_fuzz_covers_exactly_the_door()
    monkeypatch.setitem(DOOR, "mishran.numerics.formats", [n for n in DOOR["mishran.numerics.formats"]
                                                           if n not in ("all_values", "get_format")])
    with pytest.raises(AssertionError, match="not on the door: \\['formats.get_format'\\]"):
        test_the_fuzz_covers_exactly_the_door()

