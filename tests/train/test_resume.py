"""train.py --resume keeps the run's own settings (a flag given again overrides one, and one line says
which); --games stops where asked; the progress bar stays within its total; --no-progress; a corrupt
last.pt is refused in one line and left as it was."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from model.net.checkpoint import read
from model.net.network import NetConfig, OutcomeNet
from model.train import selfplay as train
from model.train.selfplay_args import lr_at, lr_schedule, resume_args
from model.train.td import SelfPlayActor, collect
from nardibot.cli.cmd_train import main as train_main

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}

BG_RUN = ROOT / "experiments" / "resume" / "backgammon" / "last.pt"  # the shipped run, with its optimizer
NARDI_RUN = ROOT / "experiments" / "resume" / "nardi" / "last.pt"
SCHEDULE = "0:1e-3,150000:3e-4,320000:1e-4"  # the shipped backgammon run's


def resumed(blob: dict, *flags: str):
    argv = ["--run-dir", "runs/x", "--resume", *flags]
    return resume_args(train.parse_args(argv), argv, blob)


def run_train(*flags: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, str(ROOT / "train.py"), "--threads", "1", *flags]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300, cwd=ROOT, check=False)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_resume_keeps_the_runs_own_settings():
    """Resumed with no flag but --run-dir, the shipped run keeps its schedule (1e-4 where it stopped),
    lambda, batch sizes, seed and network, and one line lists them."""
    blob = read(BG_RUN)
    args, line = resumed(blob)
    assert args.lr_schedule == SCHEDULE and lr_at(lr_schedule(args), blob["games"]) == 1e-4
    assert (args.game, args.hidden, args.seed, args.lam) == ("backgammon", "256", 7, 0.7)
    assert (args.parallel_games, args.samples_per_update, args.batch_size) == (256, 16384, 1024)
    assert args.games == 740475 and args.out == "" and args.threads == 0  # not the run's --out or --threads
    assert "\n" not in line and line.startswith("kept the run's ") and "changed" not in line
    assert f"--lr-schedule {SCHEDULE}" in line and "--lam 0.7" in line and "--seed 7" in line
    nardi, _ = resumed(read(NARDI_RUN))  # an older checkpoint (its args have no lr_schedule)
    assert (nardi.game, nardi.hidden, nardi.seed, nardi.lr) == ("nardi", "128", 1, 1e-3)
    assert nardi.lr_schedule == ""


def test_a_flag_given_on_resume_overrides_the_runs_own():
    blob = read(BG_RUN)
    args, line = resumed(blob, "--lam", "0.5", "--batch-size", "256", "--games", "750000", "--seed", "7")
    assert (args.lam, args.batch_size, args.games, args.lr_schedule) == (0.5, 256, 750000, SCHEDULE)
    assert "changed --games 750000 (was 740475), --lam 0.5 (was 0.7), --batch-size 256 (was 1024)" in line
    assert "--seed 7" in line.split(";")[0]  # given, but the same as the run's: kept
    args, line = resumed(blob, "--lr", "5e-5")  # a constant rate from now on replaces the schedule
    assert (args.lr, args.lr_schedule) == (5e-5, "") and f"--lr 5e-05 (was --lr-schedule {SCHEDULE})" in line
    args, line = resumed(blob, "--lr-schedule", "0:1e-3,750000:5e-5")
    assert lr_at(lr_schedule(args), 750000) == 5e-5
    assert "changed --lr-schedule 0:1e-3,750000:5e-5" in line


def test_a_run_resumed_without_its_flags_before_the_fix_gets_them_back():
    """A resume of the old code without flags stored the defaults (no schedule, seed 1); the commands
    recorded in the checkpoint give the run's own back."""
    blob = read(BG_RUN)
    commands = blob["made_by"]["commands"] + ["python train.py --run-dir runs/bg256 --resume --games 760000"]
    broken = {**blob, "args": {**blob["args"], "lr_schedule": "", "seed": 1, "games": 760000},
              "made_by": {**blob["made_by"], "commands": commands}}
    args, _ = resumed(broken)
    assert (args.lr_schedule, args.seed, args.games, args.hidden) == (SCHEDULE, 7, 760000, "256")


def test_recorded_commands_that_do_not_parse_are_read_as_far_as_they_go():
    blob = read(BG_RUN)
    commands = ['python train.py --run-dir "my runs/bg --seed 9 --frobnicate 3',  # unquoted, unknown flag
                "python train.py --run-dir runs/bg --resume --lam nine",  # a value this code cannot read
                "python train.py --run-dir 'my runs/bg' --resume --batch-size 512"]
    args, _ = resumed({**blob, "made_by": {"commands": commands}})
    assert (args.seed, args.lam, args.batch_size, args.lr_schedule) == (9, 0.7, 512, SCHEDULE)


