"""Exchange formats (shared/FORMATS.md): our JSON position, gnubg Position ID and Match ID, XGID.

Positions are the engine's (28,) int8 rows in the mover's frame (engine/board.py). The IDs of gnubg
and eXtreme Gammon also carry match and cube state; that is read into ``MatchInfo``, a plain frozen
record of the fields the formats hold, in gnubg's terms (players 0 and 1, player 1 being XG's bottom
player). It is data only: ``engine.match`` / ``engine.game`` hold the live state and its rules;
``MatchInfo.rules_options()`` and ``MatchInfo.crawford_played`` are the conversions to them.

The position of an ID is always seen by the side on roll (``MatchInfo.player_on_roll``): gnubg's
Position ID lists the side not on roll first, then the side on roll; an XGID is drawn from the
bottom player's side and is turned to the mover's frame by its ``turn`` field.

Every reader raises ``FormatError`` (a ValueError) with one line that says what is wrong.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .board import BAR, CHECKERS, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF, PositionError, check_game, flip, validate
from .errors import FormatError

CENTRED = -1
"""``MatchInfo.cube_owner`` of a cube in the middle."""


class GameState(IntEnum):
    """gnubg's game state (Match ID bits 8-10)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


# ----------------------------------------------------------------------------------------------
# JSON position


def write_json_position(position: np.ndarray) -> dict:
    """The JSON form of one position: ``{"board": [24 ints], "bar": [mover, opp], "off": [mover, opp]}``."""
    pos = np.asarray(position)
    return {
        "board": [int(v) for v in pos[:24]],
        "bar": [int(pos[BAR]), int(pos[OPP_BAR])],
        "off": [int(pos[OFF]), int(pos[OPP_OFF])],
    }


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
            raise FormatError(f"{key}[{i}] must be a whole number, got {json.dumps(value)}")
        if not low <= value <= high:
            raise FormatError(f"{key}[{i}] must be in {low}..{high}, got {value}")
    return values


def read_json_position(game: str, data: dict | str) -> np.ndarray:
    """One position (28,) int8 from its JSON form (a dict, or the text of one); checked for its game.

    Extra keys are ignored (the command line's lines also carry "dice"); see FORMATS.md for the form.
    """
    check_game(game)
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as err:
            raise FormatError(f"not JSON: {err.msg} at character {err.pos}") from None
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
    try:
        validate(game, position)
    except PositionError as err:
        raise FormatError(str(err)) from None
    return position


# ----------------------------------------------------------------------------------------------
# bit strings packed least-significant first, base64 without padding (Position ID and Match ID)


def _pack(value: int, n_bytes: int) -> str:
    """Bit k of ``value`` goes to byte k//8, bit k%8; base64 of the bytes with the trailing '=' dropped."""
    return base64.b64encode(value.to_bytes(n_bytes, "little")).decode("ascii").rstrip("=")


def _unpack(text: str, n_chars: int, n_bytes: int, what: str) -> int:
    """The integer whose bits ``_pack`` wrote as ``text``; FormatError if it is no such text."""
    if not isinstance(text, str):
        raise FormatError(f"a {what} is text, got {type(text).__name__}")
    text = text.strip()
    if len(text) != n_chars:
        raise FormatError(f"a {what} has {n_chars} characters, got {len(text)} in {text!r}")
    if not re.fullmatch(r"[A-Za-z0-9+/]+", text):
        raise FormatError(f"a {what} uses only A-Z a-z 0-9 + /, got {text!r}")
    padding = "=" * (-n_chars % 4)
    try:
        raw = base64.b64decode(text + padding, validate=True)
    except binascii.Error as err:
        raise FormatError(f"{text!r} is not a {what}: {err}") from None
    if len(raw) != n_bytes:
        raise FormatError(f"{text!r} is not a {what}: {len(raw)} bytes, not {n_bytes}")
    if _pack(int.from_bytes(raw, "little"), n_bytes) != text:  # unused low bits of the last character
        raise FormatError(f"{text!r} is not a {what}: its last character has bits beyond the {n_bytes} bytes")
    return int.from_bytes(raw, "little")


# ----------------------------------------------------------------------------------------------
# gnubg Position ID (backgammon)

POSITION_ID_CHARS = 14


def _id_sides(position: np.ndarray) -> list[list[int]]:
    """The two sides of a Position ID, 25 counts each in the side's own numbering (points 1..24, bar):
    the side not on roll first, then the side on roll."""
    pos = np.asarray(position).astype(int)
    board = pos[:24]
    opponent = [max(-int(board[24 - p]), 0) for p in range(1, 25)] + [int(pos[OPP_BAR])]
    mover = [max(int(v), 0) for v in board] + [int(pos[BAR])]
    return [opponent, mover]


def write_position_id(position: np.ndarray) -> str:
    """gnubg's 14-character Position ID of a backgammon position (28,) in the mover's frame.

    "For each slot write one 1-bit per checker, then one 0-bit", the side not on roll first, padded
    to 80 bits and packed least-significant first (FORMATS.md).
    """
    position = _validated("backgammon", np.asarray(position))
    value, k = 0, 0
    for side in _id_sides(position):
        for count in side:
            value |= ((1 << count) - 1) << k
            k += count + 1
    return _pack(value, 10)


