"""`nardibot hint`: the best plays of a position, or its cube decision, as a table or JSON.

    nardibot hint 4HPwATDgc/ABMA --dice 31                 # money, centred cube
    nardibot hint 4HPwATDgc/ABMA:cIkFAAAAAAAE              # dice from the Match ID
    nardibot hint "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"   # cube decision
    nardibot hint '{"board": [...], "bar": [0,0], "off": [0,0]}' --game nardi --dice 65
    nardibot hint --jsonl positions.jsonl                  # one JSON answer per line
    nardibot hint 4HPwATDgc/ABMA --dice 31 --rollout 324   # confirm the ranking by rollouts

The answer is model/service/hint.py's ``hint`` (every decision model/players/cube_policy.py's, the one
play, serve and the cube arena make), the one the web API serves; here it is read, drawn and printed.

JSON schema (``--json``, and every line of ``--jsonl``), all equities from the side on roll:

    {"game", "bot", "ply", "prune"? (K of --prune K when it pruned: backgammon at 1 or 2 ply),
     "position": <JSON form>, "dice": [a, b] | null,
     "position_id", "match_id"? (backgammon; match_id when one was given, with the dice analysed),
     "cube": {"value", "owner": "centred"|"me"|"opponent", "match_length", "score": [me, opp],
              "crawford", "jacoby", "beavers"}  (backgammon only),
     "evaluation": {"ply", "probs": {...}, "cubeless_equity"}  (the position before its roll: at the
                   hint's ply without dice; with dice at 0-ply, the plays being the question),
     "plays": [{"rank", "move", "position", "ply", "probs", "cubeless_equity",
                "equity" (cubeful money equity, or null in a match), "mwc" (match only), "loss"}],
     "cube_decision": {"action", "double", "response", "double_offered", "no_double", "double_take",
                       "double_pass", "no_double_mwc"?, "double_take_mwc"?, "double_pass_mwc"?} | null,
     "rollout"?: nardibot/cli/cmd_rollout.py's JSON of the plays listed (--top of them), or of the position
                 and its cube decision (with --rollout N; null when there is no legal play)}

``action`` is the side on roll's cube action and ``response`` the taker's answer; when the Match ID
or XGID says a double waits for an answer (``double_offered``), ``response`` is the answer asked for.
In the Crawford game no double is allowed: ``action`` says "No double: the cube is not available in the
Crawford game", ``double`` is false, and the other entries are what a double would be worth were one
allowed (the table shows only the no-double value).
A play not looked at at the full ply keeps its 0-ply numbers; its ``loss`` is never below 0.

``plays`` is there when dice are given (ranked best first; ``loss`` is against the best, in the
ranking unit: money equity, or MWC in a match); ``cube_decision`` when no dice are given
(backgammon only: long nardi has no cube). A line of ``--jsonl`` is either any position form as a
JSON string or an object {"position": ..., "dice": [a, b]?}; a bad line (an empty one too) answers
{"error": "..."}, so answers and lines stay in step.

The table's header names the Position ID and the Match ID of the state analysed (written from the
cube state when none was given, so that gnubg's ``set gnubgid`` shows the same), the match score or
money play with its Jacoby and beaver settings (a Match ID does not carry beavers), and the cube.
``--met`` is a match-play setting: given for a money game or long nardi, the answer is the same
and one note on stderr says the table was not used (once per run with ``--jsonl``). ``--top`` is at
least 1.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

from engine.board import pips
from engine.cube_state import CubeOwner
from engine.formats.pictures import ascii_board
from engine.formats.position import MatchInfo, write_match_id
from engine.tools.cli import UsageError
from model.bot import Bot
from model.cube.met import load_met
from model.net.checkpoint import CheckpointError
from model.net.equity import OUTPUT_NAMES
from model.service.hint import HintSettings, hint
from model.service.query import match_id_owner, picture_state, query_of_line, query_of_text
from nardibot.cli.common import OneLineParser, check_writable, progress_bar


def render(answer: dict, top: int, board: bool) -> str:
    """The answer as text for people: board, evaluation, ranked plays or cube decision."""
    game = answer["game"]
    lines = []
    pos = np.array(answer["position"]["board"] + answer["position"]["bar"] + answer["position"]["off"],
                   dtype=np.int8)
    if board:
        cube = None
        if game == "backgammon":
            cube = (answer["cube"]["value"], CubeOwner(answer["cube"]["owner"]))
        lines.append(ascii_board(game, pos, dice=answer["dice"], mover_name="to play", opponent_name="opponent",
                                 cube=cube))
    if game == "backgammon":
        lines.append(f"Position ID: {answer['position_id']}   Match ID: {_match_id_of(answer)}")
        c = answer["cube"]
        on = {True: "on", False: "off"}
        where = (f"money game, Jacoby {on[c['jacoby']]}, beavers {on[c['beavers']]}"
                 if not c["match_length"] else
                 f"{c['match_length']}-point match, score {c['score'][0]}-{c['score'][1]}"
                 + (" (Crawford)" if c["crawford"] else ""))
        lines.append(f"{where}; cube {c['value']} {c['owner']}")
    mine, theirs = pips(game, pos[None])[0]
    pruned = f", inner plays among pubeval's best {answer['prune']}" if answer.get("prune") else ""
    lines.append(f"Pips: {mine} (on roll) vs {theirs}.  {answer['bot']} at {answer['ply']}-ply{pruned}")
    names = OUTPUT_NAMES[game]
    ev = answer["evaluation"]
    lines.append(f"Cubeless ({ev['ply']}-ply, before the roll): "
                 + "  ".join(f"{n} {100 * ev['probs'][n]:.1f}%" for n in names)
                 + f"  equity {ev['cubeless_equity']:+.3f}")
    if answer["plays"] is not None:
        d = answer["dice"]
        lines.append(f"\nDice {d[0]}-{d[1]}: {len(answer['plays'])} legal plays")
        unit = "MWC" if answer["plays"][0]["mwc"] is not None else "Equity"
        head = f"{'#':>3}  {'Play':<24}{'Ply':>4}{unit:>9}{'Loss':>8}{'Cubeless':>10}  " + " ".join(
            f"{n.replace('win_', 'W').replace('lose_', 'L').replace('backgammon', 'bg').replace('gammon', 'g'):>6}"
            for n in names)
        lines.append(head)
        for p in answer["plays"][:top]:
            value = p["mwc"] if p["mwc"] is not None else (p["equity"] if p["equity"] is not None
                                                           else p["cubeless_equity"])
            shown = f"{100 * value:8.2f}%" if p["mwc"] is not None else f"{value:+9.3f}"
            loss = f"{100 * p['loss']:7.2f}%" if p["mwc"] is not None else f"{-p['loss']:+8.3f}"
            lines.append(f"{p['rank']:>3}  {p['move'] or '(no play)':<24}{p['ply']:>4}{shown}"
                         f"{'' if p['rank'] == 1 else loss:>8}{p['cubeless_equity']:+10.3f}  "
                         + " ".join(f"{100 * p['probs'][n]:6.1f}" for n in names))
    elif answer["cube_decision"] is not None:
        c = answer["cube_decision"]
        rows = (("no_double", "No double"), ("double_take", "Double, take"), ("double_pass", "Double, pass"))
        if answer["cube"]["crawford"]:  # no double allowed: the position's value, no decision
            lines.append(f"\nCube decision: {c['action']}")
            rows = rows[:1]
        elif c["double_offered"]:
            lines.append(f"\nDoubled: the side doubled should {c['response']}   (the double itself: {c['action']})")
        else:
            lines.append(f"\nCube decision: {c['action']}   (the taker should {c['response']})")
        for key, label in rows:
            mwc = c.get(key + "_mwc")
            extra = f"   MWC {100 * mwc:.2f}%" if mwc is not None else ""
            lines.append(f"  {label:<14}{c[key]:+.3f}{extra}")
    return "\n".join(lines)


def _match_id_of(answer: dict) -> str:
    """The Match ID of a backgammon answer: the one given, else written from its cube state (the side
    on roll is gnubg's player 0, its score first)."""
    if "match_id" in answer:
        return answer["match_id"]
    c = answer["cube"]
    info = MatchInfo(cube_value=c["value"], cube_owner=match_id_owner(c["owner"]), crawford=c["crawford"],
                     dice=tuple(answer["dice"] or (0, 0)), match_length=c["match_length"],
                     scores=tuple(c["score"]), jacoby=c["jacoby"], beavers=c["beavers"])
    return write_match_id(info)


def main(argv: list[str]) -> int:
    parser = OneLineParser(
        prog="nardibot hint", description="Rank the legal plays of a position, or give its cube decision.")
    parser.add_argument("position", nargs="?", help="gnubg Position ID[:Match ID], XGID=..., or JSON position")
    parser.add_argument("--dice", help="the roll, e.g. 31 or 3-1 (default: the dice in the Match ID/XGID; "
                        "none: cube decision)")
    parser.add_argument("--game", default="backgammon", choices=("backgammon", "nardi"))
    parser.add_argument("--bot", default=None, help="checkpoint path (default: the shipped net of the game)")
    parser.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="look-ahead depth")
    parser.add_argument("--prune", type=int, default=0, metavar="K",
                        help="backgammon, --ply 1 or 2: inside the look-ahead pick each roll's play among the K "
                        "that pubeval ranks highest, as gnubg prunes (8: some 3 times faster at 2 ply; "
                        "default 0: among every play)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--jsonl", metavar="FILE", help="analyse every line of FILE ('-' = stdin), JSON out")
    parser.add_argument("--top", type=int, default=10, help="plays shown in the table (at least 1)")
    parser.add_argument("--no-board", action="store_true", help="do not draw the board")
    parser.add_argument("--image", metavar="FILE", help="also draw the position (and best play) to .svg/.png")
    parser.add_argument("--met", default=None, help="match play: match equity table name or XML file "
                        "(default Kazaross-XG2; a money game does not use it and says so on stderr)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rollout", type=int, default=0, metavar="N",
                        help="confirm the ranking: roll out the plays listed (or the cube decision), N trials "
                        "each (a single position, not --jsonl; on every core, as nardibot rollout)")
    args = parser.parse_args(argv)
    if (args.position is None) == (args.jsonl is None):
        parser.error("give a position, or --jsonl FILE (not both)")
    if args.top < 1:
        parser.error(f"--top must be at least 1, got {args.top}")
    if args.prune < 0:
        parser.error(f"--prune must be 0 (every play) or more, got {args.prune}")
    if args.met is not None:
        try:
            load_met(args.met)
        except (ValueError, OSError) as e:
            parser.error(f"--met: {e}")
    try:
        check_writable("--image", args.image)  # said before the work, not after it
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        bot = Bot.load(args.bot, game=args.game, device=args.device)
    except (CheckpointError, ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if bot.net is None:
        print(f"error: {bot.name} is a baseline; hint needs a network checkpoint", file=sys.stderr)
        return 2
    settings = HintSettings(ply=args.ply, top=args.top, met=args.met, prune=args.prune)
    if args.jsonl:
        return _run_jsonl(bot, args, settings)
    try:
        query = query_of_text(args.game, args.position, args.dice)
        answer = hint(bot, query, settings)
        if args.rollout:  # on every core, with a progress bar (quiet off a terminal), as nardibot rollout
            from model.service.rollout_answer import (
                confirm_hint,  # only with --rollout: a hint need not load the trials
            )

            answer["rollout"] = confirm_hint(bot, query, answer, args.rollout, settings.top, settings.met,
                                             bar=lambda total: progress_bar(total, "trial", True))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    _note_unused_met(args, answer)
    if args.image:
        err = _draw(answer, args.image)
        if err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    text = json.dumps(answer, indent=1) if args.json else render(answer, args.top, not args.no_board)
    if args.rollout and not args.json and answer["rollout"] is not None:
        from nardibot.cli.cmd_rollout import render as render_rollout  # only with --rollout, as above

        text += "\n\n" + render_rollout(answer["rollout"])
    return _emit(text)


def _note_unused_met(args, answer: dict) -> bool:
    """One line on stderr when --met was given but the answer is no match (money play or long nardi);
    True when it said so."""
    if args.met is None or (answer.get("cube") or {}).get("match_length"):
        return False
    what = "a money game" if answer.get("game") == "backgammon" else "long nardi (no cube)"
    print(f"hint: note: --met {args.met} is not used: {what} has no match equity", file=sys.stderr)
    return True


def _emit(text: str) -> int:
    """Print the answer; a reader that has gone away (``| head``) ends the command quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    return 0


def _draw(answer: dict, path: str) -> str | None:
    """Write the picture of the position (with the best play marked); an error text or None."""
    p = answer["position"]
    pos = np.array(p["board"] + p["bar"] + p["off"], dtype=np.int8)
    play = None
    if answer["plays"]:
        best = answer["plays"][0]["position"]
        play = (pos, np.array(best["board"] + best["bar"] + best["off"], dtype=np.int8))
    state = picture_state(answer.get("cube"))  # the cube and the match or money state (nardi has none)
    try:
        from engine.formats.svg import svg_board, write_image  # only with --image: the drawing code

        write_image(path, svg_board(answer["game"], pos, dice=answer["dice"], play=play, **state))
    except (OSError, ValueError) as e:
        return str(e)
    return None


def _run_jsonl(bot, args, settings: HintSettings) -> int:
    try:
        if args.jsonl == "-" and hasattr(sys.stdin, "reconfigure"):
            sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8: that line is "not JSON"
        stream = sys.stdin if args.jsonl == "-" else open(args.jsonl, encoding="utf-8", errors="replace")  # noqa: SIM115
    except OSError as e:
        print(f"error: cannot read {args.jsonl}: {e.strerror}", file=sys.stderr)
        return 2
    noted = False
    with stream:
        for line in stream:
            try:  # a bad line (not JSON, nested too deeply, no position...) answers one error line
                answer = hint(bot, query_of_line(args.game, line, args.dice), settings)
            except ValueError as e:
                answer = {"error": str(e)}
            if not noted and "error" not in answer:
                noted = _note_unused_met(args, answer)
            if _emit(json.dumps(answer)):
                return 1
    return 0
