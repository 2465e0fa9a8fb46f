"""Baseline players: the heuristic's features and strength, its Easy level, make_player, the gnubg opponent."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from engine.board import flip, start_position
from engine.movegen import legal_plays
from model.arena.cubeless import play_games
from model.players.base import RandomPlayer
from model.players.heuristic import (
    HeuristicPlayer,
    best_plays,
    better_half_choice,
    heuristic_scores,
    nardi_scores,
    shots,
)
from model.players.registry import BASELINES, make_player

# Rolls of 36 that hit a lone blot at each distance from a lone shooter, nothing in between (the
# standard table every backgammon book prints).
STANDARD_SHOTS = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3,
                  13: 0, 14: 0, 15: 1, 16: 1, 17: 0, 18: 1, 19: 0, 20: 1, 21: 0, 22: 0, 23: 0}


def test_shots_match_the_standard_table():
    """A blot d points in front of one opponent checker is hit by the textbook number of rolls."""
    rows = []
    for d in STANDARD_SHOTS:
        pos = np.zeros(28, dtype=np.int8)
        pos[0], pos[d] = -1, 1  # shooter on our 1-point, blot on our point 1 + d
        rows.append(pos)
    count = shots(np.array(rows))
    assert [int(count[i, 1 + d]) for i, d in enumerate(STANDARD_SHOTS)] == list(STANDARD_SHOTS.values())


def test_shots_from_the_bar_and_through_blocks():
    """A checker on the bar enters on our point d; made points on the way stop indirect shots."""
    pos = np.zeros(28, dtype=np.int8)
    pos[25], pos[23] = 1, 1  # opponent on the bar, our blot on the 24-point: only 6-6 reaches it
    assert shots(pos[None])[0, 24] == 1
    pos = np.zeros(28, dtype=np.int8)
    pos[0], pos[8] = -1, 1  # distance 8: 6-2, 5-3 (4 rolls), 4-4, 2-2 -> 6
    assert shots(pos[None])[0, 9] == 6
    pos[2], pos[6] = 2, 2  # we hold 1+2 and 1+6: 6-2 and 2-2 are blocked; 5-3 and 4-4 remain
    assert shots(pos[None])[0, 9] == 3


def test_no_shots_in_a_race():
    """Blots the opponent has passed cannot be hit."""
    pos = np.zeros(28, dtype=np.int8)
    pos[[1, 3, 5]] = 1
    pos[[10, 15]] = -1
    assert shots(pos[None]).sum() == 0


@pytest.mark.parametrize("dice, made", [((3, 1), 5), ((6, 1), 7), ((4, 2), 4)])
def test_heuristic_makes_the_opening_points(dice, made):
    """The classic opening point-making plays: 3-1 makes the 5-point, 6-1 the bar, 4-2 the 4-point."""
    after = HeuristicPlayer("backgammon").choose(start_position("backgammon", 1), np.array([dice]))[0]
    assert after[made - 1] == 2


def test_nardi_heuristic_values_points_held():
    """Nardi: one checker holds a point, so spreading two checkers beats stacking them (same pips)."""
    base = np.zeros(28, dtype=np.int8)
    base[23], base[11] = 13, -15
    spread, stacked = base.copy(), base.copy()
    spread[[19, 17]] = 1  # points 20 and 18
    stacked[18] = 2  # point 19 twice
    score = nardi_scores(np.array([spread, stacked]))
    assert score[0] > score[1]


def test_better_half_choice_stays_in_the_better_half():
    """Easy picks uniformly among the ceil(k/2) best plays of each position, and does vary."""
    scores = np.array([5.0, 1.0, 3.0, 2.0, 4.0, 10.0, 0.0, 7.0])
    parent = np.array([0, 0, 0, 0, 0, 1, 1, 2])  # 5 plays (best 3: idx 0, 4, 2), 2 plays (idx 5), 1 play
    children = np.arange(8 * 28, dtype=np.int8).reshape(8, 28)  # distinct stand-ins
    rng = np.random.default_rng(0)
    picks = np.array([better_half_choice(scores, children, parent, 3, rng) for _ in range(300)])
    assert set(picks[:, 0]) == {0, 4, 2}
    assert set(picks[:, 1]) == {5} and set(picks[:, 2]) == {7}


def test_ties_go_to_the_same_play_whatever_the_order_of_the_children():
    """Equal scores are broken by the position a play leaves, not by where the generator listed it."""
    children = np.array([start_position("backgammon") + k for k in range(4)], dtype=np.int8)
    parent = np.zeros(4, dtype=np.int64)
    scores = np.array([1.0, 2.0, 2.0 + 1e-13, 2.0])  # three plays tie at 2 (to 1e-9)
    best = children[best_plays(scores, children, parent, 1)[0]]
    shuffled = [3, 1, 0, 2]
    again = children[shuffled][best_plays(scores[shuffled], children[shuffled], parent, 1)[0]]
    np.testing.assert_array_equal(best, again)
    assert not (best == children[0]).all()


def test_easy_heuristic_picks_from_the_better_half_of_real_plays():
    """On the opening rolls every Easy choice ranks in the better half by the heuristic's own score."""
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)])
    positions = start_position("backgammon", len(rolls))
    children, parent = legal_plays("backgammon", positions, rolls)
    scores = heuristic_scores("backgammon", children)
    chosen = HeuristicPlayer("backgammon", easy=True, seed=1).select(positions, rolls, children, parent)
    for i, c in enumerate(chosen):
        mine = scores[parent == i]
        assert (mine > scores[c]).sum() < (len(mine) + 1) // 2


