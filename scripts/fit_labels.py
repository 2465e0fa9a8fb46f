"""Fit a run's net to labelled positions (scripts/two_ply_labels.py's chunks) and write it as a new run.

    python scripts/fit_labels.py experiments/resume/backgammon-v3-prune8 runs/labels [runs/more ...] runs/distilled --epochs 4

Supervised distillation of the look-ahead into the 0-ply net: the run's last.pt (weights and Adam
state) is fitted by the TD learner's own loss (mean squared error of the outcome probabilities,
model/train/td.py TDLearner) to the labels of one or more folders, ``--epochs`` passes in random
minibatches. The last ``--holdout`` share of each folder's chunks, and every chunk of a ``--test``
folder, is kept out and scored before and after each epoch: the mean squared error against the
labels and the mean absolute cubeless-equity gap, so one sees how much of the look-ahead the net
took in without fitting noise. For chunks made with ``--siblings`` (labels
in families of candidate plays of one roll) also the choice error: the labels' equity lost, x 1000,
by playing the candidate the net ranks best instead of the one the labels rank best, over families
of two or more (0-ply judged by the look-ahead that labelled them, on the positions where it counts).
``--rank-weight W`` adds W times a ranking term on those families to the loss (TDLearner.update).
The new run keeps the old one's settings, games and actor state (``train.py --run-dir NEW --resume``
goes on with self-play) and records the fit in ``made_by``. Nothing of gnubg's enters: the labels
are the net's own look-ahead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="the run whose last.pt is fitted (read, not changed)")
    parser.add_argument("labels", nargs="+", help="folders of chunk_*.npz label files")
    parser.add_argument("new_run_dir", help="where the fitted run's last.pt is written (must not exist)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-5, help="Adam learning rate of the fit (default 3e-5)")
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--holdout", type=float, default=0.05, help="share of the chunks kept out (default 0.05)")
    parser.add_argument("--rank-weight", type=float, default=0.0,
                        help="weight of the ranking term on sibling families (TDLearner.update; default 0: off)")
    parser.add_argument("--test", action="append", default=[], metavar="DIR",
                        help="a folder of chunks only scored, never fitted (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    import model.runtime  # noqa: F401, I001  one BLAS thread, before numpy loads
    import numpy as np
    import torch

    from engine.tools.cli import UsageError, run_main
    from model.net.checkpoint import CheckpointError, fits_of, load_net, save
    from model.net.equity import cubeless_equity
    from model.train.labels import ENSEMBLE_TEACHER, choice_losses
    from model.train.td import TDLearner

    def read_chunk(path: Path) -> dict:
        """A chunk's arrays, read whole and the file closed (hundreds of chunks stay under the limit
        of open files)."""
        with np.load(path) as chunk:
            return dict(chunk)

    def run(_argv) -> int:
        if args.epochs <= 0 or args.lr <= 0 or args.batch_size <= 0 or not 0 <= args.holdout < 1:
            raise UsageError("--epochs, --lr and --batch-size must be positive, --holdout in [0, 1)")
        if args.rank_weight < 0:
            raise UsageError("--rank-weight must be 0 or more")
        src, dst = Path(args.run_dir) / "last.pt", Path(args.new_run_dir)
        if dst.exists():
            raise UsageError(f"{dst} exists; choose a new run directory")
        folders = [sorted(Path(folder).glob("chunk_*.npz")) for folder in args.labels + args.test]
        for folder, files in zip(args.labels + args.test, folders, strict=True):
            if not files:
                raise UsageError(f"no chunk_*.npz files in {folder}")
        try:
            net, blob = load_net(src, None, "cpu", backend="torch")
        except CheckpointError as err:
            raise UsageError(f"cannot read {src}: {err}") from None
        game = net.config.game
        torch.set_num_threads(1)
        fit_parts, tests = [], []
        for folder, files in zip(args.labels + args.test, folders, strict=True):
            held = len(files) if folder in args.test else round(len(files) * args.holdout)
            parts = [read_chunk(f) for f in files]
            fit_parts += parts[: len(parts) - held]
            if held:
                tests.append((folder, held, len(files), parts[len(parts) - held :]))
        if not fit_parts:
            raise UsageError("--holdout leaves no chunk to fit")
        train_pos = np.concatenate([p["positions"] for p in fit_parts])
        train_tgt = np.concatenate([p["targets"] for p in fit_parts]).astype(np.float32)
        families = None  # sibling chunks: the family of each row; every other row its own
        if args.rank_weight > 0:
            ids, start = [], 0
            for p in fit_parts:
                n = len(p["positions"])
                ids.append(start + (p["group"] if "group" in p else np.arange(n)))
                start = int(ids[-1].max()) + 1 if n else start
            families = np.concatenate(ids)
        if train_tgt.shape[1] != net.config.outputs:
            raise UsageError(f"the labels have {train_tgt.shape[1]} outputs, the net {net.config.outputs}")
        learner = TDLearner(net, lr=args.lr, batch_size=args.batch_size, seed=args.seed)
        if blob.get("optimizer"):
            learner.opt.load_state_dict(blob["optimizer"])
        for group in learner.opt.param_groups:
            group["lr"] = args.lr

        def choice_error(chunk, got) -> tuple[float, int]:
            """Equity x 1000 the net's pick among each family of candidates loses by the labels, and
            how many families of two or more (model/train/labels.py)."""
            lost = choice_losses(game, chunk["targets"], got, chunk["group"])
            return (1000 * float(lost.mean()) if len(lost) else 0.0), len(lost)

        def score(tag: str) -> None:
            for folder, held, total, chunks in tests:
                pos = np.concatenate([c["positions"] for c in chunks])
                want = np.concatenate([c["targets"] for c in chunks]).astype(np.float64)
                got = net.probabilities(pos)
                mse = float(((got - want) ** 2).sum(axis=1).mean())
                gap = float(np.abs(cubeless_equity(game, got) - cubeless_equity(game, want)).mean())
                line = (f"{tag}: {folder}: held-out {len(pos)} positions ({held} of {total} chunks), "
                        f"squared error {mse:.5f}, equity gap {gap:.4f}")
                if all("group" in c for c in chunks):
                    errors, start = [], 0
                    for c in chunks:
                        errors.append(choice_error(c, got[start : start + len(c["positions"])]))
                        start += len(c["positions"])
                    families = sum(n for _, n in errors)
                    mean = sum(e * n for e, n in errors) / max(families, 1)
                    line += f", choice error {mean:.2f} over {families} families"
                print(line, flush=True)

        print(f"{len(train_pos)} positions to fit, {sum(len(c['positions']) for t in tests for c in t[3])} held out")
        score("before")
        for epoch in range(1, args.epochs + 1):
            loss = learner.update(train_pos, train_tgt, families, args.rank_weight)["loss"]
            score(f"epoch {epoch} (training loss {loss:.5f})")
        made = dict(blob.get("made_by") or {})
        earlier = fits_of(made)
        rank = f", rank weight {args.rank_weight}" if args.rank_weight else ""
        # labels of an ensemble (two_ply_labels.py --teacher-also): name the other nets of the teacher
        others = sorted({str(n) for p in fit_parts if "teacher_also" in p for n in p["teacher_also"]})
        teacher = f", {ENSEMBLE_TEACHER} {' '.join(others)}" if others else ""
        made["fitted"] = (f"{args.epochs} epochs at lr {args.lr}{rank} on {len(train_pos)} labelled positions of "
                          f"{' '.join(args.labels)}{teacher} at {blob['games']} games (scripts/fit_labels.py)")
        made["fits"] = [*earlier, made["fitted"]]  # every fit of the lineage in order; "fitted" is the last
        dst.mkdir(parents=True)
        save(dst / "last.pt", net, games=blob["games"], optimizer=learner.opt, train_state=blob["train_state"],
             args=blob["args"], made_by=made)
        print(f"wrote {dst / 'last.pt'}")
        return 0

    return run_main("fit_labels.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
