"""What pruning the look-ahead's inner plays costs a 2-ply hint: speed and agreement with the full search.

    python scripts/prune_agreement.py [--positions 300] [--prune 8 16] [--seed 7] [--json FILE]
    python scripts/prune_agreement.py --benchmark [--positions 0] [--prune 8] [--json FILE]

For seeded mid-game positions with a roll, the candidates a hint looks at deeply (the move filter's
best 8 within 0.16 at 0 ply) are valued at 2 ply by the shipped net as ``hint --ply 2`` does with
every inner play (``--prune 0``) and with each roll's inner play picked among pubeval's K best
(``hint --prune K``). Reported per K: CPU per position, how often the best play is the same, the
equity (by the full search's own values, cubeless) lost by playing the pruned search's pick, and the
mean gap between the two searches' values.

With ``--benchmark`` the two searches play the stored checker-play benchmark instead (``--positions``
per class, 0: all 3,700; model/arena/benchmark.py), each as ``+2ply`` plays (model/players/
lookahead_player.py, cubeless), judged by gnubg 2-ply as ``nardibot benchmark`` judges: each one's
error rate per class and the pruned minus the full search's, paired, with 95% intervals, and the CPU
each took. A play the file had not judged is judged by gnubg-nn when it is installed.
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
    parser.add_argument("--positions", type=int, default=300,
                        help="mid-game positions (default 300); with --benchmark, per class (0: all 3,700)")
    parser.add_argument("--prune", type=int, nargs="+", default=[8], help="K of each pruned search (default 8)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", default=None)
    parser.add_argument("--benchmark", action="store_true", help="play the stored checker-play benchmark")
    args = parser.parse_args(argv)
    if args.positions < 0 or (args.positions == 0 and not args.benchmark):
        parser.error(f"--positions must be positive (0: every benchmark position, with --benchmark), got {args.positions}")
    if min(args.prune) < 1:
        parser.error(f"--prune must be 1 or more (the full search is always run beside), got {min(args.prune)}")
    if args.benchmark:
        return on_benchmark(args)

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


def on_benchmark(args) -> int:
    from model import Bot
    from model.arena.benchmark import CLASSES, gnubg_judge, load_benchmark, score
    from model.players.lookahead_player import LookaheadPlayer

    bench = load_benchmark()
    if args.positions:
        rng = np.random.default_rng(args.seed)
        classes = bench.classes
        keep = np.concatenate([rng.permutation(np.flatnonzero(classes == c))[: args.positions] for c in CLASSES])
        bench = bench.subset(np.sort(keep))
    net, judge = Bot.load().net, gnubg_judge()
    result = {"positions": len(bench), "seed": args.seed, "judge": "gnubg 2-ply" if judge else "estimated", "runs": {}}
    losses = {}
    for k in [0, *args.prune]:
        start = time.process_time()
        got = score(LookaheadPlayer(net, 2, prune=k), bench, judge)
        cpu = time.process_time() - start
        losses[k] = got["loss"]
        result["runs"][k] = {"cpu_ms": 1000 * cpu / len(bench), "error_rates": got["error_rates"]}
        rates = got["error_rates"]
        print(f"2-ply, --prune {k}: " + ", ".join(f"{c} {r['er']:.2f} +- {r['ci95']:.2f}" for c, r in rates.items())
              + f"; {1000 * cpu / len(bench):.0f} ms CPU a position (judging included)")
    for k in args.prune:
        d = 1000 * (losses[k] - losses[0])
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
        result["runs"][k]["minus_full"] = {"er": float(d.mean()), "ci95": float(half),
                                           "same_loss": int((losses[k] == losses[0]).sum())}
        print(f"--prune {k} minus the full search, paired: {d.mean():+.3f} +- {half:.3f} "
              f"(the same loss in {(losses[k] == losses[0]).sum()} of {len(d)} positions)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
