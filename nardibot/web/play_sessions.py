"""Games and matches against the bot for the page: the server keeps each table, the page only clicks.

A ``Table`` is one session of a person (player 0, "you") against the bot (player 1), either game,
a match to N points or money play: the game runs through engine.game, which refuses what the rules
refuse with the reason, and every decision of the bot is model/service/game_turn.py's, as in the
terminal game (CubePolicy at 0-ply, the policy of hint, serve and the cube arena). After each of the person's actions the table plays
on by itself until the person has a real choice: the bot acts, and the person's forced steps (a
roll when no double is possible, the only legal play) are made for them and logged.

The person's play is entered a checker at a time: ``move(steps)`` takes all the (source,
destination) steps clicked so far in the person's numbers (engine.notation.partial_play says
where they stand), and commits the play once they complete a legal one; ``move(text=...)`` takes
the play in notation. ``to_json`` is what the page draws: the board from the person's side as SVG
(engine/formats/svg.py), whose turn, the dice, cube and score, the actions allowed now and the
log of what happened. ``record()`` is the session so far as a match record (backgammon), which the
page offers as gnubg's .sgf or a Jellyfish .mat file (``GET /api/game/{id}/record``).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import replace

import numpy as np

from engine import game as g
from engine.cube_state import CubeOwner
from engine.formats.match_id import cube_owner_code
from engine.formats.matfile import GameRecord, MatchRecord, game_record, player_names, rules_options
from engine.formats.position import MatchInfo, write_json_position
from engine.formats.svg import svg_board
from engine.notation import NO_PLAY, format_play, parse_play, partial_play
from model.players.cube_policy import CubePolicy
from model.service.game_turn import BOT, HUMAN, LEVEL_NAMES, bot_acts

ANSWERS = {"double": g.double, "take": g.take, "drop": g.drop, "beaver": g.beaver,
           "accept": g.accept_resignation, "reject": g.reject_resignation}
"""The person's one-word actions besides roll, resign and next, by the engine.game transition."""


