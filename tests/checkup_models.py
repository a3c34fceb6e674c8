"""Small models whose check-up results are known by construction, shared by tests/test_checkup.py and
tests/test_lab_checkup.py (a helper module, not a test file)."""
import torch
from torch import nn


class TinyGradient(nn.Module):
    """`tiny` gets gradients of 1e-9·c (c in [0.5, 2]): all of them round to zero in FP16 at loss scale 1."""

    def __init__(self):
        super().__init__()
        self.main = nn.Linear(4, 4)
        self.tiny = nn.Parameter(torch.ones(64))
        self.register_buffer("c", torch.linspace(0.5, 2.0, 64))

    def forward(self, x):
        return self.main(x).pow(2).mean() + 1e-9 * (self.tiny * self.c).sum()
