"""The checker-play benchmark: how much equity a player's plays lose, judged by gnubg 2-ply on stored
backgammon positions, per class of position as gnubg classifies them.

The file (benchmarks/backgammon-checker-play.npz, made by scripts/build_benchmark.py, which documents
its arrays) holds positions from games among different players, each with its dice, every distinct
legal play (the children engine.movegen.legal_plays gives) and gnubg's cubeless money equity of the
plays: 0-ply for all of them, 2-ply for the ones that matter (gnubg 0-ply's best few and the picks of
a panel of players).

A player sees every stored position, its dice and all its legal plays in batches, through the one
``Player.select`` interface the arenas use. The loss of its pick = the best 2-ply equity among the
position's judged plays minus the pick's 2-ply equity, at least 0. A pick that was not judged when the
file was made is judged now by ``judge`` (gnubg-nn 2-ply, when installed), else estimated: its 0-ply
equity plus the position's mean 2-ply minus 0-ply difference over its judged plays. Both are counted.

Error rate (ER, gnubg's benchmark measure) = the mean loss per move x 1000, per class (contact, crashed,
race, bear-off) and over all stored positions (a mix fixed by the builder: about as many of each of
the first three), with a normal 95% interval over positions. Lower is better; gnubg 2-ply itself
scores 0 by construction.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model.net.shipped_files import shipped_folder

DEFAULT_PATH = shipped_folder("benchmarks") / "backgammon-checker-play.npz"
CLASSES = {"contact": (5,), "crashed": (4,), "race": (3,), "bearoff": (1, 2)}
"""Benchmark class -> gnubg-nn ``classify`` codes (model/players/gnubg.py ``classify`` has the rule)."""
ARRAYS = ("positions", "dice", "gnubg_class", "offsets", "children", "equity_0ply", "equity_2ply")


class BenchmarkError(ValueError):
    """A benchmark file that is missing or not one."""


@dataclass(frozen=True)
class Benchmark:
    """Stored positions and the equities of their plays; ``offsets`` delimits each position's plays."""

    positions: np.ndarray  # (P, 28) int8, mover's frame
    dice: np.ndarray  # (P, 2)
    gnubg_class: np.ndarray  # (P,) gnubg-nn class code
    offsets: np.ndarray  # (P + 1,) position i's plays are children[offsets[i]:offsets[i + 1]]
    children: np.ndarray  # (N, 28) int8, every distinct legal play, before the turn passes
    equity_0ply: np.ndarray  # (N,) gnubg 0-ply cubeless money equity, the mover's view
    equity_2ply: np.ndarray  # (N,) gnubg 2-ply's, NaN where not judged
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.positions)

    @property
    def parent(self) -> np.ndarray:
        """(N,) the position of each play."""
        return np.repeat(np.arange(len(self)), np.diff(self.offsets))

    @property
    def classes(self) -> np.ndarray:
        """(P,) each position's benchmark class, as a word of CLASSES."""
        out = np.full(len(self), "", dtype=object)
        for name, codes in CLASSES.items():
            out[np.isin(self.gnubg_class, codes)] = name
        return out

    def best_2ply(self) -> np.ndarray:
        """(P,) the best judged 2-ply equity of each position."""
        judged = np.where(np.isnan(self.equity_2ply), -np.inf, self.equity_2ply)
        return np.maximum.reduceat(judged, self.offsets[:-1])

    def subset(self, index) -> Benchmark:
        """The positions ``index`` (indices or a mask), in that order, with their plays."""
        index = np.arange(len(self))[index]
        plays = np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in index]).astype(np.int64)
        counts = np.diff(self.offsets)[index]
        return Benchmark(self.positions[index], self.dice[index], self.gnubg_class[index],
                         np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), self.children[plays],
                         self.equity_0ply[plays], self.equity_2ply[plays], self.meta)


def load_benchmark(path: str | Path | None = None) -> Benchmark:
    """The benchmark stored at ``path`` (default: the shipped one); BenchmarkError if it cannot be read."""
    path = Path(path) if path is not None else DEFAULT_PATH
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {name: z[name] for name in ARRAYS}
            meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
    except FileNotFoundError:
        raise BenchmarkError(f"benchmark file not found: {path}") from None
    except (OSError, ValueError, KeyError) as e:
        raise BenchmarkError(f"{path} is not a benchmark file ({e})") from None
    bench = Benchmark(**arrays, meta=meta)
    if bench.offsets[-1] != len(bench.children) or len(bench.offsets) != len(bench) + 1:
        raise BenchmarkError(f"{path}: the offsets do not fit the plays")
    return bench


