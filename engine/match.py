"""Match and session state for both games: the rules in force, the score, the Crawford game.

This is rules only: who has how many points, when a match is over, which game is the Crawford game.
The game itself (turns, cube, resignations) lives in ``engine.game``, which reads a ``MatchState``
to know the score and the Crawford flag when it decides whether a side may double.

A match to L points (1..25) adds each game's points to its winner until a side has at least L.
A money session (``match_length=0``) adds points the same way and never ends, unless
``session_games`` says how many games it lasts. Long nardi matches add points the same way; long
nardi has no cube and so no Crawford game.

The Crawford game (RULES-DECISIONS.md): "the first game after a side comes within one point of the
match; no doubling in it". Here that is derived, not stored: the next game is the Crawford game when
the match is longer than one point, a side stands at L-1, and no Crawford game has been played yet
(``crawford_played``). Every later game is post-Crawford. To enter a match at a given score (from a
gnubg Match ID, say), set ``crawford_played=True`` exactly when a side is at L-1 and the current game
is not the Crawford game.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace

from engine.board import check_game

MAX_CUBE = 64
"""The cube goes no higher than 64."""
MAX_MATCH_LENGTH = 25
"""Match lengths 1..25 are allowed (1, 3, 5 and 7 must work)."""

RESULT_NAMES = {
    "backgammon": {1: "single", 2: "gammon", 3: "backgammon"},
    "nardi": {1: "win", 2: "mars"},
}
"""What a game won at level 1, 2 or 3 is called in each game."""


class RuleError(ValueError):
    """A transition the rules refuse (a double in the Crawford game, a take with no double...).

    The message says why, in the rules' words, so that a command line can print it as one line.
    """


@dataclass(frozen=True)
class Rules:
    """The rules a game or match is played under. Options the rules do not allow raise RuleError."""

    game: str = "backgammon"
    """The game: backgammon or nardi."""
    match_length: int = 0
    """Points to win the match, 1..25; 0 = money play (a session of single games)."""
    cube: bool = True
    """Play with the doubling cube (backgammon only; False = cubeless play, nobody may double)."""
    jacoby: bool = False
    """Money only: gammons and backgammons count as singles while the cube is centred."""
    beavers: bool = False
    """Money only: a side that is doubled may redouble at once and keep the cube."""
    automatic_doubles: int = 0
    """Money only: at most this many ties of the opening throw double the cube (0 = off)."""
    session_games: int = 0
    """Money only: the session ends after this many games (0 = it never ends by itself)."""

    def __post_init__(self) -> None:
        reason = _rules_refusal(self)
        if reason:
            raise RuleError(reason)

    @property
    def money(self) -> bool:
        """True in money play (no match length)."""
        return self.match_length == 0

    @property
    def has_cube(self) -> bool:
        """Whether this game has a cube at all: backgammon, with the cube on, not a 1-point match.

        "A one-point match is a single game and has no cube"; "long nardi has no doubling cube".
        """
        return self.game == "backgammon" and self.cube and self.match_length != 1


def _is_whole(value) -> bool:
    """An integer (Python or numpy), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _rules_refusal(rules: Rules) -> str | None:
    """Why these options cannot be played together, or None."""
    try:
        check_game(rules.game)
    except ValueError as err:
        return str(err)
    for name in ("match_length", "automatic_doubles", "session_games"):
        value = getattr(rules, name)
        if not _is_whole(value) or value < 0:
            return f"{name} must be a whole number >= 0, got {value!r}"
        object.__setattr__(rules, name, int(value))
    if rules.match_length > MAX_MATCH_LENGTH:
        return f"a match is 1..{MAX_MATCH_LENGTH} points long (0 = money play), got {rules.match_length}"
    money_only = [name for name in ("jacoby", "beavers") if getattr(rules, name)]
    money_only += ["automatic_doubles"] if rules.automatic_doubles else []
    money_only += ["session_games"] if rules.session_games else []
    if rules.match_length and money_only:
        return f"{', '.join(money_only)}: money-play options, not allowed in a match"
    cube_only = [name for name in ("beavers", "automatic_doubles") if getattr(rules, name)]
    if rules.game == "nardi" and (cube_only or rules.jacoby):
        return (
            f"long nardi has no doubling cube: {', '.join(cube_only + ['jacoby'] * rules.jacoby)} not allowed"
        )
    if not rules.cube and cube_only:
        return f"{', '.join(cube_only)} need the cube, which is off"
    return None


