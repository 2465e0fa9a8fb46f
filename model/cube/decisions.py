"""Cube decisions as pure functions of the five cubeless probabilities: cube efficiency, money play, decisions.

Everything here follows GNU Backgammon (gnubg) 1.07 at 0-ply (``eval.c``, ``matchequity.c``), so that
given gnubg's own probabilities we reach gnubg's own cube decisions (scripts/gnubg_cube_reference.py
measures it). Probabilities are (..., 5) arrays in model/net/equity.py's order, cumulative, seen by the
side on roll ("me"): [win, win_gammon, win_backgammon, lose_gammon, lose_backgammon]. The cube and
score are one ``CubeState`` (a scalar, shared by the whole batch), also seen by the side on roll.
``CubeState`` and the match-winning chances (MWC) at a score are in model/cube/match_equity.py; they are
re-exported here, so ``from model.cube.decisions import CubeState, result_mwc, ...`` keeps working.

Money equities are in units of the current cube value; match values are match-winning chances (MWC),
and the cube decisions of match play compare MWC turned into "normalised money equity" (gnubg's
``mwc2eq``: -1 = I lose the cube's value, +1 = I win it), so double/pass is always +1.

Cubeful equity (Rick Janowski, "Take-points in money games", 1993; gnubg ``Cl2CfMoney``): the cube
is partly alive. With cube efficiency x,  E_cubeful = (1 - x) E_dead + x E_live,  where E_dead is the
cubeless equity and E_live the equity if every market loser is cashed: a piecewise-linear function of
p = P(win) through the take point and the cash point (see ``_money_live``). Cube efficiency x comes
from the position class, as gnubg's ``EvalEfficiency``: 0.68 for contact and crashed positions,
0.55 + 0.00125 x (pip count of the side on roll) kept within 0.6..0.7 in races, 0.6 in bear-offs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.board import flip
from engine.compiled import Kernels
from model.cube.match_equity import (
    CENTRED,
    ME,
    OPPONENT,
    OWNERS,
    CubeState,
    cube_is_dead,
    cube_prime,
    double_available,
    eq2mwc,
    gammon_prices,
    live_cash_points,
    match,
    match_cubeful_mwc,
    match_cubeless_equity,
    match_cubeless_mwc,
    money,
    mwc2eq,
    result_mwc,
)
from model.net.equity import LOSE_BACKGAMMON, LOSE_GAMMON, WIN, WIN_BACKGAMMON, WIN_GAMMON, flip_probs

# ---------------------------------------------------------------- position classes, cube efficiency
# gnubg's positionclass numbers (eval.h); hypergammon classes 1..3 do not occur in backgammon.
CLASS_OVER, CLASS_BEAROFF2, CLASS_BEAROFF_TS, CLASS_BEAROFF1, CLASS_BEAROFF_OS = 0, 4, 5, 6, 7
CLASS_RACE, CLASS_CRASHED, CLASS_CONTACT = 8, 9, 10
CLASS_NAMES = {0: "over", 4: "bearoff2", 5: "bearoff_ts", 6: "bearoff1", 7: "bearoff_os", 8: "race",
               9: "crashed", 10: "contact"}
TWO_SIDED_BEAROFF = (6, 6)  # gnubg_ts0.bd: 6 points, up to 6 checkers a side (exact cubeful database)

CONTACT_X, CRASHED_X, BEAROFF_X = 0.68, 0.68, 0.6
RACE_X_BASE, RACE_X_PER_PIP, RACE_X_MIN, RACE_X_MAX = 0.55, 0.00125, 0.6, 0.7


def _import_kernels():
    """model/cube/cube_numba.py, imported when engine/compiled.py's ``numba_due`` first says so."""
    from model.cube import cube_numba

    return cube_numba


