"""``nardibot duel A B`` (also ``nardibot match A B``, ``nardibot A B``, ``python evaluate.py A B``): two
players play N cubeless games with mirrored dice.

    nardibot duel A B --game backgammon --games 2000 --seed 1 --batch 256 --device auto --json out.json

A and B are each a checkpoint path or a baseline name (random, heuristic, heuristic-easy, and for
backgammon pubeval, gnubg, gnubg-0ply, gnubg-1ply, gnubg-2ply); a checkpoint path may end in +exact
(bear-off positions from the exact databases, model/net/evaluator.py) or +noexact (from the network),
and in +1ply or +2ply (the net picks each play looking that many plies ahead, by cubeless money equity,
ranked as ``hint --ply N`` ranks them; +0ply is the default), and (backgammon) in +race (races from the race
net checkpoints/backgammon-race.safetensors, model/net/race.py), in any order, e.g.
``checkpoints/backgammon.safetensors+2ply+noexact``. Every dice stream is played twice
with the seats swapped, so --games must be even; the 95% interval treats each mirrored pair as one
sample. Prints A's points per game, win/gammon/backgammon (nardi: win/mars) rates of both sides and
games/s; --json writes every figure with the exact settings. --mat FILE (backgammon) saves every game
as a Jellyfish .mat money session, A in the left column, for gnubg's ``import mat FILE`` (say ``set
jacoby off`` first so that gnubg scores the cubeless gammons as played); the file says the games were
played without the cube and without Jacoby (``; [CubeLimit "1"]``, ``; [Jacoby "Off"]``), so ``nardibot
analyse`` rates no cube decisions in it. A --mat FILE whose name ends in .sgf is written as gnubg's own
match file instead (engine/formats/sgf.py, for gnubg's ``load match``; ``RU[NoCube]``, no Jacoby). A
--json or --mat file that cannot be written is said before the games are played.

--luck CHECKPOINT also reports the luck-adjusted points per game (model/arena/luck.py): the net judges
every throw's luck at 0-ply (its best play of the roll thrown against the average over the 21 rolls)
and A's points less A's luck plus B's estimate the same points per game with an interval some five
times narrower than the raw one between players of similar strength (the shipped net against gnubg
0-ply: 0.077 -> 0.016 over 1,000 games), at six to seven times the 0-ply games' own time.

Bad flags, unknown players, missing or corrupt checkpoints: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from engine import compiled
from engine.board import GAMES
from engine.formats.matchfiles import write_match, written_format
from engine.formats.matfile import MatchRecord
from model.arena.cubeless import MAX_PLIES, ArenaResult, mat_record, play_games
from model.arena.luck import game_luck, judged_turns
from model.net.device import choose_device
from model.players.registry import BASELINES, make_player, parse_checkpoint_spec
from nardibot.cli.commands import COMMANDS
from nardibot.cli.common import (
    CLOSED_PIPE,
    PROG,
    UsageError,
    check_writable,
    dataclass_parser,
    emit,
    option,
    progress_bar,
    write_json,
)

LABELS = {"win": "wins", "gammon": "gammons", "backgammon": "backgammons", "mars": "mars"}


@dataclass
class Args:
    """Settings of a match between two players."""

    a: str = option(help="player A: a checkpoint path or a baseline name; a path may end in +exact or "
                    "+noexact (bear-offs from the databases or the net) and +1ply or +2ply (each play picked "
                    "by cubeless equity that many plies ahead, ranked as hint --ply ranks; +0ply: the "
                    "default) and +race (backgammon: races from the race net), in any order; paths joined by commas "
                    "play as one net, the mean of their probabilities", positional=True)
    b: str = option(help="player B: as A", positional=True)
    game: str = option("backgammon", help="which game", choices=GAMES)
    games: int = option(1000, help="games to play; even: each dice stream is played twice")
    seed: int = option(0, help="seed of the dice streams (and of random players)")
    batch: int = option(256, help="games in play at once")
    device: str = option("auto", help="torch device for networks: auto, cpu, cuda, cuda:1...")
    json: str | None = option(None, help="write every figure and the settings to this file")
    mat: str | None = option(None, help="backgammon: save every game to this Jellyfish .mat file (one "
                             "money session, A on the left) for gnubg's 'import mat FILE'; 'set jacoby off' in "
                             "gnubg first scores gammons as played; a FILE ending in .sgf is written as "
                             "gnubg's .sgf ('load match')")
    luck: str | None = option(None, help="also report the luck-adjusted points per game, each throw's luck judged "
                              "at 0-ply by this checkpoint (+exact/+noexact allowed): the same figure with a "
                              "far narrower interval (model/arena/luck.py); costs 6-7x the time of 0-ply games")
    luck_prune: int = option(8, help="backgammon: the judge values each roll by its best of pubeval's best N plays "
                             "(0: of every legal play, some 4x slower); either way the adjustment is unbiased")
    max_plies: int = option(MAX_PLIES, help="safety cap on a game's plies (capped games score 0)")
    threads: int = option(1, help="torch CPU threads for networks")
    no_progress: bool = option(False, help="no progress bar (it is off anyway off a terminal)")


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The match command's parser, named ``prog`` in its usage and error lines (``nardibot``, ``nardibot
    duel`` or ``nardibot match``, as it was called): a flag per Args field (engine/tools/cli.py's
    dataclass_parser)."""
    return dataclass_parser(Args, prog=prog,
                            description="Cubeless bot-vs-bot games with mirrored dice.",
                            epilog=f"subcommands: {', '.join(COMMANDS)} (default: match). "
                                   f"baselines: {', '.join(BASELINES)}")


