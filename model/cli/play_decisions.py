"""The bot's decisions in the terminal game (model/cli/play.py), and the hint it gives the person.

Every decision is model/cube/policy.py's ``CubePolicy`` at 0-ply, the one hint, serve and the cube
arena use, seen through ``cube_view`` at the game's cube, score and money options (Jacoby: gammons
count single while the cube is centred; beavers), so the options change the bot's cube actions and
its checker play. A baseline without probabilities plays its own choice, never doubles, always
takes, never resigns and accepts only the most the person can still lose.

``hint_table`` is ``evaluate.py hint``'s table (model/cli/hint.py's ``analyse`` and ``render``) for
the position and state the person faces, so the two always agree.
"""

from __future__ import annotations

import numpy as np

from engine import game as g
from engine.notation import NO_PLAY, format_play
from model.cube.policy import CubePolicy, cube_view

HUMAN, BOT = 0, 1
HINT_TOP = 10
"""Plays the hint table lists (``evaluate.py hint``'s default ``--top``)."""


def cube_advice(policy: CubePolicy, state: g.GameState, side: int):
    """The policy's cube decision for ``side`` on roll (ROLL phase), or None without probabilities."""
    if not policy.has_probabilities:
        return None
    return policy.cube_decision(g.view(state, side), cube_view(state, side))


def bot_doubles(policy: CubePolicy, state: g.GameState) -> bool:
    """The bot, on roll, doubles when the rules let it and the policy says "double"."""
    if not g.may_double(state):
        return False
    return bool(policy.doubles(state.position[None, :], [cube_view(state, BOT)])[0])


def take_advice(policy: CubePolicy, state: g.GameState, taker: int) -> str:
    """"take", "pass" or "beaver" for ``taker`` answering the waiting double ("take" for a baseline)."""
    return policy.answers(g.view(state, 1 - taker)[None, :], [cube_view(state, taker)])[0]


def bot_resignation(policy: CubePolicy, state: g.GameState) -> int | None:
    """The level the bot offers to resign at, or None: the policy's offer, capped by the rules."""
    on_roll = state.mover == BOT
    level = int(policy.resignations(state.position[None, :], [cube_view(state, BOT)], [on_roll])[0])
    if level == 0:
        return None
    level = min(level, g.max_resignation(state, BOT))
    return level if g.resignation_refusal(state, BOT, level) is None else None


def accepts(policy: CubePolicy, state: g.GameState, side: int) -> bool:
    """Whether ``side`` should accept the other side's waiting resignation: the policy's answer; a
    baseline accepts only the most the other side can still lose."""
    offerer, level = state.resignation
    if not policy.has_probabilities:
        return level >= g.max_resignation(state, offerer)
    return bool(policy.accepts(state.position[None, :], [cube_view(state, side)], [level], [state.mover == side])[0])


def bot_accepts(policy: CubePolicy, state: g.GameState) -> bool:
    """Whether the bot accepts the person's waiting resignation."""
    return accepts(policy, state, BOT)


def bot_play(policy: CubePolicy, state: g.GameState) -> tuple[np.ndarray, str]:
    """(the bot's chosen child, its notation) in the MOVE phase: the policy's play."""
    children = np.asarray(state.plays)
    pick = int(policy.choose(state.position[None, :], np.array([state.dice]), children,
                             np.zeros(len(children), dtype=np.int64), [cube_view(state, BOT)])[0])
    return children[pick], format_play(state.game, state.position, children[pick], state.dice) or NO_PLAY


def offer_value(state: g.GameState, side: int, level: int) -> str:
    """What a resignation of ``level`` by ``side`` scores the other side, in words."""
    from engine.match import RESULT_NAMES
    from model.cli.terminal import points_text

    points = g.game_points(state.rules, level, state.cube, state.cube_owner)
    who = "you would score" if side == BOT else "the bot would score"
    how = ""
    if state.game == "backgammon":
        how = f" ({RESULT_NAMES[state.game][level]} x cube {state.cube}"
        how += ", counted single by the Jacoby rule)" if points < level * state.cube else ")"
    return f"{who} {points_text(points)}{how}"


def bot_acts(policy: CubePolicy, state: g.GameState, rng: np.random.Generator,
             offered: bool) -> tuple[g.GameState, str | None, bool]:
    """One decision of the bot, whose turn it is to act: (the state after it, what it says or None,
    whether it has offered to resign in this game, which it does once a game: ``offered`` so far).
    The terminal game (model/cli/play.py) and the page's games (model/web/game.py) both act through it."""
    from model.cli.terminal import LEVEL_NAMES, dice_text

    if state.resignation is not None:
        accepted = bot_accepts(policy, state)
        return (g.accept_resignation(state) if accepted else g.reject_resignation(state),
                f"the bot {'accepts' if accepted else 'rejects'} your resignation", offered)
    if state.phase is g.Phase.TAKE:
        answer = take_advice(policy, state, BOT)
        if answer == "beaver" and g.beaver_refusal(state) is not None:
            answer = "take"
        said = (f"the bot beavers: it takes and redoubles to {state.cube * 4}, keeping the cube"
                if answer == "beaver" else f"the bot {'drops' if answer == 'pass' else 'takes'}")
        return {"pass": g.drop, "take": g.take, "beaver": g.beaver}[answer](state), said, offered
    if state.phase is g.Phase.ROLL:
        level = None if offered else bot_resignation(policy, state)
        if level is not None:
            return (g.offer_resignation(state, BOT, level),
                    f"the bot offers to resign {LEVEL_NAMES[state.game][level]}: {offer_value(state, BOT, level)}",
                    True)
        if bot_doubles(policy, state):
            return g.double(state), f"the bot doubles to {state.cube * 2}", offered
        return g.roll(state, rng), None, offered
    child, move = bot_play(policy, state)
    return g.play(state, child), f"the bot rolls {dice_text(state.dice)} and plays {move}", offered


def hint_table(bot, state: g.GameState) -> str:
    """``evaluate.py hint``'s table (no board) for the decision the person faces: the ranked plays of
    the dice thrown, or the cube decision before the roll or of a waiting double. Its header gives the
    Position ID and Match ID, so ``evaluate.py hint ID:MatchID`` shows the same."""
    from engine.formats.match_id import MatchInfo
    from model.cli.hint import Query, analyse, render

    info = MatchInfo.of_state(state) if state.game == "backgammon" else None
    dice = np.array(state.dice, dtype=np.int64) if state.phase is g.Phase.MOVE else None
    answer = analyse(bot, Query(state.game, np.asarray(state.position), info, dice), 0, None)
    return render(answer, HINT_TOP, board=False)
