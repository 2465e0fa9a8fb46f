"""Fuzzing the line readers of the command lines, in process: ``python -m engine plays`` (engine/__main__.py's
read_request and answer_lines) and ``evaluate.py hint --jsonl`` (model/service/query.py's query_from_object and
_run_jsonl). Valid request lines, their structural and character mutants and noise each get a valid
answer or one clear error, and a batch of them gets one answer per line, in order."""

from __future__ import annotations

import io
import json
import socket
import threading
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.__main__ import answer_lines, read_request, run_plays
from engine.board import start_position, validate
from engine.formats.fibs import read_fibs_board, write_fibs_board
from engine.formats.position import write_gnubg_id, write_json_position, write_xgid
from engine.notation import parse_play
from model.service.hint import HintSettings
from model.service.query import query_from_object, query_of_line
from nardibot.cli import cmd_hint as hint
from tests.helpers import save_tiny_checkpoints
from tests.strategies import (
    CLEAR_ERRORS,
    DEEP,
    DICE,
    DIGITS,
    FUZZ,
    GAMES,
    HUGE,
    JSON_VALUES,
    RAW_JSON,
    answers_or_refuses,
    fibs_boards,
    is_clear,
    json_mutated,
    match_infos,
    mutants,
    mutated,
    no_hang,
    positions,
    with_value,
)


@st.composite
def plays_lines(draw, game: str) -> str:
    """One line for ``python -m engine plays``: a valid request, a structural or character mutant of
    one, any JSON value, or noise."""
    request = {**write_json_position(draw(positions(game))), "dice": list(draw(DICE))}
    if game == "nardi" and draw(st.booleans()):
        request["first_turn"] = draw(st.booleans())
    valid = json.dumps(request)
    return draw(st.one_of(st.just(valid), json_mutated(request).map(json.dumps), mutated(valid),
                          JSON_VALUES.map(json.dumps), mutants(st.just(valid))))


@FUZZ
@given(st.sampled_from(GAMES), st.data())
def test_plays_request_line(game, data):
    """read_request: a position, dice and first-turn flag that keep the rules, or one clear error."""
    line = data.draw(plays_lines(game))
    result = answers_or_refuses(read_request, game, line)
    if result is not None:
        position, dice, first_turn = result
        validate(game, position)
        assert all(1 <= d <= 6 for d in dice) and isinstance(first_turn, bool)


