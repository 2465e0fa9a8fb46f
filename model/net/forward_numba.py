"""The network's forward pass as numba kernels, each row's sums on their own, and the bear-off test of a batch.

model/net/inference.py's numpy forward pass costs a dozen array operations of a few microseconds each
whatever the batch, and a matrix product at one row uses the matrix kernels badly: 46 us for one
position, of which the products 12. Here one kernel runs the whole pass, each row's sums on their own
(32 rows go through a layer before the next layer starts, ``_forward_rows``): each layer of a row
adds up the weight rows of its non-zero inputs only (about 55 of the 253 backgammon inputs; about a
quarter of the hidden units are positive after the ReLU), eight rows per pass over the sums, then the
sigmoids and the chained heads (model/net/equity.py's ``chain_heads``) in float64 as there. For the
backgammon feature-version-3 net one kernel also writes each row's inputs (model/net/encode_numba.py's,
the same functions) and tells the bear-off rows apart, so one position is one compiled call.

Children whose parents the caller names (evaluator.py's ``child_probabilities`` with ``parents``: the
hint, the look-ahead, the rollouts, the players) start their first layer from their parent's: the
parent (flipped as its children are) is encoded and summed once, and each child adds only the weight
rows of the inputs that differ from its parent's, times the difference (``_anchored_first_layer``: a
play changes some 24 of a row's 56 non-zero inputs; 2.09 -> 1.95 us a child of 1,024 mid-game
positions, inputs included; a rollout's trials about 8% faster). A child's numbers then depend on the
child and its parent, not on the rest of the batch, and agree with the rows' own sums to float32
rounding.

A net whose hidden layers' weights are all float16 values (a recipe's export with ``half = true``) has
them handed in as IEEE halves (uint16, model/net/inference.py), which ``_widen`` turns back into the
same float32 numbers as it reads them: the same sums, from half the bytes (the shipped backgammon
net: 2.86 -> 2.51 us a row, inputs included).

The sums run in another order than the matrix library's (LLVM may fuse multiply-adds and reorder a
row's sums: ``FAST``), so the probabilities agree with the numpy path to float32 rounding, not bit for
bit: tests/net/test_forward_numba.py bounds the difference at 1e-5 on thousands of positions of both
games (it is a few 1e-7 in practice). A row's numbers do not depend on the batch it comes in.
CPU per row of the shipped backgammon net, inputs included (2-core EPYC): 5 us for one position
through ExactEndgames, about 2.05 us in batches, of which the inputs 0.56 (the matrix library: 14 and 3.8
to 4.0).
``_forward_rows`` and the functions of the inputs that take a row's arrays (encode_numba.py's
``_sides``, ``_units``, ``_both_features``, ``_side_features``) are inlined into the fused kernel, so
that numba drops the reference counting of the arrays handed to them (2.60 -> 2.42 us a row, the same
numbers); inlining ``_add_rows`` or ``head_row`` lets LLVM reorder their sums otherwise and is slower.

Nothing imports this module but the lazy loaders of inference.py (the forward pass: only in a
process on numba from its first call, since it is not bit for bit; engine/compiled.py) and of
bearoff.py (the bear-off test, bit for bit). Kernels are compiled on first use and kept in numba's
disk cache (``cache=True``), which keys on this file alone: the fused kernel also on the digest of
encode_numba.py, whose functions it calls, and on the tables it holds (``_contact_forward_kernel``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from model.net import encode_numba
from model.net.contact_inputs import KERNEL_TABLES
from model.net.encode_numba import _both_features, _sides, _units  # one definition of the inputs

FAST = {"contract", "reassoc"}
"""LLVM may fuse multiply-adds and reorder the sums of a row (vectorised dot products for the head):
the same numbers for the same row every time, whatever the batch, and float32 rounding from numpy's."""


@intrinsic
def _widen(typingctx, weight):
    """A weight as float32: a float32 as it is; a uint16 as the IEEE half it holds (exact: one F16C
    conversion where the CPU has it), for the hidden layers of nets whose weights are all halves."""
    if weight == types.float32:
        return types.float32(weight), lambda context, builder, signature, args: args[0]
    if weight == types.uint16:
        def codegen(context, builder, signature, args):
            return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())
        return types.float32(weight), codegen
    return None


