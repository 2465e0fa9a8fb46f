"""Train a backgammon race net by self-play on races only (issue 11, lever 3).

    python scripts/train_race.py --run-dir runs/race --minutes 50 --out checkpoints/backgammon-race.safetensors
    python scripts/train_race.py --run-dir runs/race --resume --minutes 30     # go on

Two steps, both with the project's own machinery:

1. The start positions (``<run-dir>/starts.npy``, made once): the first position without contact of
   ``--start-games`` self-play games of ``--start-net`` (the shipped net by default, at 0-ply with
   its bear-off databases; model/train/race_games.py ``race_starts``).
2. ``train.py`` on them: a new OutcomeNet on the race inputs (``--features 4``, ``--hidden``), every
   game starting from a start drawn at random and played to the end, bear-offs played and valued from
   the exact databases and left out of the samples (``--exact-endgames --skip-exact``), plain
   TD(lambda 0.7) over every legal play (``--target sample``), one torch thread, no strength checks
   against the baselines (a race net cannot play a whole game). Further flags after ``--`` go to
   train.py as they are and win over these (e.g. ``-- --lr-schedule 0:1e-3,500000:3e-4``).

   Not the one-ply target by default: with ``--target-prune 3`` (pubeval's 3 best plays a roll, and
   pubeval's race weights ignore gammons) the race net misplayed gammon and backgammon saving
   positions (race error rate 14.5 at 141k games); unpruned it is eight times slower here
   (experiments/backgammon_inputs_and_targets.md, "L5"). ``-- --target one-ply --target-prune 0 --lam 0``
   asks for it.

Nothing gnubg computes enters: the starts come from the project's own net, the targets from the race
net itself and the databases (built by scripts/build_bearoff.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import model.runtime  # noqa: F401  (before numpy: one BLAS thread)

# isort: split
import numpy as np

from model.net.checkpoint import CheckpointError, shipped_path
from model.net.features import RACE_VERSION
from nardibot.cli.cmd_train import main as train_main  # train.py's main


def make_starts(path: Path, net_path: str, games: int, seed: int) -> np.ndarray:
    """The start positions of ``path``, made from ``games`` self-play games of ``net_path`` if absent."""
    if path.exists():
        return np.load(path)
    from model.net.checkpoint import load_net
    from model.net.evaluator import ExactEndgames
    from model.train.race_games import race_starts

    net, _ = load_net(net_path, "backgammon", backend="numpy")
    t0 = time.time()
    starts = race_starts(ExactEndgames(net), games, seed=seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, starts)
    pips = starts[:, :24].clip(0) @ np.arange(1, 25) + 25 * starts[:, 24]
    print(f"{len(starts)} race starts from {net_path} in {time.time() - t0:.0f} s, mover's pips "
          f"{np.percentile(pips, 5):.0f} / {np.median(pips):.0f} / {np.percentile(pips, 95):.0f} "
          f"(5% / median / 95%) -> {path}", flush=True)
    return starts


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="train_race.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", required=True, help="the run's folder (starts.npy, last.pt, snapshots)")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    parser.add_argument("--games", type=int, default=10_000_000, help="stop after this many race games")
    parser.add_argument("--minutes", type=float, default=50.0, help="stop after this many minutes (0: no limit)")
    parser.add_argument("--hidden", default="128", help="hidden layer widths of a new net")
    parser.add_argument("--start-net", default=str(shipped_path("backgammon")),
                        help="the net whose self-play gives the start positions")
    parser.add_argument("--start-games", type=int, default=20_000, help="race starts to make (one a game)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the starts and the run")
    parser.add_argument("--out", default="", help="write the final weights here too (.safetensors for play)")
    args = parser.parse_args(argv)
    if args.start_games <= 0:
        parser.error("--start-games must be positive")
    run_dir = Path(args.run_dir)
    starts = run_dir / "starts.npy"
    try:
        make_starts(starts, args.start_net, args.start_games, args.seed)
    except CheckpointError as e:
        parser.error(str(e))
    flags = ["--run-dir", str(run_dir), "--games", str(args.games), "--minutes", str(args.minutes),
             "--threads", "1", "--no-progress"]
    if args.out:
        flags += ["--out", args.out]
    if args.resume:
        flags.append("--resume")
    else:
        flags += ["--game", "backgammon", "--features", str(RACE_VERSION), "--hidden", args.hidden,
                  "--starts", str(starts), "--exact-endgames", "--skip-exact", "--target", "sample",
                  "--lam", "0.7", "--eval-every", "0", "--seed", str(args.seed), "--checkpoint-every", "20000"]
    return train_main(flags + extra)


if __name__ == "__main__":
    sys.exit(main())
