"""How much the one-ply target loses by scoring only pubeval's K best plays of each roll.

    python scripts/target_filter.py experiments/resume/backgammon-v3-oneply/last.pt --k 3,5,8,12

train.py's ``--target one-ply --target-prune K`` (model/train/one_ply.py) takes each roll's best play
among the K that pubeval scores highest, both for the target V1 (the average over the 21 rolls) and
for the move the actor plays. This samples positions from the net's own one-ply self-play and, for
each K, compares with the best of *every* legal play by the same net: the share of rolls whose best
play pubeval's K miss (contact / race), the mean amount V1 falls short in cubeless equity (it can
only fall short: a max over fewer plays), and the CPU seconds of each call. Backgammon only.
"""

from __future__ import annotations

import argparse
import sys
import time


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="a backgammon training checkpoint (.pt) or .safetensors export")
    parser.add_argument("--k", default="3,5,8,12", help="the prune values to compare, comma-separated")
    parser.add_argument("--positions", type=int, default=1500, help="positions sampled (default 1500)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    import model.runtime  # noqa: F401, I001  one BLAS thread, before numpy loads
    import numpy as np
    import torch

    from engine.board import has_contact
    from engine.tools.cli import UsageError, run_main
    from model.net.checkpoint import load_net
    from model.net.equity import cubeless_equity
    from model.train.one_ply import ROLLS, best_replies
    from model.train.td import SelfPlayActor

    def run(_argv) -> int:
        torch.set_num_threads(1)
        try:
            ks = [int(k) for k in args.k.split(",")]
        except ValueError:
            raise UsageError(f"--k must be integers separated by commas, not {args.k!r}") from None
        if any(k <= 0 for k in ks) or args.positions <= 0:
            raise UsageError("--k values and --positions must be positive")
        try:
            net, _ = load_net(args.checkpoint)
        except (OSError, ValueError) as err:
            raise UsageError(f"cannot load {args.checkpoint}: {err}") from err
        if net.config.game != "backgammon":
            raise UsageError("pubeval's play filter is backgammon only")
        actor = SelfPlayActor(net, games=128, lam=0.0, seed=args.seed, target="one-ply", prune=3)
        seen = []
        while sum(len(s) for s in seen) < 4 * args.positions:
            seen.append(actor.table.pos.copy())
            actor.table.end_turn(np.arange(actor.n), actor._step())
        pool = np.concatenate(seen)
        pos = pool[np.random.default_rng(args.seed).choice(len(pool), args.positions, replace=False)]
        contact = has_contact("backgammon", pos)

        def replies(k):
            cpu = time.process_time()
            r = best_replies(actor.evaluator, "backgammon", pos, k)
            return (cubeless_equity("backgammon", r.expectation()),
                    cubeless_equity("backgammon", r.probs).reshape(-1, ROLLS), time.process_time() - cpu)

        v_all, roll_all, cpu_all = replies(0)
        print(f"{args.positions} positions ({contact.sum()} contact, {(~contact).sum()} race) from one-ply "
              f"self-play; every play: {cpu_all:.2f} CPU s")
        print(" K  rolls missed (contact, race)  V1 short by: mean (contact, race)  share > 0.01  CPU s")
        for k in ks:
            v, roll, cpu = replies(k)
            miss, gap = (roll_all - roll) > 1e-9, v_all - v

            def mean(x, digits):  # "-" for a class with no positions in the sample
                return f"{x.mean():.{digits}f}" if x.size else "-"

            print(f"{k:2d}  {miss.mean():6.3f} ({mean(miss[contact], 3)}, {mean(miss[~contact], 3)})"
                  f"          {gap.mean():.4f} ({mean(gap[contact], 4)}, {mean(gap[~contact], 4)})"
                  f"          {(gap > 0.01).mean():6.3f}  {cpu:6.2f}")
        return 0

    return run_main("target_filter.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
