"""The bear-off databases (model/net/bearoff.py, model/net/bearoff_two_sided.py) against the rules.

The one-sided tables are checked against a slow scalar recursion written here from the rules text
(RULES-DECISIONS.md, "Bearing off"), their plays against the engine's ``legal_plays`` in both games,
and a few values worked out by hand; the two-sided tables against their own recursion, recomputed
from ``legal_plays`` on a sample, and hand-solved last-roll cube decisions. The databases are built
once into a temporary cache folder ($NARDIBOT_CACHE_DIR), never the user's.
"""

from __future__ import annotations

import functools
import os
import warnings
from fractions import Fraction

import numpy as np
import pytest

from engine.board import OFF, OPP_OFF, has_contact
from engine.cube_state import CubeOwner
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS, legal_plays
from model.cube.decisions import DOUBLE_PASS, DOUBLE_TAKE, NODOUBLE_TAKE
from model.cube.exact_bearoff import exact_cube_decision
from model.net import bearoff as bo
from model.net import bearoff_two_sided as ts
from model.net.equity import OUTPUTS

GAMES = ("backgammon", "nardi")
ROLLS = [tuple(r) for r in ALL_ROLLS.tolist()]


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """A fresh cache folder for the whole module; the databases are built there once."""
    folder = tmp_path_factory.mktemp("bearoff-cache")
    old = os.environ.get(bo.CACHE_ENV)
    os.environ[bo.CACHE_ENV] = str(folder)
    yield folder
    if old is None:
        del os.environ[bo.CACHE_ENV]
    else:
        os.environ[bo.CACHE_ENV] = old


@pytest.fixture(scope="module")
def off(cache):
    return bo.one_sided()["off"]


@pytest.fixture(scope="module")
def first(cache):
    return bo.one_sided()["first"]


def position(game, mine=(), theirs=(), **extra):
    """A (28,) position: ``mine`` / ``theirs`` counts on each side's own points 1..6, the rest off."""
    pos = np.zeros(28, dtype=np.int8)
    for p, n in enumerate(mine, 1):
        pos[p - 1] = n
    for q, n in enumerate(theirs, 1):
        pos[24 - q if game == "backgammon" else q + 11] = -n
    pos[OFF], pos[OPP_OFF] = 15 - sum(mine), 15 - sum(theirs)
    for slot, n in extra.items():
        pos[int(slot[1:])] = n
    return pos


# ---------------------------------------------------------------- the scalar reference
def scalar_plays(board, dice):
    """Every result of a full play, one die at a time from the rules text: a die takes a checker off
    the point of its number, a higher die off the highest point only when none stands higher, or a
    checker moves down; use as many dice as possible, the higher one if only one can be used."""
    a, b = dice
    orders = [(a,) * 4] if a == b else [(a, b), (b, a)]
    found = {}  # result -> dice used (the most), and whether the high die was used alone

    def go(bd, rest, used, first_die):
        moves = []
        if rest and sum(bd):
            d = rest[0]
            highest = max(p for p in range(1, 7) if bd[p - 1])
            for s in range(1, 7):
                if bd[s - 1] and (s >= d or s == highest):
                    new = list(bd)
                    new[s - 1] -= 1
                    if s > d:
                        new[s - d - 1] += 1
                    moves.append(tuple(new))
        if not moves:
            found.setdefault((bd, used), set()).add(first_die)
        for new in moves:
            go(new, rest[1:], used + 1, first_die if used else rest[0])

    for order in orders:
        go(tuple(board), order, 0, None)
    most = max(used for _, used in found)
    plays = {bd for bd, used in found if used == most}
    if a != b and most == 1:
        high = {bd for (bd, used), dies in found.items() if used == 1 and max(a, b) in dies}
        plays = high or plays
    return plays


def rank1(board):
    return int(bo.rank(np.array(board)))


def _choose(plays, value):
    """The play of least expected rolls, ties to 1e-9 going to the lowest rank (as the database)."""
    return min(plays, key=lambda c: (round(value(c) * 1e9), rank1(c)))


