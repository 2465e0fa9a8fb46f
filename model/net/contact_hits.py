"""Which enemy blots each of the 21 rolls can hit, and how many at once: gnubg's PIPLOSS, P1 and P2.

gnubg (eval.c) defines, for the side on roll:
  PIPLOSS  "average number of pips the opponent loses from hits" / (12 x 36), with two heuristics,
           since the best play is unknown: "if the board is weak, don't consider hitting on points 22
           and 23" (our 2- and 1-points) and "don't break anchors inside home to hit";
  P1, P2   the share of the 36 rolls that "hit at least one / at least two checkers".

This module implements those definitions (not gnubg's code) with bit masks, one integer per
position and side, bit p for point p (25 = the bar), so moving every checker d points towards home is
one right shift by d; the rolls are a leading axis, so the only Python loops are over the (at most
four) steps of a double. What counts as a hit, exactly (the test's scalar reference enumerates the
plays and agrees roll by roll):

  - hitters: our checkers, except the two of a home-board point (1..6) held by exactly two;
  - targets: enemy blots (one checker) on our points 3..24, and on 1 and 2 only when we hold (two or
    more checkers) at least three home-board points. gnubg's comment says "less than 3 anchors", its
    code counts home points with any checker on them; made points are used here;
  - a checker moves one die at a time and each stop must be open (not held by two or more enemy
    checkers); bearing off is never part of a hit; dice may be left unused (the rest of the play is
    not checked for legality);
  - while we have checkers on the bar, dice enter them first (on our point 25-die): one checker on
    the bar takes one die, two or more take both dice of a non-double and up to four steps of a double;
  - a roll hits two when two different checkers each hit a blot, or one checker hits a blot on a stop
    and another one further on.

The pips the opponent loses with a roll are those of the farthest blot (from its own home) that the
roll can hit: a blot on our point q loses q pips. Like gnubg, one hit per roll is counted for the
pips, the farthest.
"""

from __future__ import annotations

import numpy as np

from engine.movegen import ALL_ROLLS

BAR_BIT = np.int32(1) << 25
_IS_DOUBLE = ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1]
_HIGH = ALL_ROLLS[~_IS_DOUBLE, 0][:, None].astype(np.int32)  # (15, 1) the non-doubles, in ALL_ROLLS order
_LOW = ALL_ROLLS[~_IS_DOUBLE, 1][:, None].astype(np.int32)
_DIE = ALL_ROLLS[_IS_DOUBLE, 0][:, None].astype(np.int32)  # (6, 1) the doubles
_WAYS = np.where(_IS_DOUBLE, 1, 2).astype(np.float32)  # of the 36 rolls, how many each of the 21 is


def _two_or_more(x: np.ndarray) -> np.ndarray:
    """At least two bits set."""
    return (x & (x - 1)) != 0


def _three_or_more(x: np.ndarray) -> np.ndarray:
    """At least three bits set."""
    y = x & (x - 1)
    return (y & (y - 1)) != 0


def _lowest(x: np.ndarray) -> np.ndarray:
    """The lowest set bit of each mask (0 for 0)."""
    return x & -x


