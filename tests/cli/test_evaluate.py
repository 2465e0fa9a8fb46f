"""evaluate.py from the command line: a tiny match, its JSON, the subcommand dispatch, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.formats.matfile import read_mat
from tests.helpers import GNUBG, gnubg_import, replay

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run evaluate.py with ``args`` in a fresh single-threaded interpreter."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *args], check=False, cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_tiny_match_prints_and_writes_json(tmp_path):
    """heuristic vs random: the summary lines, and JSON with every figure and the exact settings."""
    out = tmp_path / "match.json"
    done = run("heuristic", "random", "--games", "20", "--batch", "8", "--seed", "3", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "A points per game: +" in done.stdout and "games/s" in done.stdout
    blob = json.loads(out.read_text())
    assert blob["settings"] == {"a": "heuristic", "b": "random", "game": "backgammon", "games": 20, "seed": 3,
                                "batch": 8, "device": "auto", "json": str(out), "max_plies": 3000,
                                "threads": 1, "no_progress": False, "mat": None,
                                "luck": None, "luck_prune": 8}
    assert blob["device_used"] == "cpu"  # baselines run on numpy
    result = blob["result"]
    assert result["games"] == 20 and result["pairs"] == 10 and result["ppg"] > 0
    assert result["ci95_low"] < result["ppg"] < result["ci95_high"]
    assert {"a_win", "a_gammon", "a_backgammon", "b_win", "games_per_s", "capped_games"} <= set(result)


def test_the_match_subcommand_is_the_default_command(tmp_path):
    """`evaluate.py match A B ...` and `evaluate.py A B ...` play the same games (nardi here)."""
    plain, named = tmp_path / "plain.json", tmp_path / "named.json"
    args = ["heuristic", "random", "--game", "nardi", "--games", "8", "--seed", "1"]
    assert run(*args, "--json", str(plain)).returncode == 0
    assert run("match", *args, "--json", str(named)).returncode == 0
    first, second = json.loads(plain.read_text())["result"], json.loads(named.read_text())["result"]
    assert first["ppg"] == second["ppg"] and "a_mars" in first and "a_backgammon" not in first


@pytest.mark.parametrize("args, message", [
    (["heuristic", "random", "--games", "7"], "even"),
    (["heuristic", "random", "--bogus"], "unrecognized arguments"),
    (["heuristic", "random", "--game", "chess"], "invalid choice"),
    (["heuristic", "alphazero"], "unknown player 'alphazero'"),
    (["heuristic", "missing/net.pt"], "checkpoint not found"),
    (["pubeval", "random", "--game", "nardi"], "backgammon only"),
    (["heuristic"], "required"),
    (["heuristic", "random", "--game", "nardi", "--mat", "games.mat"], "--mat: .mat files hold backgammon only"),
    (["heuristic", "random", "--mat", "/nonexistent/games.mat"], "no such folder"),
    (["heuristic", "checkpoints/backgammon.safetensors+3ply"], "+3ply: give +0ply, +1ply or +2ply"),
    (["checkpoints/backgammon.safetensors+1ply+exact+2ply", "random"], "look-ahead given twice"),
    (["pubeval+2ply", "random"], "for checkpoints, not the baseline pubeval"),
    (["heuristic", "checkpoints/backgammon.safetensors+2plies"], "may end in +exact, +noexact, +0ply"),
    (["heuristic", "random", "--luck", "pubeval"], "--luck pubeval: the judge must be a checkpoint"),
    (["heuristic", "random", "--luck", ""], "--luck: give the judge's checkpoint path"),
    (["heuristic", "random", "--luck", "missing/net.pt"], "--luck missing/net.pt: checkpoint not found"),
    (["heuristic", "random", "--luck", "checkpoints/backgammon.safetensors+1ply"], "the judge looks at 0-ply"),
    (["heuristic", "random", "--game", "nardi", "--luck", "checkpoints/backgammon.safetensors"], "not nardi"),
    (["heuristic", "random", "--luck-prune", "-1"], "--luck-prune must be 0 or more"),
    (["heuristic", "random", "--seed", "-3"], "--seed must be 0 or more, got -3"),  # not blamed on a player
    (["heuristic", "random", "--threads", "0"], "--threads must be at least 1, got 0"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    """Bad flags, unknown players, missing checkpoints: one error line on stderr, status 2, no traceback."""
    done = run(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nardibot: error:") and message in lines[0]


def test_a_corrupt_checkpoint_is_refused(tmp_path):
    """A file that is not a checkpoint: one error line naming it, status 2."""
    bad = tmp_path / "broken.pt"
    bad.write_bytes(b"not a checkpoint at all")
    done = run(str(bad), "random", "--games", "2")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "broken.pt" in lines[0] and "Traceback" not in done.stderr


def test_a_checkpoint_plays_and_a_wrong_game_is_refused(tmp_path):
    """A saved (untrained) nardi net plays through its path; asked to play backgammon it is refused."""
    from model.net import checkpoint
    from model.net.network import NetConfig, OutcomeNet

    path = tmp_path / "nardi_net.pt"
    checkpoint.save(path, OutcomeNet(NetConfig(game="nardi")))
    out = tmp_path / "net.json"
    done = run(str(path), "random", "--game", "nardi", "--games", "4", "--device", "cpu", "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["result"]["a"] == "nardi_net"
    wrong = run(str(path), "random", "--games", "2")
    assert wrong.returncode == 2 and "nardi" in wrong.stderr and len(wrong.stderr.strip().splitlines()) == 1


def test_mat_saves_every_game_for_gnubg(tmp_path):
    """--mat: every game in a .mat money session named after the specs, A on the left, legal plays, the
    results the JSON counts; gnubg imports the same games with the same winners (if installed)."""
    mat, out = tmp_path / "games.mat", tmp_path / "games.json"
    done = run("pubeval", "heuristic", "--games", "6", "--seed", "2", "--mat", str(mat), "--json", str(out))
    assert done.returncode == 0, done.stderr
    record = read_mat(mat.read_text())
    assert record.match_length == 0 and record.names == ("pubeval", "heuristic") and len(record.games) == 6
    assert [last for last, _ in replay(record)] == [game.winner for game in record.games]
    a_points = sum(game.points if game.winner == 0 else -game.points for game in record.games)
    assert a_points == pytest.approx(6 * json.loads(out.read_text())["result"]["ppg"])
    if not os.access(GNUBG, os.X_OK):
        return  # Debian's gnubg is not installed: the file's own checks above are all
    imported = gnubg_import(mat, tmp_path)
    assert [imported["match-info"][side]["name"] for side in "XO"] == ["pubeval", "heuristic"]
    assert ["XO".index(game["info"]["winner"]) for game in imported["games"]] == [g.winner for g in record.games]


@pytest.mark.parametrize("command", [[], ["cube"]], ids=["match", "cube"])
def test_a_closed_output_pipe_ends_quietly_and_still_writes_the_files(tmp_path, command):
    """`evaluate.py ... | head`: the reader is gone before the summary is written; no traceback, exit
    status 1 (as hint's), and the --json file is written all the same."""
    out = tmp_path / "result.json"
    count = ["--matches", "2"] if command else ["--games", "2"]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, str(ROOT / "evaluate.py"), *command, "heuristic", "random", *count,
                              "--no-progress", "--json", str(out)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    child.stdout.close()  # every write meets a closed pipe
    err = child.stderr.read()
    child.wait(timeout=120)
    child.stderr.close()
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""
    assert child.returncode == 1 and json.loads(out.read_text())["result"]


def test_luck_adjusted_figures_are_printed_and_written(tmp_path):
    """--luck: a line with the luck-adjusted points per game, and the same figures in the JSON."""
    out = tmp_path / "luck.json"
    done = run("heuristic", "random", "--game", "nardi", "--games", "8", "--seed", "2", "--json", str(out),
               "--luck", "checkpoints/nardi.safetensors")
    assert done.returncode == 0, done.stderr
    assert "A luck-adjusted points per game: " in done.stdout and "judged by checkpoints/nardi.safetensors" in done.stdout
    result = json.loads(out.read_text())["result"]
    adjusted = result["luck_adjusted"]
    assert adjusted["judge"] == "checkpoints/nardi.safetensors" and adjusted["ci95"] > 0
    assert adjusted["ppg"] == pytest.approx(result["ppg"] - adjusted["a_luck_per_game"])


def _work_not_begun(*args, **kwargs):
    pytest.fail("the work began before the output was checked")


@pytest.mark.parametrize("command, argv, work", [
    ("match", ["pubeval", "random", "--games", "10", "--json", "{out}"], "play_games"),
    ("match", ["pubeval", "random", "--games", "10", "--mat", "{out}"], "play_games"),
    ("cube", ["heuristic", "random", "--matches", "2", "--json", "{out}"], "run"),
    ("cube", ["heuristic", "random", "--matches", "2", "--mat", "{out}"], "run"),
    ("benchmark", ["pubeval", "--json", "{out}"], "load_benchmark"),
    ("analyse", [str(ROOT / "tests" / "data" / "gnubg_3point.mat"), "--html", "{out}"], "analyse_match"),
])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(monkeypatch, tmp_path, command, argv, work):
    """`nardibot pubeval random --games 10 --json /nonexistent/x.json` (issue 43) and the other commands'
    output files: a missing folder, a folder where a file goes (a file where --html's folder goes) is one
    usage error before the games, the benchmark or the analysis, not after them."""
    import importlib

    from nardibot.cli.common import UsageError

    module = importlib.import_module(f"nardibot.cli.cmd_{command}")
    entry = {"match": "match_main", "cube": "cube_main", "benchmark": "benchmark_main", "analyse": "analyse_main"}
    monkeypatch.setattr(module, work, _work_not_begun)
    (tmp_path / "file.txt").write_text("")
    flag = argv[argv.index("{out}") - 1]
    bad = [tmp_path / "file.txt" / "x"]  # --html makes its folder, so a missing one is no fault there
    bad += [tmp_path / "nonexistent" / "x.out", tmp_path] if flag != "--html" else [tmp_path / "file.txt"]
    for out in bad:
        with pytest.raises(UsageError, match=f"^{flag}: cannot write"):
            getattr(module, entry[command])([str(out) if a == "{out}" else a for a in argv])


def test_the_mat_of_a_cubeless_duel_says_so_and_is_analysed_without_cube_decisions(tmp_path):
    """Issue 43: the .mat of a duel (cubeless games) says the games had no cube and no Jacoby rule, and
    `analyse` of it rates no cube decision: no "missed doubles" for bots that could not double."""
    mat = tmp_path / "duel.mat"
    done = run("pubeval", "random", "--games", "2", "--seed", "5", "--mat", str(mat), "--no-progress")
    assert done.returncode == 0, done.stderr
    record = read_mat(mat.read_text())
    assert record.cube is False and record.jacoby is False
    assert mat.read_text().startswith('; [Jacoby "Off"]\n; [CubeLimit "1"]\n\n 0 point match')
    done = run("analyse", str(mat), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["cube"] is False and report["jacoby"] is False
    assert {d["kind"] for d in report["decisions"]} == {"move"}
    assert [s["cube"]["decisions"] for s in report["statistics"]] == [0, 0]
    assert sum(s["cube"]["missed_doubles"] for s in report["statistics"]) == 0
    table = run("analyse", str(mat))
    assert table.returncode == 0 and "money session (Jacoby off), without the cube" in table.stdout


def test_the_mat_of_cube_arena_matches_without_the_cube_says_so(tmp_path):
    """`cube --no-cube --length N --mat F`: each match's file says it was played without the cube, so
    `analyse` rates no cube decision in it."""
    mat = tmp_path / "m.mat"
    done = run("cube", "random", "random", "--length", "3", "--matches", "2", "--no-cube", "--mat", str(mat),
               "--no-progress")
    assert done.returncode == 0, done.stderr
    first = tmp_path / "m-1.mat"
    assert read_mat(first.read_text()).cube is False
    report = json.loads(run("analyse", str(first), "--json").stdout)
    assert report["cube"] is False and {d["kind"] for d in report["decisions"]} == {"move"}
