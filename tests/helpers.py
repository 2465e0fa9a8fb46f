"""Helpers shared by several test files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.board import start_position
from engine.formats.matfile import MatchRecord
from engine.formats.matreplay import replay_match

ROOT = Path(__file__).resolve().parent.parent
"""The repository root (where ``python -m ...`` runs from)."""


def run_script(name: str, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python scripts/NAME ARGS...`` from the repository root, one BLAS thread, output captured."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=ROOT, check=False)


def save_tiny_checkpoints(folder: Path, hidden: tuple[int, ...] = (8,), seed: int = 0) -> dict[str, Path]:
    """A tiny untrained network per game (torch seeded with ``seed``), saved as a checkpoint in
    ``folder``: {"backgammon": path, "nardi": path}. Tests that need a net never need the shipped one."""
    import torch

    from model.net.checkpoint import save
    from model.net.network import NetConfig, OutcomeNet

    torch.manual_seed(seed)
    paths = {}
    for game in ("backgammon", "nardi"):
        paths[game] = folder / f"{game}.safetensors"
        save(paths[game], OutcomeNet(NetConfig(game, hidden)))
    return paths


def replay(record: MatchRecord) -> list[tuple[int | None, np.ndarray]]:
    """Replay every game through the rules (engine/formats/matreplay.py: each play checked legal by
    engine.notation.parse_play, which also refuses a wrong ``*``; turns, cube actions and the opening
    throw checked by engine/game.py); per game (the last mover, its position after its last play),
    (None, start) for a game without plays."""
    out = []
    for game in replay_match(record):
        moves = game.moves
        if not moves:
            out.append((None, start_position("backgammon", 1)[0]))
        else:
            out.append((moves[-1].player, moves[-1].child))
    return out


GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"
"""Debian's gnubg 1.07 (``apt-get install gnubg``), for the tests that run the real program."""
needs_gnubg = pytest.mark.skipif(not os.access(GNUBG, os.X_OK), reason="Debian's gnubg is not installed")
IMPORT_SCRIPT = """
import gnubg, json, os
gnubg.command("import mat " + os.environ["MAT"])
json.dump(gnubg.match(analysis=False, boards=True), open(os.environ["OUT"], "w"), default=list)
"""


def gnubg_import(mat: Path, folder: Path) -> dict:
    """What the real gnubg makes of ``import mat`` of the file ``mat``: its ``gnubg.match()`` record."""
    script, out = folder / "import.py", folder / "imported.json"
    script.write_text(IMPORT_SCRIPT)
    out.unlink(missing_ok=True)
    subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(script)], check=False, capture_output=True, timeout=60,
                   env=dict(os.environ, MAT=str(mat), OUT=str(out)))
    assert out.exists(), f"gnubg did not import {mat}"
    return json.loads(out.read_text())


def bearoff(mine, theirs):
    """A backgammon bear-off: my counts on points 1..6, the opponent's on its points 1..6."""
    pos = np.zeros(28, dtype=np.int8)
    pos[:6] = mine
    pos[18:24] = -np.asarray(theirs)[::-1]
    pos[26], pos[27] = 15 - sum(mine), 15 - sum(theirs)
    return pos


def numpy_then_kernels(kernels, f, *args):
    """``f(*args)`` with the numpy code, then with the compiled kernels (engine/compiled.py's
    ``use_numba``); ``kernels``: the module's ``Kernels`` loader, which must load."""
    from engine.compiled import use_numba

    previous = use_numba(False)
    try:
        reference = f(*args)
        use_numba(True)
        assert kernels() is not None, "the kernels did not load"
        compiled = f(*args)
    finally:
        use_numba(previous)
    return reference, compiled
