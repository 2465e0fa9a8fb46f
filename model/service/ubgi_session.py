"""One UBGI session: what UBGI v0.1's commands set, and the engine's answers to ``go``.

UBGI v0.1 is the Universal Backgammon Interface as the UBGI community's spec states it
(docs/FORMATS.md "UBGI" has the facts relied on and their source). nardibot/cli/cmd_ubgi.py reads the
command lines and writes the replies; ``UbgiSession`` holds what the commands set and decides:

* the context: the position (seen by the side on roll, as a gnubg Position ID is), the dice, the cube
  and its owner, the score, the side on turn and the kind of session (money with or without Jacoby,
  or a match of some length, this game the Crawford game or not), all kept in one engine.formats
  ``MatchInfo`` (players p0 and p1 are its players 0 and 1);
* the options the engine declares (``OPTIONS``: look-ahead, cubeful or cubeless checker play, the
  variant, determinism, a seed);
* the answers: the play of the dice (model/service/hint.py's ``rank_positions``, the ranking ``hint``
  and ``Bot.rank`` give), the cube action of the side on roll or the answer to a waiting double
  (model/players/cube_policy.py's ``CubePolicy``, as serve, play and the cube arena decide), and the
  whole turn (the cube, then the play of the dice at the cube the action leaves).

Every refusal is a ``UbgiError`` carrying one of the spec's error codes and a one-line message.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.board import CHECKERS, OFF, OPP_OFF
from engine.errors import FormatError
from engine.formats.position import MatchInfo, quoted, read_gnubg_id, read_position_id, read_xgid
from engine.notation import steps
from model.net.equity import flip_probs
from model.players.cube_policy import CubePolicy, cube_view
from model.service.hint import HintSettings, rank_positions, ranking_views
from model.service.query import MONEY_JACOBY

UNKNOWN_COMMAND = "unknown_command"
BAD_ARGUMENT = "bad_argument"
MISSING_CONTEXT = "missing_context"
UNSUPPORTED = "unsupported_feature"
"""The error codes the spec suggests (``error <code> <message>``); this engine uses these four (it answers
one command at a time, so ``search_in_progress`` never arises)."""

PLIES = (0, 1, 2)
"""The look-ahead a decision may be asked at (``Ply``, ``go ... depth N``), in gnubg's counting."""
VARIANT = "backgammon"
MAX_CUBE = 64
"""The highest cube the rules take up a game with (engine/game.py's ``resume_game``)."""
NO_LONG_NARDI = ("nardibot speaks UBGI for backgammon only: UBGI's positions are gnubg Position IDs and "
                 "XGIDs, which cannot hold a long-nardi position, and the community's variants name no long nardi")


