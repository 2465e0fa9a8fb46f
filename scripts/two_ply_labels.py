"""Label self-play positions with the net's own two-ply look-ahead, in chunks on disk (a resumable job).

    python scripts/two_ply_labels.py experiments/resume/backgammon-v3-prune8/last.pt runs/labels --positions 100000

Positions come from the net's own self-play (the one-ply actor of model/train/td.py, every game of
``--parallel-games`` played greedily among each roll's ``--prune`` best plays by pubeval), a random
``1/--every`` of the positions on roll at each ply, bear-offs left out (the databases answer those
exactly). Each is labelled with

    V2(x) = sum over rolls r of weight(r) * flip( V1(best play of r from x) )

where V1 is the one-ply expectation and every "best play" is the best by the net at 0-ply among
pubeval's ``--prune`` best of that roll (0: among every play): model/search/lookahead.py's
``evaluate_positions(..., 2, prune=K)``, the two-ply value of gnubg-style look-ahead, with bear-offs
from the exact databases. Pruned to 8 it runs about 4 times
faster than over every play (21 against 5 positions per CPU-second with the 256-hidden
feature-version-3 net) and differs from it by 0.003 in cubeless equity on average.

Output: ``OUT/chunk_NNNNN.npz`` files of ``--chunk`` positions each (``positions`` (n, 28) int8, the side
on roll's view; ``targets`` (n, K) float32, that side's outcome probabilities; ``games`` and ``prune``),
written atomically. Run it again with the same OUT to go on: it counts the chunks there and draws the
next ones from seeds that follow (chunk i uses ``--seed`` + i), so the labels are the same however the
job was cut. Backgammon and nardi (nardi has no pubeval filter: every play, slow). ``--plies 1``
labels with the one-ply value instead (the look-ahead about 50 times faster; with the self-play that
finds the positions, ``--siblings 4 --warmup 120 --every 8 --actor sample``: 340 against 25 labels per
CPU-second; 2-ply 33 since TableForward scores large batches in blocks).

Each chunk's games start together from the opening, so without ``--warmup`` a chunk holds
positions of the first plies only (``--siblings 4`` fills 2,000 labels within about 20 plies of
128 games: no crashed positions, 1% races). ``--warmup W`` plays W plies first (games that end are
dealt again, so by then they are spread over every stage of a game) and ``--every`` larger spreads
the sampling wider.

``--teacher-also NET [NET ...]``: the labels are the look-ahead of an ensemble, the mean of the
checkpoint's and these nets' outcome probabilities (model/net/ensemble.py), instead of the checkpoint's
own; the self-play and the candidate plays stay the checkpoint's. With ``--plies 0`` a label is the
ensemble's own value: two independently trained nets together play better than either, so they
teach it what its own look-ahead does not (experiments/nardi.md, "Session 24").

``--siblings K``: instead of the sampled position itself, label the candidate plays of one random
roll from it, the net's K best at 0-ply within ``--margin`` of its best (lookahead.move_filter), each
as the position after the play with the opponent on roll. The net picks a play by comparing exactly
such siblings, so these are the positions where its 0-ply errors cost equity; a position with one
candidate gives one label. The chunks then also hold ``parents`` (m, 28) and ``dice`` (m, 2), the
sampled positions and their rolls, and ``group`` (n,), the row of ``parents`` each label's play came from.
"""

from __future__ import annotations

import argparse
import sys
from itertools import pairwise
from pathlib import Path

