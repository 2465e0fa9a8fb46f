"""Labels of the net's own look-ahead, in chunks on disk, and judging picks among labelled candidates.

A label stage (model/train/pipeline.py, kind "labels") plays the net's own self-play (the actor of
model/train/td.py) and takes a random ``1/every`` of the positions on roll at each ply, bear-offs left
out (the databases answer those exactly). Each is labelled with the n-ply value

    V2(x) = sum over rolls r of weight(r) * flip( V1(best play of r from x) )

(``plies`` 2; V1 the one-ply expectation), every "best play" the best by the net at 0-ply among
pubeval's ``prune`` best of that roll (0: every play): model/search/lookahead.py's
``evaluate_positions(..., plies, prune=K)``, with bear-offs from the exact databases. Pruned to 8 it
runs about 4 times faster than over every play and differs from it by 0.003 in cubeless equity on
average. Nardi has no pubeval filter: every play, slow.

Each chunk's games start together from the opening, so without ``warmup`` a chunk holds positions
of the first plies only; ``warmup`` W plays W plies first (games that end are dealt again, so by then
they are spread over every stage of a game) and a larger ``every`` spreads the sampling wider.

``siblings`` K: instead of the sampled position itself, label the candidate plays of one random roll
from it, the net's K best at 0-ply within ``margin`` of its best (lookahead.move_filter), each as the
position after the play with the opponent on roll. The net picks a play by comparing exactly such
siblings, so these are the positions where its 0-ply errors cost equity. The chunks then also hold
``parents`` and ``dice`` (the sampled positions and their rolls) and ``group``, the row of ``parents``
each label's play came from; ``choice_losses`` says what picking by other numbers (the net at 0-ply,
a shallower look-ahead) costs by the labels' own judgement (model/train/fit.py's held-out choice error).

Chunk i of a stage is drawn from seed ``seed + i`` alone, so the labels are the same however the job
was cut or spread over workers, and a chunk is written atomically (``write_chunk``): a job stopped at
any moment loses at most the chunks under way. Chunks are stored compactly (``CHUNK_DTYPES``:
positions int8, outcome probabilities float16, compressed): ``bytes_per_label`` measures a folder.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np

from engine.board import CHECKERS, OFF, flip
from engine.groups import group_argmax
from engine.movegen import legal_plays
from model.net.bearoff import bearoff_mask
from model.net.equity import cubeless_equity
from model.net.evaluator import child_probabilities

ENSEMBLE_TEACHER = "labelled by the mean with"
"""How the record of a fit to an ensemble's labels names the other nets of the teacher (``teacher_also``,
which made the shipped nardi net); scripts/release_tables.py reads it back."""

CHUNK_DTYPES = {"positions": np.int8, "targets": np.float16, "group": np.int32, "parents": np.int8,
                "dice": np.int8}
"""How a chunk's arrays are stored: a float16 probability is within 0.00025 of the float32 one (about a
tenth of the look-ahead's own noise), and the whole chunk is compressed."""

LOOK = 64
"""Positions per look-ahead call: at 2-ply each brings some 3,500 children to score, so 64 keep the
batches at a few hundred thousand rows (256: 12% more CPU, the temporaries outgrowing memory reuse)."""


