"""A .mat record replayed through the rules (engine/formats/matreplay.py): one step per decision with the
state it was made in, the Crawford game and scores rebuilt, and everything the rules refuse named."""

from __future__ import annotations

import re

import numpy as np
import pytest

from engine import game as g
from engine.board import flip, start_position
from engine.errors import FormatError
from engine.formats.matfile import BEAVER, DOUBLE, DROP, MOVE, TAKE, Action, GameRecord, MatchRecord, read_mat
from engine.formats.matreplay import ROLL, replay_match

OPENING = [Action(0, MOVE, (3, 1), "8/5 6/5"), Action(1, MOVE, (6, 5), "24/18 18/13")]


def _record(actions, length=3, scores=(0, 0), winner=None, points=0, games=None):
    games = games or (GameRecord(tuple(actions), scores, winner, points),)
    return MatchRecord(("alice", "bob"), length, games)


def test_every_decision_is_a_step_with_its_state():
    """Plays, the rolls before them (not the opening throw), a double and its take, in order; each
    step's state is the one the decision was made in, and a play's child is its legal result."""
    actions = OPENING + [Action(0, DOUBLE), Action(1, TAKE), Action(0, MOVE, (2, 1), "13/11 6/5")]
    [game] = replay_match(_record(actions))
    assert [(s.kind, s.player) for s in game.steps] == [
        (MOVE, 0), (ROLL, 1), (MOVE, 1), (DOUBLE, 0), (TAKE, 1), (ROLL, 0), (MOVE, 0)]
    first, roll, reply, double, take = game.steps[:5]
    assert first.state.phase is g.Phase.MOVE and first.state.dice == (3, 1)
    assert np.array_equal(first.state.position, start_position("backgammon", 1)[0])
    assert list(first.child[4:8]) == [2, 4, 0, 2]  # the 5-point made from the 8- and 6-points
    assert roll.state.phase is g.Phase.ROLL and roll.state.mover == 1
    assert np.array_equal(roll.state.position, flip("backgammon", first.child))
    assert reply.state.dice == (6, 5) and double.state.phase is g.Phase.ROLL
    assert take.state.phase is g.Phase.TAKE and take.state.cube == 1
    assert game.final.cube == 2 and game.final.cube_owner == 1 and [s.entry for s in game.steps][-1] == 4


def test_games_get_their_scores_and_the_crawford_game():
    """The Crawford game is the first in which a side is one point from the match; not the next."""
    games = tuple(GameRecord(tuple(OPENING), scores) for scores in ((0, 0), (2, 0), (2, 1)))
    replays = replay_match(_record(None, length=3, games=games))
    assert [r.match.score for r in replays] == [(0, 0), (2, 0), (2, 1)]
    assert [r.match.is_crawford for r in replays] == [False, True, False]
    assert replays[2].match.post_crawford


@pytest.mark.parametrize("actions, games, reason", [
    ([Action(0, MOVE, (3, 1), "8/2")], None, "entry 1 (31: 8/2)"),
    ([Action(0, MOVE, (3, 1), "8/5 6/5"), Action(0, MOVE, (6, 5), "24/18 18/13")], None, "player 1's turn"),
    ([Action(0, MOVE, (3, 3), "8/5(2) 6/3(2)")], None, "never a double"),
    ([Action(0, DOUBLE)], None, "opens with a play"),
    (OPENING + [Action(0, TAKE)], None, "entry 3 (take)"),
    (OPENING + [Action(0, DOUBLE)], (2, 0), "Crawford"),
    (OPENING + [Action(0, DROP)], None, "entry 3"),
])
def test_what_the_rules_refuse_is_named(actions, games, reason):
    """An illegal play, the wrong side, a double opening, a cube action out of turn, a double in the
    Crawford game: FormatError naming the game and the entry."""
    record = _record(actions, scores=games or (0, 0))
    with pytest.raises(FormatError, match=f"game 1.*{re.escape(reason)}"):
        replay_match(record)


def test_a_score_past_the_match_and_a_resigned_game():
    """A game whose score already ends the match is refused; a game that ends by resignation stops
    with its last state not over."""
    with pytest.raises(FormatError, match="already ends"):
        replay_match(_record(OPENING, scores=(3, 0)))
    [game] = replay_match(_record(OPENING, winner=0, points=1))
    assert not game.final.is_over and game.record.winner == 0


