"""A training run's snapshots: ``<run-dir>/snapshots/games_<games>.pt``, the weights at one checkpoint
each (scripts/strength_curve.py measures them), of which a run keeps the latest ``--keep-snapshots``."""

from __future__ import annotations

import re
from pathlib import Path

NAME = re.compile(r"games_(\d+)\.pt")


def snapshot_path(run_dir: Path, games: int) -> Path:
    """Where the snapshot at ``games`` games goes."""
    return Path(run_dir) / "snapshots" / f"games_{games:09d}.pt"


def prune_snapshots(folder: Path, keep: int) -> list[Path]:
    """Delete all but the ``keep`` latest snapshots (by games) in ``folder``; 0 keeps every one. Other
    files are left alone, and so is a snapshot that cannot be deleted. Returns those deleted."""
    if keep <= 0 or not Path(folder).is_dir():
        return []
    snaps = sorted((int(m[1]), p) for p in Path(folder).iterdir() if (m := NAME.fullmatch(p.name)) and p.is_file())
    deleted = []
    for _, path in snaps[: max(len(snaps) - keep, 0)]:
        try:
            path.unlink()
        except OSError:
            continue
        deleted.append(path)
    return deleted
