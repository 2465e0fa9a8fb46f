"""The move generator as a numba kernel, one position at a time: the same children, in the same order.

engine/movegen.py is the reference (its docstrings state the rules of using the roll and the two
orders of moves it never expands). Its numpy code works a die step at a time on whole batches, which
costs some 200 us for one position whatever its size; this kernel walks the same sequences per
position in compiled code. For each position it produces what ``legal_plays`` produces for it: the
same distinct children in the same order (first occurrence in the numpy generator's order: a
non-double's high-then-low sequences, then its low-then-high ones, then the one-die fallbacks; a
double's deepest level, each level expanding its positions in order and each position's sources
from the lowest up), the same greatest step trail among duplicates, and the pass. The single-die
rules are those of engine/rules.py (``single_die_moves``, ``six_in_a_row_violations``), restated
here for one position. What a move changes is carried along rather than found again: a position's
hash (linear in its slots, so a move changes it by two or three keys) and its highest point (which
only a move of its last checker lowers); each position's children are written straight into the
output. tests/engine/test_movegen_numba.py compares the two on thousands of positions
of both games, every roll.

One position's call (a hint's) is mostly fixed costs, so they are cut down: the kernel works in a
``workspace`` made once per thread rather than allocating its work arrays; the small helpers that
take a position's row are inlined into their callers (a row handed to a function that is not is a
view whose reference count numba's runtime raises and lowers atomically, a quarter of all the time
in a profile; inlined, numba drops those pairs); ``compiled`` skips numba's dispatcher; and without
steps no trail is kept. Compiling from nothing takes some 12 s (7 s without the inlining).

Only ``legal_plays`` imports this module, when engine/compiled.py's ``numba_due`` says so; the
kernel is compiled on first use and kept in numba's disk cache.
"""

from __future__ import annotations

import numpy as np
from numba import njit, typeof

from engine.board import BAR, HEAD, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF
from engine.rules import _OPPONENT_PATH

_LEVEL_CAPACITY = (1, 25, 325, 2925, 20475)  # non-increasing source sequences of 0..4 moves over 25 slots
_NON_DOUBLE_CAPACITY = 2 * 25 * 25  # both orders of two dice


@njit(cache=True, inline="always")
def _highest(p, below):
    """rules.highest_point of ``p`` among the slots under ``below``: the highest slot holding a mover
    checker, plus one (25: the bar), 0 for none."""
    for s in range(below - 1, -1, -1):
        if p[s] > 0:
            return s + 1
    return 0


@njit(cache=True, inline="always")
def _highest_after(kid, s, highest):
    """``_highest(kid, 25)`` of ``kid``, a position whose highest point was ``highest`` before a checker
    left slot ``s`` for a lower one: the same unless it was the last checker on the highest point."""
    if s + 1 < highest or kid[s] > 0:
        return highest
    return _highest(kid, s)


@njit(cache=True, inline="always")
def _sources(p, die, head_left, nardi, top, excluded, out, highest):
    """engine/rules.py ``single_die_moves`` for one position ``p`` (28,) and die: write the source slots
    (at most ``top``, not ``excluded``) from which a checker may legally move into ``out``, lowest
    first; return how many. ``highest``: ``_highest(p, 25)``."""
    home = highest <= 6  # all_home: no mover checker on points 7..24 or the bar
    bar_first = not nardi and p[BAR] > 0
    lowest_open = 0 if nardi else -1  # open_landing
    n = 0
    for s in range(min(top + 1, highest)):  # no mover checker above the highest point
        if p[s] <= 0 or excluded[s] or (bar_first and s < 24) or (nardi and s == HEAD and head_left <= 0):
            continue
        dest = s + 1 - die
        if dest >= 1:
            if p[dest - 1] < lowest_open:
                continue
        elif not (home and (dest == 0 or s + 1 == highest)):  # may_bear_off
            continue
        out[n] = s
        n += 1
    return n


@njit(cache=True, inline="always")
def _copy(target, source):
    """``target[:] = source`` for a position (28,), four slots at a time, each four read before any is
    written: LLVM moves them as one word, where a loop of single slots, which might overlap for all it
    knows, moves 28 bytes one by one (four times as long; numba's generic array assignment costs
    seconds of compile time for nothing here)."""
    for k in range(0, NUM_SLOTS, 4):
        target[k], target[k + 1], target[k + 2], target[k + 3] = source[k], source[k + 1], source[k + 2], source[k + 3]


