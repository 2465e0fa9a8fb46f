"""The luck's plays: a few good plays of each of the 21 rolls, found without generating every play.

A rollout's variance reduction (model/search/trials.py) needs, before every roll of every trial, a
value V(r) for each of the 21 rolls r; with ``prune`` = K (0-ply backgammon) V(r) is the evaluator's
best among K plays of r that pubeval scores highest. Any V that is a function of the position and the
roll keeps the luck's mean at zero, so these K plays need not be exactly pubeval's K best of all legal
plays: generating every play of every roll (some 500 children a position, half of them from the six
doubles) and scoring them all cost as much as the network. ``luck_plays`` finds them cheaper:

- one die: every single-checker move of each die 1..6 from the position, once for all rolls;
- a non-double a-b: every second move (b after a, a after b) of those, *scored before it is made*
  (pubeval is a sum over points, so a move changes the score by the shares of the two points it
  touches, and of the bar on a hit); only the K best distinct scores are made into positions. When
  neither order uses both dice, the one-die plays of the higher die, else of the lower (the rules'
  "use both dice, else the higher"): these are exactly the legal plays, so the K plays are pubeval's
  K best;
- a double: a beam search, each of the first three moves keeping the ``beam`` best distinct scores of
  each (position, roll), the fourth scored before it is made; where no checker can move further, the
  plays so far. A double's K plays are the best the beam finds, not always pubeval's K best.

Scores are pubeval's (model/net/pubeval.py) in fixed point, units of 2^-24: integers, so two
orders of moves that reach the same position reach the same score, and *distinct* means distinct
score (two different plays with exactly the same score count as one; a play that bears off the last
checker scores above all others). Backgammon only, as pubeval is.

Where numba runs (engine/compiled.py), model/search/top_plays_numba.py's kernel does the same search
one (position, roll) after another and returns the same arrays bit for bit, over ten times faster; the
numpy code here stays the reference (tests/search/test_top_plays_numba.py compares the two).
"""

from __future__ import annotations

import time
from functools import lru_cache

import numpy as np

from engine.board import CHECKERS, OFF, OPP_BAR, has_contact
from engine.compiled import Kernels, charge_numpy
from engine.movegen import ALL_ROLLS, legal_plays
from engine.rules import single_die_moves
from model.net.pubeval import flat_tables, table_cells

SCALE = 2.0**24
"""Fixed-point unit of the scores: pubeval's table entries rounded to multiples of 1/SCALE."""
WIN = 2.0**36
"""The score of a play that bears off the last checker: above every other (pubeval's scores stay
far below 2^36 / SCALE = 4096)."""
KEY_GROUP = 2**38  # top_distinct's sort key: group * KEY_GROUP - score
ROLLS = len(ALL_ROLLS)
DOUBLE = ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1]
BAR_SOURCE = 24  # the source slot of a checker entering from the bar (not scored: pubeval ignores our bar)
KERNEL_WIDTH = 64
"""The widest ``k`` and ``beam`` the compiled kernel takes (model/search/top_plays_numba.py's
MAX_WIDTH); wider searches (the tests of the beam's exactness) run the numpy code."""


@lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """(points (2, 24, 31), extra (2, 2)) as float64 integers: pubeval's per-point shares
    [race/contact][slot][signed count + 15] and the weight of one opponent checker on the bar and
    of one checker borne off, in units of 1/SCALE."""
    table, extra = flat_tables()
    return (np.round(table.astype(np.float64) * SCALE).reshape(2, 24, 31),
            np.round(np.asarray(extra, dtype=np.float64) * SCALE))


def scores(positions: np.ndarray, contact: np.ndarray) -> np.ndarray:
    """Fixed-point pubeval scores (n,) of after-play positions; ``contact`` (n,) picks the weights
    (of the position before the play). Equal positions get equal scores, whatever the order of sums."""
    points, extra = _tables()
    c = np.asarray(contact, dtype=np.intp)
    s = (np.take(points.ravel(), table_cells(positions, c)).sum(axis=1)
         + extra[c, 0] * positions[:, OPP_BAR] + extra[c, 1] * positions[:, OFF])
    return np.where(positions[:, OFF] == CHECKERS, WIN, s)


@lru_cache(maxsize=1)
def _move_tables() -> tuple[np.ndarray, np.ndarray]:
    """(leave (2 * 25 * 31,), land (2 * 24 * 31,)) float64 integers: the score change of one checker
    leaving slot s that holds signed count n (cell [race/contact][s][n + 15]; slot 24, the bar, not
    scored) and of one landing on point slot s that holds m (an opponent blot, m = -1, is hit: its
    checker goes to the bar), in units of 1/SCALE; _gain's two look-ups."""
    points, extra = _tables()
    leave = np.zeros((2, 25, 31))
    leave[:, :24, 1:] = points[:, :, :-1] - points[:, :, 1:]  # count n -> n - 1
    land = np.zeros((2, 24, 31))
    land[:, :, :-1] = points[:, :, 1:] - points[:, :, :-1]  # count m -> m + 1
    blot = 15 - 1  # m = -1: the blot leaves for the bar, the checker lands alone (count 1)
    land[:, :, blot] = points[:, :, 16] - points[:, :, blot] + extra[:, 0][:, None]
    return leave.reshape(-1), land.reshape(-1)


