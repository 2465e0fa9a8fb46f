"""Exact money cube decisions of short bear-offs, from the two-sided database.

With at most six checkers a side left (model/net/bearoff_two_sided.py) there are no gammons and the
database holds, per unit of the cube, the side on roll's equity if it does not double (ND, with the
cube centred or its own) and if it doubles and the opponent takes (DT = 2 ND_U: the opponent owns the
doubled cube); a pass is worth 1. The opponent takes when DT <= 1 (+1e-9: a take at the exact take
point) and the side on roll doubles when that gains more than 1e-9 over ND, or when the opponent
would pass and playing on gains nothing over the pass. No equity exceeds 1, so "too good" never
occurs; a sure win is a double and pass. Jacoby changes nothing without gammons; beavers are ignored.
"""

from __future__ import annotations

import numpy as np

from engine.cube_state import CubeOwner
from model.cube.decisions import (
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NODOUBLE_TAKE,
    PASS,
    TAKE,
    TOOGOOD_PASS,
    CubeDecision,
)
from model.net.bearoff_two_sided import two_sided_no_double, two_sided_take

_EPS = 1e-9  # equities closer than this count as equal


def exact_cube_decision(positions, cube_owner=CubeOwner.CENTRED, directory=None) -> CubeDecision:
    """The money cube decision (B,) of two-sided bear-offs (``two_sided_mask``) for the side on roll,
    which must have access to the cube (``cube_owner`` CENTRED or ME, one for the batch or one per
    row): the equities per unit of the current cube and gnubg's code (DOUBLE_TAKE, DOUBLE_PASS,
    NODOUBLE_TAKE, or TOOGOOD_PASS, which the tables never reach)."""
    nd = two_sided_no_double(positions, cube_owner, directory)
    take = two_sided_take(positions, directory)
    passes = take > 1.0 + _EPS
    code = np.where(passes, np.where(nd > 1.0 + _EPS, TOOGOOD_PASS, DOUBLE_PASS),
                    np.where(take > nd + _EPS, DOUBLE_TAKE, NODOUBLE_TAKE))
    return CubeDecision(no_double=nd, double_take=take, double_pass=np.ones(len(nd)), code=code,
                        double=(code == DOUBLE_TAKE) | (code == DOUBLE_PASS),
                        response=np.where(passes, PASS, TAKE).astype(object))
