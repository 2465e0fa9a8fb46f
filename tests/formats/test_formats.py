"""Exchange formats (engine/formats/position.py): FORMATS.md's worked examples, gnubg-checked vectors, round trips
on random positions, and one clear error for malformed input."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from engine.board import flip, start_position
from engine.errors import FormatError
from engine.formats.position import (
    CUBE_CENTRED,
    GameStatus,
    MatchInfo,
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
from engine.notation import parse_play
from engine.tools.sample import random_positions

START_JSON = {
    "board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
    "bar": [0, 0],
    "off": [0, 0],
}


def _backgammon_sample(n_each: int = 60) -> np.ndarray:
    kinds = ("opening", "midgame", "contact", "bar", "bearoff", "race")
    return np.concatenate([random_positions("backgammon", n_each, seed=4, kind=k)[0] for k in kinds])


def _random_infos(n: int, seed: int = 0) -> list[MatchInfo]:
    """Random match/cube states every field of which a Match ID can hold."""
    rng = np.random.default_rng(seed)
    infos = []
    for _ in range(n):
        length = int(rng.choice([0, 1, 3, 5, 7, 25, 32767]))
        rolled = rng.integers(2)
        infos.append(
            MatchInfo(
                cube_value=int(2 ** rng.integers(0, 16)),
                cube_owner=int(rng.integers(-1, 2)),
                player_on_roll=int(rng.integers(2)),
                crawford=bool(rng.integers(2)),
                game_state=GameStatus(int(rng.integers(0, 5))),
                turn=int(rng.integers(2)),
                double_offered=bool(rng.integers(2)),
                resignation=int(rng.integers(0, 4)),
                dice=tuple(int(d) for d in rng.integers(1, 7, 2)) if rolled else (0, 0),
                match_length=length,
                scores=tuple(int(s) for s in rng.integers(0, max(length, 1), 2)),
                jacoby=bool(rng.integers(2)),
            )
        )
    return infos


# ------------------------------------------------------------------------------------------------
# FORMATS.md's worked examples


def test_json_start_position_is_formats_md_example():
    """The JSON form of the backgammon start is FORMATS.md's example, and nardi's has the two heads."""
    assert write_json_position(start_position("backgammon")) == START_JSON
    assert np.array_equal(read_json_position("backgammon", START_JSON), start_position("backgammon"))
    nardi = write_json_position(start_position("nardi"))
    assert nardi["board"][23] == 15 and nardi["board"][11] == -15 and nardi["bar"] == [0, 0]


def test_json_positions_of_a_batch_are_each_rows_json_form():
    """``write_json_positions`` (the plays of a hint) writes each row as ``write_json_position`` does,
    plain ints whatever the array's integer type."""
    from engine.formats.position import write_json_positions
    from engine.movegen import legal_plays

    kids, _ = legal_plays("backgammon", start_position("backgammon", 1), np.array([[6, 5]]))
    for rows in (kids, kids.astype(np.int64)):
        batch = write_json_positions(rows)
        assert batch == [write_json_position(row) for row in rows] and len(batch) == len(rows)
        assert all(type(v) is int for d in batch for part in d.values() for v in part)
        assert [read_json_position("backgammon", d).tolist() for d in batch] == kids.tolist()


def test_start_position_id_bytes_and_text():
    """The start's Position ID packs to bytes E0 73 F0 01 30 E0 73 F0 01 30 -> 4HPwATDgc/ABMA."""
    text = write_position_id(start_position())
    assert text == "4HPwATDgc/ABMA"
    assert base64.b64decode(text + "==") == bytes.fromhex("E073F00130E073F00130")
    assert np.array_equal(read_position_id(text), start_position())


def test_position_after_opening_8_5_6_5():
    """After 8/5 6/5 the other side is on roll, the mover's side comes first: sGfwATDgc/ABMA."""
    after = parse_play("backgammon", start_position(), (3, 1), "8/5 6/5")
    assert write_position_id(flip("backgammon", after)) == "sGfwATDgc/ABMA"
    assert np.array_equal(read_position_id("sGfwATDgc/ABMA"), flip("backgammon", after))


