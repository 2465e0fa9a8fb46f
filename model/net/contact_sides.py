"""The two sides of backgammon positions as the contact inputs read them (model/net/contact_inputs.py).

A side is a count array (25,) in its owner's numbering: index i is point i+1, index 24 the bar
("own" for the side, "opp" for its opponent). ``prepare`` turns rows of them, each side facing its
opponent, into ``Sides``: the bit masks and running sums every one of the 25 features is read from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.board import BAR, OPP_BAR, POINTS
from model.net.contact_hits import BAR_BIT, highest_bit

_INDEX = np.arange(25)


def side_counts(positions: np.ndarray) -> np.ndarray:
    """(B, 2, 25) int8: the mover's [:, 0] and the opponent's [:, 1] checkers, each side in its own
    numbering (index i = point i+1, index 24 = its bar)."""
    pos = np.asarray(positions, dtype=np.int8)
    counts = np.empty((len(pos), 2, 25), dtype=np.int8)
    np.maximum(pos[:, POINTS], 0, out=counts[:, 0, :24])
    np.maximum(-pos[:, 23::-1], 0, out=counts[:, 1, :24])
    counts[:, 0, 24], counts[:, 1, 24] = pos[:, BAR], pos[:, OPP_BAR]
    return counts


def rearmost(counts: np.ndarray) -> np.ndarray:
    """Index (B,) of the side's rearmost checker in its own numbering (24 = bar), -1 when none is left."""
    occupied = counts > 0
    return np.where(occupied.any(1), 24 - np.argmax(occupied[:, ::-1], axis=1), -1)


@dataclass(frozen=True)
class Sides:
    """What the features read, for n rows, each a side facing its opponent (``prepare``).

    Bit masks are (n,) int64 with bit i+1 for index i (bit 25: the bar); "ours" means in this
    side's numbering, "theirs" in the opponent's.
    """

    own: np.ndarray  # (n, 25) int8 this side's checkers, own numbering
    ownt: np.ndarray  # (25, n) int16 the same, a row per index
    occupied: np.ndarray  # points (and bar) with our checkers
    held: np.ndarray  # our points with two or more
    singles: np.ndarray  # our points with exactly one
    shooters: np.ndarray  # our points whose checkers may hit (not a home point of exactly two)
    their_held: np.ndarray  # the opponent's held points, in its numbering
    their_held_ours: np.ndarray  # the same in our numbering
    their_blots_ours: np.ndarray  # the opponent's blots, in our numbering
    opp_back: np.ndarray  # (n,) our index of the opponent's rearmost checker: -1 its bar, 24 none left
    below: np.ndarray  # (26, 5, n) int16 [k]: over our indices i < k, the sums of n_i, i n_i, i^2 n_i
    # and, over our held points i < k (i <= 23), their number and the sum of their i

    def sums_below(self, k: np.ndarray) -> np.ndarray:
        """(5, n) int16: the ``below`` sums of each row up to its own bound k (n,) in 0..25."""
        n = len(k)
        return np.take(self.below, (k * (5 * n) + np.arange(n))[None, :] + (n * np.arange(5))[:, None])

    def sums_above(self, k: np.ndarray) -> np.ndarray:
        """(5, n) int16: the same sums over the indices i > k, for k (n,) in -1..24."""
        return self.below[25] - self.sums_below(k + 1)


def _pack(planes: np.ndarray) -> np.ndarray:
    """(n, k, 32) bool, C-contiguous -> (n, k) int64 with bit j set where column j is True."""
    packed = np.packbits(planes.reshape(-1), bitorder="little").view("<u4")
    return packed.reshape(planes.shape[:2]).astype(np.int64)


_WEIGHTS16 = _INDEX[:, None].astype(np.int16)


def _cumulative(own: np.ndarray) -> np.ndarray:
    """``Sides.below`` of the counts ``own`` (25, n) int16: a running sum over the indices (at most
    15 x 24^2, so int16 holds them exactly)."""
    below = np.empty((26, 5, own.shape[1]), dtype=np.int16)
    below[0] = 0
    below[1:, 0] = own
    np.multiply(own, _WEIGHTS16, out=below[1:, 1])
    np.multiply(below[1:, 1], _WEIGHTS16, out=below[1:, 2])
    np.greater_equal(own[:24], 2, out=below[1:25, 3], casting="unsafe")
    np.multiply(below[1:25, 3], _WEIGHTS16[:24], out=below[1:25, 4])
    below[25, 3:] = 0
    for k in range(2, 26):
        below[k] += below[k - 1]
    return below


def prepare(own: np.ndarray, opp: np.ndarray) -> Sides:
    """The ``Sides`` of the rows ``own`` (n, 25) facing ``opp`` (n, 25), both in their owner's numbering."""
    own_held, opp_held = own[:, :24] >= 2, opp[:, :24] >= 2
    planes = np.zeros((len(own), 8, 32), dtype=bool)  # column j: bit j
    planes[:, 0, 1:26] = own > 0
    planes[:, 1, 1:25] = own_held
    planes[:, 2, 1:25] = own[:, :24] == 1
    planes[:, 3, 1:7] = own[:, :6] == 2  # home points held by exactly two: they do not hit
    planes[:, 4, 1:26] = opp > 0
    planes[:, 5, 1:25] = opp_held
    planes[:, 6, 1:25] = opp_held[:, ::-1]  # the opponent's index 23 - i is our index i
    planes[:, 7, 1:25] = (opp[:, :24] == 1)[:, ::-1]
    bits = _pack(planes)
    ownt = own.T.astype(np.int16, order="C")
    return Sides(
        own=own, ownt=ownt, occupied=bits[:, 0], held=bits[:, 1], singles=bits[:, 2],
        shooters=bits[:, 0] & ~bits[:, 3] & ~BAR_BIT, their_held=bits[:, 5],
        their_held_ours=bits[:, 6], their_blots_ours=bits[:, 7],
        opp_back=23 - np.maximum(highest_bit(bits[:, 4]) - 1, -1),
        below=_cumulative(ownt),
    )


def both_sides(positions):
    """(own, opp) (2B, 25) int8: row 2r is position r's mover facing its opponent, row 2r+1 the
    opponent facing the mover, so that halves computed per row reshape to (B, 2 x half) for free."""
    counts = side_counts(positions)
    return counts.reshape(-1, 25), counts[:, ::-1].reshape(-1, 25)
