"""Position classes, cube efficiency and money checker-play values as numba kernels: the same numbers.

model/cube/decisions.py is the reference and says what each quantity means (gnubg's
``ClassifyPosition``, ``EvalEfficiency`` and Janowski's cubeful money equity). Its numpy code runs
some sixty array operations of about a microsecond each whatever the batch, most of the time of a
0-ply choice of play in one position; here one pass over the rows does the same arithmetic, operation
for operation in the same order and types (no fast-math), so the results are identical:
tests/cube/test_cube_numba.py compares the two bit for bit on positions of every kind and on
probabilities at and near the edges.

Nothing imports this module but decisions.py's lazy loader (engine/compiled.py says when).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# decisions.py's CLASS_* codes (tests/cube/test_cube_numba.py checks that they are the same); its
# efficiencies come in as ``constants``
_OVER, _BEAROFF2, _BEAROFF1, _RACE, _CRASHED, _CONTACT = 0, 4, 6, 8, 9, 10


@njit(cache=True, inline="always")
def _crashed(side):
    """decisions.py's ``_is_crashed`` of one side (25,)."""
    n = 6
    tot = 0
    for i in range(25):
        tot += side[i]
    p1, p2 = side[0], side[1]
    if tot <= n:
        return True
    if p1 > 1:
        return tot <= n + p1 or (1 + tot - (p1 + p2) <= n and p2 > 1)
    return tot <= n + p2 - 1


@njit(cache=True, inline="always")
def _class_and_x(mover, opp, constants):
    """(class, cube efficiency) of the position whose side on roll has ``mover`` (25,) and whose
    opponent has ``opp`` (25,), each side's checkers on its own points 1..24 and bar (slot 24)."""
    back_me, back_opp = -1, -1
    total_me, total_opp, pips = 0, 0, 0
    for i in range(25):
        if mover[i] > 0:
            back_me = i
        if opp[i] > 0:
            back_opp = i
        total_me += mover[i]
        total_opp += opp[i]
        pips += mover[i] * (i + 1)
    points, checkers = np.int64(constants[7]), np.int64(constants[8])
    if back_me < 0 or back_opp < 0:
        return _OVER, 0.0
    if back_me + back_opp > 22:
        if _crashed(mover) or _crashed(opp):
            return _CRASHED, constants[1]
        return _CONTACT, constants[0]
    if back_me < points and back_opp < points and total_me <= checkers and total_opp <= checkers:
        return _BEAROFF2, constants[2]
    if back_me < 6 and back_opp < 6:
        return _BEAROFF1, constants[2]
    x = constants[3] + constants[4] * np.float64(pips)
    return _RACE, min(max(x, constants[5]), constants[6])


@njit(cache=True)
def class_and_efficiency(positions, constants, classes, efficiency):
    """``position_class`` and ``cube_efficiency`` of positions (B, 28) into ``classes`` (B,) int64 and
    ``efficiency`` (B,) float64; ``constants``: (contact x, crashed x, bear-off x, race base, race per
    pip, race min, race max, two-sided points, two-sided checkers) as decisions.py defines them."""
    mover = np.empty(25, dtype=np.int64)
    opp = np.empty(25, dtype=np.int64)
    for r in range(positions.shape[0]):
        p = positions[r]
        for i in range(24):
            mover[i] = max(np.int64(p[i]), 0)
            opp[i] = max(-np.int64(p[23 - i]), 0)
        mover[24], opp[24] = np.int64(p[24]), np.int64(p[25])
        classes[r], efficiency[r] = _class_and_x(mover, opp, constants)


@njit(cache=True, error_model="numpy", inline="always")
def _money_value(q, x, owner, jacoby):
    """decisions.py's ``checker_play_value`` of one play in a money game, cubeful (``money_checker_values``)."""
    k = 0.0 if (jacoby and owner == 0) else 1.0
    p0, p1, p2, p3, p4 = 1 - q[0], q[3], q[4], q[1], q[2]  # flip_probs: the opponent's view
    gam = p1 - p3 + p2 - p4
    dead = 2 * p0 - 1 + k * gam
    if p0 <= 1e-7 or p0 >= 0.9999999:
        return -dead
    w = 1 + (p1 + p2) / p0
    lo = 1 + (p3 + p4) / (1 - p0)
    tp = (lo - 0.5) / (w + lo + 0.5)
    cp = (lo + 1.0) / (w + lo + 0.5)
    if owner == 0:
        if p0 < tp:
            live = -1.0 if jacoby else -lo + (lo - 1.0) * p0 / tp
        elif p0 < cp:
            live = -1.0 + 2.0 * (p0 - tp) / (cp - tp)
        else:
            live = 1.0 if jacoby else 1.0 + (w - 1.0) * (p0 - cp) / (1.0 - cp)
    elif owner == 1:
        live = -lo + (1.0 + lo) * p0 / cp if p0 < cp else 1.0 + (w - 1.0) * (p0 - cp) / (1.0 - cp)
    else:
        live = -lo + (lo - 1.0) * p0 / tp if p0 < tp else -1.0 + (w + 1.0) * (p0 - tp) / (1.0 - tp)
    return -(dead * (1 - x) + live * x)


@njit(cache=True, error_model="numpy")
def money_checker_values(probs, x, owner, jacoby, out):
    """decisions.py's ``checker_play_value`` in a money game, cubeful: ``probs`` (B, 5) of the side that
    played, in the position after its play; ``x`` (B,) that position's cube efficiency; ``owner`` of
    the cube seen by the opponent, now on roll (0 centred, 1 the opponent, 2 the side that played);
    ``jacoby``: the Jacoby rule is on. Into ``out`` (B,)."""
    for r in range(probs.shape[0]):
        out[r] = _money_value(probs[r], x[r], owner, jacoby)


@njit(cache=True, error_model="numpy")
def money_play_values(children, probs, constants, owner, jacoby, out):
    """``money_checker_values`` of plays with each play's cube efficiency found here: that of
    ``children`` (B, 28), the positions the plays leave in the player's frame, seen by the opponent
    now on roll (``class_and_efficiency`` of ``flip(children)``, without building the flipped rows:
    the opponent's side of a child is the player's side of its flip)."""
    mover = np.empty(25, dtype=np.int64)
    opp = np.empty(25, dtype=np.int64)
    for r in range(children.shape[0]):
        c = children[r]
        for i in range(24):
            mover[i] = max(-np.int64(c[23 - i]), 0)
            opp[i] = max(np.int64(c[i]), 0)
        mover[24], opp[24] = np.int64(c[25]), np.int64(c[24])
        x = _class_and_x(mover, opp, constants)[1]
        out[r] = _money_value(probs[r], x, owner, jacoby)
