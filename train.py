"""Train a backgammon or long-nardi network from scratch by TD(lambda) self-play.

    python train.py --game backgammon --games 300000 --run-dir runs/bg --out checkpoints/backgammon.pt
    python train.py --game backgammon --run-dir runs/bg --resume        # continue a stopped run

Every --checkpoint-every games the run writes <run-dir>/last.pt atomically (kill it at any moment:
--resume continues from there) and a small snapshot under <run-dir>/snapshots/ for the strength
curve. TensorBoard logs go to <run-dir>/tb (charts/, losses/, eval/). At the end the weights are
written to --out, without the optimizer state, ready to ship.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass
class Args:
    game: str = "backgammon"
    """the game to learn: backgammon or nardi"""
    games: int = 100_000
    """stop after this many self-play games in all (counting those of resumed runs)"""
    minutes: float = 0.0
    """also stop after this many minutes of this invocation (0 = no limit)"""
    run_dir: str = ""
    """folder for last.pt, snapshots and TensorBoard logs (default runs/<game>__<seed>__<time>)"""
    out: str = ""
    """where to write the final weights (e.g. checkpoints/backgammon.pt); empty = only the run dir"""
    resume: bool = False
    """continue the run in --run-dir from its last.pt"""
    hidden: str = "128"
    """hidden layer widths, comma separated (e.g. 128 or 256,128); a resumed run keeps its own"""
    lam: float = 0.7
    """TD lambda"""
    lr: float = 1e-3
    """Adam learning rate"""
    lr_schedule: str = ""
    """piecewise-constant learning rate by games played, e.g. 0:1e-3,150000:3e-4,320000:1e-4 (overrides --lr)"""
    parallel_games: int = 256
    """games played side by side in one batch by the actor"""
    samples_per_update: int = 16_384
    """positions collected from finished games before each learning pass"""
    batch_size: int = 1024
    """minibatch size of the learning step"""
    explore: float = 0.0
    """chance of a random play instead of the greedy one"""
    exact_endgames: bool = False
    """the actor plays and values bear-off positions from the exact databases (so their targets are exact)"""
    checkpoint_every: int = 10_000
    """games between checkpoints (last.pt and a snapshot)"""
    eval_every: int = 20_000
    """games between strength checks against the baselines (0 = never)"""
    eval_games: int = 400
    """mirrored games per strength check and opponent"""
    seed: int = 1
    """seed for dice and weights: the same seed gives the same run"""
    device: str = "auto"
    """cpu, cuda, or auto (cuda when available)"""
    threads: int = 0
    """torch CPU threads (0 = all cores)"""


def parse_args(argv: list[str]) -> Args:
    """Build argparse from the Args dataclass: the field docstrings are the --help texts."""
    import ast
    import inspect

    docs: dict[str, str] = {}
    tree = ast.parse(inspect.getsource(Args))
    body = tree.body[0].body
    for node, nxt in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr):
            docs[node.target.id] = str(nxt.value.value)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, action="store_true", help=docs.get(f.name))
        else:
            typ = {"int": int, "float": float, "str": str}[str(f.type)]
            parser.add_argument(flag, type=typ, default=f.default, help=docs.get(f.name))
    ns = parser.parse_args(argv)
    args = Args(**vars(ns))
    if args.game not in ("backgammon", "nardi"):
        parser.error(f"--game must be backgammon or nardi, not {args.game!r}")
    if args.resume and not args.run_dir:
        parser.error("--resume needs --run-dir (the run to continue)")
    try:
        hidden = [int(h) for h in args.hidden.split(",")]
        assert hidden and all(h > 0 for h in hidden)
    except (ValueError, AssertionError):
        parser.error(f"--hidden must be positive integers separated by commas, not {args.hidden!r}")
    for name in ("games", "parallel_games", "samples_per_update", "batch_size", "checkpoint_every"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be positive")
    if not 0 <= args.lam <= 1:
        parser.error("--lam must be within 0..1")
    try:
        lr_schedule(args)
    except ValueError as e:
        parser.error(f"--lr-schedule: {e}")
    return args


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


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from model.net.checkpoint import CheckpointError, load_net, save
    from model.net.network import NetConfig, OutcomeNet
    from model.train.td import SelfPlayActor, TDLearner
    from model.train.evaluation import strength_check

    device = "cuda" if args.device == "auto" and torch.cuda.is_available() else args.device
    if device == "auto":
        device = "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        print("error: --device cuda but no CUDA device is available", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads or os.cpu_count() or 1)
    run_dir = Path(args.run_dir or f"runs/{args.game}__{args.seed}__{time.strftime('%Y%m%d-%H%M%S')}")
    last = run_dir / "last.pt"

    torch.manual_seed(args.seed)
    games_done, train_state, optimizer_state, previous_made_by = 0, None, None, {}
    if args.resume:
        try:
            net, blob = load_net(last, args.game, device, backend="torch")
        except CheckpointError as e:
            print(f"error: cannot resume: {e}", file=sys.stderr)
            return 2
        games_done, train_state, optimizer_state = blob["games"], blob["train_state"], blob["optimizer"]
        previous_made_by = blob.get("made_by") or {}
        if "commands" not in previous_made_by and "command" in previous_made_by:
            previous_made_by = {"commands": [previous_made_by["command"]]}
        print(f"resuming {run_dir} at {games_done} games")
    else:
        if last.exists():
            print(f"error: {last} exists; pass --resume to continue it or choose another --run-dir",
                  file=sys.stderr)
            return 2
        net = OutcomeNet(NetConfig(args.game, tuple(int(h) for h in args.hidden.split(",")))).to(device)

    learner = TDLearner(net, lr=args.lr, batch_size=args.batch_size, device=device, seed=args.seed)
    if optimizer_state:
        learner.opt.load_state_dict(optimizer_state)
    actor = SelfPlayActor(net, games=args.parallel_games, lam=args.lam, seed=args.seed + games_done,
                          device=device, explore=args.explore, exact_endgames=args.exact_endgames)
    if train_state and "actor_rng" in train_state:
        actor.rng.bit_generator.state = json.loads(train_state["actor_rng"])
    elapsed_before = float(train_state.get("seconds", 0.0)) if train_state else 0.0

    writer = SummaryWriter(str(run_dir / "tb"))
    if not args.resume:
        writer.add_text("args", json.dumps(dataclasses.asdict(args), indent=1))
    # every invocation that trained this run, oldest first (a resumed run keeps the earlier ones)
    commands = list(previous_made_by.get("commands", [])) + ["python train.py " + " ".join(argv)]

    def checkpoint(path: Path, with_optimizer: bool = True) -> None:
        save(path, learner.net, games=games_done, optimizer=learner.opt if with_optimizer else None,
             train_state={"actor_rng": json.dumps(actor.rng.bit_generator.state),
                          "seconds": elapsed_before + time.time() - start},
             args=dataclasses.asdict(args),
             made_by={"command": commands[0], "commands": commands, "games": games_done,
                      "seconds": round(elapsed_before + time.time() - start, 1)})

    # Ctrl-C and SIGTERM (a scheduler stopping the job) end the run cleanly with a checkpoint; SIGINT
    # is set explicitly because a shell starts background jobs with it ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    schedule = lr_schedule(args)
    start = time.time()
    next_ckpt = (games_done // args.checkpoint_every + 1) * args.checkpoint_every
    next_eval = (games_done // args.eval_every + 1) * args.eval_every if args.eval_every else None
    bar = tqdm(total=args.games, initial=games_done, unit="game", dynamic_ncols=True)
    interrupted = False
    try:
        while games_done < args.games:
            if args.minutes and time.time() - start > args.minutes * 60:
                break
            rate_now = lr_at(schedule, games_done)  # a resumed run takes the rate asked for now
            for group in learner.opt.param_groups:
                group["lr"] = rate_now
            t0 = time.time()
            exp = actor.play(args.samples_per_update)
            t1 = time.time()
            metrics = learner.update(exp.positions, exp.targets)
            actor.set_weights(learner.weights())
            t2 = time.time()
            games_done += exp.games
            bar.update(exp.games)
            rate = exp.games / (t2 - t0)
            bar.set_postfix(games_s=f"{rate:.0f}", loss=f"{metrics['loss']:.4f}")
            writer.add_scalar("losses/td_mse", metrics["loss"], games_done)
            writer.add_scalar("charts/learning_rate", rate_now, games_done)
            writer.add_scalar("charts/games_per_s", rate, games_done)
            writer.add_scalar("charts/play_seconds_share", (t1 - t0) / (t2 - t0), games_done)
            writer.add_scalar("charts/plies_per_game", exp.plies / max(exp.games, 1), games_done)
            if len(exp.results):
                for k in range(1, 4):
                    writer.add_scalar(f"charts/result_{k}_rate", float(np.mean(exp.results == k)), games_done)
            writer.add_scalar("charts/cut_off_games", exp.cut_off, games_done)
            if games_done >= next_ckpt:
                checkpoint(last)
                checkpoint(run_dir / "snapshots" / f"games_{games_done:09d}.pt", with_optimizer=False)
                next_ckpt = (games_done // args.checkpoint_every + 1) * args.checkpoint_every
            if next_eval is not None and games_done >= next_eval:
                for name, ppg, half in strength_check(learner.net, args.game, args.eval_games, args.seed):
                    writer.add_scalar(f"eval/ppg_vs_{name}", ppg, games_done)
                    tqdm.write(f"{games_done} games: {ppg:+.3f} +- {half:.3f} ppg vs {name}")
                next_eval = (games_done // args.eval_every + 1) * args.eval_every
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
        checkpoint(last)
        writer.close()
    if args.out and not interrupted:
        checkpoint(Path(args.out), with_optimizer=False)
        print(f"wrote {args.out}")
    print(f"{games_done} games, {time.time() - start:.0f} s this run; last checkpoint {last}")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
