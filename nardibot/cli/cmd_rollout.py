"""`nardibot rollout`: roll out a position, or the candidate plays of a roll, with confidence intervals.

    nardibot rollout 4HPwATDgc/ABMA --dice 51 --trials 1296        # rank the plays of 5-1 the filter keeps
    nardibot rollout 4HPwATDgc/ABMA --dice 31 --plays all          # every legal play
    nardibot rollout 4HPwATDgc/ABMA --dice 31 --plays "8/5 6/5,13/10 24/23"
    nardibot rollout "XGID=..." --trials 2592                      # cube decision (cubeful)
    nardibot rollout '{"board": [...], ...}' --game nardi --dice 65 --truncate 20

Positions are read as hint reads them (JSON, gnubg Position ID[:Match ID], XGID; the cube and match
state and the dice from the Match ID or XGID). The trials are played in one process per core of this
machine (--processes N to choose; 1: in this process), or with --workers N in N Ray processes (this
machine, or the cluster of --ray-address); model/search/rollout_workers.py. Where numba is installed
(the ``[fast]`` extra) the rollout runs every compiled kernel from its start, the network's forward
pass included (engine/compiled.py), and one seed gives the same numbers for any --processes N or
number of Ray workers; without numba, the very same numbers for the same N or any number of Ray
workers, otherwise numbers that agree to float32 rounding (about 1e-7) and the same plays. Trials are batched, with common quasi-random dice,
luck adjustment (off: --no-vr), bear-offs valued by the databases (off: --no-bearoff), optional
truncation and n-ply checker play; model/search/rollout.py has the method and the formulas. A
progress bar runs on stderr; Ctrl-C stops and reports the trials finished so far.

In backgammon the trials play with the cube by default (the cube and score of the Match ID or XGID;
money with a centred cube, the Jacoby rule and beavers without one), with dice as without: the plays
are ranked by cubeful value, as hint ranks them and ``hint --rollout`` rolls them out. --cubeless
takes the cube out: with dice the plays are ranked by cubeless equity, without dice there is no cube
decision. Long nardi has no cube.

The rollout and its JSON are model/service/rollout_answer.py's (``RolloutSettings``, whose defaults the
flags take; ``rollout_answer``), the one the web API serves; here they are read and printed.

JSON schema (--json); probabilities and equities from the root side's view (with dice: the side that
plays; without: the side on roll); "ci95" is [low, high]:

    {"game", "bot", "position": <JSON form>, "position_id"? (backgammon), "dice": [a, b] | null,
     "settings": {"trials", "ply", "truncate", "vr", "bearoff", "seed", "cubeful", "plays", "keep",
                  "margin", "prune", "quasi", "cube": {"value", "owner", "match_length", "score", "crawford", "jacoby",
                  "beavers"} | null},
     "trials_done", "interrupted", "seconds", "trials_per_s",
     "plays": [{"rank", "move", "position", "probs": {...}, "probs_se": {...}, "equity", "equity_se",
                "ci95", "raw_equity_se", "cubeful": {"value", "se", "ci95", "raw_se"} | null,
                "trials"}] | null,
     "separation": {"difference", "se", "ci95", "separated"} | null,
     "evaluation": {"probs", "probs_se", "equity", "equity_se", "ci95", "raw_equity_se", "cubeful": null,
                    "trials"} | null,
     "cube_decision": {"action", "double", "response", "unit": "equity"|"mwc",
                       "no_double": {"value", "se", "ci95"}, "double_take": {...} | null,
                       "double_pass": {...}, "normalised": {"no_double", "double_take", "double_pass"},
                       "double_minus_no_double"?: {"difference", "se", "ci95", "separated"}} | null}

"plays" (with dice) is ranked best first by "cubeful" value when the trials were cubeful (backgammon,
the default), else (--cubeless, long nardi) by cubeless "equity"; "separation" is the best minus the
second, trial by trial. "raw_equity_se" is the standard error of the same trials without luck
adjustment. "probs" are the luck-adjusted means as they are: unbiased, but at few trials one can fall
a little outside [0, 1] (a gammon rate of -0.004, say); the table shows them clipped to [0, 1], as
gnubg does, and the JSON keeps the raw means (clip them yourself to show them). Without dice: "evaluation"
(cubeless) and, in backgammon unless --cubeless, "cube_decision" from cubeful rollouts (money:
equity per cube; match: MWC, "normalised" in gnubg's normalised equity).

Bad input (unreadable position, finished game, no legal play, unknown play, trials < 2): one line on
stderr, exit status 2.
"""

from __future__ import annotations

import json

import numpy as np