@functools.cache
def scalar_off(board):
    """(expected rolls, distribution as a list) to bear off everything, by plain recursion."""
    if sum(board) == 0:
        return 0.0, [1.0]
    dist, expected = [0.0] * 40, 1.0
    for roll, w in zip(ROLLS, ROLL_WEIGHTS):
        e, d = scalar_off(_choose(scalar_plays(board, roll), lambda c: scalar_off(c)[0]))
        expected += w * e
        for k, p in enumerate(d[:39]):
            dist[k + 1] += w * p
    return expected, dist


@functools.cache
def scalar_first(board):
    """The same for bearing off the first checker (boards of 15 checkers)."""
    if sum(board) < 15:
        return 0.0, [1.0]
    dist, expected = [0.0] * 40, 1.0
    for roll, w in zip(ROLLS, ROLL_WEIGHTS):
        e, d = scalar_first(_choose(scalar_plays(board, roll), lambda c: scalar_first(c)[0]))
        expected += w * e
        for k, p in enumerate(d[:39]):
            dist[k + 1] += w * p
    return expected, dist


def padded(row, n=40):
    return np.pad(np.asarray(row, float), (0, n - len(row)))


# ---------------------------------------------------------------- one-sided
def test_rank_is_a_bijection_grouped_by_checkers():
    boards = bo.home_boards()
    assert len(boards) == bo.N_POSITIONS == 54264
    assert (bo.rank(boards) == np.arange(len(boards))).all()
    n = boards.sum(axis=1)
    assert (np.diff(n) >= 0).all() and (np.flatnonzero(n == 15)[0], np.flatnonzero(n > 6)[0]) == (38760, 924)


@pytest.mark.parametrize("game", GAMES)
def test_plays_match_legal_plays(game):
    rng = np.random.default_rng(1)
    boards = bo.home_boards()
    ranks = np.concatenate([np.arange(84), rng.choice(len(boards), 120, replace=False)])
    their = boards[rng.choice(len(boards), len(ranks))]
    pos = np.array([position(game, boards[r], t) for r, t in zip(ranks, their)])
    pos = np.repeat(pos, len(ROLLS), axis=0)
    dice = np.tile(ALL_ROLLS, (len(ranks), 1))
    children, parent = legal_plays(game, pos, dice)
    assert (children[:, 6:24] == pos[parent, 6:24]).all()  # the opponent is never touched
    want = set(zip(parent.tolist(), bo.rank(children[:, :6]).tolist()))
    kids, par = bo.one_sided_plays(np.repeat(ranks, len(ROLLS)), dice)
    assert set(zip(par.tolist(), kids.tolist())) == want
    by_parent = {}
    for p, r in want:
        by_parent.setdefault(p, set()).add(r)
    for i in rng.choice(len(pos), 60, replace=False):  # and the scalar reference agrees
        assert {rank1(b) for b in scalar_plays(pos[i, :6].tolist(), dice[i])} == by_parent[i]


def test_one_sided_matches_scalar_recursion(off, first):
    boards = bo.home_boards()
    small = np.flatnonzero(boards.sum(axis=1) <= 4)  # every board of 0..4 checkers, in full
    for r in small:
        _, d = scalar_off(tuple(boards[r].tolist()))
        assert np.allclose(padded(off[r]), padded(d), atol=1e-12)
    rng = np.random.default_rng(2)
    e_db = off @ np.arange(off.shape[1])
    for r in rng.choice(np.arange(len(small), len(boards)), 40, replace=False):  # one step, from the table
        board = tuple(boards[r].tolist())
        want = np.zeros(40)
        for roll, w in zip(ROLLS, ROLL_WEIGHTS):
            c = _choose(scalar_plays(board, roll), lambda c: e_db[rank1(c)])
            want[1:] += w * padded(off[rank1(c)])[:-1]
        assert np.allclose(padded(off[r]), want, atol=1e-12)
    low = [r for r in range(bo.FULL_START, len(boards)) if bo.board_pips(boards[r]) <= 24]
    for r in low:  # first checker off, 15-checker boards of up to 24 pips, in full
        want = scalar_first(tuple(boards[r].tolist()))[1]
        assert np.allclose(padded(first[r - bo.FULL_START]), padded(want), atol=1e-12)


