"""The one interface every player follows, trained or not: pick a play for a batch of positions.

A player sees the batch of positions (B, 28) in the mover's frame, the dice (B, 2), and every legal
result from ``engine.movegen.legal_plays`` (children[N, 28], parent[N], sorted by parent). It
returns, for each position, the index into ``children`` of the play it makes. Computing the children
once, outside the player, lets an arena or trainer share them between players and features.
"""

from __future__ import annotations

import numpy as np

from engine.movegen import legal_plays


def group_argmax(scores: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
    """Index of the highest score within each parent group: (n,) indices into ``scores``.

    ``parent`` must be sorted (as legal_plays returns it) and cover 0..n-1. Ties go to the first.
    """
    scores = np.asarray(scores, dtype=np.float64)
    parent = np.asarray(parent)
    if len(parent) and (parent[0] == 0) & (parent[-1] == n - 1):
        # one pass: each group's maximum (its block starts where parent changes), then the first
        # row that reaches it; a NaN or a gap in the groups falls through to the sort below
        starts = np.flatnonzero(np.diff(parent, prepend=-1))
        if len(starts) == n:
            top = np.maximum.reduceat(scores, starts)
            hit = np.flatnonzero(scores == np.repeat(top, np.diff(np.append(starts, len(parent)))))
            best = hit[np.diff(parent[hit], prepend=-1) != 0]
            if len(best) == n:
                return best
    order = np.lexsort((-scores, parent))  # by parent, best score first
    first = np.ones(len(parent), dtype=bool)
    first[1:] = parent[order][1:] != parent[order][:-1]
    best = order[first]
    if len(best) != n:
        raise ValueError("every position needs at least one child (legal_plays adds passes)")
    return best


def group_rank(scores: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
    """Rank (0 = highest) of each score within its parent's group (``parent`` sorted, groups 0..n-1)."""
    order = np.lexsort((-np.asarray(scores), parent))
    start = np.searchsorted(parent[order], np.arange(n))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - np.repeat(start, np.bincount(parent, minlength=n))
    return rank


def group_top(scores: np.ndarray, parent: np.ndarray, n: int, k: int) -> np.ndarray:
    """(N,) bool: the ``k`` highest scores of each parent's group (ties to the first, as
    ``group_rank(...) < k``); ``k`` passes of the one-pass group_argmax where k is small."""
    if k > 4:
        return group_rank(scores, parent, n) < k
    scores = np.array(scores, dtype=np.float64)
    top = np.zeros(len(scores), dtype=bool)
    for _ in range(k):
        best = group_argmax(scores, parent, n)
        best = best[~top[best]]  # a group with fewer than k rows: its best is already taken
        if not len(best):
            break
        top[best] = True
        scores[best] = -np.inf
    return top


def group_starts(parent: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(start, count) of each parent's block of children; ``parent`` sorted."""
    count = np.bincount(parent, minlength=n)
    start = np.cumsum(count) - count
    return start, count


class Player:
    """Base class: subclasses implement ``select``; ``choose`` is the convenience entry."""

    name = "player"

    def __init__(self, game: str):
        self.game = game

    def select(self, positions: np.ndarray, dice: np.ndarray, children: np.ndarray,
               parent: np.ndarray) -> np.ndarray:
        """(B,) indices into ``children``: the play made from each position."""
        raise NotImplementedError

    def choose(self, positions: np.ndarray, dice: np.ndarray, first_turn=None) -> np.ndarray:
        """The positions (B, 28) this player's plays leave, seen by the mover before the turn passes."""
        positions = np.atleast_2d(np.asarray(positions, dtype=np.int8))
        dice = np.atleast_2d(np.asarray(dice))
        children, parent = legal_plays(self.game, positions, dice, first_turn)
        return children[self.select(positions, dice, children, parent)]

    def reset(self) -> None:
        """Called between batches of games; stateless players ignore it."""


class RandomPlayer(Player):
    """Picks uniformly among the distinct legal results."""

    name = "random"

    def __init__(self, game: str, seed: int | None = None):
        super().__init__(game)
        self.rng = np.random.default_rng(seed)

    def select(self, positions, dice, children, parent):
        start, count = group_starts(parent, len(positions))
        return start + (self.rng.random(len(positions)) * count).astype(np.int64)
