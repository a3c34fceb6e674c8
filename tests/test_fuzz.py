"""Bad input, the way a learner types it: every public helper gets odd arguments (wrong types, signs, zero, inf/NaN,
huge numbers) one at a time, in an otherwise valid call. Each call must either give a result or raise a clear error
(ValueError/TypeError, or the module's own error class) whose message has Bengali text and an English key term;
never a raw internal exception (OverflowError, AttributeError, KeyError, IndexError, ZeroDivisionError, ...).

The odd values are a fixed list plus a seeded random sample, so a failure names its exact call and repeats.
Every call must also come back within HANG_S seconds (a hang, e.g. a loop of 2**2000 steps, is a failure too).
Every public callable of every mishran module with an __all__ (found by walking the package; the exercise checks
are tested as answers instead) is fuzzed here, constructors and methods included, or named with the reason it is
not (test_every_public_callable_is_fuzzed keeps it so). Good calls use small sizes; helpers that run whole training
steps get one odd value of each kind (ODD_STEP), so the file stays cheap.
"""
import argparse
import contextlib
import functools
import importlib
import inspect
import math
import pkgutil
import random
import re
import signal
import time
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import mishran  # noqa: E402
from mishran import checks, data, hardware, precision, versions
from mishran import older_gpu_guard as simulation
from mishran.capstone import check as capstone_check
from mishran.capstone import evaluation, literature
from mishran.capstone import training as capstone
from mishran.engines import amp, fsdp, model_states
from mishran.engines import amp as train
from mishran.engines import ddp as ddp_demo
from mishran.engines import deepspeed_config as ds_config
from mishran.engines import deepspeed_engine as ds
from mishran.engines import deepspeed_engine as ds_process
from mishran.engines import gloo_workers as processes
from mishran.engines import multi_gpu as ds_train
from mishran.exercises import lesson01, lesson02, lesson03, lesson04, lesson05  # noqa: E402
from mishran.lab import display, figures, widgets
from mishran.lab import figures as figure_inputs
from mishran.lab import figures as plots
from mishran.measure import bench, deepspeed_numerics, flops, memory, profiler
from mishran.models import gpt, mlp, one_block, reference
from mishran.models import reference as bench_model
from mishran.numerics import communication as comm_precision
from mishran.numerics import formats, fp8, scaling
from mishran.numerics import int8 as quantize

BENGALI = re.compile(r"[\u0980-\u09FF]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
ODD = [0, -1, 1, 2, -7, 2 ** 2000, -(2 ** 2000), 0.0, -0.0, 0.5, -0.5, 1e308, -1e308, 1e-320, math.inf, -math.inf,
       math.nan, True, False, None, "", "abc", "1e3", [], [1, 2], {}, {"x": 1}, (0,), object(), torch.tensor(2.0),
       torch.tensor([1.0, 2.0]), torch.tensor([]), torch.float16, "fp16"]
_rng = random.Random(8)
ODD += [_rng.choice([-1, 1]) * 10 ** _rng.uniform(-400, 400) for _ in range(6)] + [_rng.randint(-10 ** 9, 10 ** 9)]

# Drawing a figure takes most of a second here (tight_layout), so the figure helpers get one odd value of each kind:
# every category above (wrong types, None, bool, negative, zero, huge, inf/NaN, wrong strings, containers, tensors).
ODD_FIGURES = [0, -1, 2, 2 ** 2000, -(2 ** 2000), 0.5, 1e308, math.inf, math.nan, True, None, "", "abc", [], [1, 2],
               {}, {"x": 1}, (0,), object(), torch.tensor(2.0), torch.tensor([1.0, 2.0])]

# A measured training step takes a fifth of a second: one value of each wrong kind.
ODD_STEP = [0, -1, 2 ** 2000, 0.5, math.inf, math.nan, True, None, "abc", [], object(), torch.tensor([1.0, 2.0])]
# The helpers that run (and time) whole training steps, build an engine or a model per call: ODD_STEP for them.
MEASURED = {"memory.measure_step", "ds.initialize", "bench.run", "bench.time_mode", "bench.compare_loop",
            "profiler.profile_step", "profiler.vocab_sweep", "capstone.run", "evaluation.heldout_bpc"}

# A clear error: the course's own classes, or ValueError/TypeError.
ALLOWED = (ValueError, TypeError, scaling.LossScaleAtMinimumError)
# No helper may use more than HANG_S seconds of CPU on one odd argument. CPU time, not the clock: `make test` runs
# the unit tests beside the browser tests at a lower priority, where a call may wait for a core; a call that
# waits for nothing at all (a blocked lock) is caught by the clock after WALL_S.
HANG_S = 5
WALL_S = 60


class _Hang(BaseException):
    """Raised by the alarm; a BaseException, so no `except Exception` in the code under test can swallow it."""


def _alarm(signum, frame):
    raise _Hang()


class Fresh:
    """An argument made anew for every call (a new Axes, a new model), so one call's drawing or training does not
    pile up under the next."""

    def __init__(self, make):
        self.make = make


def _check(fn, args, kwargs, where, allowed=ALLOWED):
    args = [a.make() if isinstance(a, Fresh) else a for a in args]
    kwargs = {k: v.make() if isinstance(v, Fresh) else v for k, v in kwargs.items()}
    previous = signal.signal(signal.SIGPROF, _alarm), signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_PROF, HANG_S)                 # this process's CPU time, all its threads
    signal.setitimer(signal.ITIMER_REAL, WALL_S)
    start = time.process_time()
    try:
        fn(*args, **kwargs)
    except _Hang:
        pytest.fail(f"{where}: still running after {HANG_S} s of CPU (a hang)")
    except allowed as err:
        message = str(err)
        assert BENGALI.search(message) and LATIN_WORD.search(message), f"{where}: unclear message {message!r}"
    except Exception as err:  # noqa: BLE001 — anything else is the bug this test exists for
        pytest.fail(f"{where}: raw {type(err).__name__}: {err}")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])
        plt.close("all")
    assert time.process_time() - start < HANG_S, where


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def _fuzz(name, fn, args, kwargs=None, allowed=ALLOWED, odd_values=None):
    """Replace each argument in turn by each odd value."""
    kwargs = kwargs or {}
    for i in range(len(args)):
        for odd in odd_values or ODD:
            changed = list(args)
            changed[i] = odd
            _check(fn, changed, kwargs, f"{name}(arg {i} = {_short(odd)})", allowed)
    for key in kwargs:
        for odd in odd_values or ODD:
            _check(fn, args, {**kwargs, key: odd}, f"{name}({key}={_short(odd)})", allowed)


