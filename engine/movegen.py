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

Two orders of moves that can only repeat a result are never expanded (both proved in the docstrings
of ``_non_doubles`` and ``_doubles`` and checked against the scalar reference in the tests): a
non-double's low-then-high sequences whose high move was already legal at the start, and a double's
sequences whose sources are not in non-increasing order.
"""

from __future__ import annotations

import numpy as np

from engine.board import BAR, CHECKERS, HEAD, NUM_SLOTS, OFF, OPP_BAR, POINTS, check_game
from engine.rules import head_limits, heads_left, single_die_moves, six_in_a_row_violations

_HASH = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
    dtype=np.uint64,
)


def _dedupe(children: np.ndarray, parent: np.ndarray):
    """Keep the first occurrence of each distinct (parent, position) pair, in their original order.

    Rows are packed with their parent index into four 64-bit words and hashed; rows whose hashes
    are equal are then compared in full, so the result is exact (a real 64-bit collision falls back
    to an exact row sort).
    """
    n = len(children)
    if n <= 1:
        return children, parent
    packed = np.empty((n, 32), dtype=np.uint8)
    packed[:, :NUM_SLOTS] = children.view(np.uint8)
    packed[:, NUM_SLOTS:] = parent.astype("<u4").view(np.uint8).reshape(n, 4)
    words = packed.view(np.uint64)  # (n, 4)
    with np.errstate(over="ignore"):
        h = words * _HASH
        key = h[:, 0] ^ (h[:, 1] >> np.uint64(7)) ^ (h[:, 2] << np.uint64(3)) ^ (h[:, 3] >> np.uint64(17))
        key ^= key >> np.uint64(29)
        key *= _HASH[1]
    order = np.argsort(key)
    sorted_key = key[order]
    same = sorted_key[1:] == sorted_key[:-1]  # candidates for duplicates: equal hashes
    pairs = np.flatnonzero(same)
    a, b = words[order[pairs]], words[order[pairs + 1]]
    equal = (a[:, 0] == b[:, 0]) & (a[:, 1] == b[:, 1]) & (a[:, 2] == b[:, 2]) & (a[:, 3] == b[:, 3])
    if not equal.all():  # a true 64-bit collision: be exact the slow way
        order = np.lexsort(words.T[::-1])
        rows = words[order]
        same = (rows[1:] == rows[:-1]).all(axis=1)
    starts = np.flatnonzero(np.concatenate([[True], ~same]))
    keep = np.sort(np.minimum.reduceat(order, starts))  # the first occurrence of each distinct row
    return children[keep], parent[keep]


def _step(game: str, positions: np.ndarray, dice: np.ndarray, head_left: np.ndarray,
          allowed: np.ndarray | None = None):
    """Every way to play one die (per row) from each position: (children, source row, source slot).

    ``head_left`` (N,) is how many more checkers may still leave the head this turn (nardi only);
    ``allowed`` (N, 25), if given, limits the sources a checker may move from.
    """
    rows, sources, dest = single_die_moves(game, positions, dice, head_left, allowed)
    children = positions[rows]  # fancy indexing copies
    k = np.arange(len(rows))
    children[k, sources] -= 1
    dest_slot = np.where(dest >= 1, dest - 1, OFF)
    if game == "backgammon":
        before = children[k, dest_slot]
        hit = before == -1  # a lone opponent checker (never the borne-off count, which is >= 0)
        children[k, dest_slot] = before + 1 + hit  # -1 becomes our single checker
        children[:, OPP_BAR] += hit
    else:
        children[k, dest_slot] += 1
    return children, rows, sources


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
    head_limit = head_limits(game, positions, dice, first_turn)
    is_double = dice[:, 0] == dice[:, 1]
    kids, par = [], []
    for select, generate in ((~is_double, _non_doubles), (is_double, _doubles)):
        idx = np.flatnonzero(select)
        if len(idx):
            children, parent = generate(game, positions[idx], dice[idx], head_limit[idx])
            kids.append(children)
            par.append(idx[parent])
    children = np.concatenate(kids)
    parent = np.concatenate(par)
    order = np.argsort(parent, kind="stable")
    return children[order], parent[order]


def _with_passes(positions, children, parent, n):
    """Give every parent with no child a single child: itself (the turn passes)."""
    has_child = np.zeros(n, dtype=bool)
    has_child[parent] = True
    missing = np.flatnonzero(~has_child)
    if len(missing):
        children = np.concatenate([children, positions[missing]])
        parent = np.concatenate([parent, missing])
    return children, parent


def _non_doubles(game, positions, dice, head_limit):
    """Plays of non-doubles: both orders of the two dice, then the one-die fallbacks.

    The low-then-high order skips a high move that was already legal at the start: such a
    sequence (low by checker B, then high by checker A from source s) leaves the same position as A
    high first, then B low, and that sequence is legal too, because a move never closes a point
    to its own side, never makes the all-home condition false, never raises the highest point, and
    only empties its own source (if B left s, A is another checker of s, so s had two). So only
    the sequences the first move makes possible are expanded: the same checker moving on, a bar
    checker entering first, bearing off once all are home or from a new highest point.
    """
    n = len(positions)
    high = dice.max(axis=1)
    low = dice.min(axis=1)
    heads = positions[:, HEAD]
    # high die first, then low
    high1, high1_par, high1_src = _step(game, positions, high, head_limit)
    high_at_start = np.zeros((n, 25), dtype=bool)
    high_at_start[high1_par, high1_src] = True
    left = heads_left(game, head_limit[high1_par], heads[high1_par], high1)
    both_a, rows, _ = _step(game, high1, low[high1_par], left)
    par_a = high1_par[rows]
    # low die first, then high only where the high move is new
    low1, low1_par, _ = _step(game, positions, low, head_limit)
    left = heads_left(game, head_limit[low1_par], heads[low1_par], low1)
    both_b, rows, _ = _step(game, low1, high[low1_par], left, ~high_at_start[low1_par])
    par_b = low1_par[rows]
    kids = np.concatenate([both_a, both_b])
    par = np.concatenate([par_a, par_b])
    ok = _final_ok(game, kids)
    kids, par = _dedupe(kids[ok], par[ok])
    # Parents where no two-dice play survives fall back to one die, the higher one if possible.
    need = np.ones(n, dtype=bool)
    need[par] = False
    one_kids = np.concatenate([high1, low1])
    one_par = np.concatenate([high1_par, low1_par])
    one_high = np.concatenate([np.ones(len(high1), bool), np.zeros(len(low1), bool)])
    take = need[one_par] & _final_ok(game, one_kids)
    one_kids, one_par, one_high = one_kids[take], one_par[take], one_high[take]
    has_high = np.zeros(n, dtype=bool)
    has_high[one_par[one_high]] = True
    keep = one_high | ~has_high[one_par]
    one_kids, one_par = _dedupe(one_kids[keep], one_par[keep])
    kids = np.concatenate([kids, one_kids])
    par = np.concatenate([par, one_par])
    return _with_passes(positions, kids, par, n)


_SOURCE_SLOTS = np.arange(25)


def _doubles(game, positions, dice, head_limit):
    """Plays of doubles: up to four steps of the die, keeping for each parent the deepest legal ones.

    Only sequences whose sources never rise (bar = slot 24 highest) are expanded: any legal
    sequence can be reordered that way with the same result, since a move from a lower source never
    makes a move from a higher source legal (it cannot open a point, bring the last outside checker
    home past it, lower the highest point below it, or fill its source) and, moved ahead, the
    higher move leaves the lower one legal (a move never closes a point to its own side, and the
    lower checker bore off "from the highest point" only if nothing stood higher).
    """
    n = len(positions)
    die = dice[:, 0]
    heads = positions[:, HEAD]
    level_kids, level_par = positions, np.arange(n)
    level_top = np.full(n, 24)  # the highest source the next move may use
    best_depth = np.zeros(n, dtype=np.int8)
    finals = []  # (depth, children, parent) of each level, filtered by rule 1
    for depth in range(1, 5):
        left = heads_left(game, head_limit[level_par], heads[level_par], level_kids)
        allowed = _SOURCE_SLOTS[None, :] <= level_top[:, None]
        kids, rows, sources = _step(game, level_kids, die[level_par], left, allowed)
        if len(kids) == 0:
            break
        par = level_par[rows]
        ok = _final_ok(game, kids)
        if ok.any():
            best_depth[par[ok]] = depth
            finals.append((depth, kids[ok], par[ok]))
        level_kids, level_par, level_top = kids, par, sources
    out_kids, out_par = [], []
    for depth, kids, par in finals:
        keep = best_depth[par] == depth
        out_kids.append(kids[keep])
        out_par.append(par[keep])
    if out_kids:
        kids, par = _dedupe(np.concatenate(out_kids), np.concatenate(out_par))
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

__all__ = ["ALL_ROLLS", "BAR", "CHECKERS", "POINTS", "ROLL_WEIGHTS", "count_plays", "legal_plays"]
