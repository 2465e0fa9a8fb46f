"""Are the rollouts right? Interval coverage on positions with exactly known values, the variance
reduction factor, and the opening plays, with the figures the README reports.

    python scripts/rollout_checks.py coverage --positions 200 --trials 100 \
        --json experiments/results/rollout_coverage.json
    python scripts/rollout_checks.py vr --trials 324 --prune 2,3,4,8 \
        --json experiments/results/rollout_vr.json
    python scripts/rollout_checks.py openings --trials 324 --json experiments/results/rollout_openings.json

coverage, two sets of backgammon bear-offs played out to the end (no stop at the databases):
  * "two-sided": up to 6 checkers a side (at least 2), W within 0.05..0.95, the evaluator
    ExactEndgames (the exact two-sided win, so the trials play perfectly): the true value is W. Without luck adjustment (with
    it every trial is exactly W: the largest deviation is printed too).
  * "policy": up to ``--checkers`` (4) checkers a side, the evaluator the one-sided race table
    (bearoff.bearoff_probabilities) with a fixed error of up to +-0.05 added to each position's win
    chance (OneSidedTable), which both plays and measures the luck; the
    true value of that evaluator's own play is solved exactly by a recursion over all pairs of
    boards in order of total pips: V(x, y) = sum_r w_r (1 if x' is empty else 1 - V(y, x')), x'
    the evaluator's play of roll r (legal_plays and the same argmax as the trials). With luck
    adjustment: this checks the adjustment stays unbiased with an evaluator that is not exact.
  Each set is run with quasi-random and with plain random first throws; the rate is the share of
  positions whose 95% interval holds the true value.
vr: the shipped net on the opening position and a few sampled positions: the standard error of the
same trials with and without luck adjustment (the factor is their ratio), luck from every play and
pruned to each ``--prune`` value, with the CPU time per trial and the factor squared per CPU second
(trials per CPU second at equal precision, up to a constant: the measure the default was chosen by).
openings: the best play of 3-1, 6-1, 4-2, 5-3 with the shipped net (the four best plays at 0-ply
rolled out) and whether it is separated from the second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

from engine.groups import group_argmax
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS, legal_plays
from model.net.bearoff import bearoff_mask, bearoff_probabilities, board_pips, home_boards, home_counts, rank
from model.net.config import NetConfig
from model.net.equity import WIN, cubeless_equity
from model.net.evaluator import child_probabilities
from model.search.rollout import Z95, rollout


def bearoff_position(mine, theirs) -> np.ndarray:
    """(B, 28) backgammon bear-offs from my home counts (B, 6) and the opponent's (B, 6)."""
    mine, theirs = np.atleast_2d(mine), np.atleast_2d(theirs)
    pos = np.zeros((len(mine), 28), dtype=np.int8)
    pos[:, :6] = mine
    pos[:, 18:24] = -theirs[:, ::-1]
    pos[:, 26], pos[:, 27] = 15 - mine.sum(1), 15 - theirs.sum(1)
    return pos


class OneSidedTable:
    """An evaluator with the nets' interface that is not exact: the one-sided race table's win chance
    of bear-offs plus a fixed pseudo-random error of up to +-``NOISE`` per position (a hash of the
    two boards), which also breaks ties the same way everywhere. Its plays are sometimes wrong and its
    values are off, so neither the play nor the luck adjustment is perfect."""

    config = NetConfig("backgammon", (1,))

    def eval(self):
        return self

    def probabilities(self, positions, device=None):
        p = bearoff_probabilities("backgammon", positions).astype(np.float64)
        mine, theirs = home_counts("backgammon", positions)
        h = ((rank(mine) * 1009 + rank(theirs) * 7919) % 997) / 996.0  # 0..1
        p[:, WIN] = np.clip(p[:, WIN] + NOISE * (2 * h - 1), 0.0, 1.0)
        return p


NOISE = 0.05


