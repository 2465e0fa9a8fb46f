"""Drop-in endpoints of two other bots' HTTP APIs, so that game servers and programs written for them
can ask nardibot instead: the same paths, parameters and JSON shapes, nardibot's answers.

    GET  /move              wildbg: the legal plays of die1-die2 from the pips p0..p25, best first
    GET  /eval              wildbg: the probabilities and cube decision of the pips
    POST /api/v1/getmoves   bgweb-api: the plays of a board given as two CheckerLayouts, best first

The shapes are those the originals document (names, fields and examples are facts of their APIs; no
code is taken): wildbg's OpenAPI, its crates/web/src/web_api.rs and axum.rs (commit 1ad2c0b, December
2025), and bgweb-api's api/openapi.yaml and README (commit 57fe515, May 2022).

Every answer is /api/hint's (model/service/hint.py ``hint``, ``cube_hint``; the question read by
model/service/query.py from our JSON form), at ``PLY``, the plays in its order: cubeful money equity
with the cube centred; wildbg's 1-pointer (x_away = o_away = 1) the match-winning chance of a 1-point
match; bgweb-api's ``"cubeful": false`` the cubeless money equity. This module only converts shapes.

Sides and points. wildbg: x is the side on roll, moving from 24 to 1; p1..p24 hold x's checkers
(positive) and o's (negative) on x's points, p25 is x's bar (0 or more), p0 o's bar (0 or less);
checkers not given are borne off; a play is single steps {from, to}, 25 the bar and 0 off, one per
die used; no legal play is one move with an empty play. bgweb-api: each side's checkers in its own
numbering (x's point p is o's 25-p), "bar" its bar; ``player`` is the side on roll, and the plays are
in its numbering, "bar" and "off" as words.

Refusals are both originals' error body, 400 {"message": "..."} (``Refusals``): wildbg's own messages
where it has them (bad dice, more than 15 checkers, a checker on the wrong bar, unsupported scores),
and for a request that does not fit the parameters, or a position the rules refuse, the reason. The
app's guards (nardibot/web/guard.py, the body limit) still come first, with their {"error": ...}.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field, create_model

from engine.board import CHECKERS
from engine.errors import FormatError
from engine.formats.match_id import MatchInfo
from model.service.hint import HintSettings, cube_hint, hint
from model.service.query import query_from_object

PLY = 0
"""Look-ahead of every answer here: /api/hint's default (neither original API takes a depth)."""
MAX_MESSAGE = 300
"""Characters of a refusal's message at most (as nardibot/web/request_models.py cuts the API's)."""
BAR, OFF = 25, 0
"""A step's source on the bar and destination off the board, in the mover's numbers."""
WILDBG_PROBS = {"win": "win", "winG": "win_gammon", "winBg": "win_backgammon", "loseG": "lose_gammon",
                "loseBg": "lose_backgammon"}
"""wildbg's probability names -> hint's (both cumulative as in gnubg: win counts gammons, ...)."""
BGWEB_PROBS = {"win": "win", "winG": "win_gammon", "winBG": "win_backgammon", "lose": None, "loseG": "lose_gammon",
               "loseBG": "lose_backgammon"}
"""bgweb-api's probability names -> hint's, in its order; its "lose" (None here) is 1 - win."""
STARTING_PIPS = {24: 2, 19: -5, 17: -3, 13: 5, 12: -5, 8: 3, 6: 5, 1: -2}
"""The opening in wildbg's pips: the example of its OpenAPI page."""


# ---------------------------------------------------------------------------------------------------
# refusals


class ErrorMessage(BaseModel):
    """A refused request: 400 and one line (wildbg's ErrorMessage; bgweb-api's echo error body)."""

    message: str = Field(examples=["Player x has more than 15 checkers on the board."])


def refusal(text: str, status: int = 400) -> JSONResponse:
    line = (text.splitlines() or ["bad request"])[0]
    return JSONResponse({"message": line[:MAX_MESSAGE]}, status_code=status)


def _first_problem(err: RequestValidationError) -> str:
    """The first problem of a request that does not fit its parameters or body, in one line."""
    first = err.errors()[0]
    if first.get("type") == "json_invalid":
        return "the body is not JSON"
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "query"))
    return f"{where}: {first.get('msg', 'invalid')}" if where else first.get("msg", "invalid request")


