"""Game flow for both games, with the doubling cube and resignations: data plus pure transitions.

A game is a frozen ``GameState``; every action is a function that takes a state and returns a new
one, or raises ``RuleError`` (a ValueError) saying why the rules refuse it. Nothing is mutated, so a
caller may keep old states (for undo, records or look-ahead). This module knows the rules only: it
never decides what is good to do (that is ``model/``'s job).

How a caller plays a game, step by step::

    from engine import game as g
    match = g.new_match(g.Rules(match_length=5))            # or Rules(game="nardi"), money: length 0
    rng = np.random.default_rng(seed)
    state = g.start_game(match, rng)                       # the opening throw is made here
    while not state.is_over:
        side = state.to_act                                # who must decide now (0 or 1)
        if state.phase is g.Phase.ROLL:                    # on roll, dice not yet thrown
            state = g.double(state) if want_double and g.may_double(state) else g.roll(state, rng)
        elif state.phase is g.Phase.TAKE:                  # a double waits: the other side answers
            state = g.take(state)                          # or g.drop(state), g.beaver(state)
        elif state.phase is g.Phase.MOVE:                  # dice thrown: pick one legal result
            state = g.play(state, state.plays[k])          # a row of state.plays, (28,) int8
        # at any moment but while a double waits, either side may resign:
        #   state = g.offer_resignation(state, side, level)   # 1 single, 2 gammon, 3 backgammon
        #   state = g.accept_resignation(state) / g.reject_resignation(state)   (while one waits)
    match = g.finish_game(match, state)                    # adds state.result.points to the winner

``state.position`` is an engine/board.py row (28,) in the frame of ``state.mover``, the side on turn;
``g.view(state, side)`` gives it from either side. ``state.plays`` (N, 28) is every distinct legal
result of ``state.dice`` (engine.movegen.legal_plays), seen by the mover before the turn passes;
a single row equal to ``state.position`` means nothing can be played, and playing it passes. After
a play the position is flipped (engine.board.flip) and the other side is on roll. When a play bears
off the last checker the game is over: ``state.result`` (a GameResult) says who won, how (single,
gammon, backgammon; nardi win or mars) and the points, and ``state.position`` stays in the frame of
the side that made that play. ``g.actions(state)`` lists what the side to act may do now.

A caller that runs many games at once (an arena batching its net calls) can compute the children
of all its games with one ``legal_plays`` call and hand each game its rows: ``roll(state, dice,
plays=rows)``; those rows must be exactly legal_plays' output for that position and roll.

The opening (RULES-DECISIONS.md): in backgammon each side throws one die, ties are thrown again,
and the higher plays the two dice just thrown (the first state is already in the MOVE phase); with
automatic doubles (money only) each tie doubles the cube, which stays centred, up to the chosen
limit and never past 64. In long nardi the higher throws both dice for its first turn (the first
state is in the ROLL phase). ``GameState.opening`` keeps the throws as (player 0's die, player 1's).

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

from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from .board import BAR, NUM_SLOTS, OFF, flip, has_contact, start_position, winner_score
from .match import (
    MAX_CUBE,
    GameResult,
    MatchState,
    RuleError,
    Rules,
    new_match,  # noqa: F401  (re-exported: a caller needs only this module)
    record_result,
)
from .movegen import legal_plays


class Phase(str, Enum):
    """Where a game stands."""

    ROLL = "roll"  # the side on turn has not thrown yet: it may double (backgammon), then rolls
    MOVE = "move"  # the dice are thrown: the side on turn picks one of ``plays``
    TAKE = "take"  # a double waits for its answer from the side not on turn
    OVER = "over"  # the game has ended: see ``result``


@dataclass(frozen=True, eq=False)
class GameState:
    """One game in progress. Build it with ``start_game``; change it only through the transitions."""

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


def _frozen(rows) -> np.ndarray:
    """A read-only int8 copy, so that a state's arrays cannot change under it."""
    out = np.array(rows, dtype=np.int8)
    out.setflags(write=False)
    return out


