"""The state of a game in progress, and what the rules allow in it: the cube and resignations.

``GameState`` is the frozen record engine.game's transitions pass along (position in the mover's
frame, whose turn, the phase, dice and legal plays, the cube, a waiting resignation). The functions
here only ask questions of a state (``double_refusal``, ``beaver_refusal``, ``resignation_refusal``,
``max_resignation``, ``actions``); engine.game makes the moves and re-exports all of these.

The cube (backgammon): "before its roll, the side on turn may double" when the cube is centred or
its own; the other side takes (and owns the cube at twice the value), drops (and loses the value
before the double), or, in money play with beavers on, beavers (redoubles at once and keeps the
cube: four times the value). Refused: long nardi, cubeless play, a one-point match, the Crawford
game, a cube owned by the opponent, a double past 64, and a side whose cube value already wins it
the match (engine.match). Jacoby (money, option): gammons and backgammons count as singles while
the cube is centred (as gnubg does; automatic doubles leave it centred), for resignations too.

Resigning: "at any moment but while a double waits for its answer, either side may offer to resign"
a single (1), gammon (2) or backgammon (3), times the cube, "never by more than the game can still
be lost by". Here, for the resigning side R (see ``max_resignation``):
  - R can still be gammoned only while it has borne off no checker;
  - R can still be backgammoned only while it can be gammoned and it has a checker on the bar or in
    the opponent's home board, or the two sides are still in contact (board.has_contact), so that a
    checker of R may yet be hit and sent back there.
Long nardi has no cube and no backgammon: a side may resign a win (1) or, while it has borne off
none, a mars (2); RULES-DECISIONS leaves nardi resignations open, this module allows them so that a
match can end a hopeless game the same way in both games. While an offer waits, only its answer
(by the other side) is allowed. After a rejection that side may offer again only after a roll has
been played (the next play by either side, a pass included).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from engine.board import BAR, OFF, flip, has_contact
from engine.match import MAX_CUBE, GameResult, MatchState, Rules


class CubeOwner(str, Enum):
    """Who owns the cube, seen by the side on roll: the program's one vocabulary for it (JSON and the
    cube theory of model/cube use these values). A game state records the owning *seat* instead
    (``GameState.cube_owner``: None while centred, else side 0 or 1); ``seen_by`` and ``seat``
    convert between the two."""

    CENTRED = "centred"
    ME = "me"  # the side on roll
    OPPONENT = "opponent"

    __str__ = str.__str__  # "me", as the value reads, in f-strings and str() alike
    __format__ = str.__format__

    @classmethod
    def seen_by(cls, owner_seat: int | None, side: int) -> CubeOwner:
        """The owner as ``side`` sees it, from the owning seat (None: centred)."""
        if owner_seat is None:
            return cls.CENTRED
        return cls.ME if owner_seat == side else cls.OPPONENT

    def seat(self, side: int) -> int | None:
        """The owning seat (None: centred) when ``side`` is the one that sees the cube this way."""
        return None if self is CubeOwner.CENTRED else side if self is CubeOwner.ME else 1 - side


class Phase(str, Enum):
    """Where a game stands."""

    ROLL = "roll"  # the side on turn has not thrown yet: it may double (backgammon), then rolls
    MOVE = "move"  # the dice are thrown: the side on turn picks one of ``plays``
    TAKE = "take"  # a double waits for its answer from the side not on turn
    OVER = "over"  # the game has ended: see ``result``


@dataclass(frozen=True, eq=False)
class GameState:
    """One game in progress. Build it with engine.game's ``start_game`` or ``resume_game``; change it
    only through engine.game's transitions."""

    match: MatchState  # the match (score, Crawford flag, rules) as it stood when this game began
    position: np.ndarray  # (28,) int8, read-only, seen by ``mover``
    mover: int  # the side on turn, 0 or 1
    phase: Phase
    dice: tuple[int, int] | None = None  # the roll being played (MOVE phase)
    plays: np.ndarray | None = None  # (N, 28) int8, read-only: every legal result of ``dice``
    cube: int = 1  # the cube's value (during TAKE, still the value before the double)
    cube_owner: int | None = None  # None = centred, else the side that owns it
    resignation: tuple[int, int] | None = None  # a waiting offer: (side offering, level 1..3)
    resign_barred: tuple[bool, bool] = (False, False)  # side's offer was rejected, no roll played since
    result: GameResult | None = None  # set when the game is over
    opening: tuple[tuple[int, int], ...] = ()  # the opening throws: (player 0's die, player 1's die)
    turns: int = 0  # plays made so far (passes included)

    @property
    def rules(self) -> Rules:
        return self.match.rules

    @property
    def game(self) -> str:
        return self.match.rules.game

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def to_act(self) -> int | None:
        """The side that must decide now: the answer to a waiting resignation or double comes from
        the other side; otherwise the side on turn. None once the game is over."""
        if self.is_over:
            return None
        if self.resignation is not None:
            return 1 - self.resignation[0]
        if self.phase is Phase.TAKE:
            return 1 - self.mover
        return self.mover


def frozen_rows(rows) -> np.ndarray:
    """A read-only int8 copy, so that a state's arrays cannot change under it."""
    out = np.array(rows, dtype=np.int8)
    out.setflags(write=False)
    return out


def view(state: GameState, side: int) -> np.ndarray:
    """The position (28,) seen by ``side``."""
    return state.position if side == state.mover else flip(state.game, state.position)


def busy_reason(state: GameState) -> str | None:
    """The reasons shared by every action: the game is over, or a resignation waits."""
    if state.is_over:
        return "the game is over"
    if state.resignation is not None:
        return "a resignation offer waits for its answer"
    return None


