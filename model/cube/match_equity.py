"""The cube and score (``CubeState``) and match-winning chances (MWC) at them, from a match equity table.

Follows GNU Backgammon (gnubg) 1.07 (``matchequity.c``, ``eval.c``), as model/cube/decisions.py does; the cube
decisions built on these numbers are in model/cube/decisions.py, the tables themselves in model/cube/met.py.
Probabilities are (..., 5) arrays in model/net/equity.py's order, cumulative, seen by the side on roll
("me"): [win, win_gammon, win_backgammon, lose_gammon, lose_backgammon]. The cube and score are one
``CubeState`` (a scalar, shared by the whole batch), also seen by the side on roll.

Match values are MWC; "normalised equity" is gnubg's linear map of MWC onto money-like units at the
current cube c (``eq2mwc`` / ``mwc2eq``): -1 = MWC after I lose c points, +1 = MWC after I win them.
Cubeful MWC is Joern Thyssen's match version of Janowski's model (gnubg ``Cl2CfMatch``): with cube
efficiency x, MWC = (1 - x) MWC_dead + x MWC_live (see ``match_cubeful_mwc``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from engine.cube_state import CubeOwner
from model.cube.met import DEFAULT_MET, MAX_AWAY, MatchEquityTable, load_met
from model.net.equity import LOSE_BACKGAMMON, LOSE_GAMMON, WIN, WIN_BACKGAMMON, WIN_GAMMON

CENTRED, ME, OPPONENT = CubeOwner.CENTRED, CubeOwner.ME, CubeOwner.OPPONENT
OWNERS = tuple(CubeOwner)


# ---------------------------------------------------------------- the cube and score
@dataclass(frozen=True)
class CubeState:
    """Cube and score seen by the side on roll ("me").

    value: cube value (power of 2); owner: "centred", "me" or "opponent"; match_length: 0 for money;
    score_me/score_opp: points already won (match only); crawford: this game is the Crawford game;
    jacoby: money, centred cube, gammons count only once the cube has been turned; beavers: money,
    the taker may beaver (redouble at once, keeping the cube); met: MET name or path (match only).
    """

    value: int = 1
    owner: str = CENTRED
    match_length: int = 0
    score_me: int = 0
    score_opp: int = 0
    crawford: bool = False
    jacoby: bool = True
    beavers: bool = True
    met: str = DEFAULT_MET

    def __post_init__(self):
        v = self.value
        if not isinstance(v, (int, np.integer)) or v < 1 or v & (v - 1) or v > 2**12:
            raise ValueError(f"cube value must be a power of 2 from 1 to 4096, got {v!r}")
        if self.owner not in OWNERS:
            raise ValueError(f"cube owner must be one of {', '.join(OWNERS)}, got {self.owner!r}")
        if not 0 <= self.match_length <= MAX_AWAY:
            raise ValueError(f"match length must be 0 (money) to {MAX_AWAY}, got {self.match_length}")
        if self.match_length == 0:
            if self.score_me or self.score_opp or self.crawford:
                raise ValueError("a money game has no score and no Crawford game")
            return
        n = self.match_length
        if not (0 <= self.score_me < n and 0 <= self.score_opp < n):
            raise ValueError(f"scores must be 0..{n - 1} in a {n}-point match")
        if self.crawford and (self.away_me == 1) == (self.away_opp == 1):
            raise ValueError("the Crawford game is played when exactly one side is 1-away")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def away_me(self) -> int:
        return self.match_length - self.score_me

    @property
    def away_opp(self) -> int:
        return self.match_length - self.score_opp

    @property
    def post_crawford(self) -> bool:
        """A post-Crawford game: a side is 1-away and the Crawford game has been played."""
        return not self.is_money and not self.crawford and (self.away_me == 1 or self.away_opp == 1)

    @property
    def table(self) -> MatchEquityTable:
        return load_met(self.met)

    def flipped(self) -> CubeState:
        """The same state seen by the opponent."""
        owner = {CENTRED: CENTRED, ME: OPPONENT, OPPONENT: ME}[self.owner]
        return replace(self, owner=owner, score_me=self.score_opp, score_opp=self.score_me)

    def doubled(self) -> CubeState:
        """After I double and the opponent takes: cube twice the value, owned by the opponent."""
        return replace(self, value=2 * self.value, owner=OPPONENT)


def money(owner: str = CENTRED, value: int = 1, jacoby: bool = True, beavers: bool = True) -> CubeState:
    """A money-game CubeState."""
    return CubeState(value=value, owner=owner, jacoby=jacoby, beavers=beavers)


def match(length: int, score_me: int = 0, score_opp: int = 0, value: int = 1, owner: str = CENTRED,
          crawford: bool | None = None, met: str = DEFAULT_MET) -> CubeState:
    """A match CubeState; crawford=None means "the Crawford game if exactly one side is 1-away" (the
    first game at that score). Pass crawford=False for a post-Crawford game."""
    if crawford is None:
        crawford = (length - score_me == 1) != (length - score_opp == 1) and value == 1 and owner == CENTRED
    return CubeState(value=value, owner=owner, match_length=length, score_me=score_me,
                     score_opp=score_opp, crawford=crawford, jacoby=False, beavers=False, met=met)


def double_available(state: CubeState) -> bool:
    """Whether I, on roll, may double now (gnubg ``GetDPEq``): money: the cube is centred or mine.
    Match: also not the Crawford game, not a dead cube (score_me + value < length: winning the
    current value must not already win me the match), and not the 1-away leader post-Crawford."""
    mine = state.owner in (CENTRED, ME)
    if state.is_money:
        return mine
    leader_post_crawford = state.post_crawford and state.away_me == 1
    return mine and not state.crawford and state.away_me > state.value and not leader_post_crawford


def cube_is_dead(state: CubeState) -> bool:
    """No cube play is left in this game (gnubg ``fDoCubeful`` false): the Crawford game, both sides
    win the match by winning the current value, or 2-away against 2-away (the first double is
    already the whole match)."""
    if state.is_money:
        return False
    both_win = state.away_me <= state.value and state.away_opp <= state.value
    return state.crawford or both_win or (state.away_me == 2 and state.away_opp == 2)


def cube_prime(away_me: int, away_opp: int, value: int) -> int:
    """Cube value the play ends at when I double to 2 x ``value``: doubled again to 4 x value if that
    redouble is free for the taker (winning 2 x value already wins me the match, but not him: he
    redoubles at once, e.g. the post-Crawford trailer's automatic redouble); gnubg
    ``GetCubePrimeValue`` on 0-based aways."""
    i, j = away_me - 1, away_opp - 1
    return 2 * value if (i < 2 * value and j >= 2 * value) else value


# ---------------------------------------------------------------- match play: MWC from the MET
def result_mwc(state: CubeState, points):
    """My MWC once this game ends with me winning ``points`` (> 0) or losing ``-points`` (< 0)
    (gnubg ``getME``). A result that leaves a side 1-away leads to the Crawford game, unless this game
    is already the Crawford game or post-Crawford: then the post-Crawford table applies."""
    pts = np.asarray(points)
    if pts.ndim == 0:
        return _result_mwc(state, int(pts))
    return np.array([_result_mwc(state, int(n)) for n in pts.ravel()]).reshape(pts.shape)


@lru_cache(maxsize=1 << 16)
def _result_mwc(state: CubeState, points: int) -> float:
    a = state.away_me - max(points, 0)
    b = state.away_opp - max(-points, 0)
    later = state.crawford or state.away_me == 1 or state.away_opp == 1
    return float(state.table.mwc(a, b, post_crawford=later))


def gammon_prices(state: CubeState) -> tuple[float, float, float, float]:
    """(my gammon, his gammon, my backgammon, his backgammon) prices at this score and cube (gnubg
    ``getGammonPrice``), in normalised equity: with c the cube, Win = MWC(+c), Lose = MWC(-c),
    C = (Win + Lose)/2, H = Win - C:
        g_me = (MWC(+2c) - C)/H - 1,   g_opp = (C - MWC(-2c))/H - 1,
        b_me = (MWC(+3c) - C)/H - (1 + g_me),   b_opp = (C - MWC(-3c))/H - (1 + g_opp),
    negatives set to 0 and all 0 when H is ~0. The usual "gammon value" (MWC(win gammon) - MWC(win)) /
    (MWC(win) - MWC(lose)) is g_me / 2. Money: 1, 1, 1, 1 (0 with Jacoby on a centred cube)."""
    if state.is_money:
        k = 0.0 if (state.jacoby and state.owner == CENTRED) else 1.0
        return (k, k, k, k)
    c = state.value
    m = result_mwc(state, np.array([c, 2 * c, 3 * c, -c, -2 * c, -3 * c]))
    win, win_g, win_bg, lose, lose_g, lose_bg = (float(v) for v in m)
    centre = (win + lose) / 2.0
    half = win - centre
    if abs(half) <= 1e-7:
        return (0.0, 0.0, 0.0, 0.0)
    g_me = (win_g - centre) / half - 1.0
    g_opp = (centre - lose_g) / half - 1.0
    b_me = (win_bg - centre) / half - (g_me + 1.0)
    b_opp = (centre - lose_bg) / half - (g_opp + 1.0)
    return tuple(max(v, 0.0) for v in (g_me, g_opp, b_me, b_opp))


def match_cubeless_equity(probs, state: CubeState):
    """Cubeless normalised equity at the score (gnubg ``Utility``): E = 2p - 1 + g_me P(wg) - g_opp
    P(lg) + b_me P(wbg) - b_opp P(lbg) with ``gammon_prices``."""
    p = np.asarray(probs, dtype=np.float64)
    g_me, g_opp, b_me, b_opp = gammon_prices(state)
    return (2 * p[..., WIN] - 1 + g_me * p[..., WIN_GAMMON] - g_opp * p[..., LOSE_GAMMON]
            + b_me * p[..., WIN_BACKGAMMON] - b_opp * p[..., LOSE_BACKGAMMON])


def eq2mwc(equity, state: CubeState):
    """Normalised equity -> MWC, linear through (-1, MWC(-c)) and (+1, MWC(+c)):
    MWC = (E (Win - Lose) + (Win + Lose)) / 2."""
    win, lose = (float(v) for v in result_mwc(state, np.array([state.value, -state.value])))
    return 0.5 * (np.asarray(equity) * (win - lose) + (win + lose))


def mwc2eq(mwc, state: CubeState):
    """MWC -> normalised equity, the inverse of ``eq2mwc``: E = (2 MWC - (Win + Lose)) / (Win - Lose)."""
    win, lose = (float(v) for v in result_mwc(state, np.array([state.value, -state.value])))
    return (2 * np.asarray(mwc) - (win + lose)) / (win - lose)


def match_cubeless_mwc(probs, state: CubeState):
    """Cubeless MWC: every outcome weighted by the MWC it leaves, = eq2mwc(match_cubeless_equity)."""
    return eq2mwc(match_cubeless_equity(probs, state), state)


def _outcome_ratios(p):
    """Gammon-only and backgammon ratios of my wins and of his wins: g = (P(wg) - P(wbg)) / P(win),
    b = P(wbg) / P(win), and the same for losses over P(loss); 0 where P(win) is 0 or 1."""
    win = p[..., WIN]
    pw = np.where(win > 0, win, 1.0)
    pl = np.where(win < 1, 1 - win, 1.0)
    g_me = np.where(win > 0, (p[..., WIN_GAMMON] - p[..., WIN_BACKGAMMON]) / pw, 0.0)
    b_me = np.where(win > 0, p[..., WIN_BACKGAMMON] / pw, 0.0)
    g_opp = np.where(win < 1, (p[..., LOSE_GAMMON] - p[..., LOSE_BACKGAMMON]) / pl, 0.0)
    b_opp = np.where(win < 1, p[..., LOSE_BACKGAMMON] / pl, 0.0)
    return g_me, b_me, g_opp, b_opp


def live_cash_points(probs, state: CubeState):
    """(my cash point, his cash point) with a live cube at the score (gnubg ``GetPoints``), each as the
    P(win) of that side where it cashes, from its own side.

    Walk the cube levels from the last one that can still be turned (both sides at least 2 x value
    from the end) down to the current value v. With R(n) the MWC of a side after it wins n points
    (R(-n): loses n), g/b its gammon/backgammon ratios and ``cube_prime`` c' (free redoubles):
    - if the doubled cube would be dead (a side is less than 2v from the end), the dead-cube cash point
      CP = (DTL - DP) / (DTL - DTW), DP = R(v), DTW = (1-g-b) R(2c') + g R(4c') + b R(6c') for the
      side's wins and DTL the same over the other side's wins with R(-2c'), R(-4c'), R(-6c');
    - else CP = 1 - CP_other(2v) (DP - DTW) / (RDP - DTW), RDP = R(-2v), DTW at 2v, 4v, 6v: the
      other side's cash point one level up says where my doubled cube gets cashed back.
    """
    p = np.asarray(probs, dtype=np.float64)
    g_me, b_me, g_opp, b_opp = _outcome_ratios(p)
    rates = {ME: (g_me, b_me), OPPONENT: (g_opp, b_opp)}
    i, j = state.away_me - 1, state.away_opp - 1
    v0 = state.value
    top, levels = v0, 0
    while i >= 2 * top and j >= 2 * top:
        top, levels = 2 * top, levels + 1
    live = {ME: {}, OPPONENT: {}}

    def r(side, n):  # MWC of ``side`` after it wins n points (n < 0: loses)
        mine = result_mwc(state, n if side == ME else -n)
        return mine if side == ME else 1.0 - mine

    v, n = top, levels
    with np.errstate(divide="ignore", invalid="ignore"):
        while v >= v0:
            for k, other in ((ME, OPPONENT), (OPPONENT, ME)):
                (g, b), (go, bo) = rates[k], rates[other]
                dp = r(k, v)
                if i < 2 * v or j < 2 * v:
                    c = cube_prime(i + 1, j + 1, v) if k == ME else cube_prime(j + 1, i + 1, v)
                    dtw = (1 - g - b) * r(k, 2 * c) + g * r(k, 4 * c) + b * r(k, 6 * c)
                    dtl = (1 - go - bo) * r(k, -2 * c) + go * r(k, -4 * c) + bo * r(k, -6 * c)
                    live[k][n] = (dtl - dp) / (dtl - dtw)
                else:
                    dtw = (1 - g - b) * r(k, 2 * v) + g * r(k, 4 * v) + b * r(k, 6 * v)
                    live[k][n] = 1 - live[other][n + 1] * (dp - dtw) / (r(k, -2 * v) - dtw)
            v, n = v // 2, n - 1
    return live[ME][0], live[OPPONENT][0]


def match_cubeful_mwc(probs, x, state: CubeState):
    """Cubeful MWC at the score (gnubg ``Cl2CfMatch``, Joern Thyssen's match version of Janowski):
    MWC = (1 - x) MWC_dead + x MWC_live; MWC_dead = ``match_cubeless_mwc``; a dead cube
    (``cube_is_dead``) gives MWC_dead alone.

    MWC_live is piecewise linear in p = P(win) through, with TG = my ``live_cash_points`` and
    oTG = 1 - his: (0, Lose) -> (oTG, R(-c)) -> (TG, R(+c)) -> (1, Win), Win/Lose the gammon-weighted
    MWC of a win/loss at cube c. My cube: (0, Lose) -> (TG, R(+c)) -> (1, Win). His cube:
    (0, Lose) -> (oTG, R(-c)) -> (1, Win).
    """
    p = np.asarray(probs, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    dead = match_cubeless_mwc(p, state)
    if cube_is_dead(state):
        return dead
    c = state.value
    win_p = p[..., WIN]
    g_me, b_me, g_opp, b_opp = _outcome_ratios(p)
    r1, r2, r3, l1, l2, l3 = result_mwc(state, np.array([c, 2 * c, 3 * c, -c, -2 * c, -3 * c]))
    win = (1 - g_me - b_me) * r1 + g_me * r2 + b_me * r3
    lose = (1 - g_opp - b_opp) * l1 + g_opp * l2 + b_opp * l3
    cp_me, cp_opp = live_cash_points(p, state)
    tg, opp_tg = cp_me, 1.0 - cp_opp
    with np.errstate(divide="ignore", invalid="ignore"):
        below_otg = np.where(opp_tg > 0, lose + (l1 - lose) * win_p / opp_tg, lose)
        above_tg = np.where(tg < 1, r1 + (win - r1) * (win_p - tg) / (1 - tg), win)
        if state.owner == CENTRED:
            window = l1 + (r1 - l1) * (win_p - opp_tg) / (tg - opp_tg)
            live = np.where(win_p <= opp_tg, below_otg, np.where(win_p < tg, window, above_tg))
        elif state.owner == ME:
            below_tg = np.where(tg > 0, lose + (r1 - lose) * win_p / tg, lose)
            live = np.where(win_p <= tg, below_tg, above_tg)
        else:
            live = np.where(win_p <= opp_tg, below_otg, l1 + (win - l1) * (win_p - opp_tg) / (1 - opp_tg))
    return dead * (1 - x) + live * x
