"""Checkpoints: one self-describing dict, written atomically, read without running pickled code.

    {"format": "nardibot-checkpoint", "format_version": 1,
     "game": ..., "net_config": {...}, "feature_version": ..., "weights": {name: tensor},
     "optimizer": {...} | None, "games": games trained, "train_state": {...} | None,
     "args": {...}, "made_by": {...}}

A checkpoint whose game, feature version or shapes do not match what is asked for is refused with
a clear message (CheckpointError), never half-loaded. Training loads it with torch; inference on the
CPU reads it with model/net/inference.py and runs the network in numpy, without importing torch.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from model.net.config import NetConfig
from model.net.features import FEATURE_VERSION

FORMAT = "nardibot-checkpoint"
FORMAT_VERSION = 1
SHIPPED = Path(__file__).resolve().parents[2] / "checkpoints"


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt, or made for something else."""


def shipped_path(game: str) -> Path:
    """The checkpoint shipped with the project for ``game``: checkpoints/<game>.pt."""
    return SHIPPED / f"{game}.pt"


def save(path: str | os.PathLike, net, *, games: int = 0, optimizer=None,
         train_state: dict | None = None, args: dict | None = None, made_by: dict | None = None) -> None:
    """Write the checkpoint atomically: a temporary file in the same folder, fsync, then rename."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": net.config.game,
        "net_config": net.config.to_dict(),
        "feature_version": net.config.feature_version,
        "weights": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "games": int(games),
        "train_state": train_state,
        "args": args or {},
        "made_by": made_by or {},
    }
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(blob, f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a checkpoint is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read(path: str | os.PathLike, backend: str = "torch") -> dict:
    """The checkpoint dict, checked for format; CheckpointError on anything wrong.

    backend "torch": tensors, via torch.load(weights_only=True); "numpy": numpy arrays, via
    model/net/inference.py (no torch import).
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    try:
        if backend == "numpy":
            from model.net.inference import read_checkpoint

            blob = read_checkpoint(path)
        else:
            import torch

            blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means a bad file
        raise CheckpointError(f"{path} is not a readable checkpoint ({type(e).__name__}: {e})".split("\n")[0])
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} file")
    if blob.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{path} has checkpoint format {blob.get('format_version')}, "
                              f"this code reads {FORMAT_VERSION}")
    current = FEATURE_VERSION.get(blob.get("game"))
    if current is None:
        raise CheckpointError(f"{path} is for an unknown game {blob.get('game')!r}")
    if blob.get("feature_version") != current:
        raise CheckpointError(f"{path} was made with {blob['game']} feature version "
                              f"{blob.get('feature_version')}, this code encodes version {current}")
    return blob


def load_net(path: str | os.PathLike, game: str | None = None, device="cpu",
             backend: str = "torch") -> tuple:
    """(network, checkpoint dict); refuses a checkpoint of another game or with mismatched shapes.

    backend "torch" gives a model.net.network.OutcomeNet on ``device`` (for training); "numpy" a
    model.net.inference.NumpyNet (CPU inference without torch); "auto" numpy on the CPU, else torch.
    """
    if backend == "auto":
        backend = "numpy" if str(device) == "cpu" else "torch"
    blob = read(path, backend)
    if game is not None and blob["game"] != game:
        raise CheckpointError(f"{path} is a {blob['game']} checkpoint, not {game}")
    try:
        config = NetConfig.from_dict(blob["net_config"])
        if backend == "numpy":
            from model.net.inference import NumpyNet

            return NumpyNet(config, blob["weights"]), blob
        from model.net.network import OutcomeNet

        net = OutcomeNet(config)
        net.load_state_dict(blob["weights"])
    except (KeyError, RuntimeError, TypeError, ValueError) as e:
        raise CheckpointError(f"{path}: weights do not fit the network it describes ({str(e).splitlines()[0]})")
    return net.to(device).eval(), blob


def load_player(path: str | os.PathLike, game: str | None = None, device="cpu",
                exact_endgames: bool | None = None):
    """A NetPlayer from a checkpoint file (see load_net for the checks); numpy inference on the CPU.
    ``exact_endgames``: bear-off positions from the databases (model/net/evaluator.py; None: its
    EXACT_ENDGAMES default)."""
    from model.net.evaluator import with_exact_endgames
    from model.players.net_player import NetPlayer

    net, _ = load_net(path, game, device, backend="auto")
    return NetPlayer(with_exact_endgames(net, exact_endgames), device=device, name=Path(path).stem)
