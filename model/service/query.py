"""What every answer is asked about: a position in any form, the dice, the cube and match state.

``read_position`` and ``read_dice`` read what a caller gives (``Bot``'s methods, the command lines,
the web API); ``Query`` holds one question (a position in the mover's frame, the Match ID's or XGID's
cube and match state, the dice or None); ``cube_view_of`` turns its cube and match state into the
model.cube ``CubeState`` of the side on roll, and ``cube_json`` into the "cube" entry of an answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from engine.board import check_game, is_valid, validate
from engine.cube_state import CubeOwner
from engine.errors import FormatError
from engine.formats.match_id import cube_owner_code, shortened
from engine.formats.position import MatchInfo, load_json, quoted, read_json_position, read_position_text
from model.players.cube_policy import cube_view


def match_id_owner(owner: str) -> int:
    """The "owner" word of an answer's "cube" entry (engine.cube_state.CubeOwner) as a Match ID's cube
    owner, the side on roll being gnubg's player 0."""
    return cube_owner_code(CubeOwner(owner).seat(0))


def read_position(game: str, position) -> np.ndarray:
    """Any accepted position form -> (28,) int8 in the mover's frame; FormatError with the reason."""
    return read_position_and_info(game, position)[0]


def _as_int8(position: np.ndarray) -> np.ndarray:
    """An array position as int8; FormatError where an entry is not a whole number int8 holds (a cast
    would wrap 261 to 5, or cut 2.5 to 2, and answer for another position)."""
    with np.errstate(invalid="ignore"):
        pos = position.astype(np.int8)
    if position.dtype != np.int8 and not np.array_equal(pos, position):
        bad = np.asarray(position)[pos != position].flat[0].item()
        raise FormatError(f"a position's entries are whole numbers of checkers, got {bad!r}")
    return pos


def read_position_and_info(game: str, position) -> tuple[np.ndarray, MatchInfo | None]:
    """``read_position``'s position and the cube and match state a text form carries (a Match ID or an
    XGID; None for an array, a JSON form or a bare Position ID)."""
    check_game(game)
    if isinstance(position, np.ndarray):
        pos = _as_int8(position)
        try:
            validate(game, pos)
        except ValueError as e:
            raise FormatError(str(e)) from None
        return pos, None
    if isinstance(position, dict):
        return read_json_position(game, position), None
    return read_position_text(game, position)


BATCH_AT = 8
"""From this many positions on, a batch is read and answered at once (``read_valid_arrays`` here, the
best plays of model/service/hint.py's ``rank_positions``): array operations that cost some 15 to 30 us
whatever the batch, where a position's own way costs 7 to 14 us (``Bot.choose``, one position: 115 us
against 172 at once)."""


def read_valid_arrays(game: str, positions) -> np.ndarray | None:
    """Many positions given as arrays at once (a list or tuple of (28,) arrays, or one (B, 28) array):
    (B, 28) int8 when there are ``BATCH_AT`` or more and every one is a position that
    ``read_position_and_info`` would accept (``engine.board.is_valid``: its checks, for all rows in a
    few array operations); else None, and the caller reads them one at a time (which says what is
    wrong with a bad one)."""
    check_game(game)
    if isinstance(positions, np.ndarray) and positions.ndim == 2 and positions.shape[1] == 28:
        given = positions  # one array of rows: no row to look at one by one
    elif (isinstance(positions, (list, tuple)) and len(positions) >= BATCH_AT
          and all(isinstance(p, np.ndarray) and p.shape == (28,) for p in positions)):
        given = np.stack(positions)
    else:
        return None
    if len(given) < BATCH_AT:
        return None
    with np.errstate(invalid="ignore"):
        pos = given.astype(np.int8)
    exact = given.dtype == np.int8 or np.array_equal(pos, given)
    return pos if exact and is_valid(game, pos).all() else None


