"""What a cube decision of a match cost: the loss of each kind of cube step, from the doubler's numbers.

The numbers are the doubler's no double (ND), double/take (DT) and double/pass (DP) in normalised
equity per cube (and, in a match, in MWC), and whether doubling is right. Not doubling loses
``optimal - ND`` (a missed double), doubling ``optimal - min(DT, DP)`` (a wrong double); the doubled
side loses ``DT - DP`` by a take (or a beaver, a take with an at-once redouble) when a pass was right
(a wrong take) and ``DP - DT`` by a pass when a take was right (a wrong pass). model/analysis/review.py
rates cube decisions with it at the analysis depth, model/analysis/rollouts.py from rollouts.
"""

from __future__ import annotations

from engine.formats.matfile import BEAVER, DOUBLE, TAKE
from engine.formats.matreplay import ROLL


def cube_losses(numbers: dict, kind: str, money: bool) -> tuple[str, float, float | None, str | None]:
    """(action, loss, loss in MWC, error kind) of a cube step of ``kind`` (roll, double, take, beaver, drop)
    from the doubler's cube numbers (module docstring)."""
    nd, dt, dp = numbers["no_double"], numbers["double_take"], numbers["double_pass"]
    optimal = nd if not numbers["doubling_right"] else min(dt, dp)
    m = None if money else {k: numbers[k + "_mwc"] for k in ("no_double", "double_take", "double_pass")}
    m_opt = None if money else (m["no_double"] if not numbers["doubling_right"] else
                                min(m["double_take"], m["double_pass"]))
    if kind == ROLL:
        action, loss = "no double", optimal - nd
        loss_mwc = None if money else m_opt - m["no_double"]
        error = "missed double"
    elif kind == DOUBLE:
        action, loss = "double", optimal - min(dt, dp)
        loss_mwc = None if money else m_opt - min(m["double_take"], m["double_pass"])
        error = "wrong double"
    elif kind in (TAKE, BEAVER):
        action, loss = kind, dt - dp
        loss_mwc = None if money else m["double_take"] - m["double_pass"]
        error = "wrong take"
    else:
        action, loss = "pass", dp - dt
        loss_mwc = None if money else m["double_pass"] - m["double_take"]
        error = "wrong pass"
    loss = max(0.0, loss)
    loss_mwc = None if money else max(0.0, loss_mwc)
    return action, loss, loss_mwc, (error if loss > 1e-9 else None)