@pytest.mark.parametrize(
    "text, info",
    [
        (
            "QYkqASAAIAAA",
            MatchInfo(
                cube_value=2, cube_owner=0, player_on_roll=1, dice=(5, 2), match_length=9, scores=(2, 4)
            ),
        ),
        ("cAkAAAAAAAAA", MatchInfo(player_on_roll=1)),
        ("cAkAAAAAAAAE", MatchInfo(player_on_roll=1, jacoby=False)),
        ("cIkFAAAAAAAE", MatchInfo(player_on_roll=1, dice=(3, 1), jacoby=False)),
    ],
)
def test_formats_md_match_ids(text, info):
    """FORMATS.md's four Match IDs are written from, and read back to, the states it describes."""
    assert write_match_id(info) == text
    assert read_match_id(text) == info


def test_xgid_start_position_characters():
    """The start with the bottom player on roll is drawn -b----E-C---eE---c-e----B- and reads back."""
    xgid = write_xgid(start_position(), MatchInfo(player_on_roll=1))
    assert xgid.split(":")[0] == "XGID=-b----E-C---eE---c-e----B-"
    position, info = read_xgid(xgid)
    assert np.array_equal(position, start_position()) and info.player_on_roll == 1


# ------------------------------------------------------------------------------------------------
# vectors recorded from gnubg 1.07 (/usr/games/gnubg -t, embedded Python: gnubg.command, gnubg.matchid)

GNUBG_MATCH_IDS = [
    # set jacoby off; new session; set turn 0; set cube value 4; set cube owner 1; set dice 6 2
    ("EgELAAAAAAAE", MatchInfo(cube_value=4, cube_owner=1, player_on_roll=0, dice=(6, 2), jacoby=False)),
    # set jacoby on; new session; set turn 1; set cube value 2; set cube owner 0
    ("QQkAAAAAAAAA", MatchInfo(cube_value=2, cube_owner=0, player_on_roll=1)),
    # new session; set turn 1; double  (player 1 doubles: player 0 is to decide)
    ("cBEAAAAAAAAA", MatchInfo(player_on_roll=1, turn=0, double_offered=True)),
    # new match 5; set turn 0; set score 4 2; set crawford on
    ("sAGgAEAAEAAE", MatchInfo(crawford=True, match_length=5, scores=(4, 2), jacoby=False)),
    # ... set crawford off; set dice 5 5
    ("MIG2AEAAEAAE", MatchInfo(dice=(5, 5), match_length=5, scores=(4, 2), jacoby=False)),
    # new match 3; set turn 1; set dice 4 1; resign g
    (
        "cEFmAAAAAAAE",
        MatchInfo(player_on_roll=1, turn=0, resignation=2, dice=(4, 1), match_length=3, jacoby=False),
    ),
]


@pytest.mark.parametrize("text, info", GNUBG_MATCH_IDS)
def test_gnubg_match_ids(text, info):
    """Match IDs gnubg 1.07 showed for states set by its commands are read and written exactly."""
    assert read_match_id(text) == info
    assert write_match_id(info) == text