def test_the_game_and_network_of_a_run_cannot_change():
    blob = read(BG_RUN)
    with pytest.raises(train.UsageError, match="--hidden 128 does not fit"):
        resumed(blob, "--hidden", "128")
    with pytest.raises(train.UsageError, match="is a backgammon run, not nardi"):
        resumed(blob, "--game", "nardi")


def test_collect_stops_at_the_first_ply_that_reaches_the_games_asked():
    """collect() plays exactly the plies of one actor.play() call, and stops at the first ply on which the
    games asked for have ended."""
    torch.manual_seed(0)
    net = OutcomeNet(NetConfig("backgammon", (8,)))
    actor = SelfPlayActor(net, games=16, seed=5)
    counts, total = [], 0
    while total < 20:
        total += actor.play(1).games
        counts.append(total)
    for wanted in (1, 6, 15):
        got = collect(SelfPlayActor(net, games=16, seed=5), 10**9, wanted).games
        assert got == min(c for c in counts if c >= wanted) and got - wanted < 16
    one = SelfPlayActor(net, games=16, seed=5).play(300)
    chunked = collect(SelfPlayActor(net, games=16, seed=5), 300, 10**9)
    assert np.array_equal(one.positions, chunked.positions) and np.array_equal(one.targets, chunked.targets)
    assert (one.games, one.plies, one.cut_off) == (chunked.games, chunked.plies, chunked.cut_off)


def test_resume_a_copy_of_the_shipped_run_for_a_few_games(tmp_path):
    """The shipped run's last.pt resumes with its schedule (at 1e-4), seed and lambda; the flags given
    now change only what they name; the shipped checkpoint is not written (a run's --out is not kept)."""
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(BG_RUN, run / "last.pt")
    before = read(run / "last.pt")
    shipped = digest(ROOT / "checkpoints" / "backgammon.safetensors")
    target = before["games"] + 12
    proc = run_train("--run-dir", str(run), "--resume", "--games", str(target), "--parallel-games", "8",
                     "--samples-per-update", "256", "--batch-size", "128", "--checkpoint-every", "4",
                     "--no-progress")
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"resuming {run} at {before['games']} games; kept the run's ")
    assert f"--lr-schedule {SCHEDULE}" in first and "--seed 7" in first and "--lam 0.7" in first
    assert f"changed --games {target} (was {before['games']})" in first
    assert "--parallel-games 8 (was 256)" in first
    after = read(run / "last.pt")
    assert target <= after["games"] < target + 8
    assert after["args"]["lr_schedule"] == SCHEDULE and after["args"]["seed"] == 7
    assert (after["args"]["parallel_games"], after["args"]["batch_size"]) == (8, 128)
    assert [g["lr"] for g in after["optimizer"]["param_groups"]] == [1e-4]
    assert after["made_by"]["commands"][:2] == before["made_by"]["commands"]
    assert len(after["made_by"]["commands"]) == 3 and "--resume" in after["made_by"]["commands"][2]
    assert digest(ROOT / "checkpoints" / "backgammon.safetensors") == shipped
    assert "\r" not in proc.stderr and "game/s" not in proc.stderr  # --no-progress: no bar, but lines
    lines = [line for line in proc.stdout.splitlines() if re.match(rf"\d+/{target} games, ", line)]
    assert lines and "games/s" in lines[-1] and f"wrote {run / 'last.pt'}" in lines[-1]


def test_games_stop_where_asked_and_the_bar_stays_within_its_total(tmp_path):
    proc = run_train("--game", "nardi", "--hidden", "16", "--parallel-games", "16",
                     "--samples-per-update", "256", "--eval-every", "0", "--games", "40",
                     "--run-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert 40 <= read(tmp_path / "last.pt")["games"] < 40 + 16  # past it only by games ending on the last ply
    shown = [(int(a), int(b)) for a, b in re.findall(r"(\d+)/(\d+) \[", proc.stderr)]
    assert shown and all(b == 40 and a <= b for a, b in shown) and shown[-1] == (40, 40)


@pytest.mark.parametrize("damage", ["garbage", "cut short", "zeroed inside"])
def test_a_corrupt_last_pt_is_refused_in_one_line_and_kept(tmp_path, capsys, damage):
    data = NARDI_RUN.read_bytes()
    bad = {"garbage": b"garbage", "cut short": data[: len(data) // 2],
           "zeroed inside": data[: len(data) // 3] + bytes(2000) + data[len(data) // 3 + 2000:]}[damage]
    (tmp_path / "last.pt").write_bytes(bad)
    assert train_main(["--run-dir", str(tmp_path), "--resume", "--games", "10"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'last.pt'} is not a readable checkpoint: " in err, err
    assert "weights_only" not in err and "Traceback" not in err
    assert (tmp_path / "last.pt").read_bytes() == bad and sorted(tmp_path.iterdir()) == [tmp_path / "last.pt"]
