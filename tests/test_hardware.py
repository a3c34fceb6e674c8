"""mishran.hardware: the AMP dtype decision for GPUs we do not have, and the report on this machine."""
from types import SimpleNamespace

import pytest
import torch

from mishran import hardware, precision
from mishran import older_gpu_guard as simulation
from mishran.hardware import capability_features
from mishran.precision import for_device

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
    assert precision.dtype_of(for_device(capability=cap)) == dtype


def test_cpu_gets_bf16():
    assert for_device("cpu") == "bf16"


def test_features_by_generation():
    assert capability_features((7, 5)) == {"fp16_tensor_cores": True, "bf16": False, "tf32": False, "fp8": False,
                                           "sparsity_2_4": False}
    assert capability_features((8, 0))["tf32"] and not capability_features((8, 0))["fp8"]
    assert capability_features((9, 0))["fp8"] and capability_features((8, 9))["fp8"]


def test_bad_capability_is_a_clear_error():
    with pytest.raises(ValueError, match="compute capability"):
        for_device(capability="sm75")
    with pytest.raises(ValueError, match="unknown device"):
        for_device("tpu")


def test_report_on_cpu():
    r = hardware.device_report("cpu")
    assert r.device == "cpu" and for_device(r.device) == "bf16"
    assert r.torch_version == torch.__version__
    text = str(r)
    assert "BF16" in text and "deepspeed" in text and "dtype" not in text   # the choice is precision's


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
    assert for_device(r.device) == "fp16"
    assert r.bf16_reported_by_torch and not r.bf16 and r.fp16_tensor_cores
    assert any("is_bf16_supported" in n for n in r.notes)
    assert "sm_75" in str(r) and "FP16 tensor core: আছে" in str(r)


def test_no_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        hardware.device_report("cuda")


# ---- MISHRAN_SIMULATE_CC: the course's decisions as on another GPU (a T4 checked on an H200) ----
# The oracle is the published capability table (NVIDIA CUDA programming guide, compute capabilities):
# FP16 tensor cores from Volta sm_70, BF16/TF32/2:4 sparse tensor cores from Ampere sm_80, FP8 from Ada sm_89.
SIMULATED = {  # switch value: (amp dtype on "cuda", needs loss scaling, bf16, tf32, fp8, 2:4 sparsity, DeepSpeed)
    "7.0": (torch.float16, True, False, False, False, False, "fp16"),
    "7.5": (torch.float16, True, False, False, False, False, "fp16"),
    "8.0": (torch.bfloat16, False, True, True, False, True, "bf16"),
    "9.0": (torch.bfloat16, False, True, True, True, True, "bf16"),
}


def _fake_cuda(monkeypatch, cap=(9, 0), name="NVIDIA H200"):
    cuda = torch.cuda
    monkeypatch.setattr(cuda, "is_available", lambda: True)
    monkeypatch.setattr(cuda, "get_device_capability", lambda *a: cap)
    monkeypatch.setattr(cuda, "is_bf16_supported", lambda *a, **k: True)
    monkeypatch.setattr(cuda, "get_device_name", lambda *a: name)
    monkeypatch.setattr(cuda, "device_count", lambda: 2)
    monkeypatch.setattr(cuda, "get_device_properties", lambda *a: SimpleNamespace(total_memory=141 * 2 ** 30))


@pytest.mark.parametrize("value", SIMULATED)
def test_decisions_follow_the_simulated_capability_without_a_gpu(monkeypatch, value):
    from mishran.engines import deepspeed_config as ds
    monkeypatch.setenv(hardware.SIMULATE_ENV, value)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)     # this CPU: decisions only
    dtype, scaling, bf16, tf32, fp8, sparse, ds_precision = SIMULATED[value]
    major, minor = (int(v) for v in value.split("."))
    assert hardware.simulated_capability() == hardware.gpu_capability() == (major, minor)
    assert precision.dtype_of(for_device("cuda")) == dtype and precision.needs_loss_scaling(dtype) is scaling
    got = {f: hardware.supports(f, "cuda") for f in ("fp16_tensor_cores", "bf16", "tf32", "fp8", "sparsity_2_4")}
    assert got == {"fp16_tensor_cores": True, "bf16": bf16, "tf32": tf32, "fp8": fp8, "sparsity_2_4": sparse}
    assert precision.for_device("cuda") == ds_precision
    cfg = ds.config_for_device(micro_batch=4, device="cuda")
    assert cfg.get("fp16", {}).get("enabled", False) is (ds_precision == "fp16")
    assert cfg.get("bf16", {}).get("enabled", False) is (ds_precision == "bf16")
    if ds_precision == "fp16":                  # dynamic loss scaling: DeepSpeed's "loss_scale": 0
        assert cfg["fp16"].get("loss_scale", 0) == 0
    # the CPU path itself is unchanged by the switch: a CPU learner still gets BF16 autocast
    assert for_device("cpu") == "bf16" and not hardware.supports("tf32", "cpu")
    assert "CPU-র পথই" in str(hardware.device_report("cpu"))


def test_unset_switch_means_the_real_gpu(monkeypatch):
    monkeypatch.delenv(hardware.SIMULATE_ENV, raising=False)
    _fake_cuda(monkeypatch, cap=(7, 5), name="Tesla T4")
    assert hardware.simulated_capability() is None and hardware.gpu_capability() == (7, 5)
    assert for_device() == "fp16" and not hardware.supports("bf16")
    r = hardware.device_report()
    assert not r.simulated and r.real_capability is None and "অনুকরণ" not in str(r)
    assert hardware.device_name() == "Tesla T4"


