"""Capacity on the recipe's own labels (issue 44): research script, not product; experiments/capacity/README.md.

    python experiments/capacity/run.py fit --out W --name NAME --hidden 256,256 [--schedule 4:1e-3,4:3e-4,8:1e-4]
    python experiments/capacity/run.py fit --out W --name NAME --init NET --also l16big --schedule 4:1e-4
    python experiments/capacity/run.py heldout --out W NET NET ... [--json F]   # paired vs the first net
    python experiments/capacity/run.py labels --out W --net NET --name l16big --positions N --seed S

fit: a net of feature version 3 with the hidden shape given, from random weights (torch seed ``--seed``),
fitted by model/train/fit.py (the recipe's fit stages' loop: batch 256, rank weight 3) to every round's
two-ply labels (W/<labels>/l10..l15, the last ``--holdout`` share of each stage's chunks kept out), one
fit per step of the learning-rate schedule (EPOCHS:LR, ...; the Adam state carried from step to step)
in W/capacity/NAME/step<k>; the fitted net is W/capacity/NAME/last.pt, and W/capacity/NAME/fit.json
holds each epoch's seconds (the minibatch pass alone) and held-out scores. A step already done is not
fitted again. heldout: each net's choice error (model/train/labels.py's) on the held-out families of
every stage, by the class of the family's position (model/net/contact_inputs.py), paired against the
first net family by family. Every label is the project's own two-ply look-ahead: nothing of gnubg's.

fit --init NET: fit on from the state NET (its weights and Adam state; its hidden shape) instead of from
random weights; --also F,...: label stage folders under --out fitted besides l10..l15 (their last
``--holdout`` share held out too). labels: a further round of sibling labels (model/train/labels.py,
made by model/train/label_workers.py as a recipe's "labels" stage makes them) with the settings of the
recipe's l15 (siblings 4, warmup 120, every 8, actor sample, chunks of 2000, two plies, prune 8), the
net NET as the self-play actor and teacher, in W/NAME; resumable (only missing chunks are made).
heldout --also F,...: the held-out families of those label folders under --out instead of l10..l15.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

STAGES = ("l15", "l14", "l13", "l12", "l11", "l10")


def parse_hidden(text: str) -> tuple[int, ...]:
    try:
        hidden = tuple(int(h) for h in text.split(","))
    except ValueError:
        raise ValueError(f"--hidden must be widths joined by commas (say 256,256), not {text!r}") from None
    if not hidden or min(hidden) <= 0:
        raise ValueError(f"--hidden must be positive widths, not {text!r}")
    return hidden


def parse_schedule(text: str) -> list[tuple[int, float]]:
    steps = []
    for part in text.split(","):
        try:
            epochs, lr = part.split(":")
            steps.append((int(epochs), float(lr)))
        except ValueError:
            raise ValueError(f"--schedule must be EPOCHS:LR steps joined by commas, not {text!r}") from None
        if steps[-1][0] <= 0 or steps[-1][1] <= 0:
            raise ValueError(f"--schedule steps need positive epochs and learning rates, not {part!r}")
    return steps


def label_folders(out: Path, labels: str) -> dict[str, Path]:
    folders = {s: out / labels / s for s in STAGES if (out / labels / s).is_dir()}
    if not folders:
        raise ValueError(f"no label stage folders ({', '.join(STAGES)}) under {out / labels}")
    return folders


class Clock:
    """The fit's log lines, and each epoch's seconds: from the last line logged (the held-out scores
    before it) to its training loss (model/train/fit.py's ``scalar("fit_loss", ...)``), the minibatch
    pass alone."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.epoch_s: list[float] = []
        self.mark = time.perf_counter()

    def log(self, line: str) -> None:
        self.lines.append(line)
        print(line, flush=True)
        self.mark = time.perf_counter()

    def scalar(self, key: str, value: float) -> None:
        if key == "fit_loss":
            self.epoch_s.append(time.perf_counter() - self.mark)


def fit_net(out: Path, name: str, hidden: tuple[int, ...], schedule: list[tuple[int, float]], labels: str,
            holdout: float, rank: float, seed: int, init: Path | None = None, also: tuple[str, ...] = ()) -> None:
    import torch

    from model.net.checkpoint import save
    from model.net.config import NetConfig
    from model.net.network import OutcomeNet
    from model.train.fit import FitSettings, fit

    torch.set_num_threads(1)
    folders = label_folders(out, labels)
    for extra in also:
        if extra in folders or not (out / extra).is_dir() or not any((out / extra).glob("chunk_*.npz")):
            raise ValueError(f"--also {extra}: no chunks under {out / extra}, or the name of a stage already fitted")
        folders = {extra: out / extra, **folders}  # newest first, as the recipe lists them
    if not 0 < holdout < 1:
        raise ValueError(f"--holdout must be within (0, 1), not {holdout}")
    if init is not None:
        from model.net.checkpoint import load_net

        hidden = tuple(load_net(init, "backgammon", "cpu", backend="torch")[0].config.hidden)
    home = out / "capacity" / name
    home.mkdir(parents=True, exist_ok=True)
    record_path = home / "fit.json"
    record = json.loads(record_path.read_text()) if record_path.is_file() else {}
    if record and (record.get("hidden") != list(hidden) or record.get("seed") != seed):
        raise ValueError(f"{home} holds a fit of hidden {record.get('hidden')} seed {record.get('seed')}: "
                         "another --name for another net")
    if record and record.get("init") != (str(init) if init else None):
        raise ValueError(f"{home} holds a fit from {record.get('init') or 'random weights'}: another --name")
    record.update({"name": name, "hidden": list(hidden), "feature_version": 3, "seed": seed,
                   "init": str(init) if init else None,
                   "schedule": [[e, lr] for e, lr in schedule], "labels": str(out / labels),
                   "stages": list(folders), "holdout": holdout, "rank_weight": rank, "batch_size": 256})
    record.setdefault("steps", {})
    state = init if init is not None else home / "fresh.pt"
    if not state.is_file():
        torch.manual_seed(seed)
        cfg = NetConfig(game="backgammon", hidden=hidden, feature_version=3)
        net = OutcomeNet(cfg)
        save(state, net, games=0, args={"game": "backgammon", "features": 3, "hidden": ",".join(map(str, hidden))})
    parameters = sum(int(np.prod(p.shape)) for p in OutcomeNet(NetConfig("backgammon", hidden, 3)).parameters())
    record["parameters"] = parameters
    print(f"{name}: hidden {hidden}, {parameters} weights; schedule {schedule}")
    for k, (epochs, lr) in enumerate(schedule, 1):
        work = home / f"step{k}"
        if (work / "last.pt").is_file() and str(k) in record["steps"]:
            state = work / "last.pt"
            print(f"step {k} done before: {record['steps'][str(k)]['line']}")
            continue
        clock = Clock()
        settings = FitSettings(labels=tuple(folders), epochs=epochs, lr=lr, batch_size=256, holdout=holdout,
                               rank_weight=rank, seed=seed)
        t0 = time.perf_counter()
        path, line = fit(state, folders, settings, work, log=clock.log, scalar=clock.scalar)
        record["steps"][str(k)] = {"epochs": epochs, "lr": lr, "seconds": time.perf_counter() - t0,
                                   "epoch_seconds": clock.epoch_s, "line": line,
                                   "heldout": [x for x in clock.lines if x.startswith("epoch")]}
        record_path.write_text(json.dumps(record, indent=1))
        print(f"step {k} ({epochs} epochs at {lr}): {line}; epochs took {', '.join(f'{s:.0f}' for s in clock.epoch_s)} s")
        state = path
    shutil.copyfile(state, home / "last.pt")
    every = [s for step in record["steps"].values() for s in step["epoch_seconds"]]
    record["seconds_per_epoch"] = float(np.mean(every)) if every else None
    record_path.write_text(json.dumps(record, indent=1))
    print(f"{home / 'last.pt'}; {record['seconds_per_epoch']:.1f} s an epoch on one core" if every else home / "last.pt")


def heldout(out: Path, labels: str, holdout: float, nets: list[str], json_path: Path | None,
            also: tuple[str, ...] = ()) -> None:
    """Choice error on the held-out families (the last ``holdout`` share of every stage's chunks, as
    model/train/fit.py keeps out), by position class, each net paired against the first."""
    from model.net.checkpoint import load_net
    from model.net.contact_inputs import BEAROFF, CONTACT, CRASHED, RACE, position_class
    from model.train.labels import choice_losses, read_chunk

    if not 0 < holdout < 1:
        raise ValueError(f"--holdout must be within (0, 1), not {holdout}")
    chunks = []
    folders = label_folders(out, labels) if not also else \
        {extra: out / extra for extra in also}  # --also: those folders' held-out families alone
    for folder in folders.values():
        files = sorted(folder.glob("chunk_*.npz"))
        chunks += [read_chunk(f) for f in files[len(files) - round(len(files) * holdout):]]
    if not chunks:
        raise ValueError(f"no held-out chunks under {out / labels}")
    cls = []
    for c in chunks:
        ids, counts = np.unique(c["group"], return_counts=True)
        cls.append(position_class(c["parents"])[ids[counts > 1]])
    cls = np.concatenate(cls)
    masks = {"contact": cls == CONTACT, "crashed": cls == CRASHED, "race": (cls == RACE) | (cls == BEAROFF),
             "all": np.ones(len(cls), bool)}

    def interval(x: np.ndarray) -> dict:
        return {"families": len(x), "choice_error": float(x.mean()),
                "ci95": float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))}

    rows, first = [], None
    for spec in nets:
        try:
            net = load_net(spec, "backgammon", backend="numpy")[0]
        except Exception as e:  # noqa: BLE001 - any failure to load a named net is bad input
            said = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ValueError(f"net {spec}: {said}") from None
        lost = np.concatenate([1000 * choice_losses("backgammon", c["targets"], net.probabilities(c["positions"]),
                                                    c["group"]) for c in chunks])
        row = {"net": spec, "choice_error": {k: interval(lost[m]) for k, m in masks.items()}}
        if first is not None:
            row["paired_vs_first"] = {k: interval(lost[m] - first[m]) for k, m in masks.items()}
        first = lost if first is None else first
        rows.append(row)
        print(f"{spec}: held-out choice error " + "; ".join(
            f"{k} {v['choice_error']:.2f} +- {v['ci95']:.2f}"
            + (f" (paired {row['paired_vs_first'][k]['choice_error']:+.2f} +- {row['paired_vs_first'][k]['ci95']:.2f})"
               if "paired_vs_first" in row else "")
            for k, v in row["choice_error"].items()) + f" over {len(lost)} families")
    if json_path:
        json_path.write_text(json.dumps({"command": "capacity heldout", "labels": [str(f) for f in folders.values()],
                                         "holdout": holdout, "results": rows}, indent=1))


