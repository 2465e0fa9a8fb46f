"""Exchange formats (docs/FORMATS.md): our JSON position, gnubg Position ID and Match ID, XGID.

Positions are the engine's (28,) int8 rows in the mover's frame (engine/board.py). The IDs of gnubg
and eXtreme Gammon also carry match and cube state; that is read into ``MatchInfo``, a plain frozen
record of the fields the formats hold, in gnubg's terms (players 0 and 1, player 1 being XG's bottom
player). ``MatchInfo`` and the Match ID are in engine/formats/match_id.py and re-exported here.

The position of an ID is always seen by the side on roll (``MatchInfo.player_on_roll``): gnubg's
Position ID lists the side not on roll first, then the side on roll; an XGID is drawn from the
bottom player's side and is turned to the mover's frame by its ``turn`` field.

Every reader raises ``FormatError`` (a ValueError) with one line that says what is wrong.
``read_position_text`` is the one reader of a position given as text, whatever its form; every entry
point (``python -m engine show``, ``Bot``, hint, rollout) reads positions through it.
"""

from __future__ import annotations

import json
import re

import numpy as np

from engine.board import (
    BAR,
    CHECKERS,
    NUM_SLOTS,
    OFF,
    OPP_BAR,
    OPP_OFF,
    PositionError,
    check_game,
    flip,
    validated_slots,
)
from engine.errors import FormatError
from engine.formats.match_id import (
    CUBE_CENTRED,
    ECHOED,
    MATCH_ID_CHARS,
    GameStatus,
    MatchInfo,
    pack_bits,
    quoted,
    read_match_id,
    unpack_bits,
    write_match_id,
)

# ----------------------------------------------------------------------------------------------
# JSON position


def write_json_position(position: np.ndarray) -> dict:
    """The JSON form of one position: ``{"board": [24 ints], "bar": [mover, opp], "off": [mover, opp]}``."""
    return write_json_positions(np.asarray(position)[None])[0]


def write_json_positions(positions: np.ndarray) -> list[dict]:
    """``write_json_position`` of each row of ``positions`` (N, 28), from one ``tolist`` (the plays of
    a hint: a tenth of the time of one call per play)."""
    rows = np.asarray(positions).tolist()
    return [{"board": row[:24], "bar": [row[BAR], row[OPP_BAR]], "off": [row[OFF], row[OPP_OFF]]} for row in rows]


def _whole_numbers(data: dict, key: str, length: int, low: int, high: int) -> list[int]:
    """data[key] as a list of ``length`` whole numbers in low..high, or FormatError naming the fault."""
    if key not in data:
        raise FormatError(f"missing {key!r}: a position has 'board', 'bar' and 'off'")
    values = data[key]
    if not isinstance(values, list):
        raise FormatError(f"{key!r} must be a list of {length} whole numbers, got {type(values).__name__}")
    if len(values) != length:
        raise FormatError(f"{key!r} must have {length} entries, got {len(values)}")
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, int):
            raise FormatError(f"{key}[{i}] must be a whole number, got {_json_shown(value)}")
        if not low <= value <= high:
            raise FormatError(f"{key}[{i}] must be in {low}..{high}, got {value}")
    return values


def _json_shown(value) -> str:
    """A bad value of a position as an error line shows it: its JSON, cut as ``quoted`` cuts text (a
    value nested too deeply to write: its type)."""
    try:
        text = json.dumps(value)
    except (RecursionError, TypeError, ValueError):
        return type(value).__name__
    return text if len(text) <= ECHOED else f"{text[:ECHOED]}... ({len(text)} characters)"