def _check_dice(dice) -> tuple[int, int]:
    """Two dice 1..6 as a tuple of ints, or RuleError."""
    try:
        a, b = (int(d) for d in dice)
    except (TypeError, ValueError):
        raise RuleError(f"a roll is two dice, got {dice!r}") from None
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise RuleError(f"dice show 1..6, got {a}-{b}")
    return a, b


def throw_dice(rng: np.random.Generator) -> tuple[int, int]:
    """Two dice from ``rng``."""
    a, b = rng.integers(1, 7, size=2)
    return int(a), int(b)


def throw_opening(rng: np.random.Generator) -> tuple[tuple[int, int], ...]:
    """The opening throw: each side throws one die, ties are thrown again. All throws, the last not a tie."""
    throws = []
    while True:
        throws.append(throw_dice(rng))
        if throws[-1][0] != throws[-1][1]:
            return tuple(throws)


def _check_side(side, expected: int | None, what: str) -> None:
    """Refuse an action by the wrong side (``side=None`` means "whoever must act")."""
    if side is None:
        return
    if side not in (0, 1):
        raise RuleError(f"a side is 0 or 1, got {side!r}")
    if side != expected:
        raise RuleError(f"player {side} may not {what} now: it is player {expected}'s decision")


def _opening_cube(rules: Rules, ties: int) -> int:
    """Automatic doubles: "each tie of the opening throw doubles the cube, which stays in the middle;
    the players may set a limit on how many; never past 64"."""
    cube = 1
    for _ in range(min(ties, rules.automatic_doubles)):
        if cube * 2 > MAX_CUBE:
            break
        cube *= 2
    return cube


def start_game(match: MatchState, rng: np.random.Generator | None = None, throws=None) -> GameState:
    """A new game of ``match``, after its opening throw: from ``rng``, or the given ``throws``
    (pairs of (player 0's die, player 1's die): ties, then one non-tie)."""
    if match.is_over:
        raise RuleError("the match is over: no more games")
    if throws is None:
        if rng is None:
            raise RuleError("start_game needs an rng or the opening throws")
        throws = throw_opening(rng)
    throws = tuple(_check_dice(t) for t in throws)
    if not throws or throws[-1][0] == throws[-1][1] or any(a != b for a, b in throws[:-1]):
        raise RuleError(f"an opening is ties thrown again until one side throws higher, got {throws}")
    a, b = throws[-1]
    mover = 0 if a > b else 1
    rules = match.rules
    position = _frozen(start_position(rules.game))
    if rules.game == "nardi":
        return GameState(match, position, mover, Phase.ROLL, opening=throws)
    cube = _opening_cube(rules, len(throws) - 1)
    state = GameState(match, position, mover, Phase.ROLL, cube=cube, opening=throws)
    return roll(state, (max(a, b), min(a, b)))


def view(state: GameState, side: int) -> np.ndarray:
    """The position (28,) seen by ``side``."""
    return state.position if side == state.mover else flip(state.game, state.position)


def _busy(state: GameState) -> str | None:
    """The reasons shared by every action: the game is over, or a resignation waits."""
    if state.is_over:
        return "the game is over"
    if state.resignation is not None:
        return "a resignation offer waits for its answer"
    return None


# --- rolling and playing ------------------------------------------------------------------------


def roll(state: GameState, dice, plays=None, side: int | None = None) -> GameState:
    """The side on turn throws: ``dice`` is a numpy Generator or two dice. Enters the MOVE phase with
    every legal result in ``plays`` (computed here unless given, see the module docstring)."""
    reason = _busy(state) or (None if state.phase is Phase.ROLL else _phase_reason(state))
    if reason:
        raise RuleError(f"no roll now: {reason}")
    _check_side(side, state.mover, "roll")
    dice = throw_dice(dice) if isinstance(dice, np.random.Generator) else _check_dice(dice)
    if plays is None:
        plays, _ = legal_plays(state.game, state.position[None, :], np.array([dice]))
    plays = _frozen(plays)
    if plays.ndim != 2 or plays.shape[1] != NUM_SLOTS or len(plays) == 0:
        raise RuleError(f"plays must be (N>=1, {NUM_SLOTS}) positions, got shape {plays.shape}")
    return replace(state, phase=Phase.MOVE, dice=dice, plays=plays)