CORE_CALLS = [
    ("formats.decode", formats.decode, (1.0, "fp16")),
    ("formats.decode_bits", formats.decode_bits, (0x3C00, "fp16")),
    ("formats.encode", formats.encode, (1.0, "bf16")),
    ("formats.round_to", formats.round_to, (1.0, "fp8_e4m3"), {"saturate": False}),
    ("formats.spacing", formats.spacing, (1.0, "fp16")),
    ("formats.needs_loss_scaling", formats.needs_loss_scaling, ("fp16",)),
    ("formats.get_format", formats.get_format, ("fp16",)),
    ("formats.torch_dtype", formats.torch_dtype, ("fp16",)),
    ("formats.all_values", formats.all_values, ("fp8_e5m2",), {"finite_only": True}),
    ("formats.format_table", formats.format_table, (["fp16"],)),
    ("scaling.underflow_report", scaling.underflow_report, (torch.tensor([1e-8, 1.0]), "fp16", 1.0)),
    ("scaling.log2_magnitudes", scaling.log2_magnitudes, (torch.tensor([1e-8, 1.0]),)),
    ("scaling.format_regions", scaling.format_regions, ("fp16",)),
    ("scaling.StaticLossScaler", scaling.StaticLossScaler, (1024.0,)),
    ("scaling.DynamicLossScaler", scaling.DynamicLossScaler, (1024.0, 2.0, 0.5, 10)),
    ("scaling.DeepSpeedLossScaler", scaling.DeepSpeedLossScaler, (1024, 10, 2, 1)),
    ("scaling.DynamicLossScaler.update", lambda f: scaling.DynamicLossScaler().update(f), (True,)),
    ("scaling.DeepSpeedLossScaler.update", lambda f: scaling.DeepSpeedLossScaler().update(f), (False,)),
    ("scaling.simulate", lambda flags, steps: scaling.simulate(scaling.DynamicLossScaler(), flags, steps),
     ([False, True], 2)),
    ("precision.for_device", precision.for_device, ("cpu",)),
    ("precision.resolve", precision.resolve, ("auto", "cpu")),
    ("precision.check", precision.check, ("bf16",)),
    ("precision.dtype_of", precision.dtype_of, ("fp16",)),
    ("precision.name_of", precision.name_of, (torch.bfloat16,)),
    ("precision.needs_loss_scaling", precision.needs_loss_scaling, (torch.float16,)),
    ("checks.device_type", checks.device_type, ("cuda:0",)),
    ("precision.ds_block", precision.ds_block, ("fp16",)),
    ("precision.from_ds_config", precision.from_ds_config, ({"bf16": {"enabled": True}},)),
    ("ds_config.config_for_device", ds_config.config_for_device, (4, 2, 1),
     {"zero_stage": 1, "precision": "bf16", "device": "cpu", "lr": 1e-3, "gradient_clipping": 1.0}),
    ("ds_config.validate_config", ds_config.validate_config, ({"train_batch_size": 8}, 1, "cpu")),
    ("ds_config.zero_model_state_bytes", ds_config.zero_model_state_bytes, (1000, 2, 4)),
    ("checks.positive_int", checks.positive_int, (3, "n")),
    ("versions.parse_version", versions.parse_version, ("2.11.0+cu130",)),
    ("versions.version_at_least", versions.version_at_least, ("3.11.2", "3.11")),
    ("train.TrainConfig", train.TrainConfig, (), {"precision": "bf16", "steps": 2, "accumulation_steps": 1,
                                                  "clip_norm": 1.0, "log_every": 0}),
    ("precision.grad_scaler", precision.grad_scaler, ("cpu", "fp16")),
    ("precision.autocast", precision.autocast, ("cpu", "bf16")),
    ("data.synthetic_regression", data.synthetic_regression, (16, 4, 0, 0.05)),
    ("data.CharTokenizer.decode", data.CharTokenizer("অআ").decode, ([0, 1],)),
    ("data.CharTokenizer.encode", data.CharTokenizer("অআ").encode, ("অ",)),
    ("gpt.GPTConfig", gpt.GPTConfig, (), {"vocab_size": 8, "block_size": 8, "n_layer": 1, "n_head": 2,
                                               "n_embd": 8}),
    ("mlp.MLP", mlp.MLP, (4, 8, 1), {"n_layers": 2, "seed": 0}),
]


@pytest.mark.parametrize("call", CORE_CALLS, ids=[c[0] for c in CORE_CALLS])
def test_core_helpers_refuse_odd_arguments_clearly(call):
    name, fn, args, *rest = call
    _fuzz(name, fn, args, rest[0] if rest else None)


def test_dataset_batches_and_generation_refuse_odd_arguments_clearly():
    dataset = data.CharDataset("অআইঈউঊ" * 50)
    _fuzz("CharDataset.get_batch", dataset.get_batch, ("train", 2, 8))
    model = gpt.TinyGPT(gpt.GPTConfig(vocab_size=dataset.vocab_size, block_size=8, n_layer=1, n_head=2,
                                            n_embd=8), seed=0).eval()
    start = torch.zeros(1, 1, dtype=torch.long)
    # max_new_tokens = 2**2000 is refused (MAX_NEW_TOKENS), not a loop that never ends
    _fuzz("TinyGPT.generate", lambda n, temperature, top_k: model.generate(start, n, temperature, top_k), (2, 1.0, 3))


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
    ("lesson02.check_zeroed_fraction", lambda a: lesson02.check_zeroed_fraction(torch.tensor([1e-9, 1.0]), a)),
    ("lesson03.check_amp_step_order", lesson03.check_amp_step_order),
    ("lesson03.check_scale_halving_cause", lesson03.check_scale_halving_cause),
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


def test_the_fuzz_catches_a_raw_error():
    """The harness itself: a helper that leaks an OverflowError or an English-only ValueError is reported."""
    def leaky(x):
        return float(x) * 2 if not isinstance(x, int) else math.exp(x)

    with pytest.raises(pytest.fail.Exception, match="raw OverflowError"):
        _fuzz("leaky", leaky, (1.0,))

    def english_only(x):
        raise ValueError("bad value")

    with pytest.raises(AssertionError, match="unclear message"):
        _fuzz("english_only", english_only, (1.0,))


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


# ---- every public callable of hardware, simulation, widgets, data, models, plots/figures, scaling, fp8, quantize,
# ---- ddp_demo: (name, callable, args, kwargs[, extra allowed error classes])
TEXT = "অআইঈউঊ" * 50
CONFIG = gpt.GPTConfig(vocab_size=6, block_size=8, n_layer=1, n_head=2, n_embd=8)
IDX = torch.zeros(2, 4, dtype=torch.long)
X8 = torch.randn(2, 4, 8)
MAT = torch.tensor([[1.0, -2.0], [0.5, 4.0]])
ROWS = scaling.simulate(scaling.DynamicLossScaler(init_scale=2.0 ** 16, growth_interval=3),
                       [False, True, False, False, False, True])
GRADS = torch.tensor([1e-9, 1e-6, 1e-3, 1.0])
KS = [0, 8, 16]
SWEEP = {"w": [scaling.underflow_report(GRADS, "fp16", 2.0 ** k) for k in KS],
         "a": [scaling.underflow_report(GRADS * 1e-3, "fp16", 2.0 ** k) for k in KS]}
