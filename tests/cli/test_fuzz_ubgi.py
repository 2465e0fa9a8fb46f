"""Fuzzing UBGI's command lines (nardibot/cli/cmd_ubgi.py's ``Engine`` over model/service/ubgi_session.py's
``UbgiSession``): every command with its arguments mutated, numbers of thousands of digits, odd unicode
(digits str.isdigit() takes that int() does not read, other scripts' digits, line separators, controls),
lines of up to 200,000 characters and any text. Each line gets what UBGI v0.1 answers it (nothing,
``readyok``, the handshake, ``info`` lines then a ``best...`` line) or one line ``error <code> <message>``
with one of the spec's codes, never an exception and never a hang; then the engine still plays.
In process on a tiny net, then a short run of the real engine (``evaluate.py ubgi``) over pipes, raw bytes
and a 10 MB line included, with a timeout on every read (tests/cli/test_ubgi.py's ``Engine``)."""

from __future__ import annotations

import re

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from model.bot import Bot
from model.service.ubgi_session import UbgiSession
from nardibot.cli.cmd_ubgi import Engine
from tests.helpers import save_tiny_checkpoints
from tests.strategies import DIGITS, FUZZ, HUGE, mutated, no_hang

OPENING = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
DOUBLED = "XGID=-b---BDBB---bB---c-e----B-:0:0:1:D:0:0:0:0:10"
VALID = (
    "ubgi", "isready", "newgame", "stop", "newsession type money", "newsession type money jacoby off",
    "newsession type match length 5 crawford on", "setscore 0 4", "setcube value 2 owner p0",
    "setcube value 1 owner center", "setturn p1", "setturn p0", f"position gnubgid {OPENING}",
    f"position gnubgid {OPENING}:cAkAAAAAAAAA", f"position xgid {XGID}", f"position xgid {DOUBLED}", "dice 3 1",
    "dice 6 6", "setoption name Ply value 0", "setoption name EvalMode value cubeless",
    "setoption name EvalMode value cubeful", "setoption name Variant value backgammon",
    "setoption name Deterministic value true", "setoption name Seed value 7", "go", "go role chequer",
    "go role cube", "go role turn", "go role chequer depth 0 movetime 100 nodes 5 trials 9",
)
"""A line of every command, each valid in some context (quit is left out: it ends the engine)."""
CODES = ("unknown_command", "bad_argument", "missing_context", "unsupported_feature")
ERROR = re.compile(rf"error ({'|'.join(CODES)}) \S.*")
ODD = ("\u00b2", "\u0661", "\uff13", "\u2460", "\U0001d7d9", "\u2028", "\x85", "\x1c", "\x0b", "\x0c", "\u200b",
       "\ufeff", "\x00", "\ud800", "\u0301", "\u202e", "-", "+", " ", "\t")
"""Characters and pieces that break naive readers: other digits, Unicode line and paragraph separators (which
str.split takes as white space), controls, a zero-width space, a byte-order mark, a lone surrogate, a
combining accent, a right-to-left override, signs, white space."""
NUMBERS = ("0x10", "1e3", "1_0", "-1", "+2", "0", "00", "2.0", "nan", "inf")
"""Numbers as Python or C (not UBGI) writes them, and the edges."""
MAX_REPLY = 400
"""Characters a reply line may have (error lines show a long bad argument by its start)."""


def hostile_args(args: list[str]) -> st.SearchStrategy[list[str]]:
    """A command's arguments with one replaced, added or dropped: by a huge number, odd characters, a huge
    run of one character, or a word of another command."""
    piece = (DIGITS | st.sampled_from(ODD + NUMBERS) | st.text(st.sampled_from(ODD), min_size=1, max_size=4)
             | HUGE.map(lambda s: s[:20_000]) | st.integers(-(2**70), 2**70).map(str)
             | st.sampled_from([word for line in VALID for word in line.split()]))

    @st.composite
    def changed(draw):
        out = list(args)
        for _ in range(draw(st.integers(1, 3))):
            op = draw(st.sampled_from(["replace", "add", "drop"]))
            if op == "add" or not out:
                out.insert(draw(st.integers(0, len(out))), draw(piece))
            elif op == "replace":
                out[draw(st.integers(0, len(out) - 1))] = draw(piece)
            else:
                out.pop(draw(st.integers(0, len(out) - 1)))
        return out

    return changed()


