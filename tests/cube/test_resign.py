"""Resignations (model/cube/resign.py): offer what is lost anyway, accept what beats playing on."""

import numpy as np
import pytest

from model.cube import decisions as C
from model.cube import resign as R
from model.net.equity import flip_probs


def _probs(win, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([win, wg, wbg, lg, lbg])


SURE_SINGLE_LOSS = _probs(0.0)
SURE_GAMMON_LOSS = _probs(0.0, lg=1.0)
SURE_BACKGAMMON_LOSS = _probs(0.0, lg=1.0, lbg=1.0)


def test_offers_what_is_lost_anyway():
    """A sure single, gammon or backgammon loss offers exactly that level (money, cube turned)."""
    st = C.money(owner=C.ME, value=2)
    got = R.resignation_offer(np.stack([SURE_SINGLE_LOSS, SURE_GAMMON_LOSS, SURE_BACKGAMMON_LOSS]), st)
    assert list(got) == [R.SINGLE, R.GAMMON, R.BACKGAMMON]


def test_no_offer_with_chances_left():
    """Real winning chances, or a gammon lost only half the time, offer nothing."""
    st = C.money(jacoby=False)
    assert R.resignation_offer(_probs(0.02), st) == R.NONE
    assert R.resignation_offer(_probs(0.0, lg=0.5), st) == R.NONE


def test_jacoby_makes_a_gammon_loss_a_single():
    """Under the Jacoby rule with a centred cube a gammon counts one: a sure gammon loss resigns a single."""
    assert R.resignation_offer(SURE_GAMMON_LOSS, C.money(jacoby=True)) == R.SINGLE
    assert R.resignation_offer(SURE_GAMMON_LOSS, C.money(jacoby=False)) == R.GAMMON


def test_match_loss_that_ends_the_match_resigns_single():
    """When losing a single already loses the match, a sure gammon loss offers a single."""
    assert R.resignation_offer(SURE_GAMMON_LOSS, C.match(5, 0, 4)) == R.SINGLE
    assert R.resignation_offer(SURE_GAMMON_LOSS, C.match(7, 0, 0)) == R.GAMMON


def test_accepts_only_offers_worth_playing_for():
    """The winner accepts a gammon when it wins one for sure, refuses a single then, and accepts a single
    when it has no gammon chances; cubeful, a single is refused only when gammons make playing on
    worth more."""
    st = C.money(jacoby=False)
    sure_gammon_win = flip_probs("backgammon", SURE_GAMMON_LOSS)
    assert R.accept_resignation(sure_gammon_win, R.GAMMON, st)
    assert not R.accept_resignation(sure_gammon_win, R.SINGLE, st)
    assert R.accept_resignation(_probs(1.0), R.SINGLE, st)
    assert R.accept_resignation(_probs(0.7), R.SINGLE, st, x=0.68)  # +1 beats playing on at 70%
    assert not R.accept_resignation(_probs(0.95, 0.5), R.SINGLE, st, x=0.68)  # gammons: play on


def test_crawford_leader_accepts_a_single_despite_gammons():
    """At 1-away a gammon is worth no more than a single: the leader takes the single resignation."""
    leader = C.match(5, 4, 0)
    assert R.accept_resignation(_probs(0.9, 0.6), R.SINGLE, leader)
    assert not R.accept_resignation(_probs(0.9, 0.6), R.SINGLE, C.match(7, 0, 0))


def test_bad_level_refused():
    """Only levels 1, 2 and 3 exist."""
    with pytest.raises(ValueError, match="1, 2 or 3"):
        R.resignation_value(4, C.money())
