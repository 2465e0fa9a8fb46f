"""gnubg's Match ID and ``MatchInfo``, the match and cube state that it and an XGID carry (docs/FORMATS.md).

``MatchInfo`` is a plain frozen record of the fields the formats hold, in gnubg's terms (players 0
and 1, player 1 being XG's bottom player). It is data only: ``engine.match`` / ``engine.game`` hold
the live state and its rules; ``MatchInfo.rules_options()`` and ``MatchInfo.crawford_played`` are
the conversions to them. engine/formats/position.py reads and writes the positions that come with it (Position
ID, XGID) and re-exports everything here, so ``from engine.formats.position import MatchInfo`` keeps working.

gnubg's Position ID and Match ID are both bit strings packed least-significant first and written in
base64 without padding (``pack_bits`` / ``unpack_bits``).

Every reader raises ``FormatError`` (a ValueError) with one line that says what is wrong.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from engine.errors import FormatError

CUBE_CENTRED = -1
"""``MatchInfo.cube_owner`` of a cube in the middle."""
ECHOED = 40
"""Characters of a bad input an error line shows (``quoted``): enough to recognise it, never all of a long one."""


def quoted(text) -> str:
    """A piece of bad input as an error line shows it: its ``repr``, cut after ``ECHOED`` characters (with
    its length said) when it is longer."""
    text = str(text)
    if len(text) <= ECHOED:
        return repr(text)
    return f"{text[:ECHOED]!r}... ({len(text)} characters)"


def shortened(text, limit: int = ECHOED) -> str:
    """Text as an error line shows it, without quotes (a value's ``repr``, a message that echoes a bad
    input): cut after ``limit`` characters, with its length said, when it is longer."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class GameStatus(IntEnum):
    """gnubg's game state (Match ID bits 8-10)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


# ----------------------------------------------------------------------------------------------
# bit strings packed least-significant first, base64 without padding (Position ID and Match ID)


def pack_bits(value: int, n_bytes: int) -> str:
    """Bit k of ``value`` goes to byte k//8, bit k%8; base64 of the bytes with the trailing '=' dropped."""
    return base64.b64encode(value.to_bytes(n_bytes, "little")).decode("ascii").rstrip("=")


def unpack_bits(text: str, n_chars: int, n_bytes: int, what: str) -> int:
    """The integer whose bits ``pack_bits`` wrote as ``text``; FormatError if it is no such text."""
    if not isinstance(text, str):
        raise FormatError(f"a {what} is text, got {type(text).__name__}")
    text = text.strip()
    if len(text) != n_chars:
        raise FormatError(f"a {what} has {n_chars} characters, got {len(text)} in {quoted(text)}")
    if not re.fullmatch(r"[A-Za-z0-9+/]+", text):
        raise FormatError(f"a {what} uses only A-Z a-z 0-9 + /, got {text!r}")
    padding = "=" * (-n_chars % 4)
    try:
        raw = base64.b64decode(text + padding, validate=True)
    except binascii.Error as err:
        raise FormatError(f"{text!r} is not a {what}: {err}") from None
    if len(raw) != n_bytes:
        raise FormatError(f"{text!r} is not a {what}: {len(raw)} bytes, not {n_bytes}")
    if pack_bits(int.from_bytes(raw, "little"), n_bytes) != text:  # unused low bits of the last character
        raise FormatError(f"{text!r} is not a {what}: its last character has bits beyond the {n_bytes} bytes")
    return int.from_bytes(raw, "little")


# ----------------------------------------------------------------------------------------------
# match and cube state, gnubg Match ID


def cube_owner_code(seat: int | None) -> int:
    """``MatchInfo.cube_owner`` of the player who owns the cube (None: centred)."""
    return CUBE_CENTRED if seat is None else seat


