"""Rollouts: the value of a position, or of each candidate play of a roll, by playing it out many times.

    result = rollout(net, position, dice=[3, 1], trials=1296)      # candidate plays, ranked
    result = rollout(net, position, trials=1296, state=CubeState()) # cubeless value + cube decision
    result.to_json()                                                # nardibot/cli/cmd_rollout.py's schema

The trials are played by model/search/trials.py (batched; common and quasi-random dice; luck
adjustment; truncation; bear-off databases; cube decisions in cubeful trials). Here: which
candidates to roll out, and the statistics of what comes back.

With dice, the candidates are the plays of the roll: by default those hint would look at more
deeply (lookahead.move_filter on the 0-ply values: at most ``keep`` plays within ``margin`` of the
best), or ``plays="all"``, or a list of plays in notation. Each starts with the opponent on roll;
the root side is the one who played. Without dice, the position itself is rolled out with its side
on roll as the root, cubeless, and in backgammon with a ``state`` (cube and score) also cubeful
twice, as gnubg does for a cube decision: "no double" (cube as it is, the root not doubling at its
first turn) and "double, take" (cube x2, owned by the opponent); "double, pass" is +1 (money, per
cube) or the MWC of winning the cube.

Statistics over n finished trials, x_t one trial's (luck-adjusted) estimate:
    mean = sum_t x_t / n,   se = sd(x) / sqrt(n)  (sd with n - 1),   95% interval: mean -+ 1.96 se.
Equity is cubeless money equity of the probabilities (linear, so the mean of the trials' equities
is the equity of the mean probabilities); cubeful values are money equity per the root's starting
cube, or MWC in a match (the cube decision also in normalised equity, gnubg's mwc2eq). The best
play is *separated* from the second when the 95% interval of the paired difference d_t = x_t(best)
- x_t(second) (same trial, same dice) excludes 0. ``raw_se`` is the standard error of the same
trials without the luck adjustment (the variance reduction factor is raw_se / se). The quasi-random
first rolls make the plain sd slightly pessimistic: the intervals err on the wide side.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from engine.board import CHECKERS, OFF, OPP_OFF, flip
from engine.cube_state import CubeOwner
from engine.errors import FormatError
from engine.movegen import legal_plays
from engine.notation import format_plays, parse_play
from model.cube import decisions as cube
from model.net.equity import OUTPUT_NAMES, cubeless_equity
from model.net.evaluator import ExactEndgames, child_probabilities
from model.net.inference import CHUNK, NumpyNet
from model.search.lookahead import MOVE_FILTER_KEEP, MOVE_FILTER_MARGIN, move_filter
from model.search.trials import NO_OWNER, OTHER, ROOT, Candidates, Settings, Trials

Z95 = 1.959963984540054


def _stats(x: np.ndarray) -> dict:
    """mean, se and 95% interval of per-trial values x (n,) or (n, K)."""
    n = len(x)
    mean = x.mean(axis=0)
    se = x.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(np.shape(mean), np.nan)
    return {"mean": mean, "se": se, "low": mean - Z95 * se, "high": mean + Z95 * se}


@dataclass
class Estimate:
    """One candidate's rolled-out numbers (root side's view)."""

    label: str
    position: np.ndarray | None  # the play's result (mover's frame, before the turn passes), or None
    probs: np.ndarray  # (K,) mean probabilities
    probs_se: np.ndarray  # (K,)
    equity: float  # cubeless equity
    equity_se: float
    raw_equity_se: float  # the same trials without the luck adjustment
    cubeful: float | None = None  # money equity per starting cube, or MWC
    cubeful_se: float | None = None
    raw_cubeful_se: float | None = None
    trials: int = 0

    @property
    def value(self) -> float:
        """What plays are ranked by: the cubeful value when there is one, else cubeless equity."""
        return self.equity if self.cubeful is None else self.cubeful

    @property
    def se(self) -> float:
        return self.equity_se if self.cubeful is None else self.cubeful_se


@dataclass
class RolloutResult:
    game: str
    dice: tuple[int, int] | None
    trials_asked: int
    trials: int  # finished (all candidates); fewer than asked when interrupted
    interrupted: bool
    seconds: float
    settings: dict
    plays: list[Estimate] = field(default_factory=list)  # with dice: best first
    evaluation: Estimate | None = None  # without dice: the position, cubeless
    separation: dict | None = None  # with dice and 2+ plays: best vs second, paired
    cube_decision: dict | None = None  # without dice, cubeful backgammon

    @property
    def trials_per_s(self) -> float:
        return self.trials / self.seconds if self.seconds > 0 else math.inf


def candidate_plays(net, game, position, dice, plays="filter", keep=MOVE_FILTER_KEEP, margin=MOVE_FILTER_MARGIN,
                    utility=None):
    """(children (M, 28), notation (M,)) of the plays to roll out; ValueError for no legal play or
    a play that is not legal. ``plays``: "filter", "all", or a list of plays in notation."""
    children, _ = legal_plays(game, position[None], np.asarray(dice)[None])
    if len(children) == 1 and np.array_equal(children[0], position):
        raise ValueError(f"no legal play with {dice[0]}-{dice[1]}: there is nothing to roll out")
    if isinstance(plays, str) and plays == "filter":
        probs = child_probabilities(net, children)
        util = utility(probs, children) if utility is not None else cubeless_equity(game, probs)
        children = children[np.sort(move_filter(util, keep, margin))]
    elif not (isinstance(plays, str) and plays == "all"):
        wanted = []
        for text in plays:
            try:
                child = parse_play(game, position, dice, text)
            except (FormatError, ValueError) as e:
                raise ValueError(f"play {text!r}: {e}") from None
            if not any(np.array_equal(child, w) for w in wanted):
                wanted.append(child)
        children = np.stack(wanted)
    return children, format_plays(game, position, dice, children)


def rollout(net, position, dice=None, trials: int = 1296, *, plies: int = 0, truncate: int = 0,
            vr: bool = True, bearoff: bool = True, seed: int = 0, plays="filter", state=None,
            cubeful: bool | None = None, keep: int = MOVE_FILTER_KEEP, margin: float = MOVE_FILTER_MARGIN, prune: int = 4,
            quasi: bool = True, batch: int | None = None, device="cpu", progress=None, stop=None,
            engine=Trials) -> RolloutResult:
    """Roll out ``position`` (28,) int8, mover's frame (module docstring). ``state``: the root
    side's model.cube.decisions.CubeState (backgammon; None: cubeless only). ``cubeful``: with
    dice, roll the plays out with the cube in play; without dice, add the cube decision (default,
    None: both whenever ``state`` is given). ``batch``: items in play at once
    (default 256 with luck adjustment, 4096 without). ``prune`` > 0 (0-ply backgammon): the luck
    uses the best of each roll's ``prune`` best plays by pubeval's score instead of all plays,
    found by model/search/top_plays.py (0: all plays, the textbook method; 4, the default, is about 4
    times faster and its intervals some 6% wider at equal trials: the most precision per CPU second
    of 2, 3, 4, 6, 8, 0). ``quasi``: quasi-random first two throws (off: plain
    random dice, e.g. to check the intervals). ``progress(n)`` is called with each newly finished
    trial count. Ctrl-C (KeyboardInterrupt), or ``stop()`` turning true (a server's cancel: asked after
    every ply, and in this process before every block of the network's calls, ``checked``), stops
    early: the result holds the trials finished by every candidate, ``interrupted`` set.
    ``engine``: what plays the trials, called as Trials is (model/search/rollout_workers.py passes
    one that spreads them over Ray workers).
    ValueError for bad input."""
    game = net.config.game
    pos = np.asarray(position, dtype=np.int8)
    if trials < 2:
        raise ValueError(f"trials must be at least 2 (for a standard error), got {trials}")
    if pos[OFF] == CHECKERS or pos[OPP_OFF] == CHECKERS:
        raise ValueError("the game is over: a side has borne off all 15 checkers")
    if plies < 0 or truncate < 0:
        raise ValueError("plies and truncate must be >= 0")
    if game != "backgammon":
        state = None
    cubeful = (state is not None) if cubeful is None else (cubeful and state is not None)
    evaluator = ExactEndgames(net) if bearoff else net
    if prune < 0:
        raise ValueError(f"prune must be >= 0, got {prune}")
    s = Settings(game, plies, truncate, vr, bearoff, seed, keep, margin, prune, quasi, state if cubeful else None,
                 device)
    seat = CubeOwner(state.owner).seat(ROOT) if cubeful else None
    c0, owner = (state.value if cubeful else 1), (NO_OWNER if seat is None else seat)
    labels, kids = [], None
    if dice is not None:
        dice = (int(dice[0]), int(dice[1]))
        utility = None
        if cubeful:
            def utility(p, ch):
                return cube.checker_play_value(p, state, cube.cube_efficiency(flip(game, ch)))
        kids, labels = candidate_plays(evaluator, game, pos, dice, plays, keep, margin, utility)
        m = len(kids)
        cands = Candidates(flip(game, kids), np.zeros(m, bool), np.full(m, cubeful), np.full(m, c0),
                           np.full(m, owner), np.zeros(m, bool))  # owners are absolute: no flip
    else:
        available = cubeful and cube.double_available(state)
        labels = ["position"] + (["no double"] if cubeful else []) + (["double, take"] if available else [])
        m = len(labels)
        cands = Candidates(np.repeat(pos[None], m, axis=0), np.ones(m, bool), np.array([False] + [True] * (m - 1)),
                           np.array([1, c0, 2 * c0][:m]), np.array([NO_OWNER, owner, OTHER][:m]),
                           np.array([False, True, False][:m]))
    if batch is None:
        batch = 256 if vr else 4096
    started = time.perf_counter()
    engine = engine(evaluator, cands, trials, s, batch)
    interrupted, shown = False, 0

    def check():
        if stop is not None and stop():
            raise KeyboardInterrupt("stopped on request")

    if stop is not None and isinstance(engine, Trials):  # in this process: seen within a ply too
        engine.net = checked(engine.net, check)

    def report(_ended):
        nonlocal shown
        check()
        now = engine.completed()
        if progress is not None and now > shown:
            progress(now - shown)
        shown = max(shown, now)

    try:
        engine.run(report)
    except KeyboardInterrupt:
        interrupted = True
    seconds = time.perf_counter() - started
    n = engine.completed()
    if n < 2:
        raise KeyboardInterrupt("stopped before two trials of every candidate were finished")
    estimates = [_estimate(game, engine, i, n, labels[i], None if kids is None else kids[i]) for i in range(m)]
    settings = {"trials": trials, "ply": plies, "truncate": truncate, "vr": vr, "bearoff": bearoff, "seed": seed,
                "cubeful": bool(cubeful), "plays": plays if isinstance(plays, str) else list(plays),
                "keep": keep, "margin": margin, "prune": prune, "quasi": quasi}
    result = RolloutResult(game, dice, trials, n, interrupted, seconds, settings)
    if dice is not None:
        order = sorted(range(m), key=lambda i: -estimates[i].value)
        result.plays = [estimates[i] for i in order]
        if m > 1:
            result.separation = _paired(engine, order[0], order[1], n, cubeful, game)
    else:
        result.evaluation = estimates[0]
        if cubeful:
            result.cube_decision = _cube_decision(engine, estimates, n, state)
    return result


class Checked:
    """An evaluator that asks ``check()`` (which raises to stop) before each block of at most ``CHUNK``
    rows it scores, so that a stop is seen within a ply: one ply of 2-ply trials scores millions of
    positions. A numpy network gets the very blocks it makes of a large call itself (model/net/
    inference.py), so every number stays the same to the bit; another network, whole calls."""

    def __init__(self, net, check):
        self.net, self.config, self.check = net, net.config, check
        self.block = CHUNK if isinstance(net, NumpyNet) else None

    def eval(self):
        self.net.eval()
        return self

    def scored_by_kernel(self, positions: np.ndarray, children: bool = False, skip_bearoff: bool = False,
                         parents=None):
        """The net's ``scored_by_kernel`` (model/net/evaluator.py's ``child_probabilities`` takes its
        compiled path through it), in the same blocks, ``check()`` before each; None where it does not
        run. A row's numbers do not depend on its block."""
        kernel = getattr(self.net, "scored_by_kernel", None)
        if kernel is None:
            return None
        n = len(positions)
        size = self.block or max(n, 1)
        out, left = None, np.zeros(n, dtype=bool)
        for start in range(0, n, size):
            self.check()
            rows = slice(start, start + size)
            part = None if parents is None else (parents[0], parents[1][rows])
            got = kernel(positions[rows], children=children, skip_bearoff=skip_bearoff, parents=part)
            if got is None:
                return None
            if out is None:
                out = np.empty((n, got[0].shape[1]))
            out[rows] = got[0]
            if got[1] is not None:
                left[rows] = got[1]
        return None if out is None else (out, left if left.any() else None)

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        n = len(positions)
        if self.block is None or n <= self.block:
            self.check()
            return self.net.probabilities(positions, device)
        out = np.empty((n, self.config.outputs))
        for start in range(0, n, self.block):
            self.check()
            out[start : start + self.block] = self.net.probabilities(positions[start : start + self.block], device)
        return out


