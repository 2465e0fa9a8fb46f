"""Speed of self-play training and of net-vs-net evaluation, with a profile of where the time goes.

    python scripts/bench_train.py --game backgammon --runs 5 --json experiments/results/bench_train.json

Training: the actor plays --parallel-games games side by side and the learner fits every position
(exactly train.py's loop, without checkpoints or TensorBoard), timed over --samples positions per run
after one warm-up round; games/s counts finished games. Evaluation: two copies of the same network
play mirrored cubeless games through model/arena/cubeless.py. The profile splits one training run into move
generation, feature encoding, network forward, the rest of the actor, and the learning step.
scripts/bench_actors.py times the same loop with actors on Ray (train.py --actors N), beside gnubg.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="backgammon", choices=("backgammon", "nardi"))
    parser.add_argument("--hidden", default="128")
    parser.add_argument("--parallel-games", type=int, default=256)
    parser.add_argument("--samples", type=int, default=65536, help="positions learned per timed run")
    parser.add_argument("--eval-games", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0 = all cores)")
    parser.add_argument("--checkpoint", default=None, help="a trained net (default: random weights)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    import numpy as np
    import torch

    from engine import movegen
    from model.arena.cubeless import play_games
    from model.net import features
    from model.net.checkpoint import load_net
    from model.net.network import NetConfig, OutcomeNet
    from model.players.net_player import NetPlayer
    from model.train import td
    from nardibot.cli.common import write_json

    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    torch.manual_seed(0)
    if args.checkpoint:
        net, _ = load_net(args.checkpoint, args.game, backend="torch")
    else:
        net = OutcomeNet(NetConfig(args.game, tuple(int(h) for h in args.hidden.split(","))))
    learner = td.TDLearner(net, batch_size=1024)
    actor = td.SelfPlayActor(net, games=args.parallel_games, seed=0)
    actor.play(args.samples // 4)  # warm-up: fills the pipeline with games in progress

    train_rates = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        exp = actor.play(args.samples)
        learner.update(exp.positions, exp.targets)
        actor.set_weights(learner.weights())
        train_rates.append(exp.games / (time.perf_counter() - t0))
        print(f"training: {train_rates[-1]:.0f} games/s", flush=True)

    # profile one more run by wrapping the hot functions
    spent = {"legal_plays": 0.0, "features": 0.0, "net_forward": 0.0}

    def timed(fn, key):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[key] += time.perf_counter() - t
        return wrapper

    # the actor scores children through TableForward (model/net/table_forward.py), which encodes them
    # with features.encode and then runs the net: its time less the encoding's is the forward pass
    import model.net.table_forward as table_module
    from model.net.table_forward import TableForward

    td.legal_plays = timed(movegen.legal_plays, "legal_plays")
    original_encode = features.encode
    table_module.encode = timed(original_encode, "features")
    original_probabilities = TableForward.probabilities
    TableForward.probabilities = timed(original_probabilities, "net_forward")
    t0 = time.perf_counter()
    exp = actor.play(args.samples)
    t1 = time.perf_counter()
    learner.update(exp.positions, exp.targets)
    t2 = time.perf_counter()
    td.legal_plays, table_module.encode = movegen.legal_plays, original_encode
    TableForward.probabilities = original_probabilities
    actor_forward = spent["net_forward"] - spent["features"]
    total = t2 - t0
    profile = {
        "move generation (legal_plays)": spent["legal_plays"],
        "feature encoding (actor)": spent["features"],
        "network forward (actor)": actor_forward,
        "rest of the actor (selection, bookkeeping, returns)":
            (t1 - t0) - spent["legal_plays"] - spent["features"] - actor_forward,
        "learning step (features + forward + backward + Adam)": t2 - t1,
    }
    print(f"\nprofile of one run ({exp.games} games, {total:.2f} s):")
    for k, v in profile.items():
        print(f"  {k:<55}{v:7.2f} s  {100 * v / total:5.1f}%")

    eval_rates = []
    for i in range(max(1, args.runs // 2)):
        a, b = NetPlayer(net), NetPlayer(net)
        result = play_games(a, b, args.eval_games, seed=i)
        eval_rates.append(result.games_per_s)
        print(f"evaluation net vs net: {eval_rates[-1]:.0f} games/s", flush=True)

    out = {
        "game": args.game, "hidden": args.hidden, "parallel_games": args.parallel_games,
        "threads": torch.get_num_threads(), "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(), "training_games_per_s": train_rates,
        "training_median": float(np.median(train_rates)), "evaluation_games_per_s": eval_rates,
        "evaluation_median": float(np.median(eval_rates)),
        "profile_seconds": {k: round(v, 3) for k, v in profile.items()},
    }
    print(f"\nmedian training {out['training_median']:.0f} games/s (incl. learning), "
          f"median evaluation {out['evaluation_median']:.0f} games/s")
    if args.json:
        write_json(args.json, out, make_folder=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