@dataclass(frozen=True)
class MatchInfo:
    """The match and cube fields of a gnubg Match ID or an XGID, in gnubg's terms.

    Players are 0 and 1 (XG's top player is 0, its bottom player 1, as gnubg's ``set xgid`` reads
    them). The position that comes with it is seen by ``player_on_roll``.
    Conversions: ``engine.match.Rules(match_length=..., **info.rules_options())`` and
    ``MatchState(score=info.scores, crawford_played=info.crawford_played)``; the cube is
    ``cube_value`` owned by ``cube_owner`` (CUBE_CENTRED = -1 for the middle).
    """

    cube_value: int = 1
    """1, 2, 4, ... (Match ID: log2 in 4 bits)."""
    cube_owner: int = CUBE_CENTRED
    """0 or 1 = that player owns the cube, CUBE_CENTRED (-1) = in the middle (``owner_seat`` reads it
    as engine.game does, ``cube_owner_code`` writes it)."""
    player_on_roll: int = 0
    """The side whose turn it is to roll or move (Match ID bit 6); the position is seen by it."""
    crawford: bool = False
    """This game is the Crawford game."""
    game_state: GameStatus = GameStatus.PLAYING
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
        object.__setattr__(self, "game_state", _checked(GameStatus, self.game_state, "game_state"))
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

    def resume(self, position: np.ndarray):
        """The engine.game ``GameState`` of this ID with ``position`` (seen by ``player_on_roll``): the
        rules, score and Crawford game of the match, the cube, the side on roll before its roll (a
        waiting double or thrown dice are not replayed). RuleError (a ValueError) where the rules
        cannot reach this state."""
        from engine import game as g

        match = g.MatchState(g.Rules(**self.rules_options()), score=self.scores,
                             crawford_played=self.crawford_played)
        owner = self.owner_seat
        return g.resume_game(match, position, self.player_on_roll, cube=self.cube_value, cube_owner=owner)

    @classmethod
    def of_state(cls, state) -> MatchInfo:
        """The ID of an engine.game ``GameState`` (backgammon), its position ``state.position`` seen by
        the side on turn (``player_on_roll``): the cube, the score and Crawford game, the money
        options, the dice thrown, a waiting double or resignation. Players are the game's sides."""
        from engine.cube_state import Phase

        match, rules = state.match, state.rules
        return cls(
            cube_value=state.cube,
            cube_owner=cube_owner_code(state.cube_owner),
            player_on_roll=state.mover,
            crawford=match.is_crawford,
            double_offered=state.phase is Phase.TAKE,
            resignation=state.resignation[1] if state.resignation else 0,
            turn=state.to_act if state.to_act is not None else state.mover,
            dice=state.dice if state.phase is Phase.MOVE else (0, 0),
            match_length=match.length,
            scores=match.score,
            jacoby=rules.jacoby,
            beavers=rules.beavers,
        )

    @property
    def owner_seat(self) -> int | None:
        """The player who owns the cube, None while it is centred (engine.game's ``cube_owner``)."""
        return None if self.cube_owner == CUBE_CENTRED else self.cube_owner

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
    if info.cube_owner not in (CUBE_CENTRED, 0, 1):
        return f"cube_owner must be 0, 1 or {CUBE_CENTRED} (centred), got {info.cube_owner}"
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

# (field, first bit, width) of gnubg's Match ID, docs/FORMATS.md's table
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
        "cube_owner": 3 if info.cube_owner == CUBE_CENTRED else info.cube_owner,
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
    return pack_bits(value, 9)


def read_match_id(text: str) -> MatchInfo:
    """The ``MatchInfo`` of a gnubg Match ID (12 characters)."""
    value = unpack_bits(text, MATCH_ID_CHARS, 9, "Match ID")
    f = {name: value >> start & ((1 << width) - 1) for name, start, width in _MATCH_ID_FIELDS}
    if f["cube_owner"] == 2:
        raise FormatError(f"Match ID {text!r}: cube owner 2 (only 0, 1 and 3 = centred exist)")
    if f["game_state"] > max(GameStatus):
        raise FormatError(f"Match ID {text!r}: game state {f['game_state']} (only 0..4 exist)")
    for die in ("die_1", "die_2"):
        if f[die] > 6:
            raise FormatError(f"Match ID {text!r}: a die of {f[die]}")
    try:
        return MatchInfo(
            cube_value=1 << f["cube_log2"],
            cube_owner=CUBE_CENTRED if f["cube_owner"] == 3 else f["cube_owner"],
            player_on_roll=f["player_on_roll"],
            crawford=bool(f["crawford"]),
            game_state=GameStatus(f["game_state"]),
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


__all__ = [
    "CUBE_CENTRED",
    "MATCH_ID_CHARS",
    "GameStatus",
    "MatchInfo",
    "cube_owner_code",
    "pack_bits",
    "quoted",
    "read_match_id",
    "shortened",
    "unpack_bits",
    "write_match_id",
]