RECIPE_L15 = {"siblings": 4, "warmup": 120, "every": 8, "actor": "sample", "chunk": 2000, "plies": 2, "prune": 8}
"""The recipe's label stages' settings (recipes/backgammon.toml, l15), all but the count and the seed."""


def make_labels(out: Path, net: Path, name: str, positions: int, seed: int) -> None:
    """A further round of two-ply sibling labels by ``net`` (self-play actor and teacher) in out/name, with
    the recipe's l15 settings; the chunks already there are kept (only missing ones are made)."""
    import torch

    from model.train.label_workers import make_chunks
    from model.train.labels import LabelSettings, bytes_per_label, missing_chunks

    torch.set_num_threads(1)
    settings = LabelSettings(positions=positions, seed=seed, **RECIPE_L15)
    if settings.problem():
        raise ValueError(settings.problem())
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    record_path = folder / "labels.json"
    record = json.loads(record_path.read_text()) if record_path.is_file() else {}
    if record and (record.get("net") != str(net) or record.get("seed") != seed):
        raise ValueError(f"{folder} holds labels of {record.get('net')} seed {record.get('seed')}: another --name")
    todo = len(missing_chunks(folder, settings))
    print(f"{name}: {settings.chunks} chunks of {settings.chunk} wanted, {todo} to make, by {net}; {settings}",
          flush=True)
    times: list[float] = []
    t0 = time.perf_counter()

    def on_chunk(index: int) -> None:
        times.append(time.perf_counter() - t0)
        n = len(times) * settings.chunk
        print(f"chunk {index}: {n} labels in {times[-1]:.0f} s, {n / times[-1]:.1f} labels/s", flush=True)

    made = make_chunks(net, settings, folder, workers=1, progress=False, name=name, on_chunk=on_chunk)
    seconds = time.perf_counter() - t0
    have = sorted(folder.glob("chunk_*.npz"))
    record.update({"net": str(net), "seed": seed, "settings": {**RECIPE_L15, "positions": positions},
                   "chunks_present": len(have)})
    record.setdefault("sittings", []).append({"chunks_made": made, "seconds": seconds,
                                              "labels_per_s": made * settings.chunk / seconds if made else None})
    record_path.write_text(json.dumps(record, indent=1))
    print(f"{made} chunks made in {seconds:.0f} s" + (f", {made * settings.chunk / seconds:.1f} labels/s" if made else "")
          + f"; {len(have)} chunks in {folder}, {bytes_per_label(folder):.1f} bytes a label", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit")
    f.add_argument("--out", type=Path, required=True, help="the work folder: labels under it, fits in out/capacity")
    f.add_argument("--name", required=True)
    f.add_argument("--hidden", default="256,256")
    f.add_argument("--schedule", default="4:1e-3,4:3e-4,8:1e-4", help="EPOCHS:LR steps, in order")
    f.add_argument("--labels", default="orig", help="the folder under --out holding the label stages l10..l15")
    f.add_argument("--holdout", type=float, default=0.02)
    f.add_argument("--rank", type=float, default=3.0)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--init", type=Path, help="fit on from this state (weights, Adam state) instead of random weights")
    f.add_argument("--also", default="", help="further label stage folders under --out, joined by commas")
    h = sub.add_parser("heldout")
    h.add_argument("--out", type=Path, required=True)
    h.add_argument("--labels", default="orig")
    h.add_argument("--holdout", type=float, default=0.02)
    h.add_argument("nets", nargs="+", help="checkpoints; the first is the one paired against")
    h.add_argument("--json", type=Path)
    h.add_argument("--also", default="", help="score these label folders under --out (commas) instead of l10..l15")
    lb = sub.add_parser("labels")
    lb.add_argument("--out", type=Path, required=True)
    lb.add_argument("--net", type=Path, required=True, help="the labeller and self-play actor (a .pt)")
    lb.add_argument("--name", required=True, help="the folder under --out for the chunks")
    lb.add_argument("--positions", type=int, required=True)
    lb.add_argument("--seed", type=int, required=True, help="chunk i is drawn from seed + i: one no recipe stage used")
    a = ap.parse_args()
    try:
        if a.cmd == "fit":
            fit_net(a.out, a.name, parse_hidden(a.hidden), parse_schedule(a.schedule), a.labels, a.holdout,
                    a.rank, a.seed, a.init, tuple(x for x in a.also.split(",") if x))
        elif a.cmd == "labels":
            make_labels(a.out, a.net, a.name, a.positions, a.seed)
        else:
            heldout(a.out, a.labels, a.holdout, a.nets, a.json, tuple(x for x in a.also.split(",") if x))
    except (ValueError, OSError) as e:  # no labels where named, an unreadable checkpoint...: one line
        ap.exit(2, f"run.py {a.cmd}: error: {e}\n")


if __name__ == "__main__":
    main()
