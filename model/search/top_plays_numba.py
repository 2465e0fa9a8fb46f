"""The luck's plays as one numba kernel: what model/search/top_plays.py's ``luck_plays`` returns, bit for bit.

``luck_plays``' numpy code runs its search over all positions at once, step by step (every one-die
move, every second move of each non-double, each level of the doubles' beam), sorting at each step:
some 70 us a position in a rollout's batches, a quarter of its time. This kernel runs the same
search one (position, roll) group after another, in the order of the numpy code's output (position,
then roll in ALL_ROLLS order), and writes each group's plays in the order that code keeps them
(some 6 to 10 us a position):

- moves are enumerated as engine/rules.py's ``single_die_moves`` does (source slots 0..24 in turn,
  with its legality: the bar first, an open landing point, bearing off only with every checker home,
  from the point of the die or, with a higher die, from the highest occupied point), here as bit
  masks of the sources;
- a group's candidates are enumerated in the numpy code's order (the high die first then the low,
  from the sources where the high die was not legal at the start; the one-die fallbacks; the levels
  of the doubles' beam), and of each of its K best distinct scores the first candidate is kept
  (``top_distinct``), written in that order;
- scores are the same sums of the same fixed-point table entries, here in int64: the float64 tables
  hold integers and every sum stays far below 2^53, so both are exact whatever the order, and WIN
  where the last checker is borne off.

The numpy code stays the reference: tests/search/test_top_plays_numba.py compares the two on
thousands of positions of every kind. Only model/search/top_plays.py imports this module, when
engine/compiled.py's ``numba_due`` says so.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_WIN = 1 << 36  # top_plays.WIN, as the scores are here: int64, the same integers
_NONE = -(1 << 62)  # below every key
_ABOVE = 1 << 62  # above every key
_SHIFT = 12
_SPAN = 1 << _SHIFT  # more than the candidates of one group (luck_kernel's ``most``): _key
_OFF = 26  # engine/board.py's OFF: the mover's checkers borne off
_OPP_BAR = 25
_BAR_BIT = 1 << 24  # a position's sources as a bit mask: bit s for slot s (24: the mover's bar)
_BOARD_BITS = (1 << 24) - 1
_LEAVE_HALF = 25 * 31  # top_plays._move_tables: leave is (2, 25, 31), land (2, 24, 31), flattened
_LAND_HALF = 24 * 31
_MADE = 7 * 25  # rows of the work array: the one-die moves (row 25 d + j), then the beam's two halves
MAX_WIDTH = 64
"""The widest ``k`` and ``beam`` the kernel takes."""
_DEBRUIJN = 0x077CB531
_DEBRUIJN_SLOT = np.zeros(32, dtype=np.int64)  # the index of a lone bit b: [(b * _DEBRUIJN mod 2^32) >> 27]
for _i in range(32):
    _DEBRUIJN_SLOT[((1 << _i) * _DEBRUIJN & 0xFFFFFFFF) >> 27] = _i
_HIGHEST = np.array([-1] + [int(_m).bit_length() - 1 for _m in range(1, 64)], dtype=np.int64)  # of masks below 2^6

# The helpers are inlined (numba's inline="always"): called, each costs more than its work, and LLVM
# does not inline them all by itself.


@njit(cache=True, inline="always")
def _lowest_slot(bit):
    """The slot of the lone bit ``bit`` (below 2^32)."""
    return _DEBRUIJN_SLOT[((bit * _DEBRUIJN) & 0xFFFFFFFF) >> 27]


@njit(cache=True, inline="always")
def _masks(p, u):
    """(mine, open) of position ``p[u]``: bit s of ``mine`` where the mover has a checker on slot s
    (0..24, 24 its bar), bit s of ``open`` where point slot s (0..23) holds at most one opponent
    checker. A play never closes an open point nor opens a closed one, so ``open`` holds all turn."""
    mine = 0
    open_ = 0
    for s in range(24):
        mine |= (1 if p[u, s] > 0 else 0) << s
        open_ |= (1 if p[u, s] >= -1 else 0) << s
    if p[u, 24] > 0:
        mine |= _BAR_BIT
    return mine, open_


@njit(cache=True, inline="always")
def _legal(mine, open_, d):
    """The sources (bit mask) of the legal moves of a die of ``d`` from a position whose sources and
    open points are ``mine`` and ``open_``: engine/rules.py's single_die_moves for backgammon (the
    bar first; an open landing point; bearing off with every checker home, from the point of the
    die or, with a higher die, from the highest occupied point)."""
    if mine & _BAR_BIT:
        return _BAR_BIT if (open_ >> (24 - d)) & 1 else 0
    legal = mine & (open_ << d) & _BOARD_BITS
    if 0 < mine < 64:  # every checker home: bearing off
        legal |= mine & (1 << (d - 1))
        high = _HIGHEST[mine]
        if high < d - 1:
            legal |= 1 << high
    return legal


@njit(cache=True, inline="always")
def _score(p, r, s, t, base, moves, leave_at, land_at, off_gain):
    """The score of position ``p[r]`` (scoring ``base``) after its checker on ``s`` moves to ``t``
    (< 0: off): top_plays' _gain added to ``base``, or WIN where that bears off the last checker.
    ``moves`` holds top_plays' _move_tables one after the other, the contact or race half of
    leave at ``leave_at`` and of land at ``land_at``; ``off_gain`` is the weight of a checker off."""
    if t < 0:
        if p[r, _OFF] == 14:
            return _WIN
        return base + (moves[leave_at + 31 * s + 15 + p[r, s]] + off_gain)
    return base + (moves[leave_at + 31 * s + 15 + p[r, s]] + moves[land_at + 31 * t + 15 + p[r, t]])


@njit(cache=True, inline="always")
def _apply(p, r, s, t, mine):
    """Move the checker of position ``p[r]`` from ``s`` to ``t`` (< 0: off) in place, sending a lone
    opponent checker to the bar (top_plays._apply); the new sources mask from ``mine``."""
    p[r, s] -= 1
    if p[r, s] == 0:
        mine &= ~(1 << s)
    if t < 0:
        p[r, _OFF] += 1
        return mine
    before = p[r, t]
    if before == -1:
        p[r, t] = 1
        p[r, _OPP_BAR] += 1
    else:
        p[r, t] = before + 1
    return mine | (1 << t)


@njit(cache=True, inline="always")
def _copy(dst, i, src, j):
    """dst[i] = src[j], rows of 28."""
    for x in range(28):
        dst[i, x] = src[j, x]


@njit(cache=True, inline="always")
def _select(key, n, lim, keep):
    """top_plays.top_distinct of one group: of its ``n`` candidates, the first (in the order of
    enumeration) of each of the ``lim`` highest distinct scores. ``key[x]`` is candidate x's
    ``_key``: the highest key below a bound is the first candidate of the highest score below it.
    Writes the kept candidates (ascending) to ``keep``; returns how many. ``lim`` passes of a
    maximum: cheaper than keeping a running best-of list, whose branches mispredict (the scores
    come in no order)."""
    bound = _ABOVE
    cnt = 0
    chosen = 0  # the kept candidates as bits, where there are fewer than 63
    for _ in range(lim):
        best = _below(key, n, bound)
        if best == _NONE:
            break
        bound = (best >> _SHIFT) << _SHIFT  # this score's keys and above are out of the next pass
        x = _SPAN - 1 - (best - bound)
        if n < 63:
            chosen |= 1 << x
        else:
            i = cnt
            while i > 0 and keep[i - 1] > x:
                keep[i] = keep[i - 1]
                i -= 1
            keep[i] = x
        cnt += 1
    if n < 63:
        i = 0
        while chosen:
            bit = chosen & -chosen
            chosen ^= bit
            keep[i] = _lowest_slot(bit) if bit < (1 << 32) else 32 + _lowest_slot(bit >> 32)
            i += 1
    return cnt


@njit(cache=True, inline="always")
def _below(key, n, bound):
    """The highest of ``key[:n]`` below ``bound`` (_NONE if none): four running maxima, not one,
    so that each comparison need not wait for the one before it."""
    b0 = _NONE
    b1 = _NONE
    b2 = _NONE
    b3 = _NONE
    x = 0
    while x + 4 <= n:
        v0 = key[x]
        v1 = key[x + 1]
        v2 = key[x + 2]
        v3 = key[x + 3]
        b0 = max(b0, v0 if v0 < bound else _NONE)
        b1 = max(b1, v1 if v1 < bound else _NONE)
        b2 = max(b2, v2 if v2 < bound else _NONE)
        b3 = max(b3, v3 if v3 < bound else _NONE)
        x += 4
    while x < n:
        v0 = key[x]
        b0 = max(b0, v0 if v0 < bound else _NONE)
        x += 1
    return max(max(b0, b1), max(b2, b3))


@njit(cache=True, inline="always")
def _key(score, x):
    """The key of candidate ``x`` (the x-th enumerated, below _SPAN) scoring ``score``: ordered by
    score, then the earlier candidate first (|score| < 2^37: the key is below 2^49)."""
    return (score << _SHIFT) | (_SPAN - 1 - x)


@njit(cache=True, inline="always")
def _unkey(key):
    """The score in a key."""
    return key >> _SHIFT


@njit(cache=True, inline="always")
def _scored_moves(legal, row, die, here, work, moves, leave_at, land_at, off_gain, sc, c_row, c_s, c_t, nc):
    """Append the moves of ``die`` from the sources in the mask ``legal`` of work row ``row`` (score
    ``here``) to the candidates from index ``nc``, scored before they are made and keyed by their
    index (``_key``), in ascending source order; return the new count."""
    while legal:
        bit = legal & -legal
        legal ^= bit
        s = _lowest_slot(bit)
        sc[nc] = _key(_score(work, row, s, s - die, here, moves, leave_at, land_at, off_gain), nc)
        c_row[nc] = row
        c_s[nc] = s
        c_t[nc] = s - die
        nc += 1
    return nc


@njit(cache=True)
def luck_kernel(positions, k, beam, rolls, points, extra, leave, land):
    """top_plays.luck_plays(game, positions, k, beam) for backgammon: (children (M, 28) int8, group
    (M,) int64). ``rolls`` is ALL_ROLLS, ``points`` and ``extra`` top_plays._tables(), ``leave`` and
    ``land`` top_plays._move_tables() (float64 integers); ``k`` and ``beam`` 1 .. MAX_WIDTH."""
    if k < 1 or beam < 1 or max(k, beam) > MAX_WIDTH:
        raise ValueError("luck_kernel: k and beam must be 1 .. MAX_WIDTH")
    n = positions.shape[0]
    nrolls = rolls.shape[0]
    cap = n * nrolls * k  # at most k plays a group (one where it passes)
    children = np.empty((cap, 28), np.int8)
    group = np.empty(cap, np.int64)
    m = 0
    # the scores in int64: the float64 tables hold integers, and their sums are exact either way
    point_score = points.astype(np.int64)
    off_score = extra.astype(np.int64)
    moves = np.concatenate((leave, land)).astype(np.int64)
    wide = max(k, beam)
    # work rows: the position after each one-die move (25 d + j), then the beam's two halves
    work = np.empty((_MADE + 2 * wide, 28), np.int8)
    w_mine = np.empty(_MADE + 2 * wide, np.int64)  # their sources (_masks)
    w_score = np.empty(_MADE + 2 * wide, np.int64)
    mv_cnt = np.zeros(7, np.int64)  # how many one-die moves of each die
    at_start = np.zeros(7, np.int64)  # the sources of each die's legal moves from the position
    # a group's candidates: score, the work row moved from, source, destination
    most = 2 * 25 * 25 + 25 * wide  # two orders of at most 25 sources each; 25 from each beam row
    sc = np.empty(most, np.int64)  # their _key
    c_row = np.empty(most, np.int64)
    c_s = np.empty(most, np.int64)
    c_t = np.empty(most, np.int64)
    keep = np.empty(wide, np.int64)  # _select's kept candidates

    for u in range(n):
        p = positions
        # has_contact: the mover's farthest checker (bar 25) beyond the opponent's farthest
        my_back = 0
        if p[u, 24] > 0:
            my_back = 25
        else:
            for i in range(23, -1, -1):
                if p[u, i] > 0:
                    my_back = i + 1
                    break
        their_back = 25
        if p[u, _OPP_BAR] > 0:
            their_back = 0
        else:
            for i in range(24):
                if p[u, i] < 0:
                    their_back = i + 1
                    break
        c = 1 if my_back > their_back else 0
        # top_plays.scores of the position itself
        if p[u, _OFF] == 15:
            base = _WIN
        else:
            base = 0
            for i in range(24):
                base += point_score[c, i, 15 + p[u, i]]
            base += off_score[c, 0] * p[u, _OPP_BAR] + off_score[c, 1] * p[u, _OFF]
        leave_at = c * _LEAVE_HALF
        land_at = 2 * _LEAVE_HALF + c * _LAND_HALF
        off_gain = off_score[c, 1]
        mine, open_ = _masks(p, u)
        # every one-die move, made
        for d in range(1, 7):
            legal = _legal(mine, open_, d)
            at_start[d] = legal
            j = 0
            while legal:
                bit = legal & -legal
                legal ^= bit
                s = _lowest_slot(bit)
                row = 25 * d + j
                w_score[row] = _score(p, u, s, s - d, base, moves, leave_at, land_at, off_gain)
                _copy(work, row, p, u)
                w_mine[row] = _apply(work, row, s, s - d, mine)
                j += 1
            mv_cnt[d] = j

        for r in range(nrolls):
            g = u * nrolls + r
            hi = rolls[r, 0]
            lo = rolls[r, 1]
            if hi != lo:
                # both dice: the high die first, then the low die first from the sources where the
                # high die was not legal at the start
                nc = 0
                for order in range(2):
                    a = hi if order == 0 else lo
                    b = lo if order == 0 else hi
                    skip = 0 if order == 0 else at_start[hi]
                    for row in range(25 * a, 25 * a + mv_cnt[a]):
                        nc = _scored_moves(_legal(w_mine[row], open_, b) & ~skip, row, b, w_score[row], work, moves,
                                           leave_at, land_at, off_gain, sc, c_row, c_s, c_t, nc)
                kept = _select(sc, nc, k, keep)
                if kept > 0:
                    for i in range(kept):
                        x = keep[i]
                        _copy(children, m, work, c_row[x])
                        _apply(children, m, c_s[x], c_t[x], 0)
                        group[m] = g
                        m += 1
                    continue
                # one die only: the high die's plays, else the low die's
                die = hi if mv_cnt[hi] > 0 else lo
                if mv_cnt[die] > 0:
                    for j in range(mv_cnt[die]):
                        sc[j] = _key(w_score[25 * die + j], j)
                    kept = _select(sc, mv_cnt[die], k, keep)
                    for i in range(kept):
                        _copy(children, m, work, 25 * die + keep[i])
                        group[m] = g
                        m += 1
                    continue
            elif mv_cnt[hi] > 0:
                # a double: the beam's first move ...
                d = hi
                for j in range(mv_cnt[d]):
                    sc[j] = _key(w_score[25 * d + j], j)
                ncur = _select(sc, mv_cnt[d], beam, keep)
                cur = _MADE
                for i in range(ncur):
                    row = 25 * d + keep[i]
                    _copy(work, cur + i, work, row)
                    w_score[cur + i] = w_score[row]
                    w_mine[cur + i] = w_mine[row]
                # ... then each move scored before it is made
                for level in range(2, 5):
                    nc = 0
                    for row in range(cur, cur + ncur):
                        nc = _scored_moves(_legal(w_mine[row], open_, d), row, d, w_score[row], work, moves,
                                           leave_at, land_at, off_gain, sc, c_row, c_s, c_t, nc)
                    if nc == 0:
                        # no checker moves further: the K best of the plays so far
                        for i in range(ncur):
                            sc[i] = _key(w_score[cur + i], i)
                        kept = _select(sc, ncur, k, keep)
                        for i in range(kept):
                            _copy(children, m, work, cur + keep[i])
                            group[m] = g
                            m += 1
                        break
                    kept = _select(sc, nc, beam if level < 4 else k, keep)
                    nxt = _MADE + wide if cur == _MADE else _MADE
                    for i in range(kept):
                        x = keep[i]
                        _copy(work, nxt + i, work, c_row[x])
                        w_mine[nxt + i] = _apply(work, nxt + i, c_s[x], c_s[x] - d, w_mine[c_row[x]])
                        w_score[nxt + i] = _unkey(sc[x])
                    cur = nxt
                    ncur = kept
                    if level == 4:
                        for i in range(ncur):
                            _copy(children, m, work, cur + i)
                            group[m] = g
                            m += 1
                continue
            # no checker can move: the turn passes
            _copy(children, m, p, u)
            group[m] = g
            m += 1
    return children[:m].copy(), group[:m].copy()