# (XGID, gnubg's Position ID and Match ID after `set xgid XGID`). gnubg numbers the side on roll as its
# player 1 and puts the higher die first; we keep XG's bottom player as player 1 and the dice as written,
# so the comparison is of the position and of the fields relative to the side on roll.
GNUBG_XGIDS = [
    ("XGID=-b----E-C---eE---c-e----B-:3:-1:1:15:6:6:0:11:10", "4HPwATDgc/ABMA", "Q4lmAWAAMAAE"),
    ("XGID=baBBAAa-B---aD-a-cAdAaA-a-:2:-1:-1:00:1:5:0:7:10", "tmLwIAmR50QgaA", "UgngABAAKAAE"),
    ("XGID=-baBACC-----cB-B-A-ca-Aad-:0:0:-1:32:2:9:0:11:10", "rDtgJggvOuAANA", "cIlpASAASAAE"),
    ("XGID=-c-FCA--AA--A-a-aA--Aaccc-:1:0:-1:33:0:0:3:0:10", "/C6KIAJ3FyQAOA", "cYkNAAAAAAAA"),
    ("XGID=-EB-a-aA-a--a--bAA---f-cE-:0:0:-1:54:4:2:0:11:10", "3yCAAj7OD4yIBA", "cIlyAUAAEAAE"),
    ("XGID=-CGB-a---ba-----bA---B-de-:0:0:1:25:1:2:0:7:10", "3wMGGgL3NwAQBg", "cInqACAACAAE"),
    ("XGID=-BccF-C-A-aa-aa-A-a-A--Ad-:2:0:1:00:0:2:0:5:10", "D4RSwB3j5wQIEQ", "cgmgACAAAAAE"),
    ("XGID=-G-A--aA----b-Ca--ABaeda--:1:1:-1:63:6:2:0:9:10", "f0LAoQF6XxADAQ", "QQkvAWAAEAAE"),
    ("XGID=--C-a--aaAC-ca---E--A-B-h-:3:1:1:34:1:1:0:7:10", "/wDoUAQO6ICPDA", "UwnuABAACAAE"),
    ("XGID=-BBFAAa----------a--b---k-:3:1:-1:00:2:7:0:11:10", "268AAOD/MAIgAA", "QwlgASAAOAAE"),
    ("XGID=-JAbA-a--A-A-----a-a---eeA:0:0:-1:00:0:0:0:3:10", "/0uQAEDfhwRADA", "cAlgAAAAAAAE"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "4HPwATDgc/ABMA", "cIkKAAAAAAAA"),
]


def _seen_by_roller(info: MatchInfo) -> tuple:
    """The fields of a state that do not depend on which side is called player 0."""
    me = info.player_on_roll
    owner = "centre" if info.cube_owner == CUBE_CENTRED else "roller" if info.cube_owner == me else "other"
    money_rules = (info.jacoby,) if info.money else ()
    return (
        info.cube_value,
        owner,
        info.scores[me],
        info.scores[1 - me],
        tuple(sorted(info.dice)),
        info.match_length,
        info.crawford,
        money_rules,
    )


@pytest.mark.parametrize("xgid, position_id, match_id", GNUBG_XGIDS)
def test_xgid_agrees_with_gnubg(xgid, position_id, match_id):
    """An XGID reads to the position and match state gnubg 1.07's `set xgid` made of it."""
    position, info = read_xgid(xgid)
    gnubg_position, gnubg_info = read_gnubg_id(f"{position_id}:{match_id}")
    assert np.array_equal(position, gnubg_position)
    assert _seen_by_roller(info) == _seen_by_roller(gnubg_info)
    assert write_xgid(position, info) == xgid


# ------------------------------------------------------------------------------------------------
# round trips


def test_position_id_round_trips_on_random_positions():
    """write -> read -> write of the Position ID gives back the position and the text."""
    for position in _backgammon_sample():
        text = write_position_id(position)
        back = read_position_id(text)
        assert np.array_equal(back, position) and write_position_id(back) == text


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_json_round_trips_on_random_positions(game):
    """write -> JSON text -> read of positions of both games gives the same positions."""
    kinds = ("midgame", "bar", "bearoff") if game == "backgammon" else ("opening", "midgame", "bearoff")
    for kind in kinds:
        for position in random_positions(game, 50, seed=4, kind=kind)[0]:
            text = json.dumps(write_json_position(position))
            assert np.array_equal(read_json_position(game, text), position)


def test_match_id_round_trips_on_random_states():
    """write -> read -> write of the Match ID keeps every field it holds, bit 66 (Jacoby) included."""
    for info in _random_infos(400):
        text = write_match_id(info)
        assert len(text) == 12
        assert read_match_id(text) == info and write_match_id(read_match_id(text)) == text


