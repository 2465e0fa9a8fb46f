"""`evaluate.py analyse`: rate every decision and roll of a match or money session in a .mat file.

    python evaluate.py analyse match.mat                       # 0-ply, a table per player
    python evaluate.py analyse match.mat --ply 2 --rollout 144 # 2-ply, the worst decisions rolled out
    python evaluate.py analyse match.mat --json > report.json  # every decision
    python evaluate.py analyse match.mat --html report/        # report/index.html with board pictures

The file is Jellyfish .mat text as gnubg (``export match mat``) and this project (``--mat``) write it.
Each game is replayed through the rules; each checker play, cube decision (the doubles not made too)
and roll is rated with the project's one policy at ``--ply`` (model/analysis/review.py has the method,
model/analysis/marks.py gnubg's thresholds: doubtful >= 0.030, bad >= 0.060, very bad >= 0.120 of
normalised equity per cube; luck: lucky >= +0.300, very lucky >= +0.600, and the same below zero).

JSON schema (--json; the dict model/analysis/review.py's ``analyse_mat_text`` returns, which the
HTTP API serves). Equities are normalised per cube (gnubg's EMG: money equity per unit of the cube;
match-winning chance turned into equity at the cube with gnubg's mwc2eq), MWCs are fractions (0.01 =
1%), and both are seen by the player deciding; "mwc" fields are null in money play:

    {"schema": "nardibot-match-analysis/1", "players": [name0, name1], "match_length": 0 (money) | L,
     "jacoby": bool (money) | null, "bot", "ply", "rollout": {"trials", "at_most", "seed"} | null,
     "thresholds": {"doubtful", "bad", "very_bad", "very_lucky", "lucky", "unlucky", "very_unlucky",
                    "close_cube", "unit"},
     "games": [{"number", "score": [p0, p1], "crawford", "winner": 0|1|null, "points",
                "ended": "played"|"dropped"|"resigned"|null, "decisions"}],
     "decisions": [ every decision in order:
        {"game", "index" (1-based within the game), "entry" (the game's .mat entry, 1-based), "player": 0|1,
         "kind": "move" | "double" (the side on roll's cube action) | "take" (the doubled side's answer),
         "position": <JSON form, seen by the side on roll>, "position_id", "match_id" (gnubg's),
         "cube": {"value", "owner": "centred"|"me"|"opponent", "score": [me, opponent], "crawford"},
         "loss", "loss_mwc", "mark": null|"doubtful"|"bad"|"very bad",
         "evaluated": "K-ply" | "rollout N", "ply_loss"? and "rollout"? (when rolled out),
         move:   "dice", "choices" (distinct legal plays; 1 = forced), "played", "best", "played_rank",
                 "plays": [{"move", "rank", "ply", "equity", "mwc"}] (the best five and the play made),
                 "luck", "luck_mwc", "luck_mark": null|"very lucky"|"lucky"|"unlucky"|"very unlucky",
         double/take: "action": "double"|"no double"|"take"|"pass", "right": the right one of those,
                 "proper": gnubg's words for the position ("No double, take"...), "close",
                 "equities": {"no_double", "double_take", "double_pass"} (the doubler's, normalised),
                 "mwc": the same as MWC | null, "error": null|"missed double"|"wrong double"|
                 "wrong take"|"wrong pass"}],
     "statistics": [per player: {"player", "name", "moves", "unforced_moves",
                    "marked": {"doubtful", "bad", "very bad"}, "unmarked",
                    "checker_error": {"emg", "mwc"}, "checker_error_rate": {"emg", "mwc"} (per unforced move),
                    "luck": {"very lucky", "lucky", "unlucky", "very unlucky"}, "luck_total", "luck_rate" (per roll),
                    "cube": {"decisions", "close_or_actual", "doubles", "takes", "passes", "missed_doubles",
                             "wrong_doubles", "wrong_takes", "wrong_passes", "marked", "error",
                             "error_rate" (per close-or-actual decision)},
                    "overall_error", "overall_error_rate"}],
     "seconds"}

Bad input (a missing or unreadable file, text that is no .mat file, a play or cube action the rules
refuse): one line on stderr, exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

from model.cli.common import OneLineParser, UsageError, emit, run_main


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="evaluate.py analyse",
                      description="Rate every checker play, cube decision and roll of a .mat match file.")
    p.add_argument("file", help="a Jellyfish .mat file (gnubg's 'export match mat', or --mat of this project)")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="look-ahead of the ratings (default 0)")
    p.add_argument("--rollout", type=int, default=0, metavar="N",
                   help="roll out the worst decisions (bad or very bad) again, N trials each (default: none)")
    p.add_argument("--rollout-max", type=int, default=10, metavar="M",
                   help="roll out at most M decisions, the worst first (default 10)")
    p.add_argument("--seed", type=int, default=0, help="dice seed of the rollouts (default 0)")
    p.add_argument("--processes", type=int, default=0, help="the rollouts' processes, as evaluate.py rollout's "
                   "(default: 0, one per core; 1: in this process)")
    p.add_argument("--bot", default=None, help="checkpoint path (default: the shipped backgammon net)")
    p.add_argument("--met", default=None, help="match equity table name or XML file (default Kazaross-XG2)")
    p.add_argument("--no-jacoby", action="store_true",
                   help="money sessions: the games were played without the Jacoby rule (gnubg assumes it)")
    p.add_argument("--json", action="store_true", help="print every decision as JSON instead of the tables")
    p.add_argument("--html", metavar="DIR", help="also write DIR/index.html: the tables and a board picture "
                   "of each marked decision")
    p.add_argument("--all", action="store_true", help="list every decision in the table, not only marked ones")
    return p


def main(argv: list[str]) -> int:
    """``evaluate.py analyse``: bad input is one line ``evaluate.py analyse: error: ...``, exit 2."""
    return run_main("evaluate.py analyse", analyse_main, argv)


def analyse_main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.rollout < 0 or args.rollout == 1 or args.rollout_max < 0 or args.processes < 0:
        raise UsageError("--rollout is 0 (none) or at least 2 trials, --rollout-max and --processes at least 0")
    try:
        text = Path(args.file).read_bytes().decode("utf-8", errors="replace")
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror}") from None
    if args.met is not None:
        from model.cube.met import load_met

        try:
            load_met(args.met)
        except (ValueError, OSError) as e:
            raise UsageError(f"--met: {e}") from None
    from model.analysis.review import analyse_mat_text
    from model.bot import Bot
    from model.net.checkpoint import CheckpointError

    try:
        bot = Bot.load(args.bot)
    except (CheckpointError, ValueError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    try:
        report = analyse_mat_text(text, bot, args.ply, rollout=args.rollout, rollout_max=args.rollout_max,
                                  jacoby=not args.no_jacoby, met=args.met, seed=args.seed,
                                  processes=args.processes)
    except ValueError as e:
        raise UsageError(f"{args.file}: {e}") from None
    if args.html:
        from model.cli.analyse_html import write_report

        try:
            write_report(report, Path(args.html), Path(args.file).name)
        except OSError as e:
            raise UsageError(f"--html: cannot write {args.html}: {e.strerror}") from None
    emit(json.dumps(report, indent=1) if args.json else render(report, Path(args.file).name, args.all))
    return 0


# ----------------------------------------------------------------------------------------------
# the text report


def what(report: dict) -> str:
    """A match's one-line description: '3-point match' or 'money session (Jacoby on)'."""
    if report["match_length"]:
        return f"{report['match_length']}-point match"
    return f"money session (Jacoby {'on' if report['jacoby'] else 'off'})"


