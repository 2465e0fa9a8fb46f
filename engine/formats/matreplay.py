"""Replaying a .mat record (engine/formats/matfile.py's ``MatchRecord``) through the rules of engine/game.py.

    for game in replay_match(read_mat(text)):          # one GameReplay per game of the record
        for step in game.steps:                        # every decision, in order, with its state
            step.kind, step.player, step.state         # "roll" | "double" | "take" | "drop" | "move"
            step.child                                 # "move": the position the play left

Each step is one decision a player made, with the ``GameState`` in which it was made: ``roll`` (on
roll, dice not thrown: the side rolled instead of doubling; the opening throw has no such step),
``double``, ``take``, ``beaver`` or ``drop`` (the doubled side's answer, the state still seen by the
doubler; a beaver is a take and an at-once redouble, the cube then at four times its value),
and ``move`` (the dice thrown; ``child`` is the play's result in the mover's frame, before the turn
passes). The rules decide everything here: whose turn it is, whether a double is allowed (not in the
Crawford game, not when the cube already wins the match), whether a play is legal (engine.notation's
``parse_play`` reads gnubg's step form and refuses an illegal play with the reason).

The match state of each game is rebuilt from the record: its scores, the Crawford game as the first
game in which a side stands one point from the match (gnubg's reader assumes the Crawford rule too),
and for money play the Jacoby rule as asked (gnubg's reader takes it from its own setting, on by
default), beavers as the record says (where it says nothing, allowed if it has one: gnubg reads a
beaver as a redouble taken), automatic doubles up to the record's limit (where it says none, as many
as its games' starting cubes show). A record played without the cube (``cube=False``, its
``; [CubeLimit "1"]`` line) is replayed with no cube to turn and without the Jacoby rule, which is
about the cube: a double in it is refused. A game that ends by a resignation stops before its last
state is over; its ``Wins N points`` stays in the record. Anything the rules refuse raises
FormatError naming the game, the entry and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import game as g
from engine.errors import FormatError
from engine.formats.matfile import BEAVER, DOUBLE, DROP, MOVE, TAKE, GameRecord, MatchRecord
from engine.notation import parse_play

ROLL = "roll"
STEP_KINDS = (ROLL, DOUBLE, TAKE, BEAVER, DROP, MOVE)
ANSWERS = {DOUBLE: g.double, TAKE: g.take, BEAVER: g.beaver, DROP: g.drop}
"""The rules' transition of each cube action of a record."""


@dataclass(frozen=True, eq=False)
class Step:
    """One decision of a game: what ``player`` did in ``state`` (see the module docstring)."""

    kind: str  # one of STEP_KINDS
    player: int
    state: g.GameState  # the state in which the decision was made
    entry: int  # index of the record's action (0-based); a roll step shares its move's
    child: np.ndarray | None = None  # MOVE: the position after the play (mover's frame)


@dataclass(frozen=True, eq=False)
class GameReplay:
    """One replayed game: the record, the match state it began in, its steps and its last state."""

    record: GameRecord
    number: int  # 1-based, as the file counts games
    match: g.MatchState
    steps: tuple[Step, ...]
    final: g.GameState | None  # None for a game without actions

    @property
    def moves(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.kind == MOVE)


def match_rules(record: MatchRecord, jacoby: bool = True) -> g.Rules:
    """The rules a record is replayed under (module docstring): its length, the cube unless the record
    says it was played without, Jacoby (money with the cube only) as asked, the record's beavers and
    automatic doubles; FormatError for options the rules refuse together."""
    if record.match_length > 25:
        raise FormatError(f"a match is 1..25 points long (0 = money), got {record.match_length}")
    money, cube = record.match_length == 0, record.cube is not False
    options = {}
    if money and cube:
        beavers = any(a.kind == BEAVER for game in record.games for a in game.actions)
        ties = max((game.cube.bit_length() - 1 for game in record.games), default=0)
        options = {"jacoby": bool(jacoby),
                   "beavers": beavers if record.beavers is None else record.beavers,
                   "automatic_doubles": ties if record.automatic_doubles is None else record.automatic_doubles}
    try:
        return g.Rules(match_length=record.match_length, cube=cube, **options)
    except g.RuleError as err:
        raise FormatError(str(err)) from None