LOG = SimpleNamespace(steps=[0, 1, 2], scales=[2.0 ** 16, 2.0 ** 15, 2.0 ** 15], skipped=[1])
LEDGER = memory.Ledger(mode="fp32", zero_stage=None, device="cpu", num_parameters=10, batch_size=2, seq_len=4,
                       parameters=40, gradients=40, optimizer_state=80, activations=100)
RESULT = {"results": [{"mode": "fp32", "step_s": 0.01, "speedup_vs_fp32": 1.0, "peak_memory_bytes": None},
                      {"mode": "bf16", "step_s": 0.008, "speedup_vs_fp32": 1.25, "peak_memory_bytes": None}],
          "device": {"name": "CPU"}}
PROFILE = {"mode": "bf16", "counted": "CPU time",
           "by_category": {"matmul": 1e-3, "attention": 5e-4, "optimizer": 2e-4, "other": 3e-4}}
AX = Fresh(lambda: plt.subplots()[1])


def _tiny_gpt():
    return gpt.TinyGPT(CONFIG, seed=0).eval()


def _mse(out, y):
    return torch.nn.functional.mse_loss(out, y)


class _Linear(torch.nn.Linear):
    """train()'s model: (logits, loss) when given targets, as nanoGPT, so the call without loss_fn works too."""

    def forward(self, x, y=None):
        out = super().forward(x)
        return out if y is None else (out, _mse(out, y))


LINEAR = _Linear(2, 1)
LINEAR_OPT = torch.optim.SGD(LINEAR.parameters(), lr=0.1)
TOKENIZER = data.CharTokenizer(TEXT)
IDS = TOKENIZER.encode(TEXT[:20])


def _restoring_tf32(enabled, device):
    before = torch.get_float32_matmul_precision()
    try:
        return hardware.use_tf32(enabled, device)
    finally:
        torch.set_float32_matmul_precision(before)


def _guard(log_path, strict):
    """guard_simulation under MISHRAN_SIMULATE_CC=7.5 (its only active case), undone at once."""
    undo = simulation.guard_simulation(log_path, strict)
    if undo is not None:
        undo()


def _run_without_spawning(module, *args):
    """module.run's own checks (ddp_demo, fsdp), with its worker processes replaced by a refusal (each real run takes
    seconds and several processes; their own tests run it): every odd value must be refused before a process starts."""
    def no_workers(work, world, args=()):
        raise _Spawned()
    original, module.run_workers = module.run_workers, no_workers
    try:
        module.run(*args)
    except _Spawned:
        pass
    finally:
        module.run_workers = original


class _Spawned(Exception):
    pass