def read_dice(dice) -> np.ndarray:
    """Two dice 1..6 as an array (2,); FormatError otherwise. Accepts [3, 1], (3, 1), "31", "3-1"."""
    if type(dice) in (tuple, list) and len(dice) == 2 and all(type(v) is int and 1 <= v <= 6 for v in dice):
        return np.array(dice, dtype=np.int64)  # the common case, at once
    if isinstance(dice, np.ndarray) and dice.shape == (2,) and dice.dtype.kind in "iu":
        values = dice.tolist()
        if 1 <= values[0] <= 6 and 1 <= values[1] <= 6:
            return np.array(values, dtype=np.int64)
    if isinstance(dice, str):
        if len(dice) > 20:  # no way of writing two dice is this long (and it is not echoed whole)
            raise FormatError(f"dice must be two numbers 1..6, got {quoted(dice)}")
        dice = [int(c) for c in dice if c in "0123456789"]  # not str.isdigit: '²' is a digit to it
    values = list(np.asarray(dice, dtype=object).reshape(-1)) if not np.isscalar(dice) else [dice]
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        raise FormatError(f"dice must be two whole numbers 1..6, got {shortened(repr(dice))}")
    if len(values) != 2 or not all(1 <= v <= 6 for v in values):  # before int64: 10**20 is no die either
        raise FormatError(f"dice must be two numbers 1..6, got {shortened(repr(dice))}")  # thousands of digits
    return np.array(values, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Query:
    """One question: a position (mover's frame), its cube/match state, and maybe dice."""

    game: str
    position: np.ndarray
    info: MatchInfo | None
    dice: np.ndarray | None


def dice_of(dice, info: MatchInfo | None) -> np.ndarray | None:
    """The dice given (any form ``read_dice`` reads), else the Match ID's or XGID's, else None."""
    if dice is not None:
        return read_dice(dice)
    if info is not None and info.dice[0]:
        return np.array(info.dice, dtype=np.int64)
    return None


def query_of_text(game: str, text: str, dice=None) -> Query:
    """A position as text (JSON, gnubg Position ID[:Match ID], XGID) and maybe dice -> Query."""
    pos, info = read_position_text(game, text)
    return Query(game, pos, info, dice_of(dice, info))


def query_from_object(game: str, obj, default_dice) -> Query:
    """A --jsonl line or a web request (already parsed) -> Query: a position (text or JSON object), or
    {"position": ..., "dice": ...}; ``default_dice`` when the object names none."""
    if isinstance(obj, str):
        obj = {"position": obj}
    if not isinstance(obj, dict):
        raise FormatError("each line is a position (JSON string or object) or {\"position\": ..., \"dice\": ...}")
    if "board" in obj:
        obj = {"position": obj, "dice": obj.get("dice")}
    if "position" not in obj:
        raise FormatError("missing 'position'")
    position = obj["position"]
    if isinstance(position, dict):  # the JSON form, read as it is (not written out again: it may nest deeply)
        return Query(game, read_json_position(game, position), None, dice_of(obj.get("dice", default_dice), None))
    try:
        text = position if isinstance(position, str) else json.dumps(position)
    except (RecursionError, TypeError, ValueError):  # nested too deeply to write, or no JSON value at all
        raise FormatError(f"a position is a JSON object, a gnubg ID or an XGID, not {type(position).__name__}") from None
    return query_of_text(game, text, obj.get("dice", default_dice))


def query_of_line(game: str, line: str, default_dice) -> Query:
    """A line of ``hint --jsonl`` (JSON text: what ``query_from_object`` reads) -> Query; FormatError
    with one line for a line that is empty, not JSON, nested too deeply to read, or no question."""
    if not line.strip():
        raise FormatError("empty line")
    return query_from_object(game, load_json(line), default_dice)


MONEY_JACOBY = True
MONEY_BEAVERS = True
"""The options of a backgammon money game with the cube when nobody states them: gnubg's defaults,
the Jacoby rule on and beavers allowed. Every door that plays or judges such a game takes them from
here: hint, rollout and ``Bot`` on a position without a Match ID or XGID (``cube_view_of``), the
terminal game without --jacoby/--beavers (``money_rules``), and the Jacoby rule of
model/service/game_turn.py's ``AgentSettings`` for a board that does not carry it (beavers there
only when asked for: a board does not say whether its client allows them). docs/cube-and-match-play.md
lists every door."""


def money_rules(game: str, match_length: int, cube: bool, jacoby: bool | None = None,
                beavers: bool | None = None) -> dict:
    """engine.match.Rules' ``jacoby`` and ``beavers``: each as stated, or when not stated (None)
    ``MONEY_JACOBY`` and ``MONEY_BEAVERS`` in a backgammon money game with the cube, and off where
    there is no such game (a match, long nardi, no cube; Rules refuses them there when stated)."""
    money = game == "backgammon" and match_length == 0 and cube
    return {"jacoby": (MONEY_JACOBY and money) if jacoby is None else jacoby,
            "beavers": (MONEY_BEAVERS and money) if beavers is None else beavers}


_MONEY_VIEWS: dict = {}
"""``met`` -> the view of a position without an ID: the same (frozen) CubeState for every position."""


def cube_view_of(pos: np.ndarray, info: MatchInfo | None, met: str | None):
    """The model.cube CubeState of the side on roll: the ID's cube and match state; without one, money
    with a centred cube and the unstated money options (``MONEY_JACOBY``, ``MONEY_BEAVERS``), made
    once (``pos``, which a query has validated, does not enter it)."""
    if info is None and met in _MONEY_VIEWS:
        return _MONEY_VIEWS[met]
    state = (info or MatchInfo(jacoby=MONEY_JACOBY, beavers=MONEY_BEAVERS)).resume(pos)
    view = cube_view(state, state.mover, met=met)
    if info is None:
        _MONEY_VIEWS[met] = view
    return view


def cube_json(view) -> dict:
    """The "cube" entry of an answer: a model.cube CubeState of the side on roll as JSON."""
    return {"value": view.value, "owner": view.owner, "match_length": view.match_length,
            "score": [view.score_me, view.score_opp], "crawford": view.crawford,
            "jacoby": view.jacoby, "beavers": view.beavers}


def picture_state(cube: dict | None) -> dict:
    """engine/formats/svg.py's keywords for the cube and the match or money state of an answer's
    "cube" entry (None, as in long nardi: nothing to draw)."""
    if cube is None:
        return {}
    state = {"cube": (cube["value"], CubeOwner(cube["owner"])),
             "score": (*cube["score"], cube["match_length"]), "crawford": cube["crawford"]}
    if not cube["match_length"]:
        state.update(jacoby=cube["jacoby"], beavers=cube["beavers"])
    return state
