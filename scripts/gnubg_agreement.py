"""How close the bot's checker play is to GNU Backgammon's, on positions from real games.

    python scripts/gnubg_agreement.py --checkpoint checkpoints/backgammon.safetensors --positions 300 --seed 1
    python scripts/gnubg_agreement.py --checkpoint /tmp/snap.pt --positions 300 --json /tmp/agree.json

Positions: the bot (0-ply) plays gnubg 0-ply through model/arena/cubeless.py (mirrored dice, both seats); every
position a player faced with MORE THAN ONE distinct legal play is kept, duplicates of (position, dice)
dropped, and ``--positions`` of them are drawn at random (seeded). Games are started until the pool
holds twenty times as many positions as asked for: about two positions per game are judged.

For each position:
- the bot's top play at 0, 1 and 2 ply (model/players/cube_policy.py: CubePolicy.rank_plays, cubeless money
  equity, its default move filter), and gnubg's top play at 0 and 2 ply (``best_move``);
- the judge: gnubg 2-ply's cubeless money equity of every play that matters: the candidates gnubg's own
  2-ply move filter keeps (their equities come with ``best_move(..., n=2, list=1)``) and every pick
  above, the missing ones scored with ``probabilities(board, 2)`` on the position after the play, the
  opponent on roll (the two give identical numbers for the same play: checked on the opening 3-1);
- the loss of a pick = the best judged equity among those plays minus the pick's (>= 0).

Judge: the PyPI package gnubg-nn (module ``gnubg_nn``), gnubg's own nets and bear-off databases,
cubeless, one position at a time. Plies in gnubg's numbering (0 = the net alone, 2 = two rolls deeper),
the same as model/search/lookahead.py's. A play that bears off the last checker scores its exact result.
Cross-checked by hand against Debian's gnubg 1.07 (``set board ID``, ``set dice``, chequer play
2-ply, cubeful off, prune on, ``hint``) on four of the positions: the same ranking and equities
within 0.0015.

Reported: the share of positions where the bot's 0-ply top play is gnubg 0-ply's (and 2-ply vs 2-ply),
the mean equity loss per move of each pick with a 95% interval (normal, over positions), the paired
difference 0-ply minus 2-ply, the number of positions and the time taken. Exit 2 on bad flags, a
missing checkpoint or a missing gnubg-nn.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # the numpy net and gnubg run single-threaded

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from engine.formats.position import write_position_id
from engine.movegen import legal_plays
from engine.notation import format_plays

GAME = "backgammon"
BOT_PLIES = (0, 1, 2)
JUDGE_PLIES = 2
POOL_FACTOR = 20  # positions gathered per position asked for


# -- positions from games -------------------------------------------------------------------------

class RecordingPlayer:
    """Wraps a model.players.base.Player and keeps every (position, dice) where it had a real choice."""

    def __init__(self, inner):
        self.inner = inner
        self.game = inner.game
        self.name = inner.name
        self.positions: list[np.ndarray] = []
        self.dice: list[np.ndarray] = []

    def reset(self) -> None:
        self.inner.reset()

    def select(self, positions, dice, children, parent):
        choices = np.bincount(parent, minlength=len(positions))  # (B,) distinct legal plays
        real = choices > 1
        self.positions.append(np.asarray(positions)[real])
        self.dice.append(np.asarray(dice)[real])
        return self.inner.select(positions, dice, children, parent)


def game_positions(bot_player, gnubg_player, wanted: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``wanted`` distinct (position, dice) pairs (B, 28), (B, 2) with a real choice, from bot-vs-gnubg
    games; also the number of games played."""
    from model.arena.cubeless import play_games

    a, b = RecordingPlayer(bot_player), RecordingPlayer(gnubg_player)
    games = 0
    pool = np.empty((0, 30), dtype=np.int64)
    while len(pool) < POOL_FACTOR * wanted:
        batch = max(2, 2 * math.ceil((POOL_FACTOR * wanted - len(pool)) / 80))  # ~40 choices per seat
        play_games(a, b, batch, seed=seed * 1000 + games)
        games += batch
        rows = [np.concatenate([p, np.sort(d, axis=1)], axis=1)  # 3-1 and 1-3 are one roll
                for p, d in zip(a.positions + b.positions, a.dice + b.dice)]
        pool = np.unique(np.concatenate(rows).astype(np.int64), axis=0)
    pick = np.random.default_rng(seed).choice(len(pool), size=wanted, replace=False)
    chosen = pool[np.sort(pick)]
    return chosen[:, :28].astype(np.int8), chosen[:, 28:], games


