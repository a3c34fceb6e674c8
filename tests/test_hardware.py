"""mishran.hardware: the AMP dtype decision for GPUs we do not have, and the report on this machine."""
from types import SimpleNamespace

import pytest
import torch

from mishran import hardware
from mishran.hardware import capability_features, recommended_amp_dtype

GPUS = {  # name: (compute capability, the dtype the course recommends)
    "Tesla T4 (Colab)": ((7, 5), torch.float16),
    "Tesla V100": ((7, 0), torch.float16),
    "A100": ((8, 0), torch.bfloat16),
    "RTX 4090": ((8, 9), torch.bfloat16),
    "H100": ((9, 0), torch.bfloat16),
    "Tesla P100": ((6, 0), torch.float32),
}


@pytest.mark.parametrize("gpu", GPUS)
def test_recommended_dtype_by_capability(gpu):
    cap, dtype = GPUS[gpu]
    assert recommended_amp_dtype(capability=cap) == dtype


def test_cpu_gets_bf16():
    assert recommended_amp_dtype("cpu") == torch.bfloat16


def test_features_by_generation():
    assert capability_features((7, 5)) == {"fp16_tensor_cores": True, "bf16": False, "tf32": False, "fp8": False}
    assert capability_features((8, 0))["tf32"] and not capability_features((8, 0))["fp8"]
    assert capability_features((9, 0))["fp8"] and capability_features((8, 9))["fp8"]


def test_fp16_needs_loss_scaling_bf16_does_not():
    assert hardware.needs_loss_scaling(torch.float16)
    assert not hardware.needs_loss_scaling(torch.bfloat16)


def test_bad_capability_is_a_clear_error():
    with pytest.raises(ValueError, match="compute capability"):
        recommended_amp_dtype(capability="sm75")
    with pytest.raises(ValueError, match="unknown device"):
        recommended_amp_dtype("tpu")


def test_report_on_cpu():
    r = hardware.device_report("cpu")
    assert r.device == "cpu" and r.recommended_dtype == torch.bfloat16 and not r.loss_scaling
    assert r.torch_version == torch.__version__
    text = str(r)
    assert "bfloat16" in text and "deepspeed" in text


def test_t4_report_does_not_trust_is_bf16_supported(monkeypatch):
    """A T4 says is_bf16_supported() is True (emulation); the report must still choose FP16."""
    cuda = torch.cuda
    monkeypatch.setattr(cuda, "is_available", lambda: True)
    monkeypatch.setattr(cuda, "get_device_capability", lambda *a: (7, 5))
    monkeypatch.setattr(cuda, "is_bf16_supported", lambda *a, **k: True)
    monkeypatch.setattr(cuda, "get_device_name", lambda *a: "Tesla T4")
    monkeypatch.setattr(cuda, "device_count", lambda: 1)
    monkeypatch.setattr(cuda, "get_device_properties", lambda *a: SimpleNamespace(total_memory=15 * 2 ** 30))
    r = hardware.device_report("cuda")
    assert r.recommended_dtype == torch.float16 and r.loss_scaling
    assert r.bf16_reported_by_torch and not r.bf16 and r.fp16_tensor_cores
    assert any("is_bf16_supported" in n for n in r.notes)
    assert "sm_75" in str(r) and "loss scaling" in str(r)


def test_no_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        hardware.device_report("cuda")
