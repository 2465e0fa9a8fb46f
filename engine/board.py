"""Positions of both games as small int8 arrays, batch first, in the mover's frame.

A position is one row of 28 int8 values (``Position`` below is just ``np.ndarray[B, 28]``):

    slots 0..23   the mover's points 1..24 (slot p-1 is point p): + mover's checkers, - opponent's
    slot 24       the mover's checkers on the bar          (always 0 in long nardi)
    slot 25       the opponent's checkers on the bar       (always 0 in long nardi)
    slot 26       the mover's checkers borne off
    slot 27       the opponent's checkers borne off

The mover's points are numbered along its own way: 24 is the farthest from home, 1 the last point
before bearing off, and the home board is 1..6. In backgammon the mover's point p is the opponent's
point 25-p; in long nardi it is the opponent's point p+12 (mod 24, in 1..24), and each side's head is
its own 24-point (the opponent's 12-point).
"""

from __future__ import annotations

import numpy as np

GAMES = ("backgammon", "nardi")

NUM_SLOTS = 28
POINTS = slice(0, 24)
BAR = 24  # the mover's bar
OPP_BAR = 25  # the opponent's bar
OFF = 26  # the mover's borne-off checkers
OPP_OFF = 27  # the opponent's borne-off checkers
HEAD = 23  # slot of the mover's 24-point: the head in long nardi
CHECKERS = 15


class PositionError(ValueError):
    """A position that breaks the rules of its game (wrong counts, both colours on a point...)."""


