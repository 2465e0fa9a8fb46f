"""``nardibot cube A B ...``: full games with the doubling cube, or full matches, bot against bot.

    nardibot cube runs/bg/last.pt runs/bg/last.pt --b-cube none --games 4000      money
    nardibot cube last.pt last.pt --b-cube money --length 5 --matches 1000           matches
    nardibot cube heuristic random --game nardi --length 7 --matches 200            nardi

A and B are checkpoint paths or baseline names (model/players/registry.py). Each has a cube policy
(model/players/cube_players.py): auto (a network decides its cube with model/cube/decisions.py, a baseline never
doubles and always takes), net, money (money-style: ignores the score), none, random. Every game
runs through engine.game's rules (model/arena/cubeful.py) with mirrored dice: matches come in pairs
with the seats swapped, so the count must be even. Money play (--length 0) reports A's points per
game, the cube included, with a 95% interval over the pairs; a match length reports A's match wins
with a 95% interval over the pairs (and Wilson's over matches). --json writes every figure.

Money options (RULES-DECISIONS.md; money play only): --jacoby (gammons count single while the cube
is centred), --beavers (a doubled side may redouble at once and keep the cube), --automatic-doubles
N (each tie of the opening throw doubles the centred cube, at most N times, never past 64; the two
games of a mirrored pair throw the same ties). The players' cube decisions and checker play see them.

--mat FILE (backgammon) saves the games for gnubg's ``import mat``, A in the left column and the
players named by their specs (checkpoint stem or baseline name): money play as one money session in
FILE, its options in comment lines (engine/formats/matfile.py); matches one file each (a .mat file
holds one match), FILE's name with the match number added before the suffix: ``--mat m.mat
--matches 4`` writes m-1.mat .. m-4.mat (m-01.mat .. m-10.mat for 10). gnubg replays money games under
its own Jacoby setting (``set jacoby on|off``) and knows no automatic doubles. A FILE whose name ends in
.sgf is written as gnubg's own match file instead (engine/formats/sgf.py; gnubg's ``load match``),
which says the Jacoby rule and each game's starting cube itself.

Bad flags, unknown players, missing or corrupt checkpoints: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from engine import compiled
from engine import game as g
from engine.board import GAMES
from engine.formats.matchfiles import write_match, written_format
from engine.formats.matfile import player_names
from model.arena.cubeful import mat_records, play_matches
from model.arena.cubeless import MAX_PLIES
from model.players.cube_players import CHECKER_PLAY, POLICIES, make_cube_player
from model.players.registry import BASELINES
from nardibot.cli.common import (
    CLOSED_PIPE,
    OneLineParser,
    UsageError,
    add_money_options,
    check_writable,
    emit,
    run_main,
    write_json,
)
from nardibot.cli.common import progress_bar as bar_on_stderr


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="nardibot cube", description="Games with the cube and full matches, bot vs bot.")
    parser.add_argument("a", help="player A: a checkpoint path or a baseline name")
    parser.add_argument("b", help="player B: a checkpoint path or a baseline name")
    parser.add_argument("--game", choices=GAMES, default="backgammon", help="which game (default backgammon)")
    parser.add_argument("--length", type=int, default=0, help="match length, 1..25; 0 = money games (default)")
    parser.add_argument("--matches", "--games", dest="matches", type=int, default=1000,
                        help="matches (money: games) to play, even: mirrored pairs (default 1000)")
    for side in ("a", "b"):
        parser.add_argument(f"--{side}-cube", choices=POLICIES, default="auto",
                            help=f"player {side.upper()}'s cube policy (default auto)")
        parser.add_argument(f"--{side}-checker", choices=CHECKER_PLAY, default="cubeful",
                            help=f"player {side.upper()}'s checker play with the net policy (default cubeful)")
    add_money_options(parser)
    parser.add_argument("--no-cube", action="store_true", help="play without the doubling cube")
    parser.add_argument("--resign", action="store_true", help="networks offer and judge resignations")
    parser.add_argument("--seed", type=int, default=0, help="seed of the dice streams (default 0)")
    parser.add_argument("--batch", type=int, default=128, help="matches in play at once (default 128)")
    parser.add_argument("--max-plies", type=int, default=MAX_PLIES, help="safety cap on a game's plies")
    parser.add_argument("--json", default=None, metavar="FILE", help="write every figure and the settings")
    parser.add_argument("--mat", default=None, metavar="FILE",
                        help="backgammon: save the games as Jellyfish .mat for gnubg's 'import mat': money "
                             "play one session in FILE; matches one file each: FILE's stem, '-', the match "
                             "number, its suffix (m.mat -> m-1.mat, m-2.mat...); a FILE ending in .sgf is "
                             "written as gnubg's .sgf ('load match')")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def parse(argv: list[str]) -> tuple[argparse.Namespace, g.Rules]:
    """The flags and the rules they give; bad flags exit with one line, UsageError on anything else wrong."""
    args = build_parser().parse_args(argv)
    if args.matches < 2 or args.matches % 2:
        raise UsageError(f"--matches must be a positive even number (mirrored pairs), got {args.matches}")
    if args.batch < 1 or args.max_plies < 1 or args.seed < 0:
        raise UsageError("--batch and --max-plies must be at least 1, --seed at least 0")
    try:
        rules = g.Rules(game=args.game, match_length=args.length, cube=not args.no_cube,
                        jacoby=args.jacoby, beavers=args.beavers, automatic_doubles=args.automatic_doubles,
                        session_games=0 if args.length else 1)
    except g.RuleError as e:
        raise UsageError(str(e)) from None
    if args.mat and args.game != "backgammon":
        raise UsageError(f"--mat: .mat files hold backgammon only; {args.game} games cannot be saved in one")
    for flag, path in (("--json", args.json), ("--mat", args.mat)):
        check_writable(flag, path)  # said before the games, not after
    return args, rules


def load(args) -> tuple:
    """(player A, player B) as cube players; UsageError for a player that cannot be made."""
    players = []
    for seat, (spec, policy, checker) in enumerate(((args.a, args.a_cube, args.a_checker),
                                                    (args.b, args.b_cube, args.b_checker))):
        try:
            players.append(make_cube_player(spec, args.game, policy, checker, seed=args.seed * 2 + seat,
                                            resign=args.resign))
        except Exception as e:  # noqa: BLE001 - at the command line any failure to load is bad input
            message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UsageError(f"player {'AB'[seat]} ({spec}): {message}") from None
    if players[0].name == players[1].name:
        players[0].name, players[1].name = f"A:{players[0].name}", f"B:{players[1].name}"
    return tuple(players)


def run(players, rules: g.Rules, matches: int, seed: int = 0, batch: int = 128, max_plies: int = MAX_PLIES,
        resignations: bool = False, progress_bar: bool = True, record: bool = False):
    """Play with a progress bar on stderr (off the terminal, or without tqdm, it stays quiet)."""
    unit = "game" if rules.money else "match"
    with bar_on_stderr(matches, unit, progress_bar) as bar:
        return play_matches(players[0], players[1], rules, matches, seed=seed, batch=batch,
                            max_plies=max_plies, resignations=resignations, progress=bar.update,
                            record=record)


def report(summary: dict) -> str:
    """The human-readable lines of a run."""
    s = summary
    what = "money games" if s["money"] else f"{s['match_length']}-point matches"
    lines = [(f"{s['game']}: {s['a']} (A) vs {s['b']} (B), {s['matches']} {what} = {s['pairs']} "
              f"mirrored pairs, seed {s['seed']}")]
    if s["money"]:
        lines.append(f"A points per game (cube included): {s['ppg']:+.3f} +- {s['ppg_ci95']:.3f} "
                     f"(95% CI {s['ppg_ci95_low']:+.3f} to {s['ppg_ci95_high']:+.3f})")
    else:
        lines.append(f"A match wins: {s['a_match_wins']:g} of {s['matches']} = {100 * s['a_win_rate']:.1f}% "
                     f"+- {100 * s['a_win_ci95']:.1f}% (95% CI over pairs; Wilson "
                     f"{100 * s['a_win_wilson_low']:.1f}-{100 * s['a_win_wilson_high']:.1f}%), "
                     f"{s['mean_games_per_match']:.2f} games per match")
    act = s["actions"]
    for who in ("a", "b"):
        lines.append(f"{who.upper()}: doubles {act[f'{who}_double']}, takes {act[f'{who}_take']}, "
                     f"drops {act[f'{who}_drop']}, beavers {act[f'{who}_beaver']}, "
                     f"resigns {act[f'{who}_resign']}")
    lines.append(f"mean cube {s['mean_cube']:.2f} (max {s['max_cube']}); games ended {s['endings']}; "
                 f"{s['mean_plies_per_game']:.1f} plies/game, {s['capped_matches']} capped; "
                 f"{s['games_per_s']:.1f} games/s ({s['seconds']:.1f} s)")
    return "\n".join(lines)


def spec_name(spec: str) -> str:
    """A player's name in a .mat file: its baseline name, or its checkpoint's stem."""
    name = spec.strip().lower()
    return name if name in BASELINES else Path(spec).stem


def mat_paths(path: str, count: int) -> list[Path]:
    """Where ``count`` .mat files go: ``path`` itself for one, else its stem + "-n" + its suffix."""
    path = Path(path)
    if count == 1:
        return [path]
    width = len(str(count))  # m-01 .. m-10: the files sort in match order
    return [path.with_name(f"{path.stem}-{n:0{width}d}{path.suffix}") for n in range(1, count + 1)]


def save_mats(result, args) -> list[Path]:
    """The recorded games as .mat or .sgf files (see the module docstring); UsageError if one cannot be
    written."""
    names = player_names(spec_name(args.a), spec_name(args.b))
    records = [replace(record, names=names) for record in mat_records(result)]
    paths = mat_paths(args.mat, len(records))
    for record, path in zip(records, paths):
        try:
            write_match(record, path)
        except OSError as e:
            raise UsageError(f"--mat: cannot write {path}: {e.strerror}") from None
    return paths


def cube_main(argv: list[str]) -> int:
    """The cube command: parse, load, play, print, optionally write JSON and the games as .mat."""
    args, rules = parse(argv)
    players = load(args)
    with compiled.every_kernel():  # long work from its start: every compiled kernel (engine/compiled.py)
        result = run(players, rules, args.matches, args.seed, args.batch, args.max_plies, args.resign,
                     progress_bar=not args.no_progress, record=bool(args.mat))
    summary = result.summary()
    shown = emit(report(summary))  # a reader gone away (| head) still gets the files written
    if args.json:
        write_json(args.json, {"command": "cube", "argv": argv, "settings": vars(args), "result": summary})
    if args.mat:
        paths = save_mats(result, args)
        saved = f"games saved as {written_format(paths[0])}: {paths[0]}" + (f" .. {paths[-1]}" if len(paths) > 1 else "")
        shown = shown and emit(saved)
    return 0 if shown else CLOSED_PIPE


def main(argv: list[str] | None = None) -> int:
    """``nardibot cube``: 0 when done, 2 on bad input (one line on stderr), 130 after Ctrl-C."""
    return run_main("nardibot cube", cube_main, sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    sys.exit(main())
