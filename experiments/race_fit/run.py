"""Fits on the recipe's own labels (issue 44): research script, not product; experiments/race_fit/README.md.

    python experiments/race_fit/run.py analyse                    # where the shipped net's race error is
    python experiments/race_fit/run.py extract --stages RUN/stages --out W            # race rows -> W/labels
    python experiments/race_fit/run.py extract --crashed --stages RUN/stages --out W  # W/crashmix
    python experiments/race_fit/run.py extract --saves 5 --stages RUN/stages --out W  # W/savemix5
    python experiments/race_fit/run.py mix --out W --stages RUN/stages  # W/mixed: race rows from W/rollout
    python experiments/race_fit/run.py ens-labels --out W --state STATE.pt --other NET  # W/ens/e0
    python experiments/race_fit/run.py fit --out W --start STATE --name NAME --labels FOLDER [--epochs --lr]
    python experiments/race_fit/run.py score none NET ...        # race error with each race net
    python experiments/race_fit/run.py paired NET NET ... [--json F]  # benchmark by class, paired vs the first
    python experiments/race_fit/run.py heldout --out W NET ...  # choice error on held-out families, saves apart

extract: the sibling rows without contact (RACE class; bear-offs were never labelled) of the recipe's
label stages, written as label chunks of their own (families renumbered within each chunk), so that
model/train/fit.py fits a race net (feature version 4) to them as a recipe's fit stage would. W/rollout
is made by scripts/rollout_labels.py. Every label is the project's own (look-ahead, rollouts, or the
mean of two of its nets): nothing of gnubg's, which only judges the benchmark.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

STAGES = ("l15", "l14", "l13", "l12", "l11", "l10")


def extract_crashed(stages: Path, out: Path) -> None:
    """out/crashmix/: every label stage as it is (linked) and beside each a stage ``c_<name>`` of its
    families whose parent is crashed (model/net/contact_inputs.py position_class), so that a fit on
    crashmix sees those families twice."""
    from model.net.contact_inputs import CRASHED, position_class
    from model.train.labels import read_chunk, write_chunk

    for name in STAGES:
        link = out / "crashmix" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to((stages / name).resolve())
        dst = out / "crashmix" / f"c_{name}"
        dst.mkdir(parents=True, exist_ok=True)
        kept = 0
        for i, f in enumerate(sorted((stages / name).glob("chunk_*.npz"))):
            c = read_chunk(f)
            crashed = position_class(c["parents"]) == CRASHED
            rows = crashed[c["group"]]
            if not rows.any():
                continue
            _, group = np.unique(c["group"][rows], return_inverse=True)
            write_chunk(dst / f"chunk_{i:05d}.npz", positions=c["positions"][rows], targets=c["targets"][rows],
                        group=group.astype(np.int32))
            kept += int(rows.sum())
        print(name, "crashed families' rows:", kept)


def is_save(parents: np.ndarray) -> np.ndarray:
    """Gammon saves: positions on roll without contact where the side on roll has borne off none and
    the opponent one or more (the side on roll may lose a gammon or a backgammon, and its play decides
    whether it does)."""
    from engine.board import OFF, OPP_OFF, has_contact

    p = np.asarray(parents)
    return ~has_contact("backgammon", p) & (p[:, OFF] == 0) & (p[:, OPP_OFF] > 0)


def extract_saves(stages: Path, out: Path, times: int) -> None:
    """out/savemix<times>/: every label stage as it is (linked) and beside each a stage ``s_<name>`` of
    its families whose parent is a gammon save (``is_save``), each there ``times - 1`` times (as
    families of their own), so that a fit on savemix<times> sees those families ``times`` times an
    epoch. Chunk i of ``s_<name>`` comes from chunk i of the stage, so the holdout keeps the same
    families out of both where every chunk has saves (said if not)."""
    from engine.board import has_contact
    from model.train.labels import read_chunk, write_chunk

    if times < 2:
        raise ValueError(f"--saves must be 2 or more (the families' count in the fit), not {times}")
    if not stages.is_dir():
        raise ValueError(f"no label stages folder {stages}")
    summary = {"times": times}
    for name in STAGES:
        src = sorted((stages / name).glob("chunk_*.npz"))
        if not src:
            raise ValueError(f"label stage {name} has no chunks in {stages / name}")
        link = out / f"savemix{times}" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to((stages / name).resolve())
        dst = out / f"savemix{times}" / f"s_{name}"
        dst.mkdir(parents=True, exist_ok=True)
        rows = families = race = total = without = 0
        for i, f in enumerate(src):
            c = read_chunk(f)
            save = is_save(c["parents"])
            keep = save[c["group"]]
            total += len(keep)
            race += int((~has_contact("backgammon", c["positions"])).sum())
            if not keep.any():
                without += 1
                continue
            _, group = np.unique(c["group"][keep], return_inverse=True)
            n = int(group.max()) + 1
            write_chunk(dst / f"chunk_{i:05d}.npz", positions=np.tile(c["positions"][keep], (times - 1, 1)),
                        targets=np.tile(c["targets"][keep], (times - 1, 1)),
                        group=np.concatenate([group + k * n for k in range(times - 1)]).astype(np.int32))
            rows += int(keep.sum())
            families += n
        summary[name] = {"rows": total, "race_rows": race, "save_rows": rows, "save_families": families,
                         "chunks": len(src), "chunks_without_saves": without}
        print(name, f"gammon-save families {families}, their rows {rows} of {total} ({race} without contact),"
              f" x{times - 1} in s_{name}; chunks without saves {without} of {len(src)}")
    (out / f"savemix{times}.json").write_text(json.dumps(summary, indent=1))


def extract(stages: Path, out: Path) -> None:
    from engine.board import has_contact
    from model.train.labels import read_chunk, write_chunk

    summary = {}
    for name in STAGES:
        src = sorted((stages / name).glob("chunk_*.npz"))
        dst = out / "labels" / name
        dst.mkdir(parents=True, exist_ok=True)
        kept = total = 0
        for i, f in enumerate(src):
            c = read_chunk(f)
            pos = c["positions"]
            race = ~has_contact("backgammon", pos)
            total += len(pos)
            if not race.any():
                continue
            group = c["group"][race]
            _, group = np.unique(group, return_inverse=True)
            write_chunk(dst / f"chunk_{i:05d}.npz", positions=pos[race], targets=c["targets"][race],
                        group=group.astype(np.int32))
            kept += int(race.sum())
        summary[name] = {"rows": total, "race_rows": kept}
        print(name, kept, "of", total)
    (out / "extract.json").write_text(json.dumps(summary, indent=1))


def mix(out: Path, stages: Path) -> None:
    """out/mixed/<stage>: the recipe's label stages with the race rows of every chunk that has rollout
    labels (out/rollout/<stage>/) relabelled by them; every other chunk linked as it is."""
    from engine.board import has_contact
    from model.train.labels import read_chunk, write_chunk

    for name in STAGES:
        dst = out / "mixed" / name
        dst.mkdir(parents=True, exist_ok=True)
        swapped = 0
        for f in sorted((stages / name).glob("chunk_*.npz")):
            rolled = out / "rollout" / name / f.name
            target = dst / f.name
            if target.exists() or target.is_symlink():
                target.unlink()
            if not rolled.is_file():
                target.symlink_to(f.resolve())
                continue
            c, r = read_chunk(f), read_chunk(rolled)
            race = ~has_contact("backgammon", c["positions"])
            if not np.array_equal(c["positions"][race], r["positions"]):
                raise SystemExit(f"{rolled} does not match {f}")
            c["targets"][race] = r["targets"]
            write_chunk(target, **c)
            swapped += int(race.sum())
        print(name, "race rows relabelled by rollouts:", swapped)


def fit_net(out: Path, start: str, name: str, epochs: int, lr: float, rank: float, hidden: int,
            labels: str = "labels", holdout: float = 0.05) -> None:
    from model.train.fit import FitSettings, fit

    names = (*STAGES, *(f"{c}_{x}" for c in "cds" for x in STAGES), "e0")
    folders = {p: out / labels / p for p in names if (out / labels / p).is_dir()}
    if not folders:
        raise ValueError(f"no label stage folders ({', '.join(STAGES)}, ...) under {out / labels}")
    state = start
    if start == "fresh":
        import torch

        from model.net.checkpoint import save
        from model.net.config import NetConfig
        from model.net.features import RACE_VERSION
        from model.net.network import OutcomeNet

        torch.manual_seed(1)
        cfg = NetConfig(game="backgammon", hidden=(hidden,), feature_version=RACE_VERSION)
        net = OutcomeNet(cfg)
        state = out / f"fresh{hidden}.pt"
        save(state, net, games=0, args={"features": RACE_VERSION, "hidden": [hidden]})
    settings = FitSettings(labels=tuple(folders), epochs=epochs, lr=lr, batch_size=256, holdout=holdout,
                           rank_weight=rank)
    path, line = fit(Path(state), folders, settings, out / name, progress=True)
    print(path, line)


def race_losses(race) -> tuple:
    """(benchmark of the race class, the shipped net's losses there x 1000, with ``race`` (a race net's
    path or None) answering positions without contact), gnubg-nn judging picks the file had not judged."""
    from model.arena.benchmark import choose, gnubg_judge, load_benchmark, losses
    from model.players.net_player import load_player

    bench = load_benchmark()
    bench = bench.subset(np.flatnonzero(bench.classes == "race"))
    player = load_player("checkpoints/backgammon.safetensors", game="backgammon", race=race or False)
    chosen = choose(player, bench)
    return bench, chosen, 1000 * losses(bench, chosen, gnubg_judge()).loss


def score(nets: list[str]) -> None:
    """Race error of the shipped net with each race net (``none``: without one), paired against the first."""
    base = None
    for race in nets:
        _, _, loss = race_losses(None if race == "none" else race)
        line = f"{race}: race ER {loss.mean():.2f} +- {1.96 * loss.std(ddof=1) / np.sqrt(len(loss)):.2f}"
        if base is not None:
            d = loss - base
            line += f", paired vs {nets[0]} {d.mean():+.2f} +- {1.96 * d.std(ddof=1) / np.sqrt(len(d)):.2f}"
        base = loss if base is None else base
        print(line)


def paired(nets: list[str], json_path: Path | None) -> None:
    """The full benchmark's error rates of each net by class, the race class's gammon saves (``is_save``)
    and its other positions apart, and each class paired against the first net (gnubg-nn judging picks
    the file had not judged, as ``nardibot benchmark``)."""
    from model.arena.benchmark import gnubg_judge, load_benchmark, score
    from model.players.registry import make_player

    bench = load_benchmark()
    judge = gnubg_judge()
    classes = {name: bench.classes == name for name in ("contact", "crashed", "race")}
    classes["race saves"] = classes["race"] & is_save(bench.positions)
    classes["race others"] = classes["race"] & ~classes["race saves"]
    classes["overall"] = np.ones(len(bench), bool)

    def interval(x: np.ndarray) -> dict:
        return {"positions": len(x), "er": float(x.mean()), "ci95": float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))}

    rows, first = [], None
    for spec in nets:
        try:
            player = make_player(spec, "backgammon", seed=0)
        except Exception as e:  # noqa: BLE001 - any failure to load a named net is bad input
            said = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ValueError(f"player {spec}: {said}") from None
        loss = 1000 * score(player, bench, judge)["loss"]
        row = {"player": spec, "error_rates": {k: interval(loss[m]) for k, m in classes.items()}}
        if first is not None:
            row["paired_vs_first"] = {k: interval(loss[m] - first[m]) for k, m in classes.items()}
        first = loss if first is None else first
        rows.append(row)
        print(spec + ": " + "; ".join(
            f"{k} {v['er']:.2f} +- {v['ci95']:.2f}" + (f" (paired {row['paired_vs_first'][k]['er']:+.2f} +- "
                                                       f"{row['paired_vs_first'][k]['ci95']:.2f})"
                                                       if "paired_vs_first" in row else "")
            for k, v in row["error_rates"].items()))
    if json_path:
        json_path.write_text(json.dumps({"command": "race_fit paired", "nets": nets, "positions": len(bench),
                                         "judge": "gnubg-nn 2-ply" if judge else "estimated from gnubg 0-ply",
                                         "results": rows}, indent=1))


def heldout(out: Path, labels: str, holdout: float, nets: list[str], json_path: Path | None) -> None:
    """Each net's choice error (model/train/fit.py's) on the held-out chunks (the last ``holdout`` share)
    of every label stage of out/labels: on their gammon-save families (``is_save``) and on them all."""
    from model.net.checkpoint import load_net
    from model.train.labels import choice_losses, read_chunk

    if not 0 < holdout < 1:
        raise ValueError(f"--holdout must be within (0, 1), not {holdout}")
    chunks = []
    for name in STAGES:
        files = sorted((out / labels / name).glob("chunk_*.npz"))
        chunks += [read_chunk(f) for f in files[len(files) - round(len(files) * holdout):]]
    if not chunks:
        raise ValueError(f"no held-out chunks of label stages ({', '.join(STAGES)}) under {out / labels}")
    rows = []
    for spec in nets:
        net = load_net(spec, "backgammon", backend="numpy")[0]
        # choice_losses gives one loss per family of two or more rows, in the order of the family ids
        lost, save = [], []
        for c in chunks:
            lost.append(1000 * choice_losses("backgammon", c["targets"], net.probabilities(c["positions"]), c["group"]))
            ids, counts = np.unique(c["group"], return_counts=True)
            save.append(is_save(c["parents"])[ids[counts > 1]])
        lost, save = np.concatenate(lost), np.concatenate(save)
        row = {what: {"families": len(x), "choice_error": float(x.mean()),
                      "ci95": float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))}
               for what, x in (("gammon saves", lost[save]), ("all", lost))}
        rows.append({"net": spec, **row})
        print(f"{spec}: held-out choice error, " + "; ".join(
            f"{k} {v['choice_error']:.3f} +- {v['ci95']:.3f} over {v['families']} families" for k, v in row.items()))
    if json_path:
        json_path.write_text(json.dumps({"command": "race_fit heldout", "labels": str(out / labels),
                                         "holdout": holdout, "results": rows}, indent=1))


def analyse(worst: int, trials: int) -> None:
    """Where the shipped net's race error is, and what its own rollouts say of its worst picks."""
    from engine.board import flip
    from model.net.checkpoint import load_net
    from model.net.equity import cubeless_equity
    from model.search.trials import NO_OWNER, Candidates, Settings, Trials

    bench, chosen, loss = race_losses(None)
    order = np.argsort(-loss)
    pos = bench.positions.astype(int)
    none_off = (pos[:, 26] == 0) | (pos[:, 27] == 0)
    print(f"race ER {loss.mean():.2f}; worst 10 / 30 of {len(loss)} carry {loss[order[:10]].sum() / loss.sum():.0%} / "
          f"{loss[order[:30]].sum() / loss.sum():.0%}; a side with none off: {none_off.sum()} positions, ER "
          f"{loss[none_off].mean():.2f}, elsewhere {loss[~none_off].mean():.2f}")
    from model.arena.benchmark import choose, gnubg_judge, losses
    from model.players.registry import make_player

    top = bench.subset(order[:30])
    deep = 1000 * losses(top, choose(make_player("checkpoints/backgammon.safetensors+2ply", "backgammon"), top),
                         gnubg_judge()).loss
    print(f"the worst 30 at 0-ply lose {loss[order[:30]].sum():.0f} mEMG; the same net at 2-ply there "
          f"{deep.sum():.0f} ({int((deep > 0).sum())} picks still losing)")
    net = load_net("checkpoints/backgammon.safetensors", "backgammon", backend="numpy")[0]
    for i in order[:worst]:
        a, z = bench.offsets[i], bench.offsets[i + 1]
        best = a + int(np.nanargmax(bench.equity_2ply[a:z]))
        kids = flip("backgammon", bench.children[[best, chosen[i]]])
        cands = Candidates(kids, np.zeros(2, bool), np.zeros(2, bool), np.ones(2, int), np.full(2, NO_OWNER),
                           np.zeros(2, bool))
        engine = Trials(net, cands, trials, Settings(game="backgammon", prune=8, seed=3), batch=4096)
        engine.run()
        eq = cubeless_equity("backgammon", engine.probs.reshape(-1, 5)).reshape(2, -1)
        d = eq[0] - eq[1]
        print(f"loss {loss[i]:6.1f} (dice {bench.dice[i].tolist()}, off {pos[i, 26]} / {pos[i, 27]}): our rollout of "
              f"gnubg's pick minus ours {d.mean():+.4f} +- {1.96 * d.std(ddof=1) / np.sqrt(len(d)):.4f}")


