"""The single-die rules of both games as small batched predicates.

Each predicate takes positions (N, 28) in the mover's frame and works on all of them at once. A
"source" is a slot index 0..24: 0..23 are the mover's points 1..24, 24 its bar (point 25 for
counting pips). Moving a die of d from point s lands on point s-d; 0 or below means bearing off.
"""

from __future__ import annotations

import numpy as np

from engine.board import BAR, CHECKERS, HEAD, OPP_OFF

_SOURCE_POINTS = np.arange(1, 26, dtype=np.int16)  # point number of each source slot; the bar counts as 25
_SOURCES = slice(0, 25)  # slots 0..23 (points) and 24 (the mover's bar): every place a checker leaves
_SHIFT = 6  # zero columns put before the board so that "the slot d below" is a window of the row
_DEST = _SOURCE_POINTS[None, :] - np.arange(7, dtype=np.int16)[:, None]  # [d, s]: the point a die of d reaches from s
_ON_BOARD = _DEST >= 1


def all_home(positions: np.ndarray) -> np.ndarray:
    """Bearing off is allowed only "when all 15 not yet borne off are in the home board (none on
    the bar)": no mover checker on points 7..24 or the bar. (N,) bool."""
    return positions[:, 6:25].max(axis=1, initial=0) <= 0  # slots 6..23 are points 7..24, slot 24 the bar


def highest_point(positions: np.ndarray) -> np.ndarray:
    """The mover's highest occupied point 1..24 (bar = 25), 0 if none: (N,) int."""
    occupied = positions[:, _SOURCES] > 0
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


def landing_counts(positions: np.ndarray, dice: np.ndarray) -> np.ndarray:
    """(N, 25) the signed count on the point each source's checker would land on with the row's die
    (0 where it would bear off): column s holds slot s-d of the row."""
    n = len(positions)
    padded = np.zeros((n, _SHIFT + 25), dtype=np.int8)
    padded[:, _SHIFT:] = positions[:, _SOURCES]
    # (N, 7, 25) windows of each row, no copy: sliding_window_view's view, without its checks (which
    # cost more than the gather itself on small batches)
    windows = np.ndarray((n, _SHIFT + 1, 25), dtype=np.int8, buffer=padded, strides=(_SHIFT + 25, 1, 1))
    return windows[np.arange(n), _SHIFT - dice]


def bar_first(game: str, positions: np.ndarray) -> np.ndarray:
    """Backgammon: "while any of the mover's checkers are on the bar nothing else may move". (N,) bool,
    True where only the bar may move; never in long nardi, which has no bar."""
    if game != "backgammon":
        return np.zeros(len(positions), dtype=bool)
    return positions[:, BAR] > 0


def open_landing(game: str, counts: np.ndarray) -> np.ndarray:
    """Whether a checker may land on points holding the signed ``counts`` (mover +, opponent -).

    Backgammon: "a checker may land on an empty point, on its own side's, or on a point with one
    checker of the opponent's, but never on a point the opponent holds with two or more".
    Long nardi: "a point holding any opponent checker is closed".
    """
    return counts >= (-1 if game == "backgammon" else 0)


def head_open(game: str, head_left: np.ndarray) -> np.ndarray:
    """Long nardi: "at most one checker may leave the head (the mover's 24-point) in a turn" (two on
    the first turn with 6-6, 4-4 or 3-3, see ``head_limits``): (N,) bool, True where another checker
    may still leave, given ``head_left`` (N,), how many more may. Always True in backgammon."""
    head_left = np.asarray(head_left)
    if game != "nardi":
        return np.ones(head_left.shape, dtype=bool)
    return head_left > 0


def single_die_moves(game: str, positions: np.ndarray, dice: np.ndarray, head_left: np.ndarray,
                     allowed: np.ndarray | None = None):
    """Every legal single-checker move of one die per row: (rows, source slots, destination points).

    A checker moves from a source where the mover has one, "a die of N enters on the mover's point
    25-N" from the bar (backgammon), and the move must pass ``bar_first``, ``head_open`` (from the
    head) and ``open_landing`` (on the board) or ``may_bear_off`` (off it). ``head_left`` (N,) says
    how many more checkers may leave the head this turn (nardi: 0, 1 or 2, see ``heads_left``).
    ``allowed`` (N, 25) bool, if given, keeps only the moves from the sources it marks (the move
    generator uses it to skip orders of moves that can only repeat results it already has).
    """
    source_ok = positions[:, _SOURCES] > 0  # (N, 25): a mover checker stands there
    if game == "backgammon":
        source_ok[bar_first(game, positions), :24] = False
    else:  # long nardi has no bar, and a head
        source_ok[:, HEAD] &= head_open(game, head_left)
    if allowed is not None:
        source_ok &= allowed
    legal = source_ok & _ON_BOARD[dice] & open_landing(game, landing_counts(positions, dice))
    home = np.flatnonzero(all_home(positions))
    if len(home):  # bearing off: only rows with every checker home
        legal[home] |= source_ok[home] & may_bear_off(positions[home], _DEST[dice[home]])
    rows, sources = np.nonzero(legal)
    return rows, sources, _SOURCE_POINTS[sources] - dice[rows].astype(np.int16)


def first_turn_default(positions: np.ndarray) -> np.ndarray:
    """Long nardi: "the side's first turn is a turn in which all 15 of its checkers are on its head"."""
    return positions[:, HEAD] == CHECKERS


NO_HEAD = np.full(256, 4, dtype=np.int8)
"""Backgammon's head limits (none: 4) for up to 256 positions: copied by ``head_limits``, read (never
written) by engine/movegen.py's ``legal_plays``."""


def head_limits(game: str, positions: np.ndarray, dice: np.ndarray, first_turn=None) -> np.ndarray:
    """How many checkers may leave the head this turn, (N,) int8. Long nardi: "at most one checker
    may leave the head in a turn"; on the side's first turn ("all 15 on the head", see
    ``first_turn_default``; ``first_turn``, a bool or (N,) bools, overrides it), "with 6-6, 4-4 or
    3-3, two checkers may leave". Backgammon has no head: 4, which never limits."""
    n = len(positions)
    if game != "nardi":  # a copy of a slice: a third of np.full's time for the one position of a hint
        return NO_HEAD[:n].copy() if n <= len(NO_HEAD) else np.full(n, 4, dtype=np.int8)
    if first_turn is None:
        first = first_turn_default(positions)
    else:
        first = np.broadcast_to(np.asarray(first_turn, dtype=bool), (n,))
    special = (dice[:, 0] == dice[:, 1]) & np.isin(dice[:, 0], (3, 4, 6))
    return np.where(first & special, 2, 1).astype(np.int8)


def heads_left(game: str, limits: np.ndarray, start_heads: np.ndarray, now: np.ndarray) -> np.ndarray:
    """How many more checkers may leave the head: the turn's ``limits`` (``head_limits``) less those
    that already left (``start_heads`` the head counts at the start of the turn, ``now`` the positions
    reached). Unchanged in backgammon."""
    if game != "nardi":
        return limits
    return limits - (start_heads - now[:, HEAD])


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
