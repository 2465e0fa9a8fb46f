"""The bot's turn in a game: its play, cube actions and resignations, as the terminal game, the web
page's games and gnubg's external-player server make them.

Every decision is model/players/cube_policy.py's ``CubePolicy`` (the one hint and the cube arena use),
seen through ``cube_view`` at the game's cube, score and money options (Jacoby: gammons count single
while the cube is centred; beavers), so the options change the bot's cube actions and its checker
play. A baseline without probabilities plays its own choice, never doubles, always takes, never
resigns and accepts only the most the other side can still lose.

Two ways in:

* an engine.game ``GameState`` against a person (the terminal game, nardibot/cli/cmd_play.py, and the
  page's tables, nardibot/web/play_sessions.py; the person is player ``HUMAN``, the bot ``BOT``):
  ``bot_acts`` makes the bot's decision and says it in a line of the game's log;
* a FIBS board (engine/formats/fibs.py; gnubg's external player): ``BoardAgent.decide``
  gives a ``BoardReply``, which the server writes in its protocol's words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import game as g
from engine.board import flip
from engine.formats.fibs import CUBE, MOVE, TAKE, FibsBoard
from engine.match import RESULT_NAMES
from engine.movegen import legal_plays
from engine.notation import NO_PLAY, format_play
from model.cube.resign import TOLERANCE
from model.net.equity import flip_probs
from model.players.cube_policy import CubePolicy, cube_view
from model.service.query import MONEY_JACOBY

HUMAN, BOT = 0, 1
"""The players of a game against a person: the person is player 0, the bot player 1."""
LEVEL_NAMES = {"backgammon": {1: "a single game", 2: "a gammon", 3: "a backgammon"},
               "nardi": {1: "a single game", 2: "a mars"}}
"""What a resignation or a result of level 1..3 is called in each game."""


def dice_text(dice) -> str:
    """A roll as players say it, the high die first: 6-5, 3-1, 4-4."""
    a, b = (int(d) for d in dice)
    return f"{max(a, b)}-{min(a, b)}"


def points_text(points: int) -> str:
    """'1 point', '4 points'."""
    return f"{points} point{'s' * (points != 1)}"


# ---------------------------------------------------------------------------------------------------
# a game against a person (engine.game)


def cube_advice(policy: CubePolicy, state: g.GameState, side: int):
    """The policy's cube decision for ``side`` on roll (ROLL phase), or None without probabilities."""
    if not policy.has_probabilities:
        return None
    return policy.cube_decision(g.view(state, side), cube_view(state, side))


def bot_doubles(policy: CubePolicy, state: g.GameState) -> bool:
    """The bot, on roll, doubles when the rules let it and the policy says "double"."""
    if not g.may_double(state):
        return False
    return bool(policy.doubles(state.position[None, :], [cube_view(state, BOT)])[0])


def take_advice(policy: CubePolicy, state: g.GameState, taker: int) -> str:
    """"take", "pass" or "beaver" for ``taker`` answering the waiting double ("take" for a baseline)."""
    return policy.answers(g.view(state, 1 - taker)[None, :], [cube_view(state, taker)])[0]


def bot_resignation(policy: CubePolicy, state: g.GameState) -> int | None:
    """The level the bot offers to resign at, or None: the policy's offer, capped by the rules."""
    on_roll = state.mover == BOT
    level = int(policy.resignations(state.position[None, :], [cube_view(state, BOT)], [on_roll])[0])
    if level == 0:
        return None
    level = min(level, g.max_resignation(state, BOT))
    return level if g.resignation_refusal(state, BOT, level) is None else None


def accepts(policy: CubePolicy, state: g.GameState, side: int) -> bool:
    """Whether ``side`` should accept the other side's waiting resignation: the policy's answer; a
    baseline accepts only the most the other side can still lose."""
    offerer, level = state.resignation
    if not policy.has_probabilities:
        return level >= g.max_resignation(state, offerer)
    return bool(policy.accepts(state.position[None, :], [cube_view(state, side)], [level], [state.mover == side])[0])


def resignation_advice(policy: CubePolicy, state: g.GameState, side: int) -> dict:
    """What ``side`` should answer the other side's waiting resignation, for a hint: who offered it
    ("bot" or "you", ``side`` being the person), its level, the points accepting gives ``side`` (the
    Jacoby rule counted), and "accept" or "reject" (``accepts``: the policy's answer)."""
    offerer, level = state.resignation
    return {"offered_by": "bot" if offerer == BOT else "you", "level": level,
            "points": g.game_points(state.rules, level, state.cube, state.cube_owner),
            "advice": "accept" if accepts(policy, state, side) else "reject"}


