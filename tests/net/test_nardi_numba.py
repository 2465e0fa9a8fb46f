"""The compiled long-nardi inputs (model/net/nardi_numba.py) give the numpy reference's numbers bit for bit.

The same positions go through model/net/nardi_inputs.py with the kernels off (the numpy code) and
on, and the float32 bits are compared: the full inputs, and the dense inputs of the table forward
pass with their counts, on seeded positions of every kind and their flips, on positions with each
side's checkers scattered anywhere (heads full and empty, checkers off, primes, stuck checkers), one
position at a time, and on hypothesis' positions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.board import OFF, OPP_OFF, flip, start_position
from engine.compiled import use_numba
from engine.tools.sample import KINDS, random_positions
from model.net import nardi_inputs as ni
from model.net.features import encode
from tests.helpers import numpy_then_kernels
from tests.net.test_encode_numba import assert_same_bits
from tests.strategies import FUZZ, positions

pytest.importorskip("numba")


def both_paths(f, *args):
    return numpy_then_kernels(ni._kernels, f, *args)


def all_encodings(pos: np.ndarray):
    return (ni.nardi_inputs(pos), *ni.dense_inputs(pos), encode("nardi", pos))


def scattered(n: int, seed: int) -> np.ndarray:
    """``n`` long-nardi positions (n, 28) int8, each side's 15 checkers thrown on random points (one
    the other side holds sends the checker off instead), some games near their end; piles of up to
    15 on a point, most not reachable in play."""
    rng = np.random.default_rng(seed)
    pos = np.zeros((n, 28), dtype=np.int16)
    for side, off in ((1, OFF), (-1, OPP_OFF)):
        reach = 24 + rng.integers(0, 10, size=(n, 1))
        pile = rng.random((n, 1)) < 0.2  # a fifth of the rows: most checkers on few points
        places = np.where(pile, rng.integers(0, 4, size=(n, 15)) * 6 + 5, rng.integers(0, reach, size=(n, 15)))
        rows = np.arange(n)
        for c in range(15):
            place = places[:, c]
            point = np.minimum(place, 23)
            free = (place < 24) & (pos[rows, point] * side >= 0)
            pos[rows[free], point[free]] += side
            pos[rows[~free], off] += 1
    return pos.astype(np.int8)


@pytest.mark.parametrize("kind", KINDS["nardi"])
def test_every_kind_of_position_and_its_flip_gives_the_same_bits(kind):
    pos, _ = random_positions("nardi", 600, seed=17, kind=kind)
    pos = np.concatenate([pos, flip("nardi", pos)])
    assert_same_bits(*both_paths(all_encodings, pos))


def test_scattered_checkers_give_the_same_bits():
    pos = scattered(6000, seed=5)
    assert (pos[:, OFF] > 0).any() and (np.abs(pos[:, :24]) > 5).any() and (pos[:, 23] == 0).any()
    pos = np.concatenate([pos, random_positions("nardi", 300, seed=3, kind="bearoff")[0]])
    reference, compiled = both_paths(all_encodings, pos)
    assert_same_bits(reference, compiled)
    features = reference[2]  # every feature takes more than one value here
    k = len(ni.FEATURE_NAMES)
    assert all(len(np.unique(features[:, c])) > 1 for c in range(2 * k + 2))


def test_one_position_at_a_time_the_start_and_an_empty_batch():
    pos = np.concatenate([scattered(40, seed=6), start_position("nardi", batch=1)])
    reference, _ = both_paths(all_encodings, pos)
    for i in range(0, len(pos), 5):
        assert_same_bits(tuple(x[i : i + 1] for x in reference), both_paths(all_encodings, pos[i : i + 1])[1])
    reference, compiled = both_paths(all_encodings, pos[:0])
    assert all(x.shape[0] == 0 for x in compiled)
    assert_same_bits(reference, compiled)


def test_a_point_with_too_many_checkers_is_refused():
    pos = start_position("nardi", batch=1)
    pos[0, 23] = 16
    previous = use_numba(True)
    try:
        with pytest.raises(ValueError, match="more than 15"):
            ni.nardi_inputs(pos)
    finally:
        use_numba(previous)


@FUZZ
@given(st.lists(positions("nardi"), min_size=1, max_size=32))
def test_hypothesis_positions_give_the_same_bits(drawn):
    assert_same_bits(*both_paths(all_encodings, np.stack(drawn)))
