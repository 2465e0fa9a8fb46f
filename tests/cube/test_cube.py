"""Cube decisions, cubeful equity and MWC (model/cube/decisions.py), against gnubg 1.07's answers and by hand."""

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from model.cube import decisions as C
from model.net.equity import flip_probs

CASES = Path(__file__).resolve().parents[1] / "data" / "gnubg_cube_cases.json"
STATE_LEN = 9  # match_length, score_me, score_opp, crawford, cube, owner, jacoby, beavers, move
TIE, EQ_TOL = 1e-6, 1e-5


def _state(case):
    length, s_me, s_opp, crawford, cube, owner, jacoby, beavers, _move = case[:STATE_LEN]
    owner = C.OWNERS[owner]
    if length == 0:
        return C.CubeState(value=cube, owner=owner, jacoby=bool(jacoby), beavers=bool(beavers))
    return C.CubeState(value=cube, owner=owner, match_length=length, score_me=s_me, score_opp=s_opp,
                       crawford=bool(crawford), jacoby=False, beavers=False)


@pytest.fixture(scope="module")
def reference():
    """gnubg's answers grouped by cube state: {state: (boards, probs, classes, answers)}."""
    data = json.loads(CASES.read_text())
    groups = defaultdict(list)
    for pos in data["positions"]:
        for case in pos["cases"]:
            groups[tuple(case[: STATE_LEN - 1])].append((pos["board"], pos["probs"], pos["class"],
                                                         case[STATE_LEN:]))
    return {key: [np.array(col) for col in zip(*rows)] for key, rows in groups.items()}


def _agreement(reference, want_bearoff2: bool):
    agree = total = 0
    worst = 0.0
    for key, (boards, probs, classes, answers) in reference.items():
        keep = (classes == C.CLASS_BEAROFF2) == want_bearoff2
        if not keep.any():
            continue
        d = C.cube_decision(probs[keep], C.cube_efficiency(boards[keep]), _state(key + (0,)))
        ours = np.stack([d.no_double, d.double_take, d.double_pass], axis=-1)
        theirs = answers[keep][:, 1:4]
        err = np.abs(ours - theirs).max(axis=-1)
        gaps = np.abs(theirs[:, [0, 1, 0]] - theirs[:, [1, 2, 2]]).min(axis=-1)
        ok = (d.code == answers[keep][:, 4]) | ((gaps <= TIE) & (err <= EQ_TOL))
        agree, total = agree + ok.sum(), total + keep.sum()
        worst = max(worst, float(err.max()))
    return agree, total, worst


def test_decisions_match_gnubg(reference):
    """Given gnubg's 0-ply probabilities, every money and match cube decision in the sample is gnubg's."""
    agree, total, worst = _agreement(reference, want_bearoff2=False)
    assert total > 3000
    assert agree == total
    assert worst < EQ_TOL  # no double, double/take and double/pass equities as gnubg's (float32)


def test_two_sided_bearoffs_mostly_match(reference):
    """In two-sided bear-offs gnubg reads exact equities from its database; Janowski still agrees mostly."""
    agree, total, _ = _agreement(reference, want_bearoff2=True)
    assert total > 100
    assert agree / total > 0.9


def test_position_classes_and_cubeless_equity_match_gnubg():
    """Our position class is gnubg's classifypos, and the cubeless match equity is gnubg's, on every case."""
    data = json.loads(CASES.read_text())
    boards = np.array([p["board"] for p in data["positions"]], dtype=np.int8)
    assert np.array_equal(C.position_class(boards), [p["class"] for p in data["positions"]])
    for pos in data["positions"][:60]:
        for case in pos["cases"]:
            st = _state(case)
            if not st.is_money:
                ours = C.match_cubeless_equity(np.array(pos["probs"]), st)
                assert ours == pytest.approx(case[-1], abs=1e-5)


