"""mishran.precision: the one place that knows precision names, dtypes, the choice for a device, autocast and the
scaler they imply, and how a DeepSpeed config names them."""
import pytest
import torch

from mishran import checks as util
from mishran import precision


def test_names_map_to_the_dtypes_autocast_uses():
    assert precision.dtype_of("fp32") is torch.float32
    assert precision.dtype_of("fp16") is torch.float16
    assert precision.dtype_of("bf16") is torch.bfloat16
    for name in precision.NAMES:
        assert precision.name_of(precision.dtype_of(name)) == name


@pytest.mark.parametrize("capability, name", [((9, 0), "bf16"), ((8, 0), "bf16"), ((7, 5), "fp16"),
                                              ((7, 0), "fp16"), ((6, 1), "fp32")])
def test_auto_follows_the_gpu_generation(capability, name):
    assert precision.resolve("auto", capability=capability) == name
    assert precision.resolve(None, "cuda", capability=capability) == name


def test_auto_on_a_cpu_is_bf16_and_a_named_precision_is_kept():
    assert precision.resolve("auto", "cpu") == "bf16"
    assert precision.resolve("fp16", "cpu") == "fp16"


@pytest.mark.parametrize("bad", ["tf32", "FP16", "float16", torch.float16, 16, None, ""])
def test_unknown_names_get_a_bengali_error_with_the_english_key(bad):
    with pytest.raises(ValueError, match="unknown precision"):
        precision.check(bad)


def test_tf32_error_says_it_is_a_matmul_mode():
    with pytest.raises(ValueError, match="set_float32_matmul_precision"):
        precision.check("tf32")


def test_device_strings_are_read_once_here():
    assert util.device_type("cuda:1") == "cuda"
    assert util.device_type(torch.device("cpu")) == "cpu"
    with pytest.raises(ValueError, match="unknown device"):
        util.device_type("gpu")
    with pytest.raises(TypeError, match="device must be a device name"):
        util.device_type(torch.zeros(1), error=TypeError)


def test_autocast_is_off_for_fp32_and_lowers_matmuls_otherwise():
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    with precision.autocast("cpu", "fp32"):
        assert (a @ b).dtype is torch.float32
    with precision.autocast("cpu", "bf16"):
        assert (a @ b).dtype is torch.bfloat16


def test_only_fp16_turns_the_scaler_on():
    assert precision.grad_scaler("cpu", "fp16").is_enabled()
    assert not precision.grad_scaler("cpu", "bf16").is_enabled()
    assert not precision.grad_scaler("cpu", "fp32").is_enabled()
    assert precision.needs_loss_scaling(torch.float16) and precision.needs_loss_scaling("fp16")
    assert not precision.needs_loss_scaling(torch.bfloat16) and not precision.needs_loss_scaling("bf16")
    assert not precision.needs_loss_scaling(torch.float32)


@pytest.mark.parametrize("name", precision.NAMES)
def test_a_deepspeed_block_reads_back_as_its_name(name):
    assert precision.from_ds_config({"train_batch_size": 8, **precision.ds_block(name)}) == name


def test_a_disabled_block_is_not_that_precision():
    assert precision.from_ds_config({"fp16": {"enabled": False}}) == "fp32"
    assert precision.from_ds_config({"bfloat16": {"enabled": True}}) == "bf16"
    with pytest.raises(ValueError, match="cannot both be enabled"):
        precision.from_ds_config({"fp16": {"enabled": True}, "bf16": {"enabled": True}})