def bot_accepts(policy: CubePolicy, state: g.GameState) -> bool:
    """Whether the bot accepts the person's waiting resignation."""
    return accepts(policy, state, BOT)


def bot_play(policy: CubePolicy, state: g.GameState) -> tuple[np.ndarray, str]:
    """(the bot's chosen child, its notation) in the MOVE phase: the policy's play."""
    children = np.asarray(state.plays)
    pick = int(policy.choose(state.position[None, :], np.array([state.dice]), children,
                             np.zeros(len(children), dtype=np.int64), [cube_view(state, BOT)])[0])
    return children[pick], format_play(state.game, state.position, children[pick], state.dice) or NO_PLAY


def offer_value(state: g.GameState, side: int, level: int) -> str:
    """What a resignation of ``level`` by ``side`` scores the other side, in words."""
    points = g.game_points(state.rules, level, state.cube, state.cube_owner)
    who = "you would score" if side == BOT else "the bot would score"
    how = ""
    if state.game == "backgammon":
        how = f" ({RESULT_NAMES[state.game][level]} x cube {state.cube}"
        how += ", counted single by the Jacoby rule)" if points < level * state.cube else ")"
    return f"{who} {points_text(points)}{how}"


def bot_acts(policy: CubePolicy, state: g.GameState, rng: np.random.Generator,
             offered: bool) -> tuple[g.GameState, str | None, bool]:
    """One decision of the bot, whose turn it is to act: (the state after it, what it says or None,
    whether it has offered to resign in this game, which it does once a game: ``offered`` so far)."""
    if state.resignation is not None:
        accepted = bot_accepts(policy, state)
        return (g.accept_resignation(state) if accepted else g.reject_resignation(state),
                f"the bot {'accepts' if accepted else 'rejects'} your resignation", offered)
    if state.phase is g.Phase.TAKE:
        answer = take_advice(policy, state, BOT)
        if answer == "beaver" and g.beaver_refusal(state) is not None:
            answer = "take"
        said = (f"the bot beavers: it takes and redoubles to {state.cube * 4}, keeping the cube"
                if answer == "beaver" else f"the bot {'drops' if answer == 'pass' else 'takes'}")
        return {"pass": g.drop, "take": g.take, "beaver": g.beaver}[answer](state), said, offered
    if state.phase is g.Phase.ROLL:
        level = None if offered else bot_resignation(policy, state)
        if level is not None:
            return (g.offer_resignation(state, BOT, level),
                    f"the bot offers to resign {LEVEL_NAMES[state.game][level]}: {offer_value(state, BOT, level)}",
                    True)
        if bot_doubles(policy, state):
            return g.double(state), f"the bot doubles to {state.cube * 2}", offered
        return g.roll(state, rng), None, offered
    child, move = bot_play(policy, state)
    return g.play(state, child), f"the bot rolls {dice_text(state.dice)} and plays {move}", offered


# ---------------------------------------------------------------------------------------------------
# a FIBS board (gnubg's external player)


@dataclass(frozen=True)
class AgentSettings:
    """How the bot decides on a board (which does not carry every rule in force)."""

    plies: int = 0
    """Look-ahead for plays and cube decisions of a network bot (0, 1 or 2)."""
    resign: bool = True
    """Offer a resignation when the game is lost anyway (``BoardAgent.resignation``)."""
    resign_tolerance: float = TOLERANCE
    """Resign a level only when its value is within this (normalised equity) of playing on
    (model/cube/resign.py's ``resignation_offer``)."""
    jacoby: bool = MONEY_JACOBY
    """Money play: assume the Jacoby rule (model/service/query.py's default of a money game)."""
    beavers: bool = False
    """Money play: beaver when right. Off unless asked for, unlike a money game's default
    (``MONEY_BEAVERS``): a board does not say whether its client allows beavers, and gnubg stalls on a
    beaver it does not allow."""


@dataclass(frozen=True, eq=False)
class BoardReply:
    """The bot's decision on a board: ``action`` "play" (``children[pick]``, of the legal ``children``),
    "no play" (no die can be played), "roll", "double", "take", "pass", "beaver", or "resign" (at
    ``level`` 1..3)."""

    action: str
    level: int = 0
    children: np.ndarray | None = None
    pick: int = -1