def test_cube_efficiency_by_class():
    """x = 0.68 in contact, 0.55 + 0.00125 x pips (0.6..0.7) in races, 0.6 in bear-offs."""
    start = np.zeros(28, dtype=np.int8)
    start[[23, 12, 7, 5]] = [2, 5, 3, 5]
    start[[0, 11, 16, 18]] = [-2, -5, -3, -5]
    race = np.zeros(28, dtype=np.int8)
    race[[9, 10]] = [8, 7]  # 10-point and 11-point: 150 pips
    race[[20, 21]] = [-8, -7]
    bearoff = np.zeros(28, dtype=np.int8)
    bearoff[[0, 1]] = [3, 2]
    bearoff[[22, 23]] = [-3, -2]
    bearoff[[26, 27]] = [10, 10]
    cls = C.position_class(np.stack([start, race, bearoff]))
    assert list(cls) == [C.CLASS_CONTACT, C.CLASS_RACE, C.CLASS_BEAROFF2]
    assert np.allclose(C.cube_efficiency(np.stack([start, race, bearoff])), [0.68, 0.7, 0.6])
    assert np.allclose(C.race_efficiency([20, 60, 100, 200]), [0.6, 0.625, 0.675, 0.7])


def _probs(win, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([win, wg, wbg, lg, lbg])


def test_janowski_points_gammonless():
    """No gammons, fully live centred cube (x = 1, no Jacoby): -1 at the take point 0.2, +1 at the cash
    point 0.8; x = 0 is the cubeless equity."""
    st = C.money(jacoby=False)
    assert C.money_cubeful_equity(_probs(0.2), 1.0, st) == pytest.approx(-1.0)
    assert C.money_cubeful_equity(_probs(0.8), 1.0, st) == pytest.approx(1.0)
    assert C.money_cubeful_equity(_probs(0.6, 0.1), 0.0, st) == pytest.approx(0.3)


def test_jacoby_ignores_gammons_on_a_centred_cube():
    """With Jacoby and a centred cube gammons do not count; once the cube is owned they do."""
    p = _probs(0.6, 0.3, 0.0, 0.1)
    assert C.money_cubeless_equity(p, C.money()) == pytest.approx(0.2)
    assert C.money_cubeless_equity(p, C.money(jacoby=False)) == pytest.approx(0.4)
    assert C.money_cubeless_equity(p, C.money(owner=C.ME, value=2)) == pytest.approx(0.4)


def test_money_decisions_by_hand():
    """Money: a weak position is no double, a strong one double/take, a near-sure win double/pass, or too
    good with gammons (not under Jacoby); an opponent's cube cannot be turned."""
    st, x = C.money(beavers=False), 0.68
    weak, strong = _probs(0.55), _probs(0.74)
    assert C.cube_decision(weak, x, st).code == C.NODOUBLE_TAKE
    d = C.cube_decision(strong, x, st)
    assert d.code == C.DOUBLE_TAKE and d.double and d.response == C.TAKE
    assert C.cube_decision(_probs(0.9), x, st).code == C.DOUBLE_PASS  # no gammons: cash
    gammonish = _probs(0.9, 0.6)
    assert C.cube_decision(gammonish, x, st).code == C.DOUBLE_PASS  # Jacoby: gammons need a turned cube
    assert C.cube_decision(gammonish, x, C.money(jacoby=False)).code == C.TOOGOOD_PASS
    theirs = C.cube_decision(strong, x, C.money(owner=C.OPPONENT, value=2))
    assert theirs.code == C.NOT_AVAILABLE and not theirs.double


def test_beaver_and_take_decision():
    """The taker beavers a double he is the favourite in; take_decision gives the same from his side."""
    st = C.money(beavers=True)
    d = C.cube_decision(_probs(0.4), 0.68, st)
    assert d.response == C.BEAVER and d.code == C.NODOUBLE_BEAVER
    taker = flip_probs("backgammon", _probs(0.4))
    assert C.take_decision(taker, 0.68, st) == C.BEAVER
    assert C.take_decision(flip_probs("backgammon", _probs(0.9)), 0.68, st) == C.PASS


def test_batches_keep_their_shape():
    """Probabilities (4, 3, 5) give decisions and values of shape (4, 3), equal to one-at-a-time."""
    rng = np.random.default_rng(0)
    win = rng.uniform(0.05, 0.95, (4, 3))
    probs = np.stack([win, win * 0.3, win * 0.02, (1 - win) * 0.25, (1 - win) * 0.01], axis=-1)
    for st in (C.money(), C.match(7, 2, 4)):
        d = C.cube_decision(probs, 0.68, st)
        assert d.code.shape == (4, 3) and d.no_double.shape == (4, 3)
        one = C.cube_decision(probs[2, 1], 0.68, st)
        assert one.code == d.code[2, 1] and one.no_double == pytest.approx(d.no_double[2, 1])


def test_crawford_post_crawford_and_dead_cubes():
    """No cube in the Crawford game, for the post-Crawford leader, for a dead cube or a 1-point match;
    the post-Crawford trailer may double."""
    p = _probs(0.6, 0.2)
    assert C.cube_decision(p, 0.68, C.match(5, 4, 2)).code == C.NODOUBLE_DEADCUBE  # Crawford game
    assert C.cube_decision(p, 0.68, C.match(5, 4, 2, crawford=False)).code == C.NODOUBLE_DEADCUBE
    assert C.double_available(C.match(5, 2, 4, crawford=False))
    assert C.cube_decision(p, 0.68, C.match(5, 2, 4, crawford=False)).code in (C.DOUBLE_TAKE, C.DOUBLE_PASS)
    assert C.cube_is_dead(C.match(5, 3, 3)) and not C.cube_is_dead(C.match(5, 2, 3))
    one = C.match(1)
    assert C.cube_is_dead(one) and not C.double_available(one)
    assert C.match_cubeful_mwc(_probs(0.6, 0.3, 0.1, 0.2), 0.68, one) == pytest.approx(0.6)


def test_gammon_prices_and_mwc_conversions():
    """Gammons are worth nothing to a Crawford leader; eq2mwc and mwc2eq invert each other."""
    st = C.match(5, 4, 1)  # I am 1-away in the Crawford game
    g_me, g_opp, b_me, _b_opp = C.gammon_prices(st)
    assert g_me == 0 and b_me == 0 and g_opp > 0
    s = C.match(7, 1, 3)
    for e in (-1.0, -0.3, 0.0, 0.8, 1.0):
        assert C.mwc2eq(C.eq2mwc(e, s), s) == pytest.approx(e)
    assert C.eq2mwc(1.0, s) == pytest.approx(C.result_mwc(s, 1))
    assert C.money_cubeless_equity(_probs(0.5, 0.2), C.money(jacoby=False)) == pytest.approx(0.2)


def test_free_redouble():
    """The taker's redouble is free when a doubled win already ends the match for me but not for him."""
    assert C.cube_prime(2, 5, 1) == 2
    assert C.cube_prime(5, 5, 1) == 1
    assert C.cube_prime(5, 2, 1) == 1


def test_checker_play_at_a_match_score_maximises_mwc():
    """A Crawford leader prefers the safer play over the gammonish one money play would choose."""
    gammonish, safe = _probs(0.6, 0.3), _probs(0.65)
    money = C.checker_play_value(np.stack([gammonish, safe]), C.money(jacoby=False))
    assert np.argmax(money) == 0
    leader = C.match(5, 4, 0)
    assert np.argmax(C.checker_play_value(np.stack([gammonish, safe]), leader)) == 1
    cubeful = C.checker_play_value(np.stack([gammonish, safe]), C.match(7, 2, 2), x=0.68)
    assert np.all((cubeful > 0) & (cubeful < 1))


def test_cube_state_validation():
    """Impossible cube states are refused with a clear error."""
    for bad in ({"value": 3}, {"owner": "nobody"}, {"match_length": 5, "score_me": 5}, {"score_me": 1},
                {"match_length": 5, "score_me": 1, "crawford": True}):
        with pytest.raises(ValueError):
            C.CubeState(**bad)
