"""Per-position choices among the generator's children: ``legal_plays`` returns the children of a batch
as one array with each child's parent index (sorted, every parent with at least one child), and
these pick, rank or count within each parent's group without a Python loop over positions.
"""

from __future__ import annotations

import numpy as np


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
    if n == 1:  # one position (a hint, a move in play): all the children are its own, no counting
        return np.zeros(1, dtype=np.int64), np.array([len(parent)], dtype=np.int64)
    count = np.bincount(parent, minlength=n)
    start = np.cumsum(count) - count
    return start, count
