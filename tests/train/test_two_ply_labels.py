"""scripts/two_ply_labels.py: labels equal the look-ahead's two-ply values, chunks resume identically."""

from __future__ import annotations

import numpy as np
import torch

from model.net.bearoff import bearoff_mask
from model.net.checkpoint import load_net, save
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
