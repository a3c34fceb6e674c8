"""mishran.engines.deepspeed_config: DeepSpeed configs built and checked before DeepSpeed sees them,
and the ZeRO arithmetic.

None of this needs DeepSpeed, except cpu_supports_fp16(), which asks DeepSpeed's own CPU accelerator, and the
child Python that checks DeepSpeed's accelerator warning.
"""
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

from mishran import precision
from mishran.engines import deepspeed_config as ds_config

BENGALI = set("অআইঈউএওকখগঘচছজঝটঠডঢণতথদধনপফবভমযরলশষসহ")


def _bilingual(message, english):
    assert english in message, message
    assert BENGALI & set(message), message


@pytest.fixture
def cpu_without_fp16(monkeypatch):
    """Most CPUs: DeepSpeed's CPU accelerator refuses fp16 (pinned, so the test means the same on any CPU)."""
    monkeypatch.setattr(ds_config, "cpu_supports_fp16", lambda: False)


@pytest.mark.parametrize("kwargs, english", [
    (dict(micro_batch=4, accumulation_steps=2, world_size=1, train_batch_size=10), "batch arithmetic does not add up"),
    (dict(micro_batch=4, precision="fp16", device="cpu"), "fp16 is not supported on many CPUs"),
    (dict(micro_batch=4, precision="fp16+bf16", device="cpu"), "fp16 and bf16 cannot both be enabled"),
    (dict(micro_batch=4, zero_stage=4, device="cpu"), "unknown ZeRO stage"),
    (dict(micro_batch=0, device="cpu"), "must be a positive integer"),
    (dict(micro_batch=4, precision="fp8", device="cpu"), "unknown precision"),
])
def test_config_errors_are_caught_before_deepspeed_in_bengali_and_english(kwargs, english, cpu_without_fp16):
    with pytest.raises(ds_config.DeepSpeedConfigError) as err:
        ds_config.config_for_device(**kwargs)
    _bilingual(str(err.value), english)


