"""Wall time of `python evaluate.py hint`, start-up included, at 0-ply and 2-ply.

    python scripts/bench_hint.py [--checkpoint checkpoints/backgammon.safetensors] [--positions 10]
                                 [--json FILE]

Each position is a seeded middle-game position with its dice (engine.tools.sample); every run is a fresh
process, as a user would start it. Prints the median and the slowest run per ply.
"""

from __future__ import annotations

import argparse
import json
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
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from engine.formats.position import write_position_id
    from engine.tools.sample import random_positions

    positions, dice = random_positions("backgammon", args.positions, seed=args.seed, kind="midgame")
    result = {}
    for ply in (0, 2):
        times = []
        for pos, roll in zip(positions, dice):
            cmd = [sys.executable, str(ROOT / "evaluate.py"), "hint", write_position_id(pos),
                   "--dice", f"{roll[0]}{roll[1]}", "--bot", args.checkpoint, "--ply", str(ply)]
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                print(f"error: hint failed: {proc.stderr.strip()}", file=sys.stderr)
                return 2
        result[f"ply{ply}"] = {"median_s": statistics.median(times), "max_s": max(times), "runs": len(times)}
        print(f"{ply}-ply hint: median {statistics.median(times):.2f} s, slowest {max(times):.2f} s "
              f"over {len(times)} middle-game positions (start-up included)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
