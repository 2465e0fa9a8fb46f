"""scripts/two_ply_labels.py: labels equal the look-ahead's two-ply values, chunks resume identically."""

from __future__ import annotations

import numpy as np
import torch

from engine.board import CHECKERS, OFF, flip
from engine.movegen import legal_plays
from model.net.bearoff import bearoff_mask
from model.net.checkpoint import load_net, save
from model.net.equity import cubeless_equity, flip_probs
from model.net.evaluator import ExactEndgames
from model.net.network import NetConfig, OutcomeNet
from model.search.lookahead import evaluate_positions
from tests.helpers import ROOT, run_script


def label(*args):
    return run_script("two_ply_labels.py", *args)


def test_labels_are_the_two_ply_look_ahead_and_chunks_resume(tmp_path):
    torch.manual_seed(4)
    path = tmp_path / "net.pt"
    save(path, OutcomeNet(NetConfig("backgammon", hidden=(8,))))
    small = ("--chunk", 12, "--parallel-games", 16, "--every", 2, "--prune", 0, "--seed", 3)
    first = label(path, tmp_path / "a", "--positions", 24, *small)
    assert first.returncode == 0, first.stderr[-2000:]
    a0, a1 = np.load(tmp_path / "a" / "chunk_00000.npz"), np.load(tmp_path / "a" / "chunk_00001.npz")
    pos, tgt = a0["positions"], a0["targets"]
    assert pos.shape == (12, 28) and tgt.shape == (12, 5) and not bearoff_mask("backgammon", pos).any()
    net, _ = load_net(path)
    want = evaluate_positions(ExactEndgames(net), pos, 2)  # every play at both levels
    np.testing.assert_allclose(tgt, want, atol=1e-5)
    # going on where it stopped gives the chunk a single longer job gives, and leaves the others alone
    more = label(path, tmp_path / "a", "--positions", 36, *small)
    assert more.returncode == 0, more.stderr[-2000:]
    whole = label(path, tmp_path / "b", "--positions", 36, *small)
    assert whole.returncode == 0, whole.stderr[-2000:]
    for i in range(3):
        x, y = np.load(tmp_path / "a" / f"chunk_{i:05d}.npz"), np.load(tmp_path / "b" / f"chunk_{i:05d}.npz")
        assert np.array_equal(x["positions"], y["positions"]) and np.array_equal(x["targets"], y["targets"])
    assert np.array_equal(np.load(tmp_path / "a" / "chunk_00001.npz")["targets"], a1["targets"])


def test_bad_settings_get_one_line(tmp_path):
    for args, says in [((ROOT / "checkpoints" / "backgammon.safetensors", tmp_path, "--positions", 0),
                        "--positions must be positive"),
                       ((tmp_path / "missing.pt", tmp_path), "cannot load")]:
        proc = label(*args)
        assert proc.returncode == 2 and says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_siblings_are_the_nets_best_plays_of_the_rolled_dice(tmp_path):
    torch.manual_seed(5)
    path = tmp_path / "net.pt"
    save(path, OutcomeNet(NetConfig("backgammon", hidden=(8,))))
    proc = label(path, tmp_path / "s", "--positions", 30, "--chunk", 30, "--parallel-games", 8, "--every", 2,
                 "--prune", 0, "--siblings", 3, "--margin", 0.05, "--seed", 7)
    assert proc.returncode == 0, proc.stderr[-2000:]
    chunk = np.load(tmp_path / "s" / "chunk_00000.npz")
    pos, group, parents, dice = chunk["positions"], chunk["group"], chunk["parents"], chunk["dice"]
    assert len(pos) == len(group) == 30 and np.all(np.diff(group) >= 0)
    net, _ = load_net(path)
    np.testing.assert_allclose(chunk["targets"], evaluate_positions(ExactEndgames(net), pos, 2), atol=1e-5)
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
    torch.manual_seed(6)
    path = tmp_path / "net.pt"
    save(path, OutcomeNet(NetConfig("backgammon", hidden=(8,))))
    proc = label(path, tmp_path / "p", "--positions", 20, "--chunk", 20, "--parallel-games", 8, "--plies", 1,
                 "--prune", 4, "--seed", 2, "--warmup", 10, "--actor", "sample")
    assert proc.returncode == 0, proc.stderr[-2000:]
    chunk = np.load(tmp_path / "p" / "chunk_00000.npz")
    net, _ = load_net(path)
    want = evaluate_positions(ExactEndgames(net), chunk["positions"], 1, prune=4)
    np.testing.assert_allclose(chunk["targets"], want, atol=1e-5)
    assert int(chunk["plies"]) == 1 and int(chunk["warmup"]) == 10 and str(chunk["actor"]) == "sample"
    assert not np.allclose(want, ExactEndgames(net).probabilities(chunk["positions"]))
