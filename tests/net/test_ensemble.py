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
from tests.helpers import run_script


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
    a, b = two_nets("backgammon", 6)
    save(tmp_path / "a.pt", a)
    save(tmp_path / "b.pt", b)
    small = ("--chunk", 10, "--parallel-games", 8, "--every", 2, "--prune", 0, "--seed", 3, "--positions", 10)
    for plies in (0, 1):
        out = tmp_path / f"labels{plies}"
        proc = run_script("two_ply_labels.py", tmp_path / "a.pt", out, "--plies", plies,
                          "--teacher-also", tmp_path / "b.pt", *small)
        assert proc.returncode == 0, proc.stderr[-2000:]
        chunk = np.load(out / "chunk_00000.npz")
        teacher = ExactEndgames(MeanNet([load_net(tmp_path / "a.pt")[0], load_net(tmp_path / "b.pt")[0]]))
        np.testing.assert_allclose(chunk["targets"], evaluate_positions(teacher, chunk["positions"], plies),
                                   atol=1e-5)
        assert chunk["teacher_also"].tolist() == [str(tmp_path / "b.pt")]
    # the same positions as the checkpoint's own job: the self-play is the checkpoint's
    own = run_script("two_ply_labels.py", tmp_path / "a.pt", tmp_path / "own", "--plies", 0, *small)
    assert own.returncode == 0, own.stderr[-2000:]
    assert np.array_equal(np.load(tmp_path / "own" / "chunk_00000.npz")["positions"],
                          np.load(tmp_path / "labels0" / "chunk_00000.npz")["positions"])
    # a fit to them records the teacher's other nets (the labels' own record)
    (tmp_path / "run").mkdir()
    save(tmp_path / "run" / "last.pt", a, games=7, train_state={"seconds": 1.0}, args={"game": "backgammon"},
         made_by={"commands": ["python train.py ..."]})
    fitted = run_script("fit_labels.py", tmp_path / "run", tmp_path / "labels0", tmp_path / "fit", "--epochs", 1,
                        "--holdout", 0)
    assert fitted.returncode == 0, fitted.stderr[-2000:]
    assert f"labelled by the mean with {tmp_path / 'b.pt'} at 7 games" in read(tmp_path / "fit" / "last.pt")[
        "made_by"]["fitted"]
    nardi, _ = two_nets("nardi")
    save(tmp_path / "nardi.pt", nardi)
    bad = run_script("two_ply_labels.py", tmp_path / "a.pt", tmp_path / "x", "--teacher-also", tmp_path / "nardi.pt")
    assert bad.returncode == 2 and "cannot load" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