def _phase_reason(state: GameState) -> str:
    """Why the current phase does not allow a roll or a play."""
    return {
        Phase.ROLL: "the dice have not been thrown",
        Phase.MOVE: "the dice are already thrown",
        Phase.TAKE: "a double waits for its answer",
        Phase.OVER: "the game is over",
    }[state.phase]


def play(state: GameState, child, side: int | None = None) -> GameState:
    """The side on turn plays ``child``, one of ``state.plays`` (its position after the play); the
    turn passes, or the game ends if it bore off its last checker."""
    reason = _busy(state) or (None if state.phase is Phase.MOVE else _phase_reason(state))
    if reason:
        raise RuleError(f"no play now: {reason}")
    _check_side(side, state.mover, "play")
    child = np.asarray(child)
    if child.shape != (NUM_SLOTS,) or not (state.plays == child).all(axis=1).any():
        a, b = state.dice
        raise RuleError(f"that position is not a legal play of {a}-{b} from this one")
    child = _frozen(child)
    common = {"dice": None, "plays": None, "resign_barred": (False, False), "turns": state.turns + 1}
    level = int(winner_score(state.game, child))
    if level:
        result = _result(state, state.mover, level, "played")
        return replace(state, position=child, phase=Phase.OVER, result=result, **common)
    next_position = _frozen(flip(state.game, child))
    return replace(state, position=next_position, mover=1 - state.mover, phase=Phase.ROLL, **common)


def game_points(rules: Rules, level: int, cube: int, cube_owner: int | None) -> int:
    """Points for a game won at ``level`` (1 single, 2 gammon, 3 backgammon; nardi 1 win, 2 mars).

    Backgammon: level x cube, but with the Jacoby rule (money play) "gammons and backgammons count as
    singles while the cube has not been turned" (centred). Long nardi: the level (no cube).
    """
    if rules.game == "nardi":
        return level
    if rules.money and rules.jacoby and cube_owner is None:
        level = 1
    return level * cube


def _result(state: GameState, winner: int, level: int, how: str) -> GameResult:
    points = game_points(state.rules, level, state.cube, state.cube_owner)
    return GameResult(winner=winner, level=level, cube=state.cube, points=points, how=how, game=state.game)


# --- the cube ------------------------------------------------------------------------------------


def _no_cube_reason(state: GameState) -> str | None:
    """Why this game has no cube at all, or None."""
    if state.game == "nardi":
        return "long nardi has no doubling cube"
    if not state.rules.cube:
        return "this game is played without the cube"
    if state.match.length == 1:
        return "a one-point match has no cube"
    return None


def double_refusal(state: GameState) -> str | None:
    """Why the side on turn may not double now, or None if it may.

    "Before its roll, the side on turn may double ... A side may only double when the cube is in the
    middle or its own." No doubling in the Crawford game, none past 64, and none for "a side whose
    cube value already wins it the match".
    """
    reason = _busy(state) or _no_cube_reason(state)
    if reason:
        return reason
    if state.phase is Phase.TAKE:
        return "a double already waits for its answer"
    if state.phase is not Phase.ROLL:
        return "a side may double only before its roll"
    if state.match.is_crawford:
        return "no doubling in the Crawford game"
    if state.cube_owner is not None and state.cube_owner != state.mover:
        return f"player {state.cube_owner} owns the cube: only the cube's owner may double"
    if state.cube * 2 > MAX_CUBE:
        return f"the cube is at {state.cube}: it goes no higher than {MAX_CUBE}"
    if state.match.cube_wins_match(state.mover, state.cube):
        score, length = state.match.score[state.mover], state.match.length
        return (
            f"player {state.mover}'s cube value already wins it the match "
            f"({score} + {state.cube} >= {length}): it may not double"
        )
    return None


def may_double(state: GameState) -> bool:
    """Whether the side on turn may double now."""
    return double_refusal(state) is None


