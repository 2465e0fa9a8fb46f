"""model/train/labels.py and label_workers.py (a recipe's labels stage): labels equal the look-ahead's
values (within float16 storage), chunks come out the same however the job is cut or spread over workers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.board import CHECKERS, OFF, flip
from engine.movegen import legal_plays
from model.net.bearoff import bearoff_mask
from model.net.checkpoint import load_net, save
from model.net.equity import cubeless_equity, flip_probs
from model.net.evaluator import ExactEndgames
from model.net.network import NetConfig, OutcomeNet
from model.search.lookahead import evaluate_positions
from model.train.label_workers import make_chunks
from model.train.labels import LabelSettings, read_chunk

STORED = 2.5e-4  # a float16 probability is within this of the float32 one


def label(state, folder, workers=1, **settings) -> LabelSettings:
    """The chunks of these settings made in ``folder`` by the net of ``state``; the settings."""
    chosen = LabelSettings(**settings)
    folder.mkdir(parents=True, exist_ok=True)
    make_chunks(state, chosen, folder, workers=workers, progress=False)
    return chosen


def small_net(tmp_path, seed):
    torch.manual_seed(seed)
    path = tmp_path / "net.pt"
    save(path, OutcomeNet(NetConfig("backgammon", hidden=(8,))))
    return path


def test_labels_are_the_two_ply_look_ahead_and_chunks_resume(tmp_path):
    path = small_net(tmp_path, 4)
    small = {"chunk": 12, "parallel_games": 16, "every": 2, "prune": 0, "seed": 3}
    label(path, tmp_path / "a", positions=24, **small)
    a0, a1 = read_chunk(tmp_path / "a" / "chunk_00000.npz"), read_chunk(tmp_path / "a" / "chunk_00001.npz")
    pos, tgt = a0["positions"], a0["targets"]
    assert pos.shape == (12, 28) and tgt.shape == (12, 5) and not bearoff_mask("backgammon", pos).any()
    with np.load(tmp_path / "a" / "chunk_00000.npz") as raw:  # stored compactly
        assert raw["targets"].dtype == np.float16 and raw["positions"].dtype == np.int8
    net, _ = load_net(path)
    want = evaluate_positions(ExactEndgames(net), pos, 2)  # every play at both levels
    np.testing.assert_allclose(tgt, want, atol=STORED)
    # going on where it stopped gives the chunk a single longer job gives, and leaves the others alone;
    # two worker processes make the same chunks as one
    stamp = (tmp_path / "a" / "chunk_00001.npz").stat().st_mtime_ns
    label(path, tmp_path / "a", positions=36, **small)
    assert (tmp_path / "a" / "chunk_00001.npz").stat().st_mtime_ns == stamp
    label(path, tmp_path / "b", positions=36, workers=2, **small)
    for i in range(3):
        x, y = read_chunk(tmp_path / "a" / f"chunk_{i:05d}.npz"), read_chunk(tmp_path / "b" / f"chunk_{i:05d}.npz")
        assert np.array_equal(x["positions"], y["positions"]) and np.array_equal(x["targets"], y["targets"])
    assert np.array_equal(read_chunk(tmp_path / "a" / "chunk_00001.npz")["targets"], a1["targets"])


def test_bad_settings_are_named():
    assert LabelSettings(positions=0).problem() == "positions must be positive"
    assert "plies must be 0, 1 or 2" in LabelSettings(plies=3).problem()
    assert "actor must be" in LabelSettings(actor="greedy").problem()
    assert LabelSettings().problem() is None


def test_siblings_are_the_nets_best_plays_of_the_rolled_dice(tmp_path):
    path = small_net(tmp_path, 5)
    label(path, tmp_path / "s", positions=30, chunk=30, parallel_games=8, every=2, prune=0, siblings=3,
          margin=0.05, seed=7)
    chunk = read_chunk(tmp_path / "s" / "chunk_00000.npz")
    pos, group, parents, dice = chunk["positions"], chunk["group"], chunk["parents"], chunk["dice"]
    assert len(pos) == len(group) == 30 and np.all(np.diff(group) >= 0)
    net, _ = load_net(path)
    np.testing.assert_allclose(chunk["targets"], evaluate_positions(ExactEndgames(net), pos, 2), atol=STORED)
    sizes = []
    for g in np.unique(group)[:-1]:  # the last family may be cut by the chunk's end
        # one position at a time: every play of its dice, ranked by the net's cubeless equity
        kids, _ = legal_plays("backgammon", parents[g : g + 1], dice[g : g + 1])
        util = cubeless_equity("backgammon", flip_probs("backgammon", ExactEndgames(net).probabilities(
            flip("backgammon", kids))))
        order = np.argsort(-util, kind="stable")
        best = [j for j in order[:3] if util[j] >= util[order[0]] - 0.05 and kids[j, OFF] < CHECKERS]
        want = flip("backgammon", kids[best])
        want = want[~bearoff_mask("backgammon", want)]
        assert np.array_equal(pos[group == g], want)
        sizes.append(len(want))
    assert max(sizes) > 1  # some rolls had close candidates


def test_one_ply_labels_after_a_warm_up(tmp_path):
    path = small_net(tmp_path, 6)
    label(path, tmp_path / "p", positions=20, chunk=20, parallel_games=8, plies=1, prune=4, seed=2, warmup=10,
          actor="sample")
    chunk = read_chunk(tmp_path / "p" / "chunk_00000.npz")
    net, _ = load_net(path)
    want = evaluate_positions(ExactEndgames(net), chunk["positions"], 1, prune=4)
    np.testing.assert_allclose(chunk["targets"], want, atol=STORED)
    assert int(chunk["plies"]) == 1 and int(chunk["warmup"]) == 10 and str(chunk["actor"]) == "sample"
    assert not np.allclose(want, ExactEndgames(net).probabilities(chunk["positions"]))


def test_label_chunks_as_ray_tasks_are_the_chunks_of_one_process(tmp_path):
    """With a Ray address (here a Ray started on this machine) the chunks are Ray tasks, which get the
    net's bytes (as on another machine); only this process writes them, the same chunks as one process."""
    pytest.importorskip("ray")
    path = small_net(tmp_path, 8)
    small = {"positions": 20, "chunk": 10, "parallel_games": 8, "every": 2, "prune": 0, "seed": 5, "plies": 1}
    label(path, tmp_path / "one", **small)
    chosen = LabelSettings(**small)
    (tmp_path / "ray").mkdir()
    assert make_chunks(path, chosen, tmp_path / "ray", ray_address="local", progress=False) == 2
    for i in range(2):
        x, y = read_chunk(tmp_path / "one" / f"chunk_{i:05d}.npz"), read_chunk(tmp_path / "ray" / f"chunk_{i:05d}.npz")
        assert np.array_equal(x["positions"], y["positions"]) and np.array_equal(x["targets"], y["targets"])
