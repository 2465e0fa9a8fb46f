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
plays=rows)``; those rows must be exactly legal_plays' output for that position and roll. A caller
that is handed a position mid-game (a gnubg external-player request, a Position ID) rebuilds the
state with ``resume_game(match, position, mover, cube, cube_owner, dice=None, doubled=False)``.

The opening (RULES-DECISIONS.md): in backgammon each side throws one die, ties are thrown again,
and the higher plays the two dice just thrown (the first state is already in the MOVE phase); with
automatic doubles (money only) each tie doubles the cube, which stays centred, up to the chosen
limit and never past 64. In long nardi the higher throws both dice for its first turn (the first
state is in the ROLL phase). ``GameState.opening`` keeps the throws as (player 0's die, player 1's).

The cube and resignation rules, and the queries that say what a state allows (``double_refusal``,
``beaver_refusal``, ``resignation_refusal``, ``max_resignation``, ``actions``), are in
engine/cube_state.py; this module re-exports them, so a caller needs only ``engine.game``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.board import (
    CHECKERS,
    NUM_SLOTS,
    OFF,
    OPP_OFF,
    PositionError,
    flip,
    start_position,
    validate,
    winner_score,
)
from engine.cube_state import (
    GameState,
    Phase,
    actions,
    answer_reason,
    beaver_refusal,
    busy_reason,
    double_refusal,
    frozen_rows,
    max_resignation,
    may_double,
    no_cube_reason_for,
    phase_reason,
    resignation_refusal,
    view,
)
from engine.match import (
    MAX_CUBE,
    GameResult,
    MatchState,
    RuleError,
    Rules,
    game_points,
    new_match,
    record_result,
)
from engine.movegen import legal_plays

__all__ = [
    "GameResult",
    "GameState",
    "MatchState",
    "Phase",
    "RuleError",
    "Rules",
    "accept_resignation",
    "actions",
    "beaver",
    "beaver_refusal",
    "double",
    "double_refusal",
    "drop",
    "finish_game",
    "game_points",
    "max_resignation",
    "may_double",
    "new_match",
    "offer_resignation",
    "play",
    "reject_resignation",
    "resignation_refusal",
    "resume_game",
    "roll",
    "start_game",
    "take",
    "throw_dice",
    "throw_opening",
    "view",
]


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
    position = frozen_rows(start_position(rules.game))
    if rules.game == "nardi":
        return GameState(match, position, mover, Phase.ROLL, opening=throws)
    cube = _opening_cube(rules, len(throws) - 1)
    state = GameState(match, position, mover, Phase.ROLL, cube=cube, opening=throws)
    return roll(state, (max(a, b), min(a, b)))


def resume_game(
    match: MatchState,
    position,
    mover: int,
    cube: int = 1,
    cube_owner: int | None = None,
    dice=None,
    doubled: bool = False,
) -> GameState:
    """A game taken up mid-way (from a Position ID, a FIBS board...): ``position`` seen by ``mover``,
    on roll (``dice=None``), with ``dice`` thrown, or having ``doubled`` (TAKE phase, which the rules
    must allow). Refuses positions, cubes and owners the rules cannot reach."""
    try:
        validate(match.rules.game, position)
    except PositionError as err:
        raise RuleError(str(err)) from None
    position = frozen_rows(position)
    if position[OFF] == CHECKERS or position[OPP_OFF] == CHECKERS:
        raise RuleError("the game is already over in this position")
    if mover not in (0, 1) or cube_owner not in (None, 0, 1):
        raise RuleError(f"the mover is 0 or 1 and the cube owner None, 0 or 1, got {mover!r}, {cube_owner!r}")
    if cube not in (1, 2, 4, 8, 16, 32, 64) or (cube_owner is not None and cube == 1):
        raise RuleError(
            f"the cube is 1..64, a power of two, and only a turned cube is owned: {cube}, {cube_owner}"
        )
    if not match.rules.has_cube and (cube, cube_owner) != (1, None):
        raise RuleError(f"this game has no cube: {no_cube_reason_for(match.rules)}")
    state = GameState(match, position, mover, Phase.ROLL, cube=cube, cube_owner=cube_owner)
    if doubled and dice is not None:
        raise RuleError("a side doubles before its roll: not both dice and a double")
    return double(state) if doubled else roll(state, dice) if dice is not None else state


# --- rolling and playing ------------------------------------------------------------------------


