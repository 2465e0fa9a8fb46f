"""Checkpoints: round trip, atomic writes, and refusal of corrupt or mismatched files."""

import pytest
import torch

from model.net.checkpoint import CheckpointError, load_net, load_player, read, save
from model.net.network import NetConfig, OutcomeNet


def test_round_trip_keeps_weights_and_config(tmp_path):
    """What is saved loads back to the same network and metadata."""
    net = OutcomeNet(NetConfig("nardi", (12, 6)))
    save(tmp_path / "n.pt", net, games=42, args={"lr": 0.1}, made_by={"command": "x"})
    back, blob = load_net(tmp_path / "n.pt", "nardi")
    assert back.config == net.config and blob["games"] == 42 and blob["made_by"]["command"] == "x"
    for k, v in net.state_dict().items():
        assert torch.equal(v, back.state_dict()[k])
    assert load_player(tmp_path / "n.pt").game == "nardi"


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
