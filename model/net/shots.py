"""Which enemy blots the side on roll can hit with each of the 21 rolls: one shared, batched core.

Used by the network's hit-chance inputs (model/net/features.py) and the heuristic player's blot risk
(model/players/heuristic.py). Positions are seen by the side on roll, which moves from its bar (point 25)
towards its point 1. "A single checker standing alone is a blot: land on it, and it is hit." A
checker hits directly with one die, or with a combination of dice (up to four steps of a double)
when every stop on the way is open, i.e. not held by two or more enemy checkers. The duty to enter
from the bar first is ignored: a slight overestimate.

Each side of the board is one integer per position, bit p standing for point p (25 = the bar), so
moving every checker d points towards home is a single right shift by d.
"""

from __future__ import annotations

import numpy as np

from engine.board import BAR, POINTS
from engine.movegen import ALL_ROLLS

_POINT_BITS = np.int64(1) << np.arange(1, 25, dtype=np.int64)  # bit p for point p


def hits_by_roll(positions: np.ndarray) -> np.ndarray:
    """(21, B) int64 bit masks, in ALL_ROLLS order: bit p set when that roll lets the side on roll hit
    the enemy blot on its point p."""
    board = np.asarray(positions)[:, POINTS]
    shooters = (board > 0) @ _POINT_BITS | (np.asarray(positions)[:, BAR] > 0).astype(np.int64) << 25
    open_points = ~((board <= -2) @ _POINT_BITS)
    blots = (board == -1) @ _POINT_BITS
    out = np.empty((len(ALL_ROLLS), len(board)), dtype=np.int64)
    for r, (high, low) in enumerate(ALL_ROLLS):
        if high == low:
            step, reach = shooters, np.zeros(len(board), dtype=np.int64)
            for _ in range(4):
                step = (step >> high) & open_points
                reach |= step
        else:
            a = (shooters >> high) & open_points
            b = (shooters >> low) & open_points
            reach = a | b | ((a >> low) & open_points) | ((b >> high) & open_points)
        out[r] = reach & blots
    return out
