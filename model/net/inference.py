"""Inference without torch: the network's forward pass in numpy.

Importing torch costs over a second; a hint or a served move should not wait for it. The weights come
from a checkpoint read by model/net/checkpoint.py (a .safetensors file is read by numpy alone).

``NumpyNet`` computes what ``model.net.network.OutcomeNet`` computes (Linear + ReLU layers, then the
chained sigmoid heads), in float32, from the same weights, to float32 rounding (each library sums in
its own order). Large batches go through in blocks of ``CHUNK``
rows: the features and hidden activations of a block stay in the processor's cache, where a whole batch of
100,000 children (a rollout ply's) would page through hundreds of megabytes of freshly allocated memory,
two to three times slower.

In a process on numba from its first call (engine/compiled.py), every batch goes through
model/net/forward_numba.py's kernels instead: each row's sums on their own, only the weight rows of non-zero inputs
and positive hidden units, and for the backgammon feature-version-3 net the inputs in the same call.
CPU per row of the shipped backgammon net (2-core EPYC): one position 14 -> 5 us in all, a batch of
16,384 mid-game children 2.05 us against the matrix library's 3.8 to 4.0 (inputs included); the
long-nardi and race nets gain as much. A row's numbers do not depend on its batch there.
"""

from __future__ import annotations

import numpy as np

from engine.compiled import Kernels
from model.net.config import NetConfig
from model.net.equity import chain_heads
from model.net.features import encode

CHUNK = 4096
"""Rows per block of the forward pass (CPU time of a 146,000-child rollout ply, 2-core EPYC: 1.7 s in one
block, 0.6 to 0.8 s in blocks of 2,048 to 16,384)."""


def _import_kernels():
    """model/net/forward_numba.py, imported when engine/compiled.py's ``numba_due`` first says so."""
    from model.net import forward_numba

    return forward_numba


_kernels = Kernels(_import_kernels, exact=False)  # within float32 rounding: from a process's first call only


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # stable for large |z|


def _hidden_weights_for_kernel(weights: list[np.ndarray]) -> tuple:
    """The hidden layers' weights as the compiled forward pass reads them: as IEEE halves (uint16,
    half the bytes: 2.86 -> 2.51 us a row of the shipped net, inputs included) where every weight of
    every hidden layer is exactly a float16 value (a net exported with ``half = true``, recipe.py's
    ExportSettings), else as they are; the sums are the same either way, so are the numbers."""
    with np.errstate(over="ignore"):  # a weight beyond float16's range is simply not exact
        halves = [w.astype(np.float16) for w in weights]
    exact = all(np.array_equal(h.astype(np.float32), w) for h, w in zip(halves, weights))
    return tuple(h.view(np.uint16) for h in halves) if exact and weights else tuple(weights)


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
        self.head_t = np.ascontiguousarray(weights["head.weight"], dtype=np.float32)  # (K, H), for the kernel
        width = config.inputs
        for (w, b), h in zip(self.layers + [self.head], list(config.hidden) + [config.outputs]):
            if w.shape != (width, h) or b.shape != (h,):
                raise ValueError(f"weight shape {w.shape} does not fit the layer {width} -> {h}")
            width = h
        self.kernel_weights = (_hidden_weights_for_kernel([w for w, _ in self.layers]), tuple(b for _, b in self.layers))
        self._contact = config.game == "backgammon" and config.feature_version == 3  # a fused kernel

    def scored_by_kernel(self, positions: np.ndarray, children: bool = False, skip_bearoff: bool = False,
                         parents=None) -> tuple[np.ndarray, np.ndarray | None] | None:
        """For model/net/evaluator.py: where one compiled call encodes and scores the batch (no inputs
        are kept, so no blocks), (probabilities (B, K), the rows it left to the caller (B,) bool or None
        when it left none); None where it does not run (the caller scores the usual way).
        ``children``: positions just played, scored for the side that played them as
        ``child_probabilities`` does (finished games left); ``skip_bearoff``: bear-off positions left;
        ``parents``: (positions (P, 28), index (B,)) the children were played from, which the kernel's
        first layer starts from (model/net/forward_numba.py)."""
        if not self._contact or not self.layers or len(positions) == 0:
            return None
        kernels = _kernels()
        if kernels is None:
            return None
        out, left, count = kernels.contact_forward(self, positions, children, skip_bearoff, parents)
        return out, (left if count else None)

    def eval(self):
        return self

    def probabilities(self, positions: np.ndarray, device=None) -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        n = len(positions)
        if n <= CHUNK:
            return self._block(positions)
        out = np.empty((n, self.config.outputs))
        for start in range(0, n, CHUNK):
            out[start : start + CHUNK] = self._block(positions[start : start + CHUNK])
        return out

    def _block(self, positions: np.ndarray) -> np.ndarray:
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        kernels = _kernels() if self.layers else None
        if kernels is not None and self._contact:  # inputs and forward pass in one compiled call
            return kernels.contact_forward(self, positions, False, False)[0]
        x = encode(self.config.game, positions, self.config.feature_version)
        if kernels is not None:  # one compiled pass (float32 rounding apart, the same numbers)
            return kernels.forward(self, x)
        for w, b in self.layers:
            x = x @ w
            x += b
            np.maximum(x, 0.0, out=x)
        s = _sigmoid((x @ self.head[0] + self.head[1]).astype(np.float64))
        return chain_heads(self.config.game, s, lambda cols: np.stack(cols, axis=1))