@settings(FUZZ, max_examples=max(FUZZ.max_examples // 4, 10))
@given(st.sampled_from(GAMES), st.data())
def test_plays_batch_answers_every_line_in_order(game, data):
    """answer_lines / run_plays: one answer per line, in order, each {"plays": [...]} or {"error": ...};
    bytes that are not UTF-8 are an error line too."""
    lines = data.draw(st.lists(plays_lines(game), min_size=1, max_size=6))
    with no_hang():
        answers = answer_lines(game, lines)
    assert len(answers) == len(lines)
    for line, answer in zip(lines, answers):
        assert set(answer) in ({"plays"}, {"error"}), answer
        if "error" in answer:
            assert answer["error"].strip() and "\n" not in answer["error"]
            assert answers_or_refuses(read_request, game, line) is None
    raw = b"\n".join(line.replace("\n", " ").replace("\r", " ").encode("utf-8", "replace") for line in lines)
    raw += b"\n\xff\xfe not utf-8\n"
    out = io.StringIO()
    with no_hang():
        assert run_plays(game, io.BytesIO(raw), out) == 0
    written = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(written) == len(raw.splitlines()) and "error" in written[-1]


# -- evaluate.py hint --jsonl ----------------------------------------------------------------------


@st.composite
def hint_objects(draw, game: str):
    """What one --jsonl line holds once read as JSON: a position in any form (a string, an object, or
    {"position": ..., "dice": ...}), mutated in its structure or its text, or any JSON value."""
    position = draw(positions(game))
    forms = [write_json_position(position)]
    if game == "backgammon":
        info = draw(match_infos())
        forms += [write_gnubg_id(position, info), write_xgid(position, info)]
    form = draw(st.sampled_from(forms))
    dice = draw(st.none() | DICE.map(list) | st.sampled_from(["31", "6-6", "0", "", "77", "3²", "١٢"])
                | st.lists(st.integers(-(2**70), 2**70) | st.integers(0, 7), max_size=3) | JSON_VALUES)
    text = form if isinstance(form, str) else json.dumps(form)
    return draw(st.one_of(
        st.just(form), st.just({"position": form, "dice": dice}),
        mutants(st.just(text)),
        json_mutated({"position": form, "dice": dice}),
        json_mutated(form) if isinstance(form, dict) else mutated(form).map(lambda t: {"position": t}),
        JSON_VALUES,
    ))


@FUZZ
@given(st.sampled_from(GAMES), st.data())
def test_hint_jsonl_line(game, data):
    """query_from_object: a query of a valid position (and dice 1..6 when any), or one clear error."""
    obj = data.draw(hint_objects(game))
    default_dice = data.draw(st.none() | st.just("31"))
    query = answers_or_refuses(query_from_object, game, obj, default_dice)
    if query is not None:
        validate(game, query.position)
        assert query.dice is None or (query.dice.shape == (2,) and all(1 <= d <= 6 for d in query.dice))


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """A tiny untrained network per game, saved as a checkpoint."""
    return save_tiny_checkpoints(tmp_path_factory.mktemp("fuzz"))


@pytest.fixture(scope="module")
def bots(nets):
    from model.bot import Bot

    return {game: Bot.load(str(nets[game]), game=game) for game in GAMES}


def _line(obj) -> bytes:
    """One --jsonl line: a string as it is (not JSON, maybe), anything else as JSON."""
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return text.encode("utf-8", "surrogatepass")


def test_hint_jsonl_run_answers_every_line_in_order(bots, tmp_path, capsys):
    """_run_jsonl over fuzzed lines (bytes that are not UTF-8 among them): exit 0, one JSON answer per
    line, in order, each an answer or {"error": one line}."""
    lines = []

    @FUZZ
    @given(st.sampled_from(GAMES), st.data())
    def collect(game, data):
        lines.append((game, _line(data.draw(hint_objects(game)))))

    collect()
    for game in GAMES:
        raw = [line for g, line in lines if g == game][:60] + [b"\xff\xfe{not utf-8", b"", b"  ",
                                                                 "x\u2028y\x1cz".encode()]
        path = tmp_path / f"{game}.jsonl"
        path.write_bytes(b"\n".join(raw) + b"\n")
        with open(path, encoding="utf-8", errors="replace") as f:  # lines as the reader reads them: str.splitlines
            expected = len(f.readlines())  # would also split at U+2028, \x1c and the like, inside a line
        args = SimpleNamespace(jsonl=str(path), game=game, dice=None, ply=0, met=None)
        with no_hang(120):
            assert hint._run_jsonl(bots[game], args, HintSettings()) == 0
        out = capsys.readouterr().out.splitlines()
        assert len(out) == expected
        for answer in map(json.loads, out):
            if "error" in answer:
                assert set(answer) == {"error"} and answer["error"].strip() and "\n" not in answer["error"]
            else:
                validate(game, np.array(answer["position"]["board"] + answer["position"]["bar"]
                                        + answer["position"]["off"], dtype=np.int8))


def test_hint_jsonl_known_faults():
    """Faults the fuzzing found, each now one clear error: a die too large for a number type
    (OverflowError), a digit that int() cannot read ('²': ValueError without a word of dice)."""
    start = write_json_position(start_position("backgammon"))
    for dice in ([10**20, 1], [[1, 2], [3]], {"a": 1}, "3²", "١٢", [3, 1, 1]):
        obj = {"position": start, "dice": dice}
        assert answers_or_refuses(query_from_object, "backgammon", obj, None) is None


# -- nested, huge and binary lines -------------------------------------------------------------------

MAX_ECHO = 400
"""Characters an error line may have: the readers show only the start of a long bad input."""


@st.composite
def hostile_lines(draw, game: str) -> bytes:
    """One --jsonl line as bytes: a valid request with a field (or a position's field) holding deep,
    huge or many-digit JSON, a deep or huge line, a position text that holds such JSON, or bytes that are
    no UTF-8 (a line end inside a line is a line end: it stays, as in a real file)."""
    position = write_json_position(draw(positions(game)))
    raw = draw(RAW_JSON)
    field = draw(st.sampled_from(["position", "dice", "board", "bar", "off", "extra"]))
    if field in ("position", "dice", "extra"):
        text = with_value({"position": position, "dice": "31"}, field, raw)
    else:
        text = with_value(position, field, raw)
    inner = json.dumps({"position": with_value(position, "board", raw)})
    line = draw(st.sampled_from([text, raw, inner]) | DEEP.map(lambda d: '{"board": ' + d + "}"))
    encoded = line.encode("utf-8", "surrogatepass")
    return draw(st.just(encoded) | st.binary(max_size=200) | st.binary(max_size=50).map(lambda b: encoded[:40] + b))


@FUZZ
@given(st.sampled_from(GAMES), st.data())
def test_hint_jsonl_hostile_line(game, data):
    """query_of_line on a nested, huge or binary line, read as _run_jsonl reads it (bytes that are no
    UTF-8 replaced): a query of a valid position, or one clear error line that shows only the start of a
    long input."""
    line = data.draw(hostile_lines(game)).decode("utf-8", errors="replace")
    try:
        with no_hang():
            query = query_of_line(game, line, None)
    except CLEAR_ERRORS as err:
        assert is_clear(err) and len(str(err)) < MAX_ECHO, str(err)[:500]
        return
    validate(game, query.position)


def test_hint_jsonl_known_hostile_lines():
    """Found by the fuzzing above: a number of more than 4,300 digits (Python's limit of int() on text)
    in a line, in a position's list or in a position's text was a ValueError naming the interpreter's
    setting, not a line that says what is wrong; dice of thousands of digits or nested hundreds deep
    were echoed whole."""
    start = write_json_position(start_position("backgammon"))
    for line in ('{"position": "4HPwATDgc/ABMA", "dice": ' + "9" * 5000 + "}", "9" * 5000,
                 with_value(start, "board", "[" + "1" * 4301 + "]"),
                 json.dumps({"position": json.dumps(start).replace("[0, 0]", "[" + "2" * 5000 + ", 0]", 1)})):
        with pytest.raises(CLEAR_ERRORS) as refused:
            query_of_line("backgammon", line, None)
        assert is_clear(refused.value) and "digits" in str(refused.value) and len(str(refused.value)) < 200
    for dice in ("[" + "9" * 4200 + ", 1]", "[" * 900 + "]" * 900):  # echoed whole: 4,000 characters and more
        with pytest.raises(CLEAR_ERRORS) as refused:
            query_of_line("backgammon", '{"position": "4HPwATDgc/ABMA", "dice": ' + dice + "}", None)
        assert str(refused.value).startswith("dice must be") and len(str(refused.value)) < 200


def test_hint_jsonl_run_goes_on_after_hostile_lines(bots, tmp_path, capsys):
    """_run_jsonl over hostile lines, each followed by a valid one: exit 0, one answer per line, in order,
    and every valid line answered."""
    lines = []

    @settings(FUZZ, max_examples=max(FUZZ.max_examples // 4, 10))
    @given(st.data())
    def collect(data):
        lines.append(data.draw(hostile_lines("backgammon")).replace(b"\n", b" ").replace(b"\r", b" "))

    collect()
    valid = json.dumps({"position": "4HPwATDgc/ABMA", "dice": "31"}).encode()
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"".join(line + b"\n" + valid + b"\n" for line in lines))
    with open(path, encoding="utf-8", errors="replace") as f:
        expected = len(f.readlines())
    args = SimpleNamespace(jsonl=str(path), game="backgammon", dice=None, ply=0, met=None)
    with no_hang(300):
        assert hint._run_jsonl(bots["backgammon"], args, HintSettings()) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(answers) == expected
    for answer in answers:
        assert "error" not in answer or (set(answer) == {"error"} and "\n" not in answer["error"])
    assert sum("plays" in answer for answer in answers) >= len(lines)  # every valid line at least


# -- nardibot serve: gnubg's external-player lines ----------------------------------------------------


@st.composite
def serve_lines(draw) -> bytes:
    """One request line to ``nardibot serve`` as bytes: a FIBS board, its field or character mutants,
    a field holding thousands of digits, JSON nested deep, a huge line, or bytes (NULs around it as
    gnubg sends them)."""
    board = write_fibs_board(draw(fibs_boards()))
    fields = board.split(":")
    fields[draw(st.integers(1, len(fields) - 1))] = draw(DIGITS | st.text(max_size=8))
    line = draw(st.one_of(st.just(board), mutants(st.just(board), sep=":"), st.just(":".join(fields)),
                          DEEP.map(lambda d: "board:" + d[:3000]), HUGE.map(lambda h: "board:" + h[:3000]),
                          st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
    raw = line.encode("utf-8", "surrogatepass")
    return draw(st.sampled_from([b"", b"\x00"])) + raw + draw(st.sampled_from([b"", b"\x00", b"\r"]))


@pytest.fixture(scope="module")
def serve_agent(bots):
    from nardibot.cli.cmd_serve import BotAgent, ServeOptions

    log: list[str] = []
    return BotAgent(bots["backgammon"], ServeOptions(), log=log.append), log


@FUZZ
@given(serve_lines())
def test_serve_line(serve_agent, raw):
    """answer_line, on a line decoded as the server decodes it: one ASCII reply line (a legal play, a
    cube or resignation word, or "" for a bad line with one log line), or none for a blank line; never
    an exception."""
    from nardibot.cli.cmd_serve import answer_line

    agent, log = serve_agent
    logged, bad = len(log), agent.stats.bad_lines
    with no_hang():
        reply = answer_line(agent, raw.decode("ascii", errors="replace"))
    if reply is None:
        assert not raw.replace(b"\x00", b"").strip()
        return
    assert reply.isascii() and "\n" not in reply
    if agent.stats.bad_lines > bad:
        assert reply == "" and len(log) == logged + 1
    assert all("\n" not in line and len(line) < MAX_ECHO for line in log[logged:]), [x[:300] for x in log[logged:]]


def test_serve_known_lines(serve_agent):
    """Found by the fuzzing above: a board whose dice, slots or match length run to thousands of digits
    was logged with every digit (a 4 KB log line)."""
    from nardibot.cli.cmd_serve import answer_line

    agent, log = serve_agent
    fields = WORKED_BOARD.split(":")
    for index in (3, 7, 33):  # the match length (decided, refused by the rules), a slot, a die
        logged = len(log)
        line = ":".join(fields[:index] + ["9" * 4000] + fields[index + 1:])
        assert answer_line(agent, line) is not None
        assert len(log) == logged + 1 and len(log[-1]) < MAX_ECHO, log[-1][:300]


def test_serve_answers_every_fuzzed_line_in_order(serve_agent):
    """A BotServer over TCP, sent fuzzed lines (over-long ones among them) in one stream: one reply per
    line that is not blank, in order (a bad line's reply is ""), and the connection stays up to the end."""
    from nardibot.cli.cmd_serve import MAX_LINE, BotServer

    lines = []

    @settings(FUZZ, max_examples=max(FUZZ.max_examples // 4, 10))
    @given(serve_lines())
    def collect(raw):
        lines.append(raw.replace(b"\n", b" "))

    collect()
    lines += [b"x" * (3 * MAX_LINE), WORKED_BOARD.encode()]
    expected = sum(1 for line in lines if line.decode("ascii", errors="replace").replace("\x00", "").strip())
    agent, _ = serve_agent
    server = BotServer(agent, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"max_connections": 1}, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=300) as client:  # a hang guard
            client.sendall(b"\n".join(lines) + b"\n")
            client.shutdown(socket.SHUT_WR)
            received = b""
            while chunk := client.recv(65536):
                received += chunk
        thread.join(300)
    finally:
        server.close()
    replies = received.decode("ascii").split("\n")[:-1]
    assert len(replies) == expected
    assert parse_play("backgammon", read_fibs_board(WORKED_BOARD).position, (5, 6), replies[-1]) is not None


WORKED_BOARD = ("board:bot:gnubg:3:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:5:6:5:6:1:1:1:"
                "0:1:-1:0:25:0:0:0:0:0:0:0:1")
"""docs/FORMATS.md's worked request: 5-6 to play for player 0."""