def checked(net, check):
    """``net`` scoring through ``Checked``, innermost: inside ExactEndgames, which picks the rows the
    network scores."""
    if isinstance(net, ExactEndgames):
        return ExactEndgames(Checked(net.net, check), net.two_sided)
    return Checked(net, check)


def _values(engine: Trials, i: int, n: int, cubeful: bool, game: str) -> np.ndarray:
    return engine.cf[i, :n] if cubeful else cubeless_equity(game, engine.probs[i, :n])


def _estimate(game, engine: Trials, i: int, n: int, label: str, child) -> Estimate:
    probs, eq = _stats(engine.probs[i, :n]), _stats(cubeless_equity(game, engine.probs[i, :n]))
    raw_eq = _stats(cubeless_equity(game, engine.raw[i, :n]))
    est = Estimate(label, child, probs["mean"], probs["se"], float(eq["mean"]), float(eq["se"]),
                   float(raw_eq["se"]), trials=n)
    if engine.c.cubeful[i]:
        cf, raw = _stats(engine.cf[i, :n]), _stats(engine.cf_raw[i, :n])
        est.cubeful, est.cubeful_se, est.raw_cubeful_se = float(cf["mean"]), float(cf["se"]), float(raw["se"])
    return est


def _paired(engine, best: int, second: int, n: int, cubeful: bool, game: str) -> dict:
    """Best minus second, trial by trial (common dice): mean, se, 95% interval, separated."""
    d = _stats(_values(engine, best, n, cubeful, game) - _values(engine, second, n, cubeful, game))
    return {"difference": float(d["mean"]), "se": float(d["se"]), "ci95": [float(d["low"]), float(d["high"])],
            "separated": bool(d["low"] > 0)}