_kernels = Kernels(_import_kernels)
_KERNEL_CONSTANTS = np.array([CONTACT_X, CRASHED_X, BEAROFF_X, RACE_X_BASE, RACE_X_PER_PIP, RACE_X_MIN,
                              RACE_X_MAX, *TWO_SIDED_BEAROFF], dtype=np.float64)
_THEIR_KERNEL_OWNERS = {CENTRED: 0, ME: 2, OPPONENT: 1}
"""The kernel's owner code (0 centred, 1 the side on roll, 2 its opponent) of a state's owner seen by
the other side (``state.flipped().owner``, without building the flipped state)."""


def _compiled_classes(positions):
    """(classes, efficiency) of positions (B, 28) from the kernel, or None where it does not run."""
    kernels = _kernels()
    if kernels is None:
        return None
    pos = np.ascontiguousarray(np.atleast_2d(np.asarray(positions)), dtype=np.int8)
    classes = np.empty(len(pos), dtype=np.int64)
    efficiency = np.empty(len(pos), dtype=np.float64)
    kernels.class_and_efficiency(pos, _KERNEL_CONSTANTS, classes, efficiency)
    return classes, efficiency


def _sides(positions):
    """gnubg's two 25-slot rows from our (B, 28) mover-frame positions: (opponent, mover), own numbering.

    Slot i is that side's point i+1, slot 24 its bar (engine/board.py: the opponent's point p is the
    mover's 25-p, so the opponent's slot i is our slot 23-i).
    """
    pos = np.atleast_2d(np.asarray(positions)).astype(np.int64)
    mover = np.concatenate([np.maximum(pos[:, :24], 0), pos[:, 24:25]], axis=1)
    opp = np.concatenate([np.maximum(-pos[:, 23::-1], 0), pos[:, 25:26]], axis=1)
    return opp, mover


def _is_crashed(side):
    """gnubg's crashed test for one side (B, 25): few checkers left, or most of them on its 1- and 2-points.

    With t the checkers not yet borne off and N = 6: crashed when t <= N; or, with more than one
    checker on the 1-point (slot 0), when t <= N + (on the 1-point), or when t + 1 - (1-point +
    2-point) <= N and the 2-point holds more than one; otherwise when t <= N + (on the 2-point) - 1.
    """
    n = 6
    tot = side.sum(axis=1)
    p1, p2 = side[:, 0], side[:, 1]
    many_on_1 = (tot <= n + p1) | ((1 + tot - (p1 + p2) <= n) & (p2 > 1))
    return (tot <= n) | np.where(p1 > 1, many_on_1, tot <= n + p2 - 1)


def position_class(positions) -> np.ndarray:
    """gnubg's class of each backgammon position (B, 28) -> (B,) CLASS_* codes (``ClassifyPosition``).

    over: a side has no checkers left. contact: the two back checkers (bar = slot 24) still face each
    other, back(me) + back(opponent) > 22 in each side's own 0-based numbering; crashed if either
    side passes ``_is_crashed``. Otherwise a race, or a bear-off when both sides are home (all
    checkers on points 1..6): two-sided ("bearoff2", gnubg's exact database) with at most 6 checkers
    a side, else one-sided ("bearoff1").
    """
    compiled = _compiled_classes(positions)
    if compiled is not None:
        return compiled[0]
    opp, mover = _sides(positions)
    idx = np.arange(25)
    back_me = np.max(np.where(mover > 0, idx, -1), axis=1)
    back_opp = np.max(np.where(opp > 0, idx, -1), axis=1)
    over = (back_me < 0) | (back_opp < 0)
    contact = back_me + back_opp > 22
    crashed = _is_crashed(mover) | _is_crashed(opp)
    home = (back_me < 6) & (back_opp < 6)
    points, checkers = TWO_SIDED_BEAROFF
    small = (back_me < points) & (back_opp < points) & (mover.sum(1) <= checkers) & (opp.sum(1) <= checkers)
    return np.select(
        [over, contact & crashed, contact, small, home],
        [CLASS_OVER, CLASS_CRASHED, CLASS_CONTACT, CLASS_BEAROFF2, CLASS_BEAROFF1],
        CLASS_RACE,
    )