@dataclass(frozen=True)
class GameResult:
    """How one game ended: who won, how much, and how.

    ``level`` is 1 single / 2 gammon / 3 backgammon (nardi: 1 win / 2 mars) as the board or the
    accepted resignation gave it; ``points`` is what the winner scores: level x cube, except that
    under the Jacoby rule (money, cube centred) gammons and backgammons count as singles, and a
    dropped double scores the cube's value before the double.
    """

    winner: int
    level: int
    cube: int
    points: int
    how: str  # "played" (bore off), "dropped" (a double was dropped), "resigned" (an offer accepted)
    game: str = "backgammon"

    @property
    def loser(self) -> int:
        """The side that lost the game."""
        return 1 - self.winner

    @property
    def name(self) -> str:
        """The result's name: single, gammon, backgammon (nardi: win, mars)."""
        return RESULT_NAMES[self.game][self.level]


@dataclass(frozen=True)
class MatchState:
    """A match or money session between players 0 and 1, between games."""

    rules: Rules = field(default_factory=Rules)
    score: tuple[int, int] = (0, 0)
    """Points won so far by player 0 and player 1."""
    crawford_played: bool = False
    """Whether the Crawford game of this match has been played (see the module docstring)."""
    results: tuple[GameResult, ...] = ()
    """Every finished game, in order."""

    def __post_init__(self) -> None:
        score = tuple(self.score)
        if len(score) != 2 or not all(_is_whole(s) and s >= 0 for s in score):
            raise RuleError(f"a score is two whole numbers >= 0, got {self.score!r}")
        object.__setattr__(self, "score", (int(score[0]), int(score[1])))

    @property
    def length(self) -> int:
        """The match length, 0 for money play."""
        return self.rules.match_length

    @property
    def is_over(self) -> bool:
        """A match is over when a side has at least the match length; a session after its games."""
        if self.length:
            return max(self.score) >= self.length
        return bool(self.rules.session_games) and len(self.results) >= self.rules.session_games

    @property
    def winner(self) -> int | None:
        """The side that won the match (or leads the finished session); None while it goes on or tied."""
        if not self.is_over or self.score[0] == self.score[1]:
            return None
        return 0 if self.score[0] > self.score[1] else 1

    @property
    def is_crawford(self) -> bool:
        """The next game is the Crawford game: "the first game after a side comes within one point of
        the match". Backgammon matches longer than one point only."""
        return (
            self.rules.game == "backgammon"
            and self.length > 1
            and not self.crawford_played
            and not self.is_over
            and max(self.score) == self.length - 1
        )

    @property
    def post_crawford(self) -> bool:
        """The next game comes after the Crawford game ("in the games after it the cube is back")."""
        return self.length > 1 and self.crawford_played and not self.is_over

    def away(self, side: int) -> int:
        """Points ``side`` still needs to win the match (0 in money play)."""
        return max(self.length - self.score[side], 0) if self.length else 0

    def cube_wins_match(self, side: int, cube: int) -> bool:
        """True when winning one game at this cube value already wins ``side`` the match: "a side whose
        cube value already wins it the match is not offered the cube". Always False in money play."""
        return bool(self.length) and self.score[side] + cube >= self.length


def game_points(rules: Rules, level: int, cube: int, cube_owner: int | None) -> int:
    """Points for a game won at ``level`` (1 single, 2 gammon, 3 backgammon; nardi 1 win, 2 mars).

    Backgammon: level x cube, but with the Jacoby rule (money play) "gammons and backgammons count as
    singles while the cube has not been turned" (centred). Long nardi: the level (no cube).
    """
    if rules.game == "nardi":
        return level
    if rules.money and rules.jacoby and cube_owner is None:
        level = 1
    return level * cube


def new_match(rules: Rules | None = None, **options) -> MatchState:
    """A fresh match or session at 0-0: ``new_match(Rules(...))`` or ``new_match(game=..., match_length=...)``."""
    if rules is None:
        rules = Rules(**options)
    elif options:
        rules = replace(rules, **options)
    return MatchState(rules=rules)


def record_result(match: MatchState, result: GameResult) -> MatchState:
    """The match after a game: the winner scores the game's points; the Crawford game is used up.

    Refused when the match is already over.
    """
    if match.is_over:
        raise RuleError("the match is over: no more games")
    if result.winner not in (0, 1) or result.points < 1:
        raise RuleError(f"a game result needs a winner 0 or 1 and points >= 1, got {result!r}")
    score = list(match.score)
    score[result.winner] += result.points
    return replace(
        match,
        score=(score[0], score[1]),
        crawford_played=match.crawford_played or match.is_crawford,
        results=match.results + (result,),
    )