@st.composite
def lines(draw) -> str:
    """One command line: valid, with its arguments made hostile, its characters mutated, or any text."""
    valid = draw(st.sampled_from(VALID))
    command, *args = valid.split()
    line = draw(st.one_of(
        st.just(valid),
        hostile_args(args).map(lambda a: " ".join([command, *a])),
        mutated(valid),
        st.text(max_size=80),
        HUGE.map(lambda s: command + " " + s),
        st.binary(max_size=80).map(lambda b: b.decode("utf-8", errors="replace")),
    ))
    return line.replace("\n", " ").replace("\r", " ")  # the reader splits lines there (universal newlines)


def check_replies(line: str, replies: list[str]) -> None:
    """The spec's reply to ``line``'s command, or one error line with one of its codes."""
    assert all(isinstance(r, str) and "\n" not in r and "\r" not in r and len(r) <= MAX_REPLY for r in replies), (
        line[:200], [r[:300] for r in replies])
    last = replies[-1].split(" ") if replies else ["nothing"]
    event(" ".join(last[:2]) if last[0] == "error" else last[0])  # what was answered (--hypothesis-show-statistics)
    if replies and replies[0].startswith("error "):
        assert len(replies) == 1 and ERROR.fullmatch(replies[0]), (line[:200], replies[0][:300])
        return
    command = line.replace("\x00", " ").split()[0] if line.replace("\x00", " ").split() else ""
    if command == "ubgi":
        assert replies[:3] == [r for r in replies[:3] if r.startswith("id ")] and replies[-1] == "ubgiok", replies
    elif command == "isready":
        assert replies == ["readyok"]
    elif command == "go":
        *info, best = replies
        assert all(r.startswith("info role ") for r in info) and best.split(" ")[0] in (
            "bestmove", "bestcube", "bestturn"), replies
    else:
        assert replies == [], (line[:200], replies)


@pytest.fixture(scope="module")
def tiny_bot(tmp_path_factory):
    """A tiny untrained backgammon net: the answers' values do not matter here, only their form."""
    return Bot.load(str(save_tiny_checkpoints(tmp_path_factory.mktemp("nets"))["backgammon"]))


def still_plays(engine: Engine) -> None:
    """After any lines: isready, then the opening 3-1 from a fresh session, are answered."""
    assert engine.answer("isready") == ["readyok"]
    for line in ("newsession type money", f"position gnubgid {OPENING}", "dice 3 1"):
        assert engine.answer(line) == [], line
    assert engine.answer("go role chequer")[-1].startswith("bestmove ")


CONTEXTS = st.tuples(st.sampled_from(["newsession type money", "newsession type match length 7", "newgame"]),
                     st.sampled_from([f"position gnubgid {OPENING}", f"position xgid {XGID}", f"position xgid {DOUBLED}",
                                      "position gnubgid 4HPwATDgc/ABMA:cAkAAAAAAAAA"]),
                     st.sampled_from(["dice 3 1", "dice 5 5", "setcube value 2 owner p1", "setscore 1 2"]))
"""A context in which most go commands are answered: a session, a position, dice or a cube or a score."""


@FUZZ
@given(CONTEXTS, st.lists(lines() | st.sampled_from(VALID), min_size=1, max_size=8))
def test_every_line_gets_its_reply_or_one_error_line(tiny_bot, context, commands):
    """A session of fuzzed lines and valid ones, in process, after a context: each answered as the spec says
    or refused in one line with one of its codes; no exception escapes ``answer``; the engine then plays on."""
    engine = Engine(UbgiSession(lambda: tiny_bot))
    for line in [*context, *commands]:
        with no_hang():
            replies = engine.answer(line)
        check_replies(line, replies)
    still_plays(engine)