def race_efficiency(pips_on_roll):
    """Race cube efficiency: x = 0.55 + 0.00125 x pips of the side on roll, kept within 0.6..0.7."""
    x = RACE_X_BASE + RACE_X_PER_PIP * np.asarray(pips_on_roll, dtype=np.float64)
    return np.clip(x, RACE_X_MIN, RACE_X_MAX)


def cube_efficiency(positions, classes=None) -> np.ndarray:
    """Cube efficiency x (B,) by class (gnubg ``EvalEfficiency``): 0 over, 0.68 contact and crashed,
    ``race_efficiency`` in races, 0.6 in bear-offs (gnubg uses 0.6 for one-sided; for two-sided ones it
    reads exact cubeful equities from its database instead, which we do not have)."""
    compiled = _compiled_classes(positions) if classes is None else None
    if compiled is not None:
        return compiled[1]
    pos = np.atleast_2d(np.asarray(positions))
    cls = position_class(pos) if classes is None else np.asarray(classes)
    _opp, mover = _sides(pos)
    pips = mover @ np.arange(1, 26)
    return np.select(
        [cls == CLASS_OVER, cls == CLASS_CONTACT, cls == CLASS_CRASHED, cls == CLASS_RACE],
        [0.0, CONTACT_X, CRASHED_X, race_efficiency(pips)],
        BEAROFF_X,
    )


# ---------------------------------------------------------------- money play
def _rates(p):
    """Average values of a win and a loss (Janowski's W and L): W = 1 + (P(wg) + P(wbg)) / P(win),
    L = 1 + (P(lg) + P(lbg)) / P(loss)."""
    win = p[..., WIN]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = 1 + (p[..., WIN_GAMMON] + p[..., WIN_BACKGAMMON]) / win
        lo = 1 + (p[..., LOSE_GAMMON] + p[..., LOSE_BACKGAMMON]) / (1 - win)
    return w, lo


def money_cubeless_equity(probs, state: CubeState):
    """Cubeless money equity at this cube (gnubg ``Utility``): E = 2p - 1 + k (P(wg) - P(lg) +
    P(wbg) - P(lbg)), k = 0 with the Jacoby rule on a centred cube (gammons do not count until the
    cube has been turned), else 1."""
    p = np.asarray(probs, dtype=np.float64)
    k = 0.0 if (state.jacoby and state.owner == CENTRED) else 1.0
    gam = p[..., WIN_GAMMON] - p[..., LOSE_GAMMON] + p[..., WIN_BACKGAMMON] - p[..., LOSE_BACKGAMMON]
    return 2 * p[..., WIN] - 1 + k * gam


def _money_live(w, lo, p, state: CubeState):
    """Janowski's fully live cube equity, piecewise linear in p = P(win) (gnubg ``MoneyLive``):

        take point  TP = (L - 1/2) / (W + L + 1/2),   cash point  CP = (L + 1) / (W + L + 1/2)
        centred:   (0, -L) -> (TP, -1) -> (CP, +1) -> (1, W); with Jacoby the outer pieces are flat
                   at -1 / +1 (gammons do not count: the market loser is always cashed)
        my cube:   (0, -L) -> (CP, +1) -> (1, W)
        his cube:  (0, -L) -> (TP, -1) -> (1, W)
    """
    tp = (lo - 0.5) / (w + lo + 0.5)
    cp = (lo + 1.0) / (w + lo + 0.5)
    below_tp = -lo + (lo - 1.0) * p / tp
    above_cp = 1.0 + (w - 1.0) * (p - cp) / (1.0 - cp)
    if state.owner == CENTRED:
        low = -1.0 if state.jacoby else below_tp
        high = 1.0 if state.jacoby else above_cp
        window = -1.0 + 2.0 * (p - tp) / (cp - tp)
        return np.where(p < tp, low, np.where(p < cp, window, high))
    if state.owner == ME:
        return np.where(p < cp, -lo + (1.0 + lo) * p / cp, above_cp)
    return np.where(p < tp, below_tp, -1.0 + (w + 1.0) * (p - tp) / (1.0 - tp))


