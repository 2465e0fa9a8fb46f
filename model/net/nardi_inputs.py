"""Long-nardi inputs (nardi feature version 2): blocks and primes, the head, the race, the mars.

Positions are int8 (B, 28) in the mover's frame (engine/board.py). Each side is described from its
own point of view, the opponent's half computed exactly as the mover's on the flipped position (so
the halves of ``flip(pos)`` are those of ``pos`` swapped). Inside, a side is two count arrays
(B, 24) in its own numbering: index i is point i+1; ``own`` its checkers, ``other`` the opponent's
(which close those points to it: in long nardi any opponent checker closes a point, nothing is hit).

nardi_inputs (B, 2 * HALF + 2) = [mover half | opponent half | race lead | contact], each half:
    0..95     points 1..24, 4 units each: n >= 1, n >= 2, n >= 3, (n - 3) / 4 if n > 3
    96..      the features of FEATURE_NAMES, in order (``nardi_index(name, side)``)
then (mover's pips - opponent's pips) / 50 and whether the sides can still meet (board.has_contact,
computed here from the same bit masks as the features).

The features and why they matter under the rules (RULES-DECISIONS.md, "Long nardi"):
    off, any_off      checkers borne off / 15; whether any is (a loser with none off is marsed)
    all_home          every checker not borne off is home (points 1..6): the side may bear off
    head, head_any    checkers still on the head (the 24-point) / 15, and whether any: only one
                      may leave per turn, so a full head is slow development
    pips              pip count / 200
    home_pips         pips still to travel before every checker is home / 200 (how far the side
                      is from bearing off its first checker: the mars race)
    outside           checkers not yet home / 15
    unpassed          checkers on points 13..24, not yet past the opponent's head (the side's
                      12-point) / 15
    in_their_home     checkers on points 13..18, the opponent's home board, where they block the
                      opponent's bear-in / 15
    held              points held / 15
    home_held         points held in the home board / 6
    block             the longest run of held points along the opponent's way (12, 11, ..., 1, 24,
                      ..., 13: the mover's 1 and 24 are neighbours, 13 and 12 are not) / 6
    prime             1 when that run is six or more (legal only with an opponent checker past it)
    front_block       held points among the six just ahead of the opponent's rearmost checker / 6
    back_point        the side's rearmost point / 24
    back_escapes      rolls (of 36) that carry the rearmost checker the whole roll (the point
                      d1+d2 ahead open, and a stop after the first die: d1 or d2 ahead for a
                      non-double, d ahead for a double) / 36
    back_moves        rolls with which the rearmost checker can move at all (d1 or d2 ahead open) / 36
    contain           sum over the side's checkers outside home of 1 - escapes / 36, / 15: how
                      shut in the side is by the opponent's blocks
    stuck             checkers outside home that no roll moves (both dice closed for all 36) / 15
    playable          dice 1..6 that some checker could play on the board (its landing open) / 6:
                      a die no checker can play is lost
"""

from __future__ import annotations

import time

import numpy as np

from engine.board import OFF, POINTS, flip
from engine.compiled import Kernels, charge_numpy
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from model.net.contact_tables import ESCAPES as ESCAPES_BY_MASK

FEATURE_NAMES = (
    "off", "any_off", "all_home", "head", "head_any", "pips", "home_pips", "outside", "unpassed",
    "in_their_home", "held", "home_held", "block", "prime", "front_block", "back_point",
    "back_escapes", "back_moves", "contain", "stuck", "playable",
)
HALF = 24 * 4 + len(FEATURE_NAMES)
AHEAD = 12  # escape and move counts look this many points ahead


def num_nardi_inputs() -> int:
    """Length of a ``nardi_inputs`` row."""
    return 2 * HALF + 2


def nardi_index(name: str, side: int = 0) -> int:
    """Column of feature ``name`` of side 0 (mover) or 1 (opponent) in ``nardi_inputs``."""
    return side * HALF + 96 + FEATURE_NAMES.index(name)