@njit(cache=True, fastmath=FAST)
def _add_rows(h, w, index, count, source, width):
    """h[:width] += sum over q < count of source[i] * w[i, :width], i = index[q]: eight weight rows per
    pass over ``h`` (then four, then one), so that ``h`` is read and written an eighth as often (eight
    rows: 1.9 us for the shipped net's pass against 2.1 with four)."""
    q = 0
    while q + 8 <= count:
        i0, i1, i2, i3 = index[q], index[q + 1], index[q + 2], index[q + 3]
        i4, i5, i6, i7 = index[q + 4], index[q + 5], index[q + 6], index[q + 7]
        a0, a1, a2, a3 = source[i0], source[i1], source[i2], source[i3]
        a4, a5, a6, a7 = source[i4], source[i5], source[i6], source[i7]
        r0, r1, r2, r3 = w[i0], w[i1], w[i2], w[i3]
        r4, r5, r6, r7 = w[i4], w[i5], w[i6], w[i7]
        for j in range(width):
            h[j] += (a0 * _widen(r0[j]) + a1 * _widen(r1[j]) + a2 * _widen(r2[j]) + a3 * _widen(r3[j])) + (
                a4 * _widen(r4[j]) + a5 * _widen(r5[j]) + a6 * _widen(r6[j]) + a7 * _widen(r7[j]))
        q += 8
    if q + 4 <= count:
        i0, i1, i2, i3 = index[q], index[q + 1], index[q + 2], index[q + 3]
        a0, a1, a2, a3 = source[i0], source[i1], source[i2], source[i3]
        r0, r1, r2, r3 = w[i0], w[i1], w[i2], w[i3]
        for j in range(width):
            h[j] += a0 * _widen(r0[j]) + a1 * _widen(r1[j]) + a2 * _widen(r2[j]) + a3 * _widen(r3[j])
        q += 4
    while q < count:
        i = index[q]
        a = source[i]
        r = w[i]
        for j in range(width):
            h[j] += a * _widen(r[j])
        q += 1


CHUNK = 32
"""Rows the kernels take through the net together, layer by layer (``_forward_rows``)."""


@njit(cache=True, fastmath=FAST, inline="always")
def _forward_rows(a, rows, input_width, weights, biases, head_t, head_b, backgammon, o, h, index, first=0):
    """Rows ``a[:rows]`` of inputs (each (I,) float32 in the first ``input_width`` columns of a row of
    the widest layer's length) through the net into ``o[:rows]`` (K,) float64; ``h`` (float32) and
    ``index`` (int64) are scratch of the widest layer's length. Each layer adds up the weight rows of a
    row's non-zero inputs only (about 55 of the backgammon net's 253 inputs, a quarter of the hidden
    units after the ReLU), whose indices are gathered first, without a branch per input, and writes
    the row's units over its inputs. A layer goes through all the rows before the next layer starts:
    siblings share most of their non-zero inputs, so their weight rows are still in the nearest cache
    when the next row asks for them (the shipped net: 1.64 -> 1.54 us a row without its inputs).
    Every row's sums are the same operations in the same order whatever its neighbours: the same
    numbers in any batch, and as one row alone. ``first``: the layer the rows are at (1: each row
    already holds the first hidden layer's units, ``_anchored_first_layer``)."""
    width = input_width
    for layer in range(first, len(weights)):
        w = weights[layer]
        b = biases[layer]
        out_width = w.shape[1]
        for r in range(rows):
            ar = a[r]
            count = 0
            for i in range(width):
                index[count] = i
                count += ar[i] != 0.0
            for j in range(out_width):
                h[j] = b[j]
            _add_rows(h, w, index, count, ar, out_width)
            for j in range(out_width):
                ar[j] = max(h[j], np.float32(0.0))
        width = out_width
    for r in range(rows):
        head_row(a[r], width, head_t, head_b, backgammon, o[r])