OWN_CALLS = [
    # hardware
    ("hardware.peak_tflops", hardware.peak_tflops, ("NVIDIA H200",)),
    ("hardware.capability_features", hardware.capability_features, ((8, 0),)),
    ("hardware.supports", hardware.supports, ("bf16", "cpu")),
    ("hardware.use_tf32", _restoring_tf32, (True, "cpu")),
    ("hardware.device_name", hardware.device_name, ("cpu",)),
    ("precision.for_device(capability)", precision.for_device, (None, (7, 5))),
    ("hardware.device_report", hardware.device_report, ("cpu",)),
    ("hardware.DeviceReport", hardware.DeviceReport,
     ("cpu", "CPU", None, 0, None, False, True, False, False, None, False, "2.13", None, None, torch.bfloat16)),
    # simulation
    ("simulation.guard_simulation", _guard, (None, False)),
    # widgets
    ("widgets.parse_number", widgets.parse_number, ("0.1",)),
    ("widgets.explore", widgets.explore, (0.1, ("fp16", "bf16"))),
    ("widgets.explorer_html", widgets.explorer_html, ("0.1", ("fp16",))),
    ("widgets.bit_explorer", widgets.bit_explorer, ("0.1", ("fp16",))),
    ("widgets.scaler_for_policy", widgets.scaler_for_policy, ("deepspeed", 10, 2, 2.0 ** 16, 1.0)),
    ("widgets.simulate_timeline", widgets.simulate_timeline, ("deepspeed", 5, 2, 0.1, 20, 0, 2.0 ** 20, 2.0 ** 16,
                                                              1.0)),
    # PyTorch's scaler has no floor at which a run stops, so only a bound on steps ends a huge one
    ("widgets.simulate_timeline(pytorch)", widgets.simulate_timeline, ("pytorch", 5, 2, 0.1, 20, 0, None)),
    ("widgets.timeline_summary", widgets.timeline_summary, (ROWS,)),
    ("widgets.timeline_html", widgets.timeline_html, (ROWS, "pytorch")),
    ("widgets.simulator_view", widgets.simulator_view, ("pytorch", 5, 2, 0.1, 20, 20, 0), {"figure": False}),
    ("widgets.loss_scale_simulator", widgets.loss_scale_simulator, ("pytorch", 5, 2, 0.1, 50, 0, 20)),
    # data
    ("data.data_file", data.data_file, ("bn_corpus.txt",), {}, (FileNotFoundError,)),
    ("data.load_corpus", data.load_corpus, (None,), {}, (FileNotFoundError, OSError)),
    ("data.CharTokenizer", data.CharTokenizer, ("অআ",)),
    ("data.CharDataset", data.CharDataset, (TEXT, 0.1, None)),
    # models
    ("mlp.MLP.forward", mlp.MLP(4, 8, 1, seed=0).forward, (torch.randn(3, 4),)),
    ("gpt.CausalSelfAttention", gpt.CausalSelfAttention, (CONFIG,)),
    ("gpt.CausalSelfAttention.forward", gpt.CausalSelfAttention(CONFIG).forward, (X8,)),
    ("gpt.FeedForward", gpt.FeedForward, (CONFIG,)),
    ("gpt.FeedForward.forward", gpt.FeedForward(CONFIG).forward, (X8,)),
    ("gpt.Block", gpt.Block, (CONFIG,)),
    ("gpt.Block.forward", gpt.Block(CONFIG).forward, (X8,)),
    ("gpt.TinyGPT", gpt.TinyGPT, (CONFIG, 0)),
    ("gpt.TinyGPT.forward", _tiny_gpt().forward, (IDX, IDX)),
    ("gpt.TinyGPT.generate", _tiny_gpt().generate, (IDX, 2, 1.0, 3, None)),
    # scaling
    ("scaling.UnderflowReport", scaling.UnderflowReport, ("fp16", 1.0, 4, 1, 1, 1, 0, 1)),
    ("scaling.UnderflowReport.fraction", SWEEP["w"][0].fraction, ("normal",)),
    ("scaling.FormatRegions", scaling.FormatRegions, ("fp16", -24.0, -14.0, 15.9, -25.0, 16.0)),
    ("scaling.simulate(scaler)", lambda s: scaling.simulate(s, [False]), (scaling.DynamicLossScaler(),)),
    ("scaling.StaticLossScaler.update", lambda f: scaling.StaticLossScaler().update(f), (True,)),
    ("scaling.DeepSpeedLossScaler(flags)", scaling.DeepSpeedLossScaler, (1024, 10, 2, 1, False, True)),
    ("scaling.LossScaleAtMinimumError", scaling.LossScaleAtMinimumError, (1.0,)),
    ("scaling.simulate(callable)", lambda steps: scaling.simulate(scaling.DynamicLossScaler(),
                                                                  lambda step, scale: False, steps), (10,)),
    # fp8
    ("fp8.amax", fp8.amax, (MAT, None)),
    ("fp8.compute_scale", fp8.compute_scale, (4.0, "fp8_e4m3", False)),
    ("fp8.quantize", fp8.quantize, (MAT, "fp8_e4m3", 1.0)),
    ("fp8.ScaledMatmul", fp8.ScaledMatmul, (MAT, MAT, MAT, MAT, MAT, "none")),
    ("fp8.scaled_matmul", fp8.scaled_matmul, (MAT, MAT, "fp8_e4m3", "fp8_e5m2", "rowwise", False)),
    ("fp8.relative_error", fp8.relative_error, (MAT, MAT * 1.01)),
    ("fp8.matmul_errors", fp8.matmul_errors, (MAT, MAT, "fp8_e4m3", "fp8_e4m3")),
    # quantize
    ("quantize.int8_scale", quantize.int8_scale, (MAT, 1)),
    ("quantize.to_int8", quantize.to_int8, (MAT, torch.tensor(10.0))),
    ("quantize.dequantize", quantize.dequantize, (MAT, torch.tensor(10.0))),
    ("quantize.DynamicInt8Linear", quantize.DynamicInt8Linear, (torch.nn.Linear(2, 3),)),
    ("quantize.DynamicInt8Linear.forward", quantize.DynamicInt8Linear(torch.nn.Linear(2, 3)).forward, (MAT,)),
    ("quantize.quantize_dynamic", quantize.quantize_dynamic, (Fresh(lambda: mlp.MLP(2, 4, 1, seed=0)), None,
                                                              torch.qint8, False)),
    # ddp_demo (one process; run() up to where it would start the workers)
    ("ddp_demo.global_batches", ddp_demo.global_batches, (2, 2, 2, 2)),
    ("ddp_demo.token_masks", ddp_demo.token_masks, (2, 2, 2, 2)),
    ("ddp_demo.train_single", ddp_demo.train_single, (2, 2, 2, 2)),
    ("ddp_demo.single_gradients", ddp_demo.single_gradients, (2, 2, 2, 2)),
    ("ddp_demo.run", functools.partial(_run_without_spawning, ddp_demo), (2, 2, 2, 2)),
    # plots (lessons 00-02) and figures (lessons 03-08)
    ("plots.setup_bengali", plots.setup_bengali, (13,)),
    ("plots.scale_log2", plots.scale_log2, (2.0 ** 10,)),
    ("plots.bit_layout_bars", plots.bit_layout_bars, (AX, ["fp16", "bf16"])),
    ("plots.model_state_bars", plots.model_state_bars, (AX, {"fp32": {"weights": 4, "gradients": 4, "adam": 8}})),
    ("plots.bit_fields_figure", plots.bit_fields_figure, (("fp16", "bf16"),)),
    ("plots.rounding_error_figure", plots.rounding_error_figure, (torch.tensor([1e-6, 1.0, 3e4], dtype=torch.float64),
                                                                  None)),
    ("plots.log2_hist", plots.log2_hist, (AX, GRADS, "t", 1.0, "#1f4e79", "fp16", (-52, 22))),
    ("plots.scale_sweep_figure", plots.scale_sweep_figure, (KS, SWEEP, 8)),
    ("plots.scale_panels_figure", plots.scale_panels_figure, ([(ROWS, "a"), (ROWS, "b")], 10, "t")),
    ("plots.draw_timeline", plots.draw_timeline, (ROWS, AX, "l", "#1f77b4", True, "-", 2)),
    ("plots.timeline_figure", plots.timeline_figure, (ROWS, "t", None)),
    ("figures.loss_curves_figure", figures.loss_curves_figure, ({"fp32": [1.0, 0.9], "bf16": [1.0, 0.91]}, "cpu",
                                                                None)),
    ("figures.scale_resume_figure", figures.scale_resume_figure, (LOG, LOG, LOG, 1)),
    ("figures.bench_figure", figures.bench_figure, (RESULT,)),
    ("figures.activation_memory_figure", figures.activation_memory_figure, ([1, 2], [100, 200], 1000, "cpu",
                                                                            [300, 500])),
    ("figures.zero_per_gpu_figure", figures.zero_per_gpu_figure, ({0: [16, 16], 1: [16, 8], 2: [16, 6], 3: [16, 4]},
                                                                  [1, 2], 16.0)),
    ("figures.ledger_figure", figures.ledger_figure, ([LEDGER], "t")),
    ("figures.activation_growth_figure", figures.activation_growth_figure, ([1, 2], [10, 20], [4, 8], [10, 20], 100,
                                                                            "cpu")),
    ("figures.checkpoint_figure", figures.checkpoint_figure, ([4, 8], [10, 20], [5, 10], "cpu", "MiB")),
    ("figures.pruning_figure", figures.pruning_figure, ([0.1, 0.5], [1.0, 1.2], 0.9, 1.1)),
    ("figures.step_breakdown_figure", figures.step_breakdown_figure, ([PROFILE], "t")),
    ("figures.fp8_scaling_figure", figures.fp8_scaling_figure, (GRADS, 10.0, "fp8_e4m3", "t")),
    ("figures.fp8_speed_figure", figures.fp8_speed_figure, ({256: {"bf16-compile": 0.01, "fp8-tensorwise": 0.008,
                                                                   "fp8-rowwise": 0.009}}, "t")),
    ("figures.capstone_curves_figure", figures.capstone_curves_figure, ({"fp32": [{"step": 0, "bpc": 4.0},
                                                                                 {"step": 10, "bpc": 3.0}]}, 3.5, "t")),
    ("figure_inputs.checked", lambda kind: figure_inputs.checked(x=kind)(lambda x: x)(1), ("number",)),
    ("figures.overfitting_figure", figures.overfitting_figure,
     ({"small": [{"step": 0, "bpc": 4.0, "train_bpc": 4.1}, {"step": 10, "bpc": 3.0, "train_bpc": 2.0}]}, "t")),
    ("figures.capstone_scale_figure", figures.capstone_scale_figure, ([65536.0, 32768.0, 32768.0], [1], 0, "t")),
    # other owners' learner-facing helpers
    ("bench_model.ReferenceTransformer", reference.ReferenceTransformer, (2, 8, 8)),
    ("train.train", train.train, (LINEAR, LINEAR_OPT, lambda: (torch.ones(2, 2), torch.ones(2, 1)),
                                  train.TrainConfig(steps=1)), {"scaler": None, "start_step": 0, "loss_fn": _mse,
                                                                 "lr_at": None}),
    ("train.save_checkpoint", train.save_checkpoint, ("ck.pt", LINEAR, LINEAR_OPT), {"step": 3, "generator": None}),
    ("train.load_checkpoint", train.load_checkpoint, ("saved.pt", LINEAR, LINEAR_OPT),
     {"scaler": None, "generator": None, "restore_rng": False, "return_extra": False},
     (FileNotFoundError,)),
    ("evaluation.bits_per_char", evaluation.bits_per_char, (10.0, 5)),
    ("evaluation.bigram_bpc", evaluation.bigram_bpc, ([0, 1, 2, 1, 0, 5], [0, 1, 2], 6), {"alpha": 0.1}),
    ("evaluation.heldout_bpc", evaluation.heldout_bpc, (Fresh(_tiny_gpt), IDS, 4),
     {"device": "cpu", "precision": "bf16", "batch": 2, "max_chars": 10}),
    ("evaluation.sample", evaluation.sample, (Fresh(_tiny_gpt), TOKENIZER, TEXT[:3]),
     {"max_new_tokens": 3, "temperature": 0.8, "top_k": 2, "seed": 0, "device": "cpu"}),
    ("evaluation.vocabulary_share", evaluation.vocabulary_share, ("অআ ইঈ উঊ অআ", TEXT)),
    ("memory.measure_step", memory.measure_step, (Fresh(_tiny_gpt), (IDX, IDX)),
     {"mode": "fp32", "zero_stage": 0, "lr": 1e-3, "warmup": 0, "steps": 1}),
    ("memory.activation_bytes", memory.activation_bytes, (Fresh(_tiny_gpt), (IDX, IDX), "bf16")),
    ("profiler.time_matmul", profiler.time_matmul, (8, 8, 8), {"dtype": torch.float32, "device": "cpu", "repeats": 2}),
    ("flops.mfu", flops.mfu, (1e12, 0.5, 100.0)),
    ("checks.finite_float", checks.finite_float, (1.5, "x"), {"minimum": 0, "positive": False}),
    ("precision.check", precision.check, ("fp16",), {"allow_auto": False}),
    ("ds_config.zero_model_state_bytes", ds_config.zero_model_state_bytes, (1000, 2),
     {"world_size": 4, "param_bytes": 2, "grad_bytes": 2, "optimizer_bytes": 12}),
]