def test_unset_switch_without_gpu_is_the_cpu_path(monkeypatch):
    monkeypatch.delenv(hardware.SIMULATE_ENV, raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert hardware.gpu_capability() is None and for_device() == "bf16"
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        hardware.supports("bf16", "cuda")


def test_simulated_t4_on_an_h200_reports_plainly_that_it_is_simulated(monkeypatch):
    monkeypatch.setenv(hardware.SIMULATE_ENV, "7.5")
    _fake_cuda(monkeypatch)
    r = hardware.device_report()
    assert r.capability == (7, 5) and r.real_capability == (9, 0) and r.simulated
    assert for_device(r.device) == "fp16"
    assert not (r.bf16 or r.tf32 or r.fp8 or r.sparsity_2_4) and r.fp16_tensor_cores
    text = str(r)
    assert "sm_75" in text and "simulated" in text and "sm_90" in text and for_device() == "fp16"
    assert "simulated" in hardware.device_name() and "H200" in hardware.device_name()


def test_no_tf32_under_a_simulated_t4(monkeypatch):
    before = torch.get_float32_matmul_precision()
    try:
        monkeypatch.setenv(hardware.SIMULATE_ENV, "7.5")
        _fake_cuda(monkeypatch)
        assert hardware.use_tf32(True) is False and torch.get_float32_matmul_precision() == "highest"
        monkeypatch.setenv(hardware.SIMULATE_ENV, "8.0")
        assert hardware.use_tf32(True) is True and torch.get_float32_matmul_precision() == "high"
        assert hardware.use_tf32(False) is False and torch.get_float32_matmul_precision() == "highest"
    finally:
        torch.set_float32_matmul_precision(before)


def test_cannot_simulate_a_newer_gpu_than_the_real_one(monkeypatch):
    monkeypatch.setenv(hardware.SIMULATE_ENV, "9.0")
    _fake_cuda(monkeypatch, cap=(7, 5), name="Tesla T4")
    with pytest.raises(ValueError, match="older GPU"):
        hardware.gpu_capability()


@pytest.mark.parametrize("bad", ["seven", "7", "7.5.1", "sm75x"])
def test_bad_switch_value_is_a_clear_error(monkeypatch, bad):
    monkeypatch.setenv(hardware.SIMULATE_ENV, bad)
    with pytest.raises(ValueError, match=hardware.SIMULATE_ENV):
        hardware.simulated_capability()


def test_sm_spelling_is_accepted(monkeypatch):
    monkeypatch.setenv(hardware.SIMULATE_ENV, "sm_75")
    assert hardware.simulated_capability() == (7, 5)


def test_unknown_feature_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown feature"):
        hardware.supports("fp4", "cpu")


def test_guard_records_what_a_t4_could_not_run(monkeypatch, tmp_path):
    log = tmp_path / "violations.txt"
    monkeypatch.setenv(hardware.SIMULATE_ENV, "7.5")
    before = torch.get_float32_matmul_precision()
    undo = simulation.guard_simulation(log)
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")                                   # "CUDA is not available" on CPU
            with torch.autocast("cuda", dtype=torch.float16):                 # FP16 is a T4's own path: allowed
                pass
            assert not log.exists()
            with torch.autocast("cuda", dtype=torch.bfloat16):                # BF16 autocast on CUDA: recorded
                pass
        with torch.autocast("cpu", dtype=torch.bfloat16):                     # the CPU path is not a T4's business
            pass
        torch.set_float32_matmul_precision("high")                            # TF32: recorded
        lines = log.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2 and "BF16 autocast" in lines[0] and "TF32" in lines[1]
        assert all("sm_75" in ln and "test_hardware.py" in ln for ln in lines)
    finally:
        undo()
        torch.set_float32_matmul_precision(before)
    assert torch.amp.autocast.__init__.__name__ == "__init__"                  # undone
    assert torch.set_float32_matmul_precision.__name__ == "set_float32_matmul_precision"
    assert torch._scaled_mm.__name__ == "_scaled_mm"


def test_guard_is_off_without_the_switch_and_strict_raises(monkeypatch):
    monkeypatch.delenv(hardware.SIMULATE_ENV, raising=False)
    assert simulation.guard_simulation() is None
    monkeypatch.setenv(hardware.SIMULATE_ENV, "7.0")
    undo = simulation.guard_simulation(strict=True)
    try:
        with pytest.raises(RuntimeError, match="TF32"):
            torch.set_float32_matmul_precision("medium")
    finally:
        undo()


def test_guard_records_fp8_matmul_below_sm89(monkeypatch, tmp_path):
    """torch._scaled_mm is the FP8 path: an sm_80 (A100) simulation records it, an sm_90 one does not."""
    log = tmp_path / "violations.txt"
    calls = []

    def stand_in(*args):
        calls.append(args)
        return "ran"

    monkeypatch.setattr(torch, "_scaled_mm", stand_in)
    for cc, recorded in (("9.0", 0), ("8.0", 1)):
        monkeypatch.setenv(hardware.SIMULATE_ENV, cc)
        undo = simulation.guard_simulation(log)
        try:
            assert torch._scaled_mm(1, 2) == "ran"                  # the call itself still goes through
        finally:
            undo()
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        assert len(lines) == recorded
    assert "FP8 matmul" in lines[0] and "sm_80" in lines[0] and "test_hardware.py" in lines[0]
    assert len(calls) == 2 and torch._scaled_mm is stand_in        # undone: the stand-in is back


def test_hardware_does_not_import_the_guard():
    """The module learners ask about their GPU has no testing harness in it: imports go simulation -> hardware."""
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(hardware))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any("simulation" in name for name in imported)
    assert not hasattr(hardware, "guard_simulation") and "guard_simulation" not in hardware.__all__
