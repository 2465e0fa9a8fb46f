"""gnubg-style contact and race inputs (model/net/contact_inputs.py, model/net/contact_hits.py).

Hand-built positions with values worked out by hand, then slow scalar references written from the
definitions (escapes, containment, mobility, timing, moment, backbone..., and the hits of every roll
by enumerating the plays) checked equal on random positions, then shapes, ranges, symmetry, classes.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import flip, start_position
from engine.movegen import ALL_ROLLS
from engine.tools.sample import random_positions
from model.net import contact_hits as hits_module
from model.net import contact_inputs as ci
from model.net.contact_sides import both_sides, prepare

NAMES = ci.FEATURE_NAMES


def position(mover: dict, opponent: dict, bar: int = 0, opp_bar: int = 0) -> np.ndarray:
    """A backgammon position (28,): ``mover`` {point: count}, ``opponent`` {point in the MOVER's
    numbers: count}; the checkers not placed are borne off."""
    pos = np.zeros(28, dtype=np.int8)
    for point, n in mover.items():
        pos[point - 1] += n
    for point, n in opponent.items():
        pos[point - 1] -= n
    pos[24], pos[25] = bar, opp_bar
    pos[26] = 15 - sum(mover.values()) - bar
    pos[27] = 15 - sum(opponent.values()) - opp_bar
    assert pos[26] >= 0 and pos[27] >= 0
    return pos


def features(pos: np.ndarray, side: int = 0) -> dict:
    """{name: value} of one side's features of one position."""
    row = ci.contact_inputs(np.asarray(pos)[None])[0]
    return {name: float(row[ci.contact_index(name, side)]) for name in NAMES}


# --- hand-built positions -----------------------------------------------------------------------

def test_start_position_by_hand():
    """The opening, worked out by hand (both sides alike)."""
    f = features(start_position("backgammon"))
    expected = {
        "off1": 0, "off2": 0, "off3": 0,
        "break_contact": 1.0,  # 24x2 + 13x5 + 8x3 + 6x5 = 167 pips to pass the checkers on our 1-point
        "back_checker": 23 / 24, "back_anchor": 23 / 24, "forward_anchor": 1 / 6,
        "pip_loss": 0, "p1": 0, "p2": 0,  # no blots
        # the opponent's back checker faces our 6, 8, 13 points (5, 7, 12 away): 11 rolls land on
        # them (sums 5, 7, 12) and 5-5 cannot move: 24 escape; 6 of them (11, 21, 31, 22) stop short
        "back_escapes": 24 / 36, "back_rescapes": 18 / 36,
        # our 24-point checkers face its points on our 19, 17, 12 (5, 7, 12 away): 24 rolls; our
        # 13-point ones its points on our 12 and 1 (1 and 12 away): all but 1-1 and 6-6, 34; our
        # 8-point ones its point on our 1 (7 away): 30. (18 x 2 x 24 + 7 x 5 x 34 + 2 x 3 x 30) / 3600
        "mobility": (864 + 1190 + 180) / 3600,
        # mean index ceil(152 / 15) = 11; beyond it 13-point (1^2 x 5) and 24-point (12^2 x 2): ceil(293 / 7)
        "moment2": 42 / 400,
        "enter": 0, "enter2": 1 - (5 / 6) ** 2,  # only its 6-point is closed
        # 13-point spares 3 x 12 + 8-point 3 x 7 + 6-point spares 3 x 5 = 72, minus filling the
        # 5, 4, 3, 2-points (8 + 6 + 4 + 2) with 8 of the 9 spare checkers; the 1-point cannot be filled
        "timing": 0.52,
        "backbone": 1 - (2 / 3) / 11,  # from the 24-point: 13 is 11 away (weight 2), 8 and 6 too far
        "backg": 0, "backg1": 2 / 8,  # one anchor (the 24-point), 2 checkers there
        "free_pips": 0,
    }
    for name, value in expected.items():
        assert f[name] == pytest.approx(value, abs=1e-6), name
    assert f == features(start_position("backgammon"), side=1)