def money_cubeful_equity(probs, x, state: CubeState):
    """Janowski cubeful money equity E = (1 - x) E_dead + x E_live (gnubg ``Cl2CfMoney``), per unit of
    the current cube; where P(win) is within 1e-7 of 0 or 1 the cube is dead and E = E_dead."""
    p = np.asarray(probs, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    dead = money_cubeless_equity(p, state)
    win = p[..., WIN]
    w, lo = _rates(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        live = _money_live(w, lo, win, state)
    edge = (win <= 1e-7) | (win >= 0.9999999)
    return np.where(edge, dead, dead * (1 - x) + live * x)


# ---------------------------------------------------------------- cube decisions
# gnubg's cube recommendations (``cubedecision`` in eval.h, texts of ``GetCubeRecommendation``)
LABELS = (
    "Double, take", "Double, pass", "No double, take", "Too good to double, take",
    "Too good to double, pass", "Double, beaver", "No double, beaver", "Redouble, take",
    "Redouble, pass", "No redouble, take", "Too good to redouble, take", "Too good to redouble, pass",
    "No redouble, beaver", "Never double, take (dead cube)", "Never redouble, take (dead cube)",
    "No double (cube not available)", "Optional double, take", "Optional redouble, take",
    "Optional double, beaver", "Optional double, pass", "Optional redouble, pass",
)
(DOUBLE_TAKE, DOUBLE_PASS, NODOUBLE_TAKE, TOOGOOD_TAKE, TOOGOOD_PASS, DOUBLE_BEAVER, NODOUBLE_BEAVER,
 REDOUBLE_TAKE, REDOUBLE_PASS, NO_REDOUBLE_TAKE, TOOGOODRE_TAKE, TOOGOODRE_PASS, NO_REDOUBLE_BEAVER,
 NODOUBLE_DEADCUBE, NO_REDOUBLE_DEADCUBE, NOT_AVAILABLE, OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE,
 OPTIONAL_DOUBLE_BEAVER, OPTIONAL_DOUBLE_PASS, OPTIONAL_REDOUBLE_PASS) = range(len(LABELS))
# the codes after which doubling is right: gnubg's "optional" doubles are equal to no double, and we
# keep the cube then (``getCubeDecisionOrdering`` lists no double first for them)
DOUBLING_CODES = (DOUBLE_TAKE, DOUBLE_PASS, DOUBLE_BEAVER, REDOUBLE_TAKE, REDOUBLE_PASS)
TAKE, PASS, BEAVER = "take", "pass", "beaver"
OPTIONAL_EPSILON = 1e-5  # gnubg ``isOptional``: two equities this close are equal


@dataclass(frozen=True)
class CubeDecision:
    """A cube decision for a batch: equities (...,) of no double, double/take and double/pass, in
    normalised money equity (money: per current cube; match: gnubg's ``mwc2eq``), the same as MWC in
    match play (``*_mwc``, None for money), gnubg's recommendation ``code`` (index into LABELS),
    ``double`` (doubling is right) and the taker's ``response`` ("take"/"pass"/"beaver" per item)."""

    no_double: np.ndarray
    double_take: np.ndarray
    double_pass: np.ndarray
    code: np.ndarray
    double: np.ndarray
    response: np.ndarray
    no_double_mwc: np.ndarray | None = None
    double_take_mwc: np.ndarray | None = None
    double_pass_mwc: np.ndarray | None = None

    @property
    def labels(self) -> np.ndarray:
        return np.asarray(LABELS, dtype=object)[self.code]

    @property
    def optimal(self) -> np.ndarray:
        """Equity of the right action: double/pass or double/take when doubling, else no double."""
        dt_or_dp = np.minimum(self.double_take, self.double_pass)
        return np.where(self.double, dt_or_dp, self.no_double)


def _beaverable(dt, state: CubeState):
    """gnubg: the taker beavers (money, beavers allowed) when his take is worth at least 0, i.e. my
    double/take equity is within -2..0."""
    return state.is_money and state.beavers and (dt >= -2.0) & (dt <= 0.0)


def recommendation(nd, dt, dp, win_gammon, state: CubeState, available: bool) -> np.ndarray:
    """gnubg's recommendation code from the three equities (``FindBestCubeDecision``).

    Double when DT >= ND and DP >= ND: "double, take" if DP > DT (beaver if ``_beaverable``; "no double,
    beaver" if 2 DT < ND), else "double, pass" ("optional" when DP = ND, a gammon is possible, and the
    cube is live: match, owned cube, or no Jacoby). Otherwise no double: ND > DT > DP or DT >= ND > DP
    is "too good, pass", ND > DP >= DT "too good, take", DP >= ND > DT "no double, take/beaver"; "too
    good" needs a gammon chance, else it reads "double, pass" / "no double, take". "Optional" marks
    DT = ND (within 1e-5). An unavailable cube: dead in match play when it is centred or mine, else
    not available.
    """
    nd, dt, dp = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (nd, dt, dp)))
    wg = np.broadcast_to(np.asarray(win_gammon, dtype=bool), nd.shape)
    centred = state.owner == CENTRED
    if not available:
        dead_kind = NODOUBLE_DEADCUBE if centred else NO_REDOUBLE_DEADCUBE
        code = dead_kind if (not state.is_money and state.owner in (CENTRED, ME)) else NOT_AVAILABLE
        return np.full(nd.shape, code, dtype=np.int64)

    def pick(centred_code, owned_code):
        return centred_code if centred else owned_code

    beaver = _beaverable(dt, state) & np.ones(nd.shape, dtype=bool)
    optional = np.abs(dt - nd) <= OPTIONAL_EPSILON
    double_take = np.where(
        beaver,
        np.where(dt * 2.0 < nd, NODOUBLE_BEAVER, np.where(optional, OPTIONAL_DOUBLE_BEAVER, DOUBLE_BEAVER)),
        np.where(optional, pick(OPTIONAL_DOUBLE_TAKE, OPTIONAL_REDOUBLE_TAKE),
                 pick(DOUBLE_TAKE, REDOUBLE_TAKE)),
    )
    live = (not state.is_money) or (not centred) or (not state.jacoby)
    optional_pass = (np.abs(nd - dp) <= OPTIONAL_EPSILON) & wg & live
    double_pass = np.where(optional_pass, pick(OPTIONAL_DOUBLE_PASS, OPTIONAL_REDOUBLE_PASS),
                           pick(DOUBLE_PASS, REDOUBLE_PASS))
    too_good_pass = np.where(wg, pick(TOOGOOD_PASS, TOOGOODRE_PASS), pick(DOUBLE_PASS, REDOUBLE_PASS))
    too_good_take = np.where(wg, pick(TOOGOOD_TAKE, TOOGOODRE_TAKE), pick(NODOUBLE_TAKE, NO_REDOUBLE_TAKE))
    no_double_take = np.where(beaver, pick(NODOUBLE_BEAVER, NO_REDOUBLE_BEAVER),
                              pick(NODOUBLE_TAKE, NO_REDOUBLE_TAKE))
    no_double = np.where(nd > dt, np.where(dt > dp, too_good_pass, np.where(nd > dp, too_good_take,
                                                                           no_double_take)), too_good_pass)
    doubling = (dt >= nd) & (dp >= nd)
    return np.where(doubling, np.where(dp > dt, double_take, double_pass), no_double).astype(np.int64)


