"""Judging picks among labelled candidate plays (scripts/two_ply_labels.py ``--siblings`` chunks).

A sibling chunk holds families of candidate plays of one roll, each row the position after a play
with the opponent on roll, its label the look-ahead's outcome probabilities from the opponent's view
(so the lowest cubeless equity is the mover's best play). ``choice_losses`` says what picking by
other numbers (the net at 0-ply, a shallower look-ahead) costs by the labels' own judgement; used by
scripts/fit_labels.py (held-out choice error) and scripts/teacher_agreement.py. ``write_chunk`` is
how the label scripts (two_ply_labels.py, rollout_labels.py) put a chunk on disk.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import numpy as np

from engine.groups import group_argmax
from model.net.equity import cubeless_equity

ENSEMBLE_TEACHER = "labelled by the mean with"
"""How scripts/fit_labels.py's record of a fit names the other nets of an ensemble teacher
(two_ply_labels.py ``--teacher-also``); scripts/release_tables.py reads it back."""


def write_chunk(path: Path, **arrays) -> None:
    """Write a chunk's arrays to ``path`` (.npz, uncompressed) atomically: a job stopped mid-write
    leaves the chunk absent, never half written, so a resumed job makes it again."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
