"""The single-die rules of both games as small batched predicates.

Each predicate takes positions (N, 28) in the mover's frame and works on all of them at once. A
"source" is a slot index 0..24: 0..23 are the mover's points 1..24, 24 its bar (point 25 for
counting pips). Moving a die of d from point s lands on point s-d; 0 or below means bearing off.
"""

from __future__ import annotations

import numpy as np

from .board import BAR, CHECKERS, HEAD, OPP_OFF, POINTS

_SOURCE_POINTS = np.arange(1, 26)  # point number of each source slot; the bar counts as 25


def mover_counts(positions: np.ndarray) -> np.ndarray:
    """The mover's checkers on sources 0..24 (points 1..24, then the bar): (N, 25) int16."""
    counts = np.empty((len(positions), 25), dtype=np.int16)
    counts[:, :24] = np.maximum(positions[:, POINTS], 0)
    counts[:, 24] = positions[:, BAR]
    return counts


def all_home(positions: np.ndarray) -> np.ndarray:
    """Bearing off is allowed only "when all 15 not yet borne off are in the home board (none on
    the bar)": no mover checker on points 7..24 or the bar. (N,) bool."""
    outside = (positions[:, 6:24] > 0).any(axis=1) | (positions[:, BAR] > 0)
    return ~outside


def highest_point(positions: np.ndarray) -> np.ndarray:
    """The mover's highest occupied point 1..24 (bar = 25), 0 if none: (N,) int."""
    occupied = mover_counts(positions) > 0
    return np.where(occupied.any(axis=1), 25 - np.argmax(occupied[:, ::-1], axis=1), 0)


def may_bear_off(positions: np.ndarray, dest: np.ndarray) -> np.ndarray:
    """(N, 25) bool for moves landing on point ``dest`` <= 0 from each source point.

    "A die takes a checker off from the point of its number; a higher die may take one off the
    highest occupied point only when no checker stands higher. Only when all 15 not yet borne off
    are in the home board."
    """
    exact = dest == 0
    from_highest = (dest < 0) & (_SOURCE_POINTS[None, :] == highest_point(positions)[:, None])
    return (dest <= 0) & all_home(positions)[:, None] & (exact | from_highest)


def single_die_moves(game: str, positions: np.ndarray, dice: np.ndarray, head_left: np.ndarray):
    """Every legal single-checker move of one die per row: (rows, source slots, destination points).

    Backgammon: "a checker may land on an empty point, on its own side's, or on a point with one
    checker of the opponent's, but never on a point the opponent holds with two or more"; "while any
    of the mover's checkers are on the bar nothing else may move"; "a die of N enters on the mover's
    point 25-N".
    Long nardi: "a point holding any opponent checker is closed"; there is no bar; "at most one
    checker may leave the head (the mover's 24-point) in a turn" (``head_left`` says how many more
    may leave this turn: 0, 1 or 2).
    """
    counts = mover_counts(positions)  # (N, 25)
    dest = _SOURCE_POINTS[None, :] - dice[:, None]  # (N, 25)
    landing = np.clip(dest, 1, 24) - 1
    at_dest = np.take_along_axis(positions[:, POINTS], landing, axis=1)  # (N, 25), signed
    if game == "backgammon":
        open_point = at_dest >= -1
        on_bar = positions[:, BAR] > 0
        source_ok = (counts > 0) & (~on_bar[:, None] | (_SOURCE_POINTS[None, :] == 25))
    else:
        open_point = at_dest >= 0
        source_ok = counts > 0
        source_ok[:, HEAD] &= head_left > 0
        source_ok[:, 24] = False
    legal = source_ok & (((dest >= 1) & open_point) | may_bear_off(positions, dest))
    rows, sources = np.nonzero(legal)
    return rows, sources, dest[rows, sources]


def first_turn_default(positions: np.ndarray) -> np.ndarray:
    """Long nardi: "the side's first turn is a turn in which all 15 of its checkers are on its head"."""
    return positions[:, HEAD] == CHECKERS


# The opponent's way in the mover's numbers: 12, 11, ..., 1, 24, 23, ..., 13, then off.
_OPPONENT_PATH = np.array(list(range(12, 0, -1)) + list(range(24, 12, -1))) - 1  # slots, in path order


def six_in_a_row_violations(positions: np.ndarray) -> np.ndarray:
    """Long nardi's six-in-a-row rule, (N,) bool: True where the position is not allowed.

    "A play may not leave the mover holding six (or more) consecutive points unless at least one
    opponent checker is past the block. 'Consecutive' and 'past' follow the opponent's path, which
    in the mover's numbers runs 12, 11, ..., 1, 24, 23, ..., 13 and then off. A checker is past the
    block when it stands further along that path than every point of the block, or has been borne
    off."
    """
    along = positions[:, _OPPONENT_PATH]  # (N, 24): index i = i-th point on the opponent's way
    held = (along > 0).astype(np.int8)
    # window[i] is True when path points i..i+5 are all held by the mover
    csum = np.concatenate([np.zeros((len(held), 1), np.int16), np.cumsum(held, axis=1, dtype=np.int16)], 1)
    window = (csum[:, 6:] - csum[:, :-6]) == 6  # (N, 19)
    # the furthest opponent checker along its path; borne off counts as beyond everything
    theirs = along < 0
    furthest = np.where(theirs.any(axis=1), 23 - np.argmax(theirs[:, ::-1], axis=1), -1)
    furthest = np.where(positions[:, OPP_OFF] > 0, 24, furthest)
    # a block ending at path index i+5 is passed when some opponent checker is beyond i+5
    block_end = np.arange(19)[None, :] + 5
    return (window & (furthest[:, None] <= block_end)).any(axis=1)