LOOK = 64
"""Positions per look-ahead call: at 2-ply each brings some 3,500 children to score, so 64 keep the
batches at a few hundred thousand rows (256: 12% more CPU, the temporaries outgrowing memory reuse)."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="the net to label with and to play the games (.pt or .safetensors)")
    parser.add_argument("out", help="folder of the label chunks (created; an existing one is continued)")
    parser.add_argument("--positions", type=int, default=100_000, help="positions wanted in all (default 100000)")
    parser.add_argument("--chunk", type=int, default=2_000, help="positions per chunk file (default 2000)")
    parser.add_argument("--prune", type=int, default=8, help="pubeval's K best plays a roll (0 = every play)")
    parser.add_argument("--every", type=int, default=4, help="keep one position on roll in this many (default 4)")
    parser.add_argument("--plies", type=int, default=2, help="look-ahead depth of the labels (default 2)")
    parser.add_argument("--teacher-also", nargs="+", default=[], metavar="NET",
                        help="label with the mean of the checkpoint's and these nets' probabilities (an ensemble)")
    parser.add_argument("--siblings", type=int, default=0,
                        help="label the K best candidate plays of a random roll instead of the position (0: off)")
    parser.add_argument("--margin", type=float, default=0.16,
                        help="with --siblings: candidates within this equity of the net's best (default 0.16)")
    parser.add_argument("--warmup", type=int, default=0,
                        help="plies each chunk's games play before positions are taken (default 0)")
    parser.add_argument("--actor", choices=("one-ply", "sample"), default="one-ply",
                        help="the self-play actor's target mode; both play greedily at 0-ply, 'one-ply' among "
                             "pubeval's --prune best plays, 'sample' among every play, 4 times faster")
    parser.add_argument("--parallel-games", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    import model.runtime  # noqa: F401, I001  one BLAS thread, before numpy loads
    import numpy as np
    from tqdm import tqdm

    from engine.tools.cli import UsageError, run_main
    from engine.board import CHECKERS, OFF, flip
    from engine.movegen import legal_plays
    from model.net.bearoff import bearoff_mask
    from model.net.equity import cubeless_equity
    from model.net.checkpoint import load_net
    from model.net.ensemble import MeanNet
    from model.net.evaluator import ExactEndgames
    from model.net.table_forward import TableForward
    from model.net.evaluator import child_probabilities
    from model.search.lookahead import evaluate_positions, move_filter
    from model.train.labels import write_chunk
    from model.train.td import SelfPlayActor

    def siblings(evaluator, pos, dice):
        """(positions, parent): the positions after the net's best candidate plays of ``dice`` from
        each of ``pos`` (move_filter on 0-ply cubeless equity), opponent on roll, finished games and
        bear-offs left out; ``parent`` indexes ``pos``."""
        game = evaluator.config.game
        children, parent = legal_plays(game, pos, dice)
        util = cubeless_equity(game, child_probabilities(evaluator, children))
        starts = np.searchsorted(parent, np.arange(len(pos) + 1))
        keep = np.concatenate([a + move_filter(util[a:b], args.siblings, args.margin)
                               for a, b in pairwise(starts) if b > a])
        out = flip(game, children[keep])
        alive = (children[keep][:, OFF] < CHECKERS) & ~bearoff_mask(game, out)
        return out[alive], parent[keep][alive]

    def run(_argv) -> int:
        for name in ("positions", "chunk", "every", "parallel_games"):
            if getattr(args, name) <= 0:
                raise UsageError(f"--{name.replace('_', '-')} must be positive")
        if min(args.siblings, args.margin, args.plies, args.warmup) < 0:
            raise UsageError("--plies, --siblings, --margin and --warmup must be 0 or more")
        if args.prune < 0:
            raise UsageError("--prune must be 0 or more")
        try:
            net, _ = load_net(args.checkpoint)
        except (OSError, ValueError) as err:
            raise UsageError(f"cannot load {args.checkpoint}: {err}") from err
        game = net.config.game
        others = []  # the ensemble's other nets (--teacher-also), their forward passes built once
        for path in args.teacher_also:
            try:
                other, _ = load_net(path, game)
            except (OSError, ValueError) as err:
                raise UsageError(f"cannot load {path}: {err}") from err
            if other.config.outputs != net.config.outputs:
                raise UsageError(f"{path} gives {other.config.outputs} outcomes, "
                                 f"{args.checkpoint} {net.config.outputs}")
            others.append(TableForward(other))
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        chunks = -(-args.positions // args.chunk)
        done = len(list(out.glob("chunk_*.npz")))
        bar = tqdm(total=chunks * args.chunk, initial=done * args.chunk, unit="pos", desc=f"{args.plies}-ply labels")
        for i in range(done, chunks):
            actor = SelfPlayActor(net, games=args.parallel_games, lam=0.0, seed=args.seed + i, target=args.actor,
                                  prune=args.prune, exact_endgames=True)
            teacher = actor.evaluator
            if others:
                teacher = ExactEndgames(MeanNet([actor.forward, *others]))
            rng = np.random.default_rng(args.seed + i)
            got, count, games = [], 0, 0
            family = {"parents": [], "dice": [], "group": []}  # --siblings: where each label came from
            for _ in range(args.warmup):
                _, ended, _ = actor.table.end_turn(np.arange(actor.n), actor._step())
                if ended.any():
                    actor.table.deal(np.flatnonzero(ended))
            while count < args.chunk:
                pos = actor.table.pos
                keep = (rng.random(len(pos)) < 1.0 / args.every) & ~bearoff_mask(game, pos)
                picked = pos[keep].copy()
                if args.siblings and keep.any():
                    dice = rng.integers(1, 7, size=(len(picked), 2))
                    picked, parent = siblings(actor.evaluator, picked, dice)
                    family["group"].append(parent + sum(len(p) for p in family["parents"]))
                    family["parents"].append(pos[keep].copy())
                    family["dice"].append(dice)
                got.append(picked)
                count += len(picked)
                _, ended, _ = actor.table.end_turn(np.arange(actor.n), actor._step())
                games += int(ended.sum())
                if ended.any():
                    actor.table.deal(np.flatnonzero(ended))
            pos = np.concatenate(got)[: args.chunk]
            targets = np.concatenate([evaluate_positions(teacher, pos[s : s + LOOK], args.plies,
                                                          prune=args.prune)
                                      for s in range(0, len(pos), LOOK)]).astype(np.float32)
            extra = {}
            if args.siblings:
                extra = {name: np.concatenate(family[name]) for name in family}
                extra["group"] = extra["group"][: len(pos)]
            if others:
                extra["teacher_also"] = np.array([str(p) for p in args.teacher_also])
            write_chunk(out / f"chunk_{i:05d}.npz", positions=pos, targets=targets, games=games, prune=args.prune,
                  siblings=args.siblings, plies=args.plies,
                  warmup=args.warmup, actor=args.actor, **extra)
            bar.update(len(pos))
        bar.close()
        print(f"{out}: {chunks} chunks of {args.chunk} positions")
        return 0

    return run_main("two_ply_labels.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