def check_game(game: str) -> str:
    """Return ``game`` if it names one of the two games, else raise ValueError."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: expected one of {', '.join(GAMES)}")
    return game


def start_position(game: str = "backgammon", batch: int | None = None) -> np.ndarray:
    """The opening position, seen by the side to move: shape (28,), or (batch, 28) if batch is given.

    Backgammon: two checkers on the 24-point, five on the 13, three on the 8 and five on the 6, the
    opponent mirrored. Long nardi: all fifteen on the head (the 24-point), the opponent's fifteen on
    its head, which is the mover's 12-point.
    """
    check_game(game)
    pos = np.zeros(NUM_SLOTS, dtype=np.int8)
    if game == "backgammon":
        for point, count in ((24, 2), (13, 5), (8, 3), (6, 5)):
            pos[point - 1] += count
            pos[24 - point] -= count  # the opponent's point p is our 25-p
    else:
        pos[23] = CHECKERS
        pos[11] = -CHECKERS
    if batch is not None:
        return np.repeat(pos[None, :], batch, axis=0)
    return pos


def flip(game: str, positions: np.ndarray) -> np.ndarray:
    """The same positions seen by the other side (shape kept, (28,) or (B, 28)).

    Backgammon: our point p is the opponent's 25-p. Long nardi: our point p is the opponent's p+12.
    """
    check_game(game)
    pos = np.asarray(positions)
    out = np.empty_like(pos)
    board = pos[..., POINTS]
    if game == "backgammon":
        out[..., POINTS] = -board[..., ::-1]
    else:
        out[..., POINTS] = -np.roll(board, 12, axis=-1)
    out[..., BAR] = pos[..., OPP_BAR]
    out[..., OPP_BAR] = pos[..., BAR]
    out[..., OFF] = pos[..., OPP_OFF]
    out[..., OPP_OFF] = pos[..., OFF]
    return out


def pips(game: str, positions: np.ndarray) -> np.ndarray:
    """Pip counts (..., 2): [mover, opponent], the distance each side's checkers still travel to bear off.

    A checker on the mover's point p needs p pips, one on the bar 25. The opponent's counts are read
    from the flipped position.
    """
    pos = np.asarray(positions)

    def own(p: np.ndarray) -> np.ndarray:
        board = np.maximum(p[..., POINTS].astype(np.int32), 0)
        return board @ np.arange(1, 25, dtype=np.int32) + 25 * p[..., BAR].astype(np.int32)

    return np.stack([own(pos), own(flip(game, pos))], axis=-1)


def _highest(mask: np.ndarray) -> np.ndarray:
    """The highest point 1..24 marked in ``mask`` (..., 24), 0 where none is (argmax: no int temporaries)."""
    return np.where(mask.any(axis=-1), 24 - np.argmax(mask[..., ::-1], axis=-1), 0)


def _lowest(mask: np.ndarray) -> np.ndarray:
    """The lowest point 1..24 marked in ``mask`` (..., 24), 25 where none is."""
    return np.where(mask.any(axis=-1), np.argmax(mask, axis=-1) + 1, 25)


def has_contact(game: str, positions: np.ndarray) -> np.ndarray:
    """True where the two sides can still meet: some mover checker is behind some opponent checker.

    Backgammon: the mover's farthest checker (bar = 25) is higher than the opponent's farthest
    checker in the mover's numbers. Long nardi: the sides never hit, so "contact" means some mover
    checker still has an opponent checker ahead of it on its way home (the opponent's checkers in
    the mover's 1..12 or 13..23 block the race).
    """
    pos = np.asarray(positions)
    board = pos[..., POINTS]
    mine = board > 0
    theirs = board < 0
    if game == "backgammon":
        my_back = np.where(pos[..., BAR] > 0, 25, _highest(mine))
        their_back = np.where(pos[..., OPP_BAR] > 0, 0, _lowest(theirs))
        return my_back > their_back
    # Nardi: a mover checker on p still meets an opponent checker on any q < p ahead of it; the
    # same test from the opponent's side (flipped) covers the opponent's checkers.
    my_back = _highest(mine)
    their_low = _lowest(theirs)
    flipped = flip(game, pos)[..., POINTS]
    their_back = _highest(flipped > 0)
    my_low_for_them = _lowest(flipped < 0)
    return (my_back > their_low) | (their_back > my_low_for_them)


def validate(game: str, position: np.ndarray) -> None:
    """Raise PositionError with the reason if one position (28,) breaks its game's rules."""
    validated_slots(game, position)


def validated_slots(game: str, position: np.ndarray) -> list[int]:
    """The 28 slots of one position as Python ints (28 numbers are quicker summed without arrays),
    once ``validate``'s checks pass; PositionError with the reason where they do not."""
    check_game(game)
    pos = np.asarray(position)
    if pos.shape != (NUM_SLOTS,):
        raise PositionError(f"a position has {NUM_SLOTS} slots, got shape {pos.shape}")
    slots = pos.astype(np.int64).tolist()
    if slots[BAR] < 0 or slots[OPP_BAR] < 0 or slots[OFF] < 0 or slots[OPP_OFF] < 0:
        raise PositionError("bar and borne-off counts must not be negative")
    board = slots[:24]
    mine = sum(v for v in board if v > 0) + slots[BAR] + slots[OFF]
    theirs = -sum(v for v in board if v < 0) + slots[OPP_BAR] + slots[OPP_OFF]
    if mine != CHECKERS:
        raise PositionError(f"the side to move has {mine} checkers, not {CHECKERS}")
    if theirs != CHECKERS:
        raise PositionError(f"the opponent has {theirs} checkers, not {CHECKERS}")
    if slots[OFF] == CHECKERS and slots[OPP_OFF] == CHECKERS:
        raise PositionError("both sides have borne off all their checkers")
    if game == "nardi" and (slots[BAR] or slots[OPP_BAR]):
        raise PositionError("long nardi has no bar: nothing is ever hit")
    # Backgammon: a side that has borne off must have had every checker home at the time; a checker
    # hit afterwards may be anywhere, so nothing more can be checked there.
    return slots


def is_valid(game: str, positions: np.ndarray) -> np.ndarray:
    """Vectorised validity (B,): checker counts of 15 a side, no negative bar/off, no nardi bar."""
    pos = np.asarray(positions).astype(np.int32)
    board = pos[..., POINTS]
    mine = np.maximum(board, 0).sum(-1) + pos[..., BAR] + pos[..., OFF]
    theirs = np.maximum(-board, 0).sum(-1) + pos[..., OPP_BAR] + pos[..., OPP_OFF]
    ok = (mine == CHECKERS) & (theirs == CHECKERS)
    ok &= (pos[..., BAR:] >= 0).all(-1)
    ok &= ~((pos[..., OFF] == CHECKERS) & (pos[..., OPP_OFF] == CHECKERS))
    if game == "nardi":
        ok &= (pos[..., BAR] == 0) & (pos[..., OPP_BAR] == 0)
    return ok


def winner_score(game: str, positions: np.ndarray) -> np.ndarray:
    """For finished games (mover has borne off all 15): 1 single / 2 gammon or mars / 3 backgammon.

    Returns (B,) int: 0 where the mover has not yet won. Backgammon: gammon when the loser bore off
    none, backgammon when moreover a loser checker is on the bar or in the winner's home board
    (the loser's checkers on the mover's points 1..6 show as negatives there). Long nardi: mars (2)
    when the loser bore off none.
    """
    pos = np.asarray(positions)
    won = pos[..., OFF] == CHECKERS
    none_off = pos[..., OPP_OFF] == 0
    score = np.where(won, np.where(none_off, 2, 1), 0)
    if game == "backgammon":
        in_home = (pos[..., 0:6] < 0).any(-1) | (pos[..., OPP_BAR] > 0)
        score = np.where(won & none_off & in_home, 3, score)
    return score
