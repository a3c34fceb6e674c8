"""Bad input, the way a learner types it: every public helper gets odd arguments (wrong types, signs, zero, inf/NaN,
huge numbers) one at a time, in an otherwise valid call. Each call must either give a result or raise a clear error
(ValueError/TypeError, or the module's own error class) whose message has Bengali text and an English key term;
never a raw internal exception (OverflowError, AttributeError, KeyError, IndexError, ZeroDivisionError, ...).

The odd values are a fixed list plus a seeded random sample, so a failure names its exact call and repeats.
"""
import math
import random
import re

import pytest
import torch

from mishran import data, ds_config, formats, models, scaling, train, util
from mishran.exercises import lesson01, lesson02, lesson03, lesson04, lesson05

BENGALI = re.compile(r"[\u0980-\u09FF]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
ODD = [0, -1, 1, 2, -7, 2 ** 2000, -(2 ** 2000), 0.0, -0.0, 0.5, -0.5, 1e308, -1e308, 1e-320, math.inf, -math.inf,
       math.nan, True, False, None, "", "abc", "1e3", [], [1, 2], {}, {"x": 1}, (0,), object(), torch.tensor(2.0),
       torch.tensor([1.0, 2.0]), torch.tensor([]), torch.float16, "fp16"]
_rng = random.Random(8)
ODD += [_rng.choice([-1, 1]) * 10 ** _rng.uniform(-400, 400) for _ in range(6)] + [_rng.randint(-10 ** 9, 10 ** 9)]

# A clear error: the course's own classes, or ValueError/TypeError.
ALLOWED = (ValueError, TypeError, scaling.LossScaleAtMinimumError)


def _check(fn, args, kwargs, where):
    try:
        fn(*args, **kwargs)
    except ALLOWED as err:
        message = str(err)
        assert BENGALI.search(message) and LATIN_WORD.search(message), f"{where}: unclear message {message!r}"
    except Exception as err:  # noqa: BLE001 — anything else is the bug this test exists for
        pytest.fail(f"{where}: raw {type(err).__name__}: {err}")


def _fuzz(name, fn, args, kwargs=None):
    """Replace each argument in turn by each odd value."""
    kwargs = kwargs or {}
    for i in range(len(args)):
        for odd in ODD:
            changed = list(args)
            changed[i] = odd
            _check(fn, changed, kwargs, f"{name}(arg {i} = {odd!r})")
    for key in kwargs:
        for odd in ODD:
            _check(fn, args, {**kwargs, key: odd}, f"{name}({key}={odd!r})")


CORE_CALLS = [
    ("formats.decode", formats.decode, (1.0, "fp16")),
    ("formats.decode_bits", formats.decode_bits, (0x3C00, "fp16")),
    ("formats.encode", formats.encode, (1.0, "bf16")),
    ("formats.round_to", formats.round_to, (1.0, "fp8_e4m3"), {"saturate": False}),
    ("formats.spacing", formats.spacing, (1.0, "fp16")),
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
    ("DynamicLossScaler.update", lambda f: scaling.DynamicLossScaler().update(f), (True,)),
    ("DeepSpeedLossScaler.update", lambda f: scaling.DeepSpeedLossScaler().update(f), (False,)),
    ("scaling.simulate", lambda flags, steps: scaling.simulate(scaling.DynamicLossScaler(), flags, steps),
     ([False, True], 2)),
    ("ds_config.choose_precision", ds_config.choose_precision, ("cpu",)),
    ("ds_config.config_for_device", ds_config.config_for_device, (4, 2, 1),
     {"zero_stage": 1, "precision": "bf16", "device": "cpu", "lr": 1e-3, "gradient_clipping": 1.0}),
    ("ds_config.validate_config", ds_config.validate_config, ({"train_batch_size": 8}, 1, "cpu")),
    ("ds_config.zero_model_state_bytes", ds_config.zero_model_state_bytes, (1000, 2, 4)),
    ("util.positive_int", util.positive_int, (3, "n")),
    ("util.parse_version", util.parse_version, ("2.11.0+cu130",)),
    ("util.version_at_least", util.version_at_least, ("3.11.2", "3.11")),
    ("train.TrainConfig", train.TrainConfig, (), {"precision": "bf16", "steps": 2, "accumulation_steps": 1,
                                                  "clip_norm": 1.0, "log_every": 0}),
    ("train.make_scaler", train.make_scaler, ("cpu", "fp16")),
    ("train.autocast_for", train.autocast_for, ("cpu", "bf16")),
    ("data.synthetic_regression", data.synthetic_regression, (16, 4, 0, 0.05)),
    ("data.CharTokenizer.decode", data.CharTokenizer("অআ").decode, ([0, 1],)),
    ("data.CharTokenizer.encode", data.CharTokenizer("অআ").encode, ("অ",)),
    ("models.GPTConfig", models.GPTConfig, (), {"vocab_size": 8, "block_size": 8, "n_layer": 1, "n_head": 2,
                                               "n_embd": 8}),
    ("models.MLP", models.MLP, (4, 8, 1), {"n_layers": 2, "seed": 0}),
]


@pytest.mark.parametrize("call", CORE_CALLS, ids=[c[0] for c in CORE_CALLS])
def test_core_helpers_refuse_odd_arguments_clearly(call):
    name, fn, args, *rest = call
    _fuzz(name, fn, args, rest[0] if rest else None)


def test_dataset_batches_and_generation_refuse_odd_arguments_clearly():
    dataset = data.CharDataset("অআইঈউঊ" * 50)
    _fuzz("CharDataset.get_batch", dataset.get_batch, ("train", 2, 8))
    model = models.TinyGPT(models.GPTConfig(vocab_size=dataset.vocab_size, block_size=8, n_layer=1, n_head=2,
                                            n_embd=8), seed=0).eval()
    start = torch.zeros(1, 1, dtype=torch.long)
    # a huge token count is a legal (slow) request: max_new_tokens is fuzzed with values up to 10**6 only
    small = [v for v in ODD if not isinstance(v, int) or isinstance(v, bool) or v <= 10 ** 6]
    for n in small:
        _check(model.generate, (start, n, 1.0, 3), {}, f"TinyGPT.generate(max_new_tokens={n!r})")
    _fuzz("TinyGPT.generate", lambda temperature, top_k: model.generate(start, 2, temperature, top_k), (1.0, 3))


ANSWER_CHECKS = [
    ("lesson01.check_fp16_bits_value", lambda a: lesson01.check_fp16_bits_value("0 01111 0000000000", a)),
    ("lesson01.check_bf16_round", lambda a: lesson01.check_bf16_round(257, a)),
    ("lesson01.check_first_unrepresentable_integer", lambda a: lesson01.check_first_unrepresentable_integer("fp16", a)),
    ("lesson01.check_e4m3_max", lesson01.check_e4m3_max),
    ("lesson01.check_sum_stall", lambda a: lesson01.check_sum_stall("fp16", 1.0, a)),
    ("lesson02.check_min_normal_scale", lambda a: lesson02.check_min_normal_scale(3e-7, a)),
    ("lesson02.check_pytorch_scale_after", lambda a: lesson02.check_pytorch_scale_after("..x", a)),
    ("lesson02.check_deepspeed_scale_after", lambda a: lesson02.check_deepspeed_scale_after("..x", a)),
    ("lesson02.check_flushed_fraction", lambda a: lesson02.check_flushed_fraction(torch.tensor([1e-9, 1.0]), a)),
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
