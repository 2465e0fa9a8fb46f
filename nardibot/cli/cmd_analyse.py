"""`nardibot analyse`: rate every decision and roll of a match or money session in a .mat or .sgf file.

    nardibot analyse match.mat                       # 0-ply, a table per player
    nardibot analyse match.sgf                       # gnubg's own match file ('save match')
    nardibot analyse match.mat --ply 2 --rollout 144 # 2-ply, the worst decisions rolled out
    nardibot analyse match.mat --json > report.json  # every decision
    nardibot analyse match.mat --html report/        # report/index.html with board pictures

The file is Jellyfish .mat text as gnubg (``export match mat``) and this project (``--mat``) write it,
or gnubg's SGF (``save match``, or ``--mat FILE.sgf`` here); the content tells which
(engine/formats/matchfiles.py ``read_match_text``).
Each game is replayed through the rules (a beaver is the doubled side's take, redoubled; a file that
says its games were played without the cube, as ``nardibot duel --mat`` writes, has no cube decisions
and its plays are valued by cubeless equity); each checker play, cube decision (the doubles not made
too) and roll is rated with the project's one policy at ``--ply`` (model/analysis/review.py has the method,
model/analysis/marks.py gnubg's thresholds: doubtful >= 0.030, bad >= 0.060, very bad >= 0.120 of
normalised equity per cube; luck: lucky >= +0.300, very lucky >= +0.600, and the same below zero).

JSON schema (--json; the dict model/service/match_review.py's ``analyse_match`` returns, which the
HTTP API serves). Equities are normalised per cube (gnubg's EMG: money equity per unit of the cube;
match-winning chance turned into equity at the cube with gnubg's mwc2eq), MWCs are fractions (0.01 =
1%), and both are seen by the player deciding; "mwc" fields are null in money play:

    {"schema": "nardibot-match-analysis/1", "players": [name0, name1], "match_length": 0 (money) | L,
     "jacoby": bool (money) | null, "cube": bool (false: the file says the games were played without the
     cube; then no cube decisions, plays valued by cubeless equity), "bot", "ply",
     "rollout": {"trials", "at_most", "seed"} | null,
     "thresholds": {"doubtful", "bad", "very_bad", "very_lucky", "lucky", "unlucky", "very_unlucky",
                    "close_cube", "unit"},
     "games": [{"number", "score": [p0, p1], "crawford", "winner": 0|1|null, "points",
                "ended": "played"|"dropped"|"resigned"|null, "decisions"}],
     "decisions": [ every decision in order:
        {"game", "index" (1-based within the game), "entry" (the game's entry in the file, 1-based; an .sgf
         beaver's double and take are one), "player": 0|1,
         "kind": "move" | "double" (the side on roll's cube action) | "take" (the doubled side's answer),
         "position": <JSON form, seen by the side on roll>, "position_id", "match_id" (gnubg's),
         "cube": {"value", "owner": "centred"|"me"|"opponent", "score": [me, opponent], "crawford"},
         "loss", "loss_mwc", "mark": null|"doubtful"|"bad"|"very bad",
         "evaluated": "K-ply" | "rollout N", "ply_loss"? and "rollout"? (when rolled out),
         move:   "dice", "choices" (distinct legal plays; 1 = forced), "played", "best", "played_rank",
                 "plays": [{"move", "rank", "ply", "equity", "mwc"}] (the best five and the play made),
                 "luck", "luck_mwc", "luck_mark": null|"very lucky"|"lucky"|"unlucky"|"very unlucky",
         double/take: "action": "double"|"no double"|"take"|"beaver"|"pass", "right": the right one of those,
                 "proper": gnubg's words for the position ("No double, take"...), "close",
                 "equities": {"no_double", "double_take", "double_pass"} (the doubler's, normalised),
                 "mwc": the same as MWC | null, "error": null|"missed double"|"wrong double"|
                 "wrong take"|"wrong pass"}],
     "statistics": [per player: {"player", "name", "moves", "unforced_moves",
                    "marked": {"doubtful", "bad", "very bad"}, "unmarked",
                    "checker_error": {"emg", "mwc"}, "checker_error_rate": {"emg", "mwc"} (per unforced move),
                    "luck": {"very lucky", "lucky", "unlucky", "very unlucky"}, "luck_total", "luck_rate" (per roll),
                    "cube": {"decisions", "close_or_actual", "doubles", "takes" (beavers too), "passes",
                             "missed_doubles",
                             "wrong_doubles", "wrong_takes", "wrong_passes", "marked", "error",
                             "error_rate" (per close-or-actual decision)},
                    "overall_error", "overall_error_rate"}],
     "seconds"}

Bad input (a missing or unreadable file, text that is neither .mat nor .sgf, a play or cube action the
rules refuse): one line on stderr, exit status 2.
"""