def highest_bit(masks: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of each non-negative mask below 2**52; -1 for 0 (read off the
    exponent of the exactly converted float64)."""
    exponent = (masks.astype(np.float64).view(np.int64) >> 52) - 1023
    return np.maximum(exponent, -1)  # 0 converts to 0.0, whose exponent field is 0: -1023 here


def _farthest_point(hits: np.ndarray) -> np.ndarray:
    """The highest point (bit) in each mask of blots, 0 for none. Masks of points 1..24 are even
    and below 2**25, so float32 holds them exactly and its exponent is the answer."""
    exponent = (hits.astype(np.float32).view(np.int32) >> 23) - 127
    return np.maximum(exponent, 0)


def non_doubles_no_bar(shooters, singles, open_, blots):
    """(hits (15, B), two (15, B)) for the 15 non-doubles with nobody on the bar."""
    s = shooters[None, :]
    from_high = s >> _HIGH  # where each checker lands with the high die
    from_low = s >> _LOW
    direct_high = from_high & blots
    direct_low = from_low & blots
    hit = direct_high | direct_low
    from_high &= open_
    from_low &= open_
    hit |= (from_high >> _LOW) & blots  # one checker, both dice, high first
    hit |= (from_low >> _HIGH) & blots
    # one checker hits with one die and goes on to hit again with the other
    two = (((direct_high >> _LOW) | (direct_low >> _HIGH)) & blots) != 0
    # two checkers hit two different blots, one die each. A blot x hit with the high die comes from
    # x + high; if that point has a single checker, the low die cannot also move it to x + high - low:
    # so each x rules out at most two blots of the low die. With three or more x's, one of them pairs
    # with any blot of the low die; with one or two, each is tried.
    two |= _three_or_more(direct_high) & (direct_low != 0)
    first = _lowest(direct_high)
    second = _lowest(direct_high ^ first)
    for x in (first, second):
        taken = x | (((x << _HIGH) & singles) >> _LOW)  # x + high - low too when x + high is a single
        two |= (x != 0) & ((direct_low & ~taken) != 0)
    return hit, two


def non_doubles_from_bar(shooters, open_, blots, bar):
    """(hits (15, B), two (15, B)) for the non-doubles with ``bar`` >= 1 of our checkers on the bar."""
    enter_high = (BAR_BIT >> _HIGH) & open_
    enter_low = (BAR_BIT >> _LOW) & open_
    # two or more on the bar: both dice enter, hits only where they enter
    many_hit = (enter_high | enter_low) & blots
    many_two = ((enter_high & blots) != 0) & ((enter_low & blots) != 0)
    # one on the bar: it enters with one die, then anyone (it too) plays the other
    one_hit = np.zeros_like(many_hit)
    one_two = np.zeros(many_hit.shape, dtype=bool)
    for enter, other in ((enter_high, _LOW), (enter_low, _HIGH)):
        entered_hit = enter & blots
        after = ((shooters | enter) >> other) & blots
        one_hit |= np.where(enter != 0, entered_hit | after, 0)
        one_two |= (entered_hit != 0) & ((after & ~entered_hit) != 0)
    one = bar == 1
    return np.where(one, one_hit, many_hit), np.where(one, one_two, many_two)


def doubles(shooters, open_, blots, bar):
    """(hits (6, B), two (6, B)) for the six doubles: four steps, the bar's checkers entering first."""
    on_bar = bar > 0
    if not on_bar.any():
        return doubles_off_bar(shooters, open_, blots)
    enter = (BAR_BIT >> _DIE) & open_
    stuck = on_bar & (enter == 0)  # a closed entry point: the double is not played at all
    steps = 4 - np.minimum(bar, 4)  # steps left for any checker once the bar is empty
    entered_hit = np.where(on_bar, enter & blots, 0)
    reach = shooters | np.where(on_bar, enter, 0)
    by_step = []  # blots some checker reaches in exactly k steps, k = 1..4
    for k in range(1, 5):
        reach = (reach >> _DIE) & open_
        by_step.append(np.where(steps >= k, reach & blots, 0))
    b1, b2, b3, b4 = by_step
    later = b1 | b2 | b3 | b4
    hit = entered_hit | later
    two = (entered_hit != 0) & ((later & ~entered_hit) != 0)
    # two checkers with k1 + k2 <= steps (a pair from one checker's path is a carry-on, below)
    two |= (steps >= 2) & _two_or_more(b1)
    two |= (steps >= 3) & (b1 != 0) & _two_or_more(b1 | b2)
    two |= (steps >= 4) & (((b1 != 0) & _two_or_more(b1 | b3)) | _two_or_more(b2))
    # one checker hits at step k and carries on to another blot within the steps left
    for level, walkers in enumerate(_carried(by_step, open_), start=2):
        two |= (steps >= level) & ((walkers & blots) != 0)
    return np.where(stuck, 0, hit), two & ~stuck


def _carried(by_step, open_):
    """For the levels 2, 3, 4: where checkers that hit a blot at an earlier step stand after walking
    on to that step. The checkers that hit at step k and walk on are one set per level (the shift and
    the open mask distribute over unions), so each level is one step of the level before."""
    walkers = np.zeros_like(by_step[0])
    for k in range(3):
        walkers = ((walkers | by_step[k]) >> _DIE) & open_
        yield walkers


def doubles_off_bar(shooters, open_, blots):
    """``doubles`` for rows with nobody on the bar: four steps for every checker."""
    reach = shooters
    by_step = []
    for _ in range(4):
        reach = (reach >> _DIE) & open_
        by_step.append(reach & blots)
    b1, b2, b3, b4 = by_step
    hit = b1 | b2 | b3 | b4
    two = _two_or_more(b1) | _two_or_more(b2)
    two |= (b1 != 0) & (_two_or_more(b1 | b2) | _two_or_more(b1 | b3))
    for walkers in _carried(by_step, open_):
        two |= (walkers & blots) != 0
    return hit, two


def _int32_masks(shooters, singles, open_, blots, bar):
    return tuple(np.asarray(m).astype(np.int32) for m in (shooters, singles, open_, blots, bar))  # bits 0..25 fit


def _hits_grouped(shooters, singles, open_, blots, bar):
    """``roll_hits`` of int32 masks whose rows with nobody on the bar come first, with the rolls in the
    order of ``_GROUPED``: the six doubles, then the 15 non-doubles."""
    free = len(bar) - np.count_nonzero(bar)
    hits = np.empty((len(ALL_ROLLS), len(shooters)), dtype=np.int32)
    twos = np.empty(hits.shape, dtype=bool)
    if free:
        f = slice(0, free)
        hits[:6, f], twos[:6, f] = doubles_off_bar(shooters[f], open_[f], blots[f])
        hits[6:, f], twos[6:, f] = non_doubles_no_bar(shooters[f], singles[f], open_[f], blots[f])
    if free < len(bar):
        b = slice(free, None)
        hits[:6, b], twos[:6, b] = doubles(shooters[b], open_[b], blots[b], bar[b])
        hits[6:, b], twos[6:, b] = non_doubles_from_bar(shooters[b], open_[b], blots[b], bar[b])
    return hits, twos


_GROUPED = np.concatenate([np.flatnonzero(_IS_DOUBLE), np.flatnonzero(~_IS_DOUBLE)])
"""The rolls of ``_hits_grouped``' rows, as indices of ALL_ROLLS."""


def roll_hits(shooters, singles, open_, blots, bar):
    """Per roll, in ALL_ROLLS order: ((21, B) int32 masks of the blots the roll can hit, (21, B) bool
    whether it can hit two). Arguments (B,) int64 bit masks, bit p = our point p: ``shooters``, points
    whose checkers may hit; ``singles``, those with exactly one checker; ``open_``, points not held by
    the opponent; ``blots``, the targets; and ``bar`` (B,), our checkers on the bar."""
    masks = _int32_masks(shooters, singles, open_, blots, bar)
    order = np.argsort(masks[4] > 0, kind="stable")  # nobody on the bar first
    grouped_hits, grouped_twos = _hits_grouped(*(m[order] for m in masks))
    hits = np.empty_like(grouped_hits)
    twos = np.empty_like(grouped_twos)
    hits[np.ix_(_GROUPED, order)] = grouped_hits
    twos[np.ix_(_GROUPED, order)] = grouped_twos
    return hits, twos


def hit_features(shooters, singles, open_, blots, bar) -> np.ndarray:
    """(B, 3) float32: [PIPLOSS, P1, P2] from the masks of ``roll_hits``.

    PIPLOSS: sum over the 36 rolls of the pips lost by the farthest blot the roll hits, / (12 x 36)
    (gnubg's scale: 1.0 is 12 pips lost per roll on average; at most 2). P1, P2: the chance (n / 36)
    of a roll that hits at least one, at least two blots.

    Only rows where some checker (or the bar) stands above the nearest blot can hit at all (every
    move goes down): about half of the positions of self-play; the others are 0 without ``roll_hits``.
    """
    shooters, singles, open_, blots, bar = (np.asarray(m) for m in (shooters, singles, open_, blots, bar))
    out = np.zeros((len(shooters), 3), dtype=np.float32)
    origins = shooters | np.where(bar > 0, BAR_BIT, 0)
    can_hit = (blots != 0) & (origins >= 2 * (blots & -blots))
    rows = np.concatenate([np.flatnonzero(can_hit & (bar == 0)), np.flatnonzero(can_hit & (bar > 0))])
    if len(rows) == 0:
        return out
    hits, twos = _hits_grouped(*_int32_masks(shooters[rows], singles[rows], open_[rows], blots[rows], bar[rows]))
    # sums of whole numbers (ways of the roll x pips or 0/1), exact in float32 in any order, then one
    # division: the same figures whichever rows a batch holds
    ways = _WAYS[_GROUPED]
    out[rows, 0] = ways @ _farthest_point(hits).astype(np.float32) / np.float32(36 * 12)
    out[rows, 1] = ways @ (hits != 0).astype(np.float32) / np.float32(36)
    out[rows, 2] = ways @ twos.astype(np.float32) / np.float32(36)
    return out
