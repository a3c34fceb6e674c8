"""mishran.timer: the course's one clock. Oracles: a counter of the calls, and time.sleep (a step that sleeps s
seconds takes at least s)."""
import time

import pytest
import torch

from mishran.timer import mark, seconds_between, sync, time_steps


def test_time_steps_calls_warmup_plus_steps_times_and_times_only_the_steps():
    calls = []
    seconds = time_steps(lambda: calls.append(1), steps=4, device="cpu", warmup=3)
    assert len(calls) == 3 + 4
    assert len(seconds) == 4 and all(s > 0 for s in seconds)


def test_time_steps_sees_a_sleeping_step():
    seconds = time_steps(lambda: time.sleep(0.01), steps=2, device="cpu")
    assert all(s >= 0.01 for s in seconds)


def test_seconds_between_two_marks_on_the_cpu():
    start = mark("cpu")
    assert seconds_between(start, mark("cpu")) >= 0
    start = mark("cpu")
    time.sleep(0.01)
    assert seconds_between(start, mark("cpu")) >= 0.01


def test_sync_on_the_cpu_does_nothing(monkeypatch):
    def no(*args, **kwargs):
        raise AssertionError("sync('cpu') must not touch CUDA")

    monkeypatch.setattr(torch.cuda, "synchronize", no)
    assert sync("cpu") is None
    assert sync(torch.device("cpu")) is None


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_gpu_marks_are_events_and_time_the_gpus_work():
    x = torch.randn(2048, 2048, device="cuda")
    start = mark("cuda")
    for _ in range(10):
        x = x @ x / 2048
    assert isinstance(start, torch.cuda.Event) and seconds_between(start, mark("cuda")) > 0
