"""The two-sided bear-off database's cube table (model/net/bearoff_two_sided.py, model/cube/exact_bearoff.py)
against gnubg 1.07's stored exact answers.

tests/data/gnubg_cube_cases.json holds gnubg's cube decisions of sampled positions (scripts/
gnubg_cube_reference.py). In the positions of class 4 (gnubg's CLASS_BEAROFF2: at most six checkers a
side on the home points, its gnubg_ts0.bd) gnubg does not use its net: it reads exact cubeless and
cubeful money equities from that database, which keeps them in 16 bits (steps of about 3e-5 of the
cube). Ours are solved in float64 from the rules; the two must agree to that precision, in every
cube state a money game has, with the same decision.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.cube_state import CubeOwner
from model.cube import decisions as C
from model.cube.exact_bearoff import exact_cube_decision
from model.net import bearoff_two_sided as ts

CASES = Path(__file__).resolve().parents[1] / "data" / "gnubg_cube_cases.json"
OWNERS = {0: CubeOwner.CENTRED, 1: CubeOwner.ME, 2: CubeOwner.OPPONENT}  # the file's owner codes
QUANTUM = 2e-4  # gnubg's database: 16-bit equities (3e-5 of the cube), a double/take twice that
PASSES = (C.DOUBLE_PASS, C.REDOUBLE_PASS, C.TOOGOOD_PASS, C.TOOGOODRE_PASS, C.OPTIONAL_DOUBLE_PASS,
          C.OPTIONAL_REDOUBLE_PASS)


@pytest.fixture(scope="module")
def money_cases():
    """gnubg's money cases of its two-sided bear-offs: [(board (28,), P(win), owner, answer)], the
    answer (optimal, no double, double/take, double/pass, code)."""
    data = json.loads(CASES.read_text())
    rows = []
    for pos in data["positions"]:
        if pos["class"] != C.CLASS_BEAROFF2:
            continue
        for case in pos["cases"]:
            length, _, _, _, _cube, owner, _jacoby, _beavers, _move = case[:9]
            if length == 0:
                rows.append((np.array(pos["board"], dtype=np.int8), pos["probs"][0], owner, case[9:14]))
    return rows


def test_the_sample_holds_two_sided_bearoffs_in_every_money_cube_state(money_cases):
    """28 positions (gnubg's sample has no other class-4 ones), each with the centred cube, the cube
    owned by the side on roll and by its opponent; all within our database."""
    boards = np.stack([board for board, *_ in money_cases])
    assert len({board.tobytes() for board in boards}) >= 25
    assert {owner for _, _, owner, _ in money_cases} == {0, 1, 2}
    assert ts.two_sided_mask(boards).all()


def test_cubeless_winning_chances_are_gnubgs(money_cases):
    boards = np.stack([board for board, *_ in money_cases])
    theirs = np.array([win for _, win, _, _ in money_cases])
    np.testing.assert_allclose(ts.two_sided_win(boards), theirs, atol=QUANTUM / 4)


def test_no_double_double_take_and_the_decision_are_gnubgs(money_cases):
    """With access to the cube (centred or its own): no double and double/take equities per cube as
    gnubg's, double/pass 1, and the same decision (gnubg's redouble and beaver codes are doubles,
    no doubles and takes as ours: beavers change no decision to double or pass); with the opponent
    owning the cube, the one value, as gnubg's no double."""
    checked = {owner: 0 for owner in OWNERS}
    for board, _, owner, (optimal, no_double, double_take, double_pass, code) in money_cases:
        checked[owner] += 1
        if OWNERS[owner] == CubeOwner.OPPONENT:
            assert code == C.NOT_AVAILABLE
            value = ts.two_sided_cubeful(board[None], CubeOwner.OPPONENT)[0]
            assert value == pytest.approx(no_double, abs=QUANTUM) and value == pytest.approx(optimal, abs=QUANTUM)
            continue
        ours = exact_cube_decision(board[None], OWNERS[owner])
        assert ours.no_double[0] == pytest.approx(no_double, abs=QUANTUM)
        assert ours.double_take[0] == pytest.approx(double_take, abs=QUANTUM)
        assert ours.double_pass[0] == pytest.approx(double_pass, abs=QUANTUM)
        assert bool(ours.double[0]) == (code in C.DOUBLING_CODES), (board, owner, code)
        assert (ours.response[0] == C.PASS) == (double_take > double_pass), (board, owner, code)
        if ours.double[0]:
            assert (code in PASSES) == (ours.response[0] == C.PASS)
        best = max(ours.no_double[0], min(ours.double_take[0], ours.double_pass[0]))
        assert best == pytest.approx(optimal, abs=QUANTUM)
        assert ts.two_sided_cubeful(board[None], OWNERS[owner])[0] == pytest.approx(best, abs=1e-12)
    assert min(checked.values()) >= 25