def take_response(dt, dp, state: CubeState) -> np.ndarray:
    """The taker's answer to a double: pass when my double/take equity DT >= DP (taking loses him more
    than the cube's value), else take, or beaver where ``_beaverable`` (money with beavers, DT <= 0)."""
    dt = np.asarray(dt, dtype=np.float64)
    take = np.where(_beaverable(dt, state) & np.ones(dt.shape, dtype=bool), BEAVER, TAKE)
    return np.where(dt >= np.asarray(dp), PASS, take)


def cube_decision(probs, x, state: CubeState) -> CubeDecision:
    """My cube decision on roll (gnubg's 0-ply ``GeneralCubeDecisionE`` + ``FindCubeDecision``).

    ND = cubeful value of the current state, DT = cubeful value after double/take (cube 2c, his),
    DP = what a pass gives me. Money: ND = ``money_cubeful_equity``, DT = 2 x the same at the doubled
    cube (per current cube), DP = +1. Match: ND, DT = ``match_cubeful_mwc``, DP = MWC(+c), all turned
    into normalised equity with ``mwc2eq`` at the current cube. ``x``: cube efficiency (scalar or
    (...,) like the batch), e.g. ``cube_efficiency(positions)``.
    """
    p = np.asarray(probs, dtype=np.float64)
    shape = p.shape[:-1]
    available = double_available(state)
    if state.is_money:
        nd = money_cubeful_equity(p, x, state)
        dt = 2.0 * money_cubeful_equity(p, x, state.doubled())
        dp = np.ones(shape)
        mwcs = (None, None, None)
    else:
        nd_m = match_cubeful_mwc(p, x, state)
        dt_m = match_cubeful_mwc(p, x, state.doubled())
        dp_m = np.full(shape, float(result_mwc(state, state.value)))
        nd, dt, dp = (np.broadcast_to(mwc2eq(m, state), shape) for m in (nd_m, dt_m, dp_m))
        mwcs = tuple(np.broadcast_to(m, shape) for m in (nd_m, dt_m, dp_m))
    nd, dt = np.broadcast_to(nd, shape), np.broadcast_to(dt, shape)
    code = recommendation(nd, dt, dp, p[..., WIN_GAMMON] > 0, state, available)
    return CubeDecision(
        no_double=nd, double_take=dt, double_pass=dp, code=code,
        double=np.isin(code, DOUBLING_CODES), response=take_response(dt, dp, state),
        no_double_mwc=mwcs[0], double_take_mwc=mwcs[1], double_pass_mwc=mwcs[2],
    )


