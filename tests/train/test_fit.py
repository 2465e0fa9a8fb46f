"""scripts/fit_labels.py: a run's net fitted to labels takes them in and is written as a resumable run."""

from __future__ import annotations

import re

import numpy as np
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import read, save
from model.net.equity import cubeless_equity
from model.net.network import NetConfig, OutcomeNet
from tests.helpers import run_script


def fit(*args):
    return run_script("fit_labels.py", *args)


def test_a_fitted_net_moves_toward_held_out_labels(tmp_path):
    torch.manual_seed(0)
    student, teacher = (OutcomeNet(NetConfig("backgammon", hidden=(16,))) for _ in range(2))
    (tmp_path / "run").mkdir()
    save(tmp_path / "run" / "last.pt", student, games=1234, train_state={"seconds": 5.0},
         args={"game": "backgammon", "hidden": "16"}, made_by={"commands": ["python train.py ..."]})
    labels = tmp_path / "labels"
    labels.mkdir()
    positions, _ = random_positions("backgammon", 1000, seed=2)
    for i in range(5):  # four chunks to fit, the fifth held out (--holdout 0.2)
        pos = positions[200 * i : 200 * (i + 1)]
        np.savez(labels / f"chunk_{i:05d}.npz", positions=pos,
                 targets=teacher.probabilities(pos).astype(np.float32))
    proc = fit(tmp_path / "run", labels, tmp_path / "new", "--epochs", 15, "--lr", 3e-3, "--batch-size", 64,
               "--holdout", 0.2)
    assert proc.returncode == 0, proc.stderr[-2000:]
    errors = [float(x) for x in re.findall(r"squared error ([\d.]+)", proc.stdout)]
    assert len(errors) == 16 and errors[-1] < 0.5 * errors[0], proc.stdout
    assert "800 positions to fit, 200 held out" in proc.stdout and "(1 of 5 chunks)" in proc.stdout
    blob = read(tmp_path / "new" / "last.pt")
    assert blob["games"] == 1234 and blob["args"]["hidden"] == "16" and blob["optimizer"] is not None
    assert "15 epochs at lr 0.003" in blob["made_by"]["fitted"] and blob["made_by"]["commands"]
    assert blob["made_by"]["fits"] == [blob["made_by"]["fitted"]]
    second = fit(tmp_path / "new", labels, tmp_path / "newer", "--epochs", 1)  # a second round keeps the first
    assert second.returncode == 0, second.stderr[-2000:]
    fits = read(tmp_path / "newer" / "last.pt")["made_by"]["fits"]
    assert len(fits) == 2 and fits[0] == blob["made_by"]["fitted"] and fits[1].startswith("1 epochs")
    again = fit(tmp_path / "run", labels, tmp_path / "new")
    assert again.returncode == 2 and "exists; choose a new run directory" in again.stderr
    empty = fit(tmp_path / "run", tmp_path, tmp_path / "other")
    assert empty.returncode == 2 and "no chunk_*.npz files" in empty.stderr
    assert len(empty.stderr.strip().splitlines()) == 1


def test_sibling_families_get_the_choice_error_of_the_nets_pick(tmp_path):
    torch.manual_seed(1)
    student, teacher = (OutcomeNet(NetConfig("backgammon", hidden=(16,))) for _ in range(2))
    (tmp_path / "run").mkdir()
    save(tmp_path / "run" / "last.pt", student, games=10, train_state={}, args={}, made_by={})
    plain, sib = tmp_path / "plain", tmp_path / "sib"
    plain.mkdir()
    sib.mkdir()
    positions, _ = random_positions("backgammon", 600, seed=3)
    group = np.repeat(np.arange(100), 3)  # families of three "candidates"
    for i, folder in enumerate((plain, plain, sib)):
        pos = positions[:300] if folder is plain and i == 0 else positions[300:]
        extra = {"group": group} if folder is sib else {}
        np.savez(folder / f"chunk_{i:05d}.npz", positions=pos, targets=teacher.probabilities(pos).astype(np.float32),
                 **extra)
    proc = fit(tmp_path / "run", plain, sib, tmp_path / "new", "--epochs", 1, "--holdout", 0.6)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # each folder keeps its own last chunk out (round(0.6 x 2), round(0.6 x 1)): plain 1 of 2, sib 1 of 1, so only plain's first is fitted
    assert "300 positions to fit, 600 held out" in proc.stdout
    before = [line for line in proc.stdout.splitlines() if line.startswith("before")]
    assert len(before) == 2 and "choice error" not in before[0] and "over 100 families" in before[1]
    pos = positions[300:]
    label = cubeless_equity("backgammon", teacher.probabilities(pos).astype(np.float32).astype(np.float64))
    mine = cubeless_equity("backgammon", student.probabilities(pos))
    lost = [label[3 * g + np.argmin(mine[3 * g : 3 * g + 3])] - label[3 * g : 3 * g + 3].min() for g in range(100)]
    assert f"choice error {1000 * np.mean(lost):.2f} over 100 families" in before[1]
    ranked = fit(tmp_path / "run", plain, sib, tmp_path / "ranked", "--epochs", 1, "--holdout", 0.0,
                 "--rank-weight", 2)
    assert ranked.returncode == 0, ranked.stderr[-2000:]
    assert "900 positions to fit, 0 held out" in ranked.stdout
    assert "rank weight 2.0 on 900" in read(tmp_path / "ranked" / "last.pt")["made_by"]["fitted"]
    tested = fit(tmp_path / "run", plain, tmp_path / "tested", "--epochs", 1, "--holdout", 0.0, "--test", sib)
    assert tested.returncode == 0, tested.stderr[-2000:]
    assert "600 positions to fit, 300 held out" in tested.stdout
    assert f"before: {sib}: held-out 300 positions (1 of 1 chunks)" in tested.stdout and "choice error" in tested.stdout
