"""Checkpoints: one self-describing dict, written atomically, read without running pickled code.

    {"format": "nardibot-checkpoint", "format_version": 1,
     "game": ..., "net_config": {...}, "feature_version": ..., "weights": {name: tensor},
     "optimizer": {...} | None, "games": games trained, "train_state": {...} | None,
     "args": {...}, "made_by": {...}}

The file's suffix says how the dict is stored:

- ``.safetensors``: the shipped nets and any weights meant for play (``nardibot train --out X.safetensors``).
  The weights are float32 arrays in the safetensors format (a JSON header, then the raw bytes: there
  is nothing to unpickle), every other field is a string of the header's metadata (numbers in
  decimal, dicts as JSON). numpy reads it with the ``safetensors`` package, without torch. It holds
  no optimizer state (``"optimizer"`` reads back as None).
- ``.pt`` (or any other suffix): the dict as ``torch.save`` writes it, optimizer state included;
  training resumes from these (``<run-dir>/last.pt``). Read with ``torch.load(weights_only=True)``,
  so reading one needs torch (the ``[train]`` extra), whichever backend runs the network.

A checkpoint whose game, feature version or shapes do not match what is asked for is refused with
a clear one-line message (CheckpointError), never half-loaded. Training loads the weights into
model.net.network.OutcomeNet (torch); inference on the CPU runs them in numpy
(model.net.inference.NumpyNet), without importing torch.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from model.net.config import NetConfig
from model.net.features import SUPPORTED
from model.net.shipped_files import NETS, shipped_folder

FORMAT = "nardibot-checkpoint"
FORMAT_VERSION = 1
SHIPPED = shipped_folder(NETS)
"""The shipped nets' folder: checkpoints/ of the checkout, or the installed wheel's copy."""
SAFETENSORS = ".safetensors"
SUFFIXES = (SAFETENSORS, ".pt")
"""File suffixes that name a checkpoint (a path with one of them is never taken for a baseline name)."""

_TEXT_FIELDS = ("format", "game")
_NUMBER_FIELDS = ("format_version", "feature_version", "games")
_JSON_FIELDS = ("net_config", "train_state", "args", "made_by")
"""How each field but the weights and the optimizer is kept in a .safetensors file's metadata."""


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt, or made for something else."""


class CheckpointWriteError(OSError):
    """A checkpoint that could not be written (a full disk, no permission...): ``filename`` is the
    checkpoint's path, ``strerror`` why; the file it was to replace is as it was."""


def shipped_path(game: str) -> Path:
    """The network shipped with the project for ``game``: checkpoints/<game>.safetensors."""
    return SHIPPED / f"{game}{SAFETENSORS}"


def fits_of(made_by: dict | None) -> list[str]:
    """The fits (model/train/fit.py) of a checkpoint's lineage, in order, from its ``made_by``: the
    ``fits`` list, or the lone ``fitted`` line of a run fitted once before the list was kept."""
    made = made_by or {}
    return list(made.get("fits") or ([made["fitted"]] if "fitted" in made else []))


def deepenings_of(made_by: dict | None) -> list[list]:
    """The deepen steps (model/train/reshape.py) of a checkpoint's lineage, in order, each [the number of
    fits before it, its line]: the ``deepenings`` list, or the lone ``deepened`` line of a run
    deepened once before the list was kept."""
    made = made_by or {}
    if made.get("deepenings"):
        return [list(step) for step in made["deepenings"]]
    if "deepened" in made:
        return [[made.get("deepened_after_fits", len(fits_of(made))), made["deepened"]]]
    return []


def is_safetensors(path: str | os.PathLike) -> bool:
    """Whether ``path`` is (to be) a .safetensors checkpoint rather than a torch one."""
    return Path(path).suffix == SAFETENSORS


def save(path: str | os.PathLike, net, *, games: int = 0, optimizer=None,
         train_state: dict | None = None, args: dict | None = None, made_by: dict | None = None) -> None:
    """Write the checkpoint atomically: a temporary file in the same folder, fsync, then rename.

    A path ending in .safetensors gets the weights and every field but the optimizer state (a
    ValueError if one is given: that needs a .pt); any other path a torch file with all of it."""
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
    if is_safetensors(path):
        if optimizer is not None:
            raise ValueError(f"{path}: a .safetensors file holds no optimizer state; save it to a .pt file")
        write_safetensors(path, blob)
        return
    import torch

    _write_atomically(Path(path), lambda f: torch.save(blob, f))


def write_safetensors(path: str | os.PathLike, blob: dict) -> None:
    """Write a checkpoint dict (weights as tensors or arrays) as a .safetensors file, atomically:
    the weights as float32, the other fields as metadata, the optimizer state left out."""
    from safetensors.numpy import save as safetensors_bytes

    metadata = {key: str(blob[key]) for key in _TEXT_FIELDS}
    metadata.update({key: str(int(blob[key])) for key in _NUMBER_FIELDS})
    metadata.update({key: json.dumps(blob.get(key)) for key in _JSON_FIELDS})
    data = safetensors_bytes({name: _float32(value) for name, value in blob["weights"].items()}, metadata)
    _write_atomically(Path(path), lambda f: f.write(data))


