"""Bot-vs-bot benchmarking: two players play N cubeless games with mirrored dice.

    python evaluate.py A B --game backgammon --games 2000 --seed 1 --batch 256 --device auto --json out.json

A and B are each a checkpoint path or a baseline name (random, heuristic, heuristic-easy, and for
backgammon pubeval, gnubg, gnubg-0ply, gnubg-1ply, gnubg-2ply). A checkpoint path may end in +exact
(bear-off positions from the exact databases, model/net/evaluator.py) or +noexact (from the network). Every dice stream is played twice
with the seats swapped, so --games must be even; the 95% interval treats each mirrored pair as one
sample. Prints A's points per game, win/gammon/backgammon (nardi: win/mars) rates of both sides and
games/s; --json writes every figure with the exact settings. --mat FILE (backgammon) saves every game
as a Jellyfish .mat money session, A in the left column, for gnubg's ``import mat FILE`` (say ``set
jacoby off`` first so that gnubg scores the cubeless gammons as played).

Subcommands: if the first argument is a name in SUBCOMMANDS, the rest goes to that command:

    python evaluate.py hint POSITION [--dice 31] [--ply 2] [--json]   best plays / cube decision
    python evaluate.py serve --port 4321                             gnubg external-player server
    python evaluate.py play [--game nardi] [--match 5]               play the bot in the terminal
    python evaluate.py cube A B [--length 5] [--matches 1000]        games with the cube, full matches
    python evaluate.py rollout POSITION [--dice 31] [--trials 1296]  rollouts with confidence intervals
    python evaluate.py match A B ...                                 the same as giving no subcommand

otherwise the arguments are the match command's. A checkpoint file named like a subcommand is
given as ./name.

Bad flags, unknown players, missing or corrupt checkpoints: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from engine.board import GAMES
from engine.formats.matfile import MatchRecord, write_mat
from model.arena.cubeless import MAX_PLIES, ArenaResult, mat_record, play_games
from model.cli.common import USAGE_ERROR, OneLineParser, UsageError, write_json
from model.players.registry import BASELINES, make_player, split_endgame_suffix

LABELS = {"win": "wins", "gammon": "gammons", "backgammon": "backgammons", "mars": "mars"}


@dataclass
class Args:
    """Settings of a match between two players."""

    a: str = field(metadata={"help": "player A: a checkpoint path or a baseline name", "positional": True})
    b: str = field(metadata={"help": "player B: a checkpoint path or a baseline name", "positional": True})
    game: str = field(default="backgammon", metadata={"help": "which game", "choices": GAMES})
    games: int = field(default=1000, metadata={"help": "games to play; even: each dice stream is played twice"})
    seed: int = field(default=0, metadata={"help": "seed of the dice streams (and of random players)"})
    batch: int = field(default=256, metadata={"help": "games in play at once"})
    device: str = field(default="auto", metadata={"help": "torch device for networks: auto, cpu, cuda, cuda:1..."})
    json: str | None = field(default=None, metadata={"help": "write every figure and the settings to this file"})
    mat: str | None = field(default=None, metadata={
        "help": "backgammon: save every game to this Jellyfish .mat file (one money session, A on the left) "
                "for gnubg's 'import mat FILE'; 'set jacoby off' in gnubg first scores gammons as played"})
    max_plies: int = field(default=MAX_PLIES, metadata={"help": "safety cap on a game's plies (capped games score 0)"})
    threads: int = field(default=1, metadata={"help": "torch CPU threads for networks"})
    no_progress: bool = field(default=False, metadata={"help": "no progress bar (it is off anyway off a terminal)"})


def build_parser() -> argparse.ArgumentParser:
    """The match command's parser, one flag per Args field, its help from the field's metadata."""
    parser = OneLineParser(prog="evaluate.py", description="Cubeless bot-vs-bot games with mirrored dice.",
                     epilog=f"subcommands: {', '.join(SUBCOMMANDS)} (default: match). "
                            f"baselines: {', '.join(BASELINES)}")
    for f in fields(Args):
        meta = dict(f.metadata)
        if meta.pop("positional", False):
            parser.add_argument(f.name, help=meta["help"])
        elif f.type in (bool, "bool"):
            parser.add_argument(f"--{f.name.replace('_', '-')}", action="store_true", help=meta["help"])
        else:
            kind = {"int": int, "str": str}.get(str(f.type), str)
            parser.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=f.default,
                                metavar=f.name.upper(), help=f"{meta.pop('help')} (default: {f.default})", **meta)
    return parser


def parse_args(argv: list[str]) -> Args:
    """Args from the command line, checked; UsageError on anything wrong."""
    args = Args(**vars(build_parser().parse_args(argv)))
    if args.games < 2 or args.games % 2:
        raise UsageError(f"--games must be a positive even number (each dice stream is played twice), got {args.games}")
    if args.batch < 1:
        raise UsageError(f"--batch must be at least 1, got {args.batch}")
    if args.max_plies < 1 or args.threads < 1:
        raise UsageError("--max-plies and --threads must be at least 1")
    if args.mat and args.game != "backgammon":
        raise UsageError(f"--mat: .mat files hold backgammon only; {args.game} games cannot be saved in one")
    if args.mat and not Path(args.mat).absolute().parent.is_dir():
        raise UsageError(f"--mat: cannot write {args.mat}: no such folder")  # said before the games, not after
    return args


def load_players(args: Args):
    """(player A, player B, the device networks run on); UsageError for a player that cannot be made."""
    specs = (args.a, args.b)
    checkpoints = [spec for spec in specs
                   if spec.strip().lower() not in BASELINES and Path(split_endgame_suffix(spec)[0]).is_file()]
    device = resolve_device(args.device, args.threads) if checkpoints else "cpu"  # torch only for networks
    players = []
    for seat, spec in enumerate(specs):
        try:
            players.append(make_player(spec, args.game, device=device, seed=args.seed * 2 + seat))
        except Exception as e:  # noqa: BLE001 - at the command line any failure to load is bad input
            message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UsageError(f"player {'AB'[seat]} ({spec}): {message}") from None
    return players[0], players[1], device


def resolve_device(name: str, threads: int) -> str:
    """The torch device for networks: "auto" is cuda when there is one, else cpu."""
    try:
        import torch
    except ImportError as e:
        raise UsageError(f"checkpoints need torch: {e}") from None
    torch.set_num_threads(threads)
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        torch.device(name)
    except (RuntimeError, ValueError):
        raise UsageError(f"--device: not a torch device: {name!r}") from None
    return name


def run_match(args: Args) -> tuple[ArenaResult, str]:
    """Play the match, with a progress bar on a terminal: (result, the device networks ran on)."""
    player_a, player_b, device = load_players(args)
    from tqdm import tqdm

    with tqdm(total=args.games, unit="game", file=sys.stderr, dynamic_ncols=True,
              disable=True if args.no_progress else None) as bar:
        result = play_games(player_a, player_b, args.games, seed=args.seed, batch=args.batch,
                            max_plies=args.max_plies, progress=bar.update, record_plays=bool(args.mat))
    return result, device


def report(args: Args, result: ArenaResult) -> str:
    """The human-readable summary of a match."""
    s = result.summary()
    levels = ("win", "gammon", "backgammon") if args.game == "backgammon" else ("win", "mars")
    lines = [
        f"{args.game}: {s['a']} (A) vs {s['b']} (B), {s['games']} games = {s['pairs']} mirrored pairs, seed {args.seed}",
        (f"A points per game: {s['ppg']:+.3f} +- {s['ci95']:.3f} "
         f"(95% CI {s['ci95_low']:+.3f} to {s['ci95_high']:+.3f})"),
    ]
    for who in ("a", "b"):
        rates = "  ".join(f"{LABELS[level]} {100 * s[f'{who}_{level}']:5.1f}%" for level in levels)
        lines.append(f"{who.upper()}: {rates}")
    lines.append(f"{s['mean_plies']:.1f} plies/game, {s['capped_games']} games capped at {s['max_plies']} plies; "
                 f"{s['games_per_s']:.1f} games/s ({s['seconds']:.1f} s)")
    return "\n".join(lines)


def write_match_json(path: str, args: Args, argv: list[str], result: ArenaResult, device: str) -> None:
    """Every figure of the match and the exact settings (and the device they resolved to), as JSON."""
    write_json(path, {"command": "match", "argv": argv, "settings": asdict(args), "device_used": device,
                      "result": result.summary()})


def save_mat(record: MatchRecord, path: str) -> None:
    """Write a .mat record (engine/formats/matfile.py); UsageError if the file cannot be written."""
    try:
        write_mat(record, path)
    except OSError as e:
        raise UsageError(f"--mat: cannot write {path}: {e.strerror}") from None


def match_main(argv: list[str]) -> int:
    """The match command: parse, play, print, optionally write JSON and the games as .mat."""
    args = parse_args(argv)
    result, device = run_match(args)
    print(report(args, result))
    if args.json:
        write_match_json(args.json, args, argv, result, device)
    if args.mat:
        save_mat(mat_record(result), args.mat)
        print(f"games saved as .mat: {args.mat}")
    return 0


def _lazy(module: str) -> Callable[[list[str]], int]:
    """A subcommand whose module is imported only when it runs (keeps every start-up short)."""

    def run(argv: list[str]) -> int:
        import importlib

        return importlib.import_module(module).main(argv)

    return run


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "match": match_main,
    "hint": _lazy("model.cli.hint"),  # best plays or cube decision of a position
    "serve": _lazy("model.cli.serve"),  # gnubg's external-player protocol
    "play": _lazy("model.cli.play"),  # a person plays the bot in the terminal
    "cube": _lazy("model.cli.cube"),  # games with the cube and full matches, bot vs bot
    "rollout": _lazy("model.cli.rollout"),  # roll out a position or the plays of a roll
}
"""First-argument names that select a command; anything else is the match command's arguments."""


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a subcommand when argv[0] names one, else run the match command."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = match_main
    if argv and argv[0] in SUBCOMMANDS:
        command, argv = SUBCOMMANDS[argv[0]], argv[1:]
    try:
        return command(argv)
    except UsageError as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("evaluate.py: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
