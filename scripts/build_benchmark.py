"""Build the backgammon checker-play benchmark that ``python evaluate.py benchmark PLAYER`` scores.

    nice -n 5 python scripts/build_benchmark.py --seed 1 --workers 2      (the shipped file, 29 min)
    python scripts/build_benchmark.py --per-class 20 --out /tmp/bench.npz  (a quick look)

1. Positions from games among different players (PAIRINGS, mirrored dice, model/arena/cubeless.py):
   the shipped net, the feature-version-3 run, pubeval, the heuristic, gnubg 0-ply, gnubg 0-ply with
   Gaussian noise on its equities, and players that play a random legal move now and then. Every
   position a player faced with more than one distinct legal play is kept; repeats of
   (position, roll) are dropped.
2. Classes as gnubg classifies them (gnubg-nn's ``classify``; the rule is quoted in
   model/players/gnubg.py ``classify``): contact, crashed, race and bear-off. Each class is shuffled
   (seeded) and walked until ``--per-class`` positions are found (``--bearoff`` for bear-offs) whose
   legal plays are not all within ``--min-spread`` of each other by gnubg 0-ply: a position where
   every play is as good as any other measures nothing.
3. Every legal play of a kept position is stored with gnubg 0-ply's cubeless money equity; the plays
   that matter (gnubg 0-ply's ``--top`` best, and the plays the PANEL players pick) also get gnubg
   2-ply's (gnubg's numbering: two rolls deeper; gnubg-nn ``probabilities(board, 2)`` of the position
   after the play, the opponent on roll). The 2-ply step takes nearly all the time: about 85 ms a
   contact play, 40 a race play, 30 a crashed play, 10 a bear-off play on one core of the 2-core
   machine; ``--workers`` processes share it.

The file (numpy .npz, compressed; read by model/arena/benchmark.py): positions (P, 28) int8 in the
mover's frame, dice (P, 2), gnubg_class (P,) gnubg-nn's class code, offsets (P+1,) into children
(N, 28) int8, every distinct legal play's position before the turn passes, equity_0ply (N,) and
equity_2ply (N,) float32 (NaN where not judged at 2-ply), and meta (a JSON string: seed, counts,
pairings, gnubg-nn version, seconds). gnubg is only a yardstick here: nothing in the file may enter
training.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # the numpy nets and gnubg run single-threaded

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import numpy as np

from engine.groups import group_argmax, group_starts
from engine.movegen import legal_plays
from model.players.base import Player, RandomPlayer

GAME = "backgammon"
SHIPPED = "checkpoints/backgammon.safetensors"
V3 = "experiments/resume/backgammon-v3/last.pt"
PAIRINGS = [  # (player A, player B, mirrored games); "noisy" and "explore:" are defined below
    (SHIPPED, "noisy-gnubg", 200),
    (V3, "pubeval", 200),
    ("heuristic", "gnubg-0ply", 200),
    ("pubeval", SHIPPED, 200),
    ("explore:" + SHIPPED, "heuristic", 200),
    ("explore:pubeval", "noisy-gnubg", 200),
    (V3, "explore:gnubg-0ply", 200),
    ("explore:heuristic", V3, 200),
]
PANEL = [SHIPPED, V3, "pubeval", "heuristic"]  # their picks are judged at 2-ply besides gnubg's top
NOISE = 0.05  # standard deviation of the noise on gnubg 0-ply's equities (points)
EXPLORE = 0.15  # share of moves the exploring players make at random
CLASS_CODES = {"contact": (5,), "crashed": (4,), "race": (3,), "bearoff": (1, 2)}


class NoisyGnubg(Player):
    """gnubg 0-ply's cubeless equity of every play plus Gaussian noise; the best of those."""

    def __init__(self, gnubg, seed: int):
        super().__init__(GAME)
        self.gnubg, self.rng, self.name = gnubg, np.random.default_rng(seed), "noisy-gnubg"

    def select(self, positions, dice, children, parent):
        from model.players.gnubg import child_equities

        scores = child_equities(self.gnubg, children, 0) + self.rng.normal(0, NOISE, len(children))
        return group_argmax(scores, parent, len(positions))


class Exploring(Player):
    """``inner``'s play, or with probability EXPLORE a random legal one."""

    def __init__(self, inner: Player, seed: int):
        super().__init__(GAME)
        self.inner, self.random = inner, RandomPlayer(GAME, seed=seed)
        self.rng, self.name = np.random.default_rng(seed + 1), "explore:" + inner.name

    def select(self, positions, dice, children, parent):
        chosen = self.inner.select(positions, dice, children, parent)
        wild = self.rng.random(len(positions)) < EXPLORE
        return np.where(wild, self.random.select(positions, dice, children, parent), chosen)


