"""Self-play training speed with actors on Ray, beside gnubg 0-ply's own self-play, in one run.

    python scripts/bench_actors.py --runs 3 --json experiments/results/bench_actors.json

Each setting is train.py's loop (model/train/actors.py's source, TDLearner, a new weight version after
every learning pass; no checkpoints, TensorBoard or strength checks), timed over --updates learning
passes of --samples-per-update positions after two passes of warm-up, in a process of its own:

  actors 0    the actor plays in the learner's process (train.py's default, no Ray)
  actors 1,2  Ray actors on a Ray started on this machine
  cluster 2   2 Ray actors on a two-node cluster started on this machine (ray.cluster_utils.Cluster:
              a head node and a second node, one CPU each, so one actor per node)

and any of them with " prune K" after it (say "actors 2 prune 8"): the actors play with train.py's
--play-prune K (the net scores only the K plays of each roll that pubeval ranks highest).

games/s counts the games whose positions were learned, learning included. gnubg's speed is Debian's
gnubg 1.07 rolling out the opening position cubeless at 0-ply without variance reduction or
truncation (scripts/bench_rollout.py's script): each trial is one whole game of gnubg against itself.
Each setting is compared with gnubg on as many calculation threads as the cores it uses: actors 0
the learner's torch threads (--threads; 0: every core), Ray actors the whole machine (the actors
and the learner share its cores), so "actors 2" on 2 cores meets gnubg on 2 threads. The settings and
gnubg take turns, --runs rounds; the medians are reported, with the load average.
Like train.py, numpy's BLAS gets one thread (model/runtime.py; the runs inherit the setting); before
that was set here, the in-process runs of feature version 3 spent much of their time in two-thread BLAS.

--compare DIR also times every setting with the code of another checkout (say the commit before a
speed change: `git worktree add /tmp/before <commit>`), each right beside this checkout's run of the
same setting (the order alternating from round to round), so that both see the same load; each run
gets the environment less what this checkout's model/runtime.py set in it, so that a tree runs with
what its own code sets up (its BLAS threads, its malloc setting or none):

    python scripts/bench_actors.py --settings "actors 0,actors 2" --compare /tmp/before --runs 3 --updates 4
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
import model.runtime  # (one BLAS thread, as train.py: set before numpy loads, inherited by every run)
from nardibot.cli.common import write_json

SETTINGS = ("actors 0", "actors 1", "actors 2", "cluster 2")


def parse_setting(setting: str) -> tuple[str, int, int]:
    """("actors" or "cluster", actors, prune) of a setting such as "actors 2" or "actors 2 prune 8"."""
    words = setting.split()
    if len(words) not in (2, 4) or words[0] not in ("actors", "cluster") or not words[1].isdigit() or (
            len(words) == 4 and (words[2] != "prune" or not words[3].isdigit())):
        raise ValueError(f"not a setting: {setting!r} (one of {', '.join(SETTINGS)}, optionally followed by 'prune K')")
    return words[0], int(words[1]), int(words[3]) if len(words) == 4 else 0


def setting_cores(setting: str, threads: int) -> int:
    """The cores a setting uses, so the gnubg threads it is compared with: the learner's torch threads
    in process (``threads``; 0: every core), the whole machine with Ray actors beside the learner."""
    cores = os.cpu_count() or 1
    return min(threads or cores, cores) if parse_setting(setting)[1] == 0 else cores


def one(setting: str, args) -> dict:
    """Time one setting in this process: {"games", "seconds", "games_per_s", "staleness"}."""
    import numpy as np
    import torch

    from model.net.checkpoint import load_net
    from model.net.device import learner_threads
    from model.train.actors import LocalActor, RayActors
    from model.train.td import SelfPlayActor, TDLearner

    kind, n, prune = parse_setting(setting)
    torch.set_num_threads(learner_threads(args.threads, n))  # as train.py with actors on this machine
    torch.manual_seed(0)
    net, _ = load_net(args.checkpoint, "backgammon", backend="torch")
    learner = TDLearner(net, batch_size=1024)
    cluster = None
    if kind == "cluster":
        import ray
        from ray.cluster_utils import Cluster

        os.environ.setdefault("RAY_worker_niceness", "0")  # as model/net/cluster.py starts Ray
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
        cluster.add_node(num_cpus=1)
        ray.init(address=cluster.address, runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
    if n == 0:
        source = LocalActor(SelfPlayActor(net, games=args.parallel_games, seed=0, play_prune=prune))
    else:
        source = RayActors(n, net, games=args.parallel_games, lam=0.7, seed=0, log=lambda _: None,
                           play_prune=prune)
    staleness = []
    try:
        for i in range(2 + args.updates):
            if i == 2:
                t0, games = time.perf_counter(), 0
            exp = source.collect(args.samples_per_update, 10**12)
            learner.update(exp.positions, exp.targets)
            source.set_weights(learner.weights())
            if i >= 2:
                games += exp.games
                staleness += source.staleness
        seconds = time.perf_counter() - t0
    finally:
        source.close()
        if cluster is not None:
            import ray

            ray.shutdown()
            cluster.shutdown()
    return {"games": games, "seconds": seconds, "games_per_s": games / seconds,
            "staleness": float(np.mean(staleness)) if staleness else 0.0}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "backgammon.safetensors"))
    parser.add_argument("--parallel-games", type=int, default=256, help="games side by side per actor")
    parser.add_argument("--samples-per-update", type=int, default=16_384)
    parser.add_argument("--updates", type=int, default=8, help="timed learning passes per run")
    parser.add_argument("--threads", type=int, default=0, help="the learner's torch threads (0: as train.py sets "
                        "them, all cores less one a core for each actor on the local Ray)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--settings", default=",".join(SETTINGS), help="which of: " + ", ".join(SETTINGS) + ", each optionally followed by ' prune K'")
    parser.add_argument("--gnubg", default="/usr/games/gnubg")
    parser.add_argument("--gnubg-games", type=int, default=1296)
    parser.add_argument("--compare", default=None, metavar="DIR",
                        help="another checkout whose code is timed beside this one's, setting by setting")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)  # a setting, timed in this process
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    if args.one:
        print("RESULT " + json.dumps(one(args.one, args)), flush=True)
        return 0

    from bench_rollout import gnubg_rollout  # scripts/bench_rollout.py: this script's folder is on sys.path

    settings = [" ".join(s.split()) for s in args.settings.split(",")]
    for setting in settings:
        try:
            parse_setting(setting)
        except ValueError as e:
            parser.error(f"--settings: {e}")
    trees = [("", ROOT)]
    if args.compare:
        other = Path(args.compare).resolve()
        if not (other / "scripts" / "bench_actors.py").is_file():
            parser.error(f"--compare: {other} holds no scripts/bench_actors.py")
        trees.append((f"{other.name}: ", other))
    # each tree's run sets up its process as its own code does (model/runtime.py of that tree)
    own_env = {k: v for k, v in os.environ.items() if k not in model.runtime.SET_HERE}
    labels = [label + s for s in settings for label, _ in trees]
    gnubg_threads = sorted({setting_cores(s, args.threads) for s in settings})
    gnubg_label = {n: f"gnubg 0-ply self-play, {n} thread{'s' if n > 1 else ''}" for n in gnubg_threads}
    rows: dict[str, list[dict]] = {k: [] for k in labels + list(gnubg_label.values())}
    loads = [os.getloadavg()[0]]
    for r in range(args.runs):
        for setting in settings:
            for label, tree in trees if r % 2 == 0 else trees[::-1]:
                flags = ["--checkpoint", args.checkpoint, "--parallel-games", str(args.parallel_games),
                         "--samples-per-update", str(args.samples_per_update), "--updates", str(args.updates),
                         "--threads", str(args.threads)]
                done = subprocess.run([sys.executable, str(tree / "scripts" / "bench_actors.py"), *flags, "--one", setting],
                                      capture_output=True, text=True, cwd=tree, check=False,
                                      env={**own_env, "PYTHONPATH": str(tree)})
                line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
                if not line:
                    raise RuntimeError(f"{label}{setting}: {done.stdout[-1500:]} {done.stderr[-1500:]}")
                rows[label + setting].append(json.loads(line[0][7:]))
                print(f"run {r + 1} {label + setting:<10} {rows[label + setting][-1]['games_per_s']:7.0f} games/s "
                      f"(staleness {rows[label + setting][-1]['staleness']:.2f})", flush=True)
        for n, key in gnubg_label.items():
            g = gnubg_rollout(args.gnubg, "4HPwATDgc/ABMA", args.gnubg_games, False, n)
            rows[key].append({"games": g["trials"], "seconds": g["seconds"], "games_per_s": g["trials_per_s"],
                              "cpu_seconds": g["cpu_seconds"]})
            print(f"run {r + 1} {key} {g['trials_per_s']:7.0f} games/s", flush=True)
        loads.append(os.getloadavg()[0])
    medians = {k: statistics.median(x["games_per_s"] for x in v) for k, v in rows.items()}
    # each of ours against gnubg on as many threads as the setting's cores
    against = {label + s: setting_cores(s, args.threads) for s in settings for label, _ in trees}
    out = {"checkpoint": Path(args.checkpoint).name, "compare": args.compare, "parallel_games": args.parallel_games,
           "samples_per_update": args.samples_per_update, "updates": args.updates, "cores": os.cpu_count(),
           "load_average_1min": loads, "runs": rows, "median_games_per_s": medians,
           "gnubg_threads_of_setting": against,
           "ratio_to_gnubg": {k: medians[k] / medians[gnubg_label[n]] for k, n in against.items()}}
    print(f"\nmedians of {args.runs} runs (load average {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores):")
    for k, v in medians.items():
        ratio = f"   {out['ratio_to_gnubg'][k]:5.2f}x gnubg on {against[k]} thread{'s' if against[k] > 1 else ''}" \
            if k in against else ""
        print(f"  {k:<36}{v:7.0f} games/s{ratio}")
    if args.json:
        write_json(args.json, out, make_folder=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