def take_decision(probs_taker, x, state_taker: CubeState) -> np.ndarray:
    """My answer when the opponent doubles me: "take", "pass" or "beaver" (...,).

    ``probs_taker`` and ``state_taker`` are seen by me, the taker, with the opponent on roll about to
    roll; the decision is the doubler's DT against DP from his side (``take_response``)."""
    decision = cube_decision(flip_probs("backgammon", probs_taker), x, state_taker.flipped())
    return decision.response


def cubeful_value(probs, x, state: CubeState):
    """Cubeful value of a position where I am on roll and (if I may) have just decided not to double:
    money equity per current cube (``money_cubeful_equity``) or MWC (``match_cubeful_mwc``)."""
    if state.is_money:
        return money_cubeful_equity(probs, x, state)
    return match_cubeful_mwc(probs, x, state)


def checker_play_value(probs_after, state: CubeState, x=None):
    """Value for me of a play I made, to pick the best play: probs_after (..., 5) are from my side in
    the position after my play (the opponent now on roll), state is the cube/score seen by me.

    Money: cubeless equity ``money_cubeless_equity`` (x None) or cubeful, the opponent on roll:
    -money_cubeful_equity(flip(p), x, state seen by him). Match: the MWC, cubeless
    ``match_cubeless_mwc`` or cubeful 1 - match_cubeful_mwc(flip(p), x, state seen by him), as gnubg
    ``ScoreMove``. Checker play at a match score maximises this MWC, not the money equity.
    """
    p = np.asarray(probs_after, dtype=np.float64)
    if x is None:
        return money_cubeless_equity(p, state) if state.is_money else match_cubeless_mwc(p, state)
    kernels = _kernels() if state.is_money and p.ndim == 2 else None
    if kernels is not None:
        out = np.empty(len(p))
        x = np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=np.float64), (len(p),)))
        kernels.money_checker_values(np.ascontiguousarray(p), x,
                                     _THEIR_KERNEL_OWNERS[state.owner], bool(state.jacoby), out)
        return out
    theirs = flip_probs("backgammon", p)
    if state.is_money:
        return -money_cubeful_equity(theirs, x, state.flipped())
    return 1.0 - match_cubeful_mwc(theirs, x, state.flipped())