@settings(FUZZ, max_examples=max(FUZZ.max_examples // 2, 10))
@given(st.sampled_from([v for v in VALID if v.split()[0] in ("setscore", "setcube", "dice", "newsession",
                                                             "setoption", "go", "position", "setturn")]),
       st.data())
def test_numbers_and_odd_characters_in_every_argument(tiny_bot, valid, data):
    """Each argument of a command replaced in turn by a number of up to 6,000 digits, a huge signed one, or
    odd characters, after a context in which the valid line is answered."""
    command, *args = valid.split()
    engine = Engine(UbgiSession(lambda: tiny_bot))
    for line in ("newsession type money", f"position gnubgid {OPENING}", "dice 3 1"):
        engine.answer(line)
    for k in range(len(args)):
        value = data.draw(DIGITS | st.integers(-(2**70), 2**70).map(str) | st.sampled_from(NUMBERS) | st.text(st.sampled_from(ODD), min_size=1,
                                                                                   max_size=3))
        line = " ".join([command, *args[:k], value, *args[k + 1:]])
        with no_hang():
            check_replies(line, engine.answer(line))
    still_plays(engine)


# -- the real engine over pipes ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def piped(tmp_path_factory):
    """``evaluate.py ubgi`` on a tiny net, on pipes (tests/cli/test_ubgi.py's ``Engine``: a timeout on every read)."""
    from tests.cli.test_ubgi import Engine as Piped

    net = save_tiny_checkpoints(tmp_path_factory.mktemp("piped"))["backgammon"]
    running = Piped("--bot", str(net))
    yield running
    running.close()


def exchange(piped, raw: bytes) -> list[str]:
    """Write the line ``raw`` (bytes, its newline added) then ``isready``; the lines the engine answers
    before its readyok."""
    piped.process.stdin.flush()
    piped.process.stdin.buffer.write(raw + b"\nisready\n")
    piped.process.stdin.buffer.flush()
    out = []
    while (line := piped.read()) != "readyok":
        assert line is not None, f"the engine ended after {raw[:100]!r}: {out}"
        out.append(line)
    return out


HOSTILE = [b"\xff\xfe\xfd", b"go role \xff", b"dice \xc3 1", b"\x00\x00", b"position gnubgid " + b"A" * 100_000,
           b"setscore " + b"9" * 5000 + b" 0", "dice \u0663 1".encode(), "setturn p\u2028".encode(),
           b"newsession type match length " + b"9" * 40, b"setoption name Seed value " + b"9" * 30,
           "position xgid XGID=\u00b2".encode(), b"go depth " + b"9" * 5000, b"\x1b[2J", b"ubgi extra",
           b"setcube value 64 owner p0", b"setcube value 128 owner p0", "go role cube\u200b".encode()]
"""Lines that broke, or could break, a reader: bytes that are no UTF-8, NULs, huge numbers and arguments,
other scripts' digits, a Unicode line separator, a terminal escape, a zero-width space."""


def test_hostile_lines_over_a_pipe(piped):
    """Each hostile line gets one error line or nothing (then readyok); a context set after them plays; a
    10 MB line gets one error line; nothing is written on stderr (no traceback); quit ends it with 0."""
    for raw in HOSTILE:
        replies = exchange(piped, raw)
        assert len(replies) <= 1 and all(ERROR.fullmatch(r) and len(r) <= MAX_REPLY for r in replies), (raw[:80],
                                                                                                       replies)
    for command in ("newsession type money", f"position gnubgid {OPENING}", "dice 3 1"):
        assert exchange(piped, command.encode()) == []
    assert exchange(piped, b"go role chequer")[-1].startswith("bestmove ")
    [line] = exchange(piped, b"x" * 10_000_000)
    assert line.startswith("error unknown_command ") and len(line) <= MAX_REPLY
    [line] = exchange(piped, b"dice " + b"7" * 10_000_000 + b" 1")
    assert line.startswith("error bad_argument ") and len(line) <= MAX_REPLY
    piped.send("quit")
    piped.process.stdin.close()
    assert piped.read() is None and piped.process.wait(timeout=60) == 0
    assert piped.process.stderr.read() == ""
