"""Play GNU Backgammon (Debian's /usr/games/gnubg 1.07) against the served bot and check every play.

    python scripts/gnubg_vs_bot.py --model pubeval --match 3            # one 3-point match
    python scripts/gnubg_vs_bot.py --model runs/bg/last.pt --games 10   # ten money games
    python scripts/gnubg_vs_bot.py --bot-side 1 --games 2 --json        # the bot as gnubg's player 1

How: this process starts nardibot.cli.cmd_serve's BotServer on a free port of 127.0.0.1, then runs gnubg
unattended (``gnubg -t -q -r -p`` this same file, with GNUBG_VS_BOT_DRIVER=1 in the environment, so
the file runs as the driver inside gnubg's embedded Python). The driver sets the bot's seat to
``external 127.0.0.1:PORT``, gnubg's own player to ``--gnubg-ply``-ply checker play and cube
decisions, and ``set automatic game off``, then plays ``new match L`` / ``new session`` and ``new
game`` until the match is over (or ``--games`` games are played), and writes gnubg's own record of
every game (``gnubg.match(boards=True)``: each action with the Position ID before it) as JSON.

Checks, independent of the server's own checks: every play gnubg recorded for the bot is read back
with engine.notation.parse_play on the position gnubg had (the Position ID it recorded), so a play
gnubg applied but the rules refuse, or an empty play where a legal one existed (what gnubg makes of
an illegal reply), is reported; every game must have ended with a winner and points. Exit 0 when
all hold, 1 when not, 2 on bad flags or a missing gnubg.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DRIVER_FLAG = "GNUBG_VS_BOT_DRIVER"
"""Set in gnubg's environment: this file then runs as the driver (gnubg defines no ``__file__``)."""
if os.environ.get(DRIVER_FLAG) != "1":
    SCRIPT = Path(__file__).resolve()


def run_driver() -> None:
    """Inside gnubg: play the games the environment asks for and dump gnubg's records as JSON."""
    import gnubg  # gnubg's embedded module (the one with ``command``)

    env = os.environ
    side, length, games = int(env["GVB_SIDE"]), int(env["GVB_LENGTH"]), int(env["GVB_GAMES"])
    ply, other = int(env["GVB_PLY"]), 1 - int(env["GVB_SIDE"])
    names = ("bot", "gnubg") if side == 0 else ("gnubg", "bot")
    for command in (
        "set automatic game off",
        f"set defaultnames {names[0]} {names[1]}",
        f"set player {side} name bot",
        f"set player {other} name gnubg",
        f"set player {other} gnubg",
        f"set player {other} chequerplay evaluation plies {ply}",
        f"set player {other} cubedecision evaluation plies {ply}",
        f"set seed {int(env['GVB_SEED'])}",
        f"set player {side} external 127.0.0.1:{int(env['GVB_PORT'])}",
    ):
        gnubg.command(command)
    gnubg.command(f"new match {length}" if length else "new session")
    stalled = False
    while True:
        match = gnubg.match(analysis=False, boards=True)
        played = match["games"]
        if played[-1]["info"].get("winner") is None:
            stalled = True  # the game did not finish: gnubg stopped on a reply it could not use
            break
        scores = [0, 0]
        for game in played:
            scores["XO".index(game["info"]["winner"])] += game["info"]["points-won"]
        if (length and max(scores) >= length) or (not length and len(played) >= games):
            break
        gnubg.command("new game")
    if env.get("GVB_MAT"):
        gnubg.command(f"export match mat {env['GVB_MAT']}")
    with open(env["GVB_OUT"], "w") as out:
        json.dump({"match": match, "stalled": stalled}, out, default=list)


GNUBG = "/usr/games/gnubg"

def gnubg_path() -> str | None:
    """Debian's gnubg binary, or None when it is not installed."""
    import shutil

    found = shutil.which("gnubg")
    return found or (GNUBG if os.access(GNUBG, os.X_OK) else None)

def check_bot_plays(games: list[dict], letter: str) -> list[str]:
    """Problems with the bot's recorded plays: each must be a legal play of its roll in the
    position gnubg recorded; an empty play only where no die can be played."""
    import numpy as np

    from engine.formats.position import read_position_id
    from engine.movegen import legal_plays
    from engine.notation import parse_play

    problems = []
    for g, game in enumerate(games):
        for action in game["game"]:
            if action.get("action") != "move" or action.get("player") != letter:
                continue
            position = read_position_id(action["board"])
            dice = tuple(action["dice"])
            text = " ".join(f"{a}/{b}" for a, b in action["move"])
            try:
                if text:
                    parse_play("backgammon", position, dice, text)
                else:
                    children, _ = legal_plays("backgammon", position[None, :], np.array([dice]))
                    if not (len(children) == 1 and np.array_equal(children[0], position)):
                        raise ValueError("empty play, but a legal play existed")
            except ValueError as err:
                problems.append(f"game {g + 1}: {dice[0]}{dice[1]}: {text or '(empty)'} "
                                f"from {action['board']}: {err}")
    return problems