@njit(cache=True, fastmath=FAST, inline="always")
def _anchor_sums(x, inputs, w, b, h, index):
    """The first hidden layer's sums (before the ReLU) of inputs ``x[:inputs]`` into ``h``: the bias and
    the weight rows of the non-zero inputs, as ``_forward_rows`` adds them."""
    count = 0
    for i in range(inputs):
        index[count] = i
        count += x[i] != 0.0
    for j in range(w.shape[1]):
        h[j] = b[j]
    _add_rows(h, w, index, count, x, w.shape[1])


@njit(cache=True, fastmath=FAST, inline="always")
def _anchored_first_layer(x, inputs, anchor_x, anchor_h, w, h, delta, index):
    """The first hidden layer of a row with inputs ``x[:inputs]`` from its anchor's (the position it was
    played from, seen as the row is: ``anchor_x`` its inputs, ``anchor_h`` its sums): the anchor's sums
    plus the weight rows of the inputs that differ, times the difference (a play changes some 24 of the
    row's 56 non-zero inputs). The ReLU'd units overwrite ``x``. The same operations for the same row
    and anchor, whatever the batch."""
    count = 0
    for i in range(inputs):
        d = x[i] - anchor_x[i]
        delta[i] = d
        index[count] = i
        count += d != 0.0
    width = w.shape[1]
    for j in range(width):
        h[j] = anchor_h[j]
    _add_rows(h, w, index, count, delta, width)
    for j in range(width):
        x[j] = max(h[j], np.float32(0.0))


@njit(cache=True, fastmath=FAST)
def head_row(a, width, head_t, head_b, backgammon, o):
    """The head of one row: the sigmoids of ``a[:width]`` (the last hidden layer) through ``head_t``
    (K, H) and ``head_b`` into ``o`` (K,) float64, then chained (model/net/equity.py's ``chain_heads``;
    ``backgammon``: 5 heads, else long nardi's 3)."""
    for j in range(head_t.shape[0]):
        z = head_b[j]
        weights_j = head_t[j]
        for i in range(width):
            z += a[i] * weights_j[i]
        o[j] = 0.5 * (1.0 + np.tanh(0.5 * np.float64(z)))
    win = o[0]
    if backgammon:
        wg = win * o[1]
        wb = wg * o[2]
        lg = (1 - win) * o[3]
        lb = lg * o[4]
        o[1] = wg
        o[2] = wb
        o[3] = lg
        o[4] = lb
    else:
        o[1] = win * o[1]
        o[2] = (1 - win) * o[2]


@njit(cache=True)
def forward_kernel(x, weights, biases, head_t, head_b, backgammon, out):
    """Outcome probabilities ``out`` (B, K) float64 of inputs ``x`` (B, I) float32 through the hidden
    layers ``weights``/``biases`` (tuples of (in, out) float32 matrices and vectors), ReLU after each,
    and the head (``head_t`` (K, H), the head's weights transposed, ``head_b``); ``backgammon``: 5
    chained heads, else long nardi's 3. A row at a time: a row's numbers do not depend on its batch."""
    widest = x.shape[1]
    for w in weights:
        widest = max(widest, w.shape[1])
    chunk = max(min(CHUNK, x.shape[0]), 1)  # one position: one row of scratch
    a = np.empty((chunk, widest), dtype=np.float32)
    h = np.empty(widest, dtype=np.float32)
    index = np.empty(widest, dtype=np.int64)
    for start in range(0, x.shape[0], chunk):
        rows = min(chunk, x.shape[0] - start)
        for r in range(rows):
            for i in range(x.shape[1]):
                a[r, i] = x[start + r, i]
        _forward_rows(a, rows, x.shape[1], weights, biases, head_t, head_b, backgammon, out[start:start + rows], h, index)


@njit(cache=True, inline="always")
def _flip_row(p, q):
    """engine/board.py's flip of position ``p`` (28,) into ``q``: our point i is the opponent's 23 - i."""
    for i in range(24):
        q[i] = -p[23 - i]
    q[24], q[25], q[26], q[27] = p[25], p[24], p[27], p[26]