def solve_policy(evaluator, boards: int) -> np.ndarray:
    """V[x, y] (boards, boards): chance that the side on roll with home board x beats y, both playing
    the evaluator's 0-ply choice (module docstring)."""
    table = home_boards()[:boards].astype(np.int64)
    pips = board_pips(table)
    value = np.zeros((boards, boards))
    value[0, :] = 1.0
    total = pips[:, None] + pips[None, :]
    total[0, :] = total[:, 0] = -1
    for level in range(1, int(total.max()) + 1):
        xs, ys = np.nonzero(total == level)
        if not len(xs):
            continue
        pos = bearoff_position(table[xs], table[ys])
        frontier = np.repeat(pos, len(ALL_ROLLS), axis=0)
        kids, parent = legal_plays("backgammon", frontier, np.tile(ALL_ROLLS, (len(pos), 1)))
        best = kids[group_argmax(cubeless_equity("backgammon", child_probabilities(evaluator, kids)), parent,
                                 len(frontier))]
        after = rank(np.maximum(best[:, :6], 0))
        won = after == 0
        v = np.where(won, 1.0, 1.0 - value[np.repeat(ys, len(ALL_ROLLS)), after])
        value[xs, ys] = v.reshape(len(xs), -1) @ ROLL_WEIGHTS
    return value


def covered(result, truth: float) -> tuple[bool, float, float]:
    e = result.evaluation
    win, se = e.probs[WIN], e.probs_se[WIN]
    return bool(abs(win - truth) <= Z95 * se + 1e-12), float(win - truth), float(se)


def coverage(args) -> dict:
    from model.net.bearoff_two_sided import two_sided_win
    from model.net.checkpoint import load_net
    from model.net.evaluator import ExactEndgames

    rng = np.random.default_rng(args.seed)
    out = {}
    net, _ = load_net(args.checkpoint, "backgammon", backend="numpy")
    exact = ExactEndgames(net)
    small = home_boards()[:924]
    counts = small.sum(1)
    pool = np.flatnonzero(counts >= 2)
    x, y = rng.choice(pool, 20 * args.positions), rng.choice(pool, 20 * args.positions)
    two = bearoff_position(small[x], small[y])
    truth_two = two_sided_win(two)
    keep = np.flatnonzero((truth_two > 0.05) & (truth_two < 0.95))[: args.positions]  # not decided yet
    two, truth_two = two[keep], truth_two[keep]
    started = time.perf_counter()
    table = OneSidedTable()
    boards = int(np.searchsorted(small.sum(1), args.checkers, side="right"))  # ranks < boards: <= checkers
    value = solve_policy(table, boards)
    solve_s = time.perf_counter() - started
    pairs = np.argwhere((value > 0.05) & (value < 0.95))
    pairs = pairs[(small[pairs[:, 0]].sum(1) >= 2) & (small[pairs[:, 1]].sum(1) >= 2)]
    pick = pairs[rng.choice(len(pairs), args.positions, replace=False)]
    policy = bearoff_position(small[pick[:, 0]], small[pick[:, 1]])
    truth_policy = value[pick[:, 0], pick[:, 1]]
    for quasi in (True, False):
        name = "quasi" if quasi else "random"
        rows = [covered(rollout(exact, p, trials=args.trials, vr=False, bearoff=False, seed=i, quasi=quasi), t)
                for i, (p, t) in enumerate(zip(two, truth_two))]
        exact_vr = max(abs(rollout(exact, p, trials=8, bearoff=False, seed=i, quasi=quasi, prune=0)
                           .evaluation.probs[WIN] - t)
                       for i, (p, t) in enumerate(zip(two[:20], truth_two[:20])))
        out[f"two_sided_{name}"] = _summary(rows, {"max_error_with_luck_adjustment": float(exact_vr)})
        rows, factors = [], []
        for i, (p, t) in enumerate(zip(policy, truth_policy)):
            r = rollout(table, p, trials=args.trials, bearoff=False, seed=i, quasi=quasi)
            rows.append(covered(r, t))
            factors.append(r.evaluation.raw_equity_se / max(r.evaluation.equity_se, 1e-12))
        out[f"policy_{name}"] = _summary(rows, {"vr_factor_median": float(np.median(factors))})
        for key in (f"two_sided_{name}", f"policy_{name}"):
            print(f"{key:<20} coverage {out[key]['coverage']:.3f} over {out[key]['positions']} positions, "
                  f"mean error {out[key]['mean_error']:+.5f}, mean se {out[key]['mean_se']:.4f}  "
                  + " ".join(f"{k} {v:.3g}" for k, v in out[key].items() if k.startswith(("max", "vr"))), flush=True)
    out["settings"] = {"positions": args.positions, "trials": args.trials, "checkers": args.checkers,
                       "seed": args.seed, "policy_solve_seconds": solve_s}
    return out