class Refusals(APIRoute):
    """A route whose refusals are 400 {"message": ...}: a request that does not fit its parameters, and
    a position, dice or score the readers or the rules refuse (ValueError: FormatError, RuleError);
    and 403 for a request another site's page made the browser send (Sec-Fetch-Site: cross-site)."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def answer(request: Request):
            if request.headers.get("sec-fetch-site") == "cross-site":  # as guard.py refuses it under /api/
                return refusal("a request made by another site's page is refused", 403)
            try:
                return await handler(request)
            except RequestValidationError as err:
                return refusal(_first_problem(err))
            except ValueError as err:
                return refusal(str(err) or type(err).__name__)

        return answer


REFUSED = {400: {"model": ErrorMessage, "description": "The parameters are no legal position, dice or score"},
           "4XX": {"description": "Refused by the server's guards before it is read (nardibot/web/guard.py: "
                                  "a Host not served 400, another site's page 403, a body over the limit 413, "
                                  "a body not JSON 415), as {\"error\": ...}; another site's page asking "
                                  "/move or /eval: 403 {\"message\": ...}"}}
"""The refusals documented on every route here (the "4XX" entry stands for FastAPI's 422, never sent)."""
router = APIRouter(route_class=Refusals, responses=REFUSED)


# ---------------------------------------------------------------------------------------------------
# the plays of a question, as /api/hint ranks them


def _ranked(request: Request, question, settings: HintSettings) -> tuple[list[dict], list[list[tuple[int, int]]]]:
    """/api/hint's plays of the question, best first, and each play's single steps (source,
    destination) in the mover's numbers (``BAR``, ``OFF``), one per die, as the move generator took them."""
    answer = hint(request.app.state.shelf.get("backgammon"), question, settings, steps=True)
    return answer["plays"], [[tuple(step) for step in play.pop("steps")] for play in answer["plays"]]


def _question(position: dict, dice):
    """The service's question of a position in our JSON form and the dice (or None)."""
    return query_from_object("backgammon", {"position": position, "dice": dice}, None)


# ---------------------------------------------------------------------------------------------------
# wildbg: GET /move, GET /eval


def _pip(point: int):
    low, high = (-CHECKERS, 0) if point == 0 else (0, CHECKERS) if point == BAR else (-CHECKERS, CHECKERS)
    about = ("Bar of the opponent o: its checkers there, as a negative number (left out: none)" if point == 0 else
             "Bar of x, the player on roll: its checkers there (left out: none)" if point == BAR else
             f"Point {point} counted from x, which moves from 24 to 1 (1..6: x's home board): x's checkers "
             "positive, o's negative (left out: none)")
    example = {"examples": [STARTING_PIPS[point]]} if point in STARTING_PIPS else {}
    return int | None, Field(None, description=about,
                             json_schema_extra={"minimum": low, "maximum": high}, **example)


def _die(example: int):
    return int, Field(description="One die, 1..6", json_schema_extra={"minimum": 1, "maximum": 6}, examples=[example])


def _away(player: str):
    return int | None, Field(None, ge=0, examples=[0], description=(
        f"Points {player} needs to win: 0 (or both left out) for a money game, both 1 for a 1-pointer, "
        "the scores wildbg supports"))


_PIPS = {f"p{point}": _pip(point) for point in range(26)}
EvalParams = create_model("EvalParams", **_PIPS)
MoveParams = create_model("MoveParams", die1=_die(3), die2=_die(1), x_away=_away("x, the player on roll,"),
                          o_away=_away("the opponent o"), **_PIPS)


class Probabilities(BaseModel):
    """Outcome chances of x, cumulative as in gnubg: win counts gammons and backgammons, winG
    backgammons; lose is 1 - win."""

    win: float
    winG: float
    winBg: float
    loseG: float
    loseBg: float


class MoveDetail(BaseModel):
    """One checker moved by one die, from the higher point to the lower: 25 is the bar, 0 off."""

    from_: int = Field(alias="from", ge=1, le=25)
    to: int = Field(ge=0, le=24)


class MoveInfo(BaseModel):
    """A legal play: 0 to 4 single steps (none when no die can be played), and x's chances after it."""

    play: list[MoveDetail]
    probabilities: Probabilities


class MoveResponse(BaseModel):
    """The legal plays, best first; exactly one, with an empty play, when no checker can move."""

    moves: list[MoveInfo]


class CubeInfo(BaseModel):
    """The cube decision: ``double`` whether x should double now, ``accept`` whether o should take."""

    double: bool
    accept: bool


class EvalResponse(BaseModel):
    cube: CubeInfo
    probabilities: Probabilities


def _wildbg_position(params) -> dict:
    """wildbg's pips as our JSON form (x on roll; its points are x's), refused with wildbg's messages
    (its Position's TryFrom<[i8; 26]>, in its order): more than 15 checkers a side, a checker on the
    wrong bar."""
    pips = [getattr(params, f"p{point}") or 0 for point in range(26)]
    x_on, o_on = sum(p for p in pips if p > 0), -sum(p for p in pips if p < 0)
    if x_on > CHECKERS:
        raise FormatError("Player x has more than 15 checkers on the board.")
    if o_on > CHECKERS:
        raise FormatError("Player o has more than 15 checkers on the board.")
    if pips[BAR] < 0:
        raise FormatError("Index 25 is the bar for player x, number of checkers needs to be positive.")
    if pips[0] > 0:
        raise FormatError("Index 0 is the bar for player o, number of checkers needs to be negative.")
    return {"board": pips[1:25], "bar": [pips[BAR], -pips[0]], "off": [CHECKERS - x_on, CHECKERS - o_on]}


def _match(x_away: int, o_away: int) -> MatchInfo | None:
    """The score of wildbg's x_away and o_away: None for money (0, 0), a 1-point match for (1, 1);
    the rest refused with wildbg's messages."""
    if (x_away, o_away) == (0, 0):
        return None
    if (x_away, o_away) == (1, 1):
        return MatchInfo(match_length=1)
    if (x_away, o_away) == (0, 1):
        raise FormatError("If x_away is 0, then o_away must also be 0.")
    if (x_away, o_away) == (1, 0):
        raise FormatError("If o_away is 0, then x_away must also be 0.")
    raise FormatError("Currently only 1 pointers and money games are supported.")


def _wildbg_probs(probs: dict) -> dict:
    return {name: probs[ours] for name, ours in WILDBG_PROBS.items()}


@router.get("/move", tags=["wildbg"], response_model=MoveResponse, summary="wildbg: the plays of a roll, best first",
            description="wildbg's `GET /move`: every legal play of `die1`-`die2` for x, the side on roll, "
                        "best first, as /api/hint ranks them (money: cubeful equity, the cube centred; "
                        "`x_away=1&o_away=1`: a 1-point match), with x's chances after each. Points are "
                        "counted from x (24 to 1); give each point that holds checkers as `pN`, x's "
                        "positive, o's negative, `p25` x's bar, `p0` o's bar (negative). Example, the "
                        "opening and 3-1: `/move?die1=3&die2=1&p24=2&p19=-5&p17=-3&p13=5&p12=-5&p8=3&p6=5&p1=-2`.")
def wildbg_move(request: Request, params: Annotated[MoveParams, Query()]) -> JSONResponse:
    position = _wildbg_position(params)
    if not (1 <= params.die1 <= 6 and 1 <= params.die2 <= 6):
        raise FormatError("Dice values must be between 1 and 6.")
    match = _match(params.x_away or 0, params.o_away or 0)
    question = _question(position, [params.die1, params.die2])
    if match is not None:
        question = replace(question, info=match)
    plays, steps = _ranked(request, question, HintSettings(ply=PLY))
    return JSONResponse({"moves": [
        {"play": [{"from": source, "to": dest} for source, dest in play_steps],
         "probabilities": _wildbg_probs(play["probs"])}
        for play, play_steps in zip(plays, steps)]})


@router.get("/eval", tags=["wildbg"], response_model=EvalResponse,
            summary="wildbg: the chances and cube decision of a position",
            description="wildbg's `GET /eval`: x's chances (x on roll, before rolling) and the cube "
                        "decision of money play with the cube centred, as /api/cube answers them: "
                        "`double` when x should double, `accept` when o should then take (or beaver). "
                        "The position as for `/move`.")
def wildbg_eval(request: Request, params: Annotated[EvalParams, Query()]) -> JSONResponse:
    question = _question(_wildbg_position(params), None)
    answer = cube_hint(request.app.state.shelf.get("backgammon"), question, HintSettings(ply=PLY))
    decision = answer["cube_decision"]
    return JSONResponse({"cube": {"double": decision["double"], "accept": decision["response"] != "pass"},
                         "probabilities": _wildbg_probs(answer["evaluation"]["probs"])})


# ---------------------------------------------------------------------------------------------------
# bgweb-api: POST /api/v1/getmoves

CheckerLayout = create_model(
    "CheckerLayout", __doc__="One side's checkers on each point, in its own numbering (its home board is "
                             "1..6), and on the bar; points left out hold none.",
    **{f"point{p}": (int, Field(0, alias=str(p), ge=0)) for p in range(1, 25)}, bar=(int, Field(0, ge=0)))


class Board(BaseModel):
    o: CheckerLayout
    x: CheckerLayout


class MoveArgs(BaseModel):
    """bgweb-api's request: the board, the roll and who is on it."""

    board: Board
    cubeful: bool = Field(False, description="Is the doubling cube in use? (money, centred): the plays' equity is "
                                             "cubeful; else cubeless")
    dice: list[Annotated[int, Field(ge=1, le=6)]] = Field(min_length=2, max_length=2, examples=[[3, 1]],
                                                          description="The two dice thrown")
    max_moves: int | None = Field(None, alias="max-moves", ge=0, examples=[3],
                                  description="At most this many plays, the best; left out: every legal play")
    player: Literal["x", "o"] = Field(description="The side on roll", examples=["x"])
    score_moves: bool = Field(True, alias="score-moves",
                              description="Give each play its evaluation; false: the plays alone")


class CheckerPlay(BaseModel):
    """One checker moved by one die, in the mover's numbering: "bar" as a source, "off" as a destination."""

    from_: str = Field(alias="from")
    to: str


class EvalInfo(BaseModel):
    cubeful: bool
    plies: int = Field(description="Turns looked at: 1 + the look-ahead (1 at 0-ply)")


class Probability(BaseModel):
    """The mover's chances after the play, to 3 decimals, cumulative as in gnubg; lose is 1 - win."""

    win: float
    winG: float
    winBG: float
    lose: float
    loseG: float
    loseBG: float


class Evaluation(BaseModel):
    eq: float = Field(description="Equity of the play (money; cubeful or cubeless as asked), 3 decimals")
    diff: float = Field(description="eq less the best play's (0 or negative)")
    info: EvalInfo
    probability: Probability


class Move(BaseModel):
    play: list[CheckerPlay]
    evaluation: Evaluation | None = None


def _layout(layout) -> list[int]:
    """A CheckerLayout as 25 counts: points 1..24, then the bar."""
    return [getattr(layout, f"point{p}") for p in range(1, 25)] + [layout.bar]


def _bgweb_position(args: MoveArgs) -> dict:
    """bgweb-api's board as our JSON form from ``player``'s side; refused: more than 15 checkers a side,
    and both sides on one point."""
    mover, other = args.player, "o" if args.player == "x" else "x"
    mine, theirs = _layout(getattr(args.board, mover)), _layout(getattr(args.board, other))
    for side, counts in ((mover, mine), (other, theirs)):
        if sum(counts) > CHECKERS:
            raise FormatError(f"{side} has {sum(counts)} checkers on the board and the bar; at most 15")
    board = []
    for p in range(1, 25):
        if mine[p - 1] and theirs[24 - p]:
            raise FormatError(f"x and o both have checkers on one point: {mover}'s {p}, {other}'s {25 - p}")
        board.append(mine[p - 1] - theirs[24 - p])
    return {"board": board, "bar": [mine[24], theirs[24]], "off": [CHECKERS - sum(mine), CHECKERS - sum(theirs)]}


def _bgweb_point(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def _bgweb_evaluation(play: dict, best: float, cubeful: bool) -> dict:
    probs = play["probs"]
    probability = {name: round(1 - probs["win"] if ours is None else probs[ours], 3) for name, ours in BGWEB_PROBS.items()}
    return {"info": {"cubeful": cubeful, "plies": play["ply"] + 1}, "eq": round(play["equity"], 3),
            "diff": round(play["equity"] - best, 3), "probability": probability}


@router.post("/api/v1/getmoves", tags=["bgweb-api"], response_model=list[Move],
             summary="bgweb-api: the plays of a roll, best first",
             description="bgweb-api's `POST /api/v1/getmoves`: the legal plays of `dice` for `player`, best "
                         "first, as /api/hint ranks them (money play; `cubeful`: with the cube centred, "
                         "else cubeless), each with its equity and chances unless `score-moves` is false. "
                         "Each side's checkers are given in its own numbering, and the plays are in the "
                         "mover's.")
def bgweb_getmoves(request: Request, args: MoveArgs) -> JSONResponse:
    question = _question(_bgweb_position(args), args.dice)
    settings = HintSettings(ply=PLY, checker="cubeful" if args.cubeful else "cubeless")
    plays, steps = _ranked(request, question, settings)
    kept = len(plays) if args.max_moves is None else args.max_moves
    moves = []
    for play, play_steps in list(zip(plays, steps))[:kept]:
        move = {"play": [{"from": _bgweb_point(s), "to": _bgweb_point(d)} for s, d in play_steps]}
        if args.score_moves:
            move["evaluation"] = _bgweb_evaluation(play, plays[0]["equity"], args.cubeful)
        moves.append(move)
    return JSONResponse(moves)
