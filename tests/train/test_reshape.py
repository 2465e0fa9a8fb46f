"""model/train/reshape.py (a recipe's widen and deepen stages): the net widened or deepened plays exactly as
before, and self-play goes on from it."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from engine.tools.sample import random_positions
from model.net.checkpoint import fits_of, load_net, read
from model.train.reshape import reshape
from tests.helpers import ROOT

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
NARDI_RUN = ROOT / "experiments" / "resume" / "nardi" / "last.pt"  # a one-layer nardi run (128 hidden)


def script(old, new, how, hidden=0):
    """reshape() of the run in ``old`` into the run folder ``new`` (its last.pt)."""
    return reshape(old / "last.pt", new / "last.pt", how, hidden)


def changed_run(tmp_path, how, hidden=0):
    """The shipped nardi run copied to tmp_path/old and reshape's output for it in tmp_path/new:
    (before, after) as read from their last.pt files, after checking it plays exactly as the old one."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    (old / "last.pt").write_bytes(NARDI_RUN.read_bytes())
    script(old, new, how, hidden)
    a, _ = load_net(old / "last.pt")
    b, _ = load_net(new / "last.pt")
    positions, _ = random_positions("nardi", 500, seed=5)
    assert np.array_equal(a.probabilities(positions), b.probabilities(positions))
    return read(old / "last.pt"), read(new / "last.pt")


def train_on(run, games):
    """train.py --resume on ``run`` to ``games`` games; the checkpoint it leaves."""
    trained = subprocess.run([sys.executable, str(ROOT / "train.py"), "--threads", "1", "--run-dir", str(run),
                              "--resume", "--games", str(games), "--parallel-games", "8",
                              "--samples-per-update", "256", "--eval-every", "0", "--no-progress"],
                             capture_output=True, text=True, env=ENV, timeout=300, cwd=ROOT, check=False)
    assert trained.returncode == 0, trained.stderr[-2000:]
    return read(run / "last.pt")


def test_a_widened_run_plays_as_before_and_trains_on(tmp_path):
    width = read(NARDI_RUN)["net_config"]["hidden"][0]
    before, after = changed_run(tmp_path, "widen", width + 24)
    assert after["net_config"]["hidden"] == [width + 24] and after["args"]["hidden"] == str(width + 24)
    assert after["games"] == before["games"] and after["train_state"] == before["train_state"]
    assert after["optimizer"] is None and "widened" in after["made_by"]
    games = before["games"] + 20
    done = train_on(tmp_path / "new", games)
    assert done["games"] >= games and done["net_config"]["hidden"] == [width + 24]
    assert done["optimizer"] is not None  # Adam's state for the new shapes, from here on
    moved = done["weights"]["head.weight"][:, width:]
    assert moved.abs().sum() > 0  # the new units' output weights learn from the first update


def test_a_deepened_run_plays_as_before_and_its_new_layer_learns(tmp_path):
    before, after = changed_run(tmp_path, "deepen")
    width = before["net_config"]["hidden"][-1]
    assert after["net_config"]["hidden"] == [*before["net_config"]["hidden"], width]
    assert after["args"]["hidden"] == f"{width},{width}" and "deepened" in after["made_by"]
    assert after["optimizer"] is None and after["games"] == before["games"]
    assert after["made_by"]["deepened_after_fits"] == len(fits_of(before["made_by"]))  # where release_tables.py lists the step
    assert after["made_by"]["deepenings"] == [[len(fits_of(before["made_by"])), after["made_by"]["deepened"]]]
    script(tmp_path / "new", tmp_path / "third", "deepen")  # a second deepening keeps the first's record
    third = read(tmp_path / "third" / "last.pt")
    assert third["net_config"]["hidden"] == [width, width, width]
    assert [text for _, text in third["made_by"]["deepenings"]] == [after["made_by"]["deepened"],
                                                                  third["made_by"]["deepened"]]
    done = train_on(tmp_path / "new", before["games"] + 20)
    assert done["net_config"]["hidden"] == [width, width]
    assert not np.array_equal(done["weights"]["body.2.weight"].numpy(), np.eye(width, dtype=np.float32))


def test_a_net_that_cannot_be_widened_so_is_refused(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "last.pt").write_bytes(NARDI_RUN.read_bytes())
    width = read(old / "last.pt")["net_config"]["hidden"][0]
    with pytest.raises(ValueError, match=f"is narrower than the net's {width}"):
        script(old, tmp_path / "n", "widen", width - 1)
    assert not (tmp_path / "n").exists()
    script(old, tmp_path / "d", "deepen")
    with pytest.raises(ValueError, match="only single-hidden-layer nets can be widened"):
        script(tmp_path / "d", tmp_path / "w", "widen", width + 1)
