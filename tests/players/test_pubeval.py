"""Pubeval: the published reference scores, its encoding, its race/contact switch, gnubg's copy."""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import CHECKERS, OFF, flip, has_contact, start_position
from engine.groups import group_argmax
from engine.movegen import legal_plays
from model.net.pubeval import WIN_SCORE, pubeval_inputs, pubeval_scores
from model.players.pubeval_player import PubevalPlayer


def after(moves: dict[int, int]) -> np.ndarray:
    """The start position with ``{point: change}`` applied to the mover's checkers."""
    pos = start_position("backgammon").copy()
    for point, change in moves.items():
        pos[point - 1] += change
    return pos


def random_positions(n_games: int = 32, plies: int = 60, seed: int = 0) -> np.ndarray:
    """Positions left by random plays (mover's frame, before the turn passes), games restarted when won."""
    rng = np.random.default_rng(seed)
    pos = start_position("backgammon", n_games)
    seen = []
    for _ in range(plies):
        children, parent = legal_plays("backgammon", pos, rng.integers(1, 7, (n_games, 2)))
        start = np.searchsorted(parent, np.arange(n_games))
        count = np.bincount(parent, minlength=n_games)
        chosen = children[start + (rng.random(n_games) * count).astype(int)]
        seen.append(chosen.copy())
        won = chosen[:, OFF] == CHECKERS
        chosen[won] = start_position("backgammon", int(won.sum()))
        pos = flip("backgammon", chosen)
    out = np.concatenate(seen)
    return out[out[:, OFF] < CHECKERS]


def test_reference_scores():
    """PUBEVAL.md's four reference values: start (contact and race), 8/5 6/5, 24/21 6/5."""
    start = start_position("backgammon")[None]
    assert pubeval_scores(start, [False])[0] == pytest.approx(6.84055, abs=1e-4)
    assert pubeval_scores(start, [True])[0] == pytest.approx(9.93903, abs=1e-4)
    assert pubeval_scores(after({8: -1, 6: -1, 5: 2})[None], [False])[0] == pytest.approx(10.34312, abs=1e-4)
    assert pubeval_scores(after({24: -1, 21: 1, 6: -1, 5: 1})[None], [False])[0] == pytest.approx(6.44695, abs=1e-4)


def test_inputs_follow_the_encoding():
    """Block j = 24 - p: opponent blot, 1, 2+, exactly 3, (n-3)/2 from 4; bar/2 and off/15 at the end."""
    pos = np.zeros(28, dtype=np.int8)
    pos[23] = 5  # mover's 24-point: block 0
    pos[0] = -1  # an opponent blot on the mover's 1-point: block 23
    pos[9] = 3  # the mover's 10-point: block 14
    pos[10] = -2  # an opponent point: not encoded
    pos[25] = 3  # opponent's bar
    pos[26] = 6  # mover's off
    x = pubeval_inputs(pos[None])[0]
    assert list(x[0:5]) == [0, 0, 1, 0, 1.0]
    assert list(x[115:120]) == [1, 0, 0, 0, 0]
    assert list(x[70:75]) == [0, 0, 1, 1, 0]
    assert not x[65:70].any()
    assert x[120] == 1.5 and x[121] == pytest.approx(6 / 15)


def _race_and_contact_choices(pos, dice):
    children, parent = legal_plays("backgammon", pos[None], np.array([dice]))
    contact = group_argmax(pubeval_scores(children, np.zeros(len(children), bool)), parent, 1)[0]
    race = group_argmax(pubeval_scores(children, np.ones(len(children), bool)), parent, 1)[0]
    chosen = PubevalPlayer().select(pos[None], np.array([dice]), children, parent)[0]
    return contact, race, chosen


def test_contact_weights_when_the_position_before_has_contact():
    """The weights follow the position BEFORE the play: contact there, contact weights, even if the play breaks it."""
    pos = np.zeros(28, dtype=np.int8)
    pos[[11, 5, 4, 3, 2]] = [1, 4, 4, 3, 3]
    pos[[9, 18, 19, 20, 21]] = [-1, -4, -4, -3, -3]
    assert has_contact("backgammon", pos[None])[0]
    contact, race, chosen = _race_and_contact_choices(pos, (5, 5))
    assert contact != race  # the two weight sets disagree here, so the choice tells them apart
    assert chosen == contact


def test_race_weights_when_the_position_before_is_a_race():
    """No contact before the play: the race weights choose."""
    pos = np.zeros(28, dtype=np.int8)
    pos[[10, 8, 6, 5, 3, 1]] = [2, 2, 3, 3, 3, 2]
    pos[[12, 14, 17, 19, 22]] = -3
    assert not has_contact("backgammon", pos[None])[0]
    contact, race, chosen = _race_and_contact_choices(pos, (6, 5))
    assert contact != race
    assert chosen == race


def test_bearing_off_the_last_checker_scores_highest():
    """A play that bears off the last checker wins, whatever the linear score says."""
    pos = np.zeros(28, dtype=np.int8)
    pos[[0, 2]] = 1
    pos[26] = 13
    pos[[18, 19]] = [-8, -7]
    children, parent = legal_plays("backgammon", pos[None], np.array([[3, 1]]))
    chosen = children[PubevalPlayer().select(pos[None], np.array([[3, 1]]), children, parent)[0]]
    assert chosen[OFF] == CHECKERS
    assert pubeval_scores(chosen[None], [True])[0] == WIN_SCORE


def test_pubeval_plays_backgammon_only():
    """Pubeval is a backgammon evaluator: asking it to play nardi is refused."""
    with pytest.raises(ValueError, match="backgammon only"):
        PubevalPlayer("nardi")


def test_same_scores_as_gnubgs_copy():
    """gnubg-nn's pub_eval_score (race weights when the position has no contact) agrees on random positions."""
    gnubg = pytest.importorskip("gnubg_nn")
    from model.players.gnubg import to_gnubg_boards

    positions = random_positions()
    race = ~has_contact("backgammon", positions)
    assert race.any() and (~race).any()
    ours = pubeval_scores(positions, race)
    boards = to_gnubg_boards(positions)  # [opponent, mover]; gnubg scores the side listed first
    theirs = np.array([gnubg.pub_eval_score([b[1].tolist(), b[0].tolist()]) for b in boards])
    np.testing.assert_allclose(ours, theirs, atol=1e-4)