# ---- the other modules: literature, display, capstone, metrics, train, bench, speed, memory, ds, ds_config,
# ---- ds_numerics, ds_train, precision, formats, util (small sizes: a good call takes milliseconds)
PIECES = [literature.Piece("ক", i, f"খণ্ড {i}", TEXT[:40]) for i in range(4)]
LIT = literature.LiteratureData(PIECES, 2, 1)
SIZES = reference.BenchSizes(layers=1, d_model=8, batch=1, seq=4, vocab=8, steps=1, warmup=0)
RUN_FILES = sorted((Path(__file__).resolve().parent / "data" / "capstone").glob("*.json"))   # real tiny CPU runs
RUNS = [capstone_check.load_run(p) for p in RUN_FILES]
REPORT = hardware.device_report("cpu")
ONES = (torch.ones(2, 2), torch.ones(2, 1))
SCALER = precision.grad_scaler("cpu", "fp32")
ONE_BLOCK = one_block.OneBlockLM(6, 8)
REFERENCE = deepspeed_numerics.fp64_reference(ONE_BLOCK, [(IDX, IDX)])
DS_CONFIG = ds_config.config_for_device(micro_batch=2, precision="bf16", device="cpu")
CAPSTONE = dict(size="tiny", precision="fp32", micro_batch=1, accumulation_steps=1, zero_stage=None, steps=1,
                lr=1e-3, dropout=0.0, clip_norm=1.0, seed=0, eval_every=1, eval_chars=8, warmup=0, device="cpu",
                checkpoint_path=None, save_at=None, resume_from=None, prompt="অ", sample_tokens=1, temperature=0.8,
                top_k=2, progress=False, patience=None, compile=False, lr_warmup=0, lr_decay=False)


@functools.cache
def _engine():
    """One DeepSpeed engine on the CPU (BF16, gloo) for every ds.* call that takes one; not the current engine."""
    return ds.initialize(_tiny_gpt(), DS_CONFIG, replace_current=False)


ENGINE = Fresh(_engine)


def _book(step):
    """StepBookkeeper.log_line needs a finished step before it."""
    book = train.StepBookkeeper(LINEAR, SCALER, torch.device("cpu"), "fp32", 0)
    book.end_step(torch.tensor(1.0), None)
    return book.log_line(step)


def _ds_train_checks(**kwargs):
    """ds_train.run's own checks, with the DeepSpeed run behind them replaced by a refusal (tests/test_ds.py runs it
    for real): every odd value must be refused before a process group would start."""
    def no_start(cpu):
        raise _Spawned()
    original, ds_train._start = ds_train._start, no_start
    try:
        ds_train.run(**kwargs)
    except _Spawned:
        pass
    finally:
        ds_train._start = original


def _shard_without_group(*args):
    """fsdp.shard_model's own checks on a fresh model; with every argument right it stops at its last refusal, "no
    process group" (tests/test_fsdp.py shards in a real one)."""
    try:
        fsdp.shard_model(*args)
    except RuntimeError as err:
        if "process group" not in str(err):
            raise


def _refused_workers(work, world, args):
    """processes.run_workers' own checks: a right call would start real processes, so `work` here is a builtin that
    cannot be sent to a new process; with every argument right the call stops at spawning (tests/test_ddp_demo.py and
    tests/test_fsdp.py run it for real)."""
    original = processes._spawn
    processes._spawn = lambda *a: (_ for _ in ()).throw(_Spawned())
    try:
        processes.run_workers(work, world, args)
    except _Spawned:
        pass
    finally:
        processes._spawn = original


class _Syncable(torch.nn.Module):
    """What fsdp.gradient_sync needs of a model: set_requires_gradient_sync (an FSDP2 module has it)."""

    def set_requires_gradient_sync(self, flag):
        self.flag = flag