def phase_reason(state: GameState) -> str:
    """Why the current phase does not allow a roll or a play."""
    return {
        Phase.ROLL: "the dice have not been thrown",
        Phase.MOVE: "the dice are already thrown",
        Phase.TAKE: "a double waits for its answer",
        Phase.OVER: "the game is over",
    }[state.phase]


# --- the cube ------------------------------------------------------------------------------------


def no_cube_reason_for(rules: Rules) -> str | None:
    """Why games under these rules have no cube at all, or None."""
    if rules.game == "nardi":
        return "long nardi has no doubling cube"
    if not rules.cube:
        return "this game is played without the cube"
    if rules.match_length == 1:
        return "a one-point match has no cube"
    return None


def no_cube_reason(state: GameState) -> str | None:
    """Why this game has no cube at all, or None."""
    return no_cube_reason_for(state.rules)


def double_refusal(state: GameState, names: tuple[str, str] = ("player 0", "player 1")) -> str | None:
    """Why the side on turn may not double now, or None if it may; ``names`` call the two sides (a
    command line may say "you" and "the bot").

    "Before its roll, the side on turn may double ... A side may only double when the cube is in the
    middle or its own." No doubling in the Crawford game, none past 64, and none for "a side whose
    cube value already wins it the match" (a dead cube). The reasons that hold for the whole turn
    (no cube in this game, the Crawford game, the opponent's cube, the limit, a dead cube) come before
    the one of the moment (the dice already thrown), so the side is told the reason that matters.
    """
    reason = busy_reason(state) or no_cube_reason(state)
    if reason:
        return reason
    if state.phase is Phase.TAKE:
        return "a double already waits for its answer"
    if state.match.is_crawford:
        return "no doubling in the Crawford game"
    if state.cube_owner is not None and state.cube_owner != state.mover:
        return f"the cube belongs to {names[state.cube_owner]}: only the cube's owner may double"
    if state.cube * 2 > MAX_CUBE:
        return f"the cube is at {state.cube}: it goes no higher than {MAX_CUBE}"
    if state.match.cube_wins_match(state.mover, state.cube):
        score, length = state.match.score[state.mover], state.match.length
        return (
            f"dead cube: winning this game at {state.cube} already gives {names[state.mover]} the match "
            f"({score} + {state.cube} >= {length}), so there is nothing to double for"
        )
    if state.phase is not Phase.ROLL:
        return "a side may double only before its roll"
    return None


def may_double(state: GameState) -> bool:
    """Whether the side on turn may double now."""
    return double_refusal(state) is None


def answer_reason(state: GameState) -> str | None:
    """Why there is no double to answer now, or None."""
    if state.game == "nardi":
        return "long nardi has no doubling cube"
    if state.is_over:
        return "the game is over"
    if state.phase is not Phase.TAKE:
        return "there is no double to answer"
    return None


def beaver_refusal(state: GameState) -> str | None:
    """Why the doubled side may not beaver now, or None. Beavers: money play with the option on,
    "the taker may redouble at once and keep the cube", so the cube goes to four times its value."""
    reason = answer_reason(state)
    if reason:
        return reason
    if not state.rules.money:
        return "beavers are for money play only"
    if not state.rules.beavers:
        return "beavers are not allowed (the option is off)"
    if state.cube * 4 > MAX_CUBE:
        return f"a beaver would take the cube from {state.cube} past {MAX_CUBE}"
    return None


# --- resignation ---------------------------------------------------------------------------------


def max_resignation(state: GameState, side: int) -> int:
    """The most ``side`` can still lose this game by, as a level (see the module docstring):
    3 backgammon (backgammon only), 2 gammon or mars, 1 single."""
    own = view(state, side)
    if own[OFF] > 0:
        return 1  # it has borne off a checker: no gammon, no mars
    if state.game == "nardi":
        return 2
    in_their_home = (own[18:24] > 0).any() or own[BAR] > 0  # the opponent's home is our 19..24
    if in_their_home or has_contact(state.game, own[None, :])[0]:
        return 3
    return 2


_LEVELS = {
    "backgammon": {1: "a single game", 2: "a gammon", 3: "a backgammon"},
    "nardi": {1: "a win", 2: "a mars"},
}


def resignation_refusal(state: GameState, side: int, level: int) -> str | None:
    """Why ``side`` may not offer to lose at ``level`` now, or None if it may."""
    if side not in (0, 1):
        return f"a side is 0 or 1, got {side!r}"
    names = _LEVELS[state.game]
    if level not in names:
        return "a resignation is " + ", ".join(f"{k} ({v})" for k, v in names.items())
    reason = busy_reason(state)
    if reason:
        return reason
    if state.phase is Phase.TAKE:
        return "no resigning while a double waits for its answer"
    if state.resign_barred[side]:
        return f"player {side}'s offer was rejected: it may offer again once a roll has been played"
    most = max_resignation(state, side)
    if level > most:
        why = (
            "it has borne off a checker"
            if most == 1
            else "it has no checker on the bar or in the opponent's home board and no contact is left"
        )
        return f"player {side} can no longer lose {names[level]} ({why}): it may offer {names[most]} at most"
    return None


def actions(state: GameState) -> tuple[str, ...]:
    """What ``state.to_act`` may do now, by name: "double", "roll", "play", "take", "drop", "beaver",
    "accept", "reject" (resigning, open to both sides, is asked with ``resignation_refusal``)."""
    if state.is_over:
        return ()
    if state.resignation is not None:
        return ("accept", "reject")
    if state.phase is Phase.TAKE:
        return ("take", "drop") + (("beaver",) if beaver_refusal(state) is None else ())
    if state.phase is Phase.ROLL:
        return (("double",) if may_double(state) else ()) + ("roll",)
    return ("play",)
