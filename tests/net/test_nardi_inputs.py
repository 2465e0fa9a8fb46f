"""Long-nardi inputs (nardi feature version 2) on hand-drawn positions."""

import numpy as np
import pytest

from engine.board import flip, has_contact, start_position, validate
from engine.tools.sample import random_positions
from model.net.features import FEATURE_VERSION, encode, num_features
from model.net.nardi_inputs import CONTACT, HALF, RACE_LEAD, nardi_index


def nardi(mine: dict, theirs: dict, off=(0, 0)) -> np.ndarray:
    """A long-nardi position, the mover's view: {point: checkers} for each side, both in the mover's
    numbers, and the checkers each side has borne off."""
    pos = np.zeros(28, dtype=np.int8)
    for point, n in mine.items():
        pos[point - 1] = n
    for point, n in theirs.items():
        pos[point - 1] = -n
    pos[26], pos[27] = off
    validate("nardi", pos)
    return pos


def features(pos: np.ndarray, side: int = 0) -> dict:
    """{name: value} of one side's features of one position."""
    x = encode("nardi", pos[None], 2)[0]
    names = ("off", "any_off", "all_home", "head", "head_any", "pips", "home_pips", "outside", "unpassed",
             "in_their_home", "held", "home_held", "block", "prime", "front_block", "back_point",
             "back_escapes", "back_moves", "contain", "stuck", "playable")
    return {n: float(x[nardi_index(n, side)]) for n in names}


def test_start_position():
    """Everything on the head; 6-6 is the one roll the opponent's head (12 pips ahead) stops."""
    pos = start_position("nardi")
    x = encode("nardi", pos[None], 2)[0]
    assert x.shape == (num_features("nardi", 2),)
    for side in (0, 1):
        f = features(pos, side)
        assert f["head"] == 1 and f["head_any"] == 1 and f["unpassed"] == 1 and f["outside"] == 1
        assert f["pips"] == pytest.approx(360 / 200) and f["home_pips"] == pytest.approx(15 * 18 / 200)
        assert f["back_escapes"] == pytest.approx(35 / 36) and f["back_moves"] == 1
        assert f["block"] == pytest.approx(1 / 6) and f["any_off"] == 0 and f["playable"] == 1
    np.testing.assert_allclose(x[23 * 4 : 24 * 4], [1, 1, 1, 3])  # 15 on the 24-point
    assert x[RACE_LEAD] == 0 and x[CONTACT] == 1


def test_block_follows_the_opponents_way():
    """On the opponent's way the mover's 1 and 24 are neighbours, its 13 and 12 are not."""
    theirs = {5: 15}  # past everything below: a six-block is legal
    wrap = features(nardi({1: 3, 2: 2, 3: 2, 22: 2, 23: 2, 24: 4}, theirs))
    assert wrap["block"] == 1 and wrap["prime"] == 1
    across = features(nardi({10: 3, 11: 2, 12: 2, 13: 2, 14: 2, 15: 4}, {20: 15}))
    assert across["block"] == pytest.approx(3 / 6) and across["prime"] == 0


def test_escapes_of_the_rearmost_checker():
    """A checker on 20 behind one closed point 6 ahead: only 6-6 and the rolls summing to 6 (5-1, 4-2,
    3-3) fail to carry it the whole roll; only 6-6 leaves it unable to move."""
    pos = nardi({20: 1, 1: 14}, {14: 15})
    f = features(pos)
    assert f["back_point"] == pytest.approx(20 / 24)
    assert f["back_escapes"] == pytest.approx(30 / 36) and f["back_moves"] == pytest.approx(35 / 36)
    assert f["contain"] == pytest.approx((1 - 30 / 36) / 15) and f["stuck"] == 0
    # six closed points straight ahead: no roll moves it
    walled = nardi({20: 1, 1: 14}, {19: 3, 18: 2, 17: 2, 16: 2, 15: 2, 14: 4})
    f = features(walled)
    assert f["back_escapes"] == 0 and f["back_moves"] == 0 and f["stuck"] == pytest.approx(1 / 15)
    assert f["contain"] == pytest.approx(1 / 15)


def test_a_side_with_no_die_to_play():
    """Checkers on 7 facing the opponent on all of 1..6: no die can be played and no roll moves them."""
    pos = nardi({7: 15}, {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 4})
    f = features(pos)
    assert f["playable"] == 0 and f["stuck"] == 1 and f["contain"] == 1 and f["all_home"] == 0
    assert features(pos, side=1)["all_home"] == 0  # their 13..18: not their home


def test_home_off_and_the_mars_race():
    """Borne-off counts, whether any is off (a mars if none), and the pips still to come home."""
    pos = nardi({1: 5, 2: 5, 3: 2}, {13: 10, 20: 5}, off=(3, 0))
    me, them = features(pos), features(pos, side=1)
    assert me["off"] == pytest.approx(3 / 15) and me["any_off"] == 1 and me["all_home"] == 1
    assert me["home_pips"] == 0 and me["outside"] == 0 and me["home_held"] == pytest.approx(3 / 6)
    # theirs in their own numbers: 10 on 1 (our 13), 5 on 8 (our 20)
    assert them["any_off"] == 0 and them["all_home"] == 0 and them["home_pips"] == pytest.approx(5 * 2 / 200)
    assert them["outside"] == pytest.approx(5 / 15) and them["pips"] == pytest.approx((10 + 40) / 200)
    x = encode("nardi", pos[None], 2)[0]
    assert x[RACE_LEAD] == pytest.approx((5 + 10 + 6 - 50) / 50) and x[CONTACT] == 0


def test_unpassed_and_front_block():
    """Checkers not past the opponent's head (our 13..24), those in its home (13..18), and our points
    among the six ahead of its rearmost checker."""
    pos = nardi({24: 5, 16: 2, 11: 2, 10: 2, 9: 2, 3: 2}, {12: 13, 1: 2})
    f = features(pos)
    assert f["unpassed"] == pytest.approx(7 / 15) and f["in_their_home"] == pytest.approx(2 / 15)
    assert f["front_block"] == pytest.approx(3 / 6) and f["head"] == pytest.approx(5 / 15)


def test_flipping_swaps_the_halves_and_version_2_is_the_default():
    """The halves of a flipped position are the original's swapped; version 2 is the default (the
    shipped nardi net's), version 1 can still be asked for."""
    pos = random_positions("nardi", 300, seed=4)[0]
    a, b = encode("nardi", pos, 2), encode("nardi", flip("nardi", pos), 2)
    np.testing.assert_allclose(a[:, :HALF], b[:, HALF : 2 * HALF])
    np.testing.assert_allclose(a[:, RACE_LEAD], -b[:, RACE_LEAD], atol=1e-6)
    assert FEATURE_VERSION["nardi"] == 2
    np.testing.assert_array_equal(encode("nardi", pos), a)
    assert encode("nardi", pos, 1).shape == (300, 209) == (300, num_features("nardi", 1))


def test_contact_is_the_engines():
    """The contact input, computed from the features' bit masks, is board.has_contact's answer."""
    pos = random_positions("nardi", 400, seed=7)[0]
    race = nardi({1: 5, 2: 5, 3: 5}, {13: 10, 14: 5})  # passed each other
    blocked = nardi({1: 5, 2: 5, 20: 5}, {13: 10, 14: 5})  # ours on 20 still meets theirs on 14
    pos = np.concatenate([pos, race[None], blocked[None]])
    got = encode("nardi", pos, 2)[:, CONTACT]
    np.testing.assert_array_equal(got, has_contact("nardi", pos))
    assert got[-2] == 0 and got[-1] == 1 and 0 < got.mean() < 1