@njit(cache=True, inline="always")
def _copy_trail(target, source):
    for k in range(4):
        target[k, 0], target[k, 1] = source[k, 0], source[k, 1]


@njit(cache=True, inline="always")
def _clear(trail):
    for k in range(4):
        trail[k, 0] = trail[k, 1] = 0


_KEYS = np.random.default_rng(28).integers(1, 2**62, size=NUM_SLOTS, dtype=np.int64)
"""The hash of a position is sum(_KEYS[k] * p[k]) (wrapping int64): linear, so a move changes it by
the keys of the two or three slots it changes; bits 40..55 pick a table slot."""


@njit(cache=True, inline="always")
def _hash(row):
    h = np.int64(0)
    for k in range(NUM_SLOTS):
        h += _KEYS[k] * np.int64(row[k])
    return h


@njit(cache=True, inline="always")
def _apply(p, s, die, nardi, child, h):
    """movegen._step for one move: ``child`` = ``p`` with a checker moved ``die`` from slot ``s``;
    returns the hash of ``child`` from ``h``, the hash of ``p``."""
    _copy(child, p)
    child[s] -= 1
    h -= _KEYS[s]
    dest = s + 1 - die
    at = dest - 1 if dest >= 1 else OFF
    if not nardi and child[at] == -1:  # a hit: the opponent's blot goes to its bar
        child[at] = 1
        child[OPP_BAR] += 1
        return h + 2 * _KEYS[at] + _KEYS[OPP_BAR]
    child[at] += 1
    return h + _KEYS[at]


@njit(cache=True, inline="always")
def _final_ok(p, nardi):
    """Not ``six_in_a_row_violations``: always in backgammon; in long nardi no six held points in a
    row along the opponent's way unless an opponent checker is past them."""
    if not nardi:
        return True
    furthest = 24 if p[OPP_OFF] > 0 else -1
    if furthest < 0:
        for j in range(23, -1, -1):
            if p[_OPPONENT_PATH[j]] < 0:
                furthest = j
                break
    run = 0
    for j in range(24):
        run = run + 1 if p[_OPPONENT_PATH[j]] > 0 else 0
        if run >= 6 and furthest <= j:
            return False
    return True


@njit(cache=True, inline="always")
def _greater(a, b):
    """Whether step trail ``a`` (4, 2) is greater than ``b``: step by step, die first, then source."""
    for k in range(4):
        if a[k, 1] != b[k, 1]:
            return a[k, 1] > b[k, 1]
        if a[k, 0] != b[k, 0]:
            return a[k, 0] > b[k, 0]
    return False


@njit(cache=True)
def _distinct(cands, hashes, trails, ok, m, table, kids, kid_steps, with_steps):
    """movegen._dedupe for one position: write the distinct candidates among ``cands[:m]`` (their
    hashes ``hashes``) where ``ok`` into ``kids`` (the first occurrence of each, in order) and, if
    ``with_steps``, ``kid_steps`` (the greatest trail among its duplicates); return how many. An
    open-addressing table of row indices, each hash match compared in full."""
    size = 16
    while size < 2 * m:
        size *= 2
    mask = size - 1
    for k in range(size):
        table[k] = -1
    n = 0
    for i in range(m):
        if not ok[i]:
            continue
        h = hashes[i]
        slot = (h >> 40) & mask
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = i
                _copy(kids[n], cands[i])
                if with_steps:
                    _copy_trail(kid_steps[n], trails[i])
                table[size + slot] = n
                n += 1
                break
            same = hashes[j] == h
            if same:
                for k in range(NUM_SLOTS):
                    if cands[j, k] != cands[i, k]:
                        same = False
                        break
            if same:
                at = table[size + slot]
                if with_steps and _greater(trails[i], kid_steps[at]):
                    _copy_trail(kid_steps[at], trails[i])
                break
            slot = (slot + 1) & mask
    return n


