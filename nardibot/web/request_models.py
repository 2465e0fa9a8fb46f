"""The requests of the HTTP API (nardibot/web/app.py): the models of the JSON bodies (a GET's query
parameters are read by the same ones), the service's Query of a position request, and the one line a
request that does not fit its model is refused with.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.formats.match_id import quoted
from model.service.hint import HintSettings
from model.service.query import Query, query_from_object
from model.service.rollout_settings import RolloutSettings

ROLLOUT_TRIALS = 324
"""Trials per candidate of a rollout job when the request names none (fewer than the command line's
default: a page waits for it)."""
ROLLOUT_BATCH = {0: None, 1: 16, 2: 1}
"""Trials in play at once in a rollout job, by ply (None: the rollout's own 256). Each ply of a trial
looks ahead from every roll's best plays at once: some 400 positions a play at 1 ply, 8,000 at 2 (the
3-1 opening's plays, 256 trials in play: over 2 GB at 1 ply, past 5.5 GB at 2 before a trial was
done); 16 and 1 stay near 200 MB and play as many trials a second. A job's numbers are those of
``nardibot rollout --ply N --batch B --processes 1``: both run every compiled kernel where numba is
installed (engine/compiled.py's ``every_kernel``; a job in its own thread only)."""
Game = Literal["backgammon", "nardi"]


class PositionIn(BaseModel):
    """A position as hint reads it: JSON (object or text), gnubg Position ID[:Match ID] or XGID."""

    model_config = ConfigDict(extra="forbid")
    position: str | dict = Field(description="gnubg Position ID[:Match ID], XGID=..., or the JSON form")
    game: Game = "backgammon"
    ply: int = Field(HintSettings.ply, ge=0, le=2, description="look-ahead depth")


class HintIn(PositionIn):
    dice: str | list[int] | None = Field(None, description="e.g. 31, 3-1 or [3, 1]; default: the ID's dice")


class BoardIn(HintIn):
    play: str | None = Field(None, description="a play of the dice to mark, in notation")


class RolloutIn(HintIn):
    trials: int = Field(ROLLOUT_TRIALS, ge=2, le=100_000)
    truncate: int = Field(RolloutSettings.truncate, ge=0, le=10_000, description="plies per trial; 0 plays out")
    seed: int = Field(RolloutSettings.seed, ge=0, le=2**31 - 1)
    plays: str | list[str] = Field(RolloutSettings.plays, description="'filter', 'all' or plays in notation")
    cubeful: bool | None = Field(None, description="with dice: the cube in play; without: the cube decision")

    def settings(self, dice) -> RolloutSettings:
        """The rollout's settings (model/service/rollout_answer.py), in this process; ``cubeful`` not
        given: the cube in play whenever there is one (backgammon)."""
        cubeful = self.cubeful if dice is not None else (self.cubeful is not False)
        return RolloutSettings(trials=self.trials, truncate=self.truncate, ply=self.ply, seed=self.seed,
                               plays=self.plays, cubeful=cubeful, processes=1, batch=ROLLOUT_BATCH[self.ply])


class NewGameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: Game = "backgammon"
    match_length: int = Field(0, ge=0, le=25, description="0: money play")
    cube: bool = True
    jacoby: bool | None = Field(None, description="money play: gammons count single while the cube is centred "
                                                  "(default: on in a backgammon money game with the cube, as play)")
    beavers: bool | None = Field(None, description="money play: a doubled side may redouble at once, keeping the "
                                                   "cube (default: on in a backgammon money game with the cube, as play)")
    automatic_doubles: int = Field(0, ge=0, le=6, description="money play: opening ties double the cube, at most N times")
    seed: int | None = Field(None, ge=0, le=2**31 - 1)


class ActionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Literal["roll", "double", "take", "drop", "beaver", "accept", "reject", "resign", "next"]
    level: int = Field(1, ge=1, le=3, description="resign: 1 single, 2 gammon/mars, 3 backgammon")


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: list[tuple[int, int]] | None = Field(None, max_length=8, description="[[source, destination], ...]")
    move: str | None = Field(None, max_length=200, description="the whole play in notation")


def request_query(req: HintIn, with_dice: bool = True) -> Query:
    """The service's Query of a request (model/service/query.py reads the position and the dice)."""
    query = query_from_object(req.game, {"position": req.position, "dice": req.dice if with_dice else None}, None)
    return query if with_dice else replace(query, dice=None)


UNION_FIELDS = {"position": "must be text (a gnubg ID, an XGID or JSON) or a JSON object",
                "dice": "must be text such as 31 or 3-1, or a list of two numbers 1..6",
                "plays": "must be 'filter', 'all' or a list of plays in notation"}
"""The one message of a field that takes several forms (pydantic would name each form it tried)."""


MAX_ERROR = 300
"""Characters of an error line at most: the readers show only the start of a long bad input
(engine/formats/match_id.py's ``quoted``); this cut is for any message that still echoes one whole."""


def error_line(text: str) -> str:
    """The one line a refusal answers: the message's first line, cut after ``MAX_ERROR`` characters."""
    line = (text.splitlines() or ["bad request"])[0]
    return line if len(line) <= MAX_ERROR else f"{line[:MAX_ERROR]}... ({len(line)} characters)"


def schema_error_line(err: ValidationError | RequestValidationError) -> str:
    """The first problem of a request that does not fit its schema, in one line."""
    first = err.errors()[0]
    if first.get("type") == "json_invalid":
        return "the body is not JSON"
    loc = [part for part in first.get("loc", ()) if part not in ("body", "query")]
    if not loc:
        return first.get("msg", "invalid request")
    field, rest = str(loc[0]), [str(p) for p in loc[1:] if isinstance(p, int)]
    if field in UNION_FIELDS and first.get("type") != "missing":
        return f"{field} {UNION_FIELDS[field]}"
    if not field.isidentifier() or len(field) > 40:  # an unknown field's name as sent: a line end, 50 KB...
        field = quoted(field)
    return f"{'.'.join([field, *rest])}: {first.get('msg', 'invalid')}"