@pytest.mark.parametrize("config, english", [
    ({"train_batch_size": 10, "train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2},
     "batch arithmetic does not add up"),
    ({"train_batch_size": 10, "train_micro_batch_size_per_gpu": 4}, "batch arithmetic does not add up"),
    ({"train_batch_size": 8, "fp16": {"enabled": True}, "bf16": {"enabled": True}},
     "fp16 and bf16 cannot both be enabled"),
    ({"train_batch_size": 8, "fp16": {"enabled": True}}, "fp16 is not supported on many CPUs"),
    ({"train_batch_size": 8, "zero_optimization": {"stage": 5}}, "unknown ZeRO stage"),
    ({"gradient_accumulation_steps": 2}, "either train_batch_size or train_micro_batch_size_per_gpu"),
    ({"train_batch_size": 8, "fp16": True}, '"fp16" must be a dict'),
    ({"train_batch_size": 8, "bfloat16": "on"}, '"bfloat16" must be a dict'),
    ({"train_batch_size": 8, "zero_optimization": 2}, '"zero_optimization" must be a dict'),
    ({"train_batch_size": 8, "zero_optimization": {"stage": True}}, "unknown ZeRO stage"),
    ([("train_batch_size", 8)], "a DeepSpeed config dict"),
])
def test_validate_config_catches_hand_written_mistakes(config, english, cpu_without_fp16):
    with pytest.raises(ds_config.DeepSpeedConfigError) as err:
        ds_config.validate_config(config, world_size=1, device="cpu")
    _bilingual(str(err.value), english)


def test_fp16_on_a_cpu_that_has_it_is_accepted(monkeypatch):
    """Issue 15: AVX512-FP16 / AMX-FP16 CPUs run fp16 in DeepSpeed; the config check must not refuse them."""
    monkeypatch.setattr(ds_config, "cpu_supports_fp16", lambda: True)
    cfg = ds_config.config_for_device(micro_batch=4, precision="fp16", device="cpu")
    assert cfg["fp16"]["enabled"] and cfg["zero_optimization"]["stage"] == 1


def test_cpu_fp16_answer_agrees_with_the_cpu_flags():
    """DeepSpeed asks oneDNN, which runs fp16 only with AVX512-FP16 or AMX-FP16: without both flags, no fp16."""
    pytest.importorskip("deepspeed")
    try:
        flags = set(Path("/proc/cpuinfo").read_text().split())
    except OSError:
        pytest.skip("no /proc/cpuinfo here")
    if not flags & {"avx512_fp16", "amx_fp16"}:
        assert ds_config.cpu_supports_fp16() is False
    else:
        assert isinstance(ds_config.cpu_supports_fp16(), bool)


def test_validate_config_derives_the_third_batch_number_like_deepspeed():
    got = ds_config.validate_config({"train_batch_size": 64, "train_micro_batch_size_per_gpu": 8}, world_size=2,
                                    device="cpu")
    assert (got["accumulation_steps"], got["micro_batch"]) == (4, 8)
    got = ds_config.validate_config({"train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 2},
                                    world_size=4, device="cpu")
    assert got["train_batch_size"] == 64


def test_world_size_comes_from_the_environment_when_not_given(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "4")
    assert ds_config.config_for_device(micro_batch=2, device="cpu")["train_batch_size"] == 8
    monkeypatch.setenv("WORLD_SIZE", "0")
    with pytest.raises(ds_config.DeepSpeedConfigError, match="world_size must be a positive integer"):
        ds_config.config_for_device(micro_batch=2, device="cpu")


def test_t4_gets_fp16_with_dynamic_loss_scaling_and_zero1():
    cfg = ds_config.config_for_device(micro_batch=8, accumulation_steps=4, capability=(7, 5), world_size=1)
    assert "bf16" not in cfg
    # DeepSpeed's documented fp16 defaults (deepspeed/runtime/precision_config.py), written out here by hand
    assert cfg["fp16"] == {"enabled": True, "auto_cast": False, "loss_scale": 0, "initial_scale_power": 16,
                           "loss_scale_window": 1000, "hysteresis": 2, "consecutive_hysteresis": False,
                           "min_loss_scale": 1}
    assert cfg["zero_optimization"]["stage"] == 1          # stage 0 FP16 does not scale the loss in DeepSpeed 0.19.8
    assert cfg["train_batch_size"] == 32


def test_our_fp16_defaults_are_deepspeeds_own():
    """The block is written out key by key for the lesson; DeepSpeed's config class is the oracle."""
    precision_config = pytest.importorskip("deepspeed.runtime.precision_config")
    theirs = precision_config.DeepSpeedFP16Config()
    for key, value in ds_config.FP16_DEFAULTS.items():
        if key != "enabled":
            assert getattr(theirs, key) == value, key


def test_a100_h100_and_cpu_get_bf16_and_zero0():
    for cap in [(8, 0), (9, 0)]:
        cfg = ds_config.config_for_device(micro_batch=8, capability=cap, world_size=1)
        assert cfg["bf16"] == {"enabled": True} and "fp16" not in cfg and cfg["zero_optimization"] == {"stage": 0}
    cfg = ds_config.config_for_device(micro_batch=8, device="cpu", world_size=1)
    assert cfg["bf16"] == {"enabled": True} and "optimizer" not in cfg       # client torch.optim: nothing compiles
    assert not {"fp16", "bf16"} & set(ds_config.config_for_device(micro_batch=8, capability=(6, 0), world_size=1))
    assert ds_config.config_for_device(micro_batch=8, capability=(7, 0), world_size=1)["fp16"]["enabled"]


@pytest.mark.parametrize("name", precision.NAMES)
def test_every_precision_name_builds_a_block_that_reads_back_as_that_name(name, monkeypatch):
    """A new name in mishran.precision needs nothing here: the block, the stage and the check follow from it."""
    monkeypatch.setattr(ds_config, "cpu_supports_fp16", lambda: True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # the default stage never triggers the stage-0 FP16 warning
        cfg = ds_config.config_for_device(micro_batch=4, precision=name, device="cpu", world_size=1)
    assert precision.from_ds_config(cfg) == name
    assert cfg["zero_optimization"]["stage"] == (1 if precision.needs_loss_scaling(name) else 0)
    assert ds_config.validate_config(cfg, world_size=1, device="cpu")["micro_batch"] == 4


@pytest.mark.parametrize("capability", [(6, 1), (7, 0), (7, 5), (8, 0), (9, 0)])
def test_auto_builds_the_config_from_precisions_one_rule(capability):
    for auto in (None, "auto"):
        cfg = ds_config.config_for_device(micro_batch=4, precision=auto, capability=capability, world_size=1)
        assert precision.from_ds_config(cfg) == precision.resolve("auto", capability=capability)


def test_devices_are_read_by_precision_and_bad_ones_refused_as_config_errors():
    assert precision.from_ds_config(ds_config.config_for_device(micro_batch=4, device="cpu:0")) == "bf16"
    for bad, english in (("gpu", "unknown device"), (3, "device must be a device name")):
        with pytest.raises(ds_config.DeepSpeedConfigError, match=english):
            ds_config.config_for_device(micro_batch=4, device=bad)
        with pytest.raises(ds_config.DeepSpeedConfigError, match=english):
            ds_config.validate_config({"train_batch_size": 8}, world_size=1, device=bad)


@pytest.mark.parametrize("both", [("fp16", "bf16"), "fp16+bf16", ["bf16", "FP16"]])
def test_asking_for_both_16_bit_precisions_says_so(both):
    with pytest.raises(ds_config.DeepSpeedConfigError, match="fp16 and bf16 cannot both be enabled") as err:
        ds_config.config_for_device(micro_batch=4, precision=both, device="cpu")
    assert "precision='bf16'" in str(err.value)         # what to do instead


def test_fp16_at_zero_stage_0_warns_about_the_unscaled_loss():
    with pytest.warns(UserWarning, match="PR #8393"):
        cfg = ds_config.config_for_device(micro_batch=8, capability=(7, 5), zero_stage=0, world_size=1)
    assert cfg["zero_optimization"]["stage"] == 0


@pytest.mark.parametrize("stage", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("accumulation", [1, 4])
@pytest.mark.parametrize("name", precision.NAMES)
def test_16_bit_gradients_are_summed_in_fp32_whenever_they_are_accumulated(name, accumulation, stage, monkeypatch):
    """With accumulation > 1 a 16-bit engine would add its micro-gradients in 16 bits (DeepSpeed's default
    grad_accum_dtype is the model dtype); the course's config asks ZeRO 1-3 to add them, and to reduce them, in FP32.
    ZeRO-0 cannot (DeepSpeed refuses that mix), so the default stage is 1 there and asking for 0 warns."""
    monkeypatch.setattr(ds_config, "cpu_supports_fp16", lambda: True)
    sixteen_bit_sums = name != "fp32" and accumulation > 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfg = ds_config.config_for_device(micro_batch=4, accumulation_steps=accumulation, zero_stage=stage,
                                          precision=name, device="cpu", world_size=1)
    expected_stage = stage if stage is not None else (1 if name == "fp16" or sixteen_bit_sums else 0)
    assert cfg["zero_optimization"]["stage"] == expected_stage
    if sixteen_bit_sums and expected_stage > 0:
        assert cfg["data_types"] == {"grad_accum_dtype": "fp32"} and cfg["communication_data_type"] == "fp32"
    else:
        assert "data_types" not in cfg and "communication_data_type" not in cfg
    accumulation_warnings = [w for w in caught if "gradients accumulate in" in str(w.message)]
    if sixteen_bit_sums and stage == 0:
        assert len(accumulation_warnings) == 1
        message = str(accumulation_warnings[0].message)
        _bilingual(message, f"gradients accumulate in {name.upper()} with ZeRO stage 0")
        assert "zero_stage=1" in message                                     # what to do instead
    else:
        assert not accumulation_warnings
    assert ds_config.validate_config(cfg, world_size=1, device="cpu")["accumulation_steps"] == accumulation


def _wire_dtype(config):
    """The dtype DeepSpeed 0.19.8 reduces gradients in across ranks (engine.communication_data_type): the config's
    communication_data_type when given, else the model's 16-bit dtype, else FP32."""
    given = config.get("communication_data_type")
    if given is not None:
        return {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}[given.lower()]
    if config.get("fp16", {}).get("enabled"):
        return torch.float16
    return torch.bfloat16 if config.get("bf16", {}).get("enabled") else torch.float32


@pytest.mark.parametrize("name", ["bf16", "fp16"])
@pytest.mark.parametrize("stage", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("world", [2, 8])
def test_several_ranks_reduce_in_fp32_even_without_accumulation(monkeypatch, name, stage, world):
    """Across GPUs a 16-bit sum rounds at every hop (lesson 09): with world_size > 1 the course's config sends
    gradients in FP32 at any ZeRO stage, accumulation 1 included (the old config left DeepSpeed's default there,
    the model's own dtype)."""
    monkeypatch.setattr(ds_config, "cpu_supports_fp16", lambda: True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # fp16 with ZeRO-0 warns; not what this test is about
        cfg = ds_config.config_for_device(micro_batch=4, accumulation_steps=1, zero_stage=stage, precision=name,
                                          device="cpu", world_size=world)
    assert _wire_dtype(cfg) == torch.float32
    assert cfg["train_batch_size"] == 4 * world
    assert ds_config.validate_config(cfg, world_size=world, device="cpu")["world_size"] == world


def test_one_rank_or_fp32_keeps_deepspeeds_default_wire():
    """Nothing to reduce across one rank at accumulation 1, and an FP32 model already sends FP32: no key added."""
    one = ds_config.config_for_device(micro_batch=4, precision="bf16", device="cpu", world_size=1)
    assert "communication_data_type" not in one and _wire_dtype(one) == torch.bfloat16
    fp32 = ds_config.config_for_device(micro_batch=4, precision="fp32", device="cpu", world_size=4)
    assert "communication_data_type" not in fp32 and _wire_dtype(fp32) == torch.float32


def test_fp32_sums_are_copied_into_each_config():
    """Two configs must not share one data_types dict: a learner editing one would change the other."""
    a = ds_config.config_for_device(micro_batch=4, accumulation_steps=2, precision="bf16", device="cpu", world_size=1)
    b = ds_config.config_for_device(micro_batch=4, accumulation_steps=2, precision="bf16", device="cpu", world_size=1)
    a["data_types"]["grad_accum_dtype"] = "bf16"
    assert b["data_types"] == ds_config.FP32_SUMS["data_types"] == {"grad_accum_dtype": "fp32"}


@pytest.mark.parametrize("spelling", ["fp32", "float32", "float", "torch.float32", "bf16", "half"])
def test_validate_config_refuses_another_accumulation_dtype_at_zero_stage_0(spelling):
    """DeepSpeed raises NotImplementedError ('unsupported mix of model_dtype and grad_accum_dtype') for these;
    the check says it first, and says which stage can."""
    model = "fp16" if spelling == "bf16" else "bf16"
    config = {"train_batch_size": 8, "gradient_accumulation_steps": 2, model: {"enabled": True},
              "zero_optimization": {"stage": 0}, "data_types": {"grad_accum_dtype": spelling}}
    with pytest.raises(ds_config.DeepSpeedConfigError) as err:
        ds_config.validate_config(config, world_size=1, device="cuda")
    _bilingual(str(err.value), "unsupported mix of model_dtype and grad_accum_dtype")
    assert '"stage": 1' in str(err.value)
    config["zero_optimization"]["stage"] = 1                       # ZeRO 1-3 can
    assert ds_config.validate_config(config, world_size=1, device="cuda")["accumulation_steps"] == 2
    config.update({"zero_optimization": {"stage": 0}, "data_types": {"grad_accum_dtype": model}})
    assert ds_config.validate_config(config, world_size=1, device="cuda")    # the model's own dtype is fine


def test_deepspeed_optimizer_block_and_fp16_options():
    cfg = ds_config.config_for_device(micro_batch=2, capability=(7, 5), optimizer="AdamW", lr=3e-4,
                                      fp16_options={"initial_scale_power": 32}, zero_stage=2, world_size=1)
    assert cfg["optimizer"]["type"] == "AdamW" and cfg["optimizer"]["params"]["lr"] == 3e-4
    assert cfg["fp16"]["initial_scale_power"] == 32 and cfg["zero_optimization"]["reduce_bucket_size"] == 20_000_000
    with pytest.raises(ds_config.DeepSpeedConfigError, match="unknown fp16 keys"):
        ds_config.config_for_device(micro_batch=2, capability=(7, 5), fp16_options={"initial_scale": 8})
    with pytest.raises(ds_config.DeepSpeedConfigError, match="fp16 options without fp16"):
        ds_config.config_for_device(micro_batch=2, capability=(9, 0), fp16_options={"hysteresis": 1})


def test_zero_arithmetic_reproduces_the_papers_7_5b_example():
    # Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, N = 64 → 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per GPU
    got = [ds_config.zero_model_state_bytes(7_500_000_000, stage, 64)["total"] / 1e9 for stage in (0, 1, 2, 3)]
    assert [round(g, 1) for g in got] == [120.0, 31.4, 16.6, 1.9]
    assert ds_config.zero_model_state_bytes(1000, 2, 1)["total"] == 16_000          # one GPU: nothing to share
    with pytest.raises(ds_config.DeepSpeedConfigError, match="unknown ZeRO stage"):
        ds_config.zero_model_state_bytes(1000, 4, 1)


@pytest.mark.parametrize("kwargs, key", [
    (dict(param_bytes=2 ** 2000), "param_bytes must be finite"),
    (dict(grad_bytes=-1), "grad_bytes must be >= 0"),
    (dict(optimizer_bytes="12"), "optimizer_bytes must be a real number"),
])
def test_zero_arithmetic_refuses_odd_byte_sizes_in_bengali(kwargs, key):
    with pytest.raises(ds_config.DeepSpeedConfigError, match=key) as err:
        ds_config.zero_model_state_bytes(1000, 2, 4, **kwargs)
    _bilingual(str(err.value), key)
    assert ds_config.zero_model_state_bytes(1000, 3, 4, param_bytes=4, grad_bytes=4, optimizer_bytes=8)["total"] == 4000


def test_config_module_imports_neither_deepspeed_nor_plotting():
    code = ("import sys, mishran.engines.deepspeed_config, mishran.engines.deepspeed_engine; "
            "bad = [m for m in ('matplotlib', 'ipywidgets', 'deepspeed') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---------------------------------------------------------------- DS_ACCELERATOR before DeepSpeed's first import

@pytest.fixture
def before_deepspeed(monkeypatch):
    """As if DeepSpeed were not imported yet and nobody had set DS_ACCELERATOR (both put back afterwards)."""
    monkeypatch.setenv("DS_ACCELERATOR", "unset")      # records the old value, so whatever is set below is undone
    monkeypatch.delenv("DS_ACCELERATOR")
    monkeypatch.delitem(sys.modules, "deepspeed", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    monkeypatch.setattr(torch, "xpu", None, raising=False)
    return monkeypatch


def test_cpu_accelerator_is_chosen_only_where_deepspeed_would_choose_it(before_deepspeed):
    assert ds_config.cpu_accelerator_if_no_gpu() and os.environ["DS_ACCELERATOR"] == "cpu"
    os.environ["DS_ACCELERATOR"] = "cuda"                # the learner's own choice is kept
    assert not ds_config.cpu_accelerator_if_no_gpu() and os.environ["DS_ACCELERATOR"] == "cuda"
    del os.environ["DS_ACCELERATOR"]
    before_deepspeed.setattr(torch.cuda, "is_available", lambda: True)     # a GPU: never CPU
    assert not ds_config.cpu_accelerator_if_no_gpu() and "DS_ACCELERATOR" not in os.environ


def test_another_accelerator_is_left_to_deepspeed(before_deepspeed):
    before_deepspeed.setattr(torch.backends.mps, "is_available", lambda: True)
    assert not ds_config.cpu_accelerator_if_no_gpu() and "DS_ACCELERATOR" not in os.environ


def test_no_accelerator_warning_when_the_package_imports_deepspeed_without_a_gpu():
    # a fresh Python that sees no GPU: DeepSpeed warns "Setting accelerator to CPU" unless told beforehand
    env = {k: v for k, v in os.environ.items() if k != "DS_ACCELERATOR"}
    env.update(CUDA_VISIBLE_DEVICES="", PYTHONPATH=os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parents[1] / "src"), env.get("PYTHONPATH", "")) if p))
    code = ("from mishran.engines import deepspeed_config as c; c.cpu_supports_fp16(); "
            "from deepspeed.accelerator import get_accelerator; print(get_accelerator().device_name())")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split()[-1] == "cpu" and "Setting accelerator" not in proc.stdout + proc.stderr
