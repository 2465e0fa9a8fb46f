"""Self-play plies per CPU-second with the sampled TD target and with the one-ply target, side by side.

    python scripts/bench_targets.py experiments/resume/backgammon-v3-oneply/last.pt --runs 3

Two SelfPlayActor (model/train/td.py) on the same net, 256 games each, `--target sample` and
`--target one-ply --target-prune K`, take turns (so both see the same load); each round plays until
--samples positions (a quarter of that for one-ply) and counts plies per CPU-second of this process
(CPU time, not wall time: the machine is usually shared). Prints the medians and their ratio, which is
the figure train.py's --target help quotes.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a training checkpoint (.pt) or .safetensors export")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=16000)
    parser.add_argument("--prune", type=int, default=3)
    args = parser.parse_args(argv)
    import model.runtime  # noqa: F401, I001  one BLAS thread, before numpy loads
    import numpy as np
    import torch

    from engine.tools.cli import UsageError, run_main
    from model.net.checkpoint import load_net
    from model.train.td import SelfPlayActor

    def run(_argv) -> int:
        torch.set_num_threads(1)
        try:
            net, _ = load_net(args.checkpoint)
        except (OSError, ValueError) as err:
            raise UsageError(f"cannot load {args.checkpoint}: {err}") from err
        rates: dict[str, list[float]] = {"sample": [], "one-ply": []}
        actors = {t: SelfPlayActor(net, games=256, lam=0.0, seed=1, target=t, prune=args.prune)
                  for t in rates}
        for _ in range(args.runs):
            for target, actor in actors.items():
                cpu = time.process_time()
                exp = actor.play(args.samples // 4 if target == "one-ply" else args.samples)
                rates[target].append(exp.plies / (time.process_time() - cpu))
        med = {t: float(np.median(v)) for t, v in rates.items()}
        for t, v in rates.items():
            print(f"{t:8s} {med[t]:8.0f} plies per CPU-second (runs: {', '.join(f'{x:.0f}' for x in v)})")
        ratio = med["sample"] / med["one-ply"]
        print(f"one-ply plays {ratio:.2f}x fewer plies per CPU-second (prune {args.prune})")
        return 0

    return run_main("bench_targets.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