def double(state: GameState, side: int | None = None) -> GameState:
    """The side on turn doubles; the other side must answer (TAKE phase)."""
    _check_side(side, state.mover, "double")
    reason = double_refusal(state)
    if reason:
        raise RuleError(f"no double: {reason}")
    return replace(state, phase=Phase.TAKE)


def _answer_reason(state: GameState) -> str | None:
    """Why there is no double to answer now, or None."""
    if state.game == "nardi":
        return "long nardi has no doubling cube"
    if state.is_over:
        return "the game is over"
    if state.phase is not Phase.TAKE:
        return "there is no double to answer"
    return None


def take(state: GameState, side: int | None = None) -> GameState:
    """The doubled side takes: it "owns the cube at twice the value"; the doubler then rolls."""
    reason = _answer_reason(state)
    if reason:
        raise RuleError(f"no take: {reason}")
    _check_side(side, 1 - state.mover, "take")
    return replace(state, phase=Phase.ROLL, cube=state.cube * 2, cube_owner=1 - state.mover)


def drop(state: GameState, side: int | None = None) -> GameState:
    """The doubled side drops: it "loses the game at the value before the double"."""
    reason = _answer_reason(state)
    if reason:
        raise RuleError(f"no drop: {reason}")
    _check_side(side, 1 - state.mover, "drop")
    result = GameResult(
        winner=state.mover, level=1, cube=state.cube, points=state.cube, how="dropped", game=state.game
    )
    return replace(state, phase=Phase.OVER, result=result)


def beaver_refusal(state: GameState) -> str | None:
    """Why the doubled side may not beaver now, or None. Beavers: money play with the option on,
    "the taker may redouble at once and keep the cube", so the cube goes to four times its value."""
    reason = _answer_reason(state)
    if reason:
        return reason
    if not state.rules.money:
        return "beavers are for money play only"
    if not state.rules.beavers:
        return "beavers are not allowed (the option is off)"
    if state.cube * 4 > MAX_CUBE:
        return f"a beaver would take the cube from {state.cube} past {MAX_CUBE}"
    return None


def beaver(state: GameState, side: int | None = None) -> GameState:
    """The doubled side takes and redoubles at once, keeping the cube at four times its value."""
    reason = beaver_refusal(state)
    if reason:
        raise RuleError(f"no beaver: {reason}")
    _check_side(side, 1 - state.mover, "beaver")
    return replace(state, phase=Phase.ROLL, cube=state.cube * 4, cube_owner=1 - state.mover)


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
    reason = _busy(state)
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


def offer_resignation(state: GameState, side: int, level: int) -> GameState:
    """``side`` offers to lose the game at ``level`` (times the cube); the other side must answer."""
    reason = resignation_refusal(state, side, level)
    if reason:
        raise RuleError(f"no resignation: {reason}")
    return replace(state, resignation=(side, level))


def accept_resignation(state: GameState, side: int | None = None) -> GameState:
    """The other side accepts the waiting offer: "the game ends at that score"."""
    if state.resignation is None or state.is_over:
        raise RuleError("no resignation offer waits for an answer")
    offerer, level = state.resignation
    _check_side(side, 1 - offerer, "accept the resignation")
    result = _result(state, 1 - offerer, level, "resigned")
    return replace(state, phase=Phase.OVER, result=result, resignation=None)


def reject_resignation(state: GameState, side: int | None = None) -> GameState:
    """The other side rejects the waiting offer: "the game goes on where it stood", and the offering
    side may offer again only after a roll has been played."""
    if state.resignation is None or state.is_over:
        raise RuleError("no resignation offer waits for an answer")
    offerer, _ = state.resignation
    _check_side(side, 1 - offerer, "reject the resignation")
    barred = tuple(b or s == offerer for s, b in enumerate(state.resign_barred))
    return replace(state, resignation=None, resign_barred=barred)


# --- what may be done, and the end of a game -----------------------------------------------------


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


def finish_game(match: MatchState, state: GameState) -> MatchState:
    """The match after this finished game: its points go to the winner (engine.match.record_result)."""
    if not state.is_over:
        raise RuleError("the game is not over")
    if state.match != match:
        raise RuleError("this game was not started from this match state")
    return record_result(match, state.result)