def read_position_id(text: str) -> np.ndarray:
    """The backgammon position (28,) int8, in the frame of the side on roll, of a gnubg Position ID.

    Checkers missing from a side's 15 are borne off.
    """
    value = _unpack(text, POSITION_ID_CHARS, 10, "Position ID")
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
# match and cube state, gnubg Match ID


@dataclass(frozen=True)
class MatchInfo:
    """The match and cube fields of a gnubg Match ID or an XGID, in gnubg's terms.

    Players are 0 and 1 (XG's top player is 0, its bottom player 1, as gnubg's ``set xgid`` reads
    them). The position that comes with it is seen by ``player_on_roll``.
    Conversions: ``engine.match.Rules(match_length=..., **info.rules_options())`` and
    ``MatchState(score=info.scores, crawford_played=info.crawford_played)``; the cube is
    ``cube_value`` owned by ``cube_owner`` (CENTRED = -1 for the middle).
    """

    cube_value: int = 1
    """1, 2, 4, ... (Match ID: log2 in 4 bits)."""
    cube_owner: int = CENTRED
    """0 or 1 = that player owns the cube, CENTRED (-1) = in the middle."""
    player_on_roll: int = 0
    """The side whose turn it is to roll or move (Match ID bit 6); the position is seen by it."""
    crawford: bool = False
    """This game is the Crawford game."""
    game_state: GameState = GameState.PLAYING
    """gnubg's game state; an XGID always means PLAYING."""
    turn: int | None = None
    """The side that must decide now (bit 11); None = worked out: the other side while a double or
    a resignation waits for an answer, else player_on_roll."""
    double_offered: bool = False
    """player_on_roll has doubled and ``turn`` must take or drop."""
    resignation: int = 0
    """Resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon."""
    dice: tuple[int, int] = (0, 0)
    """The dice rolled by player_on_roll, (0, 0) when not rolled yet."""
    match_length: int = 0
    """Points to win the match; 0 = money play."""
    scores: tuple[int, int] = (0, 0)
    """Player 0's and player 1's scores."""
    jacoby: bool = True
    """The Jacoby rule is in force (gnubg's default; Match ID bit 66 clear, XGID money rules bit 0)."""
    beavers: bool = False
    """Beavers allowed (XGID money rules bit 1 only; a Match ID does not carry it)."""
    max_cube_log2: int = 10
    """XGID's maxcube field (log2 of the highest cube), read and kept; a Match ID does not carry it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(self, "scores", tuple(self.scores))
        object.__setattr__(self, "game_state", _checked(GameState, self.game_state, "game_state"))
        if self.turn is None:
            waiting = self.double_offered or self.resignation
            object.__setattr__(self, "turn", 1 - self.player_on_roll if waiting else self.player_on_roll)
        reason = _match_info_refusal(self)
        if reason:
            raise FormatError(reason)

    @property
    def money(self) -> bool:
        """True in money play (no match length)."""
        return self.match_length == 0

    @property
    def crawford_played(self) -> bool:
        """For ``engine.match.MatchState``: a side is at L-1 and this is not the Crawford game."""
        return self.match_length > 1 and max(self.scores) == self.match_length - 1 and not self.crawford

    def rules_options(self) -> dict:
        """Keyword options for ``engine.match.Rules``: Jacoby and beavers are money-play options."""
        money = self.money
        return {
            "match_length": self.match_length,
            "jacoby": self.jacoby and money,
            "beavers": self.beavers and money,
        }


def _checked(kind, value, name):
    try:
        return kind(value)
    except ValueError:
        raise FormatError(f"{name} must be one of {[int(v) for v in kind]}, got {value!r}") from None


def _is_whole(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _match_info_refusal(info: MatchInfo) -> str | None:
    """Why ``info`` cannot be written in the formats (a field out of its range), or None."""
    wholes = {
        "cube_value": info.cube_value,
        "cube_owner": info.cube_owner,
        "player_on_roll": info.player_on_roll,
        "turn": info.turn,
        "resignation": info.resignation,
        "match_length": info.match_length,
        "max_cube_log2": info.max_cube_log2,
    }
    for name, value in wholes.items():
        if not _is_whole(value):
            return f"{name} must be a whole number, got {value!r}"
    if info.cube_value < 1 or info.cube_value & (info.cube_value - 1) or info.cube_value > 1 << 15:
        return f"cube_value must be a power of two from 1 to {1 << 15}, got {info.cube_value}"
    if info.cube_owner not in (CENTRED, 0, 1):
        return f"cube_owner must be 0, 1 or {CENTRED} (centred), got {info.cube_owner}"
    if info.player_on_roll not in (0, 1) or info.turn not in (0, 1):
        return f"player_on_roll and turn must be 0 or 1, got {info.player_on_roll} and {info.turn}"
    if info.resignation not in (0, 1, 2, 3):
        return f"resignation must be 0 (none), 1, 2 or 3, got {info.resignation}"
    if len(info.dice) != 2 or not all(_is_whole(d) and 0 <= d <= 6 for d in info.dice):
        return f"dice must be two numbers 1..6, or (0, 0) before the roll, got {info.dice!r}"
    if (info.dice[0] == 0) != (info.dice[1] == 0):
        return f"dice must both be rolled or both be 0, got {info.dice!r}"
    if not 0 <= info.match_length < 1 << 15:
        return f"match_length must be in 0..{(1 << 15) - 1}, got {info.match_length}"
    if len(info.scores) != 2 or not all(_is_whole(s) and 0 <= s < 1 << 15 for s in info.scores):
        return f"scores must be two numbers in 0..{(1 << 15) - 1}, got {info.scores!r}"
    return None


MATCH_ID_CHARS = 12

# (field, first bit, width) of gnubg's Match ID, FORMATS.md's table
_MATCH_ID_FIELDS = (
    ("cube_log2", 0, 4),
    ("cube_owner", 4, 2),
    ("player_on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("double_offered", 12, 1),
    ("resignation", 13, 2),
    ("die_1", 15, 3),
    ("die_2", 18, 3),
    ("match_length", 21, 15),
    ("score_0", 36, 15),
    ("score_1", 51, 15),
    ("no_jacoby", 66, 1),
)


def write_match_id(info: MatchInfo) -> str:
    """gnubg's 12-character Match ID of ``info`` (beavers and max_cube_log2 are not in it)."""
    fields = {
        "cube_log2": info.cube_value.bit_length() - 1,
        "cube_owner": 3 if info.cube_owner == CENTRED else info.cube_owner,
        "player_on_roll": info.player_on_roll,
        "crawford": int(info.crawford),
        "game_state": int(info.game_state),
        "turn": info.turn,
        "double_offered": int(info.double_offered),
        "resignation": info.resignation,
        "die_1": info.dice[0],
        "die_2": info.dice[1],
        "match_length": info.match_length,
        "score_0": info.scores[0],
        "score_1": info.scores[1],
        "no_jacoby": int(not info.jacoby),
    }
    value = 0
    for name, start, width in _MATCH_ID_FIELDS:
        value |= (fields[name] & ((1 << width) - 1)) << start
    return _pack(value, 9)


