"""Wall time of a whole `python evaluate.py hint` command, start-up included, at 0, 1 and 2 ply, beside gnubg's.

    python scripts/bench_hint.py [--checkpoint checkpoints/backgammon.safetensors] [--positions 10]
                                 [--plies 0,1,2] [--gnubg /usr/games/gnubg] [--json FILE]

Each position is a seeded middle-game position with its dice (engine.tools.sample); every run is a
fresh process, as a user would start it (with Python's bytecode cache, written by one untimed run
first: scripts/bench_vs_gnubg.py's ``user_env``): ours `python evaluate.py hint POSITION --dice D --ply N`,
gnubg's a whole gnubg 1.07 process that sets the board and dice and runs ``hint`` with its
evaluation at N plies (scripts/bench_vs_gnubg.py's ``gnubg_hint_command``; its own move filter, as
ours: up to 8 plays within 0.16 go on deeper). Prints the median and the slowest run per ply, and
gnubg's median where gnubg is installed (``--gnubg ''``: ours alone).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "backgammon.safetensors"))
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--plies", default="0,1,2", help="comma-separated look-ahead depths (default 0,1,2)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--gnubg", default="/usr/games/gnubg", help="gnubg 1.07's binary ('' : ours alone)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    try:
        plies = [int(p) for p in args.plies.split(",")]
    except ValueError:
        parser.error(f"--plies must be comma-separated whole numbers, got {args.plies!r}")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_vs_gnubg import gnubg_hint_command, user_env

    from engine.formats.position import write_position_id
    from engine.tools.sample import random_positions

    gnubg = args.gnubg if args.gnubg and (Path(args.gnubg).is_file() or shutil.which(args.gnubg)) else None
    positions, dice = random_positions("backgammon", args.positions, seed=args.seed, kind="midgame")
    jobs = [(write_position_id(pos), f"{roll[0]}{roll[1]}") for pos, roll in zip(positions, dice)]
    result = {}
    subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "hint", jobs[0][0], "--dice", jobs[0][1],  # untimed, at
                    "--bot", args.checkpoint, "--ply", str(max(plies))],  # the deepest ply: every module it imports
                   capture_output=True, check=False, env=user_env())  # written to the bytecode cache
    for ply in plies:
        times, theirs = [], []
        for position, roll in jobs:
            cmd = [sys.executable, str(ROOT / "evaluate.py"), "hint", position, "--dice", roll,
                   "--bot", args.checkpoint, "--ply", str(ply)]
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=user_env())
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                print(f"error: hint failed: {proc.stderr.strip()}", file=sys.stderr)
                return 2
            if gnubg:
                theirs.append(gnubg_hint_command(gnubg, position, roll, ply))
        result[f"ply{ply}"] = {"median_s": statistics.median(times), "max_s": max(times), "runs": len(times)}
        line = (f"{ply}-ply hint: median {statistics.median(times):.2f} s, slowest {max(times):.2f} s "
                f"over {len(times)} middle-game positions (start-up included)")
        if theirs:
            result[f"ply{ply}"]["gnubg"] = {"median_s": statistics.median(theirs), "max_s": max(theirs)}
            line += f"; gnubg 1.07 median {statistics.median(theirs):.2f} s, slowest {max(theirs):.2f} s"
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