@pytest.mark.parametrize("game, games, floor", [("backgammon", 200, 1.5), ("nardi", 100, 1.0)])
def test_heuristic_clearly_beats_random(game, games, floor):
    """Over mirrored games the heuristic wins by a wide margin (measured: +2.4 and +1.5 ppg)."""
    result = play_games(HeuristicPlayer(game), RandomPlayer(game, seed=3), games, seed=7, batch=games)
    assert result.ppg - result.ci95 > floor


def test_make_player_knows_every_baseline_name():
    """Each baseline name gives a player of that name for the game; names are case-insensitive."""
    for name in ("random", "heuristic", "heuristic-easy", "pubeval"):
        player = make_player(name.upper(), "backgammon", seed=0)
        assert player.name == name and player.game == "backgammon"
    assert make_player("heuristic", "nardi").game == "nardi"
    assert {"gnubg", "gnubg-0ply", "gnubg-1ply", "gnubg-2ply"} <= set(BASELINES)


def test_make_player_errors(tmp_path):
    """Unknown names, backgammon-only baselines in nardi, missing checkpoints, unknown games: clear errors."""
    with pytest.raises(ValueError, match="unknown player 'gnubg-9ply'"):
        make_player("gnubg-9ply", "backgammon")
    with pytest.raises(ValueError, match="backgammon only"):
        make_player("pubeval", "nardi")
    with pytest.raises(FileNotFoundError, match="checkpoint not found"):
        make_player(str(tmp_path / "missing.pt"), "backgammon")
    with pytest.raises(ValueError, match="unknown game"):
        make_player("random", "chess")


def test_missing_gnubg_package_is_a_clear_error(monkeypatch):
    """Without gnubg-nn, asking for gnubg names the package to install."""
    from model.players import gnubg as gnubg_player

    real = importlib.import_module

    def no_gnubg(name, *args):
        if name in ("gnubg_nn", "gnubg"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(gnubg_player.importlib, "import_module", no_gnubg)
    with pytest.raises(ImportError, match="pip install gnubg-nn"):
        make_player("gnubg", "backgammon")


def test_gnubg_board_conversion_round_trips():
    """Our positions -> gnubg's [opponent, mover] boards -> back; the start is gnubg's 4HPwATDgc/ABMA."""
    gnubg = pytest.importorskip("gnubg_nn")
    from model.players.gnubg import from_gnubg_board, to_gnubg_boards

    start = start_position("backgammon", 1)
    assert gnubg.position_id(to_gnubg_boards(start)[0].tolist()) == "4HPwATDgc/ABMA"
    rng = np.random.default_rng(2)
    pos = start_position("backgammon", 16)
    for _ in range(20):  # a few random plies of each game
        children, parent = legal_plays("backgammon", pos, rng.integers(1, 7, (16, 2)))
        pos = children[RandomPlayer("backgammon", seed=1).select(pos, None, children, parent)]
        back = np.array([from_gnubg_board(b) for b in to_gnubg_boards(pos)])
        np.testing.assert_array_equal(back, pos)
        pos = flip("backgammon", pos)


def test_a_short_match_against_gnubg():
    """gnubg-nn at 0-ply and 1-ply plays whole games; each of its plays is one of our legal plays."""
    pytest.importorskip("gnubg_nn")
    zero = play_games(make_player("gnubg-0ply", "backgammon"), make_player("pubeval", "backgammon"), 20, seed=1)
    assert zero.capped.sum() == 0 and (zero.points != 0).all()
    one = play_games(make_player("gnubg-1ply", "backgammon"), make_player("heuristic", "backgammon"), 4, seed=2)
    assert one.names == ("gnubg-1ply", "heuristic") and (one.points != 0).all()


def test_group_argmax_takes_each_groups_first_best():
    """The one-pass group_argmax equals a plain scan: per parent, the first child with the highest
    score, with ties, -inf and groups of one; a group without a child is refused."""
    from engine.groups import group_argmax

    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        parent = np.repeat(np.arange(n), rng.integers(1, 6, n))
        scores = rng.integers(0, 4, len(parent)).astype(float)
        scores[rng.random(len(parent)) < 0.1] = -np.inf
        want = [int(np.flatnonzero(parent == g)[np.argmax(scores[parent == g])]) for g in range(n)]
        assert group_argmax(scores, parent, n).tolist() == want
    with pytest.raises(ValueError, match="at least one child"):
        group_argmax(np.zeros(3), np.array([0, 0, 2]), 3)
