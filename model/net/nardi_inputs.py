"""Long-nardi inputs (nardi feature version 2): blocks and primes, the head, the race, the mars.

Positions are int8 (B, 28) in the mover's frame (engine/board.py). Each side is described from its
own point of view, the opponent's half computed exactly as the mover's on the flipped position (so
the halves of ``flip(pos)`` are those of ``pos`` swapped). Inside, a side is two count arrays
(B, 24) in its own numbering: index i is point i+1; ``own`` its checkers, ``other`` the opponent's
(which close those points to it: in long nardi any opponent checker closes a point, nothing is hit).

nardi_inputs (B, 2 * HALF + 2) = [mover half | opponent half | race lead | contact], each half:
    0..95     points 1..24, 4 units each: n >= 1, n >= 2, n >= 3, (n - 3) / 4 if n > 3
    96..      the features of FEATURE_NAMES, in order (``nardi_index(name, side)``)
then (mover's pips - opponent's pips) / 50 and whether the sides can still meet (board.has_contact).

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

import numpy as np

from engine.board import OFF, POINTS, flip, has_contact, pips
from engine.movegen import ALL_ROLLS

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

def _unit_table() -> np.ndarray:
    """(16, 4): the four units of a point holding 0..15 checkers."""
    n = np.arange(16)
    return np.stack([n >= 1, n >= 2, n >= 3, np.maximum(n - 3, 0) / 4], axis=1).astype(np.float32)


def _roll_tables() -> tuple[np.ndarray, np.ndarray]:
    """(4096,) escapes and moves, out of 36, for each 12-bit mask of closed points ahead (bit i: the
    point i+1 pips ahead). An escape carries the checker the whole roll: d1+d2 ahead is open, and so
    is a stop on the way (d1 or d2 ahead; d ahead for a double d-d, whose four steps stop at d, 2d,
    3d: the first stop and the landing are what the mask checks for all rolls alike). A move is a
    roll with at least one die whose landing is open."""
    masks = np.arange(4096)
    closed = ((masks[:, None] >> np.arange(AHEAD)) & 1).astype(bool)  # (4096, 12)
    escapes = np.zeros(4096, dtype=np.int64)
    moves = np.zeros(4096, dtype=np.int64)
    for high, low in ALL_ROLLS:
        ways = 1 if high == low else 2
        whole = ~closed[:, high + low - 1] & ~(closed[:, high - 1] & closed[:, low - 1])
        escapes += ways * whole
        moves += ways * (~closed[:, high - 1] | ~closed[:, low - 1])
    return escapes, moves


_UNITS = _unit_table()
_ESCAPES, _MOVES = _roll_tables()
_POINT = np.arange(1, 25)
# the opponent's way in a side's own numbers, as slots: 12, 11, ..., 1, 24, 23, ..., 13
_THEIR_WAY = np.array(list(range(12, 0, -1)) + list(range(24, 12, -1))) - 1


# --- the sides ----------------------------------------------------------------------------------

def side_boards(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(own, other), each (B, 24) int8 in the mover's numbering: the mover's and the opponent's
    checkers on each point."""
    board = np.asarray(positions, dtype=np.int8)[:, POINTS]
    return np.maximum(board, 0), np.maximum(-board, 0)


def longest_run(held: np.ndarray) -> np.ndarray:
    """Length of the longest run of True along the last axis of (B, L) -> (B,) int."""
    run = np.zeros(held.shape[0], dtype=np.int16)
    best = np.zeros(held.shape[0], dtype=np.int16)
    for i in range(held.shape[1]):  # L vectorised steps
        run = np.where(held[:, i], run + 1, 0)
        best = np.maximum(best, run)
    return best


def closed_ahead(other: np.ndarray) -> np.ndarray:
    """(B, 24) int 12-bit masks: for a checker on point p (slot p-1), bit i is set when the point
    i+1 pips ahead (p-1-i) is closed to it. Points past the 1-point (bearing off) count as open."""
    closed = np.zeros((len(other), AHEAD + 24), dtype=np.int16)
    closed[:, AHEAD:] = other > 0  # padded index AHEAD + s is slot s
    masks = np.zeros((len(other), 24), dtype=np.int16)
    for i in range(AHEAD):  # the point i+1 ahead of slot s is slot s-1-i
        masks |= closed[:, AHEAD - 1 - i : AHEAD - 1 - i + 24] << i
    return masks


