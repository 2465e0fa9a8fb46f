"""Variants of the compiled forward pass (model/net/forward_numba.py), timed beside it on the same rows.

    python experiments/forward_kernel/variants.py [--rows 16384]

The rows are the backgammon inputs of the children of seeded mid-game positions (the opponent on roll),
as the 0-ply batch row of scripts/bench_vs_gnubg.py scores them; the net is ``--net`` (default the
shipped one). Each variant prints its CPU microseconds a row (median of 5) and how far its
probabilities are from the first one's:

  float32    forward_numba.forward_kernel on the net's weights as float32 arrays: a row at a time,
             eight weight rows per pass (a tree of sums)
  halves     the same kernel on the hidden weights rounded to float16 values and read as halves (half
             the bytes: how the compiled pass reads a net exported with ``half = true``, as the shipped
             one now is; on such a net the two give the same numbers, on any other the rounding shows)
  grouped    four rows at once, each weight row read once for the four, the sums kept in index order
             (so that a row's numbers do not depend on the rows beside it): not built, slower
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from engine.board import flip
from engine.compiled import use_numba
from engine.movegen import legal_plays
from engine.tools.sample import random_positions
from model import Bot
from model.net import forward_numba
from model.net.features import encode

ORDERED = {"contract"}  # no reassociation: each sum in index order


@njit(fastmath=ORDERED)
def _add_rows_ordered(h, w, a, index, count, width):
    """h[:width] += a[i] * w[i] for i = index[:count], eight at a time, each sum left to right."""
    q = 0
    while q + 8 <= count:
        i0, i1, i2, i3 = index[q], index[q + 1], index[q + 2], index[q + 3]
        i4, i5, i6, i7 = index[q + 4], index[q + 5], index[q + 6], index[q + 7]
        r0, r1, r2, r3, r4, r5, r6, r7 = w[i0], w[i1], w[i2], w[i3], w[i4], w[i5], w[i6], w[i7]
        a0, a1, a2, a3, a4, a5, a6, a7 = a[i0], a[i1], a[i2], a[i3], a[i4], a[i5], a[i6], a[i7]
        for j in range(width):
            h[j] = (h[j] + a0 * r0[j] + a1 * r1[j] + a2 * r2[j] + a3 * r3[j] + a4 * r4[j] + a5 * r5[j]
                    + a6 * r6[j] + a7 * r7[j])
        q += 8
    while q < count:
        ai, r = a[index[q]], w[index[q]]
        for j in range(width):
            h[j] = h[j] + ai * r[j]
        q += 1


@njit(fastmath=ORDERED)
def forward_grouped(x, weights, biases, head_t, head_b, out):
    group = 4
    a = np.zeros((group, 512), dtype=np.float32)
    h = np.zeros((group, 512), dtype=np.float32)
    index = np.empty(512, dtype=np.int64)
    for g in range(0, x.shape[0], group):
        rows = min(group, x.shape[0] - g)
        width = x.shape[1]
        for r in range(rows):
            for i in range(width):
                a[r, i] = x[g + r, i]
        for layer in range(len(weights)):
            w, b = weights[layer], biases[layer]
            count = 0  # the inputs non-zero in any row of the group; a zero adds exactly nothing
            for i in range(width):
                nonzero = False
                for r in range(rows):
                    nonzero |= a[r, i] != 0.0
                index[count] = i
                count += nonzero
            for r in range(rows):
                for j in range(w.shape[1]):
                    h[r, j] = b[j]
                _add_rows_ordered(h[r], w, a[r], index, count, w.shape[1])  # the 8 rows stay in L1 for the next row
            width = w.shape[1]
            for r in range(rows):
                for j in range(width):
                    a[r, j] = max(h[r, j], np.float32(0.0))
        for r in range(rows):
            forward_numba.head_row(a[r], width, head_t, head_b, True, out[g + r])


def cpu_us(f, rows: int) -> float:
    times = []
    for _ in range(5):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return 1e6 * sorted(times)[2] / rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=16384)
    parser.add_argument("--net", default=None, help="a backgammon checkpoint (default: the shipped net)")
    args = parser.parse_args()
    use_numba(True)
    net = Bot.load(args.net).net
    net = getattr(net, "net", net)
    positions, dice = random_positions("backgammon", 1024, seed=3, kind="midgame")
    children, _ = legal_plays("backgammon", positions, dice)
    x = np.ascontiguousarray(encode("backgammon", flip("backgammon", children)[: args.rows], 3), dtype=np.float32)
    weights = tuple(w for w, _ in net.layers)  # float32, whatever form the kernel is handed them in
    biases = tuple(b for _, b in net.layers)
    head_t, head_b = net.head_t, net.head[1]
    halves = tuple(w.astype(np.float16).view(np.uint16) for w in weights)  # inference.py's form of them
    shipped = np.empty((len(x), 5))
    forward_numba.forward_kernel(x, weights, biases, head_t, head_b, True, shipped)
    variants = {
        "float32": lambda out: forward_numba.forward_kernel(x, weights, biases, head_t, head_b, True, out),
        "halves": lambda out: forward_numba.forward_kernel(x, halves, biases, head_t, head_b, True, out),
        "grouped": lambda out: forward_grouped(x, weights, biases, head_t, head_b, out),
    }
    print(f"{len(x):,} rows, {np.count_nonzero(x, axis=1).mean():.1f} non-zero inputs a row")
    for name, run in variants.items():
        out = np.empty((len(x), 5))
        run(out)
        diff = np.abs(out - shipped)
        print(f"{name:8s} {cpu_us(lambda run=run, out=out: run(out), len(x)):5.2f} us a row; from float32's: "
              f"max {diff.max():.1e}, mean {diff.mean():.1e}")


if __name__ == "__main__":
    main()