class Table:
    """One session of the person against the bot (module docstring)."""

    def __init__(self, bot, rules: g.Rules, seed: int | None = None):
        self.id = secrets.token_urlsafe(12)
        self.bot = bot
        self.policy = CubePolicy.for_bot(bot)
        self.match = g.new_match(rules)
        self.rng = np.random.default_rng(seed)
        self.records: list[GameRecord] = []  # backgammon: each finished game's record
        self.trail: list[g.GameState] = []  # backgammon: the states of the game in play, for its record
        self._state: g.GameState | None = None
        self.log: list[str] = []
        self.bot_offered = False
        self.lock = threading.Lock()  # one request at a time changes a table
        self.touched = time.time()
        self.new_game()

    @property
    def state(self) -> g.GameState | None:
        return self._state

    @state.setter
    def state(self, state: g.GameState) -> None:
        """Every change of the game passes here: a backgammon game's states are kept for its record,
        without their legal plays (engine/formats/matfile.py's ``game_record`` reads the actions from
        consecutive states; the plays would only hold memory)."""
        self._state = state
        if state.game == "backgammon":
            self.trail.append(replace(state, plays=None))

    # -- the flow -----------------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.log.append(text)

    def new_game(self) -> None:
        if self.match.is_crawford:
            self.say("this is the Crawford game: no doubling")
        self.bot_offered = False
        self.trail = []
        self.state = g.start_game(self.match, self.rng)
        a, b = self.state.opening[-1]
        self.say(f"opening throw: you {a}, bot {b}: {'you start' if self.state.mover == HUMAN else 'the bot starts'}")
        self.advance()

    def advance(self) -> None:
        """Play on until the person must choose, or the game is over."""
        while not self.state.is_over:
            if self.state.to_act == BOT:
                self.bot_acts()
            elif self.state.phase is g.Phase.ROLL and self.state.resignation is None and not g.may_double(self.state):
                self.state = g.roll(self.state, self.rng)
            elif self.state.phase is g.Phase.MOVE and len(self.state.plays) == 1:
                move = format_play(self.state.game, self.state.position, self.state.plays[0], self.state.dice)
                a, b = self.state.dice
                self.say(f"you roll {a}-{b}: {'forced play ' + move if move else 'no legal play'}")
                self.state = g.play(self.state, self.state.plays[0])
            else:
                return
        result = self.state.result
        who = "you win" if result.winner == HUMAN else "the bot wins"
        self.say(f"{who} {LEVEL_NAMES[result.game][result.level]} ({result.how}): {result.points} "
                 f"point{'s' * (result.points != 1)}")
        self.match = g.finish_game(self.match, self.state)
        if self.trail:
            self.records.append(game_record(self.trail))
            self.trail = []
        you, bot = self.match.score
        if self.match.is_over:
            self.say(f"{'match' if self.match.length else 'session'} over: you {you}, bot {bot}")
        else:
            self.say(f"score: you {you}, bot {bot}")

    def bot_acts(self) -> None:
        """One decision of the bot, as the terminal game makes it (model/service/game_turn.py's ``bot_acts``)."""
        self.state, said, self.bot_offered = bot_acts(self.policy, self.state, self.rng, self.bot_offered)
        if said:
            self.say(said)

    # -- the person's actions -------------------------------------------------------------------------

    def act(self, action: str, level: int = 1) -> None:
        """roll, double, take, drop, beaver, accept, reject, resign (at ``level``), or next (the next
        game once one is over); RuleError (a ValueError) with the reason when the rules refuse it."""
        if action == "next":
            if not self.state.is_over:
                raise g.RuleError("the game is not over yet")
            if self.match.is_over:
                raise g.RuleError("the match is over: start a new one")
            self.new_game()
            return
        if self.state.is_over:
            raise g.RuleError("the game is over: ask for the next one")
        if action == "roll":
            self.state = g.roll(self.state, self.rng, side=HUMAN)
        elif action == "resign":
            self.state = g.offer_resignation(self.state, HUMAN, level)
            self.say(f"you offer to resign {LEVEL_NAMES[self.state.game][level]}")
        elif action in ANSWERS:
            if action == "double":
                self.say(f"you double to {self.state.cube * 2}")
            self.state = ANSWERS[action](self.state, HUMAN)
            if action in ("take", "drop", "beaver", "accept", "reject"):  # accept, reject: the bot's resignation
                self.say(f"you {action}")
        else:
            raise g.RuleError(f"unknown action {action!r}: say one of roll, {', '.join(ANSWERS)}, resign, next")
        self.advance()

    def move(self, steps=None, text: str | None = None) -> dict | None:
        """The person's play: the steps clicked so far, or the whole play in notation. Returns where
        unfinished steps stand ({"steps", "svg", "complete": False}), or None once the play is made."""
        state = self.state
        if state.is_over or state.to_act != HUMAN or state.phase is not g.Phase.MOVE:
            raise g.RuleError("it is not your turn to move")
        if text is not None:
            child = parse_play(state.game, state.position, state.dice, text)
        else:
            after, reachable = partial_play(state.game, state.position, state.dice, steps or [])
            if not (reachable == after).all(axis=1).any():
                return {"steps": [list(map(int, s)) for s in steps or []], "complete": False,
                        "svg": self.svg(after)}
            child = after
        a, b = state.dice
        move = format_play(state.game, state.position, child, state.dice) or NO_PLAY
        self.state = g.play(state, child, HUMAN)
        self.say(f"you roll {a}-{b} and play {move}")
        self.advance()
        return None

    def record(self) -> MatchRecord:
        """The session so far as a match record (engine/formats/matfile.py), as ``play --mat`` saves one:
        the person is player 0 ("human"), the bot player 1; the game in play, if any, unfinished; the money
        options and a game without the cube said. RuleError for long nardi, which no match file holds."""
        if self.match.rules.game != "backgammon":
            raise g.RuleError(".sgf and .mat files hold backgammon only: a long-nardi game has no match file")
        games = [*self.records, *([game_record(self.trail)] if self.trail else [])]
        return MatchRecord(player_names("human", self.bot.name), self.match.length, tuple(games),
                           **rules_options(self.match.rules))

    # -- what the page shows ------------------------------------------------------------------------

    def allowed(self) -> list[str]:
        """The person's actions now (moves are entered on the board)."""
        state = self.state
        if state.is_over:
            return [] if self.match.is_over else ["next"]
        if state.to_act != HUMAN:
            return []
        if state.resignation is not None:
            return ["accept", "reject"]
        if state.phase is g.Phase.TAKE:
            return ["take", "drop"] + (["beaver"] if g.beaver_refusal(state) is None else [])
        out = ["roll", "double"] if state.phase is g.Phase.ROLL else []
        if g.resignation_refusal(state, HUMAN, 1) is None:
            out.append("resign")
        return out

    def svg(self, position=None) -> str:
        """The board from the person's side; ``position`` (a half-made play) replaces the state's."""
        state = self.state
        mine = g.view(state, HUMAN) if position is None else position
        rules = state.rules
        cube = None
        if rules.has_cube:
            cube = (state.cube, CubeOwner.seen_by(state.cube_owner, HUMAN))
        money = {"jacoby": rules.jacoby, "beavers": rules.beavers} if rules.has_cube and rules.money else {}
        dice = state.dice if state.phase is g.Phase.MOVE else None
        on_roll = None if state.is_over else 0 if state.mover == HUMAN else 1
        return svg_board(state.game, mine, dice=dice, cube=cube, score=(*state.match.score, state.match.length),
                         on_roll=on_roll, mover_name="you", opponent_name=f"bot ({self.bot.name})",
                         crawford=state.match.is_crawford, **money)

    def to_json(self, since: int = 0) -> dict:
        state = self.state
        return {"id": self.id, "game": state.game, "match_length": self.match.length,
                "score": list(self.match.score), "phase": state.phase.value,
                "to_act": None if state.is_over else "you" if state.to_act == HUMAN else "bot",
                "dice": list(state.dice) if state.dice else None, "cube": state.cube,
                "cube_owner": None if state.cube_owner is None else "you" if state.cube_owner == HUMAN else "bot",
                "options": {"jacoby": self.match.rules.jacoby, "beavers": self.match.rules.beavers,
                            "automatic_doubles": self.match.rules.automatic_doubles},
                "position": write_json_position(g.view(state, HUMAN)),
                "actions": self.allowed(), "match_over": self.match.is_over,
                "log": self.log[since:], "log_length": len(self.log), "svg": self.svg()}


def match_info(state: g.GameState) -> MatchInfo | None:
    """The cube and match state of a backgammon game as a Match ID holds it (for model/service/hint.py's ``hint``:
    a waiting double is ``double_offered``); None for long nardi."""
    if state.game != "backgammon":
        return None
    rules, match = state.rules, state.match
    return MatchInfo(cube_value=state.cube, cube_owner=cube_owner_code(state.cube_owner),
                     player_on_roll=state.mover, crawford=match.is_crawford,
                     double_offered=state.phase is g.Phase.TAKE, dice=state.dice or (0, 0),
                     match_length=match.length, scores=tuple(match.score), jacoby=rules.jacoby,
                     beavers=rules.beavers)


class Tables:
    """The tables in play, by id; the least recently used is closed past ``keep``."""

    def __init__(self, keep: int = 256):
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()
        self.keep = keep

    def add(self, table: Table) -> Table:
        with self._lock:
            self._tables[table.id] = table
            while len(self._tables) > self.keep:
                self._tables.popitem(last=False)
        return table

    def get(self, table_id: str) -> Table | None:
        with self._lock:
            table = self._tables.get(table_id)
            if table is not None:
                self._tables.move_to_end(table_id)
                table.touched = time.time()
            return table
