"""Fewer active hidden units for the same play: fine-tune the shipped backgammon net toward its own
values with an L1 price on its hidden units (an experiment; see README.md here).

    python experiments/sparse_net/sparsify.py data WORK [--positions 80000] [--seed 1]
    python experiments/sparse_net/sparsify.py fit WORK OUT.safetensors [--l1 1e-4] [--epochs 4]
    python experiments/sparse_net/sparsify.py active NET.safetensors [NET ...] [--work WORK]
    python experiments/sparse_net/sparsify.py speed NET.safetensors [NET ...]

The compiled forward pass adds up one weight row per non-zero input and per active hidden unit
(model/net/forward_numba.py), so a child's second layer costs in proportion to the first layer's
positive units (about 58 of 256 on mid-game children) and its output layer to the second's (about
71). The question: how far can fine-tuning cut those counts before play suffers?

``data``: the shipped net plays itself (model/train/td.py's SelfPlayActor, greedy) until WORK holds
``--positions`` positions on roll; each is given a roll of its own seeded dice, and all of that
roll's distinct plays are kept as one family, labelled with the shipped net's 0-ply probabilities.
The last 2% of the families are held out. ``fit``: the student starts as the shipped net itself
(so its error starts at zero), and is fitted to those labels by the recipe's fit loss (squared error
of the probabilities plus 3 times the ranking term within each family, model/train/td.py
``TDLearner.update``) plus ``--l1`` times the hidden units' values (both layers, after the ReLU)
each weighted by the norm of its column in the next layer, summed over the units and averaged over
the rows (weighted, so that scaling a layer up and the next down, which a ReLU net can do freely,
does not lower the price). The hidden weights are rounded to float16 values at the end, as the shipped net's are (so
the kernel reads them as halves). ``active``: each net's mean positive units per layer on the
children of 1,024 seeded mid-game positions (the bench's), and the held-out choice error against
the shipped net (x 1000: the shipped net's equity lost a family by the student's pick). ``speed``:
CPU a child of the fused kernel (``child_probabilities`` with parents) on the same children, the nets
taking turns, medians of 11 passes.
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

SHIPPED = "checkpoints/backgammon.safetensors"


def make_data(work: Path, positions: int, seed: int) -> None:
    import torch

    from engine.movegen import legal_plays
    from model.net.checkpoint import load_net
    from model.train.td import SelfPlayActor

    torch.set_num_threads(1)
    net, _ = load_net(SHIPPED, "backgammon", backend="torch")
    teacher, _ = load_net(SHIPPED, "backgammon", backend="numpy")
    actor = SelfPlayActor(net, games=256, seed=seed)
    found, t0 = [], time.process_time()
    while sum(len(p) for p in found) < positions:
        found.append(actor.play(16384).positions)
    on_roll = np.concatenate(found)[:positions]
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, size=(len(on_roll), 2))
    children, parent = legal_plays("backgammon", on_roll, dice)
    labels = teacher.probabilities(children).astype(np.float32)
    work.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(work / "families.npz", children=children, family=parent, labels=labels)
    print(f"{len(on_roll):,} positions, {len(children):,} plays in families, {time.process_time() - t0:.1f} s CPU")


def split(work: Path, holdout: float = 0.02):
    data = np.load(work / "families.npz")
    fam = data["family"]
    cut = int(fam.max() * (1 - holdout))
    fit, held = fam < cut, fam >= cut
    return ((data["children"][fit], data["labels"][fit], fam[fit]),
            (data["children"][held], data["labels"][held], fam[held]))


def hidden_and_output(net, x):
    """The student's hidden units after each ReLU and its probabilities."""
    import torch

    from model.net.equity import chain_heads

    units, h = [], x
    for layer in net.body:
        h = layer(h)
        if isinstance(layer, torch.nn.ReLU):
            units.append(h)
    s = torch.sigmoid(net.head(h))
    return units, chain_heads(net.config.game, s, lambda cols: torch.stack(cols, dim=1))