def save_benchmark(path: str | Path, bench: Benchmark) -> None:
    """Write ``bench`` as a compressed .npz that load_benchmark reads (the meta as a JSON string)."""
    arrays = {name: getattr(bench, name) for name in ARRAYS}
    np.savez_compressed(Path(path), **arrays, meta=np.array(json.dumps(bench.meta)))


def choose(player, bench: Benchmark, batch: int = 1024) -> np.ndarray:
    """(P,) the index into ``bench.children`` of the play ``player`` makes in each position."""
    parent = bench.parent
    chosen = np.empty(len(bench), dtype=np.int64)
    for lo in range(0, len(bench), batch):
        hi = min(lo + batch, len(bench))
        a, b = bench.offsets[lo], bench.offsets[hi]
        picks = player.select(bench.positions[lo:hi], bench.dice[lo:hi], bench.children[a:b], parent[a:b] - lo)
        chosen[lo:hi] = a + np.asarray(picks)
    if ((chosen < bench.offsets[:-1]) | (chosen >= bench.offsets[1:])).any():
        raise ValueError(f"{getattr(player, 'name', 'the player')} picked a play of another position")
    return chosen


@dataclass(frozen=True)
class Losses:
    """Each position's loss and how its pick's equity was found."""

    loss: np.ndarray  # (P,) equity lost by the pick, >= 0
    judged_now: np.ndarray  # (P,) bool: the pick was judged at scoring time
    estimated: np.ndarray  # (P,) bool: the pick's 2-ply equity was estimated from 0-ply


def losses(bench: Benchmark, chosen: np.ndarray, judge: Callable[[np.ndarray], np.ndarray] | None = None) -> Losses:
    """The loss of each pick (``chosen`` indexes ``bench.children``) against gnubg 2-ply's best.

    ``judge(children) -> 2-ply equities`` scores picks that were not judged when the file was made;
    without it they are estimated (see the module docstring)."""
    equity = bench.equity_2ply[chosen].astype(np.float64)
    missing = np.isnan(equity)
    judged_now, estimated = np.zeros(len(bench), bool), np.zeros(len(bench), bool)
    if missing.any() and judge is not None:
        equity[missing] = judge(bench.children[chosen[missing]])
        judged_now = missing
    elif missing.any():
        offset = bench.equity_2ply - bench.equity_0ply  # NaN where not judged
        sums = np.add.reduceat(np.nan_to_num(offset), bench.offsets[:-1])
        counts = np.add.reduceat(np.isfinite(offset).astype(np.int64), bench.offsets[:-1])
        equity[missing] = bench.equity_0ply[chosen[missing]] + (sums / counts)[missing]
        estimated = missing
    return Losses(np.maximum(bench.best_2ply() - equity, 0.0), judged_now, estimated)


def error_rates(bench: Benchmark, loss: np.ndarray) -> dict:
    """{class or "overall": {"positions", "er", "ci95"}}: mean loss x 1000 and its normal 95% half-width."""
    out = {}
    classes = bench.classes
    for name in [*CLASSES, "overall"]:
        x = 1000 * loss[classes == name] if name != "overall" else 1000 * loss
        if len(x):
            half = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
            out[name] = {"positions": len(x), "er": float(x.mean()), "ci95": float(half)}
    return out


def gnubg_judge() -> Callable[[np.ndarray], np.ndarray] | None:
    """gnubg-nn 2-ply as a judge of plays (the builder's own judge), or None when it is not installed."""
    from model.players.gnubg import GnubgUnavailable, child_equities, import_gnubg

    try:
        gnubg = import_gnubg()
    except GnubgUnavailable:
        return None
    return lambda children: child_equities(gnubg, children, 2)


def score(player, bench: Benchmark, judge: Callable[[np.ndarray], np.ndarray] | None = None) -> dict:
    """A player's error rates, the number of picks judged now or estimated, and its losses (P,)."""
    result = losses(bench, choose(player, bench), judge)
    return {"error_rates": error_rates(bench, result.loss), "judged_now": int(result.judged_now.sum()),
            "estimated": int(result.estimated.sum()), "loss": result.loss}