def test_hand_worked_values(off, first):
    def dist(table, board, start=0):
        return [Fraction(p).limit_denominator(36**3) for p in table[rank1(board) - start]]

    # one on the 6-point: off at once with any 6, any two dice summing to 6+ (5-1, 4-2, 4-3 ...), or
    # a double from 2-2 up; 11 non-doubles (22/36) and 5 doubles: 27/36, else surely in two
    assert dist(off, (0, 0, 0, 0, 0, 1))[:3] == [0, Fraction(27, 36), Fraction(9, 36)]
    assert dist(off, (1, 0, 0, 0, 0, 0))[:2] == [0, 1]
    assert dist(off, (2, 0, 0, 0, 0, 0))[:2] == [0, 1]
    assert dist(off, (3, 0, 0, 0, 0, 0))[:3] == [0, Fraction(6, 36), Fraction(30, 36)]  # doubles only
    # two on the 4-point: 6-5, 6-4, 5-4 and the doubles 2-2 .. 6-6
    assert dist(off, (0, 0, 0, 2, 0, 0))[1] == Fraction(11, 36)
    # first off from fifteen on the 6-point: a 6, 5-1, 4-2, or 2-2, 3-3, 6-6 (4-4 and 5-5 overshoot
    # and may not bear off from a lower point while the 6-point is held)
    assert dist(first, (0, 0, 0, 0, 0, 15), bo.FULL_START)[1] == Fraction(17, 36)
    assert dist(first, (15, 0, 0, 0, 0, 0), bo.FULL_START)[:2] == [0, 1]
    assert abs(bo.expected_rolls((0, 0, 0, 0, 0, 1)) - 1.25) < 1e-12


@pytest.mark.parametrize("game", GAMES)
def test_race_probabilities_by_hand(game, first):
    # me: one on the 6-point; they: fifteen on their 6-point. I always win (they need 4+ rolls); a
    # gammon unless I miss (9/36) and they get one off at once (17/36)
    p = bo.bearoff_probabilities(game, position(game, (0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 15))[None])
    gammon = 27 / 36 + 9 / 36 * 19 / 36
    assert p.dtype == np.float32 and p.shape == (1, OUTPUTS[game])
    want = [1, gammon, 0, 0, 0] if game == "backgammon" else [1, gammon, 0]
    assert np.allclose(p[0], want, atol=1e-6)
    # the other way round: I lose; a gammon unless I get a checker off (17/36 at once, q the chance
    # in my second roll if not in the first) before their checker is off (27/36 at once, else surely)
    p = bo.bearoff_probabilities(game, position(game, (0, 0, 0, 0, 0, 15), (0, 0, 0, 0, 0, 1))[None])
    d = first[rank1((0, 0, 0, 0, 0, 15)) - bo.FULL_START]
    q = d[2] / (1 - d[1])
    lose_gammon = 19 / 36 * (27 / 36 + 9 / 36 * (1 - q))
    want = [0, 0, 0, lose_gammon, 0] if game == "backgammon" else [0, 0, lose_gammon]
    assert np.allclose(p[0], want, atol=1e-6)


def test_probabilities_batched_both_games_and_consistent():
    rng = np.random.default_rng(3)
    boards = bo.home_boards()
    for game in GAMES:
        mine, theirs = boards[rng.choice(len(boards), 300)], boards[rng.choice(len(boards), 300)]
        pos = np.array([position(game, m, t) for m, t in zip(mine, theirs)])
        assert bo.bearoff_mask(game, pos).all() and not has_contact(game, pos).any()
        p = bo.bearoff_probabilities(game, pos).astype(float)
        win, wg, lg = p[:, 0], p[:, 1], p[:, 3 if game == "backgammon" else 2]
        assert (0 <= wg).all() and (wg <= win + 1e-6).all() and (lg <= 1 - win + 1e-6).all()
        assert ((mine.sum(1) == 15) | (lg == 0)).all() and ((theirs.sum(1) == 15) | (wg == 0)).all()
        if game == "backgammon":
            assert (p[:, [2, 4]] == 0).all()
    bg, nardi = (np.array([position(g, m, t) for m, t in zip(mine, theirs)]) for g in GAMES)
    assert np.array_equal(bo.bearoff_probabilities("backgammon", bg)[:, [0, 1, 3]],
                          bo.bearoff_probabilities("nardi", nardi))


