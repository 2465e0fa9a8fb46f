"""model/train/fit.py (a recipe's fit stage): a net fitted to labels takes them in, is written as a state
self-play can go on from, and a fit stopped after an epoch goes on exactly as an unbroken one."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import read, save
from model.net.equity import cubeless_equity
from model.net.network import NetConfig, OutcomeNet
from model.train.fit import PROGRESS, FitSettings, fit


def fitted(state, folders, work, **settings):
    """(the fitted state's path, the lines the fit logged)."""
    lines = []
    out, _ = fit(state, {name: folder for name, folder in folders.items()}, FitSettings(**settings), work,
              log=lines.append)
    return out, "\n".join(lines)


def student_and_labels(tmp_path, seed=0, chunks=5, per=200):
    torch.manual_seed(seed)
    student, teacher = (OutcomeNet(NetConfig("backgammon", hidden=(16,))) for _ in range(2))
    state = tmp_path / "state.pt"
    save(state, student, games=1234, train_state={"seconds": 5.0}, args={"game": "backgammon", "hidden": "16"},
         made_by={"commands": ["nardibot train ..."]})
    labels = tmp_path / "labels"
    labels.mkdir()
    positions, _ = random_positions("backgammon", chunks * per, seed=2)
    for i in range(chunks):
        pos = positions[per * i : per * (i + 1)]
        np.savez(labels / f"chunk_{i:05d}.npz", positions=pos, targets=teacher.probabilities(pos).astype(np.float32))
    return state, labels, teacher


def test_a_fitted_net_moves_toward_held_out_labels(tmp_path):
    state, labels, _ = student_and_labels(tmp_path)
    out, log = fitted(state, {"lab": labels}, tmp_path / "new", labels=("lab",), epochs=15, lr=3e-3,
                      batch_size=64, holdout=0.2)
    errors = [float(x) for x in re.findall(r"squared error ([\d.]+)", log)]
    assert len(errors) == 16 and errors[-1] < 0.5 * errors[0], log
    assert "800 positions to fit, 200 held out" in log and "(1 of 5 chunks)" in log
    blob = read(out)
    assert blob["games"] == 1234 and blob["args"]["hidden"] == "16" and blob["optimizer"] is not None
    assert blob["train_state"] == {"seconds": 5.0}  # the fit's own progress is not carried on
    assert "15 epochs at lr 0.003" in blob["made_by"]["fitted"] and blob["made_by"]["commands"]
    assert blob["made_by"]["fits"] == [blob["made_by"]["fitted"]]
    again, _ = fitted(out, {"lab": labels}, tmp_path / "newer", labels=("lab",), epochs=1)  # a second round
    fits = read(again)["made_by"]["fits"]
    assert len(fits) == 2 and fits[0] == blob["made_by"]["fitted"] and fits[1].startswith("1 epochs")
    with pytest.raises(ValueError, match="has no chunks"):
        fitted(state, {"lab": tmp_path}, tmp_path / "other", labels=("lab",))


def test_a_stopped_fit_goes_on_from_its_last_epoch_as_an_unbroken_one(tmp_path, monkeypatch):
    """The same weights and the same summary (held-out error from before the fit to after) as an
    unbroken fit."""
    state, labels, _ = student_and_labels(tmp_path, seed=3, chunks=4, per=100)
    same = {"labels": ("lab",), "epochs": 3, "holdout": 0.25, "batch_size": 32, "lr": 1e-3}
    whole, said = fit(state, {"lab": labels}, FitSettings(**same), tmp_path / "whole", log=lambda line: None)
    import model.train.fit as module

    real, calls = module.save, []

    def stop_after_epoch_two(path, *args, **kwargs):  # the epoch-2 checkpoint is written, then a stop
        real(path, *args, **kwargs)
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(module, "save", stop_after_epoch_two)
    with pytest.raises(KeyboardInterrupt):
        fit(state, {"lab": labels}, FitSettings(**same), tmp_path / "cut", log=lambda line: None)
    monkeypatch.setattr(module, "save", real)
    assert read(tmp_path / "cut" / PROGRESS)["train_state"]["fit_epochs_done"] == 2
    lines = []
    out, again = fit(state, {"lab": labels}, FitSettings(**same), tmp_path / "cut", log=lines.append)
    assert "going on after epoch 2" in lines[0]
    a, b = read(whole)["weights"], read(out)["weights"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert again == said and "squared error" in said


def test_sibling_families_get_the_choice_error_of_the_nets_pick(tmp_path):
    torch.manual_seed(1)
    student, teacher = (OutcomeNet(NetConfig("backgammon", hidden=(16,))) for _ in range(2))
    state = tmp_path / "state.pt"
    save(state, student, games=10, train_state={}, args={}, made_by={})
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
    folders = {"plain": plain, "sib": sib}
    _, log = fitted(state, folders, tmp_path / "new", labels=("plain", "sib"), epochs=1, holdout=0.6)
    # each stage keeps its own last chunk out (round(0.6 x 2), round(0.6 x 1)): only plain's first is fitted
    assert "300 positions to fit, 600 held out" in log
    before = [line for line in log.splitlines() if line.startswith("before")]
    assert len(before) == 2 and "choice error" not in before[0] and "over 100 families" in before[1]
    pos = positions[300:]
    label = cubeless_equity("backgammon", teacher.probabilities(pos).astype(np.float32).astype(np.float64))
    mine = cubeless_equity("backgammon", student.probabilities(pos))
    lost = [label[3 * g + np.argmin(mine[3 * g : 3 * g + 3])] - label[3 * g : 3 * g + 3].min() for g in range(100)]
    assert f"choice error {1000 * np.mean(lost):.2f} over 100 families" in before[1]
    ranked, log = fitted(state, folders, tmp_path / "ranked", labels=("plain", "sib"), epochs=1, holdout=0.0,
                         rank_weight=2.0)
    assert "900 positions to fit, 0 held out" in log
    assert "rank weight 2.0 on 900" in read(ranked)["made_by"]["fitted"]
    _, log = fitted(state, folders, tmp_path / "tested", labels=("plain",), test=("sib",), epochs=1, holdout=0.0)
    assert "600 positions to fit, 300 held out" in log
    assert "before: sib: held-out 300 positions (1 of 1 chunks)" in log and "choice error" in log
