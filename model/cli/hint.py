"""`evaluate.py hint`: the best plays of a position, or its cube decision, as a table or JSON.

    python evaluate.py hint 4HPwATDgc/ABMA --dice 31                 # money, centred cube
    python evaluate.py hint 4HPwATDgc/ABMA:cIkFAAAAAAAE              # dice from the Match ID
    python evaluate.py hint "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"   # cube decision
    python evaluate.py hint '{"board": [...], "bar": [0,0], "off": [0,0]}' --game nardi --dice 65
    python evaluate.py hint --jsonl positions.jsonl                  # one JSON answer per line
    python evaluate.py hint 4HPwATDgc/ABMA --dice 31 --rollout 324   # confirm the ranking by rollouts

JSON schema (``--json``, and every line of ``--jsonl``), all equities from the side on roll:

    {"game", "bot", "ply", "position": <JSON form>, "dice": [a, b] | null,
     "position_id", "match_id"? (backgammon; match_id when one was given, with the dice analysed),
     "cube": {"value", "owner": "centred"|"me"|"opponent", "match_length", "score": [me, opp],
              "crawford", "jacoby", "beavers"}  (backgammon only),
     "evaluation": {"probs": {...}, "cubeless_equity"},
     "plays": [{"rank", "move", "position", "ply", "probs", "cubeless_equity",
                "equity" (cubeful money equity, or null in a match), "mwc" (match only), "loss"}],
     "cube_decision": {"action", "double", "response", "double_offered", "no_double", "double_take",
                       "double_pass", "no_double_mwc"?, "double_take_mwc"?, "double_pass_mwc"?} | null,
     "rollout"?: model/cli/rollout.py's JSON of the plays listed (--top of them), or of the position
                 and its cube decision (with --rollout N; null when there is no legal play)}

``action`` is the side on roll's cube action and ``response`` the taker's answer; when the Match ID
or XGID says a double waits for an answer (``double_offered``), ``response`` is the answer asked for.
A play not looked at at the full ply keeps its 0-ply numbers; its ``loss`` is never below 0.

``plays`` is there when dice are given (ranked best first; ``loss`` is against the best, in the
ranking unit: money equity, or MWC in a match); ``cube_decision`` when no dice are given
(backgammon only: long nardi has no cube). A line of ``--jsonl`` is either any position form as a
JSON string or an object {"position": ..., "dice": [a, b]?}; a bad line (an empty one too) answers
{"error": "..."}, so answers and lines stay in step.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, replace

import numpy as np

from engine.board import CHECKERS, OFF, OPP_OFF, flip, pips
from engine.errors import FormatError
from engine.formats.position import (
    CENTRED as FORMAT_CENTRED,
)
from engine.formats.position import (
    MatchInfo,
    read_gnubg_id,
    read_json_position,
    read_position_id,
    read_xgid,
    write_json_position,
    write_match_id,
    write_position_id,
)
from engine.movegen import legal_plays
from engine.notation import format_plays

from model.bot import read_dice
from model.net.equity import OUTPUT_NAMES, cubeless_equity


@dataclass
class Query:
    """One question: a position (mover's frame), its cube/match state, and maybe dice."""

    game: str
    position: np.ndarray
    info: MatchInfo | None
    dice: np.ndarray | None


def parse_position(game: str, text: str) -> tuple[np.ndarray, MatchInfo | None]:
    """Position and match/cube info from any accepted form (JSON, Position ID[:Match ID], XGID)."""
    text = text.strip()
    if text.startswith("{"):
        return read_json_position(game, text), None
    if game != "backgammon":
        raise FormatError("long nardi positions are given in the JSON form (see FORMATS.md)")
    if text.upper().startswith("XGID="):
        return read_xgid(text)
    if ":" in text:
        return read_gnubg_id(text)
    return read_position_id(text), None


def cube_state(info: MatchInfo | None, met: str):
    """The model.cube.decisions.CubeState of a MatchInfo, seen by the side on roll (money, centred if None)."""
    from model.cube.decisions import CENTRED, ME, OPPONENT, CubeState

    if info is None:
        return CubeState(met=met)
    me = info.player_on_roll
    owner = CENTRED if info.cube_owner == FORMAT_CENTRED else (ME if info.cube_owner == me else OPPONENT)
    if info.match_length == 0:
        return CubeState(value=info.cube_value, owner=owner, jacoby=info.jacoby, beavers=info.beavers, met=met)
    return CubeState(value=info.cube_value, owner=owner, match_length=info.match_length,
                     score_me=info.scores[me], score_opp=info.scores[1 - me], crawford=info.crawford,
                     jacoby=False, beavers=False, met=met)


def _probs_dict(game, p) -> dict:
    return {name: round(float(v), 6) for name, v in zip(OUTPUT_NAMES[game], p)}


def analyse(bot, query: Query, ply: int, met: str) -> dict:
    """The whole answer for one query as the JSON-ready dict documented in the module docstring."""
    from model.search.lookahead import evaluate_positions, rank_children, ranking_order

    game, pos = query.game, query.position
    if pos[OFF] == CHECKERS or pos[OPP_OFF] == CHECKERS:
        raise FormatError("the game is over: a side has borne off all 15 checkers")
    net = bot.net
    if net is None:
        raise ValueError(f"{bot.name} is a baseline: hint needs a network (a checkpoint)")
    state = cube_state(query.info, met) if game == "backgammon" else None
    out = {"game": game, "bot": bot.name, "ply": ply, "position": write_json_position(pos),
           "dice": None if query.dice is None else [int(d) for d in query.dice],
           "plays": None, "cube_decision": None}
    if game == "backgammon":
        out["position_id"] = write_position_id(pos)
        if query.info is not None:
            info = query.info
            if query.dice is not None:  # the Match ID written says which dice were analysed
                info = replace(info, dice=(int(query.dice[0]), int(query.dice[1])))
            out["match_id"] = write_match_id(info)
        out["cube"] = {"value": state.value, "owner": state.owner, "match_length": state.match_length,
                       "score": [state.score_me, state.score_opp], "crawford": state.crawford,
                       "jacoby": state.jacoby, "beavers": state.beavers}
    probs = evaluate_positions(net, pos[None], ply)[0]
    out["evaluation"] = {"probs": _probs_dict(game, probs),
                         "cubeless_equity": round(float(cubeless_equity(game, probs)), 6)}
    if query.dice is None:
        if game == "backgammon":
            out["cube_decision"] = _cube_decision(pos, probs, state)
            out["cube_decision"]["double_offered"] = bool(query.info is not None and query.info.double_offered)
        return out
    children, _ = legal_plays(game, pos[None], query.dice[None])
    util, child_probs, depth = rank_children(net, children, ply)
    cubeless = cubeless_equity(game, child_probs)
    equity = mwc = None
    if game == "backgammon":
        from model.cube.decisions import checker_play_value, cube_efficiency

        x = cube_efficiency(flip(game, children))
        value = checker_play_value(child_probs, state, x)
        if state.is_money:
            equity, util = value, value
        else:
            mwc, util = value, value
    else:
        util = cubeless
    order = ranking_order(util, depth)
    moves = format_plays(game, pos, query.dice, children[order])
    best = util[order[0]]
    plays = []
    for rank, (i, move) in enumerate(zip(order, moves), start=1):
        plays.append({
            "rank": rank, "move": move, "position": write_json_position(children[i]), "ply": int(depth[i]),
            "probs": _probs_dict(game, child_probs[i]), "cubeless_equity": round(float(cubeless[i]), 6),
            "equity": None if equity is None else round(float(equity[i]), 6),
            "mwc": None if mwc is None else round(float(mwc[i]), 6),
            "loss": round(max(0.0, float(best - util[i])), 6),
        })
    out["plays"] = plays
    return out


def _cube_decision(pos, probs, state) -> dict:
    """Cube action for the side on roll, from its (n-ply) cubeless probabilities."""
    from model.cube.decisions import cube_decision, cube_efficiency

    x = cube_efficiency(pos[None])[0]
    d = cube_decision(probs, x, state)
    out = {"action": str(d.labels), "double": bool(d.double), "response": str(d.response),
           "no_double": float(d.no_double), "double_take": float(d.double_take),
           "double_pass": float(d.double_pass)}
    if d.no_double_mwc is not None:
        out.update(no_double_mwc=float(d.no_double_mwc), double_take_mwc=float(d.double_take_mwc),
                   double_pass_mwc=float(d.double_pass_mwc))
    return out


def render(answer: dict, top: int, board: bool) -> str:
    """The answer as text for people: board, evaluation, ranked plays or cube decision."""
    game = answer["game"]
    lines = []
    pos = np.array(answer["position"]["board"] + answer["position"]["bar"] + answer["position"]["off"],
                   dtype=np.int8)
    if board:
        try:
            from engine.formats.pictures import ascii_board

            lines.append(ascii_board(game, pos, dice=answer["dice"], mover_name="to play",
                                     opponent_name="opponent"))
        except ImportError:
            pass
    if game == "backgammon":
        ids = f"Position ID: {answer['position_id']}"
        if "match_id" in answer:
            ids += f"   Match ID: {answer['match_id']}"
        lines.append(ids)
        c = answer["cube"]
        where = "money game" if not c["match_length"] else (
            f"{c['match_length']}-point match, score {c['score'][0]}-{c['score'][1]}"
            + (" (Crawford)" if c["crawford"] else ""))
        lines.append(f"{where}; cube {c['value']} {c['owner']}")
    mine, theirs = pips(game, pos[None])[0]
    lines.append(f"Pips: {mine} (on roll) vs {theirs}.  {answer['bot']} at {answer['ply']}-ply")
    names = OUTPUT_NAMES[game]
    ev = answer["evaluation"]
    lines.append("Cubeless: " + "  ".join(f"{n} {100 * ev['probs'][n]:.1f}%" for n in names)
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
        if c["double_offered"]:
            lines.append(f"\nDoubled: the side doubled should {c['response']}   (the double itself: {c['action']})")
        else:
            lines.append(f"\nCube decision: {c['action']}   (the taker should {c['response']})")
        for key, label in (("no_double", "No double"), ("double_take", "Double, take"),
                           ("double_pass", "Double, pass")):
            mwc = c.get(key + "_mwc")
            extra = f"   MWC {100 * mwc:.2f}%" if mwc is not None else ""
            lines.append(f"  {label:<14}{c[key]:+.3f}{extra}")
    return "\n".join(lines)


def _query_from_obj(game: str, obj, default_dice) -> Query:
    """A --jsonl line (already parsed) -> Query."""
    if isinstance(obj, str):
        obj = {"position": obj}
    if not isinstance(obj, dict):
        raise FormatError("each line is a position (JSON string or object) or {\"position\": ..., \"dice\": ...}")
    if "board" in obj:
        obj = {"position": obj, "dice": obj.get("dice")}
    if "position" not in obj:
        raise FormatError("missing 'position'")
    text = obj["position"] if isinstance(obj["position"], str) else json.dumps(obj["position"])
    pos, info = parse_position(game, text)
    dice = obj.get("dice", default_dice)
    return Query(game, pos, info, _dice_of(dice, info))


def _dice_of(dice, info: MatchInfo | None):
    if dice is not None:
        return read_dice(dice)
    if info is not None and info.dice[0]:
        return np.array(info.dice, dtype=np.int64)
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="evaluate.py hint", description="Rank the legal plays of a position, or give its cube decision.")
    parser.add_argument("position", nargs="?", help="gnubg Position ID[:Match ID], XGID=..., or JSON position")
    parser.add_argument("--dice", help="the roll, e.g. 31 or 3-1 (default: the dice in the Match ID/XGID; "
                        "none: cube decision)")
    parser.add_argument("--game", default="backgammon", choices=("backgammon", "nardi"))
    parser.add_argument("--bot", default=None, help="checkpoint path (default: the shipped net of the game)")
    parser.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="look-ahead depth")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--jsonl", metavar="FILE", help="analyse every line of FILE ('-' = stdin), JSON out")
    parser.add_argument("--top", type=int, default=10, help="plays shown in the table")
    parser.add_argument("--no-board", action="store_true", help="do not draw the board")
    parser.add_argument("--image", metavar="FILE", help="also draw the position (and best play) to .svg/.png")
    parser.add_argument("--met", default="Kazaross-XG2", help="match equity table name or XML file")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--rollout", type=int, default=0, metavar="N",
                        help="confirm the ranking: roll out the plays listed (or the cube decision), N trials "
                        "each (a single position, not --jsonl)")
    args = parser.parse_args(argv)
    if (args.position is None) == (args.jsonl is None):
        parser.error("give a position, or --jsonl FILE (not both)")
    from model.bot import Bot
    from model.net.checkpoint import CheckpointError

    try:
        bot = Bot.load(args.bot, game=args.game, device=args.device)
    except (CheckpointError, ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if bot.net is None:
        print(f"error: {bot.name} is a baseline; hint needs a network checkpoint", file=sys.stderr)
        return 2
    if args.jsonl:
        return _run_jsonl(bot, args)
    try:
        pos, info = parse_position(args.game, args.position)
        query = Query(args.game, pos, info, _dice_of(args.dice, info))
        answer = analyse(bot, query, args.ply, args.met)
        if args.rollout:
            from model.cli.rollout import confirm_hint, render as render_rollout

            answer["rollout"] = confirm_hint(bot, query, answer, args.rollout, args.top, args.met)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.image:
        err = _draw(answer, args.image)
        if err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    text = json.dumps(answer, indent=1) if args.json else render(answer, args.top, not args.no_board)
    if args.rollout and not args.json and answer["rollout"] is not None:
        text += "\n\n" + render_rollout(answer["rollout"])
    return _emit(text)


def _emit(text: str) -> int:
    """Print the answer; a reader that has gone away (``| head``) ends the command quietly."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    return 0


def _draw(answer: dict, path: str) -> str | None:
    """Write the picture of the position (with the best play marked); an error text or None."""
    try:
        from engine.formats.pictures import svg_board, write_image
    except ImportError:
        return "drawing is not available in this version"
    p = answer["position"]
    pos = np.array(p["board"] + p["bar"] + p["off"], dtype=np.int8)
    play = None
    if answer["plays"]:
        best = answer["plays"][0]["position"]
        play = (pos, np.array(best["board"] + best["bar"] + best["off"], dtype=np.int8))
    try:
        write_image(path, svg_board(answer["game"], pos, dice=answer["dice"], play=play))
    except (OSError, ValueError) as e:
        return str(e)
    return None


def _run_jsonl(bot, args) -> int:
    try:
        stream = sys.stdin if args.jsonl == "-" else open(args.jsonl, encoding="utf-8")  # noqa: SIM115
    except OSError as e:
        print(f"error: cannot read {args.jsonl}: {e.strerror}", file=sys.stderr)
        return 2
    with stream:
        for line in stream:
            try:
                if not line.strip():
                    raise ValueError("empty line")
                query = _query_from_obj(args.game, json.loads(line), args.dice)
                answer = analyse(bot, query, args.ply, args.met)
            except json.JSONDecodeError as e:
                answer = {"error": f"not JSON: {e.msg}"}
            except ValueError as e:
                answer = {"error": str(e)}
            if _emit(json.dumps(answer)):
                return 1
    return 0
