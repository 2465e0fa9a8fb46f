"""Resignations: when to offer one, and whether to accept one, from the five cubeless probabilities.

A resignation of level n (1 single, 2 gammon, 3 backgammon) ends the game with the resigner losing n
times the cube value. Rules (RULES-DECISIONS.md, and gnubg): in a money game under the Jacoby rule,
while the cube is centred, gammons and backgammons count as a single game, so a gammon or backgammon
resignation is worth only one point then.

Everything is compared on one scale, "normalised equity" per current cube value: money equity per
cube, or, in match play, MWC turned into equity by ``model.cube.decisions.mwc2eq`` (-1 = losing the cube's
value, +1 = winning it). The value of playing on is the cubeless equity, or the cubeful one when a
cube efficiency ``x`` is given (``model.cube.decisions.cubeful_value``). Probabilities are (..., 5) arrays in
model/net/equity.py's order, seen by the side whose decision it is; ``state`` is seen by that side too.
"""

from __future__ import annotations

import numpy as np

from model.cube.decisions import (
    CENTRED,
    CubeState,
    cubeful_value,
    match_cubeless_equity,
    money_cubeless_equity,
    mwc2eq,
    result_mwc,
)
from model.net.equity import flip_probs

NONE, SINGLE, GAMMON, BACKGAMMON = 0, 1, 2, 3
LEVEL_NAMES = ("none", "single", "gammon", "backgammon")
TOLERANCE = 1e-3  # normalised equity: how close "what I lose anyway" must be


def resignation_value(level: int, state: CubeState) -> float:
    """Value for the resigner of resigning ``level``: money -n (n = 1 under the Jacoby rule with a
    centred cube, else the level), match mwc2eq(MWC after losing level x cube points)."""
    if level not in (SINGLE, GAMMON, BACKGAMMON):
        raise ValueError(f"resignation level must be 1, 2 or 3, got {level!r}")
    if state.is_money:
        counted = 1 if (state.jacoby and state.owner == CENTRED) else level
        return -float(counted)
    return float(mwc2eq(result_mwc(state, -level * state.value), state))


def play_on_value(probs, state: CubeState, x=None, on_roll: bool = True):
    """Value of playing on, normalised equity (...,): cubeless, or cubeful with efficiency ``x``.

    ``on_roll`` False: the other side is on roll, so the cubeful value is minus his (money) or 1 - his
    MWC (match), computed from his side."""
    p = np.asarray(probs, dtype=np.float64)
    if x is None:
        return money_cubeless_equity(p, state) if state.is_money else match_cubeless_equity(p, state)
    if on_roll:
        v = cubeful_value(p, x, state)
        return v if state.is_money else mwc2eq(v, state)
    his = cubeful_value(flip_probs("backgammon", p), x, state.flipped())
    return -his if state.is_money else mwc2eq(1.0 - his, state)


def resignation_offer(probs, state: CubeState, x=None, on_roll: bool = True, tolerance: float = TOLERANCE):
    """Level to offer (...,) int: 0 none, else the lowest level n whose value is within ``tolerance`` of
    playing on from both sides: resigning costs me nothing (value(n) >= V - tol) and, judged by the
    same probabilities, the opponent should accept it (value(n) <= V + tol). So a side that loses a
    gammon for sure offers a gammon, and one with any real chance (or a gammon only half the time)
    offers nothing."""
    v = np.asarray(play_on_value(probs, state, x, on_roll))
    offer = np.zeros(v.shape, dtype=np.int64)
    for level in (BACKGAMMON, GAMMON, SINGLE):  # the lowest acceptable level wins
        value = resignation_value(level, state)
        offer = np.where((value >= v - tolerance) & (value <= v + tolerance), level, offer)
    return offer[()] if offer.ndim == 0 else offer


def accept_resignation(probs, level: int, state: CubeState, x=None, on_roll: bool = False,
                       tolerance: float = 0.0):
    """Whether I accept the opponent's resignation of ``level`` (...,) bool: accepting gives me minus
    his resignation value, and I accept when that is at least my value of playing on (less
    ``tolerance``). ``on_roll`` is False by default: an offer usually comes on the resigner's turn."""
    gain = -resignation_value(level, state.flipped())
    v = np.asarray(play_on_value(probs, state, x, on_roll))
    out = gain >= v - tolerance
    return out[()] if out.ndim == 0 else out