# -- gnubg's view of the plays of one position ----------------------------------------------------

def children_index(children: np.ndarray) -> dict[bytes, int]:
    """Row bytes -> index, to find a position gnubg names among our legal children."""
    return {row.tobytes(): i for i, row in enumerate(children.astype(np.int8))}


def gnubg_key_child(gnubg, key: str, index: dict[bytes, int]) -> int:
    """Our child index of the position a gnubg play leaves (its key has the side that moved first)."""
    from model.players.gnubg import from_gnubg_board

    after = gnubg.board_from_position_key(key)
    row = from_gnubg_board((after[1], after[0]))
    if row.tobytes() not in index:
        raise RuntimeError(f"gnubg's play left {row.tolist()}, which is not one of our legal plays")
    return index[row.tobytes()]


def gnubg_ranking(gnubg, position: np.ndarray, dice, plies: int, index) -> dict[int, float]:
    """gnubg's candidates at ``plies`` (after its move filter) -> {child index: cubeless equity},
    best first."""
    from model.players.gnubg import to_gnubg_boards

    board = to_gnubg_boards(position)[0].tolist()
    _, candidates = gnubg.best_move(board, int(dice[0]), int(dice[1]), n=plies, list=1)
    return {gnubg_key_child(gnubg, key, index): float(equity) for key, _, _, equity in candidates}


# -- one position ---------------------------------------------------------------------------------

def bot_picks(net, children: np.ndarray) -> dict[int, int]:
    """The bot's top child at each ply of BOT_PLIES (cubeless money equity)."""
    from model.cube.match_equity import money
    from model.players.cube_policy import CubePolicy

    picks = {}
    parent = np.zeros(len(children), dtype=np.int64)
    for ply in BOT_PLIES:
        policy = CubePolicy(net, plies=ply, checker="cubeless")
        util, _, depth = policy.rank_plays(children, parent, [money(jacoby=False)])
        picks[ply] = int(policy.best(util, depth, parent, 1)[0])
    return picks


def judge_position(net, gnubg, position: np.ndarray, dice: np.ndarray) -> dict:
    """Picks of the bot and gnubg, gnubg 2-ply's equity of each, and their losses, for one position."""
    from model.players.gnubg import child_equities

    children, _ = legal_plays(GAME, position[None], dice[None])
    index = children_index(children)
    picks = {f"bot-{ply}ply": i for ply, i in bot_picks(net, children).items()}
    gnubg0 = gnubg_ranking(gnubg, position, dice, 0, index)
    judged = gnubg_ranking(gnubg, position, dice, JUDGE_PLIES, index)
    picks["gnubg-0ply"] = next(iter(gnubg0))
    picks[f"gnubg-{JUDGE_PLIES}ply"] = next(iter(judged))
    missing = sorted(set(picks.values()) - set(judged))
    if missing:
        judged.update(zip(missing, child_equities(gnubg, children[missing], JUDGE_PLIES).tolist()))
    best = max(judged.values())
    moves = format_plays(GAME, position, dice, children[list(picks.values())])
    return {
        "position_id": write_position_id(position), "dice": [int(d) for d in dice], "plays": len(children),
        "picks": {name: {"child": i, "move": move, "equity": round(judged[i], 6),
                         "loss": round(best - judged[i], 6)} for (name, i), move in zip(picks.items(), moves)},
        "best_equity": round(best, 6),
    }