class UbgiError(Exception):
    """A command refused: ``code`` (one of the spec's error codes) and a one-line ``message``."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = " ".join(str(message).split())


@dataclass(frozen=True)
class Option:
    """An option the engine declares after ``ubgi`` (UCI's kinds: "spin" a whole number from ``low``
    to ``high``, "check" true or false, "combo" one of ``choices``)."""

    name: str
    kind: str
    default: object
    help: str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class Evaluation:
    """How the deciding side stands after its decision, looked at ``depth`` plies: its cubeless
    probabilities ``probs`` (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon, cumulative
    as in gnubg), and ``equity`` (money: cubeful equity per cube of 1; cubeless equity under EvalMode
    cubeless) or ``mwc`` (a match: the match-winning chance); the other one is None."""

    probs: np.ndarray
    equity: float | None
    mwc: float | None
    depth: int


@dataclass(frozen=True, eq=False)
class ChequerAnswer:
    """The play of the dice one step per die from the mover's side (``24/18 18/13``, ``bar/22``,
    ``6/off``; "" when no die can be played), and the position after it as the mover sees it."""

    move: str
    evaluation: Evaluation


@dataclass(frozen=True, eq=False)
class CubeAnswer:
    """The cube action: "double" or "no double" for the side on roll; "take" or "pass" for the side
    answering a waiting double (a beaver, where allowed, is a take)."""

    action: str
    evaluation: Evaluation


@dataclass(frozen=True, eq=False)
class TurnAnswer:
    """The whole turn of the side on roll: its cube action, then its play of the dice (after a
    double, the play once the double is taken)."""

    cube: CubeAnswer
    chequer: ChequerAnswer


def options_of(ply: int) -> tuple[Option, ...]:
    """The options the engine declares, ``Ply`` defaulting to ``ply``."""
    return (
        Option("Ply", "spin", ply, "look-ahead of plays and cube decisions (0, 1 or 2, gnubg's counting)",
               low=PLIES[0], high=PLIES[-1]),
        Option("EvalMode", "combo", "cubeful", "plays valued at the cube and score, or by cubeless equity",
               choices=("cubeful", "cubeless")),
        Option("Variant", "combo", VARIANT, "the game", choices=(VARIANT,)),
        Option("Deterministic", "check", True, "the same answer to the same question, always"),
        Option("Seed", "spin", 0, "kept; no decision draws a random number", low=0, high=2**32 - 1),
    )


def _whole_value(option: Option, text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise UbgiError(BAD_ARGUMENT, f"option {option.name} takes a whole number, got {quoted(text)}")
    value = int(text)
    if not option.low <= value <= option.high:
        raise UbgiError(BAD_ARGUMENT, f"option {option.name} is {option.low}..{option.high}, got {value}")
    return value


def _playing(position: np.ndarray) -> np.ndarray:
    """``position`` unless the game is over in it."""
    if position[OFF] == CHECKERS or position[OPP_OFF] == CHECKERS:
        raise UbgiError(BAD_ARGUMENT, "the game is over in this position: a side has borne off all 15 checkers")
    return position


class UbgiSession:
    """The state UBGI's commands set and the answers ``go`` asks for (module docstring).

    ``load_bot()`` gives the backgammon ``Bot`` (model/bot.py) that decides; it is called once, by
    ``ready`` (``isready``) or by the first decision.
    """

    def __init__(self, load_bot, ply: int = 0):
        self._load_bot = load_bot
        self.bot = None
        self.options = options_of(ply)
        self.settings = {option.name: option.default for option in self.options}
        self.position: np.ndarray | None = None
        self.dice: tuple[int, int] | None = None
        self.info = MatchInfo(jacoby=MONEY_JACOBY)
        self.new_session("money")

    def ready(self) -> None:
        """Load the bot, once."""
        if self.bot is None:
            self.bot = self._load_bot()

    # -- context ----------------------------------------------------------------------------------

    def new_session(self, kind: str, length: int | None = None, jacoby: bool | None = None,
                    crawford: bool | None = None) -> None:
        """A new money session or match (``newsession``): score 0-0 and a new game. ``jacoby`` (money;
        default on, gnubg's default) and ``crawford`` (a match: whether the game in which a side
        first stands one point from winning is the Crawford game; default on) are kept until the next
        session; a match needs its ``length``, money play has none."""
        if kind not in ("money", "match"):
            raise UbgiError(BAD_ARGUMENT, f"a session is money or match, got {quoted(kind)}")
        if kind == "match" and not length:
            raise UbgiError(BAD_ARGUMENT, "a match needs its length (newsession type match length N), N >= 1")
        if kind == "money" and length:
            raise UbgiError(BAD_ARGUMENT, "a money session has no length")
        if length is not None and length >= 1 << 15:
            raise UbgiError(BAD_ARGUMENT, f"a match is at most {(1 << 15) - 1} points, got {length}")
        self.info = MatchInfo(match_length=length or 0, jacoby=MONEY_JACOBY if jacoby is None else jacoby,
                              crawford=kind == "match" and (True if crawford is None else crawford))
        self.new_game()

    def new_game(self) -> None:
        """A new game of the session (``newgame``): no position or dice yet, the cube at 1 in the
        middle, p0 on turn; the score and the session's rules stay."""
        info = self.info
        self.info = MatchInfo(match_length=info.match_length, scores=info.scores, jacoby=info.jacoby,
                              beavers=info.beavers, crawford=info.crawford)
        self.position, self.dice = None, None

    def set_score(self, p0: int, p1: int) -> None:
        """The points p0 and p1 have won (``setscore``); in a match, each fewer than its length."""
        length = self.info.match_length
        if length and max(p0, p1) >= length:
            raise UbgiError(BAD_ARGUMENT, f"in a {length}-point match a score is 0..{length - 1}, got {p0} {p1}")
        if max(p0, p1) >= 1 << 15:
            raise UbgiError(BAD_ARGUMENT, f"a score is at most {(1 << 15) - 1}, got {p0} {p1}")
        self.info = replace(self.info, scores=(p0, p1))

    def set_cube(self, value: int, owner: int | None) -> None:
        """The cube's ``value`` and ``owner`` (p0 = 0, p1 = 1, None = centred; ``setcube``)."""
        if value < 1 or value & (value - 1) or value > MAX_CUBE:
            raise UbgiError(BAD_ARGUMENT, f"the cube is 1, 2, 4, ... {MAX_CUBE}, got {value}")
        if owner is not None and value == 1:
            raise UbgiError(BAD_ARGUMENT, "a cube at 1 has not been turned: its owner is center")
        self.info = replace(self.info, cube_value=value, cube_owner=-1 if owner is None else owner)

    def set_turn(self, player: int) -> None:
        """Which player, p0 (0) or p1 (1), is the side on roll in the position (``setturn``)."""
        self.info = replace(self.info, player_on_roll=player, turn=None, double_offered=False)

    def set_position(self, text: str) -> None:
        """``position gnubgid``: a gnubg Position ID, seen by the side on roll; or gnubg's combined
        ``PositionID:MatchID``, whose cube, score, match, turn and dice then replace the session's.
        The dice are cleared unless the ID carries them."""
        self.position, self.dice = None, None
        try:
            if ":" in text:
                position, info = read_gnubg_id(text)
            else:
                position, info = read_position_id(text), None
        except FormatError as err:
            raise UbgiError(BAD_ARGUMENT, str(err)) from None
        self._take_up(position, info)

    def set_xgid(self, text: str) -> None:
        """``position xgid``: an XGID, whose cube, score, match, turn, dice and waiting double replace
        the session's (XG's top player is p0, its bottom player p1, as gnubg reads an XGID)."""
        self.position, self.dice = None, None
        try:
            position, info = read_xgid(text)
        except FormatError as err:
            raise UbgiError(BAD_ARGUMENT, str(err)) from None
        self._take_up(position, info)

    def _take_up(self, position: np.ndarray, info: MatchInfo | None) -> None:
        _playing(position)
        if info is not None:
            if info.resignation:
                raise UbgiError(UNSUPPORTED, "a resignation waits in this ID; UBGI has no words for resignations")
            if info.game_state != info.game_state.PLAYING:
                raise UbgiError(BAD_ARGUMENT, f"the Match ID's game is not being played ({info.game_state.name.lower()})")
            rolled = info.dice if info.dice[0] else None
            self.info = replace(info, dice=(0, 0), turn=None)
            self.dice = None if rolled is None else (int(rolled[0]), int(rolled[1]))
        else:  # a bare Position ID: the session's cube and score stand, a double waits no longer
            self.info = replace(self.info, double_offered=False, turn=None)
        self.position = position

    def set_dice(self, first: int, second: int) -> None:
        """The dice the side on roll has thrown (``dice``), each 1..6."""
        self.dice = None
        if not (1 <= first <= 6 and 1 <= second <= 6):
            raise UbgiError(BAD_ARGUMENT, f"dice are two numbers 1..6, got {first} {second}")
        self.dice = (first, second)

    def set_option(self, name: str, value: str) -> None:
        """``setoption name NAME value VALUE``: names and values in any case."""
        option = next((o for o in self.options if o.name.lower() == name.lower()), None)
        if option is None:
            names = ", ".join(o.name for o in self.options)
            raise UbgiError(BAD_ARGUMENT, f"no option {quoted(name)}; the options are {names}")
        word = value.lower()
        if option.kind == "spin":
            setting: object = _whole_value(option, value)
        elif option.kind == "check":
            if word not in ("true", "false"):
                raise UbgiError(BAD_ARGUMENT, f"option {option.name} is true or false, got {quoted(value)}")
            setting = word == "true"
            if option.name == "Deterministic" and not setting:
                raise UbgiError(UNSUPPORTED, "the answers are always deterministic")
        else:
            if option.name == "Variant" and word != VARIANT:
                raise UbgiError(UNSUPPORTED, f"variant {quoted(value)}: {NO_LONG_NARDI}")
            if word not in option.choices:
                raise UbgiError(BAD_ARGUMENT, f"option {option.name} is one of {', '.join(option.choices)}, "
                                              f"got {quoted(value)}")
            setting = word
        self.settings[option.name] = setting

    # -- answers ----------------------------------------------------------------------------------

    def _plies(self, depth: int | None) -> int:
        plies = self.settings["Ply"] if depth is None else depth
        if plies not in PLIES:
            raise UbgiError(BAD_ARGUMENT, f"depth is {PLIES[0]}..{PLIES[-1]} (plies of look-ahead), got {plies}")
        return plies

    def _state(self, need_dice: bool, double_waits: bool = False):
        """The engine.game state of the context, checked: a position, dice where ``need_dice``, a
        waiting double only where ``double_waits`` allows one, cube and score the rules accept."""
        if self.position is None:
            raise UbgiError(MISSING_CONTEXT, "no position: send position gnubgid ID first")
        if self.info.double_offered and not double_waits:
            raise UbgiError(BAD_ARGUMENT, "a double waits for its answer: go role cube answers it")
        if need_dice and self.dice is None:
            raise UbgiError(MISSING_CONTEXT, "no dice: send dice D1 D2 first")
        try:
            state = self.info.resume(self.position)
        except ValueError as err:  # RuleError: the rules cannot reach this cube and score
            raise UbgiError(BAD_ARGUMENT, f"the position, cube and score cannot stand together: {err}") from None
        self.ready()
        return state

    def chequer(self, depth: int | None = None) -> ChequerAnswer:
        """The play of the dice (``go role chequer``)."""
        state = self._state(need_dice=True)
        return self._play(cube_view(state, state.mover), self._plies(depth))

    def cube(self, depth: int | None = None) -> CubeAnswer:
        """The cube action (``go role cube``): double or not for the side on roll; take or pass for
        the side a waiting double asks."""
        state = self._state(need_dice=False, double_waits=True)
        return self._cube(state, self._plies(depth))

    def turn(self, depth: int | None = None) -> TurnAnswer:
        """The whole turn (``go role turn``): the cube action, then the play of the dice at the cube
        it leaves (doubled and owned by the opponent after a double, which the opponent takes)."""
        state = self._state(need_dice=True)
        plies = self._plies(depth)
        cube = self._cube(state, plies)
        view = cube_view(state, state.mover)
        return TurnAnswer(cube, self._play(view.doubled() if cube.action == "double" else view, plies))

    def _play(self, view, plies: int) -> ChequerAnswer:
        position, dice = self.position, np.array(self.dice, dtype=np.int64)
        settings = HintSettings(ply=plies, checker=self.settings["EvalMode"])
        [ranking] = rank_positions(self.bot, position[None], dice[None], [view], settings)
        best = ranking.children[0]
        played = len(ranking.children) > 1 or not np.array_equal(best, position)
        move = steps("backgammon", position, best, dice) if played else ""
        money = ranking_views("backgammon", [view], settings)[0].is_money
        value = float(ranking.value[0])
        return ChequerAnswer(move, Evaluation(ranking.probs[0], value if money else None,
                                              None if money else value, int(ranking.depth[0])))

    def _cube(self, state, plies: int) -> CubeAnswer:
        policy = CubePolicy.for_bot(self.bot, plies)
        position, mover = self.position, state.mover
        view = cube_view(state, mover)
        probs = policy.on_roll_probabilities(position[None])[0]
        decision = policy.cube_decision(position, view, probs)
        money = view.is_money
        equities = (decision.no_double, decision.double_take, decision.double_pass) if money else \
            (decision.no_double_mwc, decision.double_take_mwc, decision.double_pass_mwc)
        no_double, double_take, double_pass = (float(e[0]) for e in equities)
        if self.info.double_offered:
            answer = policy.answers(position[None], [cube_view(state, 1 - mover)], probs[None])[0]
            action = "pass" if answer == "pass" else "take"
            value = double_pass if action == "pass" else double_take
            value = -value if money else 1.0 - value  # the taker's side of the doubler's figure
            return CubeAnswer(action, Evaluation(flip_probs("backgammon", probs), value if money else None,
                                                 None if money else value, plies))
        doubles = bool(policy.doubles(position[None], [view], probs[None])[0])
        value = min(double_take, double_pass) if doubles else no_double
        return CubeAnswer("double" if doubles else "no double",
                          Evaluation(probs, value if money else None, None if money else value, plies))