def hidden_weights_as_halves(weights: dict) -> dict:
    """``weights`` with each hidden layer's weight matrix (``body.K.weight``) rounded to the nearest
    float16 value and kept as float32 (what a recipe's export with ``half = true`` writes); biases
    and the head as they were. ValueError where a weight is beyond float16's range."""
    out = dict(weights)
    for name, value in weights.items():
        if name.startswith("body.") and name.endswith(".weight"):
            with np.errstate(over="ignore"):
                half = _float32(value).astype(np.float16)
            if not np.isfinite(half).all():
                raise ValueError(f"{name} holds a weight beyond float16's range")
            out[name] = half.astype(np.float32)
    return out


def _float32(value) -> np.ndarray:
    """A weight tensor (torch) or array as a contiguous float32 numpy array."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    return np.ascontiguousarray(value, dtype=np.float32)


def _write_atomically(path: Path, write: Callable) -> None:
    """Call ``write(file)`` on a temporary file beside ``path``, fsync it, rename it to ``path``; on any
    failure the temporary file is removed and an existing ``path`` is left as it was. A failure of the
    file system (an OSError, also one torch's writer wraps in a RuntimeError) is raised as
    CheckpointWriteError naming ``path``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise _write_error(path, e) from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a checkpoint is an ordinary file
        os.replace(tmp, path)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        cause = _os_error(e) if isinstance(e, Exception) else None  # Ctrl-C stays Ctrl-C
        if cause is None:
            raise
        raise _write_error(path, cause) from e


def _os_error(error: BaseException | None) -> OSError | None:
    """The OSError that ``error`` is or that caused it (torch.save reports a failed write as a
    RuntimeError of its zip writer, raised while handling the OSError); None if there is none."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, OSError):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def _write_error(path: Path, error: OSError) -> CheckpointWriteError:
    """``error`` as the CheckpointWriteError of ``path`` (the checkpoint, not its temporary file)."""
    return CheckpointWriteError(error.errno, error.strerror or str(error), str(path))


def _read_safetensors(path: Path) -> dict:
    """The checkpoint dict of a .safetensors file, weights as numpy arrays (no torch)."""
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        metadata = f.metadata() or {}
        weights = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 - safe_open: keys(), no __iter__
    if metadata.get("format") != FORMAT:
        return {}  # refused by read() as not a checkpoint
    blob = {key: metadata[key] for key in _TEXT_FIELDS}
    blob.update({key: int(metadata[key]) for key in _NUMBER_FIELDS})
    blob.update({key: json.loads(metadata[key]) for key in _JSON_FIELDS})
    return {**blob, "weights": weights, "optimizer": None}


def _read_torch(path: Path, backend: str) -> dict:
    """The checkpoint dict of a torch file (torch.load, weights_only=True); weights as numpy arrays
    for the numpy backend. Needs torch."""
    try:
        import torch
    except ImportError:
        raise CheckpointError(f"{path} is a training checkpoint; install the [train] extra (torch) "
                              "to read it") from None
    if not zipfile.is_zipfile(path):
        raise CheckpointError(f"{path} is not a readable checkpoint: not a zip archive as torch.save writes "
                              f"(damaged, cut short, or another kind of file)")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means a bad file
        raise CheckpointError(f"{path} is not a readable checkpoint: {_reason(e)}") from None
    if backend == "numpy" and isinstance(blob, dict) and isinstance(blob.get("weights"), dict):
        blob["weights"] = {k: v.numpy() if hasattr(v, "numpy") else v for k, v in blob["weights"].items()}
    return blob


def _unreadable(path: Path, error: Exception) -> CheckpointError:
    """The one-line refusal of a file that cannot be decoded."""
    return CheckpointError(f"{path} is not a readable checkpoint: {_reason(error)}")


def read(path: str | os.PathLike, backend: str = "torch") -> dict:
    """The checkpoint dict, checked for format; CheckpointError on anything wrong.

    backend "torch": weights as torch tensors; "numpy": as numpy arrays (a .safetensors file is then
    read without importing torch; a .pt file always needs torch).
    """
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    if is_safetensors(path):
        try:
            blob = _read_safetensors(path)
        except Exception as e:  # noqa: BLE001 - a bad header, missing or malformed metadata: a bad file
            raise _unreadable(path, e) from None
        if backend == "torch" and blob:
            import torch

            blob["weights"] = {k: torch.from_numpy(np.array(v)) for k, v in blob["weights"].items()}
    else:
        blob = _read_torch(path, backend)
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} file")
    if blob.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{path} has checkpoint format {blob.get('format_version')}, "
                              f"this code reads {FORMAT_VERSION}")
    supported = SUPPORTED.get(blob.get("game"))
    if supported is None:
        raise CheckpointError(f"{path} is for an unknown game {blob.get('game')!r}")
    if blob.get("feature_version") not in supported:
        raise CheckpointError(f"{path} was made with {blob['game']} feature version "
                              f"{blob.get('feature_version')}, this code encodes versions "
                              f"{', '.join(map(str, supported))}")
    return blob


def _reason(error: Exception) -> str:
    """Why torch (or the numpy reader) could not load a file, in one line, without torch's advice to load
    it again with weights_only=False (which would run whatever code a damaged or foreign file holds)."""
    text = str(error)
    if "WeightsUnpickler error:" in text:  # torch's advice comes first, the reason after this
        text = text.split("WeightsUnpickler error:", 1)[1].split("Check the documentation")[0]
        detail = " ".join(text.split()).split(". ")[0].rstrip(".")
        return f"it holds more than tensors and plain data ({detail})"
    first = text.strip().split("\n")[0].split(". ")[0].rstrip(".")
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


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
