"""scripts/fit_labels.py: a run's net fitted to labels takes them in and is written as a resumable run."""

from __future__ import annotations

import re

import numpy as np
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import read, save
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
    assert "800 positions to fit, 200 held out (1 of 5 chunks)" in proc.stdout
    blob = read(tmp_path / "new" / "last.pt")
    assert blob["games"] == 1234 and blob["args"]["hidden"] == "16" and blob["optimizer"] is not None
    assert "15 epochs at lr 0.003" in blob["made_by"]["fitted"] and blob["made_by"]["commands"]
    again = fit(tmp_path / "run", labels, tmp_path / "new")
    assert again.returncode == 2 and "exists; choose a new run directory" in again.stderr
    empty = fit(tmp_path / "run", tmp_path, tmp_path / "other")
    assert empty.returncode == 2 and "no chunk_*.npz files" in empty.stderr
    assert len(empty.stderr.strip().splitlines()) == 1