def test_direct_and_indirect_shots():
    """A blot 6 away is hit by 17 rolls (11 sixes, 5-1, 4-2, 3-3, 2-2); with every point between
    held by the opponent only the 11 sixes remain. Pips lost: the blot's point, 10."""
    open_board = position({16: 1}, {10: 1, 20: 14})
    f = features(open_board)
    assert f["p1"] == pytest.approx(17 / 36) and f["p2"] == 0
    assert f["pip_loss"] == pytest.approx(17 * 10 / 432)
    blocked = position({16: 1}, {10: 1, 15: 2, 14: 2, 13: 2, 12: 2, 11: 2, 20: 4})
    assert features(blocked)["p1"] == pytest.approx(11 / 36)


def test_double_hits_by_hand():
    """One checker, blots 1 and 2 away: any roll with a 1 or a 2 hits (20), only 1-1 hits both;
    the farthest blot (15) with any 1, else 14. Blots 5 and 6 away from a lone checker: 6-5 cannot
    hit both (it is one checker), 5-1 can (5, then 1 more); with two checkers there 6-5 hits both."""
    f = features(position({16: 1}, {15: 1, 14: 1, 20: 13}))
    assert (f["p1"], f["p2"]) == pytest.approx((20 / 36, 1 / 36))
    assert f["pip_loss"] == pytest.approx((11 * 15 + 9 * 14) / 432)
    assert features(position({20: 1}, {15: 1, 14: 1, 22: 13}))["p2"] == pytest.approx(2 / 36)
    assert features(position({20: 2}, {15: 1, 14: 1, 22: 13}))["p2"] == pytest.approx(4 / 36)


def test_hits_from_the_bar():
    """On the bar with a blot on our 22-point: any 3 enters on it (11), 2-1 enters and moves on
    (2), 1-1 too: 14 rolls. A checker on the board cannot hit before the bar is empty."""
    f = features(position({6: 14}, {22: 1, 1: 14}, bar=1))
    assert f["p1"] == pytest.approx(14 / 36) and f["pip_loss"] == pytest.approx(14 * 22 / 432)
    # a board checker 1 away from a blot on our 9-point: after entering, the other die may be a 1
    # (all 11 rolls with a 1: the opponent's home board is open); 4-4 enters on 21 and goes 17, 13, 9
    f = features(position({10: 1, 6: 13}, {9: 1, 1: 14}, bar=1))
    assert f["p1"] == pytest.approx(12 / 36)
    # with two on the bar both dice must enter: only 1-1 leaves steps (two) for the board checker
    assert features(position({10: 1, 6: 12}, {9: 1, 1: 14}, bar=2))["p1"] == pytest.approx(1 / 36)


def test_deep_blots_count_only_with_a_strong_board():
    """Blots on our 1- and 2-points are targets only when we hold three home points; a home point
    of exactly two never hits (its checkers are not moved to hit)."""
    weak = position({8: 3, 6: 2, 5: 2}, {2: 1, 20: 14})
    assert features(weak)["p1"] == 0
    strong = position({8: 3, 6: 2, 5: 2, 4: 2}, {2: 1, 20: 14})
    assert features(strong)["p1"] == pytest.approx(17 / 36)  # 6 away from the 8-point
    pairs = position({6: 2, 5: 2, 4: 2, 20: 9}, {3: 1, 22: 14})
    assert features(pairs)["p1"] == 0  # only the pairs are in range; the 20-point is 17 away
    spare = position({6: 3, 5: 2, 4: 2, 20: 8}, {3: 1, 22: 14})
    assert features(spare)["p1"] == pytest.approx(14 / 36)  # the 6-point's third: 3s, 2-1, 1-1


def test_entering_losses():
    """The opponent closes its 1- and 2-points (our 24 and 23). One on the bar loses only 1-1 (4
    pips), 2-2 (8), 2-1 (2 x 3): 18 pips per 36 rolls; two on the bar also lose the 1 or the 2 of
    the rolls 3-1 .. 6-2 (2 x (4 x 1 + 4 x 2) = 24)."""
    one = features(position({6: 14}, {24: 2, 23: 2, 1: 11}, bar=1))
    two = features(position({6: 13}, {24: 2, 23: 2, 1: 11}, bar=2))
    per_roll = 36 * 49 / 6
    assert one["enter"] == pytest.approx(18 / per_roll)
    assert two["enter"] == pytest.approx(42 / per_roll)
    assert one["enter2"] == pytest.approx(1 - (4 / 6) ** 2)


