"""One policy everywhere (model/players/cube_policy.py): serve, hint, play and the cube arena choose the same
checker play and the same cube action in the same position at the same cube and match state."""

from __future__ import annotations

import numpy as np
import pytest

from engine import game as g
from engine.formats.fibs import FibsBoard
from engine.formats.match_id import CUBE_CENTRED, MatchInfo
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.tools.sample import random_positions
from model.bot import Bot
from model.players.cube_players import NetCubePlayer
from model.players.cube_policy import CubePolicy, cube_view
from model.service import game_turn as turn
from model.service.hint import HintSettings
from model.service.hint import hint as analyse
from model.service.query import Query
from nardibot.cli.cmd_serve import BotAgent, ServeOptions

# (match length, score of the side on roll, of the other, cube, owner: None / "me" / "them", Crawford)
STATES = [
    (0, 0, 0, 1, None, False),
    (0, 0, 0, 2, "me", False),
    (0, 0, 0, 4, "them", False),
    (5, 1, 2, 1, None, False),
    (5, 3, 1, 2, "them", False),
    (7, 6, 3, 1, None, True),
    (7, 6, 4, 1, None, False),  # post-Crawford
]


@pytest.fixture(scope="module")
def bot():
    return Bot.load()  # the shipped network, numpy inference


def _entry_points(bot, position, state_spec, dice):
    """The four entry points' views of one decision: (GameState, FibsBoard, MatchInfo). The side on
    roll is player 1 in the GameState (the terminal game's bot) and player 0 in the board and the ID."""
    length, me, them, cube, owner, crawford = state_spec
    owner_side = {None: None, "me": 0, "them": 1}[owner]
    rules = g.Rules(match_length=length, jacoby=length == 0)
    crawford_played = length > 1 and max(me, them) == length - 1 and not crawford
    match = g.MatchState(rules, score=(them, me), crawford_played=crawford_played)
    state = g.resume_game(match, position, turn.BOT, cube=cube,
                          cube_owner=None if owner_side is None else turn.BOT - owner_side,
                          dice=None if dice is None else tuple(int(d) for d in dice))
    board = FibsBoard(("bot", "other"), length, (me, them), position, 0,
                      None if dice is None else (int(dice[0]), int(dice[1])), cube, owner_side,
                      crawford=crawford, post_crawford=crawford_played)
    info = MatchInfo(cube_value=cube, cube_owner=CUBE_CENTRED if owner_side is None else owner_side, player_on_roll=0,
                     crawford=crawford, match_length=length, scores=(me, them), jacoby=length == 0,
                     dice=(0, 0) if dice is None else (int(dice[0]), int(dice[1])))
    return state, board, info


def test_every_entry_point_makes_the_same_checker_play(bot):
    """For random contact positions and rolls at seven cube/match states, the play sent by serve, the
    top play of hint, the play the terminal game makes and the cube arena's choice are one play."""
    positions, dice = random_positions("backgammon", 12, seed=5, kind="midgame")
    agent = BotAgent(bot, ServeOptions(jacoby=True, resign=False))
    arena = NetCubePlayer(bot.net)
    policy = CubePolicy.for_bot(bot)
    compared = 0
    for position, roll in zip(positions, dice):
        for spec in STATES:
            state, board, info = _entry_points(bot, position, spec, roll)
            children, parent = legal_plays("backgammon", position[None, :], roll[None, :])
            arena_child = children[arena.select([state], children, parent)[0]]
            played, _ = turn.bot_play(policy, state)
            hint = analyse(bot, Query("backgammon", position, info, roll), HintSettings(met="Kazaross-XG2"))
            best = hint["plays"][0]["position"]
            hint_child = np.array(best["board"] + best["bar"] + best["off"])
            text = agent.answer(board)
            served = parse_play("backgammon", position, roll, text) if text else position
            assert np.array_equal(arena_child, played) and np.array_equal(played, hint_child)
            assert np.array_equal(served, played), (spec, text)
            compared += 1
    assert compared == 12 * len(STATES)


def test_every_entry_point_makes_the_same_cube_action(bot):
    """Double or roll, and take or pass, agree between serve, hint, play and the cube arena; the sample
    has doubles and no-doubles, takes and passes."""
    positions, _ = random_positions("backgammon", 40, seed=9, kind="midgame")
    agent = BotAgent(bot, ServeOptions(jacoby=True, resign=False))
    arena = NetCubePlayer(bot.net)
    policy = CubePolicy.for_bot(bot)
    seen = set()
    for position in positions:
        for spec in STATES[:1] + STATES[3:4]:
            state, board, info = _entry_points(bot, position, spec, None)
            hint = analyse(bot, Query("backgammon", position, info, None), HintSettings(met="Kazaross-XG2"))["cube_decision"]
            doubles = {
                "arena": bool(arena.doubles([state])[0]),
                "play": turn.bot_doubles(policy, state),
                "serve": agent.answer(board) == "double",
                "hint": hint["double"],
            }
            assert len(set(doubles.values())) == 1, doubles
            doubled = g.double(state)  # the other side (the person, 0) answers
            taker_board = FibsBoard(board.names, board.match_length, board.scores, position, 0, None, board.cube,
                                    board.cube_owner, doubled=True, crawford=board.crawford,
                                    post_crawford=board.post_crawford)
            answers = {
                "arena": arena.answers([doubled])[0].replace("drop", "pass"),
                "play": turn.take_advice(policy, doubled, turn.HUMAN),
                "serve": agent.answer(taker_board).replace("drop", "pass"),
                "hint": hint["response"],
            }
            assert len(set(answers.values())) == 1, answers
            seen.add((doubles["arena"], answers["arena"]))
    assert {d for d, _ in seen} == {True, False} and {a for _, a in seen} >= {"take", "pass"}


def test_cube_view_of_a_game_state():
    """cube_view reads owner, value, score and Crawford from the engine's state, for the side asked."""
    rules = g.Rules(match_length=5)
    match = g.MatchState(rules, score=(4, 2))
    state = g.resume_game(match, random_positions("backgammon", 1, seed=1, kind="midgame")[0][0], 1)
    view = cube_view(state, 1)
    assert (view.match_length, view.score_me, view.score_opp, view.crawford) == (5, 2, 4, True)
    assert cube_view(state, 0).score_me == 4
    assert cube_view(g.resume_game(g.new_match(g.Rules(game="nardi")), np.array(
        [0] * 11 + [-15] + [0] * 11 + [15] + [0] * 4, dtype=np.int8), 0), 0) is None
