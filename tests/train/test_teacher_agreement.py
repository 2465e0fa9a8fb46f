"""scripts/teacher_agreement.py and model/train/labels.py: picks among sibling candidates judged by labels."""

from __future__ import annotations

import json

import numpy as np
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import save
from model.net.equity import cubeless_equity
from model.net.evaluator import ExactEndgames
from model.net.network import NetConfig, OutcomeNet
from model.search.lookahead import evaluate_positions
from model.train.labels import choice_losses
from tests.helpers import run_script


def test_choice_losses_charge_each_family_its_labels_gap():
    labels = np.zeros((5, 5))
    labels[:, 0] = [0.5, 0.6, 0.4, 0.7, 0.2]  # win chances only: equities 0.0, 0.2, -0.2, 0.4, -0.6
    got = labels.copy()
    got[:, 0] = [0.6, 0.5, 0.4, 0.7, 0.9]  # the net prefers row 1 in family 0 (lowest for the opponent)
    group = np.array([7, 7, 3, 3, 9])  # family 9 has one candidate: not counted
    lost = choice_losses("backgammon", labels, got, group)
    # families in sorted order 3, 7: family 3 agrees (row 2), family 7 picks row 1 (0.2) over row 0 (0.0)
    assert np.allclose(lost, [0.0, 0.2])


def test_a_depth_agrees_with_its_own_labels_and_the_net_is_charged_its_gap(tmp_path):
    torch.manual_seed(4)
    net = OutcomeNet(NetConfig("backgammon", hidden=(16,))).eval()
    save(tmp_path / "net.pt", net, games=1, train_state={}, args={}, made_by={})
    pos, _ = random_positions("backgammon", 60, seed=5)
    evaluator = ExactEndgames(net)
    labels = evaluate_positions(evaluator, pos, 1).astype(np.float32)
    group = np.repeat(np.arange(20), 3)
    chunks = tmp_path / "chunks"
    chunks.mkdir()
    np.savez(chunks / "chunk_00000.npz", positions=pos, targets=labels, group=group, prune=0, plies=1)
    proc = run_script("teacher_agreement.py", tmp_path / "net.pt", chunks, "--plies", "0,1",
                      "--json", tmp_path / "out.json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {r["plies"]: r for r in json.loads((tmp_path / "out.json").read_text())["depths"]}
    assert rows[1]["choice_error"] < 1e-6 and rows[1]["disagree"] == 0.0 and rows[1]["families"] == 20
    label = cubeless_equity("backgammon", labels.astype(np.float64))
    mine = cubeless_equity("backgammon", evaluator.probabilities(pos))
    lost = [label[3 * g + np.argmin(mine[3 * g : 3 * g + 3])] - label[3 * g : 3 * g + 3].min() for g in range(20)]
    assert abs(rows[0]["choice_error"] - 1000 * np.mean(lost)) < 1e-3
    assert "1-ply picks, judged by the labels: choice error 0.00" in proc.stdout
    judged = run_script("teacher_agreement.py", tmp_path / "net.pt", chunks, "--plies", "0", "--judge", "1",
                        "--json", tmp_path / "judged.json")  # the net's own 1-ply: what the labels hold
    assert judged.returncode == 0, judged.stderr[-2000:]
    again = json.loads((tmp_path / "judged.json").read_text())["depths"][0]
    assert abs(again["choice_error"] - rows[0]["choice_error"]) < 1e-3 and "judged by the net's own 1-ply" in judged.stdout
    plain = tmp_path / "plain"
    plain.mkdir()
    np.savez(plain / "chunk_00000.npz", positions=pos, targets=labels, prune=0, plies=1)
    bad = run_script("teacher_agreement.py", tmp_path / "net.pt", plain)
    assert bad.returncode == 2 and "has no 'group'" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    np.savez(plain / "chunk_00002.npz", positions=pos, targets=labels[:, :3], group=group, prune=0, plies=1)
    other = run_script("teacher_agreement.py", tmp_path / "net.pt", plain / "chunk_00002.npz")  # nardi's 3 outputs
    assert other.returncode == 2 and "do not have the 5 outputs" in other.stderr
    assert len(other.stderr.strip().splitlines()) == 1
    (plain / "chunk_00001.npz").write_bytes(b"not a zip")
    broken = run_script("teacher_agreement.py", tmp_path / "net.pt", plain / "chunk_00001.npz")
    assert broken.returncode == 2 and "cannot read" in broken.stderr and len(broken.stderr.strip().splitlines()) == 1
