"""Train a backgammon or long-nardi network from scratch by TD(lambda) self-play.

    nardibot train --game backgammon --games 300000 --run-dir runs/bg --out checkpoints/backgammon.safetensors
    nardibot train --run-dir runs/bg --resume                          # continue a stopped run
    nardibot train --game backgammon --games 300000 --run-dir runs/bg --actors 2   # self-play on Ray

``python train.py ARGS`` (the checkout's entry point) is the same command: the same parser and ``main``.

A resumed run keeps its own settings (game, --games, network, learning-rate schedule, lambda, batch
sizes, seed...) as its latest invocation left them in last.pt; a flag given with --resume changes one
from then on, and the run says in one line which it kept and which it changed. --minutes, --out,
--device, --threads, --no-progress, --actors, --ray-address and --actor-gpus belong to the invocation
and are never taken from the run. The flags, their checks and a resumed run's settings are
model/train/selfplay_args.py's.

--actors N plays self-play in N Ray actors (model/train/actors.py; the [ray] extra), on this machine or
on the cluster of --ray-address, the learner staying in this process; without it nothing of Ray is used.

Every --checkpoint-every games the run writes <run-dir>/last.pt atomically (kill it at any moment:
--resume continues from there) and a small snapshot under <run-dir>/snapshots/ for the strength
curve (the latest --keep-snapshots). A checkpoint that cannot be written (a full disk) stops the run:
one line, exit 1, last.pt as its last write left it. TensorBoard logs go to <run-dir>/tb (charts/,
losses/, eval/). At the end the weights are written to --out, without the optimizer state, ready to
ship (.safetensors: read by numpy alone).
"""

from __future__ import annotations

import model.runtime  # noqa: F401  (first: sets numpy's BLAS threads before numpy loads)

# isort: split
import argparse
import dataclasses
import json
import shlex
import signal
import sys
import time
from pathlib import Path

import numpy as np

from engine.tools.cli import UsageError, check_writable, dataclass_parser
from model.train.selfplay_args import PROG, Args, check, lr_at, lr_schedule, resume_args

RECIPES = f"""A whole training method runs as a recipe instead (model/train/pipeline.py):

  {PROG} train RECIPE --run-dir DIR [--workers N] [--actors N] [--ray-address ADDR] [--threads N]
  {PROG} train --run-dir DIR --resume

RECIPE is a TOML file or a shipped recipe's name (quick, backgammon, nardi); docs/training.md lists the
stages and their settings."""


def build_parser() -> argparse.ArgumentParser:
    """The train command's parser: a flag per Args field (engine/tools/cli.py's dataclass_parser); its
    help ends with how a recipe is run."""
    parser = dataclass_parser(Args, prog=f"{PROG} train", description=__doc__.split("\n\n")[0], epilog=RECIPES)
    # the flags' defaults as before, the epilog's lines as written
    parser.formatter_class = type("Help", (argparse.RawDescriptionHelpFormatter, parser.formatter_class), {})
    return parser


def parse_args(argv: list[str]) -> Args:
    """Args from the command line, checked: a bad one exits with one line on stderr, status 2."""
    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    if args.resume and not args.run_dir:
        parser.error("--resume needs --run-dir (the run to continue)")
    problem = check(args)
    if problem:
        parser.error(problem)
    return args


def load_starts(path: str) -> np.ndarray | None:
    """The start positions of --starts (None without it); UsageError for a file that is not (N, 28)."""
    if not path:
        return None
    try:
        starts = np.load(path)
    except OSError as e:
        raise UsageError(f"--starts {path}: {e}") from None
    except ValueError:
        raise UsageError(f"--starts {path}: not a numpy .npy file of positions") from None
    if starts.ndim != 2 or starts.shape[1] != 28 or not len(starts):
        raise UsageError(f"--starts {path}: expected positions (N, 28), not an array of shape {starts.shape}")
    return starts.astype(np.int8)


