"""The long-nardi network inputs as numba kernels, one position at a time: the same numbers, bit for bit.

model/net/nardi_inputs.py is the reference (its docstring says what each input means); its numpy code
runs some hundred array operations whatever the batch size, so one position costs about 120 us
there. Here each feature is computed from the same whole numbers and its last operation is the same
one on the same types as there: a division in float32 where the numpy code divides a float32 array
by a Python number (numpy's rules keep float32 then), in float64 and then rounded to float32 where it
divides integers or float64 sums. tests/net/test_nardi_numba.py compares the bits on thousands of
positions of every kind and their flips.

Nothing imports this module but the lazy loader of nardi_inputs.py (engine/compiled.py says when).
The tables are nardi_inputs.py's (``nardi_inputs.KERNEL_TABLES``), so there is one definition of each.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from model.net.encode_numba import _highest_bit  # the backgammon kernels' own, one definition

AHEAD_MASK = (1 << 12) - 1
ALL_POINTS = (1 << 24) - 1


@njit(cache=True)
def _lowest_bit(mask):
    """Index of the lowest set bit of a positive mask; 24 for 0 (no such point)."""
    if mask == 0:
        return 24
    bit = 0
    while not (mask >> bit) & 1:
        bit += 1
    return bit


@njit(cache=True)
def _longest_run(mask):
    best = 0
    while mask:
        best += 1
        mask &= mask << 1
    return best


@njit(cache=True)
def _half(own, other, off, row, col, tables):
    """Write one side's features (nardi_inputs.half_features) into ``row`` from column ``col``: the side
    has ``own`` (24,) checkers facing ``other`` (24,), both in its own numbering, and ``off`` borne
    off. Returns its pips / 200 (float32, as the feature) and whether its rearmost checker still
    meets an opponent checker."""
    escapes, moves, place, popcount6 = tables
    held_bits = 0
    along = 0
    held_count = 0
    home_held = 0
    closed_bits = 0
    reversed_closed = 0
    theirs_along = 0
    pip = 0
    home_pips = 0
    outside = 0
    unpassed = 0
    in_their_home = 0
    for i in range(24):
        n = own[i]
        point = i + 1
        if n > 0:
            held_bits |= 1 << i
            along |= 1 << place[i]
            held_count += 1
            if point <= 6:
                home_held += 1
        if other[i] > 0:
            closed_bits |= 1 << i
            reversed_closed |= 1 << (23 - i)
            theirs_along |= 1 << place[i]
        pip += n * point
        home_pips += n * max(point - 6, 0)
        if point >= 7:
            outside += n
        if point >= 13:
            unpassed += n
        if 13 <= point <= 18:
            in_their_home += n
    head = own[23]
    f15, f200 = np.float32(15.0), np.float32(200.0)
    row[col + 0] = off / 15.0
    row[col + 1] = 1.0 if off > 0 else 0.0
    row[col + 2] = 1.0 if outside == 0 else 0.0
    row[col + 3] = np.float32(head) / f15
    row[col + 4] = 1.0 if head > 0 else 0.0
    pips = np.float32(pip) / f200
    row[col + 5] = pips
    row[col + 6] = np.float32(home_pips) / f200
    row[col + 7] = np.float32(outside) / f15
    row[col + 8] = np.float32(unpassed) / f15
    row[col + 9] = np.float32(in_their_home) / f15
    row[col + 10] = held_count / 15.0
    row[col + 11] = home_held / 6.0
    block = _longest_run(along)
    row[col + 12] = block / 6.0
    row[col + 13] = 1.0 if block >= 6 else 0.0
    rear = _lowest_bit(theirs_along)
    row[col + 14] = popcount6[(along >> (rear + 1)) & 63] / 6.0

    back = max(_highest_bit(held_bits), 0)
    if held_bits > 0:
        mask = (reversed_closed >> (24 - back)) & AHEAD_MASK
        row[col + 15] = (back + 1) / 24.0
        row[col + 16] = escapes[mask] / 36.0
        row[col + 17] = moves[mask] / 36.0
    else:
        row[col + 15] = 0 / 24.0
        row[col + 16] = 36 / 36.0
        row[col + 17] = 36 / 36.0
    escaping = 0.0  # a float64 sum of whole numbers (exact), as numpy's
    stuck = 0
    for s in range(6, 24):
        mask = (reversed_closed >> (24 - s)) & AHEAD_MASK
        escaping += np.float64(own[s]) * escapes[mask]
        if moves[mask] == 0:
            stuck += own[s]
    row[col + 18] = (np.float64(np.float32(outside)) - escaping / 36.0) / 15.0
    row[col + 19] = np.float32(stuck) / f15
    open_bits = ~closed_bits & ALL_POINTS
    playable = 0
    for d in range(1, 7):
        if (held_bits >> d) & open_bits:
            playable += 1
    row[col + 20] = playable / 6.0
    return pips, _highest_bit(held_bits) > _lowest_bit(closed_bits)


@njit(cache=True)
def _sides(position, own_m, other_m, own_o, other_o):
    """Both sides' arrays of one position (28,): the mover's, and the opponent's in its own numbering
    (its point q is the mover's q + 12). ValueError for a point with more than 15 checkers (the
    numpy code's table has no row for it)."""
    for i in range(24):
        v = np.int64(position[i])
        if v > 15 or v < -15:
            raise ValueError("a point holds more than 15 checkers")
        own_m[i] = max(v, 0)
        other_m[i] = max(-v, 0)
        w = np.int64(position[(i + 12) % 24])
        own_o[i] = max(-w, 0)
        other_o[i] = max(w, 0)


@njit(cache=True)
def _features(position, own_m, other_m, own_o, other_o, row, mover, opponent, lead, tables):
    """Both halves' features at columns ``mover`` and ``opponent``, the race lead and contact at ``lead``."""
    _sides(position, own_m, other_m, own_o, other_o)
    pips_m, meets_m = _half(own_m, other_m, np.int64(position[26]), row, mover, tables)
    pips_o, meets_o = _half(own_o, other_o, np.int64(position[27]), row, opponent, tables)
    row[lead] = (pips_m - pips_o) * np.float32(4.0)
    row[lead + 1] = 1.0 if (meets_m or meets_o) else 0.0


@njit(cache=True)
def dense_kernel(positions, counts, dense, tables):
    """nardi_inputs.dense_inputs: ``counts`` (B, 48) int8 and ``dense`` (B, 2K + 2) float32 written."""
    own_m = np.empty(24, dtype=np.int64)
    other_m = np.empty(24, dtype=np.int64)
    own_o = np.empty(24, dtype=np.int64)
    other_o = np.empty(24, dtype=np.int64)
    k = (dense.shape[1] - 2) // 2
    for b in range(positions.shape[0]):
        _features(positions[b], own_m, other_m, own_o, other_o, dense[b], 0, k, 2 * k, tables)
        for i in range(24):
            counts[b, i] = own_m[i]
            counts[b, 24 + i] = own_o[i]


@njit(cache=True)
def inputs_kernel(positions, out, units, half, tables):
    """nardi_inputs.nardi_inputs of positions (B, 28) int8 into ``out`` (B, 2 * half + 2) float32."""
    own_m = np.empty(24, dtype=np.int64)
    other_m = np.empty(24, dtype=np.int64)
    own_o = np.empty(24, dtype=np.int64)
    other_o = np.empty(24, dtype=np.int64)
    for b in range(positions.shape[0]):
        row = out[b]
        _features(positions[b], own_m, other_m, own_o, other_o, row, 96, half + 96, 2 * half, tables)
        for i in range(24):
            for u in range(4):
                row[4 * i + u] = units[own_m[i], u]
                row[half + 4 * i + u] = units[own_o[i], u]
