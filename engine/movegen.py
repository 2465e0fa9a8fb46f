"""The batched move generator shared by both games.

``legal_plays(game, positions[B], dice[B])`` returns every distinct position a legal full play of the
roll can leave, with the index of the position it came from: ``(children[N, 28], parent[N])``, sorted
by parent, seen by the same side (the mover) before the turn passes. A position with no legal play
gets exactly one child: itself (the turn passes).

The rules of "using the roll" (RULES-DECISIONS.md), applied in this order:
  1. drop every sequence whose final position breaks a rule that looks at the final position
     (long nardi's six-in-a-row rule is the only one);
  2. among what is left, keep the sequences that use the most dice;
  3. if that is one die of a non-double and some remaining one-die play uses the higher die, keep
     only those;
  4. if no die can be used, the play is empty and the turn passes.

Work is done a die at a time on whole batches: every candidate position is expanded by every
checker that may move the die (a boolean mask of shape (N, 25)), the moves are applied with fancy
indexing, and duplicates are dropped by hashing. The only Python loops are over the (at most four)
die steps.
"""

from __future__ import annotations

import numpy as np

from .board import BAR, CHECKERS, HEAD, NUM_SLOTS, OFF, OPP_BAR, POINTS, check_game
from .rules import first_turn_default, single_die_moves, six_in_a_row_violations

_HASH = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
    dtype=np.uint64,
)


def _dedupe(children: np.ndarray, parent: np.ndarray, extra: np.ndarray | None = None):
    """Keep the first of each distinct (parent, position) pair; order of first occurrences kept.

    Rows are packed with their parent index into four 64-bit words and hashed; rows whose hashes
    collide are then compared in full, so the result is exact (a real collision falls back to an
    exact row sort).
    """
    n = len(children)
    if n <= 1:
        return children, parent, extra
    packed = np.empty((n, 32), dtype=np.uint8)
    packed[:, :NUM_SLOTS] = children.view(np.uint8)
    packed[:, NUM_SLOTS:] = parent.astype("<u4").view(np.uint8).reshape(n, 4)
    words = packed.view(np.uint64)  # (n, 4)
    with np.errstate(over="ignore"):
        h = words * _HASH
        key = h[:, 0] ^ (h[:, 1] >> np.uint64(7)) ^ (h[:, 2] << np.uint64(3)) ^ (h[:, 3] >> np.uint64(17))
        key ^= key >> np.uint64(29)
        key *= _HASH[1]
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    same_hash = sorted_key[1:] == sorted_key[:-1]
    rows = words[order]
    same_row = (rows[1:] == rows[:-1]).all(axis=1)
    if np.any(same_hash & ~same_row):  # a true 64-bit collision: be exact the slow way
        order = np.lexsort(words.T[::-1])
        rows = words[order]
        same_row = (rows[1:] == rows[:-1]).all(axis=1)
    first = np.ones(n, dtype=bool)
    first[1:] = ~same_row
    keep = np.sort(order[first])
    return children[keep], parent[keep], None if extra is None else extra[keep]


def _step(game: str, positions: np.ndarray, dice: np.ndarray, head_left: np.ndarray):
    """Every way to play one die (per row) from each position: (children, source row).

    ``head_left`` (N,) is how many more checkers may still leave the head this turn (nardi only).
    """
    rows, sources, dest = single_die_moves(game, positions, dice, head_left)
    children = positions[rows].copy()
    k = np.arange(len(rows))
    children[k, sources] -= 1
    on_board = dest >= 1
    dest_slot = np.where(on_board, dest - 1, OFF)
    hit = on_board & (positions[rows, np.clip(dest - 1, 0, 23)] == -1)
    children[k, dest_slot] += 1
    if game == "backgammon":
        children[k[hit], dest_slot[hit]] = 1
        children[k[hit], OPP_BAR] += 1
    return children, rows


def _head_limits(game: str, positions: np.ndarray, dice: np.ndarray, first_turn) -> np.ndarray:
    """How many checkers may leave the head this turn: 1, or 2 on a first turn with 6-6, 4-4 or 3-3."""
    n = len(positions)
    if game != "nardi":
        return np.full(n, 4, dtype=np.int8)
    if first_turn is None:
        first = first_turn_default(positions)
    else:
        first = np.broadcast_to(np.asarray(first_turn, dtype=bool), (n,))
    special = (dice[:, 0] == dice[:, 1]) & np.isin(dice[:, 0], (3, 4, 6))
    return np.where(first & special, 2, 1).astype(np.int8)


def _final_ok(game: str, children: np.ndarray) -> np.ndarray:
    """Rule 1: which final positions may stand (long nardi's six-in-a-row rule)."""
    if game != "nardi":
        return np.ones(len(children), dtype=bool)
    return ~six_in_a_row_violations(children)


