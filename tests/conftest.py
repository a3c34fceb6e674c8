"""Shared test hygiene: no test module leaves a process group, a DeepSpeed engine or launcher variables behind.

Modules that start DeepSpeed (test_ds, test_memory, test_capstone, ...) would otherwise leave a gloo process group
running, and a later module's own one-process group could not start (test_train's DDP test then skipped itself).
"""
import os
import sys

import pytest
import torch


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