def fit(work: Path, out: Path, l1: float, epochs: int, lr: float, seed: int) -> None:
    import torch

    from model.net.checkpoint import load_net, save
    from model.net.equity import cubeless_equity
    from model.net.features import encode

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    (pos, tgt, fam), held = split(work)
    net, blob = load_net(SHIPPED, "backgammon", backend="torch")
    x = torch.from_numpy(encode("backgammon", pos, net.config.feature_version))
    y = torch.from_numpy(tgt)
    fam_t = torch.from_numpy(np.unique(fam, return_inverse=True)[1].reshape(-1))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    log = []
    for epoch in range(epochs):
        net.train()
        shuffled = torch.randperm(int(fam_t.max()) + 1, generator=gen)
        order = torch.argsort(shuffled[fam_t], stable=True)
        t0, sums = time.process_time(), np.zeros(3)
        for i in range(0, len(x), 256):
            idx = order[i:i + 256]
            units, probs = hidden_and_output(net, x[idx])
            fit_loss = torch.nn.functional.mse_loss(probs, y[idx], reduction="sum") / len(idx)
            _, inv, counts = torch.unique(fam_t[idx], return_inverse=True, return_counts=True)
            err = cubeless_equity("backgammon", probs) - cubeless_equity("backgammon", y[idx])
            mean = torch.zeros(len(counts)).index_add_(0, inv, err) / counts
            fit_loss = fit_loss + 3.0 * ((err - mean[inv]) ** 2).sum() / len(idx)
            # each unit's value times the size of what it feeds (its column's norm in the next layer):
            # a price that rescaling a layer (ReLU is homogeneous) cannot dodge, as a plain L1 could
            nexts = [m for m in net.body if isinstance(m, torch.nn.Linear)][1:] + [net.head]
            price = sum((u * w.weight.norm(dim=0)).sum(dim=1).mean() for u, w in zip(units, nexts))
            loss = fit_loss + l1 * price
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sums += (float(fit_loss.detach()), float(price.detach()), 1)
        held_err, active = choice_error(net, held), active_units(net, held[0][:20000])
        row = {"epoch": epoch + 1, "fit_loss": sums[0] / sums[2], "l1_sum": sums[1] / sums[2],
               "held_choice_error_x1000": held_err, "active": active, "cpu_s": time.process_time() - t0}
        log.append(row)
        print(json.dumps(row), flush=True)
    with torch.no_grad():  # the hidden weights as float16 values, as the recipe's export has them
        for layer in net.body:
            if isinstance(layer, torch.nn.Linear):
                layer.weight.copy_(layer.weight.half().float())
    save(out, net, made_by=blob.get("made_by"))
    Path(str(out) + ".json").write_text(json.dumps({"l1": l1, "epochs": epochs, "lr": lr, "log": log}, indent=1))


def choice_error(net, held) -> float:
    """x 1000: the shipped net's equity lost a family by ``net``'s pick instead of the shipped net's."""
    from engine.groups import group_argmax
    from model.net.equity import cubeless_equity

    pos, tgt, fam = held
    mine = np.asarray(cubeless_equity("backgammon", net.probabilities(pos)))
    theirs = np.asarray(cubeless_equity("backgammon", tgt.astype(np.float64)))
    group = np.unique(fam, return_inverse=True)[1].reshape(-1)  # families 0..n-1, in order
    n = int(group.max()) + 1
    lost = theirs[group_argmax(theirs, group, n)] - theirs[group_argmax(mine, group, n)]
    return 1000 * float(np.mean(lost))


def active_units(net, positions) -> list[float]:
    """Mean positive hidden units per layer on these positions."""
    import torch

    from model.net.features import encode

    with torch.no_grad():
        units, _ = hidden_and_output(net.eval(), torch.from_numpy(encode("backgammon", positions,
                                                                         net.config.feature_version)))
    return [float((u > 0).sum(dim=1).float().mean()) for u in units]


def report(nets: list[str], work: Path | None) -> None:
    from engine.movegen import legal_plays
    from engine.tools.sample import random_positions
    from model.net.checkpoint import load_net

    mid, dice = random_positions("backgammon", 1024, seed=3, kind="midgame")
    children, _ = legal_plays("backgammon", mid, dice)
    held = split(work)[1] if work else None
    for path in nets:
        net, _ = load_net(path, "backgammon", backend="torch")
        row = {"net": path, "active_on_bench_children": active_units(net, children)}
        if held is not None:
            row["held_choice_error_x1000"] = choice_error(net, held)
        print(json.dumps(row), flush=True)


def speed(nets: list[str]) -> None:
    from engine import compiled
    from engine.movegen import legal_plays
    from engine.tools.sample import random_positions
    from model.net.checkpoint import load_net
    from model.net.evaluator import child_probabilities

    compiled.use_numba(True)
    mid, dice = random_positions("backgammon", 1024, seed=3, kind="midgame")
    children, parent = legal_plays("backgammon", mid, dice)
    loaded = {path: load_net(path, "backgammon", backend="numpy")[0] for path in nets}
    for net in loaded.values():
        child_probabilities(net, children, parents=(mid, parent))  # the kernels compiled or loaded
    times: dict[str, list[float]] = {path: [] for path in nets}
    for _ in range(11):
        for path, net in loaded.items():
            start = time.process_time()
            child_probabilities(net, children, parents=(mid, parent))
            times[path].append((time.process_time() - start) / len(children) * 1e6)
    for path, values in times.items():
        print(json.dumps({"net": path, "us_a_child_median": float(np.median(values)), "min": min(values)}))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    d = sub.add_parser("data")
    d.add_argument("work", type=Path)
    d.add_argument("--positions", type=int, default=80_000)
    d.add_argument("--seed", type=int, default=1)
    f = sub.add_parser("fit")
    f.add_argument("work", type=Path)
    f.add_argument("out", type=Path)
    f.add_argument("--l1", type=float, default=1e-4)
    f.add_argument("--epochs", type=int, default=4)
    f.add_argument("--lr", type=float, default=1e-4)
    f.add_argument("--seed", type=int, default=1)
    a = sub.add_parser("active")
    a.add_argument("nets", nargs="+")
    a.add_argument("--work", type=Path)
    sub.add_parser("speed").add_argument("nets", nargs="+")
    args = parser.parse_args(argv)
    if args.step == "data":
        make_data(args.work, args.positions, args.seed)
    elif args.step == "fit":
        fit(args.work, args.out, args.l1, args.epochs, args.lr, args.seed)
    elif args.step == "active":
        report(args.nets, args.work)
    else:
        speed(args.nets)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