def play_vs_gnubg(bot, *, length: int = 0, games: int = 1, seed: int = 1, gnubg_ply: int = 0,
                  bot_side: int = 0, options=None, timeout: float = 120.0, mat_path: str | None = None,
                  log=None, verbose: bool = False, agent=None) -> dict:
    """Serve ``bot`` (or a ready nardibot.cli.cmd_serve.BotAgent ``agent``) and let gnubg play it (module
    docstring); returns the summary dict: games, score, problems, the server's stats and log."""
    from nardibot.cli.cmd_serve import BotAgent, BotServer

    lines: list[str] = []
    if agent is None:
        agent = BotAgent(bot, options, log=log or lines.append, verbose=verbose)
    server = BotServer(agent, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "games.json"
        env = dict(os.environ, **{
            DRIVER_FLAG: "1", "GVB_SIDE": str(bot_side), "GVB_LENGTH": str(length),
            "GVB_GAMES": str(games), "GVB_PLY": str(gnubg_ply), "GVB_SEED": str(seed),
            "GVB_PORT": str(server.port), "GVB_OUT": str(out), "GVB_MAT": mat_path or "",
            "OMP_NUM_THREADS": "1",
        })
        try:
            proc = subprocess.run([gnubg_path() or GNUBG, "-t", "-q", "-r", "-p", str(SCRIPT)],
                                  check=False, env=env, capture_output=True, text=True, timeout=timeout)
            gnubg_tail = (proc.stdout + proc.stderr)[-2000:]
        except subprocess.TimeoutExpired:
            gnubg_tail = f"gnubg did not finish within {timeout} s"
        finally:
            server.close()
            thread.join(timeout=10)
        record = json.loads(out.read_text()) if out.exists() else None
    summary = {"seconds": round(time.monotonic() - start, 1), "server": vars(agent.stats),
               "server_log": lines, "finished": False, "problems": []}
    if record is None:
        summary["problems"].append("gnubg wrote no record: " + gnubg_tail.strip().splitlines()[-1:][0]
                                   if gnubg_tail.strip() else "gnubg wrote no record")
        return summary
    letter = "XO"[bot_side]
    played = record["match"]["games"]
    results, score = [], [0, 0]
    for game in played:
        info = game["info"]
        if info.get("winner") is None:
            summary["problems"].append("a game did not finish (gnubg stalled)")
            continue
        bot_won = info["winner"] == letter
        score[0 if bot_won else 1] += info["points-won"]
        results.append({"winner": "bot" if bot_won else "gnubg", "points": info["points-won"],
                        "resigned": bool(info.get("resigned")),
                        "moves": sum(a.get("action") == "move" for a in game["game"])})
    summary["problems"] += check_bot_plays(played, letter)
    if record["stalled"]:
        summary["problems"].append("gnubg stopped before the end: " + gnubg_tail.strip()[-300:])
    summary.update(games=results, score={"bot": score[0], "gnubg": score[1]}, match_length=length,
                   finished=bool(results) and not record["stalled"],
                   bot_plays=sum(a.get("action") == "move" and a.get("player") == letter
                                 for g in played for a in g["game"]))
    return summary

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="gnubg 1.07 plays the served bot; every bot play is checked.")
    parser.add_argument("--model", default="pubeval", help="checkpoint path or baseline name (default pubeval)")
    parser.add_argument("--match", type=int, default=0, help="match length (0 = money games)")
    parser.add_argument("--games", type=int, default=1, help="money games to play (with --match 0)")
    parser.add_argument("--seed", type=int, default=1, help="gnubg's dice seed")
    parser.add_argument("--gnubg-ply", type=int, default=0, choices=(0, 1, 2), help="gnubg's look-ahead")
    parser.add_argument("--bot-side", type=int, default=0, choices=(0, 1), help="the bot's seat in gnubg")
    parser.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="the bot's look-ahead")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before gnubg is stopped")
    parser.add_argument("--mat", default=None, help="also save gnubg's record of the match as .mat here")
    parser.add_argument("--json", action="store_true", help="print the whole summary as JSON")
    args = parser.parse_args(argv)
    if args.match < 0 or args.match > 25 or args.games < 1:
        parser.error("--match must be 0..25 and --games at least 1")
    if gnubg_path() is None:
        print("error: gnubg is not installed (Debian package gnubg)", file=sys.stderr)
        return 2
    from model.bot import Bot
    from nardibot.cli.cmd_serve import ServeOptions

    try:
        bot = Bot.load(args.model)
    except (OSError, ValueError, ImportError) as err:
        print(f"error: cannot load {args.model}: {err}", file=sys.stderr)
        return 2
    summary = play_vs_gnubg(bot, length=args.match, games=args.games, seed=args.seed,
                            gnubg_ply=args.gnubg_ply, bot_side=args.bot_side,
                            options=ServeOptions(plies=args.ply), timeout=args.timeout, mat_path=args.mat)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        for i, game in enumerate(summary.get("games", []), 1):
            how = " (resigned)" if game["resigned"] else ""
            print(f"game {i}: {game['winner']} wins {game['points']} point(s){how}, {game['moves']} plays")
        print(f"score: {summary.get('score')} (match to {args.match or 'money'}), bot plays checked: "
              f"{summary.get('bot_plays', 0)}, problems: {len(summary['problems'])}, {summary['seconds']} s")
        for problem in summary["problems"]:
            print("problem:", problem)
    return 0 if summary["finished"] and not summary["problems"] else 1

if os.environ.get(DRIVER_FLAG) == "1":
    run_driver()
elif __name__ == "__main__":
    sys.exit(main())