def _gain(positions, rows, sources, dest, contact):
    """(score change (n,), won (n,)) of moving one checker of ``positions[rows]`` from slot
    ``sources`` to point ``dest`` (<= 0: off), as single_die_moves reports the moves; ``contact``
    is per position; ``won`` where the move bears off the last checker."""
    leave, land = _move_tables()
    extra = _tables()[1]
    board = positions.reshape(-1)
    c = np.asarray(contact, dtype=np.intp)[rows]
    at = rows * positions.shape[1]
    gain = leave[c * (25 * 31) + 31 * sources + 15 + board[at + sources]]  # sources < 25: BAR_SOURCE is the bar slot
    off = dest < 1
    slot = np.where(off, 0, dest - 1)
    gain += np.where(off, extra[c, 1], land[c * (24 * 31) + 31 * slot + 15 + board[at + slot]])
    return gain, off & (board[at + OFF] == CHECKERS - 1)


def top_distinct(score: np.ndarray, group: np.ndarray, k: int) -> np.ndarray:
    """(n,) bool: in each group (``group`` sorted, values below 2^23), the first row of each of
    its ``k`` highest distinct scores (integers, |score| <= WIN)."""
    n = len(score)
    if not n:
        return np.zeros(0, dtype=bool)
    key = np.asarray(group, dtype=np.int64) * KEY_GROUP - np.asarray(score, dtype=np.int64)
    order = np.argsort(key, kind="stable")  # by group, best score first, ties in row order
    key = key[order]
    distinct = np.ones(n, dtype=bool)
    distinct[1:] = key[1:] != key[:-1]
    count = np.cumsum(distinct)  # distinct scores so far, all groups
    first = np.ones(n, dtype=bool)
    first[1:] = group[order][1:] != group[order][:-1]
    rank = count - np.maximum.accumulate(np.where(first, count, 0))  # 0 for the group's best
    chosen = np.zeros(n, dtype=bool)
    chosen[order[distinct & (rank < k)]] = True
    return chosen


def _heads(n: int) -> np.ndarray:
    return np.full(n, 4, dtype=np.int8)  # backgammon has no head: never limits


def _apply(positions, rows, sources, dest):
    """The positions after each move (rows into ``positions``, source slot, destination point <= 0
    for off) as single_die_moves reports it, made the way engine/movegen.py's _step makes it: the
    checker leaves its source, and lands on its point, sending a lone opponent checker to the bar."""
    children = positions[rows]
    k = np.arange(len(rows))
    children[k, sources] -= 1
    slot = np.where(dest >= 1, dest - 1, OFF)
    before = children[k, slot]
    hit = before == -1
    children[k, slot] = before + 1 + hit
    children[:, OPP_BAR] += hit
    return children


