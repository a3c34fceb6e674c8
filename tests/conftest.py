"""Shared test hygiene: no test module leaves a process group, a DeepSpeed engine or launcher variables behind.

Modules that start DeepSpeed (test_ds, test_memory, test_capstone, ...) would otherwise leave a gloo process group
running, and a later module's own one-process group could not start (test_train's DDP test then skipped itself).

Under pytest-xdist (`make unit` runs two test files at a time on CI's 2 cores) every worker, and every process it
starts, keeps to one torch thread, as the lessons do on a 2-core CPU: with two workers already on the two cores,
a second thread only waits for a core (the capstone's resume test, on a busy 2-core machine: 41 s of CPU with
two threads, 26 s with one, for the same work). OMP_NUM_THREADS given from outside is kept, and the browser
tests' workers (MISHRAN_BROWSER=1) run no torch: their JupyterLab kernels see what a learner's do.
"""
import os
import sys

import pytest
import torch

if os.environ.get("PYTEST_XDIST_WORKER") and "OMP_NUM_THREADS" not in os.environ and \
        os.environ.get("MISHRAN_BROWSER") != "1":
    os.environ["OMP_NUM_THREADS"] = "1"
    torch.set_num_threads(1)


@pytest.fixture(scope="module", autouse=True)
def _restore_process_state_after_each_module():
    saved = dict(os.environ)
    had_group = torch.distributed.is_available() and torch.distributed.is_initialized()
    yield
    ds = sys.modules.get("mishran.ds")                 # only if a test of this module used it
    if ds is not None:
        ds.release()
    if not had_group and torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    for key in set(os.environ) - set(saved):
        del os.environ[key]
    os.environ.update(saved)