from __future__ import annotations

import json
from pathlib import Path

from model.bot import Bot
from model.cube.met import load_met
from model.net.checkpoint import CheckpointError
from model.service.match_review import ReviewSettings, analyse_match
from nardibot.cli.analyse_html import write_report
from nardibot.cli.analyse_report import decision_line, table_rows, what
from nardibot.cli.common import OneLineParser, UsageError, check_writable, emit, run_main


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="nardibot analyse",
                      description="Rate every checker play, cube decision and roll of a .mat or .sgf match file.")
    p.add_argument("file", help="a Jellyfish .mat file (gnubg's 'export match mat', or --mat of this project) "
                   "or gnubg's .sgf match file ('save match'); the content tells which")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="look-ahead of the ratings (default 0)")
    p.add_argument("--rollout", type=int, default=0, metavar="N",
                   help="roll out the worst decisions (bad or very bad) again, N trials each (default: none)")
    p.add_argument("--rollout-max", type=int, default=10, metavar="M",
                   help="roll out at most M decisions, the worst first (default 10)")
    p.add_argument("--seed", type=int, default=0, help="dice seed of the rollouts (default 0)")
    p.add_argument("--processes", type=int, default=0, help="the rollouts' processes, as nardibot rollout's "
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
    """``nardibot analyse``: bad input is one line ``nardibot analyse: error: ...``, exit 2."""
    return run_main("nardibot analyse", analyse_main, argv)


def analyse_main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.rollout < 0 or args.rollout == 1 or args.rollout_max < 0 or args.processes < 0:
        raise UsageError("--rollout is 0 (none) or at least 2 trials, --rollout-max and --processes at least 0")
    check_writable("--html", args.html, folder=True)  # said before the analysis, not after
    try:
        text = Path(args.file).read_bytes().decode("utf-8", errors="replace")
    except OSError as e:
        raise UsageError(f"cannot read {args.file}: {e.strerror}") from None
    if args.met is not None:
        try:
            load_met(args.met)
        except (ValueError, OSError) as e:
            raise UsageError(f"--met: {e}") from None
    try:
        bot = Bot.load(args.bot)
    except (CheckpointError, ValueError, FileNotFoundError) as e:
        raise UsageError(str(e)) from None
    settings = ReviewSettings(ply=args.ply, rollout=args.rollout, rollout_max=args.rollout_max,
                              jacoby=not args.no_jacoby, met=args.met, seed=args.seed, processes=args.processes)
    try:
        report = analyse_match(bot, text, settings)
    except ValueError as e:
        raise UsageError(f"{args.file}: {e}") from None
    if args.html:
        try:
            write_report(report, Path(args.html), Path(args.file).name)
        except OSError as e:
            raise UsageError(f"--html: cannot write {args.html}: {e.strerror}") from None
    emit(json.dumps(report, indent=1) if args.json else render(report, Path(args.file).name, args.all))
    return 0


# ----------------------------------------------------------------------------------------------
# the text report


def render(report: dict, name: str, every: bool = False) -> str:
    """The text report: header, the marked decisions (``every``: all of them), the per-player table."""
    t = report["thresholds"]
    how = f"{report['ply']}-ply" + (f", the worst rolled out ({report['rollout']['trials']} trials)"
                                    if report["rollout"] else "")
    played = what(report) + ("" if report["cube"] else ", without the cube")
    lines = [(f"{name}: {played}, {report['players'][0]} vs {report['players'][1]}, {len(report['games'])} "
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