def load_json(text: str):
    """The value of a JSON text; FormatError with one line for text that is not JSON, is nested too
    deeply to read (the reader's recursion limit, some thousand levels; a position needs two) or holds a
    number too long to read (over 4,300 digits)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise FormatError(f"not JSON: {err.msg} at character {err.pos}") from None
    except RecursionError:
        raise FormatError("not JSON that can be read: nested too deeply (a position is an object of flat "
                          "lists)") from None
    except ValueError:  # a number of more than 4,300 digits: Python's limit of int() on text
        raise FormatError("not JSON that can be read: a number has thousands of digits") from None


def read_json_position(game: str, data: dict | str) -> np.ndarray:
    """One position (28,) int8 from its JSON form (a dict, or the text of one); checked for its game.

    Extra keys are ignored (the command line's lines also carry "dice"); see docs/FORMATS.md for the form.
    """
    check_game(game)
    if isinstance(data, str):
        data = load_json(data)
    if not isinstance(data, dict):
        raise FormatError(
            f"a position is a JSON object with 'board', 'bar' and 'off', got {type(data).__name__}"
        )
    board = _whole_numbers(data, "board", 24, -CHECKERS, CHECKERS)
    bar = _whole_numbers(data, "bar", 2, 0, CHECKERS)
    off = _whole_numbers(data, "off", 2, 0, CHECKERS)
    if game == "nardi" and any(bar):
        raise FormatError(f"long nardi has no bar: 'bar' must be [0, 0], got {bar}")
    position = np.array(board + bar + off, dtype=np.int8)
    return _validated("backgammon" if game == "backgammon" else "nardi", position)


def _validated(game: str, position: np.ndarray) -> np.ndarray:
    """The position if it is valid for ``game``, else FormatError with board.validate's reason."""
    _validated_slots(game, position)
    return position


def _validated_slots(game: str, position: np.ndarray) -> list[int]:
    """board.validated_slots, its PositionError a FormatError."""
    try:
        return validated_slots(game, position)
    except PositionError as err:
        raise FormatError(str(err)) from None


# ----------------------------------------------------------------------------------------------
# gnubg Position ID (backgammon)

POSITION_ID_CHARS = 14

_RUNS = tuple("1" * count + "0" for count in range(16))
"""A slot of ``count`` checkers in a Position ID: a 1-bit per checker, then a 0-bit."""


def write_position_id(position: np.ndarray) -> str:
    """gnubg's 14-character Position ID of a backgammon position (28,) in the mover's frame.

    "For each slot write one 1-bit per checker, then one 0-bit", the side not on roll first, padded
    to 80 bits and packed least-significant first (docs/FORMATS.md).
    """
    slots = _validated_slots("backgammon", position)
    board = slots[:24]
    theirs = [_RUNS[-v] if v < 0 else "0" for v in reversed(board)]  # the side not on roll: their p is our 25 - p
    ours = [_RUNS[v] if v > 0 else "0" for v in board]
    bits = "".join((*theirs, _RUNS[slots[OPP_BAR]], *ours, _RUNS[slots[BAR]]))  # the first bit the lowest
    return pack_bits(int(bits[::-1], 2), 10)


def read_position_id(text: str) -> np.ndarray:
    """The backgammon position (28,) int8, in the frame of the side on roll, of a gnubg Position ID.

    Checkers missing from a side's 15 are borne off.
    """
    value = unpack_bits(text, POSITION_ID_CHARS, 10, "Position ID")
    sides: list[list[int]] = [[], []]
    bit = 0
    for side in sides:
        while len(side) < 25:
            count = 0
            while bit < 80 and value >> bit & 1:
                count, bit = count + 1, bit + 1
            if bit >= 80:
                raise FormatError(f"Position ID {text!r} ends before its 50 slots")
            side.append(count)
            bit += 1
        if sum(side) > CHECKERS:
            who = "side on roll" if side is sides[1] else "side not on roll"
            raise FormatError(
                f"Position ID {text!r}: the {who} has {sum(side)} checkers, more than {CHECKERS}"
            )
    if value >> bit:
        raise FormatError(f"Position ID {text!r} has bits set after its 50 slots")
    opponent, mover = sides
    pos = np.zeros(NUM_SLOTS, dtype=np.int8)
    for p in range(1, 25):
        if mover[p - 1] and opponent[24 - p]:
            raise FormatError(f"Position ID {text!r}: both sides have checkers on the mover's point {p}")
        pos[p - 1] = mover[p - 1] - opponent[24 - p]  # the opponent's point q is our 25-q
    pos[BAR], pos[OPP_BAR] = mover[24], opponent[24]
    pos[OFF], pos[OPP_OFF] = CHECKERS - sum(mover), CHECKERS - sum(opponent)
    return _validated("backgammon", pos)


# ----------------------------------------------------------------------------------------------
# gnubg ID: Position ID and Match ID together


def write_gnubg_id(position: np.ndarray, info: MatchInfo) -> str:
    """gnubg's combined ID, ``PositionID:MatchID`` (what its ``gnubgid`` shows and ``set gnubgid`` reads)."""
    return f"{write_position_id(position)}:{write_match_id(info)}"


def read_gnubg_id(text: str) -> tuple[np.ndarray, MatchInfo]:
    """(position, info) of a ``PositionID:MatchID`` text; the position is seen by info.player_on_roll."""
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise FormatError(f"a gnubg ID is 'PositionID:MatchID', got {quoted(text)}")
    return read_position_id(parts[0]), read_match_id(parts[1])


# ----------------------------------------------------------------------------------------------
# XGID (eXtreme Gammon)

XGID_PREFIX = "XGID="
_XGID_EMPTY = "-"
_BOTTOM, _TOP = 1, 0  # XG's bottom and top players are gnubg's players 1 and 0


def _xgid_char(count: int) -> str:
    """'-' for an empty slot, 'A'..'P' for 1..16 bottom checkers, 'a'..'p' for top checkers (count < 0)."""
    if count == 0:
        return _XGID_EMPTY
    return chr(ord("A") + count - 1) if count > 0 else chr(ord("a") - count - 1)


def _xgid_count(char: str, index: int) -> int:
    if char == _XGID_EMPTY:
        return 0
    if "A" <= char <= "P":
        return ord(char) - ord("A") + 1
    if "a" <= char <= "p":
        return -(ord(char) - ord("a") + 1)
    raise FormatError(f"XGID position character {index} is {char!r}: expected '-', 'A'-'P' or 'a'-'p'")


def _bottom_frame(position: np.ndarray, info: MatchInfo) -> np.ndarray:
    """The position seen by XG's bottom player (it is given seen by info.player_on_roll)."""
    return position if info.player_on_roll == _BOTTOM else flip("backgammon", position)


def write_xgid(position: np.ndarray, info: MatchInfo | None = None) -> str:
    """The XGID of a backgammon position (seen by info.player_on_roll) and its match/cube state.

    ``XGID=<26 characters>:cube:cubepos:turn:dice:score1:score2:rules:matchlen:maxcube``;
    score1 is the bottom player's (1), score2 the top player's (0).
    """
    info = info or MatchInfo(player_on_roll=_BOTTOM)
    bottom = _bottom_frame(_validated("backgammon", np.asarray(position)), info)
    chars = [_xgid_char(-int(bottom[OPP_BAR]))] + [_xgid_char(int(v)) for v in bottom[:24]]
    chars.append(_xgid_char(int(bottom[BAR])))
    cubepos = {CUBE_CENTRED: 0, _BOTTOM: 1, _TOP: -1}[info.cube_owner]
    turn = 1 if info.player_on_roll == _BOTTOM else -1
    if info.double_offered:
        dice = "D"
    else:
        dice = f"{info.dice[0]}{info.dice[1]}"
    if info.match_length:
        rules = int(info.crawford)
    else:
        rules = int(info.jacoby) | int(info.beavers) << 1
    fields = [
        "".join(chars),
        info.cube_value.bit_length() - 1,
        cubepos,
        turn,
        dice,
        info.scores[_BOTTOM],
        info.scores[_TOP],
        rules,
        info.match_length,
        info.max_cube_log2,
    ]
    return XGID_PREFIX + ":".join(str(f) for f in fields)


def _xgid_int(text: str, name: str, low: int, high: int) -> int:
    if not re.fullmatch(r"-?[0-9]+", text):
        raise FormatError(f"XGID {name} must be a whole number, got {quoted(text)}")
    if len(text) > 12:  # past every field's range (and int()'s 4300 digits)
        raise FormatError(f"XGID {name} must be in {low}..{high}, got {quoted(text)}")
    value = int(text)
    if not low <= value <= high:
        raise FormatError(f"XGID {name} must be in {low}..{high}, got {value}")
    return value


def read_xgid(text: str) -> tuple[np.ndarray, MatchInfo]:
    """(position seen by the side on roll, MatchInfo) of an XGID, with or without the ``XGID=`` prefix.

    Dice "D" (a double offered) sets ``double_offered``; XG's "B"/"R" (beaver, raccoon) are refused.
    """
    if not isinstance(text, str):
        raise FormatError(f"an XGID is text, got {type(text).__name__}")
    body = text.strip()
    if body.upper().startswith(XGID_PREFIX):
        body = body[len(XGID_PREFIX) :]
    parts = body.split(":")
    if len(parts) != 10:
        raise FormatError(f"an XGID has 10 fields separated by ':', got {len(parts)} in {quoted(text)}")
    board_text, cube, cubepos, turn, dice, score1, score2, rules, matchlen, maxcube = parts
    if len(board_text) != 26:
        raise FormatError(f"an XGID position has 26 characters, got {len(board_text)}")
    counts = [_xgid_count(c, i) for i, c in enumerate(board_text)]
    if counts[0] > 0:
        raise FormatError("XGID character 0 is the top player's bar: lower-case letters only")
    if counts[25] < 0:
        raise FormatError("XGID character 25 is the bottom player's bar: upper-case letters only")
    bottom = np.zeros(NUM_SLOTS, dtype=np.int16)
    bottom[:24] = counts[1:25]
    bottom[BAR], bottom[OPP_BAR] = counts[25], -counts[0]
    on_board_bottom = int(np.maximum(bottom[:24], 0).sum() + bottom[BAR])
    on_board_top = int(np.maximum(-bottom[:24], 0).sum() + bottom[OPP_BAR])
    for who, n in (("bottom", on_board_bottom), ("top", on_board_top)):
        if n > CHECKERS:
            raise FormatError(f"XGID: the {who} player has {n} checkers, more than {CHECKERS}")
    bottom[OFF], bottom[OPP_OFF] = CHECKERS - on_board_bottom, CHECKERS - on_board_top
    bottom = _validated("backgammon", bottom.astype(np.int8))
    cube_log2 = _xgid_int(cube, "cube", 0, 15)
    owner = {0: CUBE_CENTRED, 1: _BOTTOM, -1: _TOP}[_xgid_int(cubepos, "cubepos", -1, 1)]
    turn_value = _xgid_int(turn, "turn", -1, 1)
    if turn_value == 0:
        raise FormatError("XGID turn must be 1 (bottom on roll) or -1 (top), got 0")
    on_roll = _BOTTOM if turn_value == 1 else _TOP
    double_offered = dice.upper() == "D"
    if dice.upper() in ("B", "R"):
        raise FormatError(f"XGID dice {dice!r} (a beaver or raccoon waiting) is not supported")
    if double_offered:
        rolled = (0, 0)
    elif re.fullmatch(r"[0-6]{2}", dice):
        rolled = (int(dice[0]), int(dice[1]))
    else:
        raise FormatError(f"XGID dice must be '00', 'D' or two dice 1..6, got {quoted(dice)}")
    match_length = _xgid_int(matchlen, "matchlen", 0, (1 << 15) - 1)
    rules_value = _xgid_int(rules, "rules", 0, 3)
    scores = {
        _BOTTOM: _xgid_int(score1, "score1", 0, (1 << 15) - 1),
        _TOP: _xgid_int(score2, "score2", 0, (1 << 15) - 1),
    }
    info = MatchInfo(
        cube_value=1 << cube_log2,
        cube_owner=owner,
        player_on_roll=on_roll,
        crawford=bool(match_length and rules_value & 1),
        double_offered=double_offered,
        dice=rolled,
        match_length=match_length,
        scores=(scores[0], scores[1]),
        jacoby=bool(not match_length and rules_value & 1),
        beavers=bool(not match_length and rules_value & 2),
        max_cube_log2=_xgid_int(maxcube, "maxcube", 0, 15),
    )
    return _bottom_frame(bottom, info), info


__all__ = [
    "CUBE_CENTRED",
    "MATCH_ID_CHARS",
    "FormatError",
    "GameStatus",
    "MatchInfo",
    "load_json",
    "read_gnubg_id",
    "read_json_position",
    "read_match_id",
    "read_position_id",
    "read_xgid",
    "write_gnubg_id",
    "write_json_position",
    "write_match_id",
    "write_position_id",
    "write_xgid",
]


# ----------------------------------------------------------------------------------------------
# any form


def read_position_text(game: str, text: str) -> tuple[np.ndarray, MatchInfo | None]:
    """(position in the mover's frame, MatchInfo or None) of a position in any accepted text form.

    JSON (``{...}``, either game); for backgammon also an XGID (with or without ``XGID=``), a gnubg ID
    (``PositionID:MatchID``) or a bare Position ID. Only the IDs carry cube and match state (a
    MatchInfo); JSON and a bare Position ID give None. FormatError says what is wrong.
    """
    check_game(game)
    if not isinstance(text, str):
        raise FormatError(f"a position is a JSON object, a gnubg ID or an XGID, not {type(text).__name__}")
    text = text.strip()
    if text.startswith("{"):
        return read_json_position(game, text), None
    if game != "backgammon":
        raise FormatError("long nardi positions are given in the JSON form (docs/FORMATS.md)")
    if text.upper().startswith(XGID_PREFIX) or text.count(":") == 9:
        return read_xgid(text)
    if ":" in text:
        return read_gnubg_id(text)
    return read_position_id(text), None
