"""FIBS board strings, as gnubg's external-player protocol writes them, <-> our positions.

``set player 0 external HOST:PORT`` makes gnubg 1.07 hand each decision of that player to a server
as one line ``board:`` + 52 colon-separated fields (docs/FORMATS.md, "FIBS board string"):

    1-2 names, 3 match length (0 = money), 4-5 scores, 6-31 the 26 slots, 32 turn, 33-36 the dice
    (twice), 37 cube value, 38 player 1 may double, 39 player 0 may double, 40 was doubled,
    41-44 colour, direction, home, bar (always 1:-1:0:25), 45-46 checkers off for player 1 and
    player 0, 47-50 zeros, 51 post-Crawford, 52 non-Crawford (0 in the Crawford game).

The slots are always seen from player 1: its checkers positive, its point k in slot k, its bar in
slot 25; player 0's checkers negative, its point k in slot 25-k, its bar in slot 0. ``turn`` is -1
when player 0 is on roll, +1 for player 1. The side that must act is the side on roll, except in a
take question (was doubled), where it is the other side; names and scores come as (player 0,
player 1), except in a take question, where they come as (player 1, player 0). A cube cannot be
doubled by the side that does not own it: "player k may double" is false exactly when the other
side owns the cube, both true when it is centred.

``read_fibs_board`` turns one such line into a ``FibsBoard`` (our terms: a (28,) position in the
frame of the side on roll, who is on roll, who must act, dice, cube, score, Crawford) and
``write_fibs_board`` writes one back exactly as gnubg does (for tests and for clients). Every
problem raises ``FormatError`` with one line that says what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.board import BAR, CHECKERS, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF, PositionError, flip, validate
from engine.errors import FormatError

FIELDS = 52
"""Fields after ``board:`` in a gnubg 1.07 board line."""
CONSTANT_FIELDS = (1, -1, 0, 25)
"""Fields 41-44 (colour, direction, home, bar) as gnubg writes them."""

MOVE, CUBE, TAKE = "move", "cube", "take"
"""What a board asks: a play of the dice, roll-or-double, take-or-drop."""


@dataclass(frozen=True, eq=False)
class FibsBoard:
    """One decision gnubg hands to an external player, in our terms (players are gnubg's 0 and 1)."""

    names: tuple[str, str]  # player 0's name, player 1's
    match_length: int  # 0 = money play
    scores: tuple[int, int]  # player 0's score, player 1's
    position: np.ndarray  # (28,) int8, seen by ``mover`` (engine/board.py)
    mover: int  # the side on roll: the one to move, to roll or double, or the one that has doubled
    dice: tuple[int, int] | None  # the thrown dice, None before the roll
    cube: int = 1  # the cube's value (in a take question still the value before the double)
    cube_owner: int | None = None  # None = centred
    doubled: bool = False  # ``mover`` has doubled: the other side must take or drop
    crawford: bool = False  # this game is the Crawford game
    post_crawford: bool = False  # a game after the Crawford game

    @property
    def actor(self) -> int:
        """The side that must decide now: the one on roll, or the doubled side in a take question."""
        return 1 - self.mover if self.doubled else self.mover

    @property
    def kind(self) -> str:
        """TAKE (answer a double), CUBE (roll or double: no dice yet) or MOVE (play the dice)."""
        return TAKE if self.doubled else MOVE if self.dice is not None else CUBE

    def resume(self, jacoby: bool = False, beavers: bool = False):
        """The engine.game ``GameState`` of this board, ``mover`` on roll before its roll (the cube at
        its value before a waiting double). The board does not say whether Jacoby or beavers are in
        force in money play: the caller does. RuleError (a ValueError) where the rules cannot reach it."""
        from engine import game as g

        money = self.match_length == 0
        rules = g.Rules(match_length=self.match_length, jacoby=jacoby and money, beavers=beavers and money)
        length = self.match_length
        crawford_played = self.post_crawford or (length > 1 and max(self.scores) == length - 1 and not self.crawford)
        match = g.MatchState(rules, score=self.scores, crawford_played=crawford_played)
        return g.resume_game(match, self.position, self.mover, cube=self.cube, cube_owner=self.cube_owner)

    def seen_by(self, side: int) -> np.ndarray:
        """The position (28,) in the frame of ``side``."""
        return self.position if side == self.mover else flip("backgammon", self.position)


def _ints(fields: list[str], what: str) -> list[int]:
    try:
        return [int(f) for f in fields]
    except ValueError:
        raise FormatError(f"FIBS board: {what} must be whole numbers, got {':'.join(fields)!r}") from None


def _player1_frame(slots: list[int], off1: int, off0: int) -> np.ndarray:
    """Slots seen from player 1 (its checkers positive) -> our (28,) row in player 1's frame.

    Player 1's point p is slot p; player 0's checkers there are negative, which is exactly our
    "opponent negative" convention; the bars are slot 25 (player 1) and slot 0 (player 0).
    """
    too_many = next((k for k, v in enumerate(slots) if abs(v) > CHECKERS), None)
    if too_many is not None:
        raise FormatError(f"FIBS board: slot {too_many} holds {slots[too_many]} checkers; a side has {CHECKERS}")
    if slots[25] < 0 or slots[0] > 0:
        raise FormatError(
            f"FIBS board: player 1's bar (slot 25) holds checkers >= 0 and player 0's (slot 0) <= 0, "
            f"got {slots[25]} and {slots[0]}"
        )
    pos = np.zeros(NUM_SLOTS, dtype=np.int8)
    pos[:24] = slots[1:25]
    pos[BAR], pos[OPP_BAR] = slots[25], -slots[0]
    pos[OFF], pos[OPP_OFF] = off1, off0
    return pos


def read_fibs_board(line: str) -> FibsBoard:
    """One board line from gnubg (NUL and line end stripped or not) -> FibsBoard; FormatError if bad."""
    text = line.replace("\x00", "").strip()
    if not text.startswith("board:"):
        raise FormatError(f"not a FIBS board line (must start with 'board:'): {text[:40]!r}")
    fields = text[len("board:"):].split(":")
    if len(fields) != FIELDS:
        raise FormatError(f"FIBS board: expected {FIELDS} fields after 'board:', got {len(fields)}")
    numbers = _ints(fields[2:], "fields 3-52")
    length, score_a, score_b = numbers[0:3]
    slots = numbers[3:29]
    turn, d1, d2, _, _, cube, p1_may, p0_may, was_doubled = numbers[29:38]
    constants = tuple(numbers[38:42])
    off1, off0 = numbers[42:44]
    post_crawford, non_crawford = numbers[48:50]
    if turn not in (-1, 1):
        raise FormatError(f"FIBS board: turn (field 32) is -1 (player 0) or 1 (player 1), got {turn}")
    if constants != CONSTANT_FIELDS:
        raise FormatError(f"FIBS board: fields 41-44 must be 1:-1:0:25 (gnubg's orientation), got {constants}")
    if length < 0 or min(score_a, score_b) < 0 or (length and max(score_a, score_b) >= length):
        raise FormatError(f"FIBS board: scores {score_a}-{score_b} do not fit a match of {length} (0 = money)")
    if cube < 1 or cube & (cube - 1) or cube > 2**15:
        raise FormatError(f"FIBS board: the cube (field 37) is a power of two, got {cube}")
    if (d1, d2) != (0, 0) and not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise FormatError(f"FIBS board: dice (fields 33-34) are 1..6, or 0 0 before the roll, got {d1} {d2}")
    if p1_may not in (0, 1) or p0_may not in (0, 1) or not (p1_may or p0_may):
        raise FormatError(f"FIBS board: may-double flags (fields 38-39) must be 0/1, not both 0: {p1_may} {p0_may}")
    if min(off1, off0) < 0 or max(off1, off0) > CHECKERS:
        raise FormatError(f"FIBS board: checkers off (fields 45-46) are 0..15, got {off1} {off0}")
    doubled = was_doubled != 0
    if doubled and (d1, d2) != (0, 0):
        raise FormatError("FIBS board: a double is answered before the roll, but dice are set")
    mover = 0 if turn == -1 else 1
    # in a take question gnubg lists names and scores from the doubled side's seat: (player 1, player 0)
    names = (fields[1], fields[0]) if doubled else (fields[0], fields[1])
    scores = (score_b, score_a) if doubled else (score_a, score_b)
    p1_pos = _player1_frame(slots, off1, off0)
    for player, sign, bar, off in ((0, -1, -slots[0], off0), (1, 1, slots[25], off1)):
        count = sum(max(sign * v, 0) for v in slots[1:25]) + bar + off
        if count != CHECKERS:
            raise FormatError(f"FIBS board: player {player} has {count} checkers (board, bar and off), not {CHECKERS}")
    try:
        validate("backgammon", p1_pos)
    except PositionError as err:
        raise FormatError(f"FIBS board: {err} (counting fields 45-46 as borne off)") from None
    position = p1_pos if mover == 1 else flip("backgammon", p1_pos)
    position.flags.writeable = False
    owner = None if (p1_may and p0_may) else (0 if p0_may else 1)
    crawford = bool(length) and non_crawford == 0 and not post_crawford and length - 1 in (score_a, score_b)
    return FibsBoard(
        names=names, match_length=length, scores=scores, position=position, mover=mover,
        dice=None if d1 == 0 else (d1, d2), cube=cube, cube_owner=owner, doubled=doubled,
        crawford=crawford, post_crawford=bool(post_crawford),
    )


def write_fibs_board(board: FibsBoard) -> str:
    """The board line gnubg 1.07 would send for ``board`` (no line end, no NUL)."""
    p1 = board.seen_by(1).astype(int)
    slots = [-int(p1[OPP_BAR])] + [int(v) for v in p1[:24]] + [int(p1[BAR])]
    names = board.names[::-1] if board.doubled else board.names
    scores = board.scores[::-1] if board.doubled else board.scores
    d1, d2 = board.dice or (0, 0)
    non_crawford = 0 if board.crawford else 1
    fields = [
        names[0].replace(":", "_"), names[1].replace(":", "_"), board.match_length, *scores, *slots,
        -1 if board.mover == 0 else 1, d1, d2, d1, d2, board.cube,
        int(board.cube_owner != 0), int(board.cube_owner != 1), int(board.doubled), *CONSTANT_FIELDS,
        int(p1[OFF]), int(p1[OPP_OFF]), 0, 0, 0, 0, int(board.post_crawford), non_crawford,
    ]
    return "board:" + ":".join(str(f) for f in fields)