def half_features(own: np.ndarray, other: np.ndarray, off: np.ndarray) -> np.ndarray:
    """(B, len(FEATURE_NAMES)) float32 features of the side with checkers ``own`` (B, 24), facing
    ``other`` (B, 24), both in the side's numbering, with ``off`` (B,) checkers borne off."""
    b = len(own)
    mine = own.astype(np.float32)
    held = own > 0
    off = off.astype(np.float32)
    outside_checkers = mine[:, 6:]
    pip = mine @ _POINT.astype(np.float32)
    home_pips = outside_checkers @ np.arange(1, 19, dtype=np.float32)
    head = mine[:, 23]

    along = held[:, _THEIR_WAY]
    block = longest_run(along)
    # the opponent's rearmost checker: the first place on its way (in our numbers) holding one
    theirs_along = (other > 0)[:, _THEIR_WAY]
    rear = np.where(theirs_along.any(1), np.argmax(theirs_along, axis=1), 24)
    padded = np.concatenate([along, np.zeros((b, 6), dtype=bool)], axis=1)
    ahead = np.arange(1, 7)[None, :] + rear[:, None]  # places 1..6 ahead of it
    front_block = padded[np.arange(b)[:, None], np.minimum(ahead, 29)].sum(1)

    masks = closed_ahead(other)
    escapes = _ESCAPES[masks]  # (B, 24) per point
    moves = _MOVES[masks]
    back = np.where(held.any(1), 23 - np.argmax(held[:, ::-1], axis=1), 0)  # slot of the rearmost
    rows = np.arange(b)
    back_escapes = np.where(held.any(1), escapes[rows, back], 36)
    back_moves = np.where(held.any(1), moves[rows, back], 36)
    contain = (outside_checkers * (1 - escapes[:, 6:] / 36.0)).sum(1)
    stuck = (outside_checkers * (moves[:, 6:] == 0)).sum(1)

    # a die d is playable by a checker on slot s when slot s-d is not closed (s >= d)
    playable = np.zeros(b, dtype=np.int64)
    open_point = other == 0
    for d in range(1, 7):
        playable += (held[:, d:] & open_point[:, :-d]).any(1)

    return np.stack([
        off / 15.0, off > 0, ~held[:, 6:].any(1), head / 15.0, head > 0, pip / 200.0,
        home_pips / 200.0, outside_checkers.sum(1) / 15.0, mine[:, 12:].sum(1) / 15.0,
        mine[:, 12:18].sum(1) / 15.0, held.sum(1) / 15.0, held[:, :6].sum(1) / 6.0, block / 6.0,
        block >= 6, front_block / 6.0, np.where(held.any(1), back + 1, 0) / 24.0,
        back_escapes / 36.0, back_moves / 36.0, contain / 15.0, stuck / 15.0, playable / 6.0,
    ], axis=1).astype(np.float32)


def _half(pos: np.ndarray) -> np.ndarray:
    """The half (B, HALF) of the side on roll of positions ``pos`` (B, 28)."""
    own, other = side_boards(pos)
    units = _UNITS[own.astype(np.int64)].reshape(len(pos), 96)
    return np.concatenate([units, half_features(own, other, pos[:, OFF])], axis=1)


def nardi_inputs(positions: np.ndarray) -> np.ndarray:
    """(B, num_nardi_inputs()) float32 inputs of long-nardi positions (B, 28), mover's frame."""
    pos = np.asarray(positions, dtype=np.int8)
    b = len(pos)
    halves = _half(np.concatenate([pos, flip("nardi", pos)]))  # one pass for both sides
    both = pips("nardi", pos).astype(np.float32)
    return np.concatenate([
        halves[:b], halves[b:], ((both[:, 0] - both[:, 1]) / 50.0)[:, None],
        has_contact("nardi", pos)[:, None].astype(np.float32),
    ], axis=1)