def play_values(children, probs_after, state: CubeState):
    """``checker_play_value`` of plays at the cube efficiency of the positions they leave: the same
    numbers as ``checker_play_value(probs_after, state, cube_efficiency(flip(children)))``, children
    (B, 28) in the player's frame, in one compiled pass for money where the kernels run (a hint's
    plays: about 2 against 10 us)."""
    kernels = _kernels() if state.is_money else None
    if kernels is None:
        return checker_play_value(probs_after, state, cube_efficiency(flip("backgammon", children)))
    out = np.empty(len(children))
    kernels.money_play_values(np.ascontiguousarray(children, dtype=np.int8),
                              np.ascontiguousarray(probs_after, dtype=np.float64), _KERNEL_CONSTANTS,
                              _THEIR_KERNEL_OWNERS[state.owner], bool(state.jacoby), out)
    return out


# the names defined here and those re-exported from model/cube/match_equity.py (the cube, score and MWC)
__all__ = [
    "BEAROFF_X", "BEAVER", "CENTRED", "CLASS_BEAROFF1", "CLASS_BEAROFF2", "CLASS_BEAROFF_OS",
    "CLASS_BEAROFF_TS", "CLASS_CONTACT", "CLASS_CRASHED", "CLASS_NAMES", "CLASS_OVER", "CLASS_RACE",
    "CONTACT_X", "CRASHED_X", "DOUBLE_BEAVER", "DOUBLE_PASS", "DOUBLE_TAKE", "DOUBLING_CODES", "LABELS",
    "ME", "NODOUBLE_BEAVER", "NODOUBLE_DEADCUBE", "NODOUBLE_TAKE", "NOT_AVAILABLE", "NO_REDOUBLE_BEAVER",
    "NO_REDOUBLE_DEADCUBE", "NO_REDOUBLE_TAKE", "OPPONENT", "OPTIONAL_DOUBLE_BEAVER", "OPTIONAL_DOUBLE_PASS",
    "OPTIONAL_DOUBLE_TAKE", "OPTIONAL_EPSILON", "OPTIONAL_REDOUBLE_PASS", "OPTIONAL_REDOUBLE_TAKE", "OWNERS",
    "PASS", "RACE_X_BASE", "RACE_X_MAX", "RACE_X_MIN", "RACE_X_PER_PIP", "REDOUBLE_PASS", "REDOUBLE_TAKE",
    "TAKE", "TOOGOODRE_PASS", "TOOGOODRE_TAKE", "TOOGOOD_PASS", "TOOGOOD_TAKE", "TWO_SIDED_BEAROFF",
    "CubeDecision", "CubeState", "checker_play_value", "cube_decision", "cube_efficiency", "cube_is_dead",
    "cube_prime", "cubeful_value", "double_available", "eq2mwc", "gammon_prices", "live_cash_points",
    "match", "match_cubeful_mwc", "match_cubeless_equity", "match_cubeless_mwc", "money",
    "money_cubeful_equity", "money_cubeless_equity", "mwc2eq", "play_values", "position_class", "race_efficiency",
    "recommendation", "result_mwc", "take_decision", "take_response",
]