@njit(cache=True)
def _non_double(p, high, low, limit, nardi, work, kids, kid_steps, with_steps):
    """movegen._non_doubles for one position: its children into ``kids``, their steps into ``kid_steps``
    if ``with_steps`` (else no trail is kept); how many (0: no legal play)."""
    (one, one_trails, one_high, cands, trails, ok, src, src2, excluded, none, table, one_hash, hashes) = work
    heads = p[HEAD]
    h0 = _hash(p)
    top0 = _highest(p, 25)
    m = 0  # two-dice candidates: high then low, then low then high where the high move is new
    ones = 0  # one-die children: the high die's, then the low die's
    for k in range(25):
        excluded[k] = False
    for order in range(2):
        first, second = (high, low) if order == 0 else (low, high)
        k = _sources(p, first, limit, nardi, 24, none, src, top0)
        for a in range(k):
            s = src[a]
            h1 = _apply(p, s, first, nardi, one[ones], h0)
            one_hash[ones] = h1
            if with_steps:
                _clear(one_trails[ones])
                one_trails[ones, 0, 0], one_trails[ones, 0, 1] = s + 1, first
            one_high[ones] = order == 0
            kid = one[ones]
            left = limit - (heads - kid[HEAD])
            k2 = _sources(kid, second, left, nardi, 24, excluded, src2, _highest_after(kid, s, top0))
            for b in range(k2):
                hashes[m] = _apply(kid, src2[b], second, nardi, cands[m], h1)
                if with_steps:
                    _copy_trail(trails[m], one_trails[ones])
                    trails[m, 1, 0], trails[m, 1, 1] = src2[b] + 1, second
                ok[m] = _final_ok(cands[m], nardi)
                m += 1
            ones += 1
        if order == 0:
            for a in range(k):
                excluded[src[a]] = True  # high_at_start: low then high skips these sources
    found = _distinct(cands, hashes, trails, ok, m, table, kids, kid_steps, with_steps)
    if found:
        return found
    any_high = False  # one die: the higher one where it can be played
    for i in range(ones):
        ok[i] = _final_ok(one[i], nardi)
        any_high |= ok[i] and one_high[i]
    for i in range(ones):
        ok[i] &= one_high[i] or not any_high
    return _distinct(one, one_hash, one_trails, ok, ones, table, kids, kid_steps, with_steps)


_LEVEL_START = np.cumsum(np.array((0,) + _LEVEL_CAPACITY))  # rows of each level in the level arrays


@njit(cache=True)
def _double(p, die, limit, nardi, levels, work, with_steps):
    """movegen._doubles for one position up to its distinct children: the levels of its moves into
    ``levels`` (the positions after 0..4 moves, level d from row _LEVEL_START[d]; their trails only
    ``with_steps``); returns the deepest level's first row and size (0: no legal play), for
    ``_double_children``."""
    (_, _, _, _, _, _, src, _, _, none, _, _, _) = work
    level_kids, level_tops, level_trails, level_hashes, level_highest = levels
    heads = p[HEAD]
    _copy(level_kids[0], p)
    level_hashes[0] = _hash(p)
    level_highest[0] = _highest(p, 25)
    level_tops[0] = 24
    if with_steps:
        _clear(level_trails[0])
    size = 1
    best = best_size = 0
    for depth in range(1, 5):
        at, to = _LEVEL_START[depth - 1], _LEVEL_START[depth]
        m = 0
        for i in range(at, at + size):
            kid = level_kids[i]
            left = limit - (heads - kid[HEAD])
            k = _sources(kid, die, left, nardi, level_tops[i], none, src, level_highest[i])
            for a in range(k):
                level_hashes[to + m] = _apply(kid, src[a], die, nardi, level_kids[to + m], level_hashes[i])
                level_highest[to + m] = _highest_after(level_kids[to + m], src[a], level_highest[i])
                level_tops[to + m] = src[a]
                if with_steps:
                    _copy_trail(level_trails[to + m], level_trails[i])
                    level_trails[to + m, depth - 1, 0], level_trails[to + m, depth - 1, 1] = src[a] + 1, die
                m += 1
        if m == 0:
            break
        for i in range(m):
            if _final_ok(level_kids[to + i], nardi):
                best, best_size = depth, m
                break
        size = m
    return _LEVEL_START[best], best_size


@njit(cache=True)
def _double_children(at, size, nardi, levels, work, kids, kid_steps, with_steps):
    """The distinct children of a double's deepest level (``_double``'s rows) into ``kids``, their
    steps into ``kid_steps`` if ``with_steps``; how many."""
    ok, table = work[5], work[10]
    level_kids, _, level_trails, level_hashes, _ = levels
    finals, final_trails = level_kids[at : at + size], level_trails[at : at + size]
    for i in range(size):
        ok[i] = _final_ok(finals[i], nardi)
    return _distinct(finals, level_hashes[at : at + size], final_trails, ok, size, table, kids, kid_steps, with_steps)


