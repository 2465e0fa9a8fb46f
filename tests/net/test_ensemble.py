"""Ensembles: MeanNet, the comma-joined player spec and the label job's --teacher-also."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import CheckpointError, load_net, read, save
from model.net.ensemble import MeanNet
from model.net.evaluator import ExactEndgames
from model.net.network import NetConfig, OutcomeNet
from model.players.net_player import load_mean_player
from model.players.registry import make_player
from model.search.lookahead import evaluate_positions


def two_nets(game: str, seed: int = 0) -> tuple[OutcomeNet, OutcomeNet]:
    torch.manual_seed(seed)
    return OutcomeNet(NetConfig(game, (8,))).eval(), OutcomeNet(NetConfig(game, (6, 5))).eval()


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_the_mean_net_is_the_mean_of_its_nets(game):
    a, b = two_nets(game, 1)
    positions, _ = random_positions(game, 50, seed=2)
    got = MeanNet([a, b]).probabilities(positions)
    pa, pb = a.probabilities(positions), b.probabilities(positions)
    assert not np.allclose(pa, pb)  # two different nets, so the mean is neither
    np.testing.assert_allclose(got, (pa + pb) / 2, atol=1e-12)
    assert MeanNet([a, b]).probabilities(positions[:0]).shape == (0, a.config.outputs)


def test_the_mean_net_refuses_one_net_and_mixed_games():
    bg, _ = two_nets("backgammon")
    nardi, _ = two_nets("nardi")
    with pytest.raises(ValueError, match="two nets or more"):
        MeanNet([bg])
    with pytest.raises(ValueError, match="different games"):
        MeanNet([bg, nardi])


def test_a_comma_joined_spec_plays_by_the_mean(tmp_path):
    a, b = two_nets("nardi", 3)
    save(tmp_path / "a.pt", a)
    save(tmp_path / "b.pt", b)
    player = make_player(f"{tmp_path / 'a.pt'},{tmp_path / 'b.pt'}+noexact", "nardi")
    assert player.name == "mean(a,b)+noexact"
    positions, _ = random_positions("nardi", 40, seed=4)
    np.testing.assert_allclose(player.net.probabilities(positions),
                               (a.probabilities(positions) + b.probabilities(positions)) / 2, atol=1e-6)
    # with the databases (the default) bear-offs come from them, the rest from the mean
    exact = make_player(f"{tmp_path / 'a.pt'},{tmp_path / 'b.pt'}", "nardi")
    assert isinstance(exact.net, ExactEndgames) and isinstance(exact.net.net, MeanNet)


def test_bad_ensemble_specs_are_clear_errors(tmp_path):
    a, _ = two_nets("nardi", 5)
    save(tmp_path / "a.pt", a)
    bg, _ = two_nets("backgammon", 5)
    save(tmp_path / "bg.pt", bg)
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        make_player(f"{tmp_path / 'a.pt'},{tmp_path / 'missing.pt'}", "nardi")
    with pytest.raises(ValueError, match=r"\+race is for one checkpoint"):
        make_player(f"{tmp_path / 'bg.pt'},{tmp_path / 'bg.pt'}+race", "backgammon")
    with pytest.raises(CheckpointError, match="not nardi"):
        load_mean_player([tmp_path / "a.pt", tmp_path / "bg.pt"], game="nardi")


def test_the_label_job_labels_with_the_ensemble(tmp_path):
    """A labels stage with teacher_also (model/train/labels.py) labels by the mean of the nets; its
    self-play and candidate plays stay the run's net, and a fit to them names the teacher's other nets."""
    from model.train.fit import FitSettings, fit
    from model.train.label_workers import make_chunks
    from model.train.labels import LabelSettings, read_chunk

    a, b = two_nets("backgammon", 6)
    save(tmp_path / "a.pt", a)
    save(tmp_path / "b.pt", b)
    small = {"chunk": 10, "parallel_games": 8, "every": 2, "prune": 0, "seed": 3, "positions": 10}
    for plies in (0, 1):
        out = tmp_path / f"labels{plies}"
        out.mkdir()
        make_chunks(tmp_path / "a.pt", LabelSettings(plies=plies, teacher_also=(str(tmp_path / "b.pt"),), **small),
                    out, progress=False)
        chunk = read_chunk(out / "chunk_00000.npz")
        teacher = ExactEndgames(MeanNet([load_net(tmp_path / "a.pt")[0], load_net(tmp_path / "b.pt")[0]]))
        np.testing.assert_allclose(chunk["targets"], evaluate_positions(teacher, chunk["positions"], plies),
                                   atol=2.5e-4)  # stored as float16
        assert chunk["teacher_also"].tolist() == [str(tmp_path / "b.pt")]
    # the same positions as the checkpoint's own job: the self-play is the checkpoint's
    (tmp_path / "own").mkdir()
    make_chunks(tmp_path / "a.pt", LabelSettings(plies=0, **small), tmp_path / "own", progress=False)
    assert np.array_equal(read_chunk(tmp_path / "own" / "chunk_00000.npz")["positions"],
                          read_chunk(tmp_path / "labels0" / "chunk_00000.npz")["positions"])
    # a fit to them records the teacher's other nets (the labels' own record)
    save(tmp_path / "state.pt", a, games=7, train_state={"seconds": 1.0}, args={"game": "backgammon"},
         made_by={"commands": ["nardibot train ..."]})
    out, _ = fit(tmp_path / "state.pt", {"ens": tmp_path / "labels0"}, FitSettings(labels=("ens",), epochs=1,
                 holdout=0.0), tmp_path / "fit", log=lambda line: None)
    assert f"labelled by the mean with {tmp_path / 'b.pt'} at 7 games" in read(out)["made_by"]["fitted"]
    nardi, _ = two_nets("nardi")
    save(tmp_path / "nardi.pt", nardi)
    (tmp_path / "x").mkdir()
    with pytest.raises(ValueError, match="cannot load .*nardi.pt"):
        make_chunks(tmp_path / "a.pt", LabelSettings(teacher_also=(str(tmp_path / "nardi.pt"),), **small),
                    tmp_path / "x", progress=False)
