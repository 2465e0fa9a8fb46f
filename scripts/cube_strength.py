"""Does the cube add strength? Two measurements of one network against itself, as JSON.

    python scripts/cube_strength.py --checkpoint checkpoints/backgammon.safetensors --money-games 4000 \
        --matches 1000 --length 5 --seed 1 --json experiments/results/cube_strength.json

(a) money: the net with its cube (model/cube/decisions.py's 0-ply decisions, Janowski cubeful checker play)
    against the same net that never doubles and always takes (cubeless checker play), over mirrored
    money games with the cube; A's points per game, the cube included, with a 95% interval.
(b) matches: the net playing match-aware (cube decisions at the score, checker play by cubeful
    match-winning chance) against the same net playing money-style (money cube decisions ignoring
    the score, cubeless money equity checker play), over mirrored 5-point matches; A's match wins
    with a 95% interval.

Single-threaded on purpose (OMP_NUM_THREADS=1 is set before numpy loads) so that games/s compare
between machines. ``--only money`` or ``--only match`` runs one of the two; ``--checker cubeless``
makes the cube player's checker play cubeless too, to isolate the cube decisions.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import hashlib
import json
import sys
from pathlib import Path

from engine import game as g
from model.net.checkpoint import CheckpointError, load_net
from model.players.cube_players import NetCubePlayer, NoCubePlayer
from model.players.net_player import NetPlayer
from nardibot.cli.cmd_cube import report, run


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoint", required=True, help="a backgammon checkpoint (or training snapshot)")
    parser.add_argument("--money-games", type=int, default=4000, help="mirrored money games, even (default 4000)")
    parser.add_argument("--matches", type=int, default=1000, help="mirrored matches, even (default 1000)")
    parser.add_argument("--length", type=int, default=5, help="match length (default 5)")
    parser.add_argument("--jacoby", action="store_true", help="money games under the Jacoby rule")
    parser.add_argument("--beavers", action="store_true", help="money games with beavers")
    parser.add_argument("--checker", choices=("cubeful", "cubeless"), default="cubeful",
                        help="the cube player's checker play (default cubeful)")
    parser.add_argument("--only", choices=("money", "match"), default=None, help="run one measurement")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice (default 1)")
    parser.add_argument("--batch", type=int, default=128, help="games in flight (default 128)")
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    for name in ("money_games", "matches"):
        value = getattr(args, name)
        if value < 2 or value % 2:
            parser.error(f"--{name.replace('_', '-')} must be a positive even number, got {value}")
    return args, parser


def measure(net, stem: str, args) -> dict:
    """Run (a) and/or (b); their summaries by name."""
    out = {}
    cube_player = NetCubePlayer(net, style="aware", checker=args.checker, name=f"{stem}/cube")
    if args.only in (None, "money"):
        rules = g.Rules(jacoby=args.jacoby, beavers=args.beavers, session_games=1)
        never = NoCubePlayer(NetPlayer(net, name=stem), name=f"{stem}/never-doubles-always-takes")
        result = run((cube_player, never), rules, args.money_games, args.seed, args.batch,
                     progress_bar=not args.no_progress)
        out["money"] = result.summary()
        print(report(out["money"]), flush=True)
    if args.only in (None, "match"):
        money_style = NetCubePlayer(net, style="money", checker="cubeless", name=f"{stem}/money-style")
        rules = g.Rules(match_length=args.length)
        result = run((cube_player, money_style), rules, args.matches, args.seed, args.batch,
                     progress_bar=not args.no_progress)
        out["match"] = result.summary()
        print(report(out["match"]), flush=True)
    return out


def main(argv=None) -> int:
    args, parser = parse(argv)
    path = Path(args.checkpoint)
    try:
        net, blob = load_net(path, game="backgammon", backend="numpy")
    except CheckpointError as e:
        parser.exit(2, f"cube_strength.py: error: {str(e).splitlines()[0]}\n")
    try:
        g.Rules(match_length=args.length)
    except g.RuleError as e:
        parser.exit(2, f"cube_strength.py: error: {e}\n")
    results = measure(net, path.stem, args)
    if args.json:
        blob = {"command": ["python", "scripts/cube_strength.py", *(sys.argv[1:] if argv is None else argv)],
                "checkpoint": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "games_trained": blob.get("games"), "settings": vars(args), "results": results}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(blob, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
