"""The cubeless arena: mirrored pairs, openings, batch independence, the cap, the pair-based statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.board import winner_score
from engine.dice import opening_throws, throws
from engine.formats.matfile import format_mat, read_mat
from model.arena.cubeless import ArenaResult, mat_record, play_games
from model.players.base import RandomPlayer
from model.players.heuristic import HeuristicPlayer
from model.players.pubeval_player import PubevalPlayer
from tests.helpers import replay


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_mirrored_games_throw_the_same_dice(game):
    """Games 2k and 2k+1 see the same throws turn by turn, whoever plays them."""
    result = play_games(HeuristicPlayer(game), RandomPlayer(game, seed=1), 20, seed=9, batch=6,
                        record_dice=True)
    for k in range(10):
        one, two = result.dice[2 * k], result.dice[2 * k + 1]
        n = min(len(one), len(two))
        assert n > 10 and one[:n] == two[:n]
    assert result.dice[0] != result.dice[2]  # different pairs, different streams


def test_first_turns_follow_the_opening_rules():
    """Backgammon's first turn plays the opening throw (never a double); nardi's starter throws afresh."""
    opening = opening_throws(4, np.arange(10))
    bg = play_games(RandomPlayer("backgammon", seed=0), RandomPlayer("backgammon", seed=1), 20, seed=4,
                    record_dice=True)
    assert [bg.dice[2 * k][0] for k in range(10)] == [tuple(map(int, o)) for o in opening]
    nardi = play_games(RandomPlayer("nardi", seed=0), RandomPlayer("nardi", seed=1), 20, seed=4,
                       record_dice=True)
    first = throws(4, np.arange(10), np.zeros(10, dtype=np.int64))
    assert [nardi.dice[2 * k][0] for k in range(10)] == [tuple(map(int, f)) for f in first]


def test_a_deterministic_player_against_itself_cancels_exactly():
    """With the same deterministic player in both seats, each mirrored pair is one game played twice."""
    result = play_games(PubevalPlayer(), PubevalPlayer(), 40, seed=2, batch=16)
    np.testing.assert_array_equal(result.points[0::2], -result.points[1::2])
    assert result.ppg == 0 and (result.points != 0).all()


def test_results_do_not_depend_on_the_batch_size():
    """Dice belong to the game, not to its slot: batch 5 and batch 24 give the same games."""
    small = play_games(HeuristicPlayer("backgammon"), PubevalPlayer(), 24, seed=6, batch=5)
    large = play_games(HeuristicPlayer("backgammon"), PubevalPlayer(), 24, seed=6, batch=24)
    np.testing.assert_array_equal(small.points, large.points)
    np.testing.assert_array_equal(small.plies, large.plies)


def test_random_against_itself_averages_near_zero():
    """Two random players: ppg within its own 95% interval of 0, and the interval is sensible."""
    result = play_games(RandomPlayer("backgammon", seed=1), RandomPlayer("backgammon", seed=2), 400, seed=8,
                        batch=200)
    assert 0.05 < result.ci95 < 0.4
    assert abs(result.ppg) < result.ci95
    assert result.capped.sum() == 0


def test_the_cap_ends_and_counts_long_games():
    """A game that reaches the safety cap scores 0 and is counted as capped."""
    result = play_games(RandomPlayer("nardi", seed=0), RandomPlayer("nardi", seed=1), 6, seed=1, max_plies=5)
    assert result.capped.all() and (result.points == 0).all() and (result.plies == 5).all()
    assert result.summary()["capped_games"] == 6


def test_statistics_treat_each_pair_as_one_sample():
    """ppg, the pair-based standard error and the rates of a hand-made result."""
    points = np.array([1, -1, 2, 0, 3, -1])  # pair means 0, 1, 1
    result = ArenaResult("backgammon", ("a", "b"), 0, points, np.full(6, 50), np.zeros(6, bool), 2.0)
    assert result.ppg == pytest.approx(2 / 3)
    assert result.stderr == pytest.approx(math.sqrt(1 / 3) / math.sqrt(3))
    assert result.ci95 == pytest.approx(1.96 * result.stderr)
    rates = result.rates()
    assert rates["a_win"] == pytest.approx(3 / 6) and rates["a_gammon"] == pytest.approx(2 / 6)
    assert rates["a_backgammon"] == pytest.approx(1 / 6) and rates["b_win"] == pytest.approx(2 / 6)
    assert rates["b_gammon"] == 0 and result.games_per_s == 3.0
    nardi = ArenaResult("nardi", ("a", "b"), 0, np.array([2, -1]), np.full(2, 80), np.zeros(2, bool), 1.0)
    assert set(nardi.rates()) == {"a_win", "a_mars", "b_win", "b_mars"}


def test_bad_matches_are_refused():
    """Odd game counts and players of different games are refused with a reason."""
    with pytest.raises(ValueError, match="even"):
        play_games(RandomPlayer("nardi"), RandomPlayer("nardi"), 7)
    with pytest.raises(ValueError, match="different games"):
        play_games(RandomPlayer("nardi"), RandomPlayer("backgammon"), 2)


def test_recorded_plays_become_a_money_session_of_legal_games():
    """record_plays changes no result; mat_record gives every game, A in the left column, legal plays that
    end with the winner bearing off its 15th checker for the points A scored, and running scores."""
    a, b = HeuristicPlayer("backgammon"), PubevalPlayer()
    a.name, b.name = "heuristic", "pubeval"
    plain = play_games(a, b, 12, seed=5, batch=5)
    result = play_games(a, b, 12, seed=5, batch=5, record_plays=True)
    assert plain.plays is None
    np.testing.assert_array_equal(plain.points, result.points)
    record = read_mat(format_mat(mat_record(result)))
    assert record.match_length == 0 and record.names == ("heuristic", "pubeval") and len(record.games) == 12
    won = [0, 0]
    for game, (last, final), points, plies in zip(record.games, replay(record), result.points, result.plies):
        assert sum(x.kind == "move" for x in game.actions) == plies
        assert game.winner == (0 if points > 0 else 1) == last and game.points == abs(points)
        assert final[26] == 15 and winner_score("backgammon", final[None])[0] == abs(points)
        assert game.scores == tuple(won)
        won[game.winner] += game.points
    nardi = play_games(RandomPlayer("nardi", seed=0), RandomPlayer("nardi", seed=1), 2, record_plays=True)
    with pytest.raises(ValueError, match="backgammon only"):
        mat_record(nardi)
