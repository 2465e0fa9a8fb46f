"""A pruning net for the look-ahead's inner plays: data, fit and how often it keeps the net's choice.

    python experiments/prune_net/prune.py data --stages RUN/stages --out W [--parents 120000]
    python experiments/prune_net/prune.py fit --out W [--hidden 64] [--epochs 6]
    python experiments/prune_net/prune.py keep --out W [--k 2,3,4,6,8]

``data``: the self-play positions and rolls of the recipe's label stages (their ``parents``), every
legal play of each, and the shipped net's 0-ply cubeless equity of each play for the side that made
it (the value the look-ahead picks an inner play by). ``fit``: a net of the board alone (each of the
50 slots, a point or bar of a side, looks up a row by its checker count; one hidden layer; one
output) fitted to those equities less their roll's mean (only the order within a roll matters).
``keep``: on held-out rolls, how often the shipped net's best play is among the pruning net's K best,
and the equity lost where it is not, beside pubeval's K best (hint --prune K).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import model.runtime  # noqa: F401  (one BLAS thread)


def fail(message: str) -> None:
    print(f"prune.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def cmd_data(args) -> None:
    from engine import compiled
    from engine.movegen import legal_plays
    from model.net.checkpoint import load_net
    from model.net.equity import cubeless_equity
    from model.net.evaluator import ExactEndgames, child_probabilities

    compiled.use_numba(True)
    stages = sorted(p for p in args.stages.glob("l1[0-5]") if p.is_dir())
    if not stages:
        fail(f"no label stages l10..l15 under {args.stages}")
    chunks = [c for s in stages for c in sorted(s.glob("chunk_*.npz"))]
    rng = np.random.default_rng(args.seed)
    rng.shuffle(chunks)
    parents, dice = [], []
    for c in chunks:
        with np.load(c) as z:
            parents.append(z["parents"])
            dice.append(z["dice"])
        if sum(len(p) for p in parents) >= args.parents:
            break
    parents = np.concatenate(parents)[: args.parents]
    dice = np.concatenate(dice)[: args.parents].astype(np.int64)
    net, _ = load_net(ROOT / "checkpoints" / "backgammon.safetensors", "backgammon", backend="numpy")
    teacher = ExactEndgames(net)
    start = time.process_time()
    children, group = legal_plays("backgammon", parents, dice)
    equity = np.empty(len(children), dtype=np.float32)
    for s in range(0, len(children), 200_000):
        equity[s:s + 200_000] = cubeless_equity("backgammon", child_probabilities(teacher, children[s:s + 200_000]))
    args.out.mkdir(parents=True, exist_ok=True)
    np.savez(args.out / "data.npz", children=children, group=group, equity=equity, parents=parents, dice=dice)
    print(f"{len(parents):,} rolls, {len(children):,} plays, {time.process_time() - start:.0f} s CPU")


def slots(children: np.ndarray) -> np.ndarray:
    from model.net.contact_sides import side_counts

    return side_counts(children).reshape(len(children), 50).astype(np.int64)


def split(group: np.ndarray, holdout: float):
    n = int(group.max()) + 1
    cut = int(n * (1 - holdout))
    return group < cut, group >= cut


def data_file(out: Path) -> Path:
    path = out / "data.npz"
    if not path.is_file():
        fail(f"{path} is missing: run the data step first")
    return path


def cmd_fit(args) -> None:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    z = np.load(data_file(args.out))
    children, group, equity = z["children"], z["group"].astype(np.int64), z["equity"]
    train, _ = split(group, args.holdout)
    x = torch.from_numpy(slots(children[train]) + 16 * np.arange(50))
    g = torch.from_numpy(group[train])
    y = torch.from_numpy(equity[train].astype(np.float32))
    n_groups = int(group[train].max()) + 1
    table = torch.nn.Embedding(50 * 16, args.hidden)
    torch.nn.init.normal_(table.weight, 0, 0.1)
    bias = torch.nn.Parameter(torch.zeros(args.hidden))
    out = torch.nn.Linear(args.hidden, 1)
    params = [table.weight, bias, *out.parameters()]
    opt = torch.optim.Adam(params, lr=args.lr)
    # batches of whole rolls: the loss compares each play with its roll's mean
    bounds = np.flatnonzero(np.r_[True, group[train][1:] != group[train][:-1], True])
    order = np.arange(len(bounds) - 1)
    for epoch in range(args.epochs):
        rng = np.random.default_rng(args.seed + epoch)
        rng.shuffle(order)
        total, rows, t0 = 0.0, 0, time.process_time()
        for b in range(0, len(order), args.batch):
            picks = order[b:b + args.batch]
            idx = torch.from_numpy(np.concatenate([np.arange(bounds[i], bounds[i + 1]) for i in picks]))
            s = out(torch.relu(table(x[idx]).sum(1) + bias)).squeeze(1)
            t = y[idx]
            gi = g[idx]
            _, inv, counts = torch.unique_consecutive(gi, return_inverse=True, return_counts=True)
            ds = s - torch.zeros(len(counts)).index_add_(0, inv, s)[inv] / counts[inv]
            dt = t - torch.zeros(len(counts)).index_add_(0, inv, t)[inv] / counts[inv]
            loss = ((ds - dt) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(idx)
            rows += len(idx)
        for p in opt.param_groups:
            p["lr"] *= args.decay
        print(f"epoch {epoch + 1}: loss {total / rows:.5f} ({time.process_time() - t0:.0f} s)", flush=True)
    weights = {"table": table.weight.detach().numpy().reshape(50, 16, args.hidden), "bias": bias.detach().numpy(),
               "out": out.weight.detach().numpy()[0], "out_bias": out.bias.detach().numpy()}
    np.savez(args.out / f"prune_h{args.hidden}.npz", **weights)
    print(f"saved {args.out / f'prune_h{args.hidden}.npz'} ({n_groups:,} rolls)")


def prune_scores(weights, children: np.ndarray) -> np.ndarray:
    t = weights["table"]
    s = slots(children)
    h = np.maximum(t[np.arange(50), s].sum(1) + weights["bias"], 0.0)
    return h @ weights["out"] + weights["out_bias"]


def cmd_keep(args) -> None:
    from engine.board import has_contact
    from model.search.top_plays import scores as pubeval_scores

    z = np.load(data_file(args.out))
    children, group, equity = z["children"], z["group"].astype(np.int64), z["equity"]
    _, held = split(group, args.holdout)
    children, group, equity = children[held], group[held], equity[held]
    parents = z["parents"]
    contact = has_contact("backgammon", parents)[group]
    rows = {"rolls": len(np.unique(group))}
    scorers = {"pubeval": pubeval_scores(children, contact).astype(np.float64)}
    for path in sorted(args.out.glob("prune_h*.npz")):
        scorers[path.stem] = prune_scores(np.load(path), children)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    ends = np.r_[starts[1:], len(group)]
    many = (ends - starts) > 1
    for name, score in scorers.items():
        for k in args.k:
            missed, lost = 0, 0.0
            for a, b in zip(starts[many], ends[many]):
                e, s = equity[a:b], score[a:b]
                top = np.argsort(-s, kind="stable")[:k]
                best = e.max()
                got = e[top].max()
                if got < best:
                    missed += 1
                    lost += best - got
            n = int(many.sum())
            rows[f"{name} K={k}"] = {"missed": missed, "of": n, "share": missed / n, "mean_loss": float(lost) / n}
            print(f"{name:12s} K={k}: best play kept in {1 - missed / n:.2%} of {n:,} rolls, "
                  f"equity lost {1000 * lost / n:.3f} mEMG a roll", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--stages", type=Path, required=True)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--parents", type=int, default=120_000)
    d.add_argument("--seed", type=int, default=1)
    f = sub.add_parser("fit")
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--hidden", type=int, default=64)
    f.add_argument("--epochs", type=int, default=6)
    f.add_argument("--lr", type=float, default=3e-3)
    f.add_argument("--decay", type=float, default=0.6)
    f.add_argument("--batch", type=int, default=256, help="rolls a batch")
    f.add_argument("--holdout", type=float, default=0.05)
    f.add_argument("--seed", type=int, default=1)
    k = sub.add_parser("keep")
    k.add_argument("--out", type=Path, required=True)
    k.add_argument("--k", type=lambda t: [int(v) for v in t.split(",")], default=[2, 3, 4, 6, 8])
    k.add_argument("--holdout", type=float, default=0.05)
    k.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    {"data": cmd_data, "fit": cmd_fit, "keep": cmd_keep}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