@njit(cache=True, inline="always")
def _encode_row(q, x, own, opp, units, tables):
    """The backgammon feature-version-3 inputs of position ``q`` (28,) into ``x[:253]`` (encode_numba.py's
    functions; ``own``, ``opp`` scratch (25,) int64)."""
    _sides(q, own, opp)
    _units(own, x, 0, units, 25)
    _units(opp, x, 125, units, 25)
    _both_features(own, opp, x, np.int64(100), np.int64(225), np.int64(250), tables)


def _contact_forward_kernel(tables, source):
    """``contact_forward_kernel`` with the inputs' ``tables`` (contact_inputs.py's KERNEL_TABLES) compiled in
    as constants, so that a call does not hand over and type-check eleven arrays (0.8 of one position's
    7 us). They and ``source`` (a digest of encode_numba.py, whose functions the kernel calls) are the
    closure's cells, which numba's disk cache keys on: a change to either compiles the kernel anew,
    where the cache would otherwise only see a change to this file."""
    t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 = tables

    @njit(cache=True)
    def contact_forward_kernel(positions, weights, biases, head_t, head_b, children, skip_bearoff, parents, parent_of,
                               out, left):
        """The backgammon feature-version-3 inputs of positions (B, 28) int8 (model/net/encode_numba.py's
        ``contact_kernel`` with the race columns) and the forward pass above, 32 rows at a time, into ``out``
        (B, 5). ``children``: each row is a position just played, scored for the side that played it as
        evaluator.py's ``child_probabilities`` does (the row seen by the side on roll, its probabilities
        flipped back), and finished games are left to the caller. ``skip_bearoff``: so are the positions
        (seen by the side on roll) that model/net/bearoff.py's ``bearoff_mask`` holds. Rows left are zeros
        in ``out`` and marked in ``left`` (B,) bool; returns how many there are (-1: a parent index
        outside ``parents``, nothing done).
        ``parents`` (P, 28) int8 and ``parent_of`` (B,) int64 (children only; empty: none): row b was
        played from ``parents[parent_of[b]]``, whose first hidden layer, worked out once, anchors the
        row's (``_anchored_first_layer``): each row's numbers then depend on the row and its parent."""
        inputs = 2 * 125 + 3
        widest = inputs
        for w in weights:
            widest = max(widest, w.shape[1])
        chunk = max(min(CHUNK, positions.shape[0]), 1)  # one position: one row of scratch
        a = np.empty((chunk, widest), dtype=np.float32)
        h = np.empty(widest, dtype=np.float32)
        index = np.empty(widest, dtype=np.int64)
        own = np.empty(25, dtype=np.int64)
        opp = np.empty(25, dtype=np.int64)
        q = np.empty(28, dtype=np.int8)
        o = np.empty((chunk, 5), dtype=np.float64)
        held = np.empty(chunk, dtype=np.int64)  # the batch row each row of ``a`` holds
        rows = 0
        if not source:  # never true: ``source`` is read so that numba's cache is keyed on it
            return -1
        tables = (t0, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10)
        units = t0
        anchored = children and parent_of.shape[0] == positions.shape[0] and positions.shape[0] > 0
        n_anchors = parents.shape[0] if anchored else 0
        if anchored:
            for b in range(parent_of.shape[0]):
                if parent_of[b] < 0 or parent_of[b] >= n_anchors:
                    return -1
        anchor_x = np.empty((n_anchors, inputs), dtype=np.float32)
        anchor_h = np.empty((n_anchors, weights[0].shape[1]), dtype=np.float32)
        ready = np.zeros(n_anchors, dtype=np.bool_)
        delta = np.empty(inputs, dtype=np.float32)
        first = 1 if anchored else 0
        count = 0
        for b in range(positions.shape[0]):
            p = positions[b]
            if children:
                _flip_row(p, q)
            else:
                q[:] = p
            left[b] = (children and p[26] == 15) or (skip_bearoff and _bearoff_row(q, True))
            if left[b]:
                out[b, :] = 0.0
                count += 1
            else:
                x = a[rows]
                _encode_row(q, x, own, opp, units, tables)
                if anchored:
                    k = parent_of[b]
                    if not ready[k]:  # the parent, seen as its children are (flipped), and its sums
                        _flip_row(parents[k], q)
                        _encode_row(q, anchor_x[k], own, opp, units, tables)
                        _anchor_sums(anchor_x[k], inputs, weights[0], biases[0], anchor_h[k], index)
                        ready[k] = True
                    _anchored_first_layer(x, inputs, anchor_x[k], anchor_h[k], weights[0], h, delta, index)
                held[rows] = b
                rows += 1
            if rows == chunk or (b == positions.shape[0] - 1 and rows > 0):
                width = weights[0].shape[1] if anchored else inputs
                _forward_rows(a, rows, width, weights, biases, head_t, head_b, True, o, h, index, first)
                for r in range(rows):
                    row, p = out[held[r]], o[r]
                    if children:  # model/net/equity.py's flip_probs
                        row[0], row[1], row[2], row[3], row[4] = 1.0 - p[0], p[3], p[4], p[1], p[2]
                    else:
                        row[:] = p
                rows = 0
        return count

    return contact_forward_kernel


