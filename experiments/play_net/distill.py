"""Distil the shipped backgammon net into a smaller one for play (an experiment; see README.md here).

    python experiments/play_net/distill.py OUT.safetensors --labels DIR [DIR ...] [--hidden 128]
        [--epochs 16] [--lr 1e-3] [--batch-size 256] [--rank-weight 3] [--holdout 0.02] [--seed 1]

The positions are those of label stages of a recipe run (model/train/labels.py's chunks: the
candidate plays of one roll, each as the position after the play with the opponent on roll, in
families). Their labels here are the teacher's own 0-ply probabilities (``--teacher``, default the
shipped net), not the chunks' look-ahead values: the student learns the teacher's evaluation, so
the question answered is how much of the teacher a smaller net keeps. The student (backgammon
feature version 3, ``--hidden`` widths, random weights) is fitted by the TD learner's loss with the
ranking term on the families (model/train/td.py ``TDLearner.update``, as a recipe's fit stage).
Held-out families (the last ``--holdout`` of each folder's chunks) are scored after every epoch:
squared error against the teacher and the choice error (x 1000: the teacher's equity lost by
playing the student's pick instead of the teacher's).
"""

from __future__ import annotations

import model.runtime  # noqa: F401  (first: one BLAS thread)

# isort: split
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--labels", nargs="+", required=True, help="folders of label chunks")
    parser.add_argument("--teacher", default="checkpoints/backgammon.safetensors")
    parser.add_argument("--hidden", type=int, nargs="+", default=[128])
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--rank-weight", type=float, default=3.0)
    parser.add_argument("--holdout", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    import torch

    from model.net.checkpoint import load_net, save
    from model.net.config import NetConfig
    from model.net.network import OutcomeNet
    from model.train.labels import choice_losses, read_chunk
    from model.train.td import TDLearner

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    fit_parts, held_parts = [], []
    for folder in args.labels:
        files = sorted(Path(folder).glob("chunk_*.npz"))
        held = max(1, round(len(files) * args.holdout))
        parts = [read_chunk(f) for f in files]
        fit_parts += parts[:-held]
        held_parts += parts[-held:]

    def stack(parts):
        positions = np.concatenate([p["positions"] for p in parts])
        ids, start = [], 0
        for p in parts:
            ids.append(start + p["group"])
            start = int(ids[-1].max()) + 1
        return positions, np.concatenate(ids)

    train_pos, train_fam = stack(fit_parts)
    test_pos, test_fam = stack(held_parts)
    teacher, _ = load_net(args.teacher, "backgammon", backend="numpy")
    t0 = time.process_time()
    train_tgt = teacher.probabilities(train_pos).astype(np.float32)
    test_tgt = teacher.probabilities(test_pos)
    print(f"{len(train_pos):,} positions to fit, {len(test_pos):,} held out; teacher labels "
          f"{time.process_time() - t0:.1f} s", flush=True)

    student = OutcomeNet(NetConfig("backgammon", hidden=tuple(args.hidden), feature_version=3))
    learner = TDLearner(student, lr=args.lr, batch_size=args.batch_size, seed=args.seed)
    history = []

    def score(epoch: int, loss: float | None) -> None:
        student.eval()
        with torch.no_grad():
            got = student.probabilities(test_pos)
        mse = float(((got - test_tgt) ** 2).sum(axis=1).mean())
        choice = 1000 * float(choice_losses("backgammon", test_tgt, got, test_fam).mean())
        history.append({"epoch": epoch, "loss": loss, "heldout_mse": mse, "heldout_choice_error": choice,
                        "cpu_s": time.process_time() - t0})
        print(f"epoch {epoch}: loss {loss if loss is None else round(loss, 5)}, held-out squared error "
              f"{mse:.5f}, choice error {choice:.2f} ({time.process_time() - t0:.0f} s CPU)", flush=True)

    score(0, None)
    for epoch in range(1, args.epochs + 1):
        loss = learner.update(train_pos, train_tgt, train_fam, args.rank_weight)["loss"]
        score(epoch, loss)
    made = {"distilled": (f"{args.epochs} epochs at lr {args.lr}, rank weight {args.rank_weight}, on the 0-ply "
                          f"probabilities of {args.teacher} for {len(train_pos)} positions of {' '.join(args.labels)}"),
            "history": json.dumps(history)}
    save(args.out, student, made_by=made)
    Path(args.out).with_suffix(".json").write_text(json.dumps({"args": vars(args), "history": history}, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