def roll(state: GameState, dice, plays=None, side: int | None = None) -> GameState:
    """The side on turn throws: ``dice`` is a numpy Generator or two dice. Enters the MOVE phase with
    every legal result in ``plays`` (computed here unless given, see the module docstring)."""
    reason = busy_reason(state) or (None if state.phase is Phase.ROLL else phase_reason(state))
    if reason:
        raise RuleError(f"no roll now: {reason}")
    _check_side(side, state.mover, "roll")
    dice = throw_dice(dice) if isinstance(dice, np.random.Generator) else _check_dice(dice)
    if plays is None:
        plays, _ = legal_plays(state.game, state.position[None, :], np.array([dice]))
    plays = frozen_rows(plays)
    if plays.ndim != 2 or plays.shape[1] != NUM_SLOTS or len(plays) == 0:
        raise RuleError(f"plays must be (N>=1, {NUM_SLOTS}) positions, got shape {plays.shape}")
    return replace(state, phase=Phase.MOVE, dice=dice, plays=plays)


def play(state: GameState, child, side: int | None = None) -> GameState:
    """The side on turn plays ``child``, one of ``state.plays`` (its position after the play); the
    turn passes, or the game ends if it bore off its last checker."""
    reason = busy_reason(state) or (None if state.phase is Phase.MOVE else phase_reason(state))
    if reason:
        raise RuleError(f"no play now: {reason}")
    _check_side(side, state.mover, "play")
    child = np.asarray(child)
    if child.shape != (NUM_SLOTS,) or not (state.plays == child).all(axis=1).any():
        a, b = state.dice
        raise RuleError(f"that position is not a legal play of {a}-{b} from this one")
    child = frozen_rows(child)
    common = {"dice": None, "plays": None, "resign_barred": (False, False), "turns": state.turns + 1}
    level = int(winner_score(state.game, child))
    if level:
        result = _result(state, state.mover, level, "played")
        return replace(state, position=child, phase=Phase.OVER, result=result, **common)
    next_position = frozen_rows(flip(state.game, child))
    return replace(state, position=next_position, mover=1 - state.mover, phase=Phase.ROLL, **common)


def _result(state: GameState, winner: int, level: int, how: str) -> GameResult:
    points = game_points(state.rules, level, state.cube, state.cube_owner)
    return GameResult(winner=winner, level=level, cube=state.cube, points=points, how=how, game=state.game)


# --- the cube ------------------------------------------------------------------------------------


def double(state: GameState, side: int | None = None) -> GameState:
    """The side on turn doubles; the other side must answer (TAKE phase)."""
    _check_side(side, state.mover, "double")
    reason = double_refusal(state)
    if reason:
        raise RuleError(f"no double: {reason}")
    return replace(state, phase=Phase.TAKE)


def take(state: GameState, side: int | None = None) -> GameState:
    """The doubled side takes: it "owns the cube at twice the value"; the doubler then rolls."""
    return _own_cube(state, side, "take", answer_reason(state), times=2)


def drop(state: GameState, side: int | None = None) -> GameState:
    """The doubled side drops: it "loses the game at the value before the double"."""
    reason = answer_reason(state)
    if reason:
        raise RuleError(f"no drop: {reason}")
    _check_side(side, 1 - state.mover, "drop")
    result = GameResult(
        winner=state.mover, level=1, cube=state.cube, points=state.cube, how="dropped", game=state.game
    )
    return replace(state, phase=Phase.OVER, result=result)


def beaver(state: GameState, side: int | None = None) -> GameState:
    """The doubled side takes and redoubles at once, keeping the cube at four times its value."""
    return _own_cube(state, side, "beaver", beaver_refusal(state), times=4)


def _own_cube(state: GameState, side: int | None, answer: str, reason: str | None, times: int) -> GameState:
    """The doubled side gives ``answer`` (take or beaver) unless ``reason`` forbids it: it owns the cube,
    now ``times`` its value, and the doubler rolls."""
    if reason:
        raise RuleError(f"no {answer}: {reason}")
    _check_side(side, 1 - state.mover, answer)
    return replace(state, phase=Phase.ROLL, cube=state.cube * times, cube_owner=1 - state.mover)


# --- resignation ---------------------------------------------------------------------------------


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


def finish_game(match: MatchState, state: GameState) -> MatchState:
    """The match after this finished game: its points go to the winner (engine.match.record_result)."""
    if not state.is_over:
        raise RuleError("the game is not over")
    if state.match != match:
        raise RuleError("this game was not started from this match state")
    return record_result(match, state.result)
