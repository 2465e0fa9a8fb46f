"""scripts/widen_run.py: a run's net widened or deepened plays exactly as before, and train.py resumes it."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from engine.tools.sample import random_positions
from model.net.checkpoint import fits_of, load_net, read
from tests.helpers import ROOT, run_script

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
NARDI_RUN = ROOT / "experiments" / "resume" / "nardi" / "last.pt"  # a one-layer nardi run (128 hidden)


def script(*args):
    return run_script("widen_run.py", *args)


def changed_run(tmp_path, *how):
    """The shipped nardi run copied to tmp_path/old and widen_run.py's output for it in tmp_path/new:
    (before, after) as read from their last.pt files, after checking it plays exactly as the old one."""
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    (old / "last.pt").write_bytes(NARDI_RUN.read_bytes())
    proc = script(old, new, *how)
    assert proc.returncode == 0, proc.stderr[-2000:]
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
    before, after = changed_run(tmp_path, "--hidden", width + 24)
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
    before, after = changed_run(tmp_path, "--deepen")
    width = before["net_config"]["hidden"][-1]
    assert after["net_config"]["hidden"] == [*before["net_config"]["hidden"], width]
    assert after["args"]["hidden"] == f"{width},{width}" and "deepened" in after["made_by"]
    assert after["optimizer"] is None and after["games"] == before["games"]
    assert after["made_by"]["deepened_after_fits"] == len(fits_of(before["made_by"]))  # where release_tables.py lists the step
    assert after["made_by"]["deepenings"] == [[len(fits_of(before["made_by"])), after["made_by"]["deepened"]]]
    again = script(tmp_path / "new", tmp_path / "third", "--deepen")  # a second deepening keeps the first's record
    assert again.returncode == 0, again.stderr
    third = read(tmp_path / "third" / "last.pt")
    assert third["net_config"]["hidden"] == [width, width, width]
    assert [text for _, text in third["made_by"]["deepenings"]] == [after["made_by"]["deepened"],
                                                                  third["made_by"]["deepened"]]
    done = train_on(tmp_path / "new", before["games"] + 20)
    assert done["net_config"]["hidden"] == [width, width]
    assert not np.array_equal(done["weights"]["body.2.weight"].numpy(), np.eye(width, dtype=np.float32))


def test_bad_requests_get_one_line_and_exit_2(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "last.pt").write_bytes(NARDI_RUN.read_bytes())
    width = read(old / "last.pt")["net_config"]["hidden"][0]
    narrower = script(old, tmp_path / "n", "--hidden", width - 1)
    assert narrower.returncode == 2 and f"is narrower than the net's {width}" in narrower.stderr
    assert len(narrower.stderr.strip().splitlines()) == 1 and not (tmp_path / "n").exists()
    exists = script(old, old, "--hidden", width + 1)
    assert exists.returncode == 2 and "exists; choose a new run directory" in exists.stderr
    both = script(old, tmp_path / "b", "--hidden", width + 1, "--deepen")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr and not (tmp_path / "b").exists()
    missing = script(tmp_path / "nowhere", tmp_path / "m", "--hidden", 8)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
