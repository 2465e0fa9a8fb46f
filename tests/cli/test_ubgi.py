"""``nardibot ubgi`` (nardibot/cli/cmd_ubgi.py, model/service/ubgi_session.py) driven over pipes as UBGI v0.1
says and as the community's compliance tool drives it (docs/FORMATS.md "UBGI"): its check's commands in
its order, with its probe positions for ``bar`` and ``off``; then cube and turn decisions, the score and
the cube changing them, ``info`` lines, errors after which the engine reads on, ``stop`` and ``quit``.

Every reply is read with a timeout: a reply that never comes fails the test instead of hanging it."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading

import numpy as np
import pytest

from engine.formats.position import read_position_id, read_xgid
from engine.movegen import legal_plays
from engine.notation import parse_play
from tests.helpers import ROOT

REPLY_TIMEOUT = 60.0
"""Seconds to wait for one reply line (the first ones load the net, on a busy machine)."""
OPENING = "4HPwATDgc/ABMA"
BAR_PROBE = ("Np7BQSCYZ/AAWA", (5, 3))  # the compliance tool's probe: the play must say "bar"
OFF_PROBE = ("/z0AADDeaxsAAA", (5, 5))  # and this one "off"
BOTH_DICE = ("t02oASACAAAAAA", (5, 1))  # its newer check's probe: the bear-off must use both dice
CLOSED_OUT = "27YdAAB3dwMAQA"  # on the bar against a closed board: no 6 enters
DOUBLE = "4HMwAAb2NhgAAw"  # money: double, take (XGID=-b---BDBB---bB---c-e----B-:0:0:1:00:0:0:0:0:10)
RACE = "d7cNAADbtgEAAA"  # money: double, pass, centred or owned (XGID=-BBBBBB------------bbbccc-:0:0:1:00:0:0:1:0:10)
DOUBLED_DROP = "XGID=-AAA---------------cccbbb-:0:0:1:D:0:0:1:0:10"  # 3 checkers against 15: a pass
DOUBLED_TAKE = "XGID=-b---BDBB---bB---c-e----B-:0:0:1:D:0:0:0:0:10"
OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


class Engine:
    """A ``nardibot ubgi`` process on pipes; a thread reads its stdout into a queue."""

    def __init__(self, *flags: str):
        env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
        self.process = subprocess.Popen([sys.executable, "evaluate.py", "ubgi", *flags], cwd=ROOT, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # the end of its output

    def send(self, *commands: str) -> None:
        for command in commands:
            self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def read(self) -> str | None:
        """The next line (None: the engine closed its output); fails the test after REPLY_TIMEOUT."""
        try:
            return self.lines.get(timeout=REPLY_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"no reply from the engine within {REPLY_TIMEOUT:.0f} s")

    def ask(self, *commands: str, until: str) -> list[str]:
        """Send ``commands``; the lines up to and including the first that starts with ``until``."""
        self.send(*commands)
        out = [self.read()]
        while out[-1] is not None and not out[-1].startswith(until):
            out.append(self.read())
        assert out[-1] is not None, f"the engine ended before its {until!r} line: {out}"
        return out

    def quiet(self, *commands: str) -> None:
        """``commands`` answer nothing: the next line after them is isready's readyok."""
        assert self.ask(*commands, "isready", until="readyok") == ["readyok"]

    def error(self, command: str) -> str:
        """The code of the error line ``command`` gets; the engine then still answers isready."""
        line = self.ask(command, until="error")[-1]
        code, message = line.split(" ", 2)[1:]
        assert message.strip()
        self.quiet()
        return code

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            stream.close()


@pytest.fixture(scope="module")
def engine():
    """One engine for the module (the net loaded once); each test sets the context it needs."""
    running = Engine()
    yield running
    running.close()


def bestmove(engine: Engine, position_id: str, dice) -> str:
    """The play ``go role chequer`` answers for a gnubg Position ID and dice (its info line checked)."""
    *info, best = engine.ask(f"position gnubgid {position_id}", f"dice {dice[0]} {dice[1]}", "go role chequer",
                             until="best")
    assert best.startswith("bestmove ")
    move = best[len("bestmove "):]
    assert info and info[-1].startswith("info role chequer ") and info[-1].endswith(f" pv {move}")
    return move


def play_of(position: np.ndarray, dice, move: str) -> np.ndarray:
    """The legal play ``move`` makes, checked to be written as UBGI asks: from/to steps of one die each
    (a bear-off may use a higher die), ``bar`` and ``off`` in words, never 25 or 0, no ``*`` or counts."""
    assert "*" not in move and "(" not in move
    roll = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    for step in move.split(" "):
        source, dest = step.split("/")
        assert "25" not in (source, dest) and "0" not in (source, dest)
        start = 25 if source == "bar" else int(source)
        die = start - (0 if dest == "off" else int(dest))
        if die not in roll:  # only a bear-off may use a higher die than the distance
            assert dest == "off" and any(d > die for d in roll), step
            die = min(d for d in roll if d > die)
        roll.remove(die)
    child = parse_play("backgammon", position, dice, move)
    children, _ = legal_plays("backgammon", position[None], np.array([dice]))
    assert (children == child).all(axis=1).any()
    return child


