"""What pruning the look-ahead's inner plays costs a 2-ply hint: speed and agreement with the full search.

    python scripts/prune_agreement.py [--positions 300] [--prune 8 16] [--seed 7] [--json FILE]

For seeded mid-game positions with a roll, the candidates a hint looks at deeply (the move filter's
best 8 within 0.16 at 0 ply) are valued at 2 ply by the shipped net as ``hint --ply 2`` does with
every inner play (``--prune 0``) and with each roll's inner play picked among pubeval's K best
(``hint --prune K``). Reported per K: CPU per position, how often the best play is the same, the
equity (by the full search's own values, cubeless) lost by playing the pruned search's pick, and the
mean gap between the two searches' values.
"""

from __future__ import annotations

import model.runtime  # noqa: F401  (first: one BLAS thread)

# isort: split
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--prune", type=int, nargs="+", default=[8])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from engine.movegen import legal_plays
    from engine.tools.sample import random_positions
    from model import Bot
    from model.net.equity import cubeless_equity
    from model.net.evaluator import child_probabilities
    from model.search.lookahead import child_probabilities_ahead, move_filter

    net = Bot.load().net
    n = args.positions
    positions, dice = random_positions("backgammon", n, seed=args.seed, kind="midgame")
    settings = [0, *args.prune]
    cpu = dict.fromkeys(settings, 0.0)
    same = dict.fromkeys(args.prune, 0)
    lost = {k: [] for k in args.prune}
    gap = {k: [] for k in args.prune}
    for i in range(n):
        children, _ = legal_plays("backgammon", positions[i:i + 1], dice[i:i + 1])
        candidates = children[move_filter(cubeless_equity("backgammon", child_probabilities(net, children)))]
        value = {}
        for k in settings:
            start = time.process_time()
            value[k] = cubeless_equity("backgammon", child_probabilities_ahead(net, candidates, 2, prune=k))
            cpu[k] += time.process_time() - start
        best = int(np.argmax(value[0]))
        for k in args.prune:
            pick = int(np.argmax(value[k]))
            same[k] += pick == best
            lost[k].append(float(value[0][best] - value[0][pick]))
            gap[k].append(float(np.abs(value[k] - value[0]).mean()))
    result = {"positions": n, "seed": args.seed, "cpu_ms": {k: 1000 * cpu[k] / n for k in settings}, "pruned": {}}
    print(f"{n} mid-game positions (seed {args.seed}); the full 2-ply search: {result['cpu_ms'][0]:.0f} ms CPU a position")
    for k in args.prune:
        row = {"same_best": same[k], "lost_memg_mean": 1000 * float(np.mean(lost[k])),
               "lost_memg_max": 1000 * float(np.max(lost[k])), "value_gap_mean": float(np.mean(gap[k]))}
        result["pruned"][k] = row
        print(f"--prune {k}: {result['cpu_ms'][k]:.0f} ms CPU a position, the same best play in {same[k]} of {n}, "
              f"equity lost by its pick {row['lost_memg_mean']:.3f} mEMG a position (at most "
              f"{row['lost_memg_max']:.1f}), mean value gap {row['value_gap_mean']:.4f}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
