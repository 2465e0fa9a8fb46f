"""Inference without torch: the network's forward pass in numpy.

Importing torch costs over a second; a hint or a served move should not wait for it. The weights come
from a checkpoint read by model/net/checkpoint.py (a .safetensors file is read by numpy alone).

``NumpyNet`` computes exactly what ``model.net.network.OutcomeNet`` computes (Linear + ReLU layers, then the
chained sigmoid heads), in float32, from the same weights.
"""

from __future__ import annotations

import numpy as np

from model.net.config import NetConfig
from model.net.equity import chain_heads
from model.net.features import encode


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # stable for large |z|


class NumpyNet:
    """The OutcomeNet forward pass in numpy; same ``config`` and ``probabilities`` interface."""

    def __init__(self, config: NetConfig, weights: dict):
        self.config = config
        self.layers = []
        for i in range(len(config.hidden)):
            w, b = weights[f"body.{2 * i}.weight"], weights[f"body.{2 * i}.bias"]
            self.layers.append((np.ascontiguousarray(w.T, dtype=np.float32), b.astype(np.float32)))
        self.head = (np.ascontiguousarray(weights["head.weight"].T, dtype=np.float32),
                     weights["head.bias"].astype(np.float32))
        width = config.inputs
        for (w, b), h in zip(self.layers + [self.head], list(config.hidden) + [config.outputs]):
            if w.shape != (width, h) or b.shape != (h,):
                raise ValueError(f"weight shape {w.shape} does not fit the layer {width} -> {h}")
            width = h

    def eval(self):
        return self

    def probabilities(self, positions: np.ndarray, device=None) -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        x = encode(self.config.game, positions, self.config.feature_version)
        for w, b in self.layers:
            x = np.maximum(x @ w + b, 0.0)
        s = _sigmoid((x @ self.head[0] + self.head[1]).astype(np.float64))
        return chain_heads(self.config.game, s, lambda cols: np.stack(cols, axis=1))
