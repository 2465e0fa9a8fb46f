"""Lookup tables of the contact and nardi inputs (model/net/contact_inputs.py, nardi_inputs.py), built
once at import from the rules of the dice: the point units, gnubg's escape counts and the pips lost
on the bar."""

from __future__ import annotations

import numpy as np

from engine.movegen import ALL_ROLLS


def unit_table() -> np.ndarray:
    """(16, 4): the four units of a point holding 0..15 checkers."""
    n = np.arange(16)
    return np.stack([n == 1, n == 2, n >= 3, np.maximum(n - 3, 0) / 2], axis=1).astype(np.float32)


def escape_tables() -> tuple[np.ndarray, np.ndarray]:
    """(4096,) escape counts for each 12-bit mask of blocked points ahead (bit i: i+1 pips ahead).

    gnubg's definition of an escaping roll: the checker can travel the whole roll, i.e. the point
    d1+d2 ahead is open and so is the stop after the first die (either order; d ahead for a double).
    Points more than 12 ahead do not count. The second table (gnubg's Escapes1, used for
    BACK_RESCAPES) counts only rolls that also land beyond the nearest blocked point, and is 0 when
    nothing ahead is blocked.
    """
    masks = np.arange(4096)
    blocked = ((masks[:, None] >> np.arange(12)) & 1).astype(bool)  # (4096, 12)
    nearest = np.where(blocked.any(1), np.argmax(blocked, axis=1), 99)
    plain = np.zeros(4096, dtype=np.int64)
    beyond = np.zeros(4096, dtype=np.int64)
    for high, low in ALL_ROLLS:
        ways = 1 if high == low else 2
        free = ~blocked[:, high + low - 1] & ~(blocked[:, high - 1] & blocked[:, low - 1])
        plain += ways * free
        beyond += ways * (free & (high + low - 1 > nearest))
    return plain, beyond


def enter_loss_table() -> np.ndarray:
    """(2, 64): pips lost per 36 rolls while on the bar, by [two or more on the bar, closed-points mask].

    A die is lost when its entry point is closed and the checker cannot use it otherwise: with one
    checker on the bar only when both dice are closed (then the whole roll is lost; a double counts
    four times its die); with two or more, each closed die is lost.
    """
    table = np.zeros((2, 64), dtype=np.float64)
    for mask in range(64):
        closed = [bool(mask >> (d - 1) & 1) for d in range(1, 7)]
        for two in (0, 1):
            loss = 0
            for high, low in ALL_ROLLS:
                if high == low:
                    loss += 4 * high * closed[high - 1]
                elif closed[high - 1] and closed[low - 1]:
                    loss += 2 * (high + low)
                elif two:
                    loss += 2 * (high * closed[high - 1] + low * closed[low - 1])
            table[two, mask] = loss
    return table


UNITS = unit_table()
"""(16, 4) float32: the four input units of a point holding 0..15 checkers."""
ESCAPES, ESCAPES_BEYOND = escape_tables()
"""(4096,) each: escaping rolls per 12-bit mask of blocked points ahead, and those landing beyond
the nearest block (gnubg's Escapes and Escapes1)."""
ENTER_LOSS = enter_loss_table().ravel()
"""(128,): pips lost per 36 rolls on the bar, index 64 * (two or more on the bar) + closed mask."""