RACE_LEAD, CONTACT = 2 * HALF, 2 * HALF + 1
"""Columns of the two whole-board inputs."""


# --- tables -------------------------------------------------------------------------------------

def _move_table() -> np.ndarray:
    """(4096,) rolls out of 36 with at least one die whose landing is open, for each 12-bit mask of
    closed points ahead (bit i: the point i+1 pips ahead)."""
    closed = ((np.arange(4096)[:, None] >> np.arange(AHEAD)) & 1).astype(bool)  # (4096, 12)
    moves = ~closed[:, ALL_ROLLS[:, 0] - 1] | ~closed[:, ALL_ROLLS[:, 1] - 1]  # (4096, 21 rolls)
    return np.rint(moves @ (36 * ROLL_WEIGHTS)).astype(np.int64)


# Escapes: gnubg's escaping rolls, the table of the backgammon contact inputs (the same masks: a roll
# escapes when d1+d2 ahead is open and so is a stop after the first die; points past the 1-point
# count as open, and in long nardi any opponent checker closes a point).
_ESCAPES, _MOVES = ESCAPES_BY_MASK, _move_table()
_POINT = np.arange(1, 25)
# the opponent's way in a side's own numbers, as slots: 12, 11, ..., 1, 24, 23, ..., 13
_THEIR_WAY = np.array(list(range(12, 0, -1)) + list(range(24, 12, -1))) - 1
_PLACE = np.argsort(_THEIR_WAY)  # the place of each slot on that way (slot 11, the 12-point: place 0)
# A side's points as bit masks (a float64 product of 0/1 rows with powers of two below 2**24 is exact):
# bit s for slot s, bit 23 - s for slot s ("reversed"), and the bit of the slot's place on the
# opponent's way ("along").
_BIT, _REVERSED, _ALONG = 2.0 ** (_POINT - 1), 2.0 ** (24 - _POINT), 2.0 ** _PLACE
_HELD_WEIGHTS = np.stack([_BIT, _ALONG, np.ones(24), _POINT <= 6], axis=1)
_CLOSED_WEIGHTS = np.stack([_BIT, _REVERSED, _ALONG], axis=1)
_COUNT_WEIGHTS = np.stack([_POINT, np.maximum(_POINT - 6, 0), _POINT >= 7, _POINT >= 13,
                           (_POINT >= 13) & (_POINT <= 18), _POINT == 24], axis=1).astype(np.float32)
_POPCOUNT_OF_SIX = np.array([m.bit_count() for m in range(64)])
_ALL_POINTS = (1 << 24) - 1


# --- the sides ----------------------------------------------------------------------------------

