"""Inference without torch: read a checkpoint file and run the network in numpy.

Importing torch costs over a second; a hint or a served move should not wait for it. A checkpoint
written by ``torch.save`` is a zip file holding ``data.pkl`` (the dict, pickled) and one raw file
per tensor storage under ``data/``. ``read_checkpoint`` unpickles ``data.pkl`` with an unpickler
that only knows plain containers, the storage types and torch's tensor-rebuild function, all
mapped to numpy stand-ins: like ``torch.load(weights_only=True)``, it never runs pickled code, and
anything else in the file is refused.

``NumpyNet`` computes exactly what ``model.net.network.OutcomeNet`` computes (Linear + ReLU layers, then the
chained sigmoid heads), in float32, from the same weights.
"""

from __future__ import annotations

import collections
import io
import pickle
import zipfile

import numpy as np

from model.net.config import NetConfig
from model.net.equity import chain_heads
from model.net.features import encode

_STORAGE_DTYPES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16, "CharStorage": np.int8,
    "ByteStorage": np.uint8, "BoolStorage": np.bool_,
}


class _StorageType:
    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)


def _rebuild_tensor(storage, offset, size, stride, *unused):
    """torch._utils._rebuild_tensor_v2 in numpy: a strided view of the storage, copied."""
    item = storage.dtype.itemsize
    view = np.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(size),
                                           strides=tuple(s * item for s in stride))
    return np.array(view)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive: zipfile.ZipFile, prefix: str):
        super().__init__(file)
        self.archive = archive
        self.prefix = prefix

    def find_class(self, module, name):
        if module == "collections" and name == "OrderedDict":
            return collections.OrderedDict
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(_STORAGE_DTYPES[name])
        raise pickle.UnpicklingError(f"refusing to load {module}.{name}")

    def persistent_load(self, pid):
        kind, storage_type, key, _location, numel = pid
        if kind != "storage" or not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        raw = self.archive.read(f"{self.prefix}data/{key}")
        return np.frombuffer(raw, dtype=storage_type.dtype, count=numel)


def read_checkpoint(path) -> dict:
    """The checkpoint dict with numpy arrays in place of tensors; raises on anything unexpected."""
    with zipfile.ZipFile(path) as archive:
        pkl = [n for n in archive.namelist() if n.endswith("data.pkl")]
        if len(pkl) != 1:
            raise pickle.UnpicklingError("no data.pkl in the archive")
        prefix = pkl[0][: -len("data.pkl")]
        return _Unpickler(io.BytesIO(archive.read(pkl[0])), archive, prefix).load()


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # stable for large |z|


class NumpyNet:
    """The OutcomeNet forward pass in numpy; same ``config`` and ``probabilities`` interface."""

    def __init__(self, config: NetConfig, weights: dict):
        self.config = config
        self.layers = []
        for i in range(len(config.hidden)):
            w, b = weights[f"body.{2 * i}.weight"], weights[f"body.{2 * i}.bias"]
            self.layers.append((np.ascontiguousarray(w.T, dtype=np.float32), b.astype(np.float32)))
        self.head = (np.ascontiguousarray(weights["head.weight"].T, dtype=np.float32),
                     weights["head.bias"].astype(np.float32))
        width = config.inputs
        for (w, b), h in zip(self.layers + [self.head], list(config.hidden) + [config.outputs]):
            if w.shape != (width, h) or b.shape != (h,):
                raise ValueError(f"weight shape {w.shape} does not fit the layer {width} -> {h}")
            width = h

    def eval(self):
        return self

    def probabilities(self, positions: np.ndarray, device=None) -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        x = encode(self.config.game, positions, self.config.feature_version)
        for w, b in self.layers:
            x = np.maximum(x @ w + b, 0.0)
        s = _sigmoid((x @ self.head[0] + self.head[1]).astype(np.float64))
        return chain_heads(self.config.game, s, lambda cols: np.stack(cols, axis=1))
