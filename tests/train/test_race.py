"""Race-net training: games dealt from given starts, and scripts/train_race.py end to end on a tiny run."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import torch

from engine.tools.sample import random_positions
from model.net.checkpoint import read
from model.net.features import RACE_VERSION
from model.net.network import NetConfig, OutcomeNet
from model.net.race import load_race_net
from model.train.race_games import is_race_start
from model.train.td import SelfPlayActor
from tests.helpers import ROOT


def test_an_actor_with_starts_deals_them_and_plays_them_out():
    torch.manual_seed(0)
    net = OutcomeNet(NetConfig("backgammon", (8,), feature_version=RACE_VERSION))
    starts, _ = random_positions("backgammon", 30, seed=1, kind="race")
    starts = starts[is_race_start(starts)]
    actor = SelfPlayActor(net, games=64, lam=0.0, seed=2, target="one-ply", prune=3, exact_endgames=True,
                          starts=starts)
    dealt = {row.tobytes() for row in actor.table.pos}
    assert dealt <= {row.tobytes() for row in starts} and len(dealt) > 1
    assert not actor.openings  # a race's first roll is any roll
    exp = actor.play(200)
    assert exp.games > 0 and len(exp.positions) >= 200
    assert np.isfinite(exp.targets).all() and (exp.targets >= 0).all() and (exp.targets <= 1).all()


def test_train_race_runs_a_tiny_run_end_to_end(tmp_path):
    run, out = tmp_path / "run", tmp_path / "race.safetensors"
    cmd = [sys.executable, str(ROOT / "scripts" / "train_race.py"), "--run-dir", str(run), "--start-games", "40",
           "--games", "60", "--hidden", "8", "--out", str(out), "--",
           "--parallel-games", "16", "--samples-per-update", "256", "--batch-size", "64"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    starts = np.load(run / "starts.npy")
    assert starts.shape == (40, 28) and is_race_start(starts).all()
    blob = read(run / "last.pt")
    assert blob["feature_version"] == RACE_VERSION and blob["games"] >= 60
    args = blob["args"]
    assert (args["target"], args["lam"], args["starts"]) == ("sample", 0.7, str(run / "starts.npy"))
    assert args["exact_endgames"] and args["skip_exact"] and args["eval_every"] == 0
    assert load_race_net(out).config.hidden == (8,)
    bad = subprocess.run([sys.executable, str(ROOT / "train.py"), "--skip-exact"], capture_output=True,
                         text=True, timeout=60, cwd=ROOT, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert bad.returncode == 2 and "--skip-exact goes with --exact-endgames" in bad.stderr.strip().splitlines()[-1]
