"""mishran.ddp_demo: a real two-process gloo group; no_sync() saves allreduces and the weights still match."""
import json
import subprocess
import sys

import pytest

STEPS, ACCUM, MICRO = 3, 4, 8


@pytest.fixture(scope="module")
def report():
    out = subprocess.run([sys.executable, "-m", "mishran.ddp_demo", "--steps", str(STEPS), "--accum", str(ACCUM),
                          "--micro", str(MICRO)], capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_it_runs_two_gloo_processes(report):
    assert report["world_size"] == 2 and report["backend"] == "gloo"
    assert report["global_batch"] == MICRO * ACCUM * 2


def test_no_sync_allreduces_once_per_step_and_without_it_once_per_micro_step(report):
    assert report["no_sync"]["allreduce"] == STEPS                 # one bucket, one sync per optimizer step
    assert report["sync_every_micro_step"]["allreduce"] == STEPS * ACCUM
    assert report["never_sync"]["allreduce"] == 0


def test_accumulated_ddp_weights_equal_one_process_on_the_global_batch(report):
    for mode in ("no_sync", "sync_every_micro_step"):
        assert report[mode]["matches_single"] and report[mode]["ranks_agree"]
        assert report[mode]["max_abs_diff_vs_single"] < 1e-6


def test_never_syncing_lets_the_ranks_drift_apart(report):
    assert not report["never_sync"]["ranks_agree"]
    assert not report["never_sync"]["matches_single"]


def test_run_rejects_nonsense():
    from mishran.ddp_demo import run
    with pytest.raises(ValueError):
        run(steps=0)
