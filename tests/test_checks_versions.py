"""mishran.checks and mishran.versions: the checks of a learner's arguments, reading versions;
gloo_workers' free port."""
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from packaging.requirements import Requirement

from mishran import checks, versions
from mishran.engines import gloo_workers


def test_versions_compare_by_release_with_local_and_pre_release_parts():
    assert versions.version_at_least("2.11.0+cu130", "2.11") and versions.version_at_least("3.11.0rc1", "3.11")
    assert (not versions.version_at_least("3.10.9", "3.11")
            and versions.version_at_least("3.100", "3.11"))   # not text order
    with pytest.raises(ValueError):                              # packaging's InvalidVersion is a ValueError
        versions.version_at_least("latest", "1.0")


def test_free_port_is_free_to_bind():
    port = gloo_workers.free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", port))


@pytest.mark.parametrize("bad", [0, -3, True, 2.0, "4", 2 ** 63])
def test_positive_int_refuses_in_bengali_and_english(bad):
    with pytest.raises(ValueError, match="steps") as err:
        checks.positive_int(bad, "steps")
    assert any("\u0980" <= ch <= "\u09ff" for ch in str(err.value))


def test_util_imports_nothing_heavy():
    code = ("import sys, mishran.checks, mishran.versions; "
            "bad = [m for m in ('torch', 'deepspeed', 'matplotlib') if m in sys.modules]; "
            "sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_course_requirements_from_metadata_and_from_a_plain_checkout(monkeypatch):
    """Lesson 00's package check: core needs now, the lab extra later; the same list when mishran is not installed
    (a checkout on PYTHONPATH, as on the GPU machine), read from pyproject.toml."""
    import importlib.metadata

    import tomllib
    project = tomllib.loads((Path(versions.__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    version, found = versions.course_requirements()
    names_now = {r.name for r, now in found if now}
    names_later = {r.name for r, now in found if not now}
    assert version == project["version"]
    assert names_now == {Requirement(t).name for t in project["dependencies"]}
    assert names_later == {Requirement(t).name for t in project["optional-dependencies"]["lab"]}
    assert all(r.marker is None for r, _ in found)

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    version2, found2 = versions.course_requirements()
    assert version2 == version
    assert sorted((str(r), now) for r, now in found2) == sorted((str(r), now) for r, now in found)


def test_as_device_reads_names_like_precision_and_checks_that_cuda_exists(monkeypatch):
    assert (checks.as_device("cpu") == torch.device("cpu")
            and checks.as_device(torch.device("cpu")) == torch.device("cpu"))
    with pytest.raises(ValueError, match="unknown device"):
        checks.as_device("gpu")                                  # the same refusal as checks.device_type
    with pytest.raises(ValueError, match="unknown device"):
        checks.device_type("gpu")
    with pytest.raises(TypeError, match="where must be a device name"):
        checks.as_device(0, name="where")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="CUDA is not available"):
        checks.as_device("cuda:1")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert checks.as_device("cuda:1") == torch.device("cuda", 1)      # parsed, not created: no GPU is touched


def test_unique_tensor_bytes_counts_shared_memory_once():
    import torch

    from mishran.engines.model_states import unique_tensor_bytes

    flat = torch.zeros(10)                                   # 40 bytes
    other = torch.zeros(3, dtype=torch.bfloat16)             # 6 bytes
    # the same tensor twice, two overlapping views into it (elements 0..5), None and an empty tensor: 40 + 6
    assert unique_tensor_bytes([flat, flat, flat[:4], flat[2:6], other, None, torch.zeros(0)]) == 46
    assert unique_tensor_bytes([flat[:4], flat[2:6]]) == 6 * 4     # only the views: elements 0..5
    assert unique_tensor_bytes([]) == 0


def test_optimizer_state_tensors_are_adams_moments_without_its_step_count():
    import torch

    from mishran.engines.model_states import optimizer_state_tensors
    layer = torch.nn.Linear(3, 2)
    opt = torch.optim.AdamW(layer.parameters())
    assert optimizer_state_tensors(opt) == []                      # no state before the first step
    layer(torch.ones(1, 3)).sum().backward()
    opt.step()
    got = optimizer_state_tensors(opt)
    # exp_avg and exp_avg_sq for the weight and the bias; the 0-dim `step` counters are left out
    assert sorted(tuple(t.shape) for t in got) == [(2,), (2,), (2, 3), (2, 3)]


def test_every_requirement_read_from_pyproject_parses_with_its_extra():
    """The GPU machine runs the course uninstalled, so versions reads pyproject.toml itself: a requirement with its own
    marker (DeepSpeed is left out on Windows) must join the extra's marker with `and`, as pip's metadata does."""
    _, texts = versions._requirements_from_pyproject()
    parsed = [Requirement(t) for t in texts]                                 # a second ';' raised here before
    windows = [r for r in parsed if r.name == "deepspeed" and "Windows" in str(r.marker)]
    assert windows and not windows[0].marker.evaluate({"extra": "lab", "platform_system": "Windows"})
    assert windows[0].marker.evaluate({"extra": "lab", "platform_system": "Linux"})
    assert not windows[0].marker.evaluate({"extra": "test", "platform_system": "Linux"})
