"""The luck's plays (model/search/top_plays.py): pubeval's K best distinct plays of every roll, found
without generating every play: exactly those for non-doubles, and for doubles once the beam holds
every partial play; the fixed-point scores are pubeval's."""

import numpy as np
import pytest

from engine.board import CHECKERS, OFF, has_contact, start_position
from engine.movegen import ALL_ROLLS, legal_plays
from engine.tools.sample import random_positions
from model.net.pubeval import fast_scores
from model.search.top_plays import DOUBLE, SCALE, WIN, luck_plays, scores, top_distinct
from tests.helpers import bearoff


def _blocked():
    """On the bar against a closed board: no roll moves a checker."""
    pos = np.zeros(28, dtype=np.int8)
    pos[18:24] = -2  # the opponent holds our points 19..24 (its home board)
    pos[24], pos[5], pos[OFF] = 1, 14, 0
    pos[27] = 3
    return pos


def _positions():
    kinds = ["any", "bar", "contact", "race", "bearoff"]
    found = [random_positions("backgammon", 30, seed=5, kind=kind)[0] for kind in kinds]
    last = bearoff([1, 0, 0, 0, 0, 0], [0, 0, 3, 0, 0, 0])  # one checker left: bearing it off wins
    last[OFF] = CHECKERS - 1
    return np.concatenate(found + [start_position("backgammon")[None], _blocked()[None], last[None]])


def _reference(positions, k):
    """{group: set of plays} of pubeval's k best distinct plays among every legal play of every roll."""
    frontier = np.repeat(positions, len(ALL_ROLLS), axis=0)
    kids, parent = legal_plays("backgammon", frontier, np.tile(ALL_ROLLS, (len(positions), 1)))
    s = scores(kids, has_contact("backgammon", positions)[parent // len(ALL_ROLLS)])
    keep = top_distinct(s, parent, k)
    return _sets(kids[keep], parent[keep])


def _sets(children, group):
    out: dict[int, set] = {}
    for child, g in zip(children, group):
        out.setdefault(int(g), set()).add(child.tobytes())
    return out


@pytest.fixture(scope="module")
def positions():
    return _positions()


def test_scores_are_pubevals(positions):
    """Fixed point agrees with pubeval's float scores; the last checker off scores WIN."""
    kids, parent = legal_plays("backgammon", positions, np.tile([[6, 5]], (len(positions), 1)))
    race = ~has_contact("backgammon", positions)[parent]
    ours, theirs = scores(kids, ~race), fast_scores(kids, race)
    won = kids[:, OFF] == CHECKERS
    assert won.any() and (ours[won] == WIN).all()
    np.testing.assert_allclose(ours[~won] / SCALE, theirs[~won], atol=1e-4)


def test_top_distinct_keeps_the_first_row_of_each_best_score():
    score = np.array([3.0, 5.0, 5.0, 1.0, 4.0, 2.0, 2.0, 9.0])
    group = np.array([0, 0, 0, 0, 0, 1, 1, 2])
    np.testing.assert_array_equal(np.flatnonzero(top_distinct(score, group, 2)), [1, 4, 5, 7])
    np.testing.assert_array_equal(np.flatnonzero(top_distinct(score, group, 9)), [0, 1, 3, 4, 5, 7])


@pytest.mark.parametrize("k", [1, 4])
def test_non_doubles_are_the_k_best_legal_plays(positions, k):
    """Every non-double of every position: the same plays as pubeval's k best of legal_plays',
    including the one-die fallbacks (the higher die first) and passes."""
    kids, group = luck_plays("backgammon", positions, k)
    assert (np.diff(group) >= 0).all() and len(np.unique(group)) == len(positions) * len(ALL_ROLLS)
    ours, truth = _sets(kids, group), _reference(positions, k)
    non_doubles = [g for g in truth if not DOUBLE[g % len(ALL_ROLLS)]]
    assert [g for g in non_doubles if ours[g] != truth[g]] == []
    blocked = len(positions) - 2  # _blocked(): every roll passes
    for r in range(len(ALL_ROLLS)):
        assert ours[blocked * len(ALL_ROLLS) + r] == {positions[blocked].tobytes()}


def test_doubles_with_a_wide_beam_are_exact_and_the_default_beam_finds_the_best(positions):
    """A beam wider than any position's partial plays makes the doubles exact too; the default beam
    of 6 finds pubeval's best play of most doubles (the luck only needs a function of the roll)."""
    truth = _reference(positions, 4)
    doubles = [g for g in truth if DOUBLE[g % len(ALL_ROLLS)]]
    wide = _sets(*luck_plays("backgammon", positions, 4, beam=10_000))
    assert [g for g in doubles if wide[g] != truth[g]] == []
    best = _sets(*luck_plays("backgammon", positions, 1, beam=10_000))
    kids, group = luck_plays("backgammon", positions, 4)
    found = _sets(kids, group)
    assert np.mean([best[g] <= found[g] for g in doubles]) > 0.85


@pytest.mark.parametrize("compiled", [False, True])
def test_distinct_rows_finds_each_position_once(positions, compiled):
    """The rollout's network sees each distinct child once: rows rebuilt from (first, inverse),
    as many as np.unique finds, each first where it first occurs, in that order; with groups, the same
    row in two groups is two rows. The hash table of model/search/distinct_numba.py gives the numpy
    code's answer exactly."""
    from engine.compiled import use_numba
    from model.search import trials
    from model.search.trials import distinct_rows

    if compiled:
        pytest.importorskip("numba")
    rows = np.concatenate([positions, positions[::3], positions[5:9]])
    group = np.arange(len(rows)) % 2
    previous = use_numba(compiled)
    try:
        assert (trials._distinct_kernel() is not None) == compiled
        first, inverse = distinct_rows(rows)
        first_g, inverse_g = distinct_rows(rows, group)
        use_numba(not compiled)
        other = distinct_rows(rows), distinct_rows(rows, group)
    finally:
        use_numba(previous)
    np.testing.assert_array_equal(rows[first][inverse], rows)
    assert len(first) == len(np.unique(rows, axis=0))
    assert all(not (rows[:i] == rows[i]).all(axis=1).any() for i in first)
    assert (np.diff(first) > 0).all()  # in the order they occur
    np.testing.assert_array_equal(rows[first_g][inverse_g], rows)
    np.testing.assert_array_equal(group[first_g][inverse_g], group)
    both = np.concatenate([rows, group[:, None].astype(np.int8)], axis=1)
    assert len(first_g) == len(np.unique(both, axis=0)) > len(np.unique(rows, axis=0))
    for (a, b), (c, d) in zip(other, [(first, inverse), (first_g, inverse_g)]):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