def test_the_compliance_checks_commands_in_its_order(engine):
    """ubgi -> id lines, option lines, ubgiok; isready, newgame + isready, setoption Variant + isready ->
    readyok and nothing else; position + dice say nothing; go role chequer -> a legal bestmove of the
    opening 6-1; the probes' plays are legal and say bar and off."""
    handshake = engine.ask("ubgi", until="ubgiok")
    assert [line.split(" ")[:2] for line in handshake[:3]] == [["id", "name"], ["id", "author"], ["id", "version"]]
    assert handshake[0] == "id name nardibot"
    options = handshake[3:-1]
    assert options and all(line.startswith("option name ") and " type " in line for line in options)
    assert "option name Variant type combo default backgammon var backgammon" in options
    assert engine.ask("isready", until="readyok") == ["readyok"]
    engine.quiet("newgame")
    engine.quiet("setoption name Variant value backgammon")
    play_of(read_position_id(OPENING), (6, 1), bestmove(engine, OPENING, (6, 1)))
    for (position_id, dice), word in ((BAR_PROBE, "bar"), (OFF_PROBE, "off"), (BOTH_DICE, None)):
        move = bestmove(engine, position_id, dice)
        play_of(read_position_id(position_id), dice, move)
        assert word is None or word in move.replace("/", " ").split()
    assert bestmove(engine, CLOSED_OUT, (6, 6)) == "pass"  # no die can be played


def test_the_play_and_its_info_line_are_hints(engine):
    """bestmove is the play hint ranks first, at the Ply option's depth and at go's depth; the info line
    before it carries that play's equity and probabilities, to four places."""
    from model.bot import Bot
    from model.service.hint import HintSettings, hint
    from model.service.query import query_of_text

    bot = Bot.load()
    engine.quiet("newsession type money", "setoption name Ply value 0")
    for go, ply in (("go role chequer", 0), ("go role chequer depth 1", 1)):
        *_, info, best = engine.ask(f"position gnubgid {OPENING}", "dice 3 1", go, until="best")
        answer = hint(bot, query_of_text("backgammon", OPENING, "31"), HintSettings(ply=ply))["plays"][0]
        position = read_position_id(OPENING)
        assert np.array_equal(play_of(position, (3, 1), best.split(" ", 1)[1]),
                              parse_play("backgammon", position, (3, 1), answer["move"]))
        fields = info.split(" pv ")[0].split(" ")[1:]
        values = dict(zip(fields[::2], fields[1::2]))
        assert values["role"] == "chequer" and values["depth"] == str(ply)
        assert float(values["eq"]) == pytest.approx(answer["equity"], abs=1e-4)
        assert float(values["pwin"]) == pytest.approx(answer["probs"]["win"], abs=1e-4)
        assert float(values["pgammon"]) == pytest.approx(answer["probs"]["win_gammon"], abs=1e-4)
        assert int(values["time_ms"]) >= 0
    engine.quiet("setoption name Ply value 1")
    assert engine.ask(f"position gnubgid {OPENING}", "dice 3 1", "go role chequer", until="best")[0].startswith(
        "info role chequer depth 1 ")
    engine.quiet("setoption name Ply value 0")


def test_cube_decisions_follow_the_cube_and_the_score(engine):
    """go role cube: double where the money cube decision says so, nodouble once the other side owns the
    cube; in a race won but for the cube, double whether the cube is centred or the side on roll's (the
    cube set stays when the position changes); in a 5-point match at 0-4 the trailer doubles at the
    opening post-Crawford, and not in the Crawford game; the leader, set on turn, never does."""
    def cube(*context):
        lines = engine.ask(*context, "go role cube", until="best")
        assert lines[0].startswith("info role cube depth 0 ") and lines[-1].startswith("bestcube ")
        return lines[-1].split(" ", 1)[1]

    engine.quiet("newsession type money", "newgame")
    assert cube(f"position gnubgid {DOUBLE}") == "double"
    assert cube("setcube value 2 owner p1") == "nodouble"
    assert cube(f"position gnubgid {RACE}") == "nodouble"
    assert cube("setcube value 1 owner center") == "double"
    assert cube("setcube value 2 owner p0") == "double"
    assert cube("setcube value 2 owner p1") == "nodouble"
    assert cube("newgame", f"position gnubgid {OPENING}") == "nodouble"
    engine.quiet("newsession type match length 5 crawford off", "newgame", "setscore 0 4")
    assert cube(f"position gnubgid {OPENING}") == "double"
    assert cube("setturn p1") == "nodouble"
    engine.quiet("newsession type match length 5 crawford on", "newgame", "setscore 0 4")
    assert cube(f"position gnubgid {OPENING}") == "nodouble"
    assert "mwc" in engine.ask("go role cube", until="best")[0]


