"""The command line `python -m engine` (engine/__main__.py), run as a subprocess: plays, show, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.board import flip, start_position
from engine.formats.position import read_json_position, write_json_position
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.tools.sample import random_positions

ROOT = Path(__file__).resolve().parents[2]
START = write_json_position(start_position("backgammon"))
NARDI_START = write_json_position(start_position("nardi"))


def run_engine(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """Run `python -m engine ARGS` from the repository root with ``stdin``."""
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        check=False,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def request(position: dict, dice, **extra) -> str:
    return json.dumps({**position, "dice": list(dice), **extra})


def test_plays_lists_every_legal_play_with_its_notation_and_position():
    """The opening 6-5 gives the seven distinct plays, each move text naming the position it leaves."""
    done = run_engine("plays", "--game", "backgammon", stdin=request(START, (6, 5)) + "\n")
    assert done.returncode == 0 and done.stderr == ""
    (line,) = done.stdout.splitlines()
    plays = json.loads(line)["plays"]
    moves = sorted(p["move"] for p in plays)
    assert moves == sorted(["24/13", "24/18 13/8", "13/8 13/7", "13/2", "24/18 8/3", "13/7 8/3", "8/3 8/2"])
    for play in plays:
        after = read_json_position("backgammon", play["position"])
        assert np.array_equal(after, parse_play("backgammon", start_position(), (6, 5), play["move"]))


def test_plays_batch_matches_the_generator_line_by_line():
    """Many lines of both kinds of positions: each answer is exactly legal_plays' children of that line."""
    positions, dice = random_positions("backgammon", 40, seed=9, kind="contact")
    stdin = "".join(request(write_json_position(p), d.tolist()) + "\n" for p, d in zip(positions, dice))
    done = run_engine("plays", stdin=stdin)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and len(answers) == len(positions)
    children, parent = legal_plays("backgammon", positions, dice)
    for k, answer in enumerate(answers):
        ours = {bytes(c) for c in children[parent == k]}
        theirs = {bytes(read_json_position("backgammon", p["position"])) for p in answer["plays"]}
        assert theirs == ours and len(answer["plays"]) == len(ours)


def test_plays_nardi_first_turn_default_and_override():
    """Nardi 6-6 from the start: two checkers leave the head on a first turn, one when told it is not."""
    stdin = request(NARDI_START, (6, 6)) + "\n" + request(NARDI_START, (6, 6), first_turn=False) + "\n"
    done = run_engine("plays", "--game", "nardi", stdin=stdin)
    first, later = (json.loads(line)["plays"] for line in done.stdout.splitlines())
    assert [p["move"] for p in first] == ["24/18(2)"] and first[0]["position"]["board"][17] == 2
    assert [p["move"] for p in later] == ["24/18"] and later[0]["position"]["board"][23] == 14


def test_plays_no_legal_play_is_an_empty_move_and_the_same_position():
    """A dance on a closed board answers one play, move "", the position unchanged (turn not passed)."""
    board = [-3, 0, 0, 0, 0, 14] + [0] * 12 + [-2] * 6
    closed = {"board": board, "bar": [1, 0], "off": [0, 0]}
    done = run_engine("plays", stdin=request(closed, (6, 5)) + "\n")
    assert json.loads(done.stdout) == {"plays": [{"move": "", "position": closed}]}


def test_bad_lines_get_an_error_and_the_run_goes_on():
    """Each bad line gets {"error": reason} on its own output line; good lines around it are answered."""
    bad = [
        ("not json", "not JSON"),
        ("", "empty line"),
        ("[1, 2]", "JSON object"),
        (request({**START, "board": START["board"][:23]}, (6, 5)), "24 entries"),
        (request({**START, "off": [1, 0]}, (6, 5)), "16 checkers"),
        (request(START, (7, 5)), "'dice'"),
        (request(START, (6,)), "'dice'"),
        (json.dumps(START), "'dice'"),
        (request(START, (6, 5), colour="white"), "unknown key 'colour'"),
        (request(START, (6, 5), first_turn=True), "long nardi only"),
        (request({**START, "board": [1.5] + START["board"][1:]}, (6, 5)), "whole number"),
        ('{"board":' + "[" * 60000 + "]" * 60000 + "}", "nested too deeply"),  # no RecursionError traceback
    ]
    lines = [request(START, (3, 1))] + [text for text, _ in bad] + [request(START, (2, 1))]
    done = run_engine("plays", stdin="\n".join(lines) + "\n")
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and len(answers) == len(lines)
    assert "plays" in answers[0] and "plays" in answers[-1]
    for answer, (_, reason) in zip(answers[1:-1], bad):
        assert set(answer) == {"error"} and reason in answer["error"], answer


def test_nardi_line_with_a_bar_is_refused():
    """A nardi position with checkers on a bar is an error line, not a crash."""
    line = request({**NARDI_START, "board": [0] * 11 + [-15] + [0] * 11 + [14], "bar": [1, 0]}, (6, 5))
    done = run_engine("plays", "--game", "nardi", stdin=line + "\n")
    assert "no bar" in json.loads(done.stdout)["error"]


@pytest.mark.parametrize(
    "args",
    [
        ("plays", "--game", "chess"),
        ("plays", "--frobnicate"),
        ("fly",),
        (),
    ],
)
def test_bad_flags_exit_2_with_one_line(args):
    """Bad flags or commands exit with status 2 and exactly one line on stderr, no traceback."""
    done = run_engine(*args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_help_lists_the_commands():
    """--help exits 0 and names the plays, show and bench commands."""
    done = run_engine("--help")
    assert done.returncode == 0 and all(word in done.stdout for word in ("plays", "show", "bench"))


def test_show_decodes_ids_and_refuses_nonsense():
    """show turns a gnubg ID into the position, pips and an XGID; a bad ID exits 2 with one line."""
    done = run_engine("show", "4HPwATDgc/ABMA:cIkFAAAAAAAE")
    shown = json.loads(done.stdout)
    assert shown["position"] == START and shown["pips"] == [167, 167] and shown["match"]["dice"] == [3, 1]
    assert shown["xgid"].startswith("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:")
    after = flip("backgammon", parse_play("backgammon", start_position(), (3, 1), "8/5 6/5"))
    assert json.loads(run_engine("show", "sGfwATDgc/ABMA").stdout)["position"] == write_json_position(after)
    bad = run_engine("show", "4HPwATDgc")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "14 characters" in bad.stderr


def test_bench_is_handed_its_arguments():
    """`bench --help` reaches engine.tools.bench's own parser and exits 0."""
    done = run_engine("bench", "--help")
    assert done.returncode == 0 and "Traceback" not in done.stderr