class Recording(Player):
    """Wraps a player and keeps every (position, roll) where it had more than one distinct play."""

    def __init__(self, inner: Player):
        super().__init__(GAME)
        self.inner, self.name, self.rows = inner, inner.name, []

    def reset(self) -> None:
        self.inner.reset()

    def select(self, positions, dice, children, parent):
        real = np.bincount(parent, minlength=len(positions)) > 1
        self.rows.append(np.concatenate([positions[real], np.sort(dice[real], axis=1)], axis=1).astype(np.int8))
        return self.inner.select(positions, dice, children, parent)


def make(spec: str, gnubg, seed: int) -> Player:
    """A player of PAIRINGS or PANEL by its spec."""
    from model.players.registry import make_player

    if spec.startswith("explore:"):
        return Exploring(make(spec.removeprefix("explore:"), gnubg, seed), seed)
    if spec == "noisy-gnubg":
        return NoisyGnubg(gnubg, seed)
    local = spec.startswith(("checkpoints/", "experiments/"))  # a file of this tree, wherever it is run from
    return make_player(str(ROOT / spec) if local else spec, GAME, seed=seed)


def game_positions(gnubg, seed: int) -> tuple[np.ndarray, int]:
    """Distinct (position, sorted roll) rows (M, 30) with a real choice from the PAIRINGS games."""
    from model.arena.cubeless import play_games

    rows, games = [], 0
    for i, (a, b, n) in enumerate(PAIRINGS):
        first, second = Recording(make(a, gnubg, seed + i)), Recording(make(b, gnubg, seed + 100 + i))
        play_games(first, second, n, seed=seed * 1000 + i)
        rows += first.rows + second.rows
        games += n
    return np.unique(np.concatenate(rows), axis=0), games


def choose_positions(gnubg, pool: np.ndarray, quota: dict, min_spread: float, seed: int):
    """Per class, pool rows in seeded random order until ``quota`` of them have a play spread of at
    least ``min_spread`` by gnubg 0-ply. Returns [(class, row, children, equity_0ply)] and the
    number of rows looked at and skipped for a small spread."""
    from model.players.gnubg import child_equities, classify

    codes = classify(gnubg, pool[:, :28])
    rng = np.random.default_rng(seed)
    kept, looked, flat = [], 0, 0
    for name, want in quota.items():
        rows = np.flatnonzero(np.isin(codes, CLASS_CODES[name]))
        found = 0
        for i in rows[rng.permutation(len(rows))]:
            if found == want:
                break
            looked, row = looked + 1, pool[i]
            children, _ = legal_plays(GAME, row[None, :28], row[None, 28:])
            equity = child_equities(gnubg, children, 0)
            if equity.max() - equity.min() < min_spread:
                flat += 1
                continue
            kept.append((int(codes[i]), row, children, equity))
            found += 1
        if found < want:
            print(f"warning: only {found} {name} positions (asked for {want}): play more games",
                  file=sys.stderr)
    return kept, looked, flat


def panel_picks(kept, gnubg, seed: int) -> list[set]:
    """For each kept position, the indices (into its children) that the PANEL players pick."""
    positions = np.stack([row[:28] for _, row, _, _ in kept])
    dice = np.stack([row[28:] for _, row, _, _ in kept])
    children = np.concatenate([c for _, _, c, _ in kept])
    parent = np.repeat(np.arange(len(kept)), [len(c) for _, _, c, _ in kept])
    start, _ = group_starts(parent, len(kept))
    picks = [set() for _ in kept]
    for spec in PANEL:
        chosen = make(spec, gnubg, seed).select(positions, dice, children, parent) - start
        for i, c in enumerate(chosen):
            picks[i].add(int(c))
    return picks


_GNUBG = None


def _judge(children: np.ndarray) -> np.ndarray:
    """Worker: gnubg 2-ply's equity of each of ``children`` (imports gnubg once per process)."""
    global _GNUBG
    from model.players.gnubg import child_equities, import_gnubg

    _GNUBG = _GNUBG or import_gnubg()
    return child_equities(_GNUBG, children, 2)


