"""The compiled position classes, cube efficiency and money checker-play values (model/cube/cube_numba.py)
give model/cube/decisions.py's numpy numbers bit for bit: on seeded positions of every kind and on
scattered ones (every class occurs), and on probabilities drawn at random, at the dead-cube edges and
on each side of the take and cash points, for every cube owner, with and without the Jacoby rule."""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import CHECKERS, OFF, OPP_OFF, flip
from engine.tools.sample import KINDS, random_positions
from model.cube import decisions as cube
from tests.helpers import numpy_then_kernels
from tests.net.test_encode_numba import scattered

numba = pytest.importorskip("numba")
from model.cube import cube_numba  # only where numba is installed (above)


def both_paths(f, *args):
    return numpy_then_kernels(cube._kernels, f, *args)


def positions() -> np.ndarray:
    """Seeded positions of every kind, scattered ones, and finished ones (a side with no checkers left)."""
    parts = [random_positions("backgammon", 400, seed=21 + i, kind=kind)[0] for i, kind in enumerate(KINDS["backgammon"])]
    over = random_positions("backgammon", 20, seed=2, kind="bearoff")[0].copy()
    over[:10, :24] = np.minimum(over[:10, :24], 0)  # the mover has borne off everything
    over[:10, OFF] = CHECKERS
    over[10:, :24] = np.maximum(over[10:, :24], 0)  # the opponent has
    over[10:, OPP_OFF] = CHECKERS
    return np.concatenate(parts + [scattered(4000, seed=3), over])


def test_the_class_codes_are_decisions_ones():
    assert (cube_numba._OVER, cube_numba._BEAROFF2, cube_numba._BEAROFF1, cube_numba._RACE, cube_numba._CRASHED,
            cube_numba._CONTACT) == (cube.CLASS_OVER, cube.CLASS_BEAROFF2, cube.CLASS_BEAROFF1, cube.CLASS_RACE,
                                     cube.CLASS_CRASHED, cube.CLASS_CONTACT)


def test_classes_and_efficiency_are_the_same():
    pos = positions()
    reference, compiled = both_paths(lambda p: (cube.position_class(p), cube.cube_efficiency(p)), pos)
    assert np.array_equal(reference[0], compiled[0])
    assert reference[1].tobytes() == compiled[1].tobytes()
    assert set(np.unique(reference[0])) == {cube.CLASS_OVER, cube.CLASS_BEAROFF2, cube.CLASS_BEAROFF1,
                                            cube.CLASS_RACE, cube.CLASS_CRASHED, cube.CLASS_CONTACT}
    one = both_paths(cube.cube_efficiency, pos[5])  # a single position, not a batch
    assert one[0].tobytes() == one[1].tobytes()


def probabilities(n: int, seed: int) -> np.ndarray:
    """(n, 5) consistent cumulative probabilities, a tenth of them at or near P(win) 0 or 1."""
    rng = np.random.default_rng(seed)
    win = rng.random(n)
    win[: n // 20] = rng.choice([0.0, 1.0, 1e-8, 1 - 1e-8, 2e-7, 1 - 2e-7], n // 20)
    wg = win * rng.random(n) * rng.choice([0.0, 1.0], n, p=[0.2, 0.8])
    lg = (1 - win) * rng.random(n) * rng.choice([0.0, 1.0], n, p=[0.2, 0.8])
    return np.stack([win, wg, wg * rng.random(n) * 0.3, lg, lg * rng.random(n) * 0.3], axis=1)


@pytest.mark.parametrize("owner", [cube.CENTRED, cube.ME, cube.OPPONENT])
@pytest.mark.parametrize("jacoby", [True, False])
def test_money_checker_values_are_the_same(owner, jacoby):
    probs = probabilities(20000, seed=len(owner) + jacoby)
    x = np.random.default_rng(4).choice([0.0, 0.6, 0.68, 0.655, 1.0], len(probs))
    state = cube.money(owner=owner, value=2 if owner != cube.CENTRED else 1, jacoby=jacoby)
    reference, compiled = both_paths(cube.checker_play_value, probs, state, x)
    assert reference.tobytes() == compiled.tobytes()
    scalar = both_paths(cube.checker_play_value, probs[:50], state, 0.68)  # one efficiency for all
    assert scalar[0].tobytes() == scalar[1].tobytes()


def test_match_play_stays_on_the_numpy_code():
    probs = probabilities(100, seed=7)
    state = cube.match(5, 2, 3)
    reference, compiled = both_paths(cube.checker_play_value, probs, state, np.full(100, 0.68))
    assert reference.tobytes() == compiled.tobytes()


@pytest.mark.parametrize("owner", [cube.CENTRED, cube.ME, cube.OPPONENT])
@pytest.mark.parametrize("jacoby", [True, False])
def test_play_values_find_each_plays_efficiency_as_the_numpy_code(owner, jacoby):
    """The fused kernel's values of plays (each at the efficiency of the position it leaves, seen by
    the opponent) are checker_play_value at cube_efficiency of the flipped positions, bit for bit, on
    positions of every class."""
    children = positions()
    probs = probabilities(len(children), seed=11 + jacoby)
    state = cube.money(owner=owner, value=2 if owner != cube.CENTRED else 1, jacoby=jacoby)
    reference, compiled = both_paths(cube.play_values, children, probs, state)
    assert reference.tobytes() == compiled.tobytes()
    x = cube.cube_efficiency(flip("backgammon", children))
    assert len(np.unique(x)) > 5  # races at several lengths, contact, bear-offs, finished games
    assert reference.tobytes() == cube.checker_play_value(probs, state, x).tobytes()