def read_match_id(text: str) -> MatchInfo:
    """The ``MatchInfo`` of a gnubg Match ID (12 characters)."""
    value = _unpack(text, MATCH_ID_CHARS, 9, "Match ID")
    f = {name: value >> start & ((1 << width) - 1) for name, start, width in _MATCH_ID_FIELDS}
    if f["cube_owner"] == 2:
        raise FormatError(f"Match ID {text!r}: cube owner 2 (only 0, 1 and 3 = centred exist)")
    if f["game_state"] > max(GameState):
        raise FormatError(f"Match ID {text!r}: game state {f['game_state']} (only 0..4 exist)")
    for die in ("die_1", "die_2"):
        if f[die] > 6:
            raise FormatError(f"Match ID {text!r}: a die of {f[die]}")
    try:
        return MatchInfo(
            cube_value=1 << f["cube_log2"],
            cube_owner=CENTRED if f["cube_owner"] == 3 else f["cube_owner"],
            player_on_roll=f["player_on_roll"],
            crawford=bool(f["crawford"]),
            game_state=GameState(f["game_state"]),
            turn=f["turn"],
            double_offered=bool(f["double_offered"]),
            resignation=f["resignation"],
            dice=(f["die_1"], f["die_2"]),
            match_length=f["match_length"],
            scores=(f["score_0"], f["score_1"]),
            jacoby=not f["no_jacoby"],
        )
    except FormatError as err:
        raise FormatError(f"Match ID {text!r}: {err}") from None


def write_gnubg_id(position: np.ndarray, info: MatchInfo) -> str:
    """gnubg's combined ID, ``PositionID:MatchID`` (what its ``gnubgid`` shows and ``set gnubgid`` reads)."""
    return f"{write_position_id(position)}:{write_match_id(info)}"


def read_gnubg_id(text: str) -> tuple[np.ndarray, MatchInfo]:
    """(position, info) of a ``PositionID:MatchID`` text; the position is seen by info.player_on_roll."""
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise FormatError(f"a gnubg ID is 'PositionID:MatchID', got {text!r}")
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
    cubepos = {CENTRED: 0, _BOTTOM: 1, _TOP: -1}[info.cube_owner]
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
        raise FormatError(f"XGID {name} must be a whole number, got {text!r}")
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
        raise FormatError(f"an XGID has 10 fields separated by ':', got {len(parts)} in {text!r}")
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
    owner = {0: CENTRED, 1: _BOTTOM, -1: _TOP}[_xgid_int(cubepos, "cubepos", -1, 1)]
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
        raise FormatError(f"XGID dice must be '00', 'D' or two dice 1..6, got {dice!r}")
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
    "CENTRED",
    "FormatError",
    "GameState",
    "MatchInfo",
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