def decision_line(report: dict, d: dict) -> str:
    """One decision in a line: where, who, what was done, what was right, the loss and the mark."""
    name = report["players"][d["player"]]
    where = f"game {d['game']:>2} #{d['index']:<3} {name[:12]:<12}"
    if d["kind"] == "move":
        done = f"{d['dice'][0]}{d['dice'][1]}: {d['played'] or '(no play)'}"
        right = d["best"] or "(no play)"
    else:
        done, right = f"cube: {d['action']}", f"{d['right']} ({d['proper']})"
    loss = f"-{d['loss']:.3f}"
    if d["loss_mwc"] is not None:
        loss += f" ({-100 * d['loss_mwc']:+.2f}%)"
    return (f"{where} {done:<30} best {right:<30} {loss:<17} {d['mark'] or '':<9}"
            f"{'' if d['evaluated'].endswith('ply') else ' ' + d['evaluated']}").rstrip()


def _pair(stat: dict, key: str, rate: bool = False) -> str:
    """An amount in equity and, in a match, MWC: errors as losses (-), luck with its sign; ``rate``:
    thousandths of equity (mEMG) per move, as gnubg shows them."""
    v = stat[key]
    if v["emg"] is None:
        return "-"
    sign = 1.0 if key.startswith("luck") else -1.0
    text = f"{sign * v['emg'] + 0.0:+.3f}" if not rate else f"{sign * v['emg'] * 1000 + 0.0:+.1f}"
    if v["mwc"] is not None:
        text += f" ({sign * 100 * v['mwc'] + 0.0:+.2f}%)" if not rate else f" ({sign * 100 * v['mwc'] + 0.0:+.3f}%)"
    return text


