"""Fit a net to labelled positions (model/train/labels.py's chunks): supervised distillation of the
net's own look-ahead into its 0-ply evaluation (a recipe's "fit" stage, model/train/pipeline.py).

The state's net (weights and Adam state) is fitted by the TD learner's own loss (mean squared error of
the outcome probabilities, model/train/td.py TDLearner) to the labels of one or more label stages,
``epochs`` passes in random minibatches. The last ``holdout`` share of each stage's chunks, and every
chunk of a ``test`` stage, is kept out and scored before and after each epoch: the mean squared error
against the labels and the mean absolute cubeless-equity gap, so one sees how much of the look-ahead
the net took in without fitting noise. For sibling chunks (families of candidate plays of one roll)
also the choice error: the labels' equity lost, x 1000, by playing the candidate the net ranks best
instead of the one the labels rank best. ``rank_weight`` W adds W times a ranking term on those
families to the loss (TDLearner.update). The fitted state keeps the old one's settings, games and
actor state (self-play can go on from it) and records the fit in ``made_by["fits"]``. Nothing of
gnubg's enters: the labels are the net's own look-ahead.

Every epoch ends with a checkpoint (``fit.pt`` in the stage's folder: weights, Adam state, the epochs
done and the minibatch generator's state), so a fit stopped at any moment goes on from its last
finished epoch, drawing the same minibatches as an unbroken fit would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.net.checkpoint import fits_of, load_net, save
from model.net.equity import cubeless_equity
from model.train.labels import ENSEMBLE_TEACHER, choice_losses, read_chunk
from model.train.td import TDLearner

PROGRESS = "fit.pt"
"""The file of a fit's per-epoch checkpoint, in its stage's folder."""


@dataclass(frozen=True)
class FitSettings:
    """How a fit stage fits (the module's docstring)."""

    labels: tuple[str, ...] = ()  # the label stages fitted to, newest first as the recipe lists them
    test: tuple[str, ...] = ()  # label stages only scored, never fitted
    epochs: int = 4
    lr: float = 3e-5  # Adam's learning rate during the fit
    batch_size: int = 1024
    holdout: float = 0.05  # share of each label stage's chunks kept out and scored
    rank_weight: float = 0.0  # weight of the ranking term on sibling families (0: off)
    seed: int = 1

    def problem(self) -> str | None:
        if not self.labels:
            return "labels must name at least one label stage"
        if self.epochs <= 0 or self.lr <= 0 or self.batch_size <= 0:
            return "epochs, lr and batch_size must be positive"
        if not 0 <= self.holdout < 1:
            return "holdout must be within [0, 1)"
        if self.rank_weight < 0:
            return "rank_weight must be 0 or more"
        return None


def fit(state: Path, folders: dict[str, Path], settings: FitSettings, work: Path,
        log: Callable[[str], None] = print, scalar: Callable[[str, float], None] | None = None,
        progress: bool = False) -> tuple[Path, str]:
    """Fit the state ``state`` (a .pt) to the chunks of ``folders`` ({label stage: its folder}, every
    stage of ``settings.labels`` and ``settings.test``), in the folder ``work``: the fitted state's path
    (``work/last.pt``) and a line of what the held-out labels say of it (before and after this sitting).
    A ``work/fit.pt`` left by a stopped fit is gone on from. ValueError for labels that do not fit the
    net. ``log(line)``: where the held-out scores go; ``scalar(name, value)``: the losses, for
    TensorBoard; ``progress``: a bar over the epochs."""
    import torch

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    progress = work / PROGRESS
    net, blob = load_net(progress if progress.is_file() else state, None, "cpu", backend="torch")
    done = int((blob.get("train_state") or {}).get("fit_epochs_done", 0)) if progress.is_file() else 0
    game = net.config.game
    torch.set_num_threads(1)
    fit_parts, tests = [], []
    for name in (*settings.labels, *settings.test):
        files = sorted(Path(folders[name]).glob("chunk_*.npz"))
        if not files:
            raise ValueError(f"label stage {name} has no chunks in {folders[name]}")
        held = len(files) if name in settings.test else round(len(files) * settings.holdout)
        parts = [read_chunk(f) for f in files]
        fit_parts += parts[: len(parts) - held]
        if held:
            tests.append((name, held, len(files), parts[len(parts) - held :]))
    if not fit_parts:
        raise ValueError("the holdout leaves no chunk to fit")
    train_pos = np.concatenate([p["positions"] for p in fit_parts])
    train_tgt = np.concatenate([p["targets"] for p in fit_parts])
    if train_tgt.shape[1] != net.config.outputs:
        raise ValueError(f"the labels have {train_tgt.shape[1]} outputs, the net {net.config.outputs}")
    families = None  # sibling chunks: the family of each row; every other row its own
    if settings.rank_weight > 0:
        ids, start = [], 0
        for p in fit_parts:
            n = len(p["positions"])
            ids.append(start + (p["group"] if "group" in p else np.arange(n)))
            start = int(ids[-1].max()) + 1 if n else start
        families = np.concatenate(ids)
    learner = TDLearner(net, lr=settings.lr, batch_size=settings.batch_size, seed=settings.seed)
    if blob.get("optimizer"):
        learner.opt.load_state_dict(blob["optimizer"])
    for group in learner.opt.param_groups:
        group["lr"] = settings.lr
    if done:
        learner.gen.set_state(blob["train_state"]["fit_generator"])
    own = {k: v for k, v in (blob.get("train_state") or {}).items() if not k.startswith("fit_")}

    # each held-out stage's (squared error, choice error or None) before the fit (kept in fit.pt, so that a
    # resumed fit's summary starts from the same place) and after its last epoch
    first = {k: tuple(v) for k, v in json.loads((blob.get("train_state") or {}).get("fit_first", "{}")).items()} \
        if done else {}
    last = {}

    def score(tag: str, epoch: int) -> None:
        for name, held, total, chunks in tests:
            pos = np.concatenate([c["positions"] for c in chunks])
            want = np.concatenate([c["targets"] for c in chunks]).astype(np.float64)
            got = net.probabilities(pos)
            mse = float(((got - want) ** 2).sum(axis=1).mean())
            gap = float(np.abs(cubeless_equity(game, got) - cubeless_equity(game, want)).mean())
            line = (f"{tag}: {name}: held-out {len(pos)} positions ({held} of {total} chunks), "
                    f"squared error {mse:.5f}, equity gap {gap:.4f}")
            if scalar:
                scalar(f"heldout_mse/{name}", mse)
                scalar(f"heldout_equity_gap/{name}", gap)
            choice = None
            if all("group" in c for c in chunks):
                lost, start = [], 0
                for c in chunks:
                    lost.append(choice_losses(game, c["targets"], got[start : start + len(c["positions"])],
                                              c["group"]))
                    start += len(c["positions"])
                lost = np.concatenate(lost)
                choice = 1000 * float(lost.mean()) if len(lost) else 0.0
                line += f", choice error {choice:.2f} over {len(lost)} families"
                if scalar:
                    scalar(f"heldout_choice_error/{name}", choice)
            first.setdefault(name, (mse, choice))
            last[name] = (mse, choice)
            log(line)

    log(f"{len(train_pos)} positions to fit, {sum(len(c['positions']) for t in tests for c in t[3])} held out"
        + (f"; going on after epoch {done}" if done else ""))
    if not done:
        score("before", 0)
    from tqdm import tqdm

    bar = tqdm(total=settings.epochs, initial=done, unit="epoch", desc="fit", disable=not progress)
    for epoch in range(done + 1, settings.epochs + 1):
        loss = learner.update(train_pos, train_tgt, families, settings.rank_weight)["loss"]
        bar.update(1)
        if scalar:
            scalar("fit_loss", loss)
        save(progress, net, games=blob["games"], optimizer=learner.opt,
             train_state={**own, "fit_epochs_done": epoch, "fit_generator": learner.gen.get_state(),
                          "fit_first": json.dumps(first)},
             args=blob["args"], made_by=blob.get("made_by"))
        score(f"epoch {epoch} (training loss {loss:.5f})", epoch)
    bar.close()
    made = dict(blob.get("made_by") or {})
    rank = f", rank weight {settings.rank_weight}" if settings.rank_weight else ""
    # labels of an ensemble (teacher_also): name the other nets of the teacher
    others = sorted({str(n) for p in fit_parts if "teacher_also" in p for n in p["teacher_also"]})
    teacher = f", {ENSEMBLE_TEACHER} {' '.join(others)}" if others else ""
    made["fitted"] = (f"{settings.epochs} epochs at lr {settings.lr}{rank} on {len(train_pos)} labelled positions "
                      f"of the label stages {' '.join(settings.labels)}{teacher} at {blob['games']} games")
    made["fits"] = [*fits_of(blob.get("made_by")), made["fitted"]]  # the lineage's fits in order
    out = work / "last.pt"
    save(out, net, games=blob["games"], optimizer=learner.opt, train_state=own, args=blob["args"], made_by=made)
    said = []
    for name, (mse, choice) in last.items():
        was, was_choice = first[name]
        said.append(f"{name} squared error {was:.5f} -> {mse:.5f}"
                    + (f", choice error {was_choice:.2f} -> {choice:.2f}" if choice is not None else ""))
    return out, f"{settings.epochs} epochs on {len(train_pos)} labels" + (f"; held out: {'; '.join(said)}" if said else "")
