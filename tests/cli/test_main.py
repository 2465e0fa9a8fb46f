"""The one command line (nardibot/cli/main.py): --version, --help listing every subcommand, duel as
match, ``nardibot train`` as ``python train.py``, and the program named ``nardibot`` in its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from nardibot import __version__
from nardibot.cli.main import COMMANDS, SUBCOMMANDS
from tests.helpers import ROOT

EVERY_SUBCOMMAND = ("hint", "rollout", "cube", "analyse", "play", "serve", "web", "ubgi", "duel", "match",
                    "benchmark", "train")


def run(*args: str, entry: str = "evaluate.py") -> subprocess.CompletedProcess:
    """``python ENTRY ARGS`` (evaluate.py: what the installed ``nardibot`` runs) in a fresh interpreter."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / entry), *args], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_version_prints_the_package_version():
    done = run("--version")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines()[0] == f"nardibot {__version__}"
    assert "shipped nets: backgammon, backgammon-race, nardi" in done.stdout  # tests/test_install.py: the rest


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_subcommand_with_one_line(flag):
    done = run(flag)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: nardibot ")
    assert set(EVERY_SUBCOMMAND) == set(SUBCOMMANDS) == set(COMMANDS)
    listed = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("  ")}
    for name in EVERY_SUBCOMMAND:
        assert name in listed and len(listed[name].split()) > 1, f"{name} is not listed with its line"


def test_duel_and_match_play_the_same_games(tmp_path):
    """``duel``, ``match`` and no subcommand are one command: the same seed gives the same result."""
    results = {}
    for name, command in (("duel", ["duel"]), ("match", ["match"]), ("plain", [])):
        out = tmp_path / f"{name}.json"
        done = run(*command, "random", "heuristic", "--games", "4", "--seed", "1", "--no-progress",
                   "--json", str(out))
        assert done.returncode == 0, done.stderr
        result = json.loads(out.read_text())["result"]
        results[name] = {k: v for k, v in result.items() if k not in ("seconds", "games_per_s")}
    assert results["duel"] == results["match"] == results["plain"]
    assert results["duel"]["games"] == 4


def test_train_help_is_train_py_help():
    """``nardibot train --help`` and ``python train.py --help``: the same parser, the same text."""
    subcommand, script = run("train", "--help"), run("--help", entry="train.py")
    assert subcommand.returncode == script.returncode == 0
    assert subcommand.stdout == script.stdout
    assert subcommand.stdout.startswith("usage: nardibot train ") and "--lr-schedule" in subcommand.stdout


@pytest.mark.parametrize("args, prog", [
    (["heuristic", "random", "--frobnicate"], "nardibot"),
    (["--frobnicate"], "nardibot"),
    (["duel", "heuristic", "random", "--frobnicate"], "nardibot duel"),
    (["hint", "--frobnicate"], "nardibot hint"),
    (["cube", "heuristic", "random", "--frobnicate"], "nardibot cube"),
    (["benchmark", "heuristic", "--frobnicate"], "nardibot benchmark"),
    (["train", "--frobnicate"], "nardibot train"),
])
def test_an_unknown_flag_is_one_line_naming_nardibot(args, prog):
    done = run(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [f"{prog}: error: unrecognized arguments: --frobnicate"]


def test_train_py_names_nardibot_too():
    done = run("--frobnicate", entry="train.py")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["nardibot train: error: unrecognized arguments: --frobnicate"]


def test_a_run_records_the_command_that_trained_it_and_replays_either_form(tmp_path):
    """A run started by ``nardibot train`` records ``nardibot train ARGS`` (``python train.py`` records
    itself, tests/train); resuming replays the flags of both forms of recorded command."""
    pytest.importorskip("torch")
    from model.net.checkpoint import read
    from model.train.selfplay_args import run_settings

    run_dir = tmp_path / "run"
    flags = ["--game", "nardi", "--games", "32", "--threads", "1", "--parallel-games", "32",
             "--samples-per-update", "256", "--hidden", "8", "--eval-every", "0", "--no-progress",
             "--run-dir", str(run_dir)]
    done = run("train", *flags)
    assert done.returncode == 0, done.stderr[-2000:]
    blob = read(run_dir / "last.pt")
    assert blob["made_by"]["commands"][-1].startswith("nardibot train --game nardi --games 32 ")
    commands = ["python train.py --seed 9 --lam 0.5",
                "/usr/local/bin/nardibot train --lam 0.25 --batch-size 64"]
    settings = run_settings({**blob, "made_by": {"commands": commands}})
    assert (settings["seed"], settings["lam"], settings["batch_size"]) == (9, 0.25, 64)
    assert settings["hidden"] == "8"
