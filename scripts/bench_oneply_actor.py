"""Time the one-ply target's self-play actor: plies and games per CPU second, this tree or another.

    python scripts/bench_oneply_actor.py --checkpoint experiments/resume/backgammon-v3-distill/last.pt
    python scripts/bench_oneply_actor.py --tree /tmp/base --runs 2      # the code of another checkout

The actor (model/train/td.py ``SelfPlayActor``, ``target="one-ply"``) plays ``--games`` games side by
side, each ply scoring every roll's ``--prune`` best plays by pubeval; it first plays ``--warmup``
plies (games that end are dealt again, so the games are then spread over every stage, as in a long
run: openings alone have few plays and would flatter the figure) and is then timed over ``--positions``. CPU seconds of the process (one BLAS thread), so a machine
shared with other jobs disturbs the figure less than wall time. ``--tree`` runs each timing in a
process with that tree's code imported first; the checkpoint is read by that tree's code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def time_once(tree: Path, checkpoint: str, games: int, prune: int, positions: int, warmup: int) -> dict:
    """One timing, by the code of ``tree``: the parent process puts it first on PYTHONPATH."""
    import model.runtime  # noqa: I001  one BLAS thread, before numpy loads

    import model
    import numpy as np

    from model.net.checkpoint import load_net
    from model.train.td import SelfPlayActor

    if Path(model.__file__).resolve().parent.parent != tree:
        raise RuntimeError(f"imported {model.__file__}, not the code of {tree}")

    net, _ = load_net(checkpoint)
    actor = SelfPlayActor(net, games=games, seed=3, target="one-ply", prune=prune, exact_endgames=True)
    every = np.arange(actor.n)
    for _ in range(warmup):
        _, ended, _ = actor.table.end_turn(every, actor._step())
        if ended.any():
            actor.table.deal(np.flatnonzero(ended))
    start = time.process_time()
    got = actor.play(positions)
    cpu = time.process_time() - start
    return {"plies": int(got.plies), "games": int(got.games), "cpu_s": round(cpu, 3),
            "plies_per_cpu_s": round(got.plies / cpu, 1), "games_per_cpu_s": round(got.games / cpu, 2)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="experiments/resume/backgammon-v3-distill/last.pt")
    parser.add_argument("--games", type=int, default=256, help="games side by side (default 256)")
    parser.add_argument("--prune", type=int, default=8,
                        help="pubeval's K best plays a roll (default 8; 0: every play, as nardi always does)")
    parser.add_argument("--positions", type=int, default=20_000, help="positions timed (default 20000)")
    parser.add_argument("--warmup", type=int, default=120, help="plies played before the timing (default 120)")
    parser.add_argument("--runs", type=int, default=1, help="timings, each in a process of its own")
    parser.add_argument("--tree", default=str(HERE), help="the checkout whose code runs (default this one)")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if min(args.games, args.positions, args.runs) <= 0 or min(args.prune, args.warmup) < 0:
        print("bench_oneply_actor.py: --games, --positions and --runs must be positive, --prune 0 or more",
              file=sys.stderr)
        return 2
    tree = Path(args.tree).resolve()
    if not (tree / "model" / "train" / "td.py").is_file():
        print(f"bench_oneply_actor.py: {tree} is not a checkout of this project", file=sys.stderr)
        return 2
    checkpoint = str(Path(args.checkpoint).resolve())
    if not Path(checkpoint).is_file():
        print(f"bench_oneply_actor.py: checkpoint not found: {args.checkpoint}", file=sys.stderr)
        return 2
    if args.once:
        print(json.dumps(time_once(tree, checkpoint, args.games, args.prune, args.positions, args.warmup)))
        return 0
    rows = []
    for _ in range(args.runs):
        cmd = [sys.executable, __file__, "--once", "--tree", str(tree), "--checkpoint", checkpoint,
               "--games", str(args.games), "--prune", str(args.prune), "--positions", str(args.positions),
               "--warmup", str(args.warmup)]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONPATH=str(tree))
        done = subprocess.run(cmd, check=False, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"bench_oneply_actor.py: the timing failed: {last}", file=sys.stderr)
            return 1
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{tree}: {rows[-1]['plies_per_cpu_s']} plies, {rows[-1]['games_per_cpu_s']} games per CPU second")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