COMM_GRADS = torch.randn(4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
COMM_SWEEP = comm_precision.error_sweep(worlds=(2, 8), n=64)


OWN_CALLS += [
    # literature (a four-piece collection; "lit.txt" is written in tmp_path)
    ("literature.Piece", literature.Piece, ("ক", 0, "t", "অআ")),
    ("literature.load_pieces", literature.load_pieces, ("lit.txt",), {}, (FileNotFoundError, OSError)),
    ("literature.split_by_work", literature.split_by_work, (PIECES, 2, 1)),
    ("literature.LiteratureData", literature.LiteratureData, (PIECES, 2, 1)),
    ("literature.LiteratureData.get_batch", LIT.get_batch, ("train", 2, 8)),
    ("data.BatchStream", lambda *a: data.BatchStream(*a)(), (LIT, 2, 1, 8, 1, 0, 0)),
    # display
    ("display.table_html", display.table_html, ([[1, "অ"]], ["x", "y"], "c", True)),
    ("display.show_table", display.show_table, ([[1, "অ"]], ["x", "y"], "c", True)),
    ("display.source_text", display.source_text, (display.Rich, "def", "return")),
    ("display.source_html", display.source_html, (display.Rich, None, None)),
    ("display.show_source", display.show_source, (display.Rich, None, None)),
    ("display.Rich", display.Rich, ("<b>অ</b>", "অ")),
    ("display.wrap_text", display.wrap_text, ("অআ ইঈ উঊ", 4, "  ")),
    ("display.print_wrapped", lambda text, width, indent: display.print_wrapped(text, width=width, indent=indent),
     ("অআ ইঈ", 4, " ")),
    # capstone: every switch, and one step of a run on the four pieces
    ("capstone.CapstoneConfig", capstone.CapstoneConfig, (), CAPSTONE),
    ("capstone.run", capstone.run, (capstone.CapstoneConfig(**CAPSTONE), LIT, False)),
    ("capstone.lr_schedule", capstone.lr_schedule, (capstone.CapstoneConfig(**CAPSTONE),)),
    ("evaluation.BestCheckpoint", evaluation.BestCheckpoint, (2,)),
    ("evaluation.BestCheckpoint.update", evaluation.BestCheckpoint().update, (LINEAR, 0, 2.5)),
    ("evaluation.BestCheckpoint.restore", evaluation.BestCheckpoint().restore, (LINEAR,)),
    ("evaluation.BestCheckpoint.load_state_dict", evaluation.BestCheckpoint().load_state_dict,
     (evaluation.BestCheckpoint().state_dict(),)),
    # metrics
    ("flops.flops_per_token", flops.flops_per_token, (Fresh(_tiny_gpt),)),
    ("flops.peak_tflops_for", flops.peak_tflops_for, ("NVIDIA H200", "bf16")),
    ("flops.mfu", flops.mfu, (1000.0, 1e6, 989.0, 1)),
    ("evaluation.speed_figures", evaluation.speed_figures, ([0.1, 0.1], 0, 64, 1000, "bf16", None, 1)),
    # train
    ("train.StepBookkeeper", train.StepBookkeeper, (LINEAR, SCALER, torch.device("cpu"), "fp32", 0)),
    ("train.StepBookkeeper.sync", train.StepBookkeeper(LINEAR, SCALER, torch.device("cpu"), "fp32", 0).sync, (0, 1)),
    ("train.StepBookkeeper.end_step", train.StepBookkeeper(LINEAR, SCALER, torch.device("cpu"), "fp32", 0).end_step,
     (torch.tensor(1.0), None)),
    ("train.StepBookkeeper.log_line", _book, (0,)),
    ("train.amp_step", train.amp_step, (LINEAR, LINEAR_OPT, SCALER, contextlib.nullcontext(), [ONES], 1, None, None,
                                        None)),
    ("train.TrainLog", train.TrainLog, ("fp32", 0)),
    ("train.rng_state", train.rng_state, (None,)),
    ("train.set_rng_state", train.set_rng_state, (train.rng_state(), None)),
    # bench (a one-layer model, d_model 8, one step)
    ("bench_model.BenchSizes", reference.BenchSizes, (1, 8, 1, 4, 8, 1, 0)),
    ("bench_model.ReferenceTransformer.forward", reference.ReferenceTransformer(1, 8, 8).forward, (IDX, IDX)),
    ("bench_model.count_parameters", reference.count_parameters, (SIZES,)),
    ("bench_model.count_flops", reference.count_flops, (SIZES,)),
    ("bench_model.as_sizes", bench_model.as_sizes, (SIZES,)),
    ("amp.tensor_pairs", amp.tensor_pairs, ([(IDX, IDX)],)),
    ("amp.each_pair", lambda mb: list(amp.each_pair(mb)), ([(IDX, IDX)],)),   # a generator: drawn to the end
    ("capstone_check.load_run", capstone_check.load_run, (RUN_FILES[0],)),
    ("capstone_check.Run", capstone_check.Run, ("r.json", RUNS[0].data)),
    ("capstone_check.Part", capstone_check.Part, ("t", 1, 2, 3, ["x"])),
    ("capstone_check.finished", capstone_check.finished, (RUNS[0],)),
    ("capstone_check.score_bigram", capstone_check.score_bigram, (RUNS,)),
    ("capstone_check.score_precision", capstone_check.score_precision, (RUNS,)),
    ("capstone_check.score_resume", capstone_check.score_resume, (RUNS,)),
    ("capstone_check.check_runs", capstone_check.check_runs, (RUNS,)),
    ("capstone_check.report", capstone_check.report, (RUNS, None)),
    ("bench.ModeSpec", bench.ModeSpec, ("bf16", "fused", False, None, "bf16")),
    ("bench.mode_spec", bench.mode_spec, ("bf16",)),
    ("bench.parse_modes", bench.parse_modes, ("fp32,bf16",), {}, (argparse.ArgumentTypeError,)),
    ("bench.skip_reason", bench.skip_reason, ("bf16", "cpu", REPORT)),
    ("bench.build", bench.build, ("fp32", SIZES, "cpu")),
    ("bench.sync", bench.sync, ("cpu",)),
    ("bench.release", bench.release, ("cpu",)),
    # x and y go straight into the learner's own model (a wrong shape is that model's error); a non-tensor is refused
    # by train.amp_step's fuzz above
    ("bench.repeat_step", lambda model, optimizer, scaler, ctx, n, clip_norm: bench.repeat_step(
        model, optimizer, scaler, ctx, *ONES, n, clip_norm), (LINEAR, LINEAR_OPT, SCALER, contextlib.nullcontext(), 1,
                                                             None)),
    ("bench.time_mode", bench.time_mode, ("fp32", SIZES, "cpu")),
    ("bench.compare_loop", bench.compare_loop, ("fp32", SIZES, "cpu", 1)),
    ("bench.run", bench.run, (SIZES, "cpu", ("fp32",), False, REPORT)),
    # speed
    ("profiler.categorize", profiler.categorize, ("aten::mm", False)),
    ("profiler.profile_step", profiler.profile_step, ("fp32", SIZES, "cpu", 1)),
    ("profiler.op_events", lambda fn, device: profiler.op_events(fn, MAT, device=device), (torch.relu, "cpu")),
    ("profiler.fp8_matmul_share", profiler.fp8_matmul_share, (SIZES,)),
    ("profiler.fp8_step_bound", profiler.fp8_step_bound, (0.5, 0.5, 2.0)),
    ("profiler.vocab_sweep", profiler.vocab_sweep, (SIZES, "cpu", (8, 7), "fp32")),
    ("profiler.reference_figures", profiler.reference_figures, ("07",)),
    # memory
    ("memory.Ledger", memory.Ledger, ("fp32", None, "cpu", 10, 2, 4)),
    ("memory.SavedTensorCounter", memory.SavedTensorCounter, (LINEAR,)),
    ("memory.storage_bytes", memory.storage_bytes, ([MAT, MAT[0]], ())),
    ("memory.tensor_nbytes", memory.tensor_nbytes, (MAT,)),
    ("ds_config.zero_estimates", ds_config.zero_estimates, (1000, 2, 0)),
    # ds and ds_numerics (one engine for all); ds_train up to where its DeepSpeed run would start
    ("ds.setup_single_process", ds.setup_single_process, ("gloo", False)),
    ("ds.release", ds.release, (None,)),
    ("ds_process.forget_torch_autocast", ds_process.forget_torch_autocast, ({},)),
    ("ds.engine_step", ds.engine_step, (ENGINE, [(IDX, IDX)])),
    ("ds.loss_scale_of", ds.loss_scale_of, (ENGINE,)),
    ("ds.LossScaleRow", ds.LossScaleRow, (1, 1, None, None, False)),
    ("ds.LossScaleLog", lambda engine, capture: ds.LossScaleLog(engine, capture).close(), (ENGINE, True)),
    ("ds.model_state_bytes", ds.model_state_bytes, (ENGINE,)),
    ("ds.initialize", ds.initialize, (Fresh(_tiny_gpt), DS_CONFIG),
     {"optimizer": None, "lr": 1e-3, "replace_current": False}),
    ("ds_config.DeepSpeedConfigError", ds_config.DeepSpeedConfigError, ("ভুল (error)",)),
    ("deepspeed_numerics.accumulation_error", deepspeed_numerics.accumulation_error, (ENGINE, [(IDX, IDX)])),
    ("deepspeed_numerics.accumulation_errors", deepspeed_numerics.accumulation_errors, (ENGINE, [(IDX, IDX)], [1])),
    ("one_block.OneBlockLM", one_block.OneBlockLM, (6, 8, 0, False)),
    ("one_block.OneBlockLM.forward", ONE_BLOCK.forward, (IDX, IDX)),
    ("deepspeed_numerics.fp64_reference", deepspeed_numerics.fp64_reference, (ONE_BLOCK, [(IDX, IDX)])),
    ("deepspeed_numerics.compare_with_reference", deepspeed_numerics.compare_with_reference,
     (ONE_BLOCK, ONE_BLOCK, [(IDX, IDX)], REFERENCE), {"backward": None, "context": contextlib.nullcontext,
                                                      "gradients": True}),
    ("ds_train.run", _ds_train_checks, (), {"zero_stage": None, "steps": 2, "global_batch": None, "micro_batch": None,
                                           "precision": "auto", "size": "tiny", "lr": 3e-4, "seed": 0,
                                           "warmup": None, "cpu": True}),
    # comm_precision (pure arithmetic) and fsdp (up to where processes or a process group would start)
    ("comm_precision.ring_reduce_scatter", comm_precision.ring_reduce_scatter, (COMM_GRADS, "bf16", None)),
    ("comm_precision.ring_order_sum", comm_precision.ring_order_sum, (COMM_GRADS, torch.float32, torch.bfloat16)),
    ("comm_precision.direct_reduce_scatter", comm_precision.direct_reduce_scatter, (COMM_GRADS, "bf16", "fp32")),
    ("comm_precision.reduced_mean", comm_precision.reduced_mean, (COMM_GRADS, "fp16", None, "pre_post", "ring")),
    ("comm_precision.relative_error", comm_precision.relative_error, (COMM_GRADS[0] * 1.01, COMM_GRADS[0])),
    ("comm_precision.gradient_sample", comm_precision.gradient_sample, (4, 16, 1.0, 1.0, 1e-3, 0)),
    ("comm_precision.error_sweep", comm_precision.error_sweep, ((2, 4), None, 32, 0)),
    ("comm_precision.fsdp_divide_factors", comm_precision.fsdp_divide_factors, (8, "fp16")),
    ("comm_precision.scheme_cost", comm_precision.scheme_cost, (("bf16", None, "avg", "ring"),)),
    ("comm_precision.smallest_safe_dtype", comm_precision.smallest_safe_dtype, (8, 1e-2, COMM_SWEEP)),
    ("comm_precision.wire_bytes", comm_precision.wire_bytes, (1000, 8, "bf16", "reduce_scatter")),
    ("comm_precision.wire_table", comm_precision.wire_table, (1000, 8)),
    ("figures.comm_error_figure", figures.comm_error_figure, (COMM_SWEEP, 1e-2, None)),
    ("fsdp.mp_policy", fsdp.mp_policy, ("bf16",)),
    ("fsdp.model_state_bytes", fsdp.model_state_bytes, (LINEAR, LINEAR_OPT)),
    ("fsdp.shard_model", _shard_without_group, (Fresh(_tiny_gpt), "bf16", True, None)),
    ("fsdp.gradient_sync", fsdp.gradient_sync, (_Syncable(),)),
    ("fsdp.run", functools.partial(_run_without_spawning, fsdp), (("bf16",), 2, 2, 2, 2, 1e-3)),
    ("processes.run_workers", _refused_workers, (len, 2, ())),
    # precision, formats, util
    ("precision.needs_loss_scaling", precision.needs_loss_scaling, ("fp16",)),
    ("formats.FloatFormat", formats.FloatFormat, ("e4m3", 4, 3, False, "E4M3")),
    ("formats.Decoded", formats.Decoded, ("fp16", 0, 15, 0, "0", "01111", "0000000000", 0, 1.0, "normal")),
    ("checks.as_bool", checks.as_bool, (True, "x")),
    ("model_states.unique_tensor_bytes", model_states.unique_tensor_bytes, ([COMM_GRADS, COMM_GRADS[0]],)),
    ("model_states.optimizer_state_tensors", model_states.optimizer_state_tensors,
     (torch.optim.AdamW(torch.nn.Linear(2, 2).parameters()),)),
    ("checks.as_seed", checks.as_seed, (0, "seed")),
    ("checks.as_device", checks.as_device, ("cpu", "device")),
    ("versions.package_version", versions.package_version, ("torch",)),
    ("versions.course_requirements", versions.course_requirements, ("lab",)),
]


@pytest.mark.parametrize("call", OWN_CALLS, ids=[c[0] for c in OWN_CALLS])
def test_every_helper_refuses_odd_arguments_clearly(call, monkeypatch, tmp_path):
    name, fn, args, *rest = call
    kwargs, allowed = (rest + [{}, ()])[:2] if rest else ({}, ())
    if name.startswith(("train.", "literature.")):   # checkpoint files (and odd names' files) go to tmp_path
        monkeypatch.chdir(tmp_path)
        train.save_checkpoint("saved.pt", LINEAR, LINEAR_OPT)
        (tmp_path / "lit.txt").write_text("### ক/1 এক\nঅআ\n### ক/2 দুই\nইঈ\n", encoding="utf-8")
    if name == "memory.measure_step":               # its gc.collect() afterwards frees memory; it checks nothing
        monkeypatch.setattr(memory, "release", lambda device: None)
    if name.startswith("simulation."):
        monkeypatch.setenv(hardware.SIMULATE_ENV, "7.5")
    plots.setup_bengali()
    # the valid call first, outside the clock: it must work, and it pays for any first-use import (torch._dynamo)
    fn(*[a.make() if isinstance(a, Fresh) else a for a in args], **kwargs)
    plt.close("all")
    drawing = name.startswith(("plots.", "figures.", "widgets.loss_scale_simulator", "widgets.bit_explorer"))
    odd = ODD_STEP if name in MEASURED else ODD_FIGURES if drawing else None
    _fuzz(name, fn, args, kwargs, ALLOWED + tuple(allowed), odd)


@pytest.mark.parametrize("value", ["", "abc", "1e3", "fp16", "7", "7.5.1", "-1.0", "sm_", "99.99", " 8.0 ", "৭.৫"])
def test_a_mistyped_simulation_switch_is_a_clear_error_or_a_capability(monkeypatch, value):
    monkeypatch.setenv(hardware.SIMULATE_ENV, value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for fn in (hardware.simulated_capability, hardware.gpu_capability, hardware.device_name,
               lambda: precision.for_device("cuda")):
        # RuntimeError is hardware's own "no CUDA GPU here" (this CPU, the switch unset or not a GPU's)
        _check(fn, (), {}, f"{hardware.SIMULATE_ENV}={value!r}: {getattr(fn, '__name__', 'call')}",
               ALLOWED + (RuntimeError,))


# Callables with nothing to fuzz, and the ones left out on purpose (with the reason).
NO_ARGUMENTS = {"ds_config.cpu_accelerator_if_no_gpu", "hardware.simulated_capability", "hardware.gpu_capability",
                "hardware.default_device",
                "hardware.is_colab", "data.corpus_path", "gpt.TinyGPT.num_parameters",
                "scaling.DynamicLossScaler.state_dict", "scaling.FormatRegions.bands",
                "scaling.UnderflowReport.as_dict", "hardware.DeviceReport.lines",
                "quantize.DynamicInt8Linear.extra_repr", "literature.literature_path", "literature.provenance",
                "capstone.recorded_h200", "fsdp.recorded_h200", "evaluation.BestCheckpoint.state_dict",
                "train.StepBookkeeper.finish", "bench.has_cxx_compiler",
                "speed.fp8_recipes", "memory.Ledger.rows", "memory.Ledger.per_parameter", "memory.Ledger.as_dict",
                "ds.current_engine", "ds.loss_scale_messages", "ds.LossScaleLog.record", "ds.LossScaleLog.as_dicts",
                "ds.LossScaleLog.close", "ds_config.cpu_supports_fp16", "util.free_port",
                "ds_process.restore_functional_linear", "ds_process.no_memory_report"}
_COMMAND_LINE = ("a command line (argparse): a wrong flag prints the usage and exits with status 2, the command-line "
                 "convention; the function behind it is fuzzed")
LEFT_OUT = {"capstone_check.main": _COMMAND_LINE,
            "capstone_check.CheckError": "an exception class: its argument is the message, any text",
            "ddp_demo.main": _COMMAND_LINE, "bench.main": _COMMAND_LINE, "speed.main": _COMMAND_LINE,
            "capstone.main": _COMMAND_LINE, "ds_train.main": _COMMAND_LINE, "ds_train.parse_args": _COMMAND_LINE,
            "fsdp.main": _COMMAND_LINE,
            "ledger_table.main": "a command line (argparse) that measures every mode's ledger; measure_step behind "
                                 "it is fuzzed"}
FUZZED_ELSEWHERE = {  # in the tests above
    "data.CharDataset.get_batch", "gpt.TinyGPT.generate"}
# The exercise checks take a learner's answer, not a helper's arguments: any answer must give a verdict, never an
# error (test_an_exercise_check_never_raises_on_a_learners_answer and each lesson's own tests).
NOT_HERE = ("mishran.exercises",)


def _own_modules():
    """Every mishran module with an __all__, found from the package itself (a new module cannot be forgotten)."""
    for info in pkgutil.walk_packages(mishran.__path__, "mishran."):
        if not info.name.startswith(NOT_HERE):
            module = importlib.import_module(info.name)
            if hasattr(module, "__all__"):
                yield module


def _public_callables():
    for module in _own_modules():
        short = module.__name__.split(".")[-1]
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj) or getattr(obj, "__module__", "").split(".")[-1] != short:
                continue                          # a constant, or a name this module takes from another one
            yield f"{short}.{name}"
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and inspect.isfunction(member):
                        yield f"{short}.{name}.{attr}"


def test_every_public_callable_is_fuzzed():
    fuzzed = {c[0].split("(")[0] for c in OWN_CALLS + CORE_CALLS} | FUZZED_ELSEWHERE | NO_ARGUMENTS | set(LEFT_OUT)
    found = set(_public_callables())
    assert {"ds.engine_step", "capstone.CapstoneConfig", "data.BatchStream"} <= found   # the walk sees them
    missing = sorted(found - fuzzed)
    assert not missing, f"public callables with no fuzz entry: {missing}"


def test_the_fuzz_catches_a_hang(monkeypatch):
    """The harness itself: a helper that never returns is reported as a hang, not waited for."""
    monkeypatch.setattr(f"{__name__}.HANG_S", 0.3)

    def endless(n):
        while True:
            pass

    with pytest.raises(pytest.fail.Exception, match="a hang"):
        _check(endless, (1,), {}, "endless(1)")


@pytest.mark.parametrize("call", [
    lambda: data.CharTokenizer(text=5), lambda: data.CharDataset(text=5), lambda: data.CharDataset("অআ", None),
    lambda: data.CharDataset("অআ", math.inf), lambda: data.CharDataset("অআ", math.nan),
    lambda: widgets.simulate_timeline(p_overflow="abc"), lambda: widgets.simulate_timeline(steps=2 ** 2000),
    lambda: precision.for_device(device=torch.tensor([1.0, 2.0])),
    lambda: gpt.TinyGPT(CONFIG).generate(IDX, 2 ** 2000),
    lambda: reference.ReferenceTransformer(layers=2 ** 2000, d_model=8, vocab=8)], ids=[
    "CharTokenizer(5)", "CharDataset(5)", "val_fraction=None", "val_fraction=inf", "val_fraction=nan",
    "p_overflow='abc'", "steps=2**2000", "device=tensor", "max_new_tokens=2**2000",
    "layers=2**2000"])
def test_the_review_examples(call):
    """The raw errors and the hang a review found: each is now a Bengali ValueError/TypeError, at once."""
    def refused():
        with pytest.raises((ValueError, TypeError)) as err:
            call()
        assert BENGALI.search(str(err.value))

    _check(refused, (), {}, "the review's example")


def test_the_fuzz_catches_a_call_that_waits_forever(monkeypatch):
    """A call blocked without using the CPU (here, asleep) is caught by the clock instead."""
    monkeypatch.setattr(f"{__name__}.WALL_S", 0.5)
    with pytest.raises(pytest.fail.Exception, match="a hang"):
        _check(time.sleep, (30,), {}, "time.sleep(30)")
