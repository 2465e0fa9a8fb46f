"""The compiled network inputs (model/net/encode_numba.py) give the numpy reference's numbers bit for bit.

Every comparison runs the same positions through model/net/contact_inputs.py with the kernels off
(the numpy code) and on, and compares the float32 bits: the contact inputs with the race columns
(backgammon feature version 3), the dense inputs of the table forward pass with their counts, and the
race inputs (version 4), on seeded positions of every kind and their flips, on positions with the
checkers scattered anywhere (many blots, both bars, checkers off), and on hypothesis' positions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.board import BAR, OFF, OPP_BAR, OPP_OFF, flip, start_position
from engine.compiled import use_numba
from engine.tools.sample import KINDS, random_positions
from model.net import contact_inputs as ci
from model.net.features import encode
from tests.strategies import FUZZ, positions

pytest.importorskip("numba")


def scattered(n: int, seed: int) -> np.ndarray:
    """``n`` backgammon positions (n, 28) int8 with each side's 15 checkers thrown on random places:
    the 24 points (a point already taken by the other side sends the checker off instead), the bar,
    off; hits, bars, blots and bear-offs of every sort, most of them not reachable in play."""
    rng = np.random.default_rng(seed)
    pos = np.zeros((n, 28), dtype=np.int16)
    for side, bar, off in ((1, BAR, OFF), (-1, OPP_BAR, OPP_OFF)):
        places = rng.integers(0, 26 + rng.integers(0, 12, size=(n, 1)), size=(n, 15))  # some games near the end
        for c in range(15):
            place = places[:, c]
            rows = np.arange(n)
            point = np.minimum(place, 23)
            free = (place < 24) & (pos[rows, point] * side >= 0)
            pos[rows[free], point[free]] += side
            pos[rows[place == 24], bar] += 1
            pos[rows[(place > 24) | ((place < 24) & ~free)], off] += 1
    return pos.astype(np.int8)


def both_paths(f, *args):
    """``f(*args)`` with the numpy code, then with the kernels."""
    previous = use_numba(False)
    try:
        reference = f(*args)
        use_numba(True)
        assert ci._kernels() is not None, "the kernels did not load"
        compiled = f(*args)
    finally:
        use_numba(previous)
    return reference, compiled


def assert_same_bits(reference, compiled):
    for a, b in zip(reference if isinstance(reference, tuple) else (reference,),
                    compiled if isinstance(compiled, tuple) else (compiled,)):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == np.float32:
            a, b = a.view(np.uint32), b.view(np.uint32)
        different = np.argwhere(a != b)
        assert len(different) == 0, f"first differences at {different[:5].tolist()}"


def all_encodings(pos: np.ndarray):
    return (ci.contact_inputs(pos, race=True), ci.contact_inputs(pos), *ci.dense_inputs(pos), ci.race_inputs(pos),
            encode("backgammon", pos, 3), encode("backgammon", pos, 4))


@pytest.mark.parametrize("kind", KINDS["backgammon"])
def test_every_kind_of_position_and_its_flip_gives_the_same_bits(kind):
    """Seeded positions of each kind (opening, mid-game, contact, bar, bear-off, race) and the same
    positions seen by the other side: every encoding is identical."""
    pos, _ = random_positions("backgammon", 600, seed=11, kind=kind)
    pos = np.concatenate([pos, flip("backgammon", pos)])
    assert_same_bits(*both_paths(all_encodings, pos))


def test_scattered_checkers_give_the_same_bits():
    """Thousands of positions with checkers anywhere (both bars, blots everywhere, checkers off)."""
    pos = scattered(6000, seed=5)
    assert (pos[:, BAR] > 1).any() and (pos[:, OPP_BAR] > 0).any() and (pos[:, OFF] > 0).any()
    assert_same_bits(*both_paths(all_encodings, pos))


def test_one_position_at_a_time_and_odd_layouts_give_the_same_bits():
    """One position per call (what a hint does), a strided batch and an int16 copy: the same rows."""
    pos = scattered(64, seed=6)
    reference, _ = both_paths(all_encodings, pos)
    for i in range(0, 64, 7):
        assert_same_bits(tuple(x[i : i + 1] for x in reference), both_paths(all_encodings, pos[i : i + 1])[1])
    assert_same_bits(*both_paths(ci.contact_inputs, pos[::3]))
    assert_same_bits(both_paths(ci.contact_inputs, pos)[0], both_paths(ci.contact_inputs, pos.astype(np.int16))[1])


def test_the_start_and_an_empty_batch():
    start = start_position("backgammon", batch=1)
    assert_same_bits(*both_paths(all_encodings, start))
    empty = start[:0]
    reference, compiled = both_paths(all_encodings, empty)
    assert all(x.shape[0] == 0 for x in compiled)
    assert_same_bits(reference, compiled)


def test_out_is_written_in_place():
    """``contact_inputs(pos, out=...)`` fills the caller's array in both paths."""
    pos = scattered(16, seed=7)
    reference, compiled = np.zeros((16, 260), np.float32), np.zeros((16, 260), np.float32)
    previous = use_numba(False)
    try:
        ci.contact_inputs(pos, out=reference)
        use_numba(True)
        assert ci.contact_inputs(pos, out=compiled) is compiled
    finally:
        use_numba(previous)
    assert_same_bits(reference, compiled)
    wide = np.zeros((16, 253), np.float64)  # not float32: the numpy code writes it (its float32 values)
    assert_same_bits(both_paths(ci.contact_inputs, pos, wide)[1], reference[:, :253].astype(np.float64))


def test_a_side_with_too_many_checkers_is_refused():
    """The kernels read their tables by checker counts: a side with more than 15 is a ValueError,
    never a read outside a table."""
    pos = start_position("backgammon", batch=1)
    pos[0, 5] += 3
    previous = use_numba(True)
    try:
        with pytest.raises(ValueError, match="more than 15"):
            ci.contact_inputs(pos)
    finally:
        use_numba(previous)


@FUZZ
@given(st.lists(positions(), min_size=1, max_size=32))
def test_hypothesis_positions_give_the_same_bits(drawn):
    pos = np.stack(drawn)
    assert_same_bits(*both_paths(all_encodings, pos))
