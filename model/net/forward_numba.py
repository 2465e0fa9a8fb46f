"""The network's forward pass for small batches as one numba kernel, and the bear-off test of a batch.

model/net/inference.py's numpy forward pass costs a dozen array operations of a few microseconds each
whatever the batch, and a matrix product at one row uses the matrix kernels badly: 46 us for one
position, of which the products 12. Here one kernel runs the whole pass, a row at a time: the first
layer adds up the weight rows of the non-zero inputs only (about 55 of the 253 backgammon inputs are
non-zero), each hidden layer the rows of its positive activations only (after the ReLU), then the
sigmoids and the chained heads (model/net/equity.py's ``chain_heads``), in float64 as there.

The sums run in another order than the matrix library's (one input after another, no fused
multiply-add), so the probabilities agree with the numpy path to float32 rounding, not bit for bit:
tests/net/test_forward_numba.py bounds the difference at 1e-5 on thousands of positions of both games
(it is a few 1e-7 in practice). inference.py uses this kernel for batches up to its ``SMALL_BATCH`` rows,
where it is faster; larger batches go through the matrix library.

Nothing imports this module but the lazy loaders of inference.py (the forward pass: only in a
process on numba from its first call, since it is not bit for bit; engine/compiled.py) and of
bearoff.py (the bear-off test, bit for bit). Kernels are compiled on first use and kept in numba's
disk cache (``cache=True``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

BLOCK = 8
"""Rows run through each layer together: each weight row is read once for all of them (from the
cache, where one row at a time read the whole matrix per row): 2.4 against 3.9 us a row at 8 to 30."""


@njit(cache=True)
def _layer(a, rows, width, w, b, h, out_width):
    """h[:rows, :out_width] = b + a[:rows, :width] @ w, adding the weight rows of non-zero inputs only."""
    for r in range(rows):
        for j in range(out_width):
            h[r, j] = b[j]
    for i in range(width):
        weights = w[i]
        for r in range(rows):
            v = a[r, i]
            if v != 0.0:
                for j in range(out_width):
                    h[r, j] += v * weights[j]


@njit(cache=True)
def forward_kernel(x, weights, biases, head_w, head_b, backgammon, out):
    """Outcome probabilities ``out`` (B, K) float64 of inputs ``x`` (B, I) float32 through the hidden
    layers ``weights``/``biases`` (tuples of (in, out) float32 matrices and vectors), ReLU after each,
    and the head (``head_w`` (H, K), ``head_b``); ``backgammon``: 5 chained heads, else long nardi's 3.
    Rows go through in blocks of BLOCK."""
    widest = x.shape[1]
    for w in weights:
        widest = max(widest, w.shape[1])
    a = np.empty((BLOCK, widest), dtype=np.float32)  # whole arrays, not views: the loops vectorise
    h = np.empty((BLOCK, widest), dtype=np.float32)
    k = head_w.shape[1]
    z = np.empty((BLOCK, k), dtype=np.float32)
    s = np.empty(k, dtype=np.float64)
    for start in range(0, x.shape[0], BLOCK):
        rows = min(BLOCK, x.shape[0] - start)
        width = x.shape[1]
        for r in range(rows):
            for i in range(width):
                a[r, i] = x[start + r, i]
        for layer in range(len(weights)):
            w = weights[layer]
            out_width = w.shape[1]
            _layer(a, rows, width, w, biases[layer], h, out_width)
            for r in range(rows):
                for j in range(out_width):
                    a[r, j] = h[r, j] if h[r, j] > 0.0 else np.float32(0.0)
            width = out_width
        _layer(a, rows, width, head_w, head_b, z, k)
        for r in range(rows):
            for j in range(k):
                s[j] = 0.5 * (1.0 + np.tanh(0.5 * np.float64(z[r, j])))
            win = s[0]
            o = out[start + r]
            o[0] = win
            if backgammon:
                wg = win * s[1]
                lg = (1 - win) * s[3]
                o[1] = wg
                o[2] = wg * s[2]
                o[3] = lg
                o[4] = lg * s[4]
            else:
                o[1] = win * s[1]
                o[2] = (1 - win) * s[2]


@njit(cache=True)
def bearoff_mask_kernel(positions, backgammon, out):
    """model/net/bearoff.py's ``bearoff_mask`` of positions (B, 28) int8 into ``out`` (B,) bool."""
    for r in range(positions.shape[0]):
        p = positions[r]
        ok = p[24] == 0 and p[25] == 0
        mine = 0
        theirs = 0
        for i in range(24):
            v = np.int64(p[i])
            if v > 0:
                mine += v
                if i >= 6:
                    ok = False
            elif v < 0:
                theirs -= v
                if backgammon:
                    if i < 18:
                        ok = False
                elif i < 12 or i >= 18:
                    ok = False
        out[r] = ok and mine <= 15 and theirs <= 15


def forward(net, x: np.ndarray) -> np.ndarray:
    """(B, K) float64 probabilities of a model.net.inference ``NumpyNet`` on encoded inputs ``x``."""
    out = np.empty((len(x), net.config.outputs))
    forward_kernel(np.ascontiguousarray(x, dtype=np.float32), net.kernel_weights[0], net.kernel_weights[1],
                   net.head[0], net.head[1], net.config.game == "backgammon", out)
    return out


def bearoff_mask(game: str, positions: np.ndarray) -> np.ndarray:
    out = np.empty(len(positions), dtype=np.bool_)
    bearoff_mask_kernel(np.ascontiguousarray(positions, dtype=np.int8), game == "backgammon", out)
    return out