def legal_plays(game: str, positions: np.ndarray, dice: np.ndarray, first_turn=None):
    """All distinct results of legal full plays: (children[N, 28] int8, parent[N] int64), by parent.

    positions: (B, 28) int8 in the mover's frame; dice: (B, 2) ints 1..6 in any order.
    first_turn: long nardi only, bool or (B,) bools; None means "all 15 checkers on the head".
    """
    check_game(game)
    positions = np.ascontiguousarray(positions, dtype=np.int8)
    dice = np.asarray(dice, dtype=np.int64)
    if positions.ndim != 2 or positions.shape[1] != NUM_SLOTS:
        raise ValueError(f"positions must have shape (B, {NUM_SLOTS}), got {positions.shape}")
    if dice.shape != (len(positions), 2) or dice.min(initial=1) < 1 or dice.max(initial=6) > 6:
        raise ValueError("dice must have shape (B, 2) with values 1..6")
    if len(positions) == 0:
        return positions.copy(), np.zeros(0, dtype=np.int64)
    head_limit = _head_limits(game, positions, dice, first_turn)
    is_double = dice[:, 0] == dice[:, 1]
    parts = []
    for select, generate in ((~is_double, _non_doubles), (is_double, _doubles)):
        idx = np.flatnonzero(select)
        if len(idx):
            kids, par = generate(game, positions[idx], dice[idx], head_limit[idx])
            parts.append((kids, idx[par]))
    children = np.concatenate([p[0] for p in parts])
    parent = np.concatenate([p[1] for p in parts])
    order = np.argsort(parent, kind="stable")
    return children[order], parent[order]


def _with_passes(positions, children, parent, n):
    """Give every parent with no child a single child: itself (the turn passes)."""
    missing = np.setdiff1d(np.arange(n), parent, assume_unique=False)
    if len(missing):
        children = np.concatenate([children, positions[missing]])
        parent = np.concatenate([parent, missing])
    return children, parent


def _non_doubles(game, positions, dice, head_limit):
    """Plays of non-doubles: both orders of the two dice, then the one-die fallbacks."""
    n = len(positions)
    high = dice.max(axis=1)
    low = dice.min(axis=1)
    heads = positions[:, HEAD].astype(np.int8)
    full_kids, full_par, one_kids, one_par, one_high = [], [], [], [], []
    for first, second, first_is_high in ((high, low, True), (low, high, False)):
        left = head_limit.copy()
        c1, p1 = _step(game, positions, first, left)
        left1 = head_limit[p1] - (heads[p1] - c1[:, HEAD])
        c2, p2 = _step(game, c1, second[p1], left1)
        full_kids.append(c2)
        full_par.append(p1[p2])
        ok1 = _final_ok(game, c1)
        one_kids.append(c1[ok1])
        one_par.append(p1[ok1])
        one_high.append(np.full(int(ok1.sum()), first_is_high))
    kids = np.concatenate(full_kids)
    par = np.concatenate(full_par)
    ok = _final_ok(game, kids)
    kids, par, _ = _dedupe(kids[ok], par[ok])
    # Parents where no two-dice play survives fall back to one die, the higher one if possible.
    need = np.ones(n, dtype=bool)
    need[par] = False
    okids = np.concatenate(one_kids)
    opar = np.concatenate(one_par)
    ohigh = np.concatenate(one_high)
    take = need[opar]
    okids, opar, ohigh = okids[take], opar[take], ohigh[take]
    has_high = np.zeros(n, dtype=bool)
    has_high[opar[ohigh]] = True
    keep = ohigh | ~has_high[opar]
    okids, opar, _ = _dedupe(okids[keep], opar[keep])
    kids = np.concatenate([kids, okids])
    par = np.concatenate([par, opar])
    return _with_passes(positions, kids, par, n)


def _doubles(game, positions, dice, head_limit):
    """Plays of doubles: up to four steps of the die, keeping for each parent the deepest legal ones."""
    n = len(positions)
    die = dice[:, 0]
    heads = positions[:, HEAD].astype(np.int8)
    level_kids, level_par = positions, np.arange(n)
    best_depth = np.zeros(n, dtype=np.int8)
    finals = []  # (depth, children, parent) of each level, filtered by rule 1
    for depth in range(1, 5):
        left = head_limit[level_par] - (heads[level_par] - level_kids[:, HEAD])
        kids, rows = _step(game, level_kids, die[level_par], left)
        if len(kids) == 0:
            break
        par = level_par[rows]
        kids, par, _ = _dedupe(kids, par)
        ok = _final_ok(game, kids)
        if ok.any():
            best_depth[par[ok]] = depth
            finals.append((depth, kids[ok], par[ok]))
        level_kids, level_par = kids, par
    out_kids, out_par = [], []
    for depth, kids, par in finals:
        keep = best_depth[par] == depth
        out_kids.append(kids[keep])
        out_par.append(par[keep])
    if out_kids:
        kids, par = np.concatenate(out_kids), np.concatenate(out_par)
    else:
        kids, par = positions[:0], np.zeros(0, dtype=np.int64)
    return _with_passes(positions, kids, par, n)


def count_plays(game: str, positions: np.ndarray, dice: np.ndarray, first_turn=None) -> np.ndarray:
    """Number of distinct legal results per position (B,); a pass counts as one."""
    _, parent = legal_plays(game, positions, dice, first_turn)
    return np.bincount(parent, minlength=len(positions))


ALL_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
"""The 21 distinct rolls, higher die first."""
ROLL_WEIGHTS = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 1.0, 2.0) / 36.0
"""Probability of each of the 21 rolls: 1/36 for a double, 2/36 otherwise."""

__all__ = ["legal_plays", "count_plays", "ALL_ROLLS", "ROLL_WEIGHTS", "CHECKERS", "BAR", "POINTS"]