contact_forward_kernel = _contact_forward_kernel(
    KERNEL_TABLES, hashlib.sha256(Path(encode_numba.__file__).read_bytes()).hexdigest())


@njit(cache=True)
def _bearoff_row(p, backgammon):
    """Whether the position ``p`` (28,) is one for the bear-off databases (bearoff.py's ``bearoff_mask``)."""
    if p[24] != 0 or p[25] != 0:
        return False
    mine = 0
    theirs = 0
    for i in range(24):
        v = np.int64(p[i])
        if v > 0:
            mine += v
            if i >= 6:
                return False
        elif v < 0:
            theirs -= v
            if backgammon:
                if i < 18:
                    return False
            elif i < 12 or i >= 18:
                return False
    return mine <= 15 and theirs <= 15


@njit(cache=True)
def bearoff_mask_kernel(positions, backgammon, out):
    """model/net/bearoff.py's ``bearoff_mask`` of positions (B, 28) int8 into ``out`` (B,) bool."""
    for r in range(positions.shape[0]):
        out[r] = _bearoff_row(positions[r], backgammon)


def forward(net, x: np.ndarray) -> np.ndarray:
    """(B, K) float64 probabilities of a model.net.inference ``NumpyNet`` on encoded inputs ``x``."""
    out = np.empty((len(x), net.config.outputs))
    forward_kernel(np.ascontiguousarray(x, dtype=np.float32), net.kernel_weights[0], net.kernel_weights[1],
                   net.head_t, net.head[1], net.config.game == "backgammon", out)
    return out


_NO_PARENTS = (np.zeros((0, 28), dtype=np.int8), np.zeros(0, dtype=np.int64))


def contact_forward(net, positions: np.ndarray, children: bool, skip_bearoff: bool,
                    parents: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(probabilities (B, 5), rows left to the caller (B,) bool, their number) of a backgammon
    feature-version-3 ``NumpyNet`` on positions (B, 28): inputs and forward pass in one kernel
    (``contact_forward_kernel``, whose docstring says which rows are left). ``parents``, for children
    only: (positions (P, 28), index (B,)), row b played from ``positions[index[b]]``, which anchors its
    first layer."""
    out = np.empty((len(positions), 5))
    left = np.empty(len(positions), dtype=np.bool_)
    from_pos, index = _NO_PARENTS if parents is None or not children else parents
    if len(index) and len(index) != len(positions):
        raise ValueError(f"parents: an index for each of the {len(positions)} children, got {len(index)}")
    count = contact_forward_kernel(np.ascontiguousarray(positions, dtype=np.int8),
                                   net.kernel_weights[0], net.kernel_weights[1], net.head_t, net.head[1],
                                   children, skip_bearoff, np.ascontiguousarray(from_pos, dtype=np.int8),
                                   np.ascontiguousarray(index, dtype=np.int64), out, left)
    if count < 0:
        raise ValueError(f"parents: an index outside the {len(from_pos)} positions")
    return out, left, count


def bearoff_mask(game: str, positions: np.ndarray) -> np.ndarray:
    out = np.empty(len(positions), dtype=np.bool_)
    bearoff_mask_kernel(np.ascontiguousarray(positions, dtype=np.int8), game == "backgammon", out)
    return out
