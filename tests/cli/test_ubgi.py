"""``evaluate.py ubgi`` (nardibot/cli/cmd_ubgi.py) driven through a subprocess pipe with the protocol's examples
(docs/FORMATS.md "UBGI"): the handshake, a play in UBGI's move format for an XGID and for a FIBS board,
roll or double, take or drop, the empty line of a roll that cannot be played, sorry, stop and quit."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from engine.formats.fibs import read_fibs_board
from engine.formats.position import read_xgid
from engine.movegen import legal_plays
from engine.notation import parse_play
from nardibot.cli.cmd_ubgi import board_of_xgid
from tests.helpers import ROOT

OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
OPENING_66 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:66:0:0:0:0:10"
ON_ROLL = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
# the bottom player has 3 checkers left, the top player all 15 at home: a double the top player must drop
DOUBLED = "XGID=-AAA---------------cccbbb-:0:0:1:D:0:0:1:0:10"
CLOSED_OUT = "XGID=-CCCCB------------cbbbbbbA:0:0:1:66:0:0:1:0:10"  # on the bar against a closed board
FIBS_WORKED = ("board:bot:gnubg:3:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:5:6:5:6:1:1:1:0:"
               "1:-1:0:25:0:0:0:0:0:0:0:1")


def converse(lines: list[str]) -> tuple[list[str], subprocess.CompletedProcess]:
    """Feed ``lines`` to a fresh engine through a pipe; its output lines and the finished process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "evaluate.py", "ubgi"], input="\n".join(lines) + "\n", cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    return done.stdout.split("\n")[:-1], done


def assert_ubgi_play(text: str, position_text: str) -> None:
    """``text`` is in UBGI's move format (from/to pairs, each a single die, no stars, no counts) and
    is a legal play of the position line's dice."""
    pairs = text.split(" ")
    assert "*" not in text and "(" not in text and len(pairs) <= 4
    board = read_fibs_board(position_text) if position_text.startswith("board:") else board_of_xgid(position_text)
    dice = sorted(board.dice)
    for pair in pairs:
        source, dest = pair.split("/")
        source = 25 if source == "bar" else int(source)
        dest = 0 if dest == "off" else int(dest)
        assert source - dest in dice or dest == 0, pair  # one die a pair (bearing off may use a larger die)
    child = parse_play("backgammon", board.position, board.dice, text)
    children, _ = legal_plays("backgammon", board.position[None], np.array([board.dice]))
    assert (children == child).all(axis=1).any()


def test_a_session_of_the_protocols_examples():
    """ubgi -> id name/author/version and readyok; positions -> their best action; unknown lines and
    unreadable positions -> sorry; stop -> nothing; quit ends the engine (a line after it is unread)."""
    lines = ["ubgi", OPENING_31, OPENING_66, FIBS_WORKED, ON_ROLL, DOUBLED, CLOSED_OUT, "isready", "hello engine",
             "XGID=not-one", "board:1:2:3", "stop", "quit", "ubgi"]
    out, done = converse(lines)
    assert done.returncode == 0 and done.stderr == ""
    assert [line.split(" ")[:2] for line in out[:3]] == [["id", "name"], ["id", "author"], ["id", "version"]]
    assert out[3] == "readyok"
    opening, double_sixes, worked, roll, answer, closed, ready, *rest = out[4:]
    assert opening == "8/5 6/5"
    assert_ubgi_play(opening, OPENING_31)
    assert_ubgi_play(double_sixes, OPENING_66)
    assert len(double_sixes.split(" ")) == 4  # a double's four moves, each written out
    assert worked == "24/18 18/13"  # docs/FORMATS.md's worked gnubg request
    assert roll == "roll"
    assert answer == "drop"
    assert closed == ""  # no legal play: an empty line
    assert ready == "readyok"
    assert rest == ["sorry", "sorry", "sorry"]  # unknown command, bad XGID, bad FIBS board; stop says nothing


def test_cube_answers_are_hints_cube_decisions():
    """Without dice the answer is hint's cube action for the side on roll (double only when hint says
    double, take or double, pass; roll for no double, too good, or a cube it does not own); with a
    double offered ("D") it is hint's answer for the side doubled, pass written drop."""
    from model.bot import Bot
    from model.service.hint import hint
    from model.service.query import Query

    positions = ["XGID=--CCCCC------------ccccc--:0:0:1:00:0:0:1:0:10",  # a race, the bottom player ahead
                 "XGID=--CCCCC------------ccccc--:0:0:1:D:0:0:1:0:10",  # the same, doubled
                 "XGID=-BBBBBB------------bbbccc-:1:-1:1:00:0:0:1:0:10",  # the top player owns the cube
                 ON_ROLL, DOUBLED]
    bot = Bot.load()
    expected = []
    for text in positions:
        position, info = read_xgid(text)
        decision = hint(bot, Query("backgammon", position, info, None))["cube_decision"]
        if info.double_offered:
            expected.append({"pass": "drop"}.get(decision["response"], decision["response"]))
        else:
            owned_by_other = info.cube_owner not in (-1, info.player_on_roll)
            expected.append("double" if decision["double"] and not owned_by_other else "roll")
    out, done = converse(["ubgi", *positions, "quit"])
    assert done.returncode == 0 and out[4:] == expected
    assert expected[2] == "roll" and expected[4] == "drop" and set(expected[:2]) <= {"double", "roll", "take"}


def test_bad_flags_are_one_line():
    """A bad flag: one line on stderr, status 2."""
    done = subprocess.run([sys.executable, "evaluate.py", "ubgi", "--ply", "5"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