from engine import compiled
from engine.board import pips
from model.bot import Bot
from model.net.checkpoint import CheckpointError
from model.net.cluster import ClusterError
from model.net.equity import OUTPUT_NAMES
from model.search.rollout import Z95
from model.service.query import query_of_text
from model.service.rollout_answer import PLAYS, rollout_answer
from model.service.rollout_settings import RolloutSettings
from nardibot.cli.common import OneLineParser, UsageError, progress_bar, run_main

DEFAULTS = RolloutSettings()
"""The flags' defaults: model/service/rollout_answer.py's settings."""


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="nardibot rollout", description="Roll out a position or the plays of a roll.")
    p.add_argument("position", help="gnubg Position ID[:Match ID], XGID=..., or JSON position")
    p.add_argument("--dice", help="the roll, e.g. 31 (default: the dice in the Match ID/XGID; none: the "
                   "position's value and cube decision)")
    p.add_argument("--trials", type=int, default=DEFAULTS.trials,
                   help=f"trials per candidate (default: {DEFAULTS.trials})")
    p.add_argument("--truncate", type=int, default=DEFAULTS.truncate, metavar="PLIES",
                   help="stop each trial after PLIES plies with the evaluator's value (default: 0 = play out)")
    p.add_argument("--ply", type=int, default=DEFAULTS.ply, choices=(0, 1, 2), help="checker play look-ahead in trials")
    p.add_argument("--seed", type=int, default=DEFAULTS.seed, help=f"dice seed (default: {DEFAULTS.seed})")
    p.add_argument("--plays", default=DEFAULTS.plays, help="with dice: 'filter' (hint's move filter, default), 'all', "
                   "or plays in notation separated by commas")
    p.add_argument("--game", default="backgammon", choices=("backgammon", "nardi"))
    p.add_argument("--bot", default=None, help="checkpoint path (default: the shipped net of the game)")
    p.add_argument("--no-vr", action="store_true", help="no luck adjustment (variance reduction)")
    p.add_argument("--prune", type=int, default=DEFAULTS.prune, metavar="K", help="0-ply backgammon: the luck adjustment "
                   "looks at each roll's K best plays by pubeval's score (default: 4; 0: every play)")
    p.add_argument("--no-bearoff", action="store_true", help="play bear-offs out instead of reading the databases")
    p.add_argument("--cubeful", action="store_true", help="backgammon: the cube in play in the trials (the default, "
                   "as hint ranks plays and hint --rollout rolls them out)")
    p.add_argument("--cubeless", action="store_true", help="no cube in the trials: with dice the plays ranked by "
                   "cubeless equity, without dice no cube decision")
    p.add_argument("--met", default=DEFAULTS.met, help="match equity table name or XML file")
    p.add_argument("--batch", type=int, default=DEFAULTS.batch, help="trials in play at once (default: 256, 4096 with --no-vr)")
    p.add_argument("--processes", type=int, default=DEFAULTS.processes, help="play the trials in N processes of this machine "
                   "(default: 0, one per core; 1: in this process); the same numbers for one seed and N, to float32 "
                   "rounding for another N")
    p.add_argument("--workers", type=int, default=DEFAULTS.workers, help="play the trials in N Ray worker processes (the "
                   "[ray] extra) instead; the same numbers for one seed whatever N")
    p.add_argument("--ray-address", default=DEFAULTS.address, help="with --workers: the Ray cluster to use, HOST:PORT or "
                   "'auto' (default: start Ray on this machine)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def percent(p: float) -> float:
    """A probability in percent, clipped to [0, 100] for the table (as gnubg shows them): a luck-adjusted
    mean may fall a little outside [0, 1]; the JSON keeps it as it is."""
    return 100 * min(max(p, 0.0), 1.0)


def render(answer: dict) -> str:
    """The rollout for people: settings, ranked plays or the position's value and cube decision."""
    game, s = answer["game"], answer["settings"]
    names = OUTPUT_NAMES[game]
    short = [n.replace("win_", "W").replace("lose_", "L").replace("backgammon", "bg").replace("gammon", "g")
             for n in names]
    pos = answer["position"]
    mine, theirs = pips(game, np.array([pos["board"] + pos["bar"] + pos["off"]], dtype=np.int8))[0]
    head = (f"Rollout{' of ' + answer['position_id'] if 'position_id' in answer else ''}"
            f"{', dice ' + '-'.join(map(str, answer['dice'])) if answer['dice'] else ''}: "
            f"{answer['trials_done']} trials{' (interrupted)' if answer['interrupted'] else ''}, "
            f"{s['ply']}-ply, {'luck-adjusted' if s['vr'] else 'no luck adjustment'}, "
            f"{'truncated at ' + str(s['truncate']) + ' plies' if s['truncate'] else 'played out'}, "
            f"{'cubeful' if s['cubeful'] else 'cubeless'}, seed {s['seed']}; pips {mine} vs {theirs}; "
            f"{answer['seconds']:.1f} s, {answer['trials_per_s']:.1f} trials/s")
    lines = [head]
    if answer["plays"]:
        cubeful = answer["plays"][0]["cubeful"] is not None
        lines.append(f"{'#':>3}  {'Play':<24}{'Cubeful' if cubeful else 'Equity':>9}{'+-95%':>8}"
                     + ("" if cubeful else f"{'raw+-':>8}") + "  " + " ".join(f"{n:>6}" for n in short))
        for p in answer["plays"]:
            value, se = ((p["cubeful"]["value"], p["cubeful"]["se"]) if cubeful else (p["equity"], p["equity_se"]))
            raw = "" if cubeful else f"{Z95 * p['raw_equity_se']:8.3f}"
            lines.append(f"{p['rank']:>3}  {p['move'] or '(no play)':<24}{value:+9.3f}{Z95 * se:8.3f}{raw}  "
                         + " ".join(f"{percent(p['probs'][n]):6.1f}" for n in names))
        sep = answer["separation"]
        if sep is not None:
            verdict = "separated from" if sep["separated"] else "NOT separated from"
            lines.append(f"Best play {verdict} the second: {sep['difference']:+.3f} "
                         f"(95% {sep['ci95'][0]:+.3f} to {sep['ci95'][1]:+.3f}, same dice)")
    if answer["evaluation"] is not None:
        e = answer["evaluation"]
        lines.append("Cubeless: " + "  ".join(f"{n} {percent(e['probs'][n]):.1f}%" for n in names)
                     + f"  equity {e['equity']:+.3f} +- {Z95 * e['equity_se']:.3f} "
                     f"(without luck adjustment +- {Z95 * e['raw_equity_se']:.3f})")
    c = answer["cube_decision"]
    if c is not None:
        lines.append(f"Cube decision (cubeful rollouts): {c['action']}"
                     + (f"   (the taker should {c['response']})" if c["response"] else ""))
        for key, label in (("no_double", "No double"), ("double_take", "Double, take"),
                           ("double_pass", "Double, pass")):
            v = c[key]
            if v is not None:
                unit = f"{100 * v['value']:7.2f}% MWC" if c["unit"] == "mwc" else f"{v['value']:+.3f}"
                lines.append(f"  {label:<14}{unit}   +- {(100 if c['unit'] == 'mwc' else 1) * Z95 * v['se']:.3f}")
        d = c.get("double_minus_no_double")
        if d is not None:
            lines.append(f"  double - no double: {d['difference']:+.4f} (95% {d['ci95'][0]:+.4f} to "
                         f"{d['ci95'][1]:+.4f}){'' if d['separated'] else ', not separated'}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """``nardibot rollout``: bad input is one line ``nardibot rollout: error: ...``, exit 2."""
    return run_main("nardibot rollout", rollout_main, argv)


def rollout_main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.trials < 2:
        raise UsageError(f"--trials must be at least 2, got {args.trials}")
    if args.truncate < 0:
        raise UsageError(f"--truncate must be 0 (play to the end) or more, got {args.truncate}")
    if args.batch is not None and args.batch < 1:
        raise UsageError(f"--batch must be at least 1, got {args.batch}")
    if args.processes < 0:
        raise UsageError(f"--processes must be >= 0 (0: one per core), got {args.processes}")
    if args.workers < 0 or (args.ray_address and not args.workers):
        raise UsageError("--workers must be >= 0, and --ray-address goes with --workers N (N > 0)")
    if args.cubeful and args.cubeless:
        raise UsageError("--cubeful and --cubeless: choose one (cubeful is the default)")
    with compiled.every_kernel():  # long work from its start: every compiled kernel (engine/compiled.py)
        return _roll_out(args)


def _roll_out(args) -> int:
    try:
        bot = Bot.load(args.bot, game=args.game)
    except (CheckpointError, ValueError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    if bot.net is None:
        raise UsageError(f"{bot.name} is a baseline; a rollout needs a network checkpoint")
    plays = args.plays if args.plays in PLAYS else tuple(p.strip() for p in args.plays.split(","))
    try:
        query = query_of_text(args.game, args.position, args.dice)
        settings = RolloutSettings(
            trials=args.trials, truncate=args.truncate, ply=args.ply, seed=args.seed, plays=plays, vr=not args.no_vr,
            prune=args.prune, bearoff=not args.no_bearoff, met=args.met, batch=args.batch, processes=args.processes,
            workers=args.workers, address=args.ray_address,
            cubeful=not args.cubeless)
        answer = rollout_answer(bot, query, settings,
                                bar=lambda total: progress_bar(total, "trial", not args.no_progress))
    except (ValueError, ClusterError) as e:  # a bad position, play or setting; Ray that cannot start
        raise UsageError(str(e)) from None
    print(json.dumps(answer, indent=1) if args.json else render(answer), flush=True)
    return 0
