"""Fuzzing every text reader of positions, matches and moves (strategies in tests/strategies.py): valid
inputs read back to what was written, and random or mutated ones are either read to a valid result or
refused with one clear error, never another exception or a hang."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine.board import validate
from engine.formats.fibs import read_fibs_board, write_fibs_board
from engine.formats.matfile import format_mat, read_mat
from engine.formats.position import (
    read_gnubg_id,
    read_json_position,
    read_match_id,
    read_position_id,
    read_position_text,
    read_xgid,
    write_gnubg_id,
    write_json_position,
    write_match_id,
    write_position_id,
    write_xgid,
)
from engine.movegen import legal_plays
from engine.notation import format_play, parse_play, read_legs
from tests.strategies import (
    DICE,
    FUZZ,
    GAMES,
    answers_or_refuses,
    fibs_boards,
    json_mutated,
    match_infos,
    match_records,
    mutants,
    mutated,
    positions,
)

MATCH_ID_FIELDS = ("cube_value", "cube_owner", "player_on_roll", "crawford", "game_state", "turn",
                   "double_offered", "resignation", "dice", "match_length", "scores", "jacoby")
XGID_FIELDS = ("cube_value", "cube_owner", "player_on_roll", "double_offered", "match_length", "scores",
               "max_cube_log2")


def _valid_position(game: str, result) -> None:
    """A reader's (position, ...) result holds a position of ``game`` that keeps its rules."""
    position = result[0] if isinstance(result, tuple) else result
    assert position.dtype == np.int8 and position.shape == (28,)
    validate(game, position)


@FUZZ
@given(positions(), st.data())
def test_position_id(position, data):
    """Position IDs: every position reads back; mutants are read to a valid position or refused."""
    text = write_position_id(position)
    assert np.array_equal(read_position_id(text), position)
    fuzzed = data.draw(mutants(st.just(text)))
    result = answers_or_refuses(read_position_id, fuzzed)
    if result is not None:
        _valid_position("backgammon", result)
        assert write_position_id(result) == fuzzed.strip()  # one text per position


@FUZZ
@given(match_infos(), st.data())
def test_match_id(info, data):
    """Match IDs: every field the ID carries reads back; mutants are read or refused."""
    text = write_match_id(info)
    back = read_match_id(text)
    assert all(getattr(back, name) == getattr(info, name) for name in MATCH_ID_FIELDS)
    fuzzed = data.draw(mutants(st.just(text)))
    result = answers_or_refuses(read_match_id, fuzzed)
    if result is not None:  # bits 67-71 are not gnubg's: read past, so only the fields must agree
        assert read_match_id(write_match_id(result)) == result


@FUZZ
@given(positions(), match_infos(), st.data())
def test_gnubg_id(position, info, data):
    """PositionID:MatchID: read back, and its mutants (a colon too many or too few among them)."""
    text = write_gnubg_id(position, info)
    back_position, back_info = read_gnubg_id(text)
    assert np.array_equal(back_position, position) and back_info.dice == info.dice
    result = answers_or_refuses(read_gnubg_id, data.draw(mutants(st.just(text), sep=":")))
    if result is not None:
        _valid_position("backgammon", result)


@FUZZ
@given(positions(), match_infos(), st.data())
def test_xgid(position, info, data):
    """XGIDs: the position and the fields an XGID carries read back; field and character mutants are
    read or refused."""
    text = write_xgid(position, info)
    back_position, back_info = read_xgid(text)
    assert np.array_equal(back_position, position)
    assert all(getattr(back_info, name) == getattr(info, name) for name in XGID_FIELDS)
    result = answers_or_refuses(read_xgid, data.draw(mutants(st.just(text), sep=":")))
    if result is not None:
        _valid_position("backgammon", result)


@FUZZ
@given(st.sampled_from(GAMES), st.data())
def test_position_text_of_any_form(game, data):
    """read_position_text, the one reader of a position as text: any form, mutated, or noise."""
    position = data.draw(positions(game))
    forms = [json.dumps(write_json_position(position))]
    if game == "backgammon":
        info = data.draw(match_infos())
        forms += [write_position_id(position), write_gnubg_id(position, info), write_xgid(position, info)]
    text = data.draw(st.sampled_from(forms))
    assert np.array_equal(read_position_text(game, text)[0], position)
    result = answers_or_refuses(read_position_text, game, data.draw(mutants(st.just(text))))
    if result is not None:
        _valid_position(game, result)


@FUZZ
@given(st.sampled_from(GAMES), st.data())
def test_json_position(game, data):
    """JSON positions: the object and its text read back; structural faults (keys dropped or added, any
    JSON value in any place, lists grown or shrunk) and text mutants are read or refused."""
    position = data.draw(positions(game))
    obj = write_json_position(position)
    assert np.array_equal(read_json_position(game, obj), position)
    fuzzed = data.draw(json_mutated(obj))
    for reader, argument in ((read_json_position, fuzzed), (read_json_position, json.dumps(fuzzed)),
                             (read_position_text, json.dumps(fuzzed)),
                             (read_json_position, data.draw(mutated(json.dumps(obj))))):
        result = answers_or_refuses(reader, game, argument)
        if result is not None:
            _valid_position(game, result)


@FUZZ
@given(fibs_boards(), st.data())
def test_fibs_board_line(board, data):
    """FIBS board lines: the position, turn and dice read back; field and character mutants are read or
    refused (a NUL or line end around a line is allowed)."""
    line = write_fibs_board(board)
    back = read_fibs_board(line)
    assert np.array_equal(back.position, board.position) and back.mover == board.mover and back.dice == board.dice
    result = answers_or_refuses(read_fibs_board, data.draw(mutants(st.just(line), sep=":")))
    if result is not None:
        _valid_position("backgammon", result.position)


@FUZZ
@given(st.sampled_from(GAMES), DICE, st.data())
def test_move_notation(game, dice, data):
    """Move text: every legal play's text parses back to it; mutants and token soup parse to a legal
    play or are refused (FormatError for unreadable text, IllegalPlayError for an illegal play)."""
    position = data.draw(positions(game))
    children, _ = legal_plays(game, position[None], np.array([dice]))
    child = children[data.draw(st.integers(0, len(children) - 1))]
    text = format_play(game, position, child, dice)
    assert np.array_equal(parse_play(game, position, dice, text), child)
    soup = st.lists(st.sampled_from(["bar", "off", "b", "o", "/", "*", "(2)", "(4)", "(9)", " ", ",", "24", "13",
                                     "6", "0", "25", "99", "7", "1"]), max_size=12).map("".join)
    fuzzed = data.draw(mutants(st.just(text)) | soup)
    result = answers_or_refuses(parse_play, game, position, dice, fuzzed)
    if result is not None:
        assert any(np.array_equal(result, c) for c in children), fuzzed
    answers_or_refuses(read_legs, game, fuzzed)


@FUZZ
@given(match_records(), st.data())
def test_mat_file(record, data):
    """.mat text: what we write reads back to the same record (names, length, and every game's plays
    with their dice, cube actions, starting score and result); character and line mutants are read or
    refused."""
    text = format_mat(record)
    assert read_mat(text) == record
    fuzzed = data.draw(mutants(st.just(text), sep="\n") | st.just(text).flatmap(mutated))
    answers_or_refuses(read_mat, fuzzed)
