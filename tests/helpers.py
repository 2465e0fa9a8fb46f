"""Helpers shared by several test files."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository root (where ``python -m ...`` runs from)."""


def save_tiny_checkpoints(folder: Path, hidden: tuple[int, ...] = (8,), seed: int = 0) -> dict[str, Path]:
    """A tiny untrained network per game (torch seeded with ``seed``), saved as a checkpoint in
    ``folder``: {"backgammon": path, "nardi": path}. Tests that need a net never need the shipped one."""
    import torch

    from model.checkpoint import save
    from model.net import NetConfig, OutcomeNet

    torch.manual_seed(seed)
    paths = {}
    for game in ("backgammon", "nardi"):
        paths[game] = folder / f"{game}.pt"
        save(paths[game], OutcomeNet(NetConfig(game, hidden)))
    return paths