@pytest.mark.parametrize("game", GAMES)
def test_mask_rejects_contact_outside_home_and_bar(game):
    ok = position(game, (3, 2, 0, 0, 0, 1), (0, 4, 0, 0, 1, 0))
    outside = ok.copy()
    outside[5], outside[6] = 0, 1  # my checker on the 7-point
    bad = [outside]
    theirs_out = ok.copy()
    theirs_out[19 if game == "backgammon" else 16] = 0  # their 5-point checker on ...
    theirs_out[10] = -1  # ... my 11-point: contact in backgammon, outside their home in both
    bad.append(theirs_out)
    if game == "backgammon":
        bad.append(position(game, (3, 2, 0, 0, 0, 0), (0, 4, 0, 0, 1, 0), s24=1, s26=9))  # me on the bar
        bad.append(position(game, (3, 2, 0, 0, 0, 1), (0, 4, 0, 0, 0, 0), s25=1, s27=10))  # them on the bar
    mask = bo.bearoff_mask(game, np.array([ok] + bad))
    assert mask.tolist() == [True] + [False] * len(bad)
    with pytest.raises(ValueError):
        bo.bearoff_probabilities(game, np.array(bad))


def test_corrupt_cache_is_rebuilt(tmp_path, cache):
    assert (cache / bo.ONE_SIDED_FILE).is_file() and "v1" in bo.ONE_SIDED_FILE
    broken = tmp_path / bo.ONE_SIDED_FILE
    broken.write_bytes((cache / bo.ONE_SIDED_FILE).read_bytes()[:5000])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        db = bo.one_sided(tmp_path)
    assert any("rebuilding" in str(w.message) for w in caught)
    assert np.array_equal(db["off"], bo.one_sided()["off"])
    assert np.array_equal(np.load(broken)["off"], db["off"])
    assert not list(tmp_path.glob("*.tmp"))


# ---------------------------------------------------------------- two-sided
@pytest.fixture(scope="module")
def two(cache):
    return ts.two_sided()


def two_position(x, y):
    boards = bo.home_boards()
    return position("backgammon", boards[x], boards[y])


def test_two_sided_recursion_on_a_sample(two):
    """W, ND_C, ND_O, ND_U recomputed from their successors, the plays from legal_plays."""
    rng = np.random.default_rng(4)
    xs, ys = rng.integers(1, ts.N_TWO_SIDED, 150), rng.integers(1, ts.N_TWO_SIDED, 150)
    pos = np.repeat(np.array([two_position(x, y) for x, y in zip(xs, ys)]), len(ROLLS), axis=0)
    children, parent = legal_plays("backgammon", pos, np.tile(ALL_ROLLS, (len(xs), 1)))
    kids = bo.rank(children[:, :6])
    win, ndc, ndo, ndu = (two[k] for k in ("win", "nd_centred", "nd_mover", "nd_opponent"))
    ec, eo = np.maximum(ndc, np.minimum(2 * ndu, 1)), np.maximum(ndo, np.minimum(2 * ndu, 1))
    for i, (x, y) in enumerate(zip(xs, ys)):
        got = {k: 0.0 for k in ("win", "c", "o", "u")}
        for r, w in enumerate(ROLL_WEIGHTS):
            c = kids[parent == i * len(ROLLS) + r]
            got["win"] += w * (1 - win[y, c]).max()
            got["c"] += w * (-ec[y, c]).max()
            got["o"] += w * (-ndu[y, c]).max()
            got["u"] += w * (-eo[y, c]).max()
        assert np.allclose([got["win"], got["c"], got["o"], got["u"]],
                           [win[x, y], ndc[x, y], ndo[x, y], ndu[x, y]], atol=1e-12)