def _expand(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Concatenated ranges start[i] .. start[i] + count[i] - 1."""
    total = int(count.sum())
    offset = np.repeat(start - (np.cumsum(count) - count), count)
    return offset + np.arange(total)


def _next_move(positions, group, score, dice, contact, k, allowed=None):
    """Every move of ``dice`` from each of ``positions`` (their groups sorted; from the sources
    ``allowed`` (n, 25) marks, if given), scored before it is made; the k best distinct of each
    group made: (positions, group, score) of those."""
    rows, sources, dest = single_die_moves("backgammon", positions, dice, _heads(len(positions)), allowed)
    gain, won = _gain(positions, rows, sources, dest, contact)
    s = np.where(won, WIN, score[rows] + gain)
    keep = np.flatnonzero(top_distinct(s, group[rows], k))
    return _apply(positions, rows[keep], sources[keep], dest[keep]), group[rows[keep]], s[keep]


def luck_plays(game: str, positions: np.ndarray, k: int, beam: int = 6):
    """(children (M, 28) int8, group (M,) sorted): for each position u (U, 28, mover's frame) and
    roll index r of ALL_ROLLS, group u * 21 + r holds at most ``k`` plays (at least one: the
    position itself where no checker can move), the module docstring's way."""
    if game != "backgammon":
        raise ValueError("the luck's plays are pubeval's: backgammon only")
    positions = np.ascontiguousarray(positions, dtype=np.int8)
    kernel = _kernel()
    if kernel is not None and positions.ndim == 2 and 1 <= k <= KERNEL_WIDTH and 1 <= beam <= KERNEL_WIDTH:
        points, extra = _tables()
        return kernel(positions, int(k), int(beam), ALL_ROLLS, points, extra, *_move_tables())
    started = time.perf_counter()
    n = len(positions)
    contact = has_contact(game, positions)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    covered = np.zeros(n * ROLLS, dtype=bool)

    # one die: block u * 6 + d - 1 holds every move of die d (all made: the next moves start there)
    block_pos = np.repeat(positions, 6, axis=0)
    rows, one_source, dest = single_die_moves(game, block_pos, np.tile(np.arange(1, 7), n), _heads(6 * n))
    one = _apply(block_pos, rows, one_source, dest)
    gain, won = _gain(block_pos, rows, one_source, dest, np.repeat(contact, 6))
    block = rows
    one_score = np.where(won, WIN, scores(positions, contact)[block // 6] + gain)
    count = np.bincount(block, minlength=6 * n)
    start = np.cumsum(count) - count
    at_start = np.zeros((6 * n, 25), dtype=bool)
    at_start[block, one_source] = True

    # non-doubles: both orders of each roll, the low die first and then the high one only where
    # that move was not legal at the start (movegen's _non_doubles proves that any other such
    # sequence repeats a high-first one)
    hi, lo = ALL_ROLLS[~DOUBLE, 0], ALL_ROLLS[~DOUBLE, 1]
    req_block = (6 * np.arange(n)[:, None, None] + np.stack([hi - 1, lo - 1], axis=1)[None]).reshape(-1)
    req_die = np.broadcast_to(np.stack([lo, hi], axis=1)[None], (n, len(hi), 2)).reshape(-1)
    req_group = np.repeat(ROLLS * np.arange(n)[:, None] + np.flatnonzero(~DOUBLE)[None], 2)
    idx = _expand(start[req_block], count[req_block])
    req = np.repeat(np.arange(len(req_block)), count[req_block])
    allowed = np.ones((len(idx), 25), dtype=bool)
    low_first = np.flatnonzero(req % 2 == 1)
    allowed[low_first] = ~at_start[(block[idx] // 6 * 6 + req_die[req] - 1)[low_first]]
    made, group, _ = _next_move(one[idx], req_group[req], one_score[idx], req_die[req],
                                contact[block[idx] // 6], k, allowed)
    out.append((made, group))
    covered[group] = True
    # a non-double that cannot use both dice: the higher die's one-move plays, else the lower's
    u, j = np.divmod(np.flatnonzero(~covered.reshape(n, ROLLS)[:, ~DOUBLE].reshape(-1)), len(hi))
    for die in (hi, lo):
        b = 6 * u + die[j] - 1
        has = count[b] > 0
        rows = _expand(start[b[has]], count[b[has]])
        g = np.repeat(ROLLS * u[has] + np.flatnonzero(~DOUBLE)[j[has]], count[b[has]])
        keep = top_distinct(one_score[rows], g, k)
        out.append((one[rows[keep]], g[keep]))
        covered[g] = True
        u, j = u[~has], j[~has]

    # doubles: a beam search, every move scored before it is made
    d = np.arange(1, 7)
    b = (6 * np.arange(n)[:, None] + d - 1).reshape(-1)
    rows = _expand(start[b], count[b])
    group = np.repeat((ROLLS * np.arange(n)[:, None] + np.flatnonzero(DOUBLE)).reshape(-1), count[b])
    keep = top_distinct(one_score[rows], group, beam)
    pos, score, group = one[rows[keep]], one_score[rows[keep]], group[keep]
    covered[group] = True
    for moves in (2, 3, 4):
        made, made_group, made_score = _next_move(pos, group, score, ALL_ROLLS[group % ROLLS, 0],
                                                  contact[group // ROLLS], beam if moves < 4 else k)
        moved = np.zeros(n * ROLLS, dtype=bool)
        moved[made_group] = True
        stuck = ~moved[group]  # no further move: the plays so far
        if stuck.any():
            keep = top_distinct(score[stuck], group[stuck], k)
            out.append((pos[stuck][keep], group[stuck][keep]))
        pos, group, score = made, made_group, made_score
    out.append((pos, group))

    # no checker can move: the turn passes
    passes = np.flatnonzero(~covered)
    out.append((positions[passes // ROLLS], passes))
    children = np.concatenate([c for c, _ in out])
    group = np.concatenate([g for _, g in out])
    order = np.argsort(group, kind="stable")
    children, group = children[order], group[order]
    charge_numpy(time.perf_counter() - started)
    return children, group


def _import_kernel():
    from model.search.top_plays_numba import luck_kernel

    return luck_kernel


_kernel = Kernels(_import_kernel)


__all__ = ["luck_plays", "scores", "top_distinct"]


def roll_plays(game: str, positions: np.ndarray, prune: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(children, row): the plays of each of the 21 rolls from each of ``positions`` (B, 28), rows
    position * 21 + roll (ALL_ROLLS order): every legal play, or with ``prune`` = K > 0 (backgammon)
    ``luck_plays``' K that pubeval scores highest. The one-ply target and the pruned look-ahead
    (model/train/one_ply.py, model/search/lookahead.py) take their candidates here."""
    if prune > 0 and game == "backgammon":
        return luck_plays(game, positions, prune)
    frontier = np.repeat(positions, ROLLS, axis=0)
    return legal_plays(game, frontier, np.tile(ALL_ROLLS, (len(positions), 1)))