def parse_args(argv: list[str], prog: str = PROG) -> Args:
    """Args from the command line, checked; bad flags exit with one line, UsageError on anything else."""
    args = Args(**vars(build_parser(prog).parse_args(argv)))
    if args.games < 2 or args.games % 2:
        raise UsageError(f"--games must be a positive even number (each dice stream is played twice), got {args.games}")
    if args.batch < 1:
        raise UsageError(f"--batch must be at least 1, got {args.batch}")
    if args.max_plies < 1:
        raise UsageError(f"--max-plies must be at least 1, got {args.max_plies}")
    if args.threads < 1:
        raise UsageError(f"--threads must be at least 1, got {args.threads}")
    if args.seed < 0:  # checked here: a player seeded from it would be blamed for it
        raise UsageError(f"--seed must be 0 or more, got {args.seed}")
    if args.luck_prune < 0:
        raise UsageError(f"--luck-prune must be 0 or more, got {args.luck_prune}")
    if args.mat and args.game != "backgammon":
        raise UsageError(f"--mat: .mat files hold backgammon only; {args.game} games cannot be saved in one")
    for flag, path in (("--json", args.json), ("--mat", args.mat)):
        check_writable(flag, path)  # said before the games, not after
    return args


def load_players(args: Args):
    """(player A, player B, the device networks run on); UsageError for a player that cannot be made."""
    specs = (args.a, args.b)
    checkpoints = [spec for spec in specs if spec.strip().lower() not in BASELINES and _names_a_file(spec)]
    device = "cpu"
    if checkpoints:  # torch only for networks
        try:
            device = choose_device(args.device, args.threads)
        except ValueError as e:
            raise UsageError(str(e)) from None
    players = []
    for seat, spec in enumerate(specs):
        try:
            players.append(make_player(spec, args.game, device=device, seed=args.seed * 2 + seat))
        except Exception as e:  # noqa: BLE001 - at the command line any failure to load is bad input
            raise UsageError(f"player {'AB'[seat]} ({spec}): {_first_line(e)}") from None
    return players[0], players[1], device


def _names_a_file(spec: str) -> bool:
    """Whether a spec's path (its suffixes read off) is a file; a bad suffix is make_player's to say."""
    try:
        return Path(parse_checkpoint_spec(spec).path).is_file()
    except ValueError:
        return False