class BoardAgent:
    """The bot's decisions on FIBS boards, for one client: plays, cube actions, resignations; a
    resignation declined in a position is not offered again there."""

    def __init__(self, bot, options: AgentSettings | None = None):
        if bot.game != "backgammon":
            raise ValueError(f"gnubg plays backgammon only; this bot plays {bot.game}")
        self.bot = bot
        self.options = options or AgentSettings()
        self._offered_at: bytes | None = None  # position of our last resignation offer
        self.policy = CubePolicy.for_bot(bot, self.options.plies, resign_tolerance=self.options.resign_tolerance)

    def reset(self) -> None:
        """A new client: forget the last resignation offer."""
        self._offered_at = None

    def _state(self, board: FibsBoard):
        """The board as an engine.game GameState (Jacoby and beavers from the options)."""
        return board.resume(jacoby=self.options.jacoby, beavers=self.options.beavers)

    def _probabilities(self, position: np.ndarray) -> np.ndarray | None:
        """(K,) outcome probabilities of ``position`` for its side on roll; None for baselines."""
        if not self.policy.has_probabilities:
            return None
        return self.policy.on_roll_probabilities(position[None, :])[0]

    def resignation(self, board: FibsBoard, state, position, probs, on_roll: bool) -> int:
        """The level to resign at (0: none) if the game is lost anyway (model/players/cube_policy.py:
        the lowest level worth what playing on is worth, for the bot: on roll in ``position`` (seen by
        its side on roll, whose probabilities are ``probs``) when ``on_roll``, else just after its
        play), capped by what the rules let it lose, and unless an offer was declined in this very
        position (gnubg asks again after declining; the offer may come again once a roll has been
        played)."""
        key = board.position.tobytes()
        if self._offered_at is not None and self._offered_at != key:
            self._offered_at = None
        if not self.options.resign or probs is None or self._offered_at == key:
            return 0
        view = cube_view(state, board.mover)
        level = int(self.policy.resignations(position[None, :], [view], [on_roll], probs=probs[None, :])[0])
        level = min(level, g.max_resignation(state, board.mover))
        if level == 0:
            return 0
        self._offered_at = key
        return level

    def choose_play(self, board: FibsBoard) -> BoardReply:
        """The decision on a roll: the chosen play (or a resignation, when the best play leaves the game
        lost anyway)."""
        dice = np.array([board.dice])
        children, parent = legal_plays("backgammon", board.position[None, :], dice)
        if len(children) == 1 and np.array_equal(children[0], board.position):
            return BoardReply("no play", children=children, pick=0)
        state = self._state(board)
        if self.policy.has_probabilities:
            value, probs, depth = self.policy.rank_plays(children, parent, [cube_view(state, board.mover)],
                                                         positions=board.position[None, :])
            pick = int(self.policy.best(value, depth, parent, 1)[0])
            after = flip("backgammon", children[pick])  # the opponent on roll
            level = self.resignation(board, state, after, flip_probs("backgammon", probs[pick]), False)
            if level:
                return BoardReply("resign", level)
        else:
            pick = int(self.policy.choose(board.position[None, :], dice, children, parent, [None])[0])
        return BoardReply("play", children=children, pick=pick)

    def cube_action(self, board: FibsBoard) -> BoardReply:
        """The decision of the bot on roll, before its dice: roll, double or resign."""
        probs = self._probabilities(board.position)
        if probs is None:
            return BoardReply("roll")
        state = self._state(board)
        level = self.resignation(board, state, board.position, probs, on_roll=True)
        if level:
            return BoardReply("resign", level)
        view = cube_view(state, board.mover)
        doubles = self.policy.doubles(board.position[None, :], [view], probs[None, :])[0]
        return BoardReply("double" if doubles else "roll")

    def double_answer(self, board: FibsBoard) -> BoardReply:
        """The answer to a double from the side on roll: take, pass, or (beavers on) beaver."""
        view = cube_view(self._state(board), board.actor)
        return BoardReply(self.policy.answers(board.position[None, :], [view])[0])

    def decide(self, board: FibsBoard) -> BoardReply:
        """The decision ``board`` asks for."""
        if board.kind == TAKE:
            return self.double_answer(board)
        if board.kind == CUBE:
            return self.cube_action(board)
        assert board.kind == MOVE
        return self.choose_play(board)
