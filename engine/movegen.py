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

With numba installed, ``legal_plays`` runs engine/movegen_numba.py's kernel instead, which walks the
same sequences one position at a time and gives the same answer (engine/compiled.py says when); this
numpy code is the reference.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from engine.board import BAR, CHECKERS, HEAD, NUM_SLOTS, OFF, OPP_BAR, POINTS, check_game
from engine.compiled import Kernels, charge_numpy
from engine.rules import NO_HEAD, head_limits, heads_left, single_die_moves, six_in_a_row_violations

_HASH = np.array(
    [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93],
    dtype=np.uint64,
)


def _rows(array: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``array[index]`` for an integer ``index`` along the first axis: np.take copies rows of a 2-D
    or 3-D array two to three times faster than fancy indexing does."""
    return np.take(array, index, axis=0)


def _where(mask: np.ndarray, array: np.ndarray) -> np.ndarray:
    """``array[mask]`` for a boolean ``mask`` along the first axis, the rows copied by np.compress
    (three or more times faster than boolean indexing of a 2-D array)."""
    return np.compress(mask, array, axis=0)


def _dedupe(children: np.ndarray, parent: np.ndarray, trail=None):
    """Keep the first occurrence of each distinct (parent, position) pair, in their original order.

    ``trail`` (n, 4, 2), if given, holds the (source, die) steps that led to each row; each kept child
    gets the greatest of its duplicates' trails, compared step by step, die first, then source (the
    higher die first, then the highest source): the first a search over dice high to low and sources
    from the bar down finds, whatever order the generator met them in.

    Rows are packed with their parent index into four 64-bit words and hashed; rows whose hashes
    are equal are then compared in full, so the result is exact (a real 64-bit collision falls back
    to an exact row sort).
    """
    n = len(children)
    if n <= 1:
        return children, parent, trail
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
    if len(starts) == n:  # no duplicates
        return children, parent, trail
    first = np.minimum.reduceat(order, starts)  # the first occurrence of each distinct row
    by_first = np.argsort(first)
    keep = first[by_first]
    if trail is None:
        return _rows(children, keep), parent[keep], None
    step_rank = trail[:, :, 1].astype(np.int64) * 32 + trail[:, :, 0]  # (n, 4), die then source
    rank = ((step_rank[:, 0] * 256 + step_rank[:, 1]) * 256 + step_rank[:, 2]) * 256 + step_rank[:, 3]
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))  # of each entry of order
    best = order[np.lexsort((-rank[order], group))][starts]  # per group, the greatest trail
    return _rows(children, keep), parent[keep], _rows(trail, best[by_first])


def _step(game: str, positions: np.ndarray, dice: np.ndarray, head_left: np.ndarray,
          allowed: np.ndarray | None = None):
    """Every way to play one die (per row) from each position: (children, source row, source slot).

    ``head_left`` (N,) is how many more checkers may still leave the head this turn (nardi only);
    ``allowed`` (N, 25), if given, limits the sources a checker may move from.
    """
    rows, sources, dest = single_die_moves(game, positions, dice, head_left, allowed)
    children = _rows(positions, rows)
    flat = children.reshape(-1)  # a view: one flat index per change is cheaper than (row, column) pairs
    row_start = np.arange(0, len(flat), NUM_SLOTS)
    flat[row_start + sources] -= 1
    at = row_start + np.where(dest >= 1, dest - 1, OFF)
    if game == "backgammon":
        before = flat[at]
        hit = before == -1  # a lone opponent checker (never the borne-off count, which is >= 0)
        flat[at] = before + 1 + hit  # -1 becomes our single checker
        children[:, OPP_BAR] += hit
    else:
        flat[at] += 1
    return children, rows, sources


def _record(trail, rows, sources, dice, depth: int):
    """The trails of ``_step``'s children: their parents' trails (rows ``rows``) with the step just
    taken, (source point 1..25, die), written at ``depth``; None when steps are not being recorded."""
    if trail is None:
        return None
    out = _rows(trail, rows)
    out[:, depth, 0] = sources + 1
    out[:, depth, 1] = dice
    return out


def _final_ok(game: str, children: np.ndarray) -> np.ndarray:
    """Rule 1: which final positions may stand (long nardi's six-in-a-row rule)."""
    if game != "nardi":
        return np.ones(len(children), dtype=bool)
    return ~six_in_a_row_violations(children)


_BAD_DICE = "dice must have shape (B, 2) with values 1..6"
_INT8, _INT64 = np.dtype(np.int8), np.dtype(np.int64)  # as dtypes, not types: 30 ns less to convert to


def _dice_in_range(dice: np.ndarray) -> bool:
    """Every die 1..6; for a few rows by Python's min and max (a fifth of numpy's reductions' time,
    which one position's plays, as a hint asks for them, would spend on them)."""
    if dice.size <= 32:
        values = dice.ravel().tolist()
        return not values or (min(values) >= 1 and max(values) <= 6)
    return bool(dice.min() >= 1 and dice.max() <= 6)


def legal_plays(game: str, positions: np.ndarray, dice: np.ndarray, first_turn=None,
                with_steps: bool = False):
    """All distinct results of legal full plays: (children[N, 28] int8, parent[N] int64), by parent.

    positions: (B, 28) int8 in the mover's frame; dice: (B, 2) ints 1..6 in any order.
    first_turn: long nardi only, bool or (B,) bools; None means "all 15 checkers on the head".
    with_steps: also return steps[N, 4, 2] int8, for each child the single-checker steps of the play
    the generator took to reach it, in the order taken, each step a (source point 1..25, 25 = bar,
    die) pair; rows past the play's last step are (0, 0), and a pass has none. Each step is a legal
    move of the position the steps before it leave (a non-double's higher die first whenever that
    order reaches the child, a double's sources never rising).
    """
    check_game(game)
    positions = np.ascontiguousarray(positions, _INT8)
    dice = np.ascontiguousarray(dice, _INT64)
    if positions.ndim != 2 or positions.shape[1] != NUM_SLOTS:
        raise ValueError(f"positions must have shape (B, {NUM_SLOTS}), got {positions.shape}")
    if dice.shape != (len(positions), 2):
        raise ValueError(_BAD_DICE)
    if game == "backgammon" and len(positions) <= len(NO_HEAD):  # limits that never limit, the first B read
        limits = NO_HEAD
    else:
        limits = np.ascontiguousarray(head_limits(game, positions, dice, first_turn), _INT8)
    kernels = _kernel()
    if kernels is not None:  # given the types movegen_numba.compiled asks for; it checks the dice' values
        with_trails, without, one, workspace = kernels
        try:
            arrays = _local.workspace
        except AttributeError:  # this thread's first call
            arrays = _local.workspace = workspace()
        nardi = game == "nardi"
        if with_steps:
            return with_trails(positions, dice, limits, nardi, *arrays)
        if len(positions) == 1:  # a hint's: every parent is 0
            children = one(positions, dice, limits, nardi, *arrays)
            return children, np.zeros(len(children), _INT64)
        return without(positions, dice, limits, nardi, *arrays)
    if not _dice_in_range(dice):
        raise ValueError(_BAD_DICE)
    if len(positions) == 0:
        empty = positions.copy(), np.zeros(0, dtype=np.int64)
        return (*empty, np.zeros((0, 4, 2), dtype=np.int8)) if with_steps else empty
    start = time.perf_counter()
    is_double = dice[:, 0] == dice[:, 1]
    kids, par, trails = [], [], []
    for select, generate in ((~is_double, _non_doubles), (is_double, _doubles)):
        idx = np.flatnonzero(select)
        if len(idx):
            trail = np.zeros((len(idx), 4, 2), dtype=np.int8) if with_steps else None
            children, parent, trail = generate(game, _rows(positions, idx), dice[idx], limits[idx], trail)
            kids.append(children)
            par.append(idx[parent])
            trails.append(trail)
    children = np.concatenate(kids)
    parent = np.concatenate(par)
    order = np.argsort(parent, kind="stable")
    charge_numpy(time.perf_counter() - start)
    if with_steps:
        return _rows(children, order), parent[order], _rows(np.concatenate(trails), order)
    return _rows(children, order), parent[order]


def _import_kernel():
    """engine/movegen_numba.py's generator (the same children in the same order), with the step trails,
    without them (no trails kept, one array fewer to hand back) and for one position without them
    (the children alone), as their compiled code, and the maker of the workspace they run in, imported
    the first time engine/compiled.py's ``numba_due`` says so (never when this module is); until then,
    or without numba, the numpy code here runs."""
    from engine.movegen_numba import (
        children_kernel,
        compiled,
        legal_plays_kernel,
        one_position_kernel,
        workspace,
    )

    return compiled(legal_plays_kernel), compiled(children_kernel), compiled(one_position_kernel), workspace


_kernel = Kernels(_import_kernel)
_local = threading.local()
"""``_local.workspace``: this thread's kernel workspace (a kernel writes all over it, so threads that
call ``legal_plays`` at once, a web server's, need one each)."""


def _with_passes(positions, children, parent, n, trail):
    """Give every parent with no child a single child: itself (the turn passes), with no steps."""
    has_child = np.zeros(n, dtype=bool)
    has_child[parent] = True
    missing = np.flatnonzero(~has_child)
    if len(missing):
        children = np.concatenate([children, _rows(positions, missing)])
        parent = np.concatenate([parent, missing])
        if trail is not None:
            trail = np.concatenate([trail, np.zeros((len(missing), 4, 2), dtype=np.int8)])
    return children, parent, trail


def _non_doubles(game, positions, dice, head_limit, trail):
    """Plays of non-doubles: both orders of the two dice, then the one-die fallbacks.

    The low-then-high order skips a high move that was already legal at the start: such a
    sequence (low by checker B, then high by checker A from source s) leaves the same position as A
    high first, then B low, and that sequence is legal too, because a move never closes a point
    to its own side, never makes the all-home condition false, never raises the highest point, and
    only empties its own source (if B left s, A is another checker of s, so s had two). So only
    the sequences the first move makes possible are expanded: the same checker moving on, a bar
    checker entering first, bearing off once all are home or from a new highest point.
    ``trail`` (n, 4, 2) or None: the steps are recorded in it (see ``legal_plays``' with_steps).
    """
    n = len(positions)
    high = dice.max(axis=1)
    low = dice.min(axis=1)
    heads = positions[:, HEAD]
    # high die first, then low
    high1, high1_par, high1_src = _step(game, positions, high, head_limit)
    high1_trail = _record(trail, high1_par, high1_src, high[high1_par], 0)
    high_at_start = np.zeros((n, 25), dtype=bool)
    high_at_start[high1_par, high1_src] = True
    left = heads_left(game, head_limit[high1_par], heads[high1_par], high1)
    both_a, rows, src = _step(game, high1, low[high1_par], left)
    par_a = high1_par[rows]
    trail_a = _record(high1_trail, rows, src, low[par_a], 1)
    # low die first, then high only where the high move is new
    low1, low1_par, low1_src = _step(game, positions, low, head_limit)
    low1_trail = _record(trail, low1_par, low1_src, low[low1_par], 0)
    left = heads_left(game, head_limit[low1_par], heads[low1_par], low1)
    both_b, rows, src = _step(game, low1, high[low1_par], left, ~high_at_start[low1_par])
    par_b = low1_par[rows]
    trail_b = _record(low1_trail, rows, src, high[par_b], 1)
    kids = np.concatenate([both_a, both_b])
    par = np.concatenate([par_a, par_b])
    ok = _final_ok(game, kids)
    two_trail = None if trail is None else _where(ok, np.concatenate([trail_a, trail_b]))
    kids, par, two_trail = _dedupe(_where(ok, kids), par[ok], two_trail)
    # Parents where no two-dice play survives fall back to one die, the higher one if possible.
    need = np.ones(n, dtype=bool)
    need[par] = False
    if not need.any():
        return kids, par, two_trail
    one_kids = np.concatenate([high1, low1])
    one_par = np.concatenate([high1_par, low1_par])
    one_high = np.concatenate([np.ones(len(high1), bool), np.zeros(len(low1), bool)])
    take = need[one_par] & _final_ok(game, one_kids)
    one_kids, one_par, one_high = _where(take, one_kids), one_par[take], one_high[take]
    has_high = np.zeros(n, dtype=bool)
    has_high[one_par[one_high]] = True
    keep = one_high | ~has_high[one_par]
    one_trail = None if trail is None else _where(keep, _where(take, np.concatenate([high1_trail, low1_trail])))
    one_kids, one_par, one_trail = _dedupe(_where(keep, one_kids), one_par[keep], one_trail)
    kids = np.concatenate([kids, one_kids])
    par = np.concatenate([par, one_par])
    if trail is not None:
        trail = np.concatenate([two_trail, one_trail])
    return _with_passes(positions, kids, par, n, trail)


_SOURCE_SLOTS = np.arange(25)


def _doubles(game, positions, dice, head_limit, trail):
    """Plays of doubles: up to four steps of the die, keeping for each parent the deepest legal ones.

    Only sequences whose sources never rise (bar = slot 24 highest) are expanded: any legal
    sequence can be reordered that way with the same result, since a move from a lower source never
    makes a move from a higher source legal (it cannot open a point, bring the last outside checker
    home past it, lower the highest point below it, or fill its source) and, moved ahead, the
    higher move leaves the lower one legal (a move never closes a point to its own side, and the
    lower checker bore off "from the highest point" only if nothing stood higher).
    ``trail`` (n, 4, 2) or None: the steps are recorded in it (see ``legal_plays``' with_steps).
    """
    n = len(positions)
    die = dice[:, 0]
    heads = positions[:, HEAD]
    level_kids, level_par, level_trail = positions, np.arange(n), trail
    level_top = np.full(n, 24)  # the highest source the next move may use
    best_depth = np.zeros(n, dtype=np.int8)
    finals = []  # (depth, children, parent, trail) of each level, filtered by rule 1
    for depth in range(1, 5):
        left = heads_left(game, head_limit[level_par], heads[level_par], level_kids)
        allowed = _SOURCE_SLOTS[None, :] <= level_top[:, None]
        kids, rows, sources = _step(game, level_kids, die[level_par], left, allowed)
        if len(kids) == 0:
            break
        par = level_par[rows]
        level_trail = _record(level_trail, rows, sources, die[par], depth - 1)
        ok = _final_ok(game, kids)
        if ok.any():
            best_depth[par[ok]] = depth
            finals.append((depth, _where(ok, kids), par[ok], None if trail is None else _where(ok, level_trail)))
        level_kids, level_par, level_top = kids, par, sources
    out_kids, out_par, out_trail = [], [], []
    for depth, kids, par, steps in finals:
        keep = best_depth[par] == depth
        out_kids.append(_where(keep, kids))
        out_par.append(par[keep])
        out_trail.append(None if steps is None else _where(keep, steps))
    if out_kids:
        kids, par, trail = _dedupe(np.concatenate(out_kids), np.concatenate(out_par),
                                   None if trail is None else np.concatenate(out_trail))
    else:
        kids, par = positions[:0], np.zeros(0, dtype=np.int64)
        trail = None if trail is None else trail[:0]
    return _with_passes(positions, kids, par, n, trail)


def count_plays(game: str, positions: np.ndarray, dice: np.ndarray, first_turn=None) -> np.ndarray:
    """Number of distinct legal results per position (B,); a pass counts as one."""
    _, parent = legal_plays(game, positions, dice, first_turn)
    return np.bincount(parent, minlength=len(positions))


ALL_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
"""The 21 distinct rolls, higher die first."""
ROLL_WEIGHTS = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 1.0, 2.0) / 36.0
"""Probability of each of the 21 rolls: 1/36 for a double, 2/36 otherwise."""
ROLL_INDEX = np.zeros((7, 7), dtype=np.int64)
ROLL_INDEX[ALL_ROLLS[:, 0], ALL_ROLLS[:, 1]] = ROLL_INDEX[ALL_ROLLS[:, 1], ALL_ROLLS[:, 0]] = np.arange(len(ALL_ROLLS))
"""Row of ALL_ROLLS of the throw (a, b), in either order: ROLL_INDEX[a, b]."""

__all__ = ["ALL_ROLLS", "BAR", "CHECKERS", "POINTS", "ROLL_INDEX", "ROLL_WEIGHTS", "count_plays", "legal_plays"]