def _cube_decision(engine: Trials, est: list[Estimate], n: int, state) -> dict:
    """gnubg's recommendation from the rolled-out no double / double, take / double, pass."""
    money = state.is_money
    available = cube.double_available(state)

    def normalised(x):
        return x if money else float(cube.mwc2eq(x, state))

    dp_mwc = None if money else float(cube.result_mwc(state, state.value))
    nd = est[1].cubeful
    dt = est[2].cubeful if available else math.nan
    dp = 1.0 if money else dp_mwc
    nd_e, dt_e, dp_e = normalised(nd), normalised(dt) if available else math.nan, normalised(dp)
    code = int(cube.recommendation(nd_e, dt_e if available else nd_e, dp_e, est[0].probs[1] > 0, state, available))
    out = {"action": cube.LABELS[code], "double": code in cube.DOUBLING_CODES,
           "response": str(cube.take_response(dt_e, dp_e, state)) if available else None,
           "unit": "equity" if money else "mwc",
           "no_double": _interval(nd, est[1].cubeful_se), "double_take": None,
           "double_pass": {"value": dp, "se": 0.0, "ci95": [dp, dp]},
           "normalised": {"no_double": nd_e, "double_take": dt_e if available else None, "double_pass": dp_e}}
    if available:
        out["double_take"] = _interval(dt, est[2].cubeful_se)
        d = _stats(engine.cf[2, :n] - engine.cf[1, :n])
        out["double_minus_no_double"] = {"difference": float(d["mean"]), "se": float(d["se"]),
                                         "ci95": [float(d["low"]), float(d["high"])],
                                         "separated": bool(d["low"] > 0 or d["high"] < 0)}
    return out


def _interval(value: float, se: float) -> dict:
    return {"value": value, "se": se, "ci95": [value - Z95 * se, value + Z95 * se]}


def estimate_json(game: str, e: Estimate) -> dict:
    names = OUTPUT_NAMES[game]
    out = {"probs": {k: float(v) for k, v in zip(names, e.probs)},
           "probs_se": {k: float(v) for k, v in zip(names, e.probs_se)},
           "equity": e.equity, "equity_se": e.equity_se,
           "ci95": [e.equity - Z95 * e.equity_se, e.equity + Z95 * e.equity_se],
           "raw_equity_se": e.raw_equity_se, "cubeful": None, "trials": e.trials}
    if e.cubeful is not None:
        out["cubeful"] = {**_interval(e.cubeful, e.cubeful_se), "raw_se": e.raw_cubeful_se}
    return out


__all__ = ["Estimate", "RolloutResult", "candidate_plays", "estimate_json", "rollout"]