def side_boards(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(own, other), each (B, 24) int8 in the mover's numbering: the mover's and the opponent's
    checkers on each point."""
    board = np.asarray(positions, dtype=np.int8)[:, POINTS]
    return np.maximum(board, 0), np.maximum(-board, 0)


def _highest_bit(masks: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each mask (B,) int64; -1 for 0."""
    return np.frexp(masks.astype(np.float64))[1].astype(np.int64) - 1


def longest_run(masks: np.ndarray) -> np.ndarray:
    """Length of the longest run of set bits of each mask (B,) int64 -> (B,) int."""
    best = np.zeros(len(masks), dtype=np.int64)
    x = masks.copy()
    while x.any():  # each pass shortens every run by one: as many passes as the longest run
        best += x != 0
        x &= x << 1
    return best


def closed_ahead(reversed_closed: np.ndarray) -> np.ndarray:
    """(B, 24) int 12-bit masks: for a checker on slot s (point s+1), bit i is set when the point
    i+1 pips ahead (slot s-1-i) is closed to it. Points past the 1-point (bearing off) count as open.
    ``reversed_closed`` (B,) has bit 23 - s set for each closed slot s, so the mask of slot s is
    that shifted right by 24 - s."""
    return (reversed_closed[:, None] >> (24 - np.arange(24))[None, :]) & (2 ** AHEAD - 1)


def half_features(own: np.ndarray, other: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B, len(FEATURE_NAMES)) float32 features of the side with checkers ``own`` (B, 24), facing
    ``other`` (B, 24), both in the side's numbering, with ``off`` (B,) checkers borne off; and (B,)
    bool, whether the side's rearmost checker still has an opponent checker ahead of it (board.py's
    has_contact is this for either side)."""
    b = len(own)
    mine = own.astype(np.float32)
    held = (own > 0).astype(np.float64)
    held_bits, along, held_count, home_held = (held @ _HELD_WEIGHTS).T
    held_bits, along = held_bits.astype(np.int64), along.astype(np.int64)
    closed_bits, reversed_closed, theirs_along = ((other > 0).astype(np.float64) @ _CLOSED_WEIGHTS).T.astype(np.int64)
    pip, home_pips, outside, unpassed, in_their_home, head = (mine @ _COUNT_WEIGHTS).T

    out = np.empty((b, len(FEATURE_NAMES)), dtype=np.float32)
    out[:, 0] = off / 15.0
    out[:, 1] = off > 0
    out[:, 2] = outside == 0
    out[:, 3] = head / 15.0
    out[:, 4] = head > 0
    out[:, 5] = pip / 200.0
    out[:, 6] = home_pips / 200.0
    out[:, 7] = outside / 15.0
    out[:, 8] = unpassed / 15.0
    out[:, 9] = in_their_home / 15.0
    out[:, 10] = held_count / 15.0
    out[:, 11] = home_held / 6.0
    block = longest_run(along)
    out[:, 12] = block / 6.0
    out[:, 13] = block >= 6
    # the opponent's rearmost checker stands on the first place of its way holding one (24: none)
    rear = np.where(theirs_along > 0, _highest_bit(theirs_along & -theirs_along), 24)
    out[:, 14] = _POPCOUNT_OF_SIX[(along >> (rear + 1)) & 63] / 6.0  # our points on the six ahead

    masks = closed_ahead(reversed_closed)
    escapes = _ESCAPES[masks]  # (B, 24) per point
    any_held = held_bits > 0
    back = np.maximum(_highest_bit(held_bits), 0)  # slot of the rearmost checker
    rows = np.arange(b)
    out[:, 15] = np.where(any_held, back + 1, 0) / 24.0
    out[:, 16] = np.where(any_held, escapes[rows, back], 36) / 36.0
    out[:, 17] = np.where(any_held, _MOVES[masks[rows, back]], 36) / 36.0
    outside_checkers = mine[:, 6:]
    out[:, 18] = (outside - (outside_checkers * escapes[:, 6:]).sum(1) / 36.0) / 15.0
    out[:, 19] = (outside_checkers * (_MOVES[masks[:, 6:]] == 0)).sum(1) / 15.0
    # a die d is playable by a checker on slot s when slot s-d is open (s >= d)
    open_bits = ~closed_bits & _ALL_POINTS
    out[:, 20] = sum(((held_bits >> d) & open_bits) != 0 for d in range(1, 7)) / 6.0
    lowest_closed = np.where(closed_bits > 0, _highest_bit(closed_bits & -closed_bits), 24)
    return out, _highest_bit(held_bits) > lowest_closed


def unit_table() -> np.ndarray:
    """(16, 4) float32: the four units of a point holding 0..15 of a side's checkers (the first 96
    columns of a half: n >= 1, n >= 2, n >= 3, (n - 3) / 4 if n > 3)."""
    n = np.arange(16)
    return np.stack([n >= 1, n >= 2, n >= 3, np.maximum(n - 3, 0) * np.float32(0.25)], axis=1).astype(np.float32)


UNITS = unit_table()
KERNEL_TABLES = (_ESCAPES, _MOVES, _PLACE.astype(np.int64), _POPCOUNT_OF_SIX)
"""The tables the compiled kernels read (model/net/nardi_numba.py), in the order they unpack them."""


def _import_kernels():
    """model/net/nardi_numba.py, imported the first time engine/compiled.py's ``numba_due`` says so;
    until then, or without numba, the numpy code here runs."""
    from model.net import nardi_numba

    return nardi_numba


_kernels = Kernels(_import_kernels)


def _both_sides(pos: np.ndarray) -> np.ndarray:
    """(2B, 28): the positions, then the same seen by the opponent (one pass computes both halves)."""
    return np.concatenate([pos, flip("nardi", pos)])


def unit_counts(positions: np.ndarray) -> np.ndarray:
    """(B, 48) int8: ``dense_inputs``' counts alone (the mover's checkers on its points 1..24, then the
    opponent's on its own)."""
    pos = np.asarray(positions, dtype=np.int8)
    return _side_by_side(side_boards(_both_sides(pos))[0])