def test_xgid_round_trips_on_random_positions_and_states():
    """write -> read -> write of the XGID keeps the position and every field XG writes."""
    rng = np.random.default_rng(1)
    for position in _backgammon_sample(30):
        length = int(rng.choice([0, 3, 7]))
        doubled = bool(rng.integers(2))
        money = {"jacoby": bool(rng.integers(2)), "beavers": bool(rng.integers(2))}
        info = MatchInfo(
            cube_value=int(2 ** rng.integers(0, 7)),
            cube_owner=int(rng.integers(-1, 2)),
            player_on_roll=int(rng.integers(2)),
            double_offered=doubled,
            dice=(0, 0) if doubled else tuple(int(d) for d in rng.integers(1, 7, 2)),
            match_length=length,
            scores=tuple(int(s) for s in rng.integers(0, max(length, 1), 2)),
            crawford=bool(length and rng.integers(2)),
            max_cube_log2=int(rng.integers(6, 11)),
            **(money if not length else {"jacoby": False}),
        )
        text = write_xgid(position, info)
        back_position, back_info = read_xgid(text)
        assert np.array_equal(back_position, position) and back_info == info
        assert write_xgid(back_position, back_info) == text


def test_gnubg_id_round_trip():
    """The combined PositionID:MatchID reads to the position and state it was written from."""
    position = _backgammon_sample(5)[17]
    info = _random_infos(1, seed=3)[0]
    back_position, back_info = read_gnubg_id(write_gnubg_id(position, info))
    assert np.array_equal(back_position, position) and back_info == info


# ------------------------------------------------------------------------------------------------
# malformed input: one FormatError, a message that names the fault


def _json_with(**changes) -> dict:
    data = json.loads(json.dumps(START_JSON))
    data.update(changes)
    return data


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: read_json_position("backgammon", "{board"), "not JSON"),
        (lambda: read_json_position("backgammon", [1, 2]), "JSON object"),
        (lambda: read_json_position("backgammon", {"bar": [0, 0], "off": [0, 0]}), "missing 'board'"),
        (lambda: read_json_position("backgammon", _json_with(board=[0] * 23)), "24 entries"),
        (lambda: read_json_position("backgammon", _json_with(bar=[0])), "2 entries"),
        (
            lambda: read_json_position("backgammon", _json_with(board=[2.5] + START_JSON["board"][1:])),
            "whole number",
        ),
        (
            lambda: read_json_position("backgammon", _json_with(board=[True] + START_JSON["board"][1:])),
            "whole number",
        ),
        (lambda: read_json_position("backgammon", _json_with(off=[1, 0])), "16 checkers"),
        (lambda: read_json_position("backgammon", _json_with(bar=[-1, 0])), "-1"),
        (lambda: read_json_position("backgammon", _json_with(board=[99] + [0] * 23)), "-15..15"),
        (lambda: read_json_position("nardi", _json_with(bar=[1, 0], off=[0, 0])), "no bar"),
        (lambda: read_position_id("4HPwATDgc/ABM"), "14 characters"),
        (lambda: read_position_id("4HPwATDgc/AB!A"), "A-Z a-z 0-9"),
        (lambda: read_position_id("/////////////w"), "ends before its 50 slots"),
        (lambda: read_position_id("//8AAAAAAAAAAA"), "16 checkers"),
        (lambda: read_position_id("AACABAAAAAAAAA"), "both sides have checkers on the mover's point 1"),
        (lambda: read_position_id("AAAAAAAAABAAAA"), "bits set after its 50 slots"),
        (lambda: read_position_id("4HPwATDgc/ABMB"), "bits beyond"),
        (lambda: read_match_id("QYkqASAAIAA"), "12 characters"),
        (lambda: read_match_id("IAAAAAAAAAAA"), "cube owner 2"),
        (lambda: read_match_id("AAcAAAAAAAAA"), "game state 7"),
        (lambda: read_gnubg_id("4HPwATDgc/ABMA"), "PositionID:MatchID"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0"), "10 fields"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10"), "26 characters"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:3:0:10"), "'Z'"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----P-:0:0:1:52:0:0:3:0:10"), "checkers"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:3:0:10"), "turn"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:3:0:10"), "dice"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:3:0:10"), "beaver"),
        (lambda: read_xgid("XGID=-b----E-C---eE---c-e----B-:x:0:1:52:0:0:3:0:10"), "cube"),
        (lambda: write_match_id(MatchInfo(cube_value=3)), "power of two"),
        (lambda: MatchInfo(dice=(3, 0)), "both"),
        (lambda: write_position_id(np.zeros(28, np.int8)), "has 0 checkers"),
    ],
)
def test_malformed_input_raises_one_clear_format_error(call, fragment):
    """Every reader refuses malformed input with a FormatError (a ValueError) whose line names the fault."""
    with pytest.raises(FormatError) as caught:
        call()
    message = str(caught.value)
    assert fragment in message and "\n" not in message


