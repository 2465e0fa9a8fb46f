"""A cubeful rollout truncated after one ply is the 1-ply cubeful value (model/search/trials.py).

The 1-ply cubeful value of a position, worked out here from the rules and the cube module alone: for
each of the 21 rolls, the side on roll makes the play with the best cubeful value for it (model/cube/
decisions.py's checker_play_value: the cube as it stands, its opponent then on roll); the opponent,
on roll in that position, doubles or not and is taken or passes as cube_decision says (its value:
no double, or the smaller of double/take and double/pass when it doubles); the rolls weighted by
their chances (1/36 doubles, 2/36 others). Truncated after one ply, 36 trials throw each first roll
once (the quasi-random dice), so their mean is exactly that value, with and without the luck
adjustment (whose terms then sum to zero): for "no double" (the cube as it is, the side on roll not
doubling this turn) and for "double, take" (the cube doubled, owned by the opponent), money (per the
starting cube) and at a match score (MWC).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.board import flip
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS, legal_plays
from engine.tools.sample import random_positions
from model.cube import decisions as C
from model.net.checkpoint import load_net
from model.net.equity import flip_probs
from model.net.evaluator import child_probabilities
from model.search.rollout import rollout
from tests.helpers import ROOT

STATES = {"money, centred": C.money(), "money, my cube at 2": C.money(owner=C.ME, value=2),
          "money, no Jacoby": C.money(jacoby=False, beavers=False), "7-point match at 2-4": C.match(7, 2, 4)}


@pytest.fixture(scope="module")
def net():
    return load_net(ROOT / "checkpoints" / "backgammon.safetensors", backend="numpy")[0]


@pytest.fixture(scope="module")
def positions():
    """Contact positions: after some rolls of two of them the opponent doubles, after none of the rest
    (money, centred cube: after 12 and 14 of the 21 rolls; 3 and 9 without Jacoby; 8 in the match)."""
    return random_positions("backgammon", 5, seed=3, kind="contact")[0]


def one_ply_cubeful(net, position, state: C.CubeState, unit: int) -> tuple[float, int]:
    """(the 1-ply cubeful value of ``position`` for its side on roll at cube ``state`` (seen by it,
    which does not double this turn) in money equity per ``unit`` of the cube, or MWC; how many of
    the 21 rolls leave a position the opponent doubles)."""
    value, doubles = 0.0, 0
    for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS):
        children, _ = legal_plays("backgammon", position[None], roll[None])
        probs = child_probabilities(net, children)  # the mover's, after its play
        x = C.cube_efficiency(flip("backgammon", children))
        best = int(np.argmax(C.checker_play_value(probs, state, x)))
        theirs = C.cube_decision(flip_probs("backgammon", probs[best]), x[best], state.flipped())
        doubles += bool(theirs.double)
        if state.is_money:
            answer = min(theirs.double_take, theirs.double_pass) if theirs.double else theirs.no_double
            value += weight * -float(answer) * state.value / unit
        else:
            answer = (min(theirs.double_take_mwc, theirs.double_pass_mwc) if theirs.double
                      else theirs.no_double_mwc)
            value += weight * (1.0 - float(answer))
    return value, doubles


@pytest.mark.parametrize("name", list(STATES))
def test_a_cubeful_rollout_truncated_at_one_ply_is_the_one_ply_cubeful_value(net, positions, name):
    state, doubled = STATES[name], 0
    for position in positions:
        no_double, opponent_doubles = one_ply_cubeful(net, position, state, state.value)
        double_take, _ = one_ply_cubeful(net, position, replace(state, value=2 * state.value, owner=C.OPPONENT),
                                         state.value)
        doubled += opponent_doubles
        for vr, prune in ((False, 0), (True, 0), (True, 4)):
            r = rollout(net, position, trials=36, truncate=1, state=state, bearoff=False, vr=vr, prune=prune, seed=7)
            cube = r.cube_decision
            assert cube["no_double"]["value"] == pytest.approx(no_double, abs=1e-6), (name, vr, prune)
            assert cube["double_take"]["value"] == pytest.approx(double_take, abs=1e-6), (name, vr, prune)
    if not name.startswith("money, my cube"):  # the opponent doubles after some rolls: its cube counts
        assert doubled > 0