def _side_by_side(own: np.ndarray) -> np.ndarray:
    """(B, 48) from a side array (2B, 24) of ``_both_sides``: the mover's row, then the opponent's."""
    b = len(own) // 2
    return np.concatenate([own[:b], own[b:]], axis=1)


def dense_inputs(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``nardi_inputs`` less the point units, for a forward pass that looks the units up
    (model/net/table_forward.py): (counts (B, 48) int8, the mover's checkers on its points 1..24 then
    the opponent's on its own points 1..24, of which the units are ``UNITS[counts]``; (B, 2 * K + 2)
    float32, the columns of ``nardi_inputs`` after each half's units: the mover's K features, the
    opponent's, the race lead and contact)."""
    pos = np.asarray(positions, dtype=np.int8)
    b, k = len(pos), len(FEATURE_NAMES)
    kernels = _kernels()
    if kernels is not None:
        counts, dense = np.empty((b, 48), dtype=np.int8), np.empty((b, 2 * k + 2), dtype=np.float32)
        kernels.dense_kernel(np.ascontiguousarray(pos), counts, dense, KERNEL_TABLES)
        return counts, dense
    start = time.perf_counter()
    both = _both_sides(pos)
    own, other = side_boards(both)
    features, meets = half_features(own, other, both[:, OFF])
    dense = np.empty((b, 2 * k + 2), dtype=np.float32)
    dense[:, :k], dense[:, k : 2 * k] = features[:b], features[b:]
    pip = FEATURE_NAMES.index("pips")
    dense[:, 2 * k] = (features[:b, pip] - features[b:, pip]) * (200 / 50)
    dense[:, 2 * k + 1] = meets[:b] | meets[b:]
    charge_numpy(time.perf_counter() - start)
    return _side_by_side(own), dense


def nardi_inputs(positions: np.ndarray) -> np.ndarray:
    """(B, num_nardi_inputs()) float32 inputs of long-nardi positions (B, 28), mover's frame."""
    kernels = _kernels()
    if kernels is not None:
        pos = np.ascontiguousarray(positions, dtype=np.int8)
        out = np.empty((len(pos), num_nardi_inputs()), dtype=np.float32)
        kernels.inputs_kernel(pos, out, UNITS, HALF, KERNEL_TABLES)
        return out
    counts, dense = dense_inputs(positions)
    b, k = len(counts), len(FEATURE_NAMES)
    out = np.empty((b, num_nardi_inputs()), dtype=np.float32)
    halves = out[:, : 2 * HALF].reshape(b, 2, HALF)  # a view: written in place
    halves[:, :, :96] = UNITS[counts].reshape(b, 2, 96)
    halves[:, :, 96:] = dense[:, : 2 * k].reshape(b, 2, k)
    out[:, RACE_LEAD:] = dense[:, 2 * k :]
    return out
