"""ছোট MLP (পাঠ ০২ থেকে): underflow, AMP loop আর accumulation-এর পরীক্ষার মডেল।
"""
from __future__ import annotations

import itertools
import math

import torch
from torch import nn

from mishran.checks import as_seed, positive_int

__all__ = ["MLP"]


class MLP(nn.Module):
    """Linear → ReLU → … → Linear, মোট n_layers টি Linear স্তর (পাঠ ০২–০৪)।"""

    def __init__(self, d_in: int, d_hidden: int, d_out: int, n_layers: int = 2, seed: int | None = None):
        super().__init__()
        for value, name in ((d_in, "d_in"), (d_hidden, "d_hidden"), (d_out, "d_out"), (n_layers, "n_layers")):
            positive_int(value, name)
        sizes = [d_in] + [d_hidden] * (n_layers - 1) + [d_out]
        # প্রতিটি জোড়া মাপে Linear → ReLU; শেষ Linear-এর পরে ReLU নেই
        layers = [m for a, b in itertools.pairwise(sizes) for m in (nn.Linear(a, b), nn.ReLU())]
        self.net = nn.Sequential(*layers[:-1])
        g = None if as_seed(seed) is None else torch.Generator().manual_seed(seed)
        for m in self.net:
            if isinstance(m, nn.Linear):
                # He init: ReLU প্রায় অর্ধেক মান শূন্য করে, তাই std = sqrt(2 / fan_in) রাখলে মাপ স্তরে স্তরে টেকে
                nn.init.normal_(m.weight, std=math.sqrt(2 / m.in_features), generator=g)
                nn.init.zeros_(m.bias)

    def forward(self, x):  # (N, d_in) -> (N, d_out)
        """ইনপুট x (N, d_in) → আউটপুট (N, d_out)।"""
        return self.net(x)
