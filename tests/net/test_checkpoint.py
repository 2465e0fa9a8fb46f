"""Checkpoints: round trip in both files (.safetensors for play, .pt for training), atomic writes, and
refusal of corrupt or mismatched files."""

import json

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file, save_file

from model.net.checkpoint import (
    CheckpointError,
    deepenings_of,
    fits_of,
    load_net,
    read,
    save,
    shipped_path,
)
from model.net.network import NetConfig, OutcomeNet
from model.players.net_player import load_player


@pytest.mark.parametrize("name", ["n.pt", "n.safetensors"])
def test_round_trip_keeps_weights_and_config(tmp_path, name):
    """What is saved loads back to the same network and metadata, in torch and in numpy."""
    net = OutcomeNet(NetConfig("nardi", (12, 6)))
    save(tmp_path / name, net, games=42, train_state={"seconds": 1.5}, args={"lr": 0.1},
         made_by={"command": "x"})
    back, blob = load_net(tmp_path / name, "nardi")
    assert back.config == net.config and blob["games"] == 42 and blob["made_by"]["command"] == "x"
    assert blob["args"] == {"lr": 0.1} and blob["train_state"] == {"seconds": 1.5}
    assert blob["optimizer"] is None
    for k, v in net.state_dict().items():
        assert torch.equal(v, back.state_dict()[k])
    numpy_net, numpy_blob = load_net(tmp_path / name, "nardi", backend="numpy")
    for k, v in net.state_dict().items():
        assert np.array_equal(numpy_blob["weights"][k], v.numpy())
    assert numpy_net.config == net.config and load_player(tmp_path / name).game == "nardi"


def test_safetensors_file_is_weights_and_text_metadata(tmp_path):
    """A .safetensors checkpoint holds float32 weights and the fields as metadata strings, readable by
    any safetensors reader; it refuses an optimizer state (that needs a .pt)."""
    net = OutcomeNet(NetConfig("backgammon", (4,)))
    save(tmp_path / "c.safetensors", net, games=7, made_by={"commands": ["python train.py"]})
    weights = load_file(tmp_path / "c.safetensors")
    assert set(weights) == set(net.state_dict()) and all(w.dtype == np.float32 for w in weights.values())
    meta = _metadata(tmp_path / "c.safetensors")
    assert meta["format"] == "nardibot-checkpoint" and meta["games"] == "7" and meta["game"] == "backgammon"
    assert json.loads(meta["net_config"]) == net.config.to_dict()
    assert json.loads(meta["made_by"]) == {"commands": ["python train.py"]}
    with pytest.raises(ValueError, match="optimizer"):
        save(tmp_path / "o.safetensors", net, optimizer=torch.optim.Adam(net.parameters()))


def test_shipped_nets_are_safetensors_that_load_without_torch_objects():
    """The shipped nets are .safetensors files: numpy arrays, the current feature version, their provenance."""
    for game in ("backgammon", "nardi"):
        assert shipped_path(game).suffix == ".safetensors"
        net, blob = load_net(shipped_path(game), game, backend="numpy")
        assert type(net).__name__ == "NumpyNet" and blob["games"] > 0 and blob["made_by"]["commands"]
        assert all(type(w) is np.ndarray for w in blob["weights"].values())


def test_missing_corrupt_and_foreign_files_are_refused(tmp_path):
    """Each bad file gives a CheckpointError with a one-line reason."""
    with pytest.raises(CheckpointError, match="not found"):
        read(tmp_path / "none.pt")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        read(bad)
    torch.save({"hello": 1}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a nardibot-checkpoint"):
        read(tmp_path / "other.pt")
    net = OutcomeNet(NetConfig("backgammon", (4,)))
    save(tmp_path / "bg.pt", net)
    with pytest.raises(CheckpointError, match="backgammon checkpoint, not nardi"):
        load_net(tmp_path / "bg.pt", "nardi")
    blob = torch.load(tmp_path / "bg.pt", weights_only=True)
    blob["net_config"]["hidden"] = [5]
    torch.save(blob, tmp_path / "shape.pt")
    with pytest.raises(CheckpointError, match="do not fit"):
        load_net(tmp_path / "shape.pt")
    blob["net_config"]["hidden"] = [4]
    blob["feature_version"] = -1
    torch.save(blob, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="feature version"):
        load_net(tmp_path / "old.pt")


def test_corrupt_and_mismatched_safetensors_are_refused(tmp_path):
    """A truncated or garbled .safetensors file, one from elsewhere, one of another game, another feature
    version, bad metadata or weights that do not fit: CheckpointError, one line, in either backend."""
    net = OutcomeNet(NetConfig("backgammon", (4,)))
    good = tmp_path / "good.safetensors"
    save(good, net)
    data = good.read_bytes()
    weights, meta = load_file(good), _metadata(good)

    def variant(name: str, **changes) -> str:
        path = tmp_path / f"{name}.safetensors"
        save_file(changes.pop("weights", weights), path, metadata={**meta, **changes})
        return path

    (tmp_path / "cut.safetensors").write_bytes(data[:-10])
    (tmp_path / "junk.safetensors").write_bytes(b"\x00" * 8 + data[8:])
    cases = [
        (tmp_path / "cut.safetensors", "not a readable checkpoint"),
        (tmp_path / "junk.safetensors", "not a readable checkpoint"),
        (variant("foreign", format="something-else"), "not a nardibot-checkpoint"),
        (variant("fmt", format_version="2"), "checkpoint format 2"),
        (variant("old", feature_version="-1"), "feature version -1"),
        (variant("meta", net_config="{not json"), "not a readable checkpoint"),
        (variant("shape", weights={**weights, "head.bias": np.zeros(3, np.float32)}), "do not fit"),
    ]
    for backend in ("numpy", "torch"):
        for path, message in cases:
            with pytest.raises(CheckpointError, match=message) as e:
                load_net(path, backend=backend)
            assert "\n" not in str(e.value)
        with pytest.raises(CheckpointError, match="backgammon checkpoint, not nardi"):
            load_net(good, "nardi", backend=backend)


def test_failed_write_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    """A write that dies midway leaves the previous file intact and no temporary file behind."""
    net = OutcomeNet(NetConfig("backgammon", (4,)))
    save(tmp_path / "c.pt", net, games=1)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", boom)
    with pytest.raises(OSError):
        save(tmp_path / "c.pt", net, games=2)
    monkeypatch.undo()
    assert read(tmp_path / "c.pt")["games"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["c.pt"]


def _metadata(path) -> dict:
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        return f.metadata()


def test_a_lineage_reads_the_same_from_old_and_new_made_by_records():
    """fits_of / deepenings_of: the lists where a file keeps them, else its lone line of an older file."""
    assert fits_of(None) == [] and deepenings_of(None) == [] and deepenings_of({"fits": ["a"]}) == []
    assert fits_of({"fitted": "b"}) == ["b"] and fits_of({"fitted": "b", "fits": ["a", "b"]}) == ["a", "b"]
    old = {"fits": ["a", "b"], "deepened": "d"}  # deepened once, before deepened_after_fits was kept
    assert deepenings_of(old) == [[2, "d"]]
    assert deepenings_of({**old, "deepened_after_fits": 1}) == [[1, "d"]]
    new = {**old, "deepened_after_fits": 2, "deepenings": [[1, "c"], [2, "d"]]}
    assert deepenings_of(new) == [[1, "c"], [2, "d"]]