def test_anchors_contact_and_back_games():
    """Anchors, pips to break contact and free pips, back-game indicators of hand positions."""
    pos = position({21: 2, 20: 2, 14: 2, 3: 5, 2: 4}, {10: 3, 12: 12})
    f = features(pos)
    assert f["back_checker"] == pytest.approx(20 / 24) and f["back_anchor"] == pytest.approx(20 / 24)
    assert f["forward_anchor"] == pytest.approx(5 / 6)  # our 20-point is the opponent's 5-point
    assert f["backg"] == pytest.approx((4 - 3) / 4) and f["backg1"] == 0
    # the opponent's rearmost checker is on our 10-point (its 15): ours behind it need
    # 2 x (21-10+1) + 2 x (20-10+1) + 2 x (14-10+1) = 24 + 22 + 10 pips; 5 x 3 + 4 x 2 = 23 are past it
    assert f["break_contact"] == pytest.approx(56 / 167)
    assert f["free_pips"] == pytest.approx(23 / 100)
    outer = features(position({15: 2, 17: 2, 6: 11}, {1: 15}))
    assert outer["forward_anchor"] == pytest.approx(8 / 6)  # our 17-point is its 8-point, nearest its home
    assert features(position({6: 15}, {1: 15}))["forward_anchor"] == 2.0
    assert features(position({6: 1, 5: 1}, {1: 15}))["back_anchor"] == pytest.approx(-1 / 24)


def test_checkers_off_bands():
    """7 off: the first band full, the second 2/5; 12 off: two full, the third 2/5."""
    bands = ("off1", "off2", "off3")
    assert [features(position({1: 8}, {24: 15}))[n] for n in bands] == pytest.approx([1, 0.4, 0])
    assert [features(position({1: 3}, {24: 15}))[n] for n in bands] == pytest.approx([1, 1, 0.4])


# --- scalar references --------------------------------------------------------------------------

def ref_escapes(blocked: set) -> tuple[int, int]:
    """(escaping rolls, of them those landing beyond the nearest blocked point) of 36, for a checker
    facing the points ``blocked`` (distances 1..12)."""
    plain = beyond = 0
    nearest = min(blocked) if blocked else None
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            stop_open = d1 not in blocked if d1 == d2 else (d1 not in blocked or d2 not in blocked)
            if d1 + d2 not in blocked and stop_open:
                plain += 1
                beyond += nearest is not None and d1 + d2 > nearest
    return plain, beyond


