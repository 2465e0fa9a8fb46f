"""scripts/rollout_labels.py: sibling chunks labelled again by rollouts, each label the position's own rollout."""

from __future__ import annotations

import numpy as np
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import save
from model.net.equity import cubeless_equity
from model.net.network import NetConfig, OutcomeNet
from model.search.rollout import rollout
from tests.helpers import run_script


def test_each_label_is_the_positions_own_rollout_and_a_done_chunk_is_kept(tmp_path):
    torch.manual_seed(2)
    net = OutcomeNet(NetConfig("backgammon", hidden=(8,))).eval()
    save(tmp_path / "net.pt", net, games=1, train_state={}, args={}, made_by={})
    pos, _ = random_positions("backgammon", 6, seed=3)
    source, out = tmp_path / "labels", tmp_path / "rolled"
    source.mkdir()
    group = np.array([0, 0, 0, 1, 1, 2])
    np.savez(source / "chunk_00003.npz", positions=pos, targets=np.zeros((6, 5), np.float32), group=group,
             prune=8, plies=2, parents=pos[:3], dice=np.ones((3, 2), int))
    proc = run_script("rollout_labels.py", tmp_path / "net.pt", source, out, "--trials", "6", "--seed", "40")
    assert proc.returncode == 0, proc.stderr[-2000:]
    with np.load(out / "chunk_00003.npz") as z:
        got = dict(z)
    assert np.array_equal(got["positions"], pos) and np.array_equal(got["group"], group)
    assert int(got["trials"]) == 6 and int(got["prune"]) == 8 and np.array_equal(got["parents"], pos[:3])
    assert got["trial_equity"].shape == (6, 6)
    # targets are stored as float16 (model/train/labels.py CHUNK_DTYPES): within 2^-11 of the value
    assert got["targets"].dtype == np.float16
    assert np.allclose(cubeless_equity("backgammon", got["targets"].astype(np.float64)),
                       got["trial_equity"].mean(axis=1), rtol=3e-3, atol=1e-3)
    for i in range(6):  # chunk 3 is rolled out with seed 40 + 3; trial t's dice do not depend on the others
        alone = rollout(net, pos[i], trials=6, seed=43, prune=4).evaluation
        assert np.allclose(got["targets"][i], alone.probs, rtol=1e-3, atol=2.5e-4), i
    stamp = (out / "chunk_00003.npz").stat().st_mtime_ns
    again = run_script("rollout_labels.py", tmp_path / "net.pt", source, out, "--trials", "6", "--seed", "40")
    assert again.returncode == 0 and (out / "chunk_00003.npz").stat().st_mtime_ns == stamp
    judged = run_script("teacher_agreement.py", tmp_path / "net.pt", out, "--plies", "0")
    assert judged.returncode == 0 and "labels: rollouts of 6 trials" in judged.stdout, judged.stderr[-2000:]


def test_bad_input_is_one_line(tmp_path):
    torch.manual_seed(2)
    net = OutcomeNet(NetConfig("backgammon", hidden=(8,))).eval()
    save(tmp_path / "net.pt", net, games=1, train_state={}, args={}, made_by={})
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, words in (((empty, tmp_path / "o"), "no chunk files"),
                        ((empty, empty), "must not be the source"),
                        ((empty, tmp_path / "o", "--trials", "1"), "--trials must be 2 or more")):
        proc = run_script("rollout_labels.py", tmp_path / "net.pt", *args)
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    pos, _ = random_positions("backgammon", 4, seed=3)
    np.savez(empty / "chunk_00000.npz", positions=pos, targets=np.zeros((4, 3), np.float32), group=np.zeros(4, int))
    nardi = run_script("rollout_labels.py", tmp_path / "net.pt", empty, tmp_path / "o")  # 3 outputs: nardi's
    assert nardi.returncode == 2 and "another game" in nardi.stderr and len(nardi.stderr.strip().splitlines()) == 1
