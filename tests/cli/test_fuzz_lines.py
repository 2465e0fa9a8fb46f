"""Fuzzing the line readers of the command lines, in process: ``python -m engine plays`` (engine/__main__.py's
read_request and answer_lines) and ``evaluate.py hint --jsonl`` (model/service/query.py's query_from_object and
_run_jsonl). Valid request lines, their structural and character mutants and noise each get a valid
answer or one clear error, and a batch of them gets one answer per line, in order."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.__main__ import answer_lines, read_request, run_plays
from engine.board import start_position, validate
from engine.formats.position import write_gnubg_id, write_json_position, write_xgid
from model.service.hint import HintSettings
from model.service.query import query_from_object
from nardibot.cli import cmd_hint as hint
from tests.helpers import save_tiny_checkpoints
from tests.strategies import (
    DICE,
    FUZZ,
    GAMES,
    JSON_VALUES,
    answers_or_refuses,
    json_mutated,
    match_infos,
    mutants,
    mutated,
    no_hang,
    positions,
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