def _summary(rows, extra) -> dict:
    hit, err, se = map(np.array, zip(*rows))
    return {"positions": len(rows), "coverage": float(hit.mean()), "mean_error": float(err.mean()),
            "mean_se": float(se.mean()), **extra}


def vr_factors(args) -> dict:
    from engine.board import start_position
    from engine.tools.sample import random_positions
    from model.net.checkpoint import load_net

    net, _ = load_net(args.checkpoint, "backgammon", backend="numpy")
    positions = {"opening": start_position("backgammon")}
    for kind in ("midgame", "race"):
        sample = random_positions("backgammon", 20 * args.sampled, seed=args.seed, kind=kind)[0]
        sample = sample[~bearoff_mask("backgammon", sample)][: args.sampled]  # a bear-off ends at once
        for i, p in enumerate(sample):
            positions[f"{kind}{i}"] = p
    out = {}
    prunes = [0] + [int(k) for k in str(args.prune).split(",") if int(k) != 0]
    for name, pos in positions.items():
        for prune in prunes:
            cpu = time.process_time()
            r = rollout(net, pos, trials=args.trials, prune=prune, seed=args.seed)
            cpu_ms = 1e3 * (time.process_time() - cpu) / r.trials
            e = r.evaluation
            factor = e.raw_equity_se / max(e.equity_se, 1e-12)
            out[f"{name}/prune{prune}"] = {"equity": e.equity, "se": e.equity_se, "raw_se": e.raw_equity_se,
                                           "factor": factor, "trials_per_s": r.trials_per_s,
                                           "cpu_ms_per_trial": cpu_ms,
                                           "precision_per_cpu_s": factor ** 2 / cpu_ms * 1e3}
            print(f"{name:<10} prune {prune}: equity {e.equity:+.4f}  se {e.equity_se:.4f}  without adjustment "
                  f"{e.raw_equity_se:.4f}  factor {factor:.2f}  {r.trials_per_s:.1f} trials/s  {cpu_ms:.0f} ms CPU "
                  f"per trial  factor^2 per CPU second {factor ** 2 / cpu_ms * 1e3:.0f}", flush=True)
    return out


OPENINGS = {(3, 1): "8/5 6/5", (6, 1): "13/7 8/7", (4, 2): "8/4 6/4", (5, 3): "8/3 6/3"}


def openings(args) -> dict:
    from engine.board import start_position
    from model.net.checkpoint import load_net

    net, _ = load_net(args.checkpoint, "backgammon", backend="numpy")
    out = {}
    for dice, known in OPENINGS.items():
        r = rollout(net, start_position("backgammon"), dice, trials=args.trials, seed=args.seed,
                    prune=int(str(args.prune).split(",")[0]), keep=4, margin=1.0)  # the four best at 0-ply, so that the best has rivals to beat
        best, sep = r.plays[0], r.separation
        out[f"{dice[0]}{dice[1]}"] = {"best": best.label, "established": known, "agrees": best.label == known,
                              "plays": [[e.label, e.equity, e.equity_se] for e in r.plays], "separation": sep}
        print(f"{dice[0]}-{dice[1]}: best {best.label} ({best.equity:+.3f} +- {Z95 * best.equity_se:.3f}), "
              f"established {known}: {'agrees' if best.label == known else 'DISAGREES'}; "
              f"second {r.plays[1].label if len(r.plays) > 1 else '-'}, difference "
              f"{sep['difference'] if sep else float('nan'):+.3f}, separated: {sep['separated'] if sep else None}",
              flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("check", choices=("coverage", "vr", "openings"))
    ap.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "backgammon.safetensors"))
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--checkers", type=int, default=4)
    ap.add_argument("--sampled", type=int, default=2, help="vr: sampled positions of each kind")
    ap.add_argument("--prune", default="4", help="the luck's pruning (vr: comma-separated values, each run "
                    "beside 0 = every play; default: 4)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    started = time.perf_counter()
    result = {"coverage": coverage, "vr": vr_factors, "openings": openings}[args.check](args)
    if args.json:
        Path(args.json).write_text(json.dumps({"command": " ".join(sys.argv), "result": result,
                                               "seconds": time.perf_counter() - started}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