def table_rows(report: dict) -> list[tuple[str, list[str]]]:
    """The per-player table as (label, [player 0's cell, player 1's cell]) rows (text and HTML)."""
    stats = report["statistics"]
    unit = "EMG (MWC)" if report["match_length"] else "EMG"
    rate_unit = "mEMG (MWC)" if report["match_length"] else "mEMG"

    def row(label, f):
        return (label, [f(s) for s in stats])

    return [
        row("Moves", lambda s: str(s["moves"])),
        row("Unforced moves", lambda s: str(s["unforced_moves"])),
        row("Moves marked doubtful", lambda s: str(s["marked"]["doubtful"])),
        row("Moves marked bad", lambda s: str(s["marked"]["bad"])),
        row("Moves marked very bad", lambda s: str(s["marked"]["very bad"])),
        row(f"Checker error total {unit}", lambda s: _pair(s, "checker_error")),
        row(f"Checker error rate {rate_unit}", lambda s: _pair(s, "checker_error_rate", rate=True)),
        row("Rolls very lucky / lucky", lambda s: f"{s['luck']['very lucky']} / {s['luck']['lucky']}"),
        row("Rolls unlucky / very unlucky", lambda s: f"{s['luck']['unlucky']} / {s['luck']['very unlucky']}"),
        row(f"Luck total {unit}", lambda s: _pair(s, "luck_total")),
        row(f"Luck rate {rate_unit}", lambda s: _pair(s, "luck_rate", rate=True)),
        row("Cube decisions (close or actual)", lambda s: f"{s['cube']['decisions']} ({s['cube']['close_or_actual']})"),
        row("Doubles / takes / passes",
            lambda s: f"{s['cube']['doubles']} / {s['cube']['takes']} / {s['cube']['passes']}"),
        row("Missed doubles / wrong doubles", lambda s: f"{s['cube']['missed_doubles']} / {s['cube']['wrong_doubles']}"),
        row("Wrong takes / wrong passes", lambda s: f"{s['cube']['wrong_takes']} / {s['cube']['wrong_passes']}"),
        row("Cube decisions marked d / b / vb",
            lambda s: " / ".join(str(s["cube"]["marked"][m]) for m in ("doubtful", "bad", "very bad"))),
        row(f"Cube error total {unit}", lambda s: _pair(s["cube"], "error")),
        row(f"Cube error rate {rate_unit}", lambda s: _pair(s["cube"], "error_rate", rate=True)),
        row(f"Overall error rate {rate_unit}", lambda s: _pair(s, "overall_error_rate", rate=True)),
    ]


def render(report: dict, name: str, every: bool = False) -> str:
    """The text report: header, the marked decisions (``every``: all of them), the per-player table."""
    t = report["thresholds"]
    how = f"{report['ply']}-ply" + (f", the worst rolled out ({report['rollout']['trials']} trials)"
                                    if report["rollout"] else "")
    lines = [(f"{name}: {what(report)}, {report['players'][0]} vs {report['players'][1]}, {len(report['games'])} "
             f"game(s); {report['bot']} at {how}; {report['seconds']:.1f} s"),
             (f"Marks by equity lost, normalised per cube: doubtful >= {t['doubtful']:.3f}, bad >= {t['bad']:.3f}, "
             f"very bad >= {t['very_bad']:.3f}; rolls: lucky >= +{t['lucky']:.3f}, very lucky >= "
             f"+{t['very_lucky']:.3f} (and below zero the same)"), ""]
    shown = [d for d in report["decisions"] if every or d["mark"]]
    lines.append("Every decision:" if every else f"Marked decisions ({len(shown)}):")
    lines += [decision_line(report, d) for d in shown] or ["(none)"]
    lines.append("")
    rows = table_rows(report)
    width = max(len(label) for label, _ in rows) + 2
    col = max(24, *(len(c) + 2 for _, cells in rows for c in cells))
    lines.append(" " * width + "".join(f"{n[:col - 2]:<{col}}" for n in report["players"]))
    lines += [f"{label:<{width}}" + "".join(f"{c:<{col}}" for c in cells) for label, cells in rows]
    return "\n".join(line.rstrip() for line in lines)
