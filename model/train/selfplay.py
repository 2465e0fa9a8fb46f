"""Train a backgammon or long-nardi network from scratch by TD(lambda) self-play.

    nardibot train --game backgammon --games 300000 --run-dir runs/bg --out checkpoints/backgammon.safetensors
    nardibot train --run-dir runs/bg --resume                          # continue a stopped run
    nardibot train --game backgammon --games 300000 --run-dir runs/bg --actors 2   # self-play on Ray

``python train.py ARGS`` (the checkout's entry point) is the same command: the same parser and ``main``.

A resumed run keeps its own settings (game, --games, network, learning-rate schedule, lambda, batch
sizes, seed...) as its latest invocation left them in last.pt; a flag given with --resume changes one
from then on, and the run says in one line which it kept and which it changed. --minutes, --out,
--device, --threads, --no-progress, --actors, --ray-address and --actor-gpus belong to the invocation
and are never taken from the run.

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.tools.cli import UsageError, dataclass_parser, option
from model.net.features import check_version

PROG = "nardibot"
"""The command this run is started by (``nardibot train``), for its messages and recorded commands."""


@dataclass
class Args:
    """Settings of a training run: one flag each (``--run-dir`` for run_dir...)."""

    game: str = option("backgammon", help="the game to learn: backgammon or nardi")
    games: int = option(100_000, help="stop after this many self-play games in all (counting those of "
                                      "resumed runs): at the first ply on which that many have ended, so "
                                      "past it only by games that end on that same ply (a few at most)")
    minutes: float = option(0.0, help="also stop after this many minutes of this invocation (0 = no limit)")
    run_dir: str = option("", help="folder for last.pt, snapshots and TensorBoard logs "
                                   "(default runs/<game>__<seed>__<time>)")
    out: str = option("", help="where to write the final weights: X.safetensors (for play, read without "
                               "torch) or X.pt; empty = only the run dir")
    resume: bool = option(False, help="continue the run in --run-dir from its last.pt, with the run's own "
                                      "settings except the flags given now")
    hidden: str = option("128", help="hidden layer widths, comma separated (e.g. 128 or 256,128); "
                                     "a resumed run keeps its own")
    features: int = option(0, help="input encoding of a new network: 0 = the game's default; nardi 1 or 2 "
                                   "(long-nardi inputs, the default); backgammon 2 (TD-Gammon units and "
                                   "summaries), 3 (gnubg-style inputs, the default) or 4 (race inputs only: "
                                   "a race net, scripts/train_race.py); a resumed run keeps its own")
    lam: float = option(0.7, help="TD lambda")
    lr: float = option(1e-3, help="Adam learning rate")
    lr_schedule: str = option("", help="piecewise-constant learning rate by games played, "
                                       "e.g. 0:1e-3,150000:3e-4,320000:1e-4 (overrides --lr)")
    parallel_games: int = option(256, help="games played side by side in one batch by the actor")
    samples_per_update: int = option(16_384, help="positions collected from finished games "
                                                  "before each learning pass")
    batch_size: int = option(1024, help="minibatch size of the learning step")
    explore: float = option(0.0, help="chance of a random play instead of the greedy one")
    exact_endgames: bool = option(False, help="the actor plays and values bear-off positions from the exact "
                                              "databases (so their targets are exact)")
    target: str = option("sample", help="what a position's value is pulled toward: sample (TD: the next "
                                        "position the dice gave) or one-ply (the expectation over all 21 "
                                        "rolls of the next side's best play; about 3.5x fewer plies per CPU-second)")
    target_prune: int = option(3, help="one-ply backgammon: score each roll's K best plays by pubeval "
                                       "with the network (0 = every play); 3 misses the net's own best play "
                                       "on one contact roll in six, 8 on one in twenty at about twice the "
                                       "cost (scripts/target_filter.py)")
    play_prune: int = option(0, help="sample target, backgammon: the network scores only the K plays of each "
                                     "roll that pubeval ranks highest and the actor plays the best of them "
                                     "(0 = every play); 8 plays about 1.6x as many plies per CPU-second and "
                                     "another play than the net's own best on one roll in thirty "
                                     "(docs/training.md, \"Pruned self-play\")")
    starts: str = option("", help="a .npy file of start positions (N, 28) int8, each seen by its side on "
                                  "roll: every game starts from one drawn at random instead of the opening "
                                  "(a race net's races: scripts/train_race.py); not with --actors")
    skip_exact: bool = option(False, help="with --exact-endgames: leave the positions the databases answer "
                                          "(bear-offs) out of the learner's samples, since the net never "
                                          "answers them in play")
    checkpoint_every: int = option(10_000, help="games between checkpoints (last.pt and a snapshot)")
    keep_snapshots: int = option(5, help="snapshots kept under <run-dir>/snapshots: the latest N (0 = every "
                                         "one, for scripts/strength_curve.py); a run resumed from a last.pt "
                                         "written before this setting existed keeps every one")
    eval_every: int = option(20_000, help="games between strength checks against the baselines (0 = never)")
    eval_games: int = option(400, help="mirrored games per strength check and opponent")
    seed: int = option(1, help="seed for dice and weights: the same seed gives the same run")
    device: str = option("auto", help="cpu, cuda, or auto (cuda when available)")
    threads: int = option(0, help="torch CPU threads (0 = all cores)")
    actors: int = option(0, help="self-play actors as Ray actors in their own processes, the learner in this "
                                 "one (0 = the actor plays in this process, no Ray; needs the [ray] extra)")
    ray_address: str = option("", help="with --actors: join the running Ray cluster at HOST:PORT or 'auto' "
                                       "(default: start Ray on this machine with its cores)")
    actor_gpus: float = option(0.0, help="with --actors: GPUs each actor asks Ray for, its network then on "
                                         "CUDA (fractions share a GPU; untested on a GPU)")
    no_progress: bool = option(False, help="no progress bar: a plain line at each checkpoint instead "
                                           "(for logs)")


# What belongs to one invocation rather than to the run: a resumed run never takes these from its last.pt.
PER_INVOCATION = ("minutes", "run_dir", "out", "resume", "device", "threads", "no_progress", "actors",
                  "ray_address", "actor_gpus")
RUN_SETTINGS = tuple(f.name for f in dataclasses.fields(Args) if f.name not in PER_INVOCATION)


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


def check(args: Args) -> str | None:
    """What is wrong with these settings, or None."""
    if args.game not in ("backgammon", "nardi"):
        return f"--game must be backgammon or nardi, not {args.game!r}"
    try:
        hidden = [int(h) for h in args.hidden.split(",")]
        assert hidden and all(h > 0 for h in hidden)
    except (ValueError, AssertionError):
        return f"--hidden must be positive integers separated by commas, not {args.hidden!r}"
    for name in ("games", "parallel_games", "samples_per_update", "batch_size", "checkpoint_every"):
        if getattr(args, name) <= 0:
            return f"--{name.replace('_', '-')} must be positive"
    if args.target not in ("sample", "one-ply"):
        return f"--target must be sample or one-ply, not {args.target!r}"
    if args.keep_snapshots < 0:
        return "--keep-snapshots must be 0 (keep every snapshot) or more"
    if args.target_prune < 0 or args.play_prune < 0:
        return "--target-prune and --play-prune must be 0 or more"
    if args.play_prune and (args.target != "sample" or args.game != "backgammon"):
        return "--play-prune is for backgammon with --target sample (the one-ply target prunes by --target-prune)"
    if not 0 <= args.lam <= 1:
        return "--lam must be within 0..1"
    if args.actors < 0 or args.actor_gpus < 0:
        return "--actors and --actor-gpus must be >= 0"
    if (args.ray_address or args.actor_gpus) and not args.actors:
        return "--ray-address and --actor-gpus go with --actors N (N > 0)"
    if args.starts and args.actors:
        return "--starts is for the actor of this process: not with --actors"
    if args.skip_exact and not args.exact_endgames:
        return "--skip-exact goes with --exact-endgames"
    if args.features:
        try:
            check_version(args.game, args.features)
        except ValueError as e:
            return f"--features: {e}"
    try:
        lr_schedule(args)
    except ValueError as e:
        return f"--lr-schedule: {e}"
    return None


def given_flags(argv: list[str]) -> dict:
    """{field: value} of the flags written on the command line ``argv``, without the defaults. Flags this
    code does not know are skipped (a command recorded by an older train.py); argparse.ArgumentError
    for a value it cannot read."""
    parser = dataclass_parser(Args, exit_on_error=False)
    for action in parser._actions:
        action.default = argparse.SUPPRESS
    namespace, _ = parser.parse_known_args(argv)
    return vars(namespace)


def apply_flags(settings: dict, given: dict) -> dict:
    """The run settings ``settings`` with the flags ``given`` written over them. --lr without
    --lr-schedule asks for a constant rate, so it drops the schedule (which would win over it)."""
    out = {**settings, **{k: v for k, v in given.items() if k in RUN_SETTINGS}}
    if "lr" in given and "lr_schedule" not in given:
        out["lr_schedule"] = ""
    return out


def run_settings(blob: dict) -> dict:
    """The run's own settings, from a checkpoint written by train.py: the args it stored, then the flags
    of every train command it records (``python train.py ...`` or ``nardibot train ...``), replayed in
    order. For a checkpoint of this code the replay
    changes nothing; for one written by a resume that dropped the flags it was not given again (as
    resumes did before they kept the run's settings), it gives them back. Settings the checkpoint does
    not know take this code's defaults; the game and the network's shape come from the checkpoint."""
    stored = blob.get("args") or {}
    settings = {name: stored.get(name, getattr(Args, name)) for name in RUN_SETTINGS}
    if "keep_snapshots" not in stored:  # a run from before the setting: it deletes none of its snapshots
        settings["keep_snapshots"] = 0
    made_by = blob.get("made_by") or {}
    for command in made_by.get("commands") or [made_by.get("command") or ""]:
        try:
            words = shlex.split(command)
        except ValueError:  # recorded unquoted by an older train.py
            words = command.split()
        start = _flags_start(words)
        if start is None:
            continue
        try:
            settings = apply_flags(settings, given_flags(words[start:]))
        except argparse.ArgumentError:
            continue  # a command this code cannot read: the stored args stand
    settings["game"] = blob["game"]
    settings["hidden"] = ",".join(str(h) for h in blob["net_config"]["hidden"])
    return settings


def _flags_start(words: list[str]) -> int | None:
    """Where the flags begin in a recorded train command's words (after ``train.py``, or after ``train``
    following ``nardibot``); None for a command that is not one."""
    for i, word in enumerate(words):
        if word.endswith("train.py") or (word == "train" and i and words[i - 1].endswith(PROG)):
            return i + 1
    return None


def _describe(name: str, settings: dict) -> str:
    """One setting as its flag; the learning rate as the one of --lr and --lr-schedule in force."""
    if name == "lr" and settings["lr_schedule"]:
        name = "lr_schedule"
    return f"--{name.replace('_', '-')} {shlex.quote(str(settings[name]))}"  # quoted: an empty --starts shows as ''


def resume_args(args: Args, argv: list[str], blob: dict) -> tuple[Args, str]:
    """The settings of a resumed run (the run's own, except the flags written in ``argv``) and the line
    that says which were kept and which changed; UsageError for a flag that cannot change (--game,
    --hidden) or settings that do not check."""
    own = run_settings(blob)
    given = given_flags(argv)
    if "game" in given and given["game"] != own["game"]:
        raise UsageError(f"{args.run_dir} is a {own['game']} run, not {given['game']}")
    if "hidden" in given and given["hidden"].replace(" ", "") != own["hidden"]:
        raise UsageError(f"--hidden {given['hidden']} does not fit the run in {args.run_dir}, whose network "
                         f"has --hidden {own['hidden']} (a resumed run keeps its own)")
    merged = apply_flags(own, given)
    kept, changed = [], []
    for name in RUN_SETTINGS:
        if name == "lr_schedule":
            continue  # told with --lr
        now, was = _describe(name, merged), _describe(name, own)
        if now == was:
            kept.append(now)
        else:
            changed.append(f"{now} (was {was.split(' ', 1)[1] if now.split()[0] == was.split()[0] else was})")
    args = dataclasses.replace(args, **merged)
    problem = check(args)
    if problem:
        raise UsageError(f"cannot resume {args.run_dir} with these settings: {problem}")
    line = f"kept the run's {' '.join(kept)}" + (f"; changed {', '.join(changed)}" if changed else "")
    return args, line


def lr_schedule(args: Args) -> list[tuple[int, float]]:
    """[(from_games, lr), ...] sorted; just [(0, --lr)] without --lr-schedule. ValueError if malformed."""
    if not args.lr_schedule:
        return [(0, args.lr)]
    steps = []
    for part in args.lr_schedule.split(","):
        games, _, lr = part.partition(":")
        try:
            steps.append((int(games), float(lr)))
        except ValueError:
            raise ValueError(f"expected games:rate pairs separated by commas, got {part!r}") from None
    steps.sort()
    if steps[0][0] != 0 or any(lr <= 0 for _, lr in steps):
        raise ValueError("the first pair must start at 0 games and every rate must be positive")
    return steps


def lr_at(schedule: list[tuple[int, float]], games: int) -> float:
    """The learning rate in force after ``games`` games."""
    return [lr for start, lr in schedule if start <= games][-1]


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
    from model.net.device import choose_device
    from model.net.network import NetConfig, OutcomeNet
    from model.train.actors import ActorsError, LocalActor, RayActors
    from model.train.evaluation import benchmark_check, strength_check
    from model.train.snapshots import prune_snapshots, snapshot_path
    from model.train.td import SelfPlayActor, TDLearner

    try:
        device = choose_device(args.device, args.threads)
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
        print(f"{args.actors} self-play actors on Ray (pids {' '.join(map(str, source.pids))})", flush=True)
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

    # Ctrl-C and SIGTERM (a scheduler stopping the job) end the run cleanly with a checkpoint; SIGINT
    # is set explicitly because a shell starts background jobs with it ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    schedule = lr_schedule(args)
    start = time.time()
    next_ckpt = (games_done // args.checkpoint_every + 1) * args.checkpoint_every
    next_eval = (games_done // args.eval_every + 1) * args.eval_every if args.eval_every else None
    bar = tqdm(total=args.games, initial=min(games_done, args.games), unit="game", dynamic_ncols=True,
               disable=args.no_progress)
    interrupted, failed = False, None  # failed: the first checkpoint that could not be written
    try:
        while games_done < args.games:
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
            if next_eval is not None and games_done >= next_eval:
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
        bar.close()
        try:  # also after a failed write: it may have been a snapshot's, or there may be room again
            checkpoint(last)
        except CheckpointWriteError as e:
            failed = failed or e
        if own_writer:
            writer.close()
        source.close()
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