@njit(cache=True)
def _grown(children, parents, steps, n, size, with_steps):
    """New output arrays of ``size`` rows holding the first ``n`` rows of the old ones; the steps only
    ``with_steps`` (else none: a call without them never writes or hands back any)."""
    new_children = np.empty((size, NUM_SLOTS), dtype=np.int8)
    new_parents = np.empty(size, dtype=np.int64)
    new_steps = np.empty((size, 4, 2), dtype=np.int8) if with_steps else steps[:0]
    for i in range(n):
        _copy(new_children[i], children[i])
        new_parents[i] = parents[i]
    if with_steps:
        for i in range(n):
            _copy_trail(new_steps[i], steps[i])
    return new_children, new_parents, new_steps


_TABLE_SIZE = 1 << (2 * _LEVEL_CAPACITY[4] - 1).bit_length()  # _distinct's table for a double's deepest level
_OUTPUT_ROWS = 2 * _NON_DOUBLE_CAPACITY  # the workspace's output rows: batches up to 78 positions start in them
_WORKSPACE_ROWS = 50 + _NON_DOUBLE_CAPACITY + _LEVEL_START[-1] + _OUTPUT_ROWS  # positions, and as many trails
_WORKSPACE_FLAGS = 50 + _LEVEL_CAPACITY[4] + 2 * 25
_WORKSPACE_WORDS = 2 * 25 + 2 * _TABLE_SIZE + 50 + _NON_DOUBLE_CAPACITY + 3 * _LEVEL_START[-1] + _OUTPUT_ROWS


def workspace():
    """The memory one thread's calls of the kernels work in, about 2.7 MB: positions (R, 28) int8,
    step trails (R, 4, 2) int8, flags (F,) bool and words (W,) int64, made once and passed to every
    call, so that a call allocates nothing but its answer (rather than some 20 work arrays, 2.5 MB of
    them where the batch has a double). Four arrays, each cut into its parts by slicing alone (a
    reshape is a call into numba's runtime). Not to be shared by two calls at once."""
    return (np.empty((_WORKSPACE_ROWS, NUM_SLOTS), dtype=np.int8), np.empty((_WORKSPACE_ROWS, 4, 2), dtype=np.int8),
            np.empty(_WORKSPACE_FLAGS, dtype=np.bool_), np.empty(_WORKSPACE_WORDS, dtype=np.int64))


@njit(cache=True, inline="always")
def _part(space, at, size):
    """``size`` rows of ``space`` from row ``at`` (a view), and the row past them."""
    return space[at : at + size], at + size


@njit(cache=True, inline="always")
def _carve(rows, trails, flags, words):
    """The work arrays of ``_non_double``, ``_double`` and ``_double_children``, the level arrays and
    the output's rows, as views of a ``workspace``. Inlined (as ``_part``), numba drops most of the
    reference counting of the 21 views: 0.15 us of one position's call."""
    one, at = _part(rows, 0, 50)
    cands, at = _part(rows, at, _NON_DOUBLE_CAPACITY)
    level_kids, at = _part(rows, at, _LEVEL_START[-1])
    children, at = _part(rows, at, _OUTPUT_ROWS)
    one_trails, at = _part(trails, 0, 50)
    cand_trails, at = _part(trails, at, _NON_DOUBLE_CAPACITY)
    level_trails, at = _part(trails, at, _LEVEL_START[-1])
    steps, at = _part(trails, at, _OUTPUT_ROWS)
    one_high, at = _part(flags, 0, 50)
    ok, at = _part(flags, at, _LEVEL_CAPACITY[4])
    excluded, at = _part(flags, at, 25)
    none, at = _part(flags, at, 25)
    src, at = _part(words, 0, 25)
    src2, at = _part(words, at, 25)
    table, at = _part(words, at, 2 * _TABLE_SIZE)
    one_hash, at = _part(words, at, 50)
    hashes, at = _part(words, at, _NON_DOUBLE_CAPACITY)
    level_tops, at = _part(words, at, _LEVEL_START[-1])
    level_hashes, at = _part(words, at, _LEVEL_START[-1])
    level_highest, at = _part(words, at, _LEVEL_START[-1])
    parents, at = _part(words, at, _OUTPUT_ROWS)
    for k in range(25):
        none[k] = False
    work = (one, one_trails, one_high, cands, cand_trails, ok, src, src2, excluded, none, table, one_hash, hashes)
    levels = (level_kids, level_tops, level_trails, level_hashes, level_highest)
    return work, levels, (children, parents, steps)


_STEPS = np.array([False, True])
"""``_legal_plays``' with_steps as the kernels pass it: read from an array, it is a flag to numba, which
compiles the generator once for both; a literal True or False would have it compile it twice (8 s)."""