def test_two_sided_orders_and_ranges(two):
    pos = np.array([two_position(x, y) for x in range(1, 924, 7) for y in range(1, 924, 11)])
    w = ts.two_sided_win(pos)
    eo, ec, eu = (ts.two_sided_cubeful(pos, owner) for owner in (CubeOwner.ME, CubeOwner.CENTRED, CubeOwner.OPPONENT))
    assert ((0 <= w) & (w <= 1)).all() and ((-1 <= eu) & (eo <= 1)).all()
    assert (eo >= ec - 1e-12).all() and (ec >= eu - 1e-12).all()
    assert (eo >= 2 * w - 1 - 1e-12).all() and (eu <= 2 * w - 1 + 1e-12).all()  # the owner may just play on
    assert np.array_equal(ts.two_sided_cubeful(pos, "me"), eo)
    mixed = np.array([CubeOwner.CENTRED, CubeOwner.ME, CubeOwner.OPPONENT] * 3)
    want = np.choose(np.arange(9) % 3, [ec[:9], eo[:9], eu[:9]])
    assert np.array_equal(ts.two_sided_cubeful(pos[:9], mixed), want)


def test_two_sided_close_to_one_sided(two):
    """Playing for speed (one-sided) is not quite playing to win: close, not equal."""
    rng = np.random.default_rng(5)
    pos = np.array([two_position(x, y) for x, y in rng.integers(1, 924, (3000, 2))])
    diff = np.abs(ts.two_sided_win(pos) - bo.bearoff_probabilities("backgammon", pos)[:, 0])
    print(f"max |two-sided - one-sided| win over 3000 positions: {diff.max():.5f}, mean {diff.mean():.6f}")
    assert diff.max() < 0.03 and diff.mean() < 1e-3


def test_last_roll_cube_decisions_by_hand(two):
    """With one roll left to me, the exact money cube decision and equities follow from P(off now)."""
    them = (1, 0, 0, 0, 0, 0)  # they are off next roll whatever happens: I have this roll only
    cases = [  # my board, P(off now), decision
        ((1, 0, 0, 0, 0, 0), 1.0, DOUBLE_PASS),  # a sure win: double, pass (= playing on)
        ((0, 0, 0, 0, 1, 0), 31 / 36, DOUBLE_PASS),  # past the take point 3/4
        ((0, 0, 0, 0, 0, 1), 27 / 36, DOUBLE_TAKE),  # exactly 3/4: the take is a tie, equity 1
        ((0, 0, 0, 2, 0, 0), 11 / 36, NODOUBLE_TAKE),
    ]
    for mine, p, decision in cases:
        pos = position("backgammon", mine, them)[None]
        assert ts.two_sided_mask(pos).all() and np.isclose(ts.two_sided_win(pos)[0], p, atol=1e-12)
        for owner in (CubeOwner.CENTRED, CubeOwner.ME):
            d = exact_cube_decision(pos, owner)
            assert d.code[0] == decision and d.double[0] == (decision != NODOUBLE_TAKE)
            assert np.isclose(d.no_double[0], 2 * p - 1) and np.isclose(d.double_take[0], 2 * (2 * p - 1))
            equity = min(1, max(2 * p - 1, 2 * (2 * p - 1)))
            assert np.isclose(max(d.no_double[0], min(d.double_take[0], d.double_pass[0])), equity, atol=1e-12)
            assert np.isclose(ts.two_sided_cubeful(pos, owner)[0], equity, atol=1e-15)
        assert np.isclose(ts.two_sided_cubeful(pos, CubeOwner.OPPONENT)[0], 2 * p - 1, atol=1e-12)
    with pytest.raises(ValueError):
        exact_cube_decision(pos, CubeOwner.OPPONENT)


def test_two_sided_mask():
    seven = position("backgammon", (7, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0))
    six = position("backgammon", (6, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 6))
    contact = six.copy()
    contact[23], contact[10] = 0, -6
    assert ts.two_sided_mask(np.array([six, seven, contact])).tolist() == [True, False, False]
    with pytest.raises(ValueError):
        ts.two_sided_win(seven[None])
