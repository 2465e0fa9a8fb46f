"""scripts/recipe_backgammon.sh: the shipped backgammon net's whole recipe as one resumable job.

The chain is run for real at a 20,000th of its counts (DIV), so every documented step's command is
checked to run after the one before it; the full-size commands are checked by --dry-run."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from model.net.checkpoint import deepenings_of, fits_of, read

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "recipe_backgammon.sh"
STEPS = ["td270k", "oneply3", "oneply8", "labels-L7", "fit-L7", "labels-L8b", "fit-L8b", "labels-L9b", "fit-L9b",
         "labels-L10", "fit-L10", "labels-L11", "deepen-L10", "fit-L11", "labels-L12", "fit-L12", "labels-L13",
         "fit-L13", "export"]


def recipe(runs: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args, str(runs)], check=False, capture_output=True,
                          text=True, timeout=900,
                          env={**os.environ, "PYTHON": sys.executable, **env})


def test_dry_run_prints_the_shipped_recipe_and_runs_nothing(tmp_path):
    out = recipe(tmp_path / "r", "--dry-run")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any("train.py" in line and "--games 270049" in line and "--seed 11" in line for line in lines)
    assert any("--target one-ply --target-prune 3 --lam 0" in line and "--games 577160" in line for line in lines)
    assert any("--games 674802 --target-prune 8" in line for line in lines)
    labels = [line for line in lines if "two_ply_labels.py" in line]
    # the shipped net's labels: 604k one-ply, 28k two-ply of L6, then the six rounds of two-ply
    assert sum(line.count("two_ply_labels.py") for line in labels) == 17
    assert any("--positions 604000 --seed 4000001 --plies 1" in line for line in labels)
    assert any("--positions 232000 --seed 14100001" in line for line in labels)
    assert sum("fit_labels.py" in line for line in lines) == 7
    assert sum("--epochs 16" in line for line in lines if "fit_labels.py" in line) == 2
    assert not (tmp_path / "r").exists()


def test_bad_arguments_get_one_line_and_exit_2(tmp_path):
    for args in (["--bogus"], [str(tmp_path / "a"), str(tmp_path / "b")]):
        out = subprocess.run(["bash", str(SCRIPT), *args], check=False, capture_output=True, text=True, timeout=60)
        assert out.returncode == 2
        assert out.stderr.startswith("usage: scripts/recipe_backgammon.sh") and out.stderr.count("\n") == 1
        assert out.stdout == ""
    assert not any(tmp_path.iterdir())


def test_the_chain_runs_scaled_down_and_resumes_as_done(tmp_path):
    runs = tmp_path / "r"
    small = {"DIV": "20000", "CHUNK": "10", "PARALLEL": "8"}
    out = recipe(runs, **small)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert sorted(p.name for p in (runs / "done").iterdir()) == sorted(STEPS)
    blob = read(runs / "backgammon.safetensors", backend="numpy")
    assert blob["net_config"]["hidden"] == [256, 256]
    assert blob["games"] >= 674802 // 20000
    fits = fits_of(blob["made_by"])
    assert len(fits) == 7
    assert "labels/sib1" in fits[0] and "labels/l15a" in fits[-1]
    assert "16 epochs" in fits[-1] and "8 epochs" in fits[3]
    assert [step[0] for step in deepenings_of(blob["made_by"])] == [4]  # after L7, L8b, L9b and L10's fits
    again = recipe(runs, **small)
    assert again.returncode == 0, again.stderr
    assert [line for line in again.stdout.splitlines() if line.startswith("+")] == []
    assert sum(line.startswith("= ") for line in again.stdout.splitlines()) == len(STEPS)
    # every step recorded its wall seconds; --hours lists them in the order they finished, and the sum
    seconds = [int((runs / "done" / name).read_text()) for name in STEPS]
    assert all(s >= 0 for s in seconds)
    hours = recipe(runs, "--hours")
    assert hours.returncode == 0, hours.stderr
    rows = [line.split() for line in hours.stdout.splitlines()]
    assert [row[0] for row in rows] == [*STEPS, "total"]
    assert all(row[2] == "h" for row in rows)
    assert abs(float(rows[-1][1]) - sum(seconds) / 3600) < 0.01


def test_hours_of_a_folder_without_steps_is_one_line_and_exit_2(tmp_path):
    out = recipe(tmp_path / "none", "--hours")
    assert out.returncode == 2
    assert out.stderr == f"recipe: no steps done in {tmp_path / 'none'}\n" and out.stdout == ""


def test_a_stopped_step_keeps_its_seconds_and_adds_them_when_it_finishes(tmp_path):
    runs = tmp_path / "r"
    (runs / "done").mkdir(parents=True)
    (runs / "done" / ".td270k.part").write_text("1000\n")  # what an earlier, stopped start spent
    out = recipe(runs, PYTHON="true")  # every command succeeds at once
    assert out.returncode == 0, out.stderr
    assert 1000 <= int((runs / "done" / "td270k").read_text()) < 1100
    assert int((runs / "done" / "oneply3").read_text()) < 100
    assert not list((runs / "done").glob(".*"))


def test_ctrl_c_in_a_label_pair_stops_both_jobs_and_keeps_the_seconds(tmp_path):
    runs, pids = tmp_path / "r", tmp_path / "pids"
    (runs / "done").mkdir(parents=True)
    for name in ("td270k", "oneply3", "oneply8"):
        (runs / "done" / name).write_text("1\n")
    slow = tmp_path / "slow"  # an interpreter whose every command takes a minute
    slow.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 60\n")
    slow.chmod(0o755)
    # as from a terminal: Ctrl-C's SIGINT at its default (a test runner started with & ignores it, and a
    # shell cannot trap a signal ignored when it started)
    terminal = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                "os.execvp('bash', ['bash', *sys.argv[1:]])")
    job = subprocess.Popen([sys.executable, "-c", terminal, str(SCRIPT), str(runs)], start_new_session=True,
                           text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env={**os.environ, "PYTHON": str(slow)})
    deadline = time.monotonic() + 30
    while (not pids.exists() or len(pids.read_text().split()) < 2) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.2)
    os.killpg(job.pid, signal.SIGINT)
    try:
        _, err = job.communicate(timeout=30)
        assert job.returncode == 130 and "recipe: stopped; run the script again to go on" in err
        assert not (runs / "done" / "labels-L7").exists()
        assert int((runs / "done" / ".labels-L7.part").read_text()) >= 1
        time.sleep(0.5)
        for pid in map(int, pids.read_text().split()):  # neither label job outlives the script
            assert not running(pid)
    finally:  # a script that ignored Ctrl-C leaves nothing running behind the failed test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(job.pid, signal.SIGKILL)


def running(pid: int) -> bool:
    """Whether process ``pid`` is alive (not gone, not a zombie waiting to be reaped)."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
