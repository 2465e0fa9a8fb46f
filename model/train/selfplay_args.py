"""The settings of a TD self-play run (``nardibot train`` with flags; model/train/selfplay.py runs it):
``Args``, a flag each, and their check; the learning-rate schedule by games played; and the settings
a resumed run trains on, its own from last.pt with the flags given now written over them.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
from dataclasses import dataclass

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
    threads: int = option(0, help="torch CPU threads (0 = all cores, less one a core for each of --actors "
                                  "on a Ray started here)")
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
    if not args.lr > 0:  # nan too
        return f"--lr must be a positive number, got {args.lr:g}"
    if not 0 <= args.explore <= 1:
        return f"--explore is a chance, 0..1, got {args.explore:g}"
    if not args.minutes >= 0:
        return f"--minutes must be 0 (no limit) or more, got {args.minutes:g}"
    if args.eval_every < 0:
        return f"--eval-every must be 0 (never) or more, got {args.eval_every}"
    if args.eval_games < 2 or args.eval_games % 2:
        return f"--eval-games must be a positive even number (every dice stream is played twice), got {args.eval_games}"
    if args.seed < 0:
        return f"--seed must be 0 or more, got {args.seed}"
    if args.threads < 0:
        return f"--threads must be 0 (all cores) or more, got {args.threads}"
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