def judge(kept, picks, top: int, workers: int) -> list[np.ndarray]:
    """gnubg 2-ply equity (NaN where not judged) of every play of every kept position."""
    judged = [sorted(set(np.argsort(-eq, kind="stable")[:top].tolist()) | p)
              for (_, _, _, eq), p in zip(kept, picks)]
    tasks = [children[j] for (_, _, children, _), j in zip(kept, judged)]
    total, done, started = sum(len(t) for t in tasks), 0, time.perf_counter()
    out = []
    with Pool(workers) as pool:
        for i, equity in enumerate(pool.imap(_judge, tasks, chunksize=4)):
            full = np.full(len(kept[i][2]), np.nan, dtype=np.float32)
            full[judged[i]] = equity
            out.append(full)
            done += len(tasks[i])
            if (i + 1) % 100 == 0:
                spent = time.perf_counter() - started
                print(f"{i + 1}/{len(tasks)} positions, {done}/{total} plays judged at 2-ply, "
                      f"{spent:.0f} s, about {spent * (total - done) / done:.0f} s to go",
                      file=sys.stderr, flush=True)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "backgammon-checker-play.npz"))
    parser.add_argument("--seed", type=int, default=1, help="seed of the games, the noise and the sample")
    parser.add_argument("--per-class", type=int, default=1100, help="contact, crashed and race positions each")
    parser.add_argument("--bearoff", type=int, default=400, help="bear-off positions")
    parser.add_argument("--top", type=int, default=8, help="gnubg 0-ply's best plays judged at 2-ply")
    parser.add_argument("--min-spread", type=float, default=0.003,
                        help="skip positions whose plays are all within this equity by gnubg 0-ply")
    parser.add_argument("--workers", type=int, default=2, help="processes for the 2-ply judging")
    args = parser.parse_args(argv)
    if min(args.per_class, args.bearoff, args.seed) < 0 or args.top < 1 or args.workers < 1:
        parser.error("--per-class, --bearoff and --seed must be at least 0, --top and --workers at least 1")
    from model.players.gnubg import GnubgUnavailable, import_gnubg

    try:
        gnubg = import_gnubg()
    except GnubgUnavailable as e:
        parser.error(str(e))
    from gnubg_agreement import judge_version

    from model.arena.benchmark import Benchmark, save_benchmark

    seconds, t0 = {}, time.perf_counter()
    pool, games = game_positions(gnubg, args.seed)
    seconds["games"] = time.perf_counter() - t0
    quota = {"contact": args.per_class, "crashed": args.per_class, "race": args.per_class,
             "bearoff": args.bearoff}
    kept, looked, flat = choose_positions(gnubg, pool, quota, args.min_spread, args.seed)
    picks = panel_picks(kept, gnubg, args.seed)
    seconds["choose"] = time.perf_counter() - t0 - seconds["games"]
    print(f"{games} games, {len(pool)} distinct positions with a choice; looked at {looked}, "
          f"{flat} too flat, kept {len(kept)}; {seconds['games']:.0f} + {seconds['choose']:.0f} s",
          file=sys.stderr, flush=True)
    equity2 = judge(kept, picks, args.top, args.workers)
    seconds["judge"] = time.perf_counter() - t0 - seconds["games"] - seconds["choose"]
    counts = [len(c) for _, _, c, _ in kept]
    meta = {"game": GAME, "seed": args.seed, "games": games, "pool": len(pool), "looked": looked,
            "too_flat": flat, "min_spread": args.min_spread, "top": args.top, "panel": PANEL,
            "pairings": PAIRINGS, "noise": NOISE, "explore": EXPLORE,
            "judge": f"gnubg-nn {judge_version()}, probabilities(board, 2), cubeless money equity",
            "judged_plays": int(sum(np.isfinite(e).sum() for e in equity2)), "plays": int(sum(counts)),
            "seconds": {k: round(v) for k, v in seconds.items()},
            "command": "python scripts/build_benchmark.py " + " ".join(argv)}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_benchmark(out, Benchmark(
        positions=np.stack([r[:28] for _, r, _, _ in kept]), dice=np.stack([r[28:] for _, r, _, _ in kept]),
        gnubg_class=np.array([c for c, _, _, _ in kept], dtype=np.int8),
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
        children=np.concatenate([c for _, _, c, _ in kept]).astype(np.int8),
        equity_0ply=np.concatenate([e for _, _, _, e in kept]).astype(np.float32),
        equity_2ply=np.concatenate(equity2), meta=meta))
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB): {len(kept)} positions, {meta['plays']} plays, "
          f"{meta['judged_plays']} judged at 2-ply; {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