def replay_match(record: MatchRecord, jacoby: bool = True) -> list[GameReplay]:
    """Every game of ``record`` replayed (module docstring); FormatError for anything the rules refuse."""
    rules = match_rules(record, jacoby)
    out, crawford_played = [], False
    for number, game in enumerate(record.games, 1):
        match = g.MatchState(rules, score=game.scores, crawford_played=crawford_played)
        if match.is_over:
            raise FormatError(f"game {number}: the score {game.scores[0]}-{game.scores[1]} already ends "
                              f"the {rules.match_length}-point match")
        crawford_played = crawford_played or match.is_crawford
        out.append(replay_game(game, number, match))
    return out


def _opening(match: g.MatchState, action, number: int, cube: int = 1) -> g.GameState:
    """The game's first state: the opening throw is the first play's dice, the higher die its player's,
    after as many ties as doubled the cube to ``cube`` (automatic doubles; their faces are not recorded)."""
    if action.kind != MOVE:
        raise FormatError(f"game {number}: a game opens with a play of the opening throw, not a {action.kind}")
    high, low = max(action.dice), min(action.dice)
    if high == low:
        raise FormatError(f"game {number}: the opening throw is never a double, got {high}-{low}")
    ties = ((1, 1),) * (cube.bit_length() - 1)
    state = g.start_game(match, throws=(*ties, (high, low) if action.player == 0 else (low, high)))
    if state.cube != cube:
        raise FormatError(f"game {number}: the game starts with the cube at {cube}, which these rules do not "
                          f"allow (automatic doubles: at most {match.rules.automatic_doubles})")
    return state


def replay_game(game: GameRecord, number: int, match: g.MatchState) -> GameReplay:
    """One game's steps from its first state (``match``: the score and Crawford flag it began with)."""
    if not game.actions:
        return GameReplay(game, number, match, (), None)
    state = _opening(match, game.actions[0], number, game.cube)
    steps = []
    for entry, action in enumerate(game.actions):
        where = f"game {number}, entry {entry + 1}"
        if state.is_over:
            raise FormatError(f"{where}: the game is already over")
        if action.player != state.to_act:
            raise FormatError(f"{where}: player {action.player} acts, but it is player {state.to_act}'s turn")
        try:
            state = _apply(state, action, entry, steps)
        except ValueError as err:  # RuleError, IllegalPlayError, FormatError
            raise FormatError(f"{where} ({_describe(action)}): {err}") from None
    return GameReplay(game, number, match, tuple(steps), state)


def _apply(state: g.GameState, action, entry: int, steps: list) -> g.GameState:
    """The state after ``action``; the steps it makes are appended to ``steps``."""
    player = action.player
    if action.kind == MOVE:
        if state.phase is g.Phase.ROLL:
            steps.append(Step(ROLL, player, state, entry))
            state = g.roll(state, action.dice)
        elif state.phase is not g.Phase.MOVE or tuple(sorted(state.dice)) != tuple(sorted(action.dice)):
            raise g.RuleError(f"no play of {action.dice[0]}-{action.dice[1]} now ({state.phase.value} phase)")
        child = parse_play(state.game, state.position, state.dice, action.play)
        steps.append(Step(MOVE, player, state, entry, child))
        return g.play(state, child)
    steps.append(Step(action.kind, player, state, entry))
    return ANSWERS[action.kind](state)


def _describe(action) -> str:
    if action.kind == MOVE:
        return f"{action.dice[0]}{action.dice[1]}: {action.play or '(no play)'}"
    return action.kind


__all__ = ["ANSWERS", "ROLL", "STEP_KINDS", "GameReplay", "Step", "match_rules", "replay_game", "replay_match"]
