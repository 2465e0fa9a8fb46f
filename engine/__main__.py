"""The engine's command line: ``python -m engine plays|show|bench``.

plays   reads JSON lines ``{"board": [...], "bar": [m, o], "off": [m, o], "dice": [a, b]}`` (and, for
        long nardi, an optional ``"first_turn": true|false``; by default a first turn is "all 15 on
        the head") and writes one line per input line: ``{"plays": [{"move": "<notation>",
        "position": {...}}, ...]}``, every distinct legal play and the position it leaves, seen by
        the same side before the turn passes; the empty play has move "". A bad line gets
        ``{"error": "<reason>"}`` and the run goes on. Lines are generated in batches.
show    decodes a Position ID, gnubg ID (PositionID:MatchID), XGID or JSON position and prints it
        as one JSON object with its IDs and pip counts.
bench   the move generator's benchmark (``engine.tools.bench``, loaded only when asked for).

Bad flags exit with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from engine.board import CHECKERS, GAMES, HEAD, pips
from engine.errors import FormatError
from engine.formats.position import (
    MatchInfo,
    load_json,
    read_json_position,
    read_position_text,
    write_gnubg_id,
    write_json_position,
    write_xgid,
)
from engine.movegen import legal_plays
from engine.notation import format_plays
from engine.tools.cli import USAGE_ERROR, OneLineParser

BATCH_LINES = 1024
"""Input lines handed to one legal_plays call."""
REQUEST_KEYS = {"board", "bar", "off", "dice", "first_turn"}


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser (subcommands plays, show, bench)."""
    parser = OneLineParser(prog="python -m engine", description="Rules engine of backgammon and long nardi.")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{plays,show,bench}", parser_class=OneLineParser
    )
    plays = sub.add_parser(
        "plays",
        help="every legal play of JSON-line positions read on stdin",
        description='Reads JSON lines {"board": [24], "bar": [2], "off": [2], "dice": [a, b]} '
        '(nardi: optional "first_turn") on stdin; writes {"plays": [{"move", "position"}, ...]} '
        'or {"error": reason} per line.',
    )
    plays.add_argument("--game", choices=GAMES, default="backgammon", help="the game (default: backgammon)")
    show = sub.add_parser("show", help="decode a Position ID, gnubg ID, XGID or JSON position")
    show.add_argument("text", help="PositionID, PositionID:MatchID, XGID=... or a JSON position")
    show.add_argument("--game", choices=GAMES, default="backgammon", help="game of a JSON position")
    sub.add_parser(
        "bench", help="benchmark of the move generator (see python -m engine bench --help)", add_help=False
    )
    return parser


# ----------------------------------------------------------------------------------------------
# plays


def read_request(game: str, line: str) -> tuple[np.ndarray, tuple[int, int], bool]:
    """(position, dice, first_turn) of one input line; FormatError says what is wrong with it."""
    if not line.strip():
        raise FormatError("empty line: expected a JSON object")
    data = load_json(line)  # one FormatError line for bad or too deeply nested JSON
    if not isinstance(data, dict):
        raise FormatError(f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - REQUEST_KEYS)
    if unknown:
        raise FormatError(f"unknown key {unknown[0]!r}: expected {', '.join(sorted(REQUEST_KEYS))}")
    position = read_json_position(game, data)
    dice = data.get("dice")
    if not (isinstance(dice, list) and len(dice) == 2 and all(type(d) is int and 1 <= d <= 6 for d in dice)):
        raise FormatError(f"'dice' must be two whole numbers 1..6, got {json.dumps(dice)}")
    first_turn = data.get("first_turn")
    if first_turn is not None and game != "nardi":
        raise FormatError("'first_turn' is for long nardi only")
    if first_turn is not None and not isinstance(first_turn, bool):
        raise FormatError(f"'first_turn' must be true or false, got {json.dumps(first_turn)}")
    if first_turn is None:
        first_turn = bool(position[HEAD] == CHECKERS) if game == "nardi" else False
    return position, (dice[0], dice[1]), first_turn


def answer_lines(game: str, lines: list[str]) -> list[dict]:
    """The answer to each input line, with one legal_plays call for all good lines."""
    answers: list[dict | None] = [None] * len(lines)
    good, requests = [], []
    for i, line in enumerate(lines):
        try:
            requests.append(read_request(game, line))
            good.append(i)
        except ValueError as err:
            answers[i] = {"error": str(err)}
    if requests:
        positions = np.stack([r[0] for r in requests])
        dice = np.array([r[1] for r in requests], dtype=np.int64)
        first = np.array([r[2] for r in requests], dtype=bool)
        children, parent = legal_plays(game, positions, dice, first if game == "nardi" else None)
        bounds = np.searchsorted(parent, np.arange(len(requests) + 1))
        for k, i in enumerate(good):
            kids = children[bounds[k] : bounds[k + 1]]
            first_turn = bool(first[k]) if game == "nardi" else None
            moves = format_plays(game, positions[k], requests[k][1], kids, first_turn)
            answers[i] = {
                "plays": [{"move": m, "position": write_json_position(c)} for m, c in zip(moves, kids)]
            }
    return answers


def run_plays(game: str, stdin, stdout) -> int:
    """Answer every line of ``stdin`` (bytes) on ``stdout``, BATCH_LINES at a time."""
    batch: list[str] = []

    def flush() -> None:
        for answer in answer_lines(game, batch):
            stdout.write(json.dumps(answer) + "\n")
        stdout.flush()
        batch.clear()

    for raw in stdin:
        try:
            batch.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            batch.append("\0not utf-8")  # answered as "not JSON"
        if len(batch) >= BATCH_LINES:
            flush()
    flush()
    return 0


# ----------------------------------------------------------------------------------------------
# show


def decode(game: str, text: str) -> dict:
    """A JSON-ready description of a position given as Position ID, gnubg ID, XGID or JSON."""
    if not text.strip().startswith("{"):
        game = "backgammon"  # the IDs are backgammon's
    position, info = read_position_text(game, text)
    out = {
        "game": game,
        "position": write_json_position(position),
        "pips": [int(p) for p in pips(game, position)],
    }
    if game == "backgammon":
        info = info or MatchInfo()
        out["gnubg_id"] = write_gnubg_id(position, info)
        out["xgid"] = write_xgid(position, info)
        out["match"] = {
            k: (list(v) if isinstance(v, tuple) else int(v) if not isinstance(v, bool) else v)
            for k, v in vars(info).items()
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "bench":
        from engine.tools import bench  # lazily: plays and show do not load it

        return bench.main(argv[1:]) or 0
    args = build_parser().parse_args(argv)
    try:
        if args.command == "plays":
            return run_plays(args.game, sys.stdin.buffer, sys.stdout)
        print(json.dumps(decode(args.game, args.text)))
        return 0
    except ValueError as err:
        print(f"python -m engine {args.command}: error: {err}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