class StopRequest:
    """SIGINT and SIGTERM while a run plays: the first asks it to stop once the update under way is
    learned (then the checkpoint, exit 130), so that no signal lands inside a library. An interrupt
    raised while numba compiles a kernel (the first update of a process that changes over to the
    kernels) comes out as numba's RuntimeError, its library half built, and one raised inside the
    optimizer's step would leave the weights half updated. A second signal stops at once
    (KeyboardInterrupt). ``install`` sets the handlers, ``restore`` puts the previous ones back."""

    def __init__(self, say=None):
        self.requested = False
        self.say = say or (lambda text: print(text, file=sys.stderr, flush=True))
        self.previous: dict = {}

    def __call__(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.say("stopping once this update is learned (again to stop at once)")

    def install(self) -> StopRequest:
        for signum in (signal.SIGINT, signal.SIGTERM):
            self.previous[signum] = signal.signal(signum, self)
        return self

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        self.previous.clear()


def train(argv: list[str], command: str = f"{PROG} train", writer=None) -> int:
    """The training run of the command line ``argv``, recorded in the checkpoints as ``command ARGV``: 0
    when done, 130 when stopped (with a checkpoint), 1 (and one line on stderr) when a checkpoint cannot
    be written; UsageError for a run that cannot start. ``writer``: where the TensorBoard scalars go (an
    object with add_scalar and add_text, left open; a recipe's one run, model/train/pipeline.py); None:
    a SummaryWriter of <run-dir>/tb of its own."""
    args = parse_args(argv)
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from model.net.checkpoint import CheckpointError, CheckpointWriteError, load_net, save
    from model.net.device import choose_device, learner_threads
    from model.net.network import NetConfig, OutcomeNet
    from model.train.actors import ActorsError, LocalActor, RayActors
    from model.train.evaluation import benchmark_check, strength_check
    from model.train.snapshots import prune_snapshots, snapshot_path
    from model.train.td import SelfPlayActor, TDLearner

    check_writable("--out", args.out or None)  # before the games, not after them
    try:
        # Ray actors started on this machine play on its cores: the learner leaves them theirs
        local_actors = args.actors if args.actors and not args.ray_address else 0
        device = choose_device(args.device, learner_threads(args.threads, local_actors))
    except ValueError as e:
        raise UsageError(str(e)) from None
    run_dir = Path(args.run_dir or f"runs/{args.game}__{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}")
    last = run_dir / "last.pt"

    games_done, train_state, optimizer_state, previous_made_by = 0, None, None, {}
    if args.resume:
        try:
            net, blob = load_net(last, None, device, backend="torch")
        except CheckpointError as e:
            raise UsageError(f"cannot resume: {e}") from None
        args, settings_line = resume_args(args, argv, blob)
        torch.manual_seed(args.seed)
        games_done, train_state, optimizer_state = blob["games"], blob["train_state"], blob["optimizer"]
        previous_made_by = blob.get("made_by") or {}
        if "commands" not in previous_made_by and "command" in previous_made_by:
            previous_made_by = {"commands": [previous_made_by["command"]]}
        print(f"resuming {run_dir} at {games_done} games; {settings_line}", flush=True)
        if games_done >= args.games:
            print(f"the run has played its --games {args.games}; give a larger --games to train it further")
    else:
        if last.exists():
            raise UsageError(f"{last} exists; pass --resume to continue it or choose another --run-dir")
        try:  # here, not deep in TensorBoard's writer: a folder that cannot be made is one line
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(f"cannot write the run folder {run_dir}: {e.strerror or e}") from None
        torch.manual_seed(args.seed)
        hidden = tuple(int(h) for h in args.hidden.split(","))
        net = OutcomeNet(NetConfig(args.game, hidden, feature_version=args.features or None)).to(device)

    learner = TDLearner(net, lr=args.lr, batch_size=args.batch_size, device=device, seed=args.seed)
    if optimizer_state:
        learner.opt.load_state_dict(optimizer_state)
    if args.actors:  # the actors play on CPUs (or --actor-gpus); the learner stays on --device
        try:
            source = RayActors(args.actors, net, games=args.parallel_games, lam=args.lam,
                               seed=args.seed + games_done, explore=args.explore,
                               exact_endgames=args.exact_endgames, address=args.ray_address,
                               gpus=args.actor_gpus, log=tqdm.write, target=args.target,
                               prune=args.target_prune, play_prune=args.play_prune)
        except ActorsError as e:
            raise UsageError(str(e)) from None
        print(f"{args.actors} self-play actors on Ray (pids {' '.join(map(str, source.pids))}); the learner on "
              f"{torch.get_num_threads()} torch thread{'s' if torch.get_num_threads() > 1 else ''}", flush=True)
    else:
        actor = SelfPlayActor(net, games=args.parallel_games, lam=args.lam, seed=args.seed + games_done,
                              device=device, explore=args.explore, exact_endgames=args.exact_endgames,
                              target=args.target, prune=args.target_prune, starts=load_starts(args.starts),
                              play_prune=args.play_prune)
        if train_state and "actor_rng" in train_state:
            actor.rng.bit_generator.state = json.loads(train_state["actor_rng"])
        source = LocalActor(actor)
    elapsed_before = float(train_state.get("seconds", 0.0)) if train_state else 0.0

    own_writer = writer is None
    if own_writer:
        writer = SummaryWriter(str(run_dir / "tb"))
    if args.resume:
        writer.add_text("resumed", f"at {games_done} games: {settings_line}", games_done)
    else:
        writer.add_text("args", json.dumps(dataclasses.asdict(args), indent=1))
    # every invocation that trained this run, oldest first (a resumed run keeps the earlier ones)
    commands = list(previous_made_by.get("commands", [])) + [f"{command} {shlex.join(argv)}".strip()]

    saved = games_done if args.resume else None  # the games last.pt holds (None: no last.pt of this run yet)
    def checkpoint(path: Path, with_optimizer: bool = True) -> None:
        nonlocal saved
        save(path, learner.net, games=games_done, optimizer=learner.opt if with_optimizer else None,
             train_state={**source.state(), "seconds": elapsed_before + time.time() - start},
             args=dataclasses.asdict(args),
             made_by={"command": commands[0], "commands": commands, "games": games_done,
                      "seconds": round(elapsed_before + time.time() - start, 1)})
        if path == last:
            saved = games_done

    # Ctrl-C and SIGTERM (a scheduler stopping the job) end the run cleanly with a checkpoint, once the
    # update under way is learned (StopRequest); SIGINT is set explicitly because a shell starts
    # background jobs with it ignored.
    stop = StopRequest(tqdm.write).install()
    schedule = lr_schedule(args)
    start = time.time()
    next_ckpt = (games_done // args.checkpoint_every + 1) * args.checkpoint_every
    next_eval = (games_done // args.eval_every + 1) * args.eval_every if args.eval_every else None
    bar = tqdm(total=args.games, initial=min(games_done, args.games), unit="game", dynamic_ncols=True,
               disable=args.no_progress)
    interrupted, failed = False, None  # failed: the first checkpoint that could not be written
    try:
        while games_done < args.games and not stop.requested:
            if args.minutes and time.time() - start > args.minutes * 60:
                break
            rate_now = lr_at(schedule, games_done)  # a resumed run takes the rate asked for now
            for group in learner.opt.param_groups:
                group["lr"] = rate_now
            t0 = time.time()
            exp = source.collect(args.samples_per_update, args.games - games_done)
            t1 = time.time()
            if args.skip_exact:
                from model.net.bearoff import bearoff_mask

                net_rows = ~bearoff_mask(args.game, exp.positions)
                exp.positions, exp.targets = exp.positions[net_rows], exp.targets[net_rows]
            metrics = learner.update(exp.positions, exp.targets)
            source.set_weights(learner.weights())
            t2 = time.time()
            games_done += exp.games
            bar.update(min(games_done, args.games) - bar.n)  # the bar stops at its total
            rate = exp.games / (t2 - t0)
            bar.set_postfix(games_s=f"{rate:.0f}", loss=f"{metrics['loss']:.4f}")
            writer.add_scalar("losses/td_mse", metrics["loss"], games_done)
            writer.add_scalar("charts/learning_rate", rate_now, games_done)
            writer.add_scalar("charts/games_per_s", rate, games_done)
            writer.add_scalar("charts/play_seconds_share", (t1 - t0) / (t2 - t0), games_done)
            if exp.games:  # the mean length of the games that ended in this update, in plies
                writer.add_scalar("charts/mean_game_plies", exp.game_plies / exp.games, games_done)
            if len(exp.results):
                for k in range(1, 4):
                    writer.add_scalar(f"charts/result_{k}_rate", float(np.mean(exp.results == k)), games_done)
            writer.add_scalar("charts/cut_off_games", exp.cut_off, games_done)
            if args.actors:  # learner version minus the version each answer was played with
                writer.add_scalar("charts/weight_staleness", float(np.mean(source.staleness)), games_done)
                writer.add_scalar("charts/weight_staleness_max", max(source.staleness), games_done)
                writer.add_scalar("charts/actor_restarts", source.restarts, games_done)
            if games_done >= next_ckpt:
                checkpoint(last)
                checkpoint(snapshot_path(run_dir, games_done), with_optimizer=False)
                prune_snapshots(run_dir / "snapshots", args.keep_snapshots)
                next_ckpt = (games_done // args.checkpoint_every + 1) * args.checkpoint_every
                if args.no_progress:
                    print(f"{games_done}/{args.games} games, {rate:.0f} games/s, loss {metrics['loss']:.4f}, "
                          f"lr {rate_now:g}, {time.time() - start:.0f} s; wrote {last}", flush=True)
            if next_eval is not None and games_done >= next_eval and not stop.requested:
                for name, ppg, half in strength_check(learner.net, args.game, args.eval_games, args.seed):
                    writer.add_scalar(f"eval/ppg_vs_{name}", ppg, games_done)
                    tqdm.write(f"{games_done} games: {ppg:+.3f} +- {half:.3f} ppg vs {name}")
                if args.game == "backgammon":  # checker-play error rates on the stored benchmark
                    rates = benchmark_check(learner.net, device=device)
                    rates.pop("estimated")
                    for name, (rate, _) in rates.items():
                        writer.add_scalar(f"eval/benchmark_er_{name}", rate, games_done)
                    tqdm.write(f"{games_done} games: benchmark error rate " + ", ".join(
                        f"{name} {rate:.1f}" for name, (rate, _) in rates.items()))
                next_eval = (games_done // args.eval_every + 1) * args.eval_every
    except KeyboardInterrupt:
        interrupted = True
    except CheckpointWriteError as e:  # a full disk...: the run stops, last.pt as the last write left it
        failed = e
    finally:
        interrupted = interrupted or stop.requested
        bar.close()
        try:  # also after a failed write: it may have been a snapshot's, or there may be room again
            checkpoint(last)
        except CheckpointWriteError as e:
            failed = failed or e
        finally:
            if own_writer:
                writer.close()
            source.close()
            stop.restore()
    if args.out and not interrupted and not failed:
        try:
            checkpoint(Path(args.out), with_optimizer=False)
            print(f"wrote {args.out}")
        except CheckpointWriteError as e:
            failed = e
    if failed:
        held = (f"{last} holds the run at {saved} games (--resume goes on from there)" if saved is not None
                else "nothing of this run is saved")
        print(f"{PROG} train: error: cannot write {failed.filename}: {failed.strerror}; {held}", file=sys.stderr)
        return 1
    print(f"{games_done} games, {time.time() - start:.0f} s this run; last checkpoint {last}")
    return 130 if interrupted else 0