def test_gnubgs_own_export_replays():
    """gnubg 1.07's export (its header lines, bar as 25, off as 0, plays of one die, empty plays)."""
    text = """; [EventDate "2026.12.01"]

 3 point match

 Game 1
 zero : 0                       noisy : 0
  1)                             63: 24/18 18/15
  2) 65: 24/18 18/13             11: 15/14 14/13 6/5 6/5
  3) 62: 24/22 22/16             21: 8/7 13/11
  4) 31: 6/5 8/5                 32: 11/9* 13/10
  5) 53: 25/22 13/8              63: 6/3* 9/3
  6) 64: 25/21 21/15*            32: 25/23 13/10*
  7) 54: 25/21 21/16             32: 23/21 13/10
  8) 62: 16/10 10/8              41: 10/9 5/1
  9)  Doubles => 2                Takes
 10) 65: 6/1* 13/7               33: 25/22 21/18* 18/15 8/5
 11) 43: 25/21 21/18*            61: 25/24* 13/7*
 12) 52: 25/23                   55: 15/10 13/8 10/5 7/2*
 13) 65:                         21: 8/6 2/1
"""
    [game] = replay_match(read_mat(text))
    kinds = [s.kind for s in game.steps]
    assert kinds.count(MOVE) == 23 and kinds.count(DOUBLE) == 1 and kinds.count(TAKE) == 1
    assert game.final.mover == 0 and game.final.cube == 2


BEAVER_MAT = ('; [Beaver "On"]\n\n 0 point match\n\n Game 1\n a : 0                          b : 0\n'
              '  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Beavers => 4                 64: 24/18 13/9\n')
"""A beaver in the form this project writes (issue 43's reproduction)."""


def test_a_beaver_is_the_doubled_sides_redouble_kept():
    """``Beavers => 4`` replays as a step of its own, the cube then at four times its value and owned by
    the beavering side; where beavers are off, or in a match, it is refused with the rules' reason."""
    [game] = replay_match(read_mat(BEAVER_MAT))
    assert [(s.kind, s.player) for s in game.steps] == [(MOVE, 0), (DOUBLE, 1), (BEAVER, 0), (ROLL, 1), (MOVE, 1)]
    assert game.steps[2].state.phase is g.Phase.TAKE and (game.final.cube, game.final.cube_owner) == (4, 0)
    [unsaid] = replay_match(read_mat(BEAVER_MAT.replace('; [Beaver "On"]\n', "")))  # gnubg reads it all the same
    assert unsaid.final.cube == 4
    with pytest.raises(FormatError, match=r"entry 3 \(beaver\).*not allowed"):
        replay_match(read_mat(BEAVER_MAT.replace('"On"', '"Off"')))
    with pytest.raises(FormatError, match=r"entry 3 \(beaver\).*money play only"):
        replay_match(read_mat(BEAVER_MAT.replace(" 0 point match", " 3 point match")))


def test_a_game_that_began_with_automatic_doubles_starts_at_its_cube():
    """A game's ``; [Cube "2"]`` line (an opening tie doubled the cube, centred) is where its replay starts."""
    text = BEAVER_MAT.replace('; [Beaver "On"]', '; [Beaver "On"]\n; [AutomaticDoubles "1"]').replace(
        "b : 0\n", 'b : 0\n; [Cube "2"]\n')
    [game] = replay_match(read_mat(text))
    assert game.steps[0].state.cube == 2 and game.steps[0].state.cube_owner is None
    assert (game.final.cube, game.final.cube_owner) == (8, 0)


def test_a_cubeless_record_is_replayed_without_the_cube():
    """A record that says it was played without the cube is replayed under rules without one (and
    without the Jacoby rule, which is about the cube): a double in it is refused with the reason."""
    [game] = replay_match(MatchRecord(("a", "b"), 0, (GameRecord(tuple(OPENING)),), cube=False))
    assert not game.match.rules.has_cube and not game.match.rules.jacoby
    assert not any(g.may_double(s.state) for s in game.steps if s.kind == ROLL)
    doubled = MatchRecord(("a", "b"), 0, (GameRecord((*OPENING, Action(0, DOUBLE))),), cube=False)
    with pytest.raises(FormatError, match="entry 3 \\(double\\).*without the cube"):
        replay_match(doubled)