def ref_half(own: list, opp: list) -> dict:
    """The features other than the hits, from the definitions, one side (own facing opp, each a
    25-list in its owner's numbering, 24 = bar)."""
    opp_ours = [opp[23 - i] for i in range(24)]
    held = [i for i in range(24) if own[i] >= 2]
    theirs_held = [i for i in range(24) if opp_ours[i] >= 2]
    opp_rear = max([k for k in range(25) if opp[k]], default=-1)
    ob = 23 - opp_rear
    f = {}
    off = 15 - sum(own)
    for k, name in enumerate(("off1", "off2", "off3")):
        f[name] = min(max(off - 5 * k, 0), 5) / 5
    f["break_contact"] = sum((i + 1 - ob) * own[i] for i in range(25) if i > ob) / 167
    f["free_pips"] = sum((i + 1) * own[i] for i in range(25) if i < ob) / 100
    f["back_checker"] = max([i for i in range(25) if own[i]], default=-1) / 24
    f["back_anchor"] = max(held, default=-1) / 24
    home = [24 - i for i in held if i >= 18]
    outer = [24 - i for i in held if 12 <= i < 18]
    f["forward_anchor"] = max(home) / 6 if home else (min(outer) / 6 if outer else 2.0)

    def enemy_escapes(c):  # an opponent checker on our index c (-1: its bar), moving up past our points
        return ref_escapes({j - c for j in held if 1 <= j - c <= 12})

    f["back_escapes"], f["back_rescapes"] = (e / 36 for e in enemy_escapes(ob))
    f["contain"] = 1 - min(enemy_escapes(c)[0] for c in range(9)) / 36
    f["acontain"] = 1 - min([enemy_escapes(c)[0] for c in range(ob, 9)], default=36) / 36
    f["contain2"], f["acontain2"] = f["contain"] ** 2, f["acontain"] ** 2
    def our_escapes(i):  # our checker on index i, moving down past the opponent's points
        return ref_escapes({i - j for j in theirs_held if 1 <= i - j <= 12})[0]

    f["mobility"] = sum((i - 5) * own[i] * our_escapes(i) for i in range(6, 25)) / 3600
    n = sum(own)
    mean = -(-sum(i * own[i] for i in range(25)) // n) if n else 0
    far = [(i, own[i]) for i in range(25) if i > mean and own[i]]
    count = sum(c for _, c in far)
    f["moment2"] = (-(-sum(c * (i - mean) ** 2 for i, c in far) // count) if count else 0) / 400
    closed = [opp[k] >= 2 for k in range(6)]
    loss = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            c1, c2 = closed[d1 - 1], closed[d2 - 1]
            if d1 == d2:
                loss += 4 * d1 * c1
            elif c1 and c2:
                loss += d1 + d2
            elif own[24] >= 2:
                loss += d1 * c1 + d2 * c2
    f["enter"] = loss / (36 * 49 / 6) if own[24] else 0.0
    f["enter2"] = 1 - (1 - sum(closed) / 6) ** 2
    # timing, procedurally as described
    t, spare = 24 * own[24], own[24]
    for i in range(23, 5, -1):
        if i > max(ob, 11):
            c = 1 if own[i] == 1 else max(own[i] - 2, 0)
        else:
            c = own[i]
        t, spare = t + i * c, spare + c
    for i in range(5, -1, -1):
        if own[i] > 2:
            t, spare = t + i * (own[i] - 2), spare + own[i] - 2
        elif own[i] < 2 and spare >= 2 - own[i]:
            t, spare = t - i * (2 - own[i]), spare - (2 - own[i])
    f["timing"] = max(t, 0) / 100
    points = [i for i in range(23, 0, -1) if own[i] >= 2]
    weights = [11 if points[0] - p <= 6 else max(13 - (points[0] - p), 0) if points[0] - p <= 11 else 0
               for p in points[1:]]
    f["backbone"] = 1 - sum(weights) / (11 * len(weights)) if weights else 0.0
    anchors = sum(own[i] >= 2 for i in range(18, 24))
    t = sum(own[18:25])
    f["backg"] = (t - 3) / 4 if anchors > 1 else 0.0
    f["backg1"] = t / 8 if anchors == 1 else 0.0
    return f


def ref_roll(own: list, opp: list, roll) -> tuple[set, int]:
    """(our points hit by some play of ``roll``, most blots hit by one play), enumerating the plays
    move by move under the rules of contact_hits' docstring. A move of a checker that will not hit
    on its way (with the dice left, in order) is skipped: it cannot change what other checkers hit,
    and leaving a die unused is allowed. Entering moves are always made."""
    opp_ours = [opp[23 - i] for i in range(24)]
    strong = sum(own[i] >= 2 for i in range(6)) >= 3
    target = [opp_ours[i] == 1 and (strong or i >= 2) for i in range(24)]
    open_ = [opp_ours[i] < 2 for i in range(24)]
    frozen = [2 if i < 6 and own[i] == 2 else 0 for i in range(24)] + [0]
    high, low = int(roll[0]), int(roll[1])
    orders = [[high] * 4] if high == low else [[high, low], [low, high]]
    seen, best = set(), 0

    def will_hit(at, dice, hit):
        for d in dice:
            at -= d
            if at < 0 or not open_[at]:
                return False
            if target[at] and at not in hit:
                return True
        return False

    def walk(counts, dice, hit):
        nonlocal best
        best = max(best, len(hit))
        seen.update(hit)
        if not dice:
            return
        sources = [24] if counts[24] else [i for i in range(24) if counts[i] > frozen[i]]
        for src in sources:
            start = 24 if src == 24 else src
            if src != 24 and not will_hit(start, dice, hit):
                continue
            dest = start - dice[0]
            if dest < 0 or not open_[dest]:
                continue
            after = list(counts)
            after[src] -= 1
            after[dest] += 1
            walk(after, dice[1:], hit | ({dest} if target[dest] and dest not in hit else set()))

    for dice in orders:
        walk(list(own), dice, frozenset())
    return {i + 1 for i in seen}, best


@pytest.fixture(scope="module")
def sample():
    """Random positions: contact ones (an enemy blot in front), ones with a checker on the bar, any."""
    parts = [random_positions("backgammon", n, seed=5, kind=k)[0]
             for k, n in (("contact", 200), ("bar", 100), ("any", 200))]
    return np.concatenate(parts)


def test_hits_equal_the_enumerated_plays(sample):
    """Every roll's hit blots and whether it hits two equal the scalar enumeration, both sides of
    300 positions; P1, P2, PIPLOSS follow from them."""
    own, opp = both_sides(sample[:300])
    s = prepare(own, opp)
    hits, twos = hits_module.roll_hits(*ci.hit_masks(s), s.own[:, 24])
    f = ci.half_features(s)
    for r in range(len(own)):
        o, p = own[r].tolist(), opp[r].tolist()
        lost, one, two = 0, 0, 0
        for k, roll in enumerate(ALL_ROLLS):
            points, most = ref_roll(o, p, roll)
            got = {q for q in range(1, 25) if hits[k, r] >> q & 1}
            assert got == points and bool(twos[k, r]) == (most >= 2), (r, tuple(roll), o, p)
            ways = 1 if roll[0] == roll[1] else 2
            lost += ways * max(points, default=0)
            one += ways * bool(points)
            two += ways * (most >= 2)
        assert f[r, 7:10] == pytest.approx([lost / 432, one / 36, two / 36], abs=1e-6)


def test_inputs_of_a_position_do_not_depend_on_its_batch(sample):
    """Each row's inputs are the same bits alone or in any batch (the hit features skip the rows
    that cannot hit, so a batch's other rows change which rows go through ``roll_hits``)."""
    whole = ci.contact_inputs(sample)
    assert np.array_equal(whole[::-1], ci.contact_inputs(sample[::-1]))
    for r in range(0, len(sample), 25):
        assert np.array_equal(whole[r], ci.contact_inputs(sample[r : r + 1])[0]), r


def test_features_equal_the_scalar_definitions(sample):
    """Every feature but the hits equals ``ref_half`` on both sides of 500 random positions."""
    own, opp = both_sides(sample)
    f = ci.half_features(prepare(own, opp))
    for r in range(len(own)):
        expected = ref_half(own[r].tolist(), opp[r].tolist())
        for name, value in expected.items():
            assert f[r, NAMES.index(name)] == pytest.approx(value, abs=1e-5), (name, r)


def test_escape_tables_equal_the_definition():
    """All 4096 masks of the escape tables equal the scalar count."""
    for mask in range(4096):
        blocked = {i + 1 for i in range(12) if mask >> i & 1}
        assert (ci.ESCAPES[mask], ci.ESCAPES_BEYOND[mask]) == ref_escapes(blocked)


# --- shapes, ranges, symmetry, classes ----------------------------------------------------------

def test_shapes_ranges_and_units(sample):
    """(B, 250) and (B, 216) float32, finite, in [-1/24, 6]; the point units of a 5-checker point."""
    x = ci.contact_inputs(sample)
    assert x.shape == (len(sample), ci.num_contact_inputs()) == (len(sample), 250) and x.dtype == np.float32
    assert np.isfinite(x).all() and x.min() >= -1 / 24 - 1e-6 and x.max() <= 6  # (15 - 3) / 2 at most
    start = ci.contact_inputs(start_position("backgammon", 1))[0]
    np.testing.assert_allclose(start[5 * 4:6 * 4], [0, 0, 1, 1])  # our 6-point: 5 checkers
    np.testing.assert_allclose(start[23 * 4:24 * 4], [0, 1, 0, 0])  # our 24-point: 2
    r = ci.race_inputs(sample)
    assert r.shape == (len(sample), ci.num_race_inputs()) == (len(sample), 216) and r.dtype == np.float32
    assert np.isfinite(r).all() and r.min() >= 0 and r.max() <= 6


def test_race_columns_equal_the_boards_pips_and_contact(sample):
    """``race=True`` adds each side's pips / 100 and contact, read off the same counts, equal to
    engine.board's pips and has_contact; a side with every checker off has 0 pips and no contact."""
    from engine.board import has_contact, pips

    done = position({1: 1}, {24: 1})
    done[24], done[26] = 0, 15
    done[0] = 0  # the mover has borne off all 15
    positions = np.concatenate([sample, random_positions("backgammon", 100, seed=6, kind="race")[0], done[None]])
    x = ci.contact_inputs(positions, race=True)
    assert x.shape == (len(positions), 253)
    np.testing.assert_array_equal(x[:, :250], ci.contact_inputs(positions))
    np.testing.assert_array_equal(x[:, 250:252], pips("backgammon", positions).astype(np.float32) / np.float32(100))
    np.testing.assert_array_equal(x[:, 252], has_contact("backgammon", positions))
    assert 0 < has_contact("backgammon", positions).mean() < 1 and x[-1, 250] == 0


def test_flipping_swaps_the_halves(sample):
    """The opponent's half is the mover's half of the flipped position, for both encodings."""
    for encode, half in ((ci.contact_inputs, ci.HALF_CONTACT), (ci.race_inputs, ci.HALF_RACE)):
        a, b = encode(sample), encode(flip("backgammon", sample))
        np.testing.assert_array_equal(a[:, :half], b[:, half:])
        np.testing.assert_array_equal(a[:, half:], b[:, :half])


def test_race_inputs_by_hand():
    """Checkers off one-hot, crossovers (7-12: 1, 13-18: 2) / 10, pips / 100."""
    pos = position({14: 2, 8: 3, 3: 5}, {20: 4, 22: 6})
    x = ci.race_inputs(pos[None])[0]
    assert x[92:106].tolist() == [0, 0, 0, 0, 1] + [0] * 9  # 5 off
    assert x[106] == pytest.approx((2 * 2 + 3 * 1) / 10)
    assert x[107] == pytest.approx((28 + 24 + 15) / 100)
    np.testing.assert_allclose(x[7 * 4:8 * 4], [0, 0, 1, 0])  # our 8-point: 3 checkers
    assert x[108 + 92:108 + 106].tolist() == [0, 0, 0, 0, 1] + [0] * 9  # the opponent: 5 off too


def test_position_classes():
    """Contact, crashed (gnubg's deep-point rule), race, bear-off."""
    cases = [
        (start_position("backgammon"), ci.CONTACT),
        (position({14: 2, 8: 3, 3: 5}, {20: 4, 22: 6}), ci.RACE),
        (position({6: 5, 3: 5}, {20: 4, 22: 6}), ci.BEAROFF),
        (position({20: 2, 6: 4}, {3: 2, 22: 13}), ci.CRASHED),  # 6 checkers left
        (position({20: 2, 6: 3, 1: 3}, {3: 2, 22: 13}), ci.CRASHED),  # 8 left, 3 dead on the 1-point
        (position({20: 2, 6: 3, 2: 3}, {3: 2, 22: 13}), ci.CRASHED),  # 8 left, 2 of 3 on the 2-point dead
        (position({20: 2, 6: 4, 2: 1}, {3: 2, 22: 13}), ci.CONTACT),  # 7 active
        (position({20: 2, 6: 2, 2: 3, 1: 2}, {3: 2, 22: 13}), ci.CRASHED),  # 9 - 2 - (3 - 1) = 5
    ]
    got = ci.position_class(np.stack([p for p, _ in cases]))
    assert got.dtype == np.int8 and got.tolist() == [c for _, c in cases]


def test_feature_index_and_version():
    """The layout constants agree with each other."""
    assert ci.contact_index("off1") == 100 and ci.contact_index("back_rescapes", 1) == 249
    assert len(NAMES) == 25 and isinstance(ci.FEATURE_VERSION, int)


def test_containment_is_the_fewest_escapes_from_each_start():
    """CONTAIN and ACONTAIN, bit for bit, against the fewest escapes taken directly as a minimum over
    the start points (our 1..9-point; from the opponent's rearmost checker on for ACONTAIN), on both
    sides of 3,000 random positions."""
    pos = np.concatenate([random_positions("backgammon", 1000, seed=11, kind=k)[0]
                          for k in ("any", "contact", "bar")])
    s = prepare(*both_sides(pos))
    got = ci.containment(s)
    escapes = ci.ESCAPES[ci.escapes_ahead(s.held[None, :], ci._CONTAIN_FROM[:, None])]  # (10, n): -1..8
    contain = escapes[1:].min(axis=0)
    acontain = np.array([36 if b > 8 else escapes[b + 1 :, r].min() for r, b in enumerate(s.opp_back)])
    for row, fewest in ((0, acontain), (2, contain)):
        assert np.array_equal(got[row], ci._CONTAINED[fewest])
        assert np.array_equal(got[row + 1], ci._CONTAINED2[fewest])
    assert (acontain < 36).any() and (acontain == 36).any() and len(np.unique(contain)) > 5  # varied