@njit(cache=True)
def legal_plays_kernel(positions, dice, limits, nardi, rows, trails, flags, words):
    """``legal_plays(game, positions, dice, first_turn, with_steps=True)`` of positions (B, 28) int8,
    dice (B, 2) int64 and the head limits of engine/rules.py ``head_limits`` (the first B of
    ``limits`` are read): (children (N, 28) int8, parent (N,) int64, steps (N, 4, 2) int8), or
    ValueError where a die is not 1..6. ``rows`` ... ``words``: a ``workspace``."""
    return _legal_plays(positions, dice, limits, nardi, rows, trails, flags, words, _STEPS[1])


@njit(cache=True)
def children_kernel(positions, dice, limits, nardi, rows, trails, flags, words):
    """``legal_plays_kernel`` without the steps: (children, parent), no trails kept on the way and one
    array fewer made and handed back to Python."""
    children, parents, _ = _legal_plays(positions, dice, limits, nardi, rows, trails, flags, words, _STEPS[0])
    return children, parents


@njit(cache=True)
def one_position_kernel(positions, dice, limits, nardi, rows, trails, flags, words):
    """``children_kernel`` of one position (B = 1), as a hint asks: the children alone, every parent
    being 0 (numba takes longer to hand a second array back to Python than numpy takes to make the
    zeros: 0.3 us of the call)."""
    children, _, _ = _legal_plays(positions, dice, limits, nardi, rows, trails, flags, words, _STEPS[0])
    return children


@njit(cache=True)
def _legal_plays(positions, dice, limits, nardi, rows, trails, flags, words, with_steps):
    work, levels, scratch = _carve(rows, trails, flags, words)
    b = positions.shape[0]
    for r in range(b):
        if not (1 <= dice[r, 0] <= 6 and 1 <= dice[r, 1] <= 6):
            raise ValueError("dice must have shape (B, 2) with values 1..6")  # legal_plays' own words
    children, parents, steps = scratch  # the workspace's rows: the answer is copied out of them at the end
    fresh = False
    if 16 * b + _NON_DOUBLE_CAPACITY > _OUTPUT_ROWS:  # a large batch: arrays of its own, handed back as they are
        children, parents, steps = _grown(children, parents, steps, 0, 16 * b + _NON_DOUBLE_CAPACITY, with_steps)
        fresh = True
    n = 0
    for r in range(b):  # each position's children are written straight into the output, room made first
        p = positions[r]
        high, low = max(dice[r, 0], dice[r, 1]), min(dice[r, 0], dice[r, 1])
        at = size = 0
        if high == low:
            at, size = _double(p, high, limits[r], nardi, levels, work, with_steps)
            room = max(size, 1)
        else:
            room = _NON_DOUBLE_CAPACITY
        if n + room > children.shape[0]:
            children, parents, steps = _grown(children, parents, steps, n, max(2 * children.shape[0], n + room), with_steps)
            fresh = True
        kids, kid_steps = children[n:], steps[n:]
        if high != low:
            count = _non_double(p, high, low, limits[r], nardi, work, kids, kid_steps, with_steps)
        else:
            count = _double_children(at, size, nardi, levels, work, kids, kid_steps, with_steps) if size else 0
        if count == 0:  # no legal play: the turn passes
            _copy(kids[0], p)
            if with_steps:
                _clear(kid_steps[0])
            count = 1
        for i in range(n, n + count):
            parents[i] = r
        n += count
    if fresh and 2 * n >= children.shape[0]:  # at least half the rows used: views of them, no copy
        return children[:n], parents[:n], steps[:n]
    return _grown(children, parents, steps, n, n, with_steps)


def compiled(kernel):
    """``kernel``'s machine code for the arguments ``legal_plays`` passes it, to be called without
    numba's dispatcher, whose matching of eight arguments to a signature takes 0.4 us, a tenth of one
    position's call. That code compiles nothing new: it refuses arrays of another type or number of
    dimensions (TypeError) and takes any array as C-contiguous, so it must be given exactly its
    types: positions (B, 28) and limits (at least B,) C-contiguous int8, dice (B, 2) C-contiguous
    int64, a bool and a ``workspace``."""
    sample = (np.zeros((1, NUM_SLOTS), dtype=np.int8), np.ones((1, 2), dtype=np.int64), np.full(1, 4, dtype=np.int8),
              False, *workspace())
    kernel(*sample)  # compiled for exactly these types, or loaded from numba's cache
    return kernel.get_overload(tuple(typeof(arg) for arg in sample))
