"""The compiled luck's plays (model/search/top_plays_numba.py) are model/search/top_plays.py's, bit for bit.

``luck_plays`` with the kernel off (the numpy reference) and on must return the same children and
groups, row for row: rollouts are seeded, and their figures must not depend on which path ran. Ties
decide which play of a score is kept, so the comparison runs on many positions: seeded positions of
every kind, positions with the checkers scattered anywhere (bars, blots, checkers off), single
positions, positions where nothing moves, and bear-offs where the last checker off wins.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import BAR, CHECKERS, OFF, OPP_BAR, OPP_OFF, start_position
from engine.tools.sample import KINDS, random_positions
from model.search import top_plays
from model.search.top_plays import KERNEL_WIDTH, WIN, luck_plays, scores
from tests.helpers import bearoff, numpy_then_kernels
from tests.net.test_encode_numba import scattered

pytest.importorskip("numba")

WIDTHS = [(k, beam) for k in (1, 2, 4, 8) for beam in (2, 6)]


def assert_same(positions, k, beam=6):
    """Both paths' (children, group) of ``positions``: equal arrays, dtypes and all; the rows."""
    reference, compiled = numpy_then_kernels(top_plays._kernel, luck_plays, "backgammon", positions, k, beam)
    for ours, theirs in zip(compiled, reference):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert np.array_equal(ours, theirs), (k, beam)
    return reference


def _blocked(bar: int) -> np.ndarray:
    """``bar`` checkers on the bar against a closed board: no roll moves a checker."""
    pos = np.zeros(28, dtype=np.int8)
    pos[18:24] = -2  # the opponent holds our points 19..24
    pos[BAR], pos[5], pos[OFF] = bar, 15 - bar, 0
    pos[OPP_OFF] = 3
    return pos


@pytest.mark.parametrize("kind", KINDS["backgammon"])
def test_every_kind(kind):
    """Seeded positions of every kind, every k and beam of the tests below."""
    positions, _ = random_positions("backgammon", 300, seed=40 + KINDS["backgammon"].index(kind), kind=kind)
    for k, beam in WIDTHS:
        assert_same(positions, k, beam)


@pytest.mark.parametrize("seed", [1, 2])
def test_scattered_positions(seed):
    """Checkers anywhere: both bars, blots to hit, checkers off, bear-offs from odd points."""
    positions = scattered(1200, seed)
    for k, beam in WIDTHS:
        assert_same(positions, k, beam)


def test_single_positions():
    """A batch of one: the start, and the first position of each kind."""
    singles = [start_position("backgammon")] + [random_positions("backgammon", 1, seed=7, kind=kind)[0][0]
                                                  for kind in KINDS["backgammon"]]
    for pos in singles:
        for k, beam in [(1, 2), (4, 6), (8, 2)]:
            _, group = assert_same(pos[None], k, beam)
            np.testing.assert_array_equal(np.unique(group), np.arange(21))  # every roll, at least one play


def test_nothing_moves():
    """On the bar against a closed board every roll passes: the position itself, once a roll; and
    beside positions that move, the groups stay in place."""
    blocked = np.stack([_blocked(1), _blocked(2), _blocked(4)])
    children, group = assert_same(blocked, 4)
    np.testing.assert_array_equal(group, np.arange(3 * 21))
    np.testing.assert_array_equal(children, np.repeat(blocked, 21, axis=0))
    opened = blocked.copy()
    opened[:, 18] = -1  # a blot on the 19-point: a 6 enters (and hits), nothing else does
    mixed = np.concatenate([opened[:1], blocked[:1], opened[1:], random_positions("backgammon", 5, seed=3)[0]])
    for k, beam in WIDTHS:
        assert_same(mixed, k, beam)


def test_bear_offs():
    """Bear-offs: the higher die from the highest point, the last checker off scoring WIN."""
    rng = np.random.default_rng(11)
    positions = []
    for _ in range(300):
        mine = rng.multinomial(rng.integers(1, 16), np.ones(6) / 6)
        theirs = rng.multinomial(rng.integers(1, 16), np.ones(6) / 6)
        positions.append(bearoff(mine, theirs))
    last = bearoff([0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 5])
    two = bearoff([1, 0, 0, 0, 1, 0], [2, 0, 0, 0, 0, 5])
    positions = np.stack(positions + [last, two])
    for k, beam in WIDTHS:
        assert_same(positions, k, beam)
    children, group = assert_same(last[None], 4)  # one checker on the 3-point: every roll bears it off
    np.testing.assert_array_equal(group, np.arange(21))
    assert (children[:, OFF] == CHECKERS).all()
    assert (scores(children, np.zeros(21, dtype=bool)) == WIN).all()


def test_wide_and_odd_inputs():
    """The widest k and beam the kernel takes (groups of more than 62 candidates included), an
    empty batch, and positions given as another integer type: the same as the numpy code's."""
    positions = np.concatenate([scattered(60, 9), random_positions("backgammon", 40, seed=9, kind="race")[0]])
    assert_same(positions, KERNEL_WIDTH, KERNEL_WIDTH)
    assert_same(positions, 3, KERNEL_WIDTH)
    assert_same(np.zeros((0, 28), dtype=np.int8), 4)
    assert_same(positions[:20].astype(np.int64), 4)
    crowded = positions[:20].copy()
    crowded[:, OPP_BAR] += 1  # an opponent's checker on the bar: contact, and hits scored beside it
    assert_same(crowded, 4)