def ensemble_labels(out: Path, state: str, other: str, positions: int, workers: int, seed: int) -> None:
    """out/ens/e0: 0-ply labels of the mean of the net of ``state`` and ``other`` (model/net/ensemble.py),
    on the candidate plays the net of ``state`` chooses between in its own self-play (a labels stage
    with plies 0 and teacher_also, as the shipped nardi net's E3 was made)."""
    from model.train.label_workers import make_chunks
    from model.train.labels import LabelSettings

    settings = LabelSettings(positions=positions, chunk=2000, plies=0, siblings=4, warmup=120, every=8,
                             actor="sample", seed=seed, teacher_also=(other,))
    folder = out / "ens" / "e0"
    folder.mkdir(parents=True, exist_ok=True)
    print(make_chunks(Path(state), settings, folder, workers=workers), "chunks made")


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--stages", type=Path, required=True)
    e.add_argument("--out", type=Path, required=True)
    e.add_argument("--crashed", action="store_true", help="the crashed families beside every stage (crashmix)")
    e.add_argument("--saves", type=int, default=0, metavar="K",
                   help="the gammon-save families K times an epoch (savemixK: s_ stages beside every stage)")
    f = sub.add_parser("fit")
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--start", required=True, help="a race net checkpoint, or 'fresh'")
    f.add_argument("--name", required=True)
    f.add_argument("--epochs", type=int, default=16)
    f.add_argument("--lr", type=float, default=3e-4)
    f.add_argument("--rank", type=float, default=3.0)
    f.add_argument("--hidden", type=int, default=128)
    f.add_argument("--labels", default="labels", help="the folder under --out: labels, rollout, mixed, crashmix, savemix5, ...")
    f.add_argument("--holdout", type=float, default=0.05)
    m = sub.add_parser("mix")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--stages", type=Path, required=True)
    en = sub.add_parser("ens-labels")
    en.add_argument("--out", type=Path, required=True)
    en.add_argument("--state", required=True)
    en.add_argument("--other", required=True)
    en.add_argument("--positions", type=int, default=400_000)
    en.add_argument("--workers", type=int, default=2)
    en.add_argument("--seed", type=int, default=24100001)
    sc = sub.add_parser("score")
    sc.add_argument("nets", nargs="+", help="race net checkpoints, or none")
    pa = sub.add_parser("paired")
    pa.add_argument("nets", nargs="+", help="checkpoints or player specs; the first is the one paired against")
    pa.add_argument("--json", type=Path)
    ho = sub.add_parser("heldout")
    ho.add_argument("--out", type=Path, required=True)
    ho.add_argument("--labels", default="orig", help="the folder under --out whose label stages to score")
    ho.add_argument("--holdout", type=float, default=0.02)
    ho.add_argument("nets", nargs="+")
    ho.add_argument("--json", type=Path)
    an = sub.add_parser("analyse")
    an.add_argument("--worst", type=int, default=8)
    an.add_argument("--trials", type=int, default=648)
    a = ap.parse_args()
    try:
        run(a)
    except (ValueError, OSError) as e:  # no labels where named, an unreadable checkpoint...: one line
        ap.exit(2, f"run.py {a.cmd}: error: {e}\n")


def run(a) -> None:
    if a.cmd == "extract":
        if a.saves and a.crashed:
            raise ValueError("--saves and --crashed make different folders: one at a time")
        if a.saves:
            extract_saves(a.stages, a.out, a.saves)
        else:
            (extract_crashed if a.crashed else extract)(a.stages, a.out)
    elif a.cmd == "ens-labels":
        ensemble_labels(a.out, a.state, a.other, a.positions, a.workers, a.seed)
    elif a.cmd == "score":
        score(a.nets)
    elif a.cmd == "paired":
        paired(a.nets, a.json)
    elif a.cmd == "heldout":
        heldout(a.out, a.labels, a.holdout, a.nets, a.json)
    elif a.cmd == "analyse":
        analyse(a.worst, a.trials)
    elif a.cmd == "mix":
        mix(a.out, a.stages)
    else:
        fit_net(a.out, a.start, a.name, a.epochs, a.lr, a.rank, a.hidden, a.labels, a.holdout)


if __name__ == "__main__":
    main()
