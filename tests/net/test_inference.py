"""Inference without torch: the numpy network agrees with torch, and no checkpoint runs pickled code."""

import pickle
import zipfile

import numpy as np
import pytest
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import CheckpointError, load_net, save
from model.net.network import NetConfig, OutcomeNet


@pytest.mark.parametrize("game,hidden", [("backgammon", (32,)), ("nardi", (16, 8))])
@pytest.mark.parametrize("suffix", [".safetensors", ".pt"])
def test_numpy_net_matches_torch(tmp_path, game, hidden, suffix):
    """Same checkpoint, same positions: numpy and torch probabilities agree to float32 precision."""
    torch.manual_seed(0)
    save(tmp_path / f"c{suffix}", OutcomeNet(NetConfig(game, hidden)), games=7)
    torch_net, _ = load_net(tmp_path / f"c{suffix}", backend="torch")
    numpy_net, blob = load_net(tmp_path / f"c{suffix}", backend="numpy")
    assert blob["games"] == 7 and type(blob["weights"]["head.bias"]) is np.ndarray
    positions = random_positions(game, 300, seed=1)[0]
    np.testing.assert_allclose(numpy_net.probabilities(positions), torch_net.probabilities(positions),
                               rtol=1e-4, atol=1e-6)


def test_reader_refuses_pickled_code(tmp_path):
    """A checkpoint-like zip whose pickle names any other global is refused (torch.load with
    weights_only=True), nothing is run, in either backend."""
    path = tmp_path / "evil.pt"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps({"x": print}))
    for backend in ("numpy", "torch"):
        with pytest.raises(CheckpointError, match="not a readable checkpoint"):
            load_net(path, backend=backend)


def test_numpy_net_in_blocks_gives_the_same_numbers(tmp_path, monkeypatch):
    """A batch longer than a block goes through block by block: the same probabilities as in one go."""
    from model.net import inference

    torch.manual_seed(1)
    save(tmp_path / "c.safetensors", OutcomeNet(NetConfig("backgammon", (32,))), games=1)
    net, _ = load_net(tmp_path / "c.safetensors", backend="numpy")
    positions = random_positions("backgammon", 300, seed=2)[0]
    whole = net.probabilities(positions)
    monkeypatch.setattr(inference, "CHUNK", 7)
    np.testing.assert_allclose(net.probabilities(positions), whole, rtol=1e-6, atol=1e-7)