@dataclass(frozen=True)
class LabelSettings:
    """How a label stage draws and labels its positions (the module's docstring)."""

    positions: int = 100_000  # labels wanted in all
    chunk: int = 2_000  # labels per chunk file
    plies: int = 2  # look-ahead depth of the labels (0, 1 or 2; 0 with teacher_also: the ensemble's own value)
    prune: int = 8  # pubeval's K best plays a roll at every level (0 = every play)
    every: int = 4  # keep one position on roll in this many
    siblings: int = 0  # label the K best candidate plays of a random roll instead (0: off)
    margin: float = 0.16  # with siblings: candidates within this equity of the net's best
    warmup: int = 0  # plies each chunk's games play before positions are taken
    actor: str = "one-ply"  # the self-play actor's mode: one-ply (among pubeval's prune best) or sample
    parallel_games: int = 128  # games each chunk's self-play plays side by side
    seed: int = 1  # chunk i is drawn from seed + i
    teacher_also: tuple[str, ...] = ()  # label with the mean of the net's and these nets' values (an ensemble)

    def problem(self) -> str | None:
        """What is wrong with these settings, or None."""
        for name in ("positions", "chunk", "every", "parallel_games"):
            if getattr(self, name) <= 0:
                return f"{name} must be positive"
        if min(self.siblings, self.margin, self.warmup, self.prune) < 0:
            return "siblings, margin, warmup and prune must be 0 or more"
        if not 0 <= self.plies <= 2:
            return "plies must be 0, 1 or 2"
        if self.actor not in ("one-ply", "sample"):
            return f"actor must be one-ply or sample, not {self.actor!r}"
        return None

    @property
    def chunks(self) -> int:
        return -(-self.positions // self.chunk)


def chunk_path(folder: Path, index: int) -> Path:
    return Path(folder) / f"chunk_{index:05d}.npz"


def missing_chunks(folder: Path, settings: LabelSettings) -> list[int]:
    """The indices of the chunks a label stage still has to make in ``folder``."""
    return [i for i in range(settings.chunks) if not chunk_path(folder, i).is_file()]


def make_chunk(net, settings: LabelSettings, index: int, others=()) -> dict:
    """Chunk ``index``'s arrays: ``settings.chunk`` positions of the net's own self-play (seeded by
    ``settings.seed + index`` alone) with their look-ahead labels. ``net``: a torch OutcomeNet;
    ``others``: the nets of ``settings.teacher_also`` (the labels are the look-ahead of the mean of
    ``net``'s and their probabilities, model/net/ensemble.py; the self-play and the candidate plays
    stay ``net``'s)."""
    from model.net.ensemble import MeanNet
    from model.net.evaluator import ExactEndgames
    from model.net.table_forward import TableForward
    from model.search.lookahead import evaluate_positions, move_filter
    from model.train.td import SelfPlayActor

    s = settings
    game = net.config.game
    actor = SelfPlayActor(net, games=s.parallel_games, lam=0.0, seed=s.seed + index, target=s.actor,
                          prune=s.prune, exact_endgames=True)
    teacher = actor.evaluator
    if others:
        teacher = ExactEndgames(MeanNet([actor.forward, *(TableForward(o) for o in others)]))
    rng = np.random.default_rng(s.seed + index)

    def siblings(pos, dice):
        """(positions, parent): the positions after the net's best candidate plays of ``dice`` from each
        of ``pos``, opponent on roll, finished games and bear-offs left out; ``parent`` indexes ``pos``."""
        children, parent = legal_plays(game, pos, dice)
        util = cubeless_equity(game, child_probabilities(actor.evaluator, children))
        starts = np.searchsorted(parent, np.arange(len(pos) + 1))
        keep = np.concatenate([a + move_filter(util[a:b], s.siblings, s.margin)
                               for a, b in pairwise(starts) if b > a])
        out = flip(game, children[keep])
        alive = (children[keep][:, OFF] < CHECKERS) & ~bearoff_mask(game, out)
        return out[alive], parent[keep][alive]

    def ply() -> int:
        _, ended, _ = actor.table.end_turn(np.arange(actor.n), actor._step())
        if ended.any():
            actor.table.deal(np.flatnonzero(ended))
        return int(ended.sum())

    for _ in range(s.warmup):
        ply()
    got, count, games = [], 0, 0
    family = {"parents": [], "dice": [], "group": []}  # siblings: where each label came from
    while count < s.chunk:
        pos = actor.table.pos
        keep = (rng.random(len(pos)) < 1.0 / s.every) & ~bearoff_mask(game, pos)
        picked = pos[keep].copy()
        if s.siblings and keep.any():
            dice = rng.integers(1, 7, size=(len(picked), 2))
            picked, parent = siblings(picked, dice)
            family["group"].append(parent + sum(len(p) for p in family["parents"]))
            family["parents"].append(pos[keep].copy())
            family["dice"].append(dice)
        got.append(picked)
        count += len(picked)
        games += ply()
    pos = np.concatenate(got)[: s.chunk]
    targets = np.concatenate([evaluate_positions(teacher, pos[i : i + LOOK], s.plies, prune=s.prune)
                              for i in range(0, len(pos), LOOK)])
    out = {"positions": pos, "targets": targets, "games": games, "prune": s.prune, "siblings": s.siblings,
           "plies": s.plies, "warmup": s.warmup, "actor": s.actor}
    if s.siblings:
        out.update({name: np.concatenate(family[name]) for name in family})
        out["group"] = out["group"][: len(pos)]
    if others:
        out["teacher_also"] = np.array([str(p) for p in s.teacher_also])
    return out


def write_chunk(path: Path, **arrays) -> None:
    """Write a chunk's arrays to ``path`` (.npz, compressed, each array as CHUNK_DTYPES stores it)
    atomically: a job stopped mid-write leaves the chunk absent, never half written, so a resumed job
    makes it again."""
    arrays = {k: (np.asarray(v, dtype=CHUNK_DTYPES[k]) if k in CHUNK_DTYPES else v) for k, v in arrays.items()}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_chunk(path: Path) -> dict:
    """A chunk's arrays, read whole and the file closed (hundreds of chunks stay under the limit of
    open files); targets as float32 whatever they were stored as."""
    with np.load(path) as chunk:
        out = dict(chunk)
    out["targets"] = out["targets"].astype(np.float32)
    return out


def bytes_per_label(folder: Path) -> float:
    """The disk bytes a label of ``folder``'s chunks takes, on average."""
    files = sorted(Path(folder).glob("chunk_*.npz"))
    labels = sum(len(read_chunk(f)["positions"]) for f in files)
    return sum(f.stat().st_size for f in files) / max(labels, 1)


def choice_losses(game: str, labels: np.ndarray, got: np.ndarray, group: np.ndarray) -> np.ndarray:
    """(F,) the labels' equity lost by each family of two or more candidates when the candidate
    ``got`` ranks best is played instead of the one ``labels`` rank best (0 where they agree).
    ``labels`` and ``got`` (n, K) outcome probabilities of the rows, opponent on roll; ``group`` (n,)
    the family of each row."""
    label = cubeless_equity(game, np.asarray(labels, dtype=np.float64))
    mine = cubeless_equity(game, np.asarray(got, dtype=np.float64))
    _, family, size = np.unique(group, return_inverse=True, return_counts=True)
    family = family.reshape(-1)
    pick = group_argmax(-mine, family, len(size))
    best = group_argmax(-label, family, len(size))
    return (label[pick] - label[best])[size > 1]
