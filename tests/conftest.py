"""Shared test hygiene: no test module leaves a process group, a DeepSpeed engine or launcher variables behind.

Modules that start DeepSpeed (test_ds, test_memory, test_capstone, ...) would otherwise leave a gloo process group
running, and a later module's own one-process group could not start (test_train's DDP test then skipped itself).

Under pytest-xdist (`make unit` runs two test files at a time on CI's 2 cores) every worker, and every process it
starts, keeps to one torch thread, as the lessons do on a 2-core CPU: with two workers already on the two cores,
a second thread only waits for a core (the capstone's resume test, on a busy 2-core machine: 41 s of CPU with
two threads, 26 s with one, for the same work). OMP_NUM_THREADS given from outside is kept, and the browser
tests' workers (MISHRAN_BROWSER=1) run no torch: their JupyterLab kernels see what a learner's do.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]

if os.environ.get("PYTEST_XDIST_WORKER") and "OMP_NUM_THREADS" not in os.environ and \
        os.environ.get("MISHRAN_BROWSER") != "1":
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)


@pytest.fixture(scope="module", autouse=True)
def _restore_process_state_after_each_module():
    saved = dict(os.environ)
    had_group = torch.distributed.is_available() and torch.distributed.is_initialized()
    yield
    ds = sys.modules.get("mishran.engines.deepspeed_engine")                 # only if a test of this module used it
    if ds is not None:
        ds.release()
    if not had_group and torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    for key in set(os.environ) - set(saved):
        del os.environ[key]
    os.environ.update(saved)


@pytest.fixture(scope="session")
def launch_module():
    """`python -m MODULE ARGS --out OUT` (ranks=1) or the same under torchrun with `ranks` processes, as a learner
    starts it from a shell; returns the JSON rank 0 wrote to OUT.

    src/ comes first on PYTHONPATH (a GPU machine's package folder stays after it); the test process's launcher
    variables are not passed on; each process keeps to one thread, as on a 2-core machine; gloo talks over loopback;
    torchrun's --standalone picks a free rendezvous port itself. extra_env: more variables for the run; cwd: where.
    """
    def launch(module: str, args, out: Path, ranks: int = 1, timeout: int = 240, extra_env=None,
               cwd=None) -> dict:
        pythonpath = os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": pythonpath, "OMP_NUM_THREADS": "1", **(extra_env or {})}
        if sys.platform.startswith("linux"):
            env.setdefault("GLOO_SOCKET_IFNAME", "lo")
        for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
            env.pop(k, None)
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", str(ranks)] \
            if ranks > 1 else [sys.executable]
        proc = subprocess.run([*launcher, "-m", module, *map(str, args), "--out", str(out)],
                              capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
        return json.loads(Path(out).read_text(encoding="utf-8"))

    return launch