def _nested(depth: int) -> list:
    """A list nested ``depth`` deep, built without recursion."""
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


XGID_START = "XGID=-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize("game, text", [
    ("backgammon", '{"board":' + "[" * 60000 + "]" * 60000 + "}"),  # issue 43's
    ("nardi", '{"board": [' + "[" * 3000 + "]" * 3000 + "]}"),
    ("backgammon", " " + '{"bar":' + '{"a":' * 5000 + "1" + "}" * 5000 + "}"),
])
def test_deeply_nested_json_is_one_clear_format_error(game, text):
    """JSON nested past what the reader follows is refused as not JSON, in one line, not a RecursionError;
    so is a nested value handed over as an object."""
    with pytest.raises(FormatError, match="nested too deeply"):
        read_position_text(game, text)
    board = [_nested(100_000)] + START_JSON["board"][1:]
    with pytest.raises(FormatError, match=r"board\[0\] must be a whole number") as caught:
        read_json_position("backgammon", {**START_JSON, "board": board})
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize("text, fragment", [
    ("A" * 5000, "14 characters, got 5000"),
    ("4HPwATDgc/ABMA:" + "A" * 5000, "12 characters, got 5000"),
    ("4HPwATDgc/ABMA:" + "!" * 12, "A-Z a-z 0-9"),
    (f"{XGID_START}:{'x' * 5000}:0:1:00:0:0:0:0:10", "XGID cube"),
    ("x:" * 2500, "PositionID:MatchID"),
    (json.dumps({**START_JSON, "board": ["x" * 5000] + START_JSON["board"][1:]}), "board[0] must be a whole number"),
])
def test_a_long_bad_input_is_not_echoed_in_full(text, fragment):
    """A reader names the fault and shows the start of a long bad input, not all 5,000 characters of it."""
    with pytest.raises(FormatError) as caught:
        read_position_text("backgammon", text)
    message = str(caught.value)
    assert fragment in message and "\n" not in message and len(message) < 200, message


# ------------------------------------------------------------------------------------------------
# live check against gnubg itself, when it is installed

GNUBG = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)

_GNUBG_BOARDS = """
import gnubg, json, os
out = open(os.environ["OUT"], "w")
for pid in open(os.environ["IN"]).read().split():
    out.write(json.dumps(gnubg.positionfromid(pid)) + "\\n")
out.close()
"""


@pytest.mark.skipif(GNUBG is None, reason="gnubg is not installed")
def test_position_ids_agree_with_live_gnubg(tmp_path):
    """gnubg's own positionfromid reads our Position IDs to our boards (side not on roll first)."""
    positions = _backgammon_sample(20)
    (tmp_path / "boards.py").write_text(_GNUBG_BOARDS)
    (tmp_path / "ids.txt").write_text("\n".join(write_position_id(p) for p in positions))
    env = dict(os.environ, IN=str(tmp_path / "ids.txt"), OUT=str(tmp_path / "out.jsonl"))
    command = [GNUBG, "-t", "-q", "-r", "-p", str(tmp_path / "boards.py")]
    subprocess.run(command, env=env, capture_output=True, timeout=120, check=False)  # gnubg exits 0 anyway
    boards = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(boards) == len(positions)
    for position, (theirs, ours) in zip(positions, boards):
        opponent = [max(-int(position[24 - p]), 0) for p in range(1, 25)] + [int(position[25])]
        mover = [max(int(v), 0) for v in position[:24]] + [int(position[24])]
        assert (theirs, ours) == (opponent, mover)