def load_judge(args: Args):
    """The --luck judge's network, on the CPU (None without --luck); UsageError for a spec that is no
    checkpoint."""
    if args.luck is None:
        return None
    spec = args.luck.strip()
    if not spec:
        raise UsageError("--luck: give the judge's checkpoint path")
    if spec.lower() in BASELINES:
        raise UsageError(f"--luck {args.luck}: the judge must be a checkpoint (its net values the rolls)")
    try:
        if parse_checkpoint_spec(spec).plies:
            raise UsageError(f"--luck {args.luck}: the judge looks at 0-ply; give the checkpoint without +Nply")
        return make_player(spec, args.game, device="cpu").net  # numpy inference (model/net/inference.py)
    except UsageError:
        raise
    except Exception as e:  # noqa: BLE001 - at the command line any failure to load is bad input
        raise UsageError(f"--luck {args.luck}: {_first_line(e)}") from None


def _first_line(error: Exception) -> str:
    """What a failure to load says, in one line: its message's first line, else its type's name."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def run_match(args: Args) -> tuple[ArenaResult, str]:
    """Play the match, with a progress bar on a terminal, and judge the luck if asked: (result, the
    device networks ran on)."""
    player_a, player_b, device = load_players(args)
    judge = load_judge(args)  # before the games: a bad judge is said at once
    with progress_bar(args.games, "game", not args.no_progress) as bar:
        result = play_games(player_a, player_b, args.games, seed=args.seed, batch=args.batch,
                            max_plies=args.max_plies, progress=bar.update,
                            record_plays=bool(args.mat) or judge is not None)
    if judge is not None:
        with progress_bar(judged_turns(result.plays), "turn", not args.no_progress) as bar:
            result.luck = game_luck(judge, result.plays, args.luck_prune, progress=bar.update)
        result.luck_judge = args.luck
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
    if "luck_adjusted" in s:
        adj = s["luck_adjusted"]
        lines.insert(2, (f"A luck-adjusted points per game: {adj['ppg']:+.4f} +- {adj['ci95']:.4f} (A's luck "
                         f"{adj['a_luck_per_game']:+.4f} a game, judged by {adj['judge']})"))
    lines.append(f"{s['mean_plies']:.1f} plies/game, {s['capped_games']} games capped at {s['max_plies']} plies; "
                 f"{s['games_per_s']:.1f} games/s ({s['seconds']:.1f} s)")
    return "\n".join(lines)


def write_match_json(path: str, args: Args, argv: list[str], result: ArenaResult, device: str) -> None:
    """Every figure of the match and the exact settings (and the device they resolved to), as JSON."""
    write_json(path, {"command": "match", "argv": argv, "settings": asdict(args), "device_used": device,
                      "result": result.summary()})


def save_mat(record: MatchRecord, path: str) -> None:
    """Write a match record as .mat or .sgf (engine/formats/matchfiles.py); UsageError if the file cannot be
    written."""
    try:
        write_match(record, path)
    except OSError as e:
        raise UsageError(f"--mat: cannot write {path}: {e.strerror}") from None


def match_main(argv: list[str], prog: str = PROG) -> int:
    """The match command, called ``prog``: parse, play, print, optionally write JSON and the games as .mat."""
    args = parse_args(argv, prog)
    with compiled.every_kernel():  # long work from its start: every compiled kernel (engine/compiled.py)
        result, device = run_match(args)
    shown = emit(report(args, result))  # a reader gone away (| head) still gets the files written
    if args.json:
        write_match_json(args.json, args, argv, result, device)
    if args.mat:
        save_mat(replace(mat_record(result), cube=False, jacoby=False), args.mat)  # the duel's own rules
        shown = shown and emit(f"games saved as {written_format(args.mat)}: {args.mat}")
    return 0 if shown else CLOSED_PIPE


main = match_main
"""The entry of ``match`` and ``duel`` (nardibot/cli/main.py runs match_main, giving it the name it was
called by, also for arguments that name no subcommand)."""
