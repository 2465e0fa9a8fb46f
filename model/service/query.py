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

from engine.board import check_game, validate
from engine.cube_state import CubeOwner
from engine.errors import FormatError
from engine.formats.match_id import cube_owner_code
from engine.formats.position import MatchInfo, read_json_position, read_position_text
from model.players.cube_policy import cube_view


def match_id_owner(owner: str) -> int:
    """The "owner" word of an answer's "cube" entry (engine.cube_state.CubeOwner) as a Match ID's cube
    owner, the side on roll being gnubg's player 0."""
    return cube_owner_code(CubeOwner(owner).seat(0))


def read_position(game: str, position) -> np.ndarray:
    """Any accepted position form -> (28,) int8 in the mover's frame; FormatError with the reason."""
    check_game(game)
    if isinstance(position, np.ndarray):
        pos = position.astype(np.int8)
        try:
            validate(game, pos)
        except ValueError as e:
            raise FormatError(str(e)) from None
        return pos
    if isinstance(position, dict):
        return read_json_position(game, position)
    return read_position_text(game, position)[0]


def read_dice(dice) -> np.ndarray:
    """Two dice 1..6 as an array (2,); FormatError otherwise. Accepts [3, 1], (3, 1), "31", "3-1"."""
    if isinstance(dice, str):
        dice = [int(c) for c in dice if c in "0123456789"]  # not str.isdigit: '²' is a digit to it
    values = list(np.asarray(dice, dtype=object).reshape(-1)) if not np.isscalar(dice) else [dice]
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        raise FormatError(f"dice must be two whole numbers 1..6, got {dice!r}")
    if len(values) != 2 or not all(1 <= v <= 6 for v in values):  # before int64: 10**20 is no die either
        raise FormatError(f"dice must be two numbers 1..6, got {dice!r}")
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
    text = obj["position"] if isinstance(obj["position"], str) else json.dumps(obj["position"])
    return query_of_text(game, text, obj.get("dice", default_dice))


def cube_view_of(pos: np.ndarray, info: MatchInfo | None, met: str | None):
    """The model.cube CubeState of the side on roll: the ID's cube and match state; without one, money
    with a centred cube and gnubg's defaults (Jacoby rule on, beavers allowed)."""
    state = (info or MatchInfo(beavers=True)).resume(pos)
    return cube_view(state, state.mover, met=met)


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