def judge_version() -> str:
    """The installed gnubg-nn version, or '?'."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gnubg-nn")
    except PackageNotFoundError:
        return "?"


# -- summary --------------------------------------------------------------------------------------

def mean_ci(values) -> dict:
    """Mean and the half-width of its normal 95% interval."""
    x = np.asarray(values, dtype=np.float64)
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return {"mean": round(float(x.mean()), 5), "ci95": round(float(half), 5)}


def summarise(records: list[dict]) -> dict:
    """Agreement shares, mean losses per pick, and the paired 0-ply minus 2-ply loss difference."""
    names = list(records[0]["picks"])
    loss = {n: np.array([r["picks"][n]["loss"] for r in records]) for n in names}
    same = {(a, b): [r["picks"][a]["child"] == r["picks"][b]["child"] for r in records]
            for a, b in (("bot-0ply", "gnubg-0ply"), ("bot-2ply", "gnubg-2ply"))}
    return {
        "agreement_bot0_gnubg0": mean_ci(same["bot-0ply", "gnubg-0ply"]),
        "agreement_bot2_gnubg2": mean_ci(same["bot-2ply", "gnubg-2ply"]),
        "loss": {n: mean_ci(v) for n, v in loss.items()},
        "loss_bot0_minus_bot2": mean_ci(loss["bot-0ply"] - loss["bot-2ply"]),
    }


def report(summary: dict, n: int, games: int, seconds: dict) -> str:
    """The summary as a few lines for people."""
    a0, a2 = summary["agreement_bot0_gnubg0"], summary["agreement_bot2_gnubg2"]
    lines = [f"{n} positions with a choice, from {games} games bot-0ply vs gnubg-0ply",
             f"top play agrees, bot 0-ply vs gnubg 0-ply: {100 * a0['mean']:.1f}% +- {100 * a0['ci95']:.1f}",
             f"top play agrees, bot 2-ply vs gnubg 2-ply: {100 * a2['mean']:.1f}% +- {100 * a2['ci95']:.1f}",
             "mean equity loss per move, judged by gnubg 2-ply (cubeless money; lower is better):"]
    for name, v in summary["loss"].items():
        lines.append(f"  {name:<11} {v['mean']:.4f} +- {v['ci95']:.4f}")
    d = summary["loss_bot0_minus_bot2"]
    lines.append(f"  bot 0-ply minus bot 2-ply (paired): {d['mean']:+.4f} +- {d['ci95']:.4f}")
    lines.append("time: " + ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items()))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=None, help="backgammon checkpoint (default: the shipped one)")
    parser.add_argument("--positions", type=int, default=300, help="positions to judge")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games' dice and of the sample")
    parser.add_argument("--json", metavar="FILE", help="also write the summary and every position as JSON")
    args = parser.parse_args(argv)
    if args.positions < 2 or args.seed < 0:
        parser.error("--positions must be at least 2 and --seed at least 0")
    from model.bot import Bot
    from model.net.checkpoint import CheckpointError
    from model.players.gnubg import GnubgPlayer, GnubgUnavailable, import_gnubg
    from model.players.net_player import NetPlayer

    try:
        gnubg = import_gnubg()
        bot = Bot.load(args.checkpoint, game=GAME)
    except (GnubgUnavailable, CheckpointError, ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if bot.net is None:
        print(f"error: {bot.name} is a baseline; the agreement needs a network checkpoint", file=sys.stderr)
        return 2
    started = time.perf_counter()
    positions, dice, games = game_positions(NetPlayer(bot.net, name=bot.name), GnubgPlayer(GAME, 0),
                                            args.positions, args.seed)
    seconds = {"games": time.perf_counter() - started}
    records = []
    for i, (position, roll) in enumerate(zip(positions, dice), start=1):
        records.append(judge_position(bot.net, gnubg, position, roll))
        if i % 50 == 0:
            print(f"{i}/{len(positions)} positions judged", file=sys.stderr, flush=True)
    seconds["judging"] = time.perf_counter() - started - seconds["games"]
    seconds["total"] = time.perf_counter() - started
    summary = summarise(records)
    print(report(summary, len(records), games, seconds))
    if args.json:
        out = {"checkpoint": str(args.checkpoint or "shipped"), "bot": bot.name, "seed": args.seed,
               "positions": len(records), "games": games,
               "judge": f"gnubg-nn {judge_version()} (module {gnubg.__name__}), {JUDGE_PLIES}-ply, "
                        "cubeless money equity",
               "bot_search": "model.players.cube_policy.CubePolicy.rank_plays (keep 8, margin 0.16), cubeless money equity",
               "summary": summary, "seconds": {k: round(v, 1) for k, v in seconds.items()},
               "records": records}
        try:
            Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        except OSError as e:
            print(f"error: cannot write {args.json}: {e.strerror}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