def test_the_answer_to_a_waiting_double(engine):
    """An XGID with a double waiting (dice "D"): go role cube answers for the side doubled, take or drop
    as hint's cube decision says (beyond v0.1's letter); a play is refused until it is answered."""
    engine.quiet("newsession type money")
    for xgid, answer in ((DOUBLED_DROP, "drop"), (DOUBLED_TAKE, "take")):
        assert engine.ask(f"position xgid {xgid}", "go role cube", until="best")[-1] == f"bestcube {answer}"
    assert engine.error("go role turn") == "bad_argument"


def test_turn_decisions_and_an_xgids_dice(engine):
    """go role turn: bestturn cube=nodouble with the play of the dice at the opening, cube=double with a
    legal play where the side on roll doubles; an XGID's own dice are played without a dice command."""
    engine.quiet("newsession type money", "newgame")
    *info, best = engine.ask(f"position gnubgid {OPENING}", "dice 3 1", "go role turn", until="best")
    assert [line.split(" ")[:3] for line in info] == [["info", "role", "cube"], ["info", "role", "chequer"]]
    assert best == "bestturn cube=nodouble move=8/5 6/5"
    best = engine.ask(f"position gnubgid {DOUBLE}", "dice 5 2", "go role turn", until="best")[-1]
    assert best.startswith("bestturn cube=double move=")
    play_of(read_position_id(DOUBLE), (5, 2), best.split("move=", 1)[1])
    assert engine.ask(f"position xgid {OPENING_31}", "go role chequer", until="best")[-1] == "bestmove 8/5 6/5"
    play_of(read_xgid(OPENING_31)[0], (3, 1), "8/5 6/5")


@pytest.mark.parametrize("command, code", [
    ("hello", "unknown_command"), ("UBGI", "unknown_command"), ("Isready", "unknown_command"),
    ("dice 7 1", "bad_argument"), ("dice 3", "bad_argument"), ("dice ٣ 1", "bad_argument"),
    ("position gnubgid 4HPwATDgc/ABMB", "bad_argument"), ("position fen 8/8", "bad_argument"),
    ("position xgid XGID=nonsense", "bad_argument"), ("setcube value 3 owner center", "bad_argument"),
    ("setcube value 2 owner p2", "bad_argument"), ("setcube value 1 owner p0", "bad_argument"),
    ("setscore -1 0", "bad_argument"), ("setturn p3", "bad_argument"), ("newsession type league", "bad_argument"),
    ("newsession type match", "bad_argument"), ("setoption name Ply value 7", "bad_argument"),
    ("setoption name Nonsense value 1", "bad_argument"), ("setoption name Variant value nackgammon",
                                                          "unsupported_feature"),
    ("setoption name Deterministic value false", "unsupported_feature"), ("go role banana", "bad_argument"),
    ("go role chequer depth 9", "bad_argument"), ("go role chequer depth", "bad_argument"),
    ("isready now", "bad_argument"),
])
def test_errors_are_one_line_and_the_engine_reads_on(engine, command, code):
    """A malformed command gets ``error CODE MESSAGE`` with the spec's code; the engine answers on."""
    engine.quiet("newsession type money", f"position gnubgid {OPENING}", "dice 3 1")
    assert engine.error(command) == code


def test_missing_context_and_stop(engine):
    """go without a position or without dice: error missing_context; stop answers nothing."""
    engine.quiet("newgame")
    assert engine.error("go role chequer") == "missing_context"
    engine.quiet(f"position gnubgid {OPENING}", "stop")
    assert engine.error("go role chequer") == "missing_context"
    assert engine.error("go role turn") == "missing_context"
    assert engine.ask("go role cube", until="best")[-1] == "bestcube nodouble"


def test_quit_ends_the_engine():
    """quit: the engine exits with status 0 and reads nothing after it; the end of the input ends it too."""
    for ending in (["quit", "ubgi"], []):
        running = Engine()
        try:
            running.send("isready", *ending)
            assert running.read() == "readyok"
            running.process.stdin.close()
            assert running.read() is None  # nothing answered after quit (or after the input ended)
            assert running.process.wait(timeout=REPLY_TIMEOUT) == 0
            assert running.process.stderr.read() == ""
        finally:
            running.close()


def test_bad_flags_are_one_line():
    """A bad flag: one line on stderr, status 2."""
    done = subprocess.run([sys.executable, "evaluate.py", "ubgi", "--ply", "5"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
