"""Cubeless bot-vs-bot games in batches, with mirrored dice.

Every dice stream is played twice with the players' seats swapped: games 2k and 2k+1 share the
stream of pair k (opening throw included). Player A sits in seat 0 in game 2k and player B in game
2k+1, so each seat throws the same dice in both games and only who plays them changes; luck cancels
within a pair, and the pair (not the game) is the independent sample behind the 95% interval.

The dice, the opening rules and the pool of games in flight are model/arena/pool.py's: game n
throws the stream n // 2 of ``MirroredDice``, so a game's dice do not depend on the batch size or on
when it is scheduled. (Players that draw their own random numbers, random and heuristic-easy, do
depend on the batching.) The pool's slots all advance one ply together: one legal_plays call for
the pool and one select call per player per ply; a finished game's slot takes the next game at once.

With ``record_plays`` the pool also keeps every ply (one array append per ply, batch-first), and
``mat_record(result)`` turns the games into engine/formats/matfile.py's record: a money session with A in
the left column, which gnubg imports (``import mat FILE``) for review.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.dice import MirroredDice
from engine.formats.matfile import GameRecord, MatchRecord, money_session, move_action, player_names
from engine.movegen import legal_plays
from model.arena.pool import CubelessGames, choose_by_player
from model.players.base import Player

MAX_PLIES = 3000
"""Safety cap on one game's length in plies; a game that reaches it ends with no score and is counted."""


@dataclass
class ArenaResult:
    """Per-game outcomes of a match, seen from player A."""

    game: str
    names: tuple[str, str]
    seed: int
    points: np.ndarray  # (G,) A's points: +-1/2/3 (backgammon), +-1/2 (nardi), 0 for a capped game
    plies: np.ndarray  # (G,) plies played
    capped: np.ndarray  # (G,) bool: stopped by the safety cap
    seconds: float
    max_plies: int = MAX_PLIES
    dice: list | None = field(default=None, repr=False)  # per game (plies, 2) throws, when recorded
    plays: list | None = field(default=None, repr=False)  # per game, when recorded: see _Pool.plays_by_game
    luck: np.ndarray | None = field(default=None, repr=False)  # (G,) A's luck, when judged (model/arena/luck.py)
    luck_judge: str | None = None  # who judged it

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def pair_means(self) -> np.ndarray:
        """A's mean points in each mirrored pair (K,): the independent samples."""
        return _pair_means(self.points)

    @property
    def ppg(self) -> float:
        """A's points per game."""
        return float(self.points.mean())

    @property
    def stderr(self) -> float:
        """Standard error of ppg, from the spread of the pair means (nan with fewer than two pairs)."""
        return _pair_stderr(self.points)

    def luck_adjusted(self) -> dict | None:
        """A's luck-adjusted points per game (its points less its luck, model/arena/luck.py), their
        95% interval over the pairs and the judge; None when the luck was not judged."""
        if self.luck is None:
            return None
        adjusted = self.points - self.luck
        stderr = _pair_stderr(adjusted)
        return {"judge": self.luck_judge, "ppg": float(adjusted.mean()), "ci95": 1.96 * stderr, "stderr": stderr,
                "a_luck_per_game": float(self.luck.mean())}

    @property
    def ci95(self) -> float:
        """Half-width of the 95% interval of ppg (normal approximation over the pairs)."""
        return 1.96 * self.stderr

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def rates(self) -> dict:
        """Win / gammon / backgammon (nardi: win / mars) rates of both players, fractions of all games."""
        levels = ("win", "gammon", "backgammon") if self.game == "backgammon" else ("win", "mars")
        out = {}
        for who, sign in (("a", 1), ("b", -1)):
            for level, name in enumerate(levels, start=1):
                out[f"{who}_{name}"] = float(np.mean(sign * self.points >= level))
        return out

    def summary(self) -> dict:
        """Every figure of the match, JSON-ready."""
        return {
            "game": self.game, "a": self.names[0], "b": self.names[1], "seed": self.seed,
            "games": self.games, "pairs": self.games // 2,
            "ppg": self.ppg, "ci95": self.ci95, "stderr": self.stderr,
            "ci95_low": self.ppg - self.ci95, "ci95_high": self.ppg + self.ci95,
            **self.rates(),
            "mean_plies": float(self.plies.mean()), "max_plies_seen": int(self.plies.max()),
            "capped_games": int(self.capped.sum()), "max_plies": self.max_plies,
            "seconds": self.seconds, "games_per_s": self.games_per_s,
            **({"luck_adjusted": self.luck_adjusted()} if self.luck is not None else {}),
        }


def _pair_means(points: np.ndarray) -> np.ndarray:
    """Per-game ``points`` (G,) averaged over each mirrored pair (G // 2,)."""
    return points.reshape(-1, 2).mean(axis=1)


def _pair_stderr(points: np.ndarray) -> float:
    """Standard error of the mean of per-game ``points`` from the spread of the mirrored pairs' means
    (nan with fewer than two pairs)."""
    pairs = _pair_means(points)
    if len(pairs) < 2:
        return math.nan
    return float(pairs.std(ddof=1) / math.sqrt(len(pairs)))


def play_games(player_a: Player, player_b: Player, games: int, seed: int = 0, batch: int = 256,
               max_plies: int = MAX_PLIES, progress: Callable[[int], None] | None = None,
               record_dice: bool = False, record_plays: bool = False) -> ArenaResult:
    """Play ``games`` (even) cubeless games between A and B with mirrored dice; A's results.

    ``batch`` is the number of games in play at once; ``progress(n)`` is called with the number of
    games just finished. ``record_dice`` keeps each game's throws, ``record_plays`` its plies (for
    ``mat_record``).
    """
    game = player_a.game
    if player_b.game != game:
        raise ValueError(f"the players play different games: {player_a.game} and {player_b.game}")
    if games < 2 or games % 2:
        raise ValueError(f"games must be a positive even number (every dice stream is played twice), got {games}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    for player in (player_a, player_b):
        player.reset()
    started = time.perf_counter()
    pool = _Pool(game, seed, min(batch, games), games, max_plies, record_dice, record_plays)
    while pool.live.any():
        finished = pool.play_ply(player_a, player_b)
        if progress is not None and finished:
            progress(finished)
    names = (getattr(player_a, "name", "a"), getattr(player_b, "name", "b"))
    return ArenaResult(game, names, seed, pool.points, pool.plies_done, pool.capped,
                       time.perf_counter() - started, max_plies, pool.dice_log, pool.plays_by_game())


def mat_record(result: ArenaResult) -> MatchRecord:
    """The recorded games of a backgammon run (``record_plays``) as one money session for a .mat
    file: A is player 0 (the left column) in every game; a capped game is left unfinished."""
    if result.plays is None:
        raise ValueError("the games' plays were not recorded (play_games(..., record_plays=True))")
    if result.game != "backgammon":
        raise ValueError(".mat files hold backgammon only")
    games = []
    for points, (a_moved, before, after, dice) in zip(result.points, result.plays):
        actions = [move_action(0 if a else 1, b, c, d) for a, b, c, d in zip(a_moved, before, after, dice)]
        winner = None if points == 0 else 0 if points > 0 else 1
        games.append(GameRecord(tuple(actions), (0, 0), winner, abs(int(points))))
    return money_session(player_names(*result.names), games)


class _Pool(CubelessGames):
    """The games in play (model/arena/pool.py's CubelessGames: a slot per game, numbered by game),
    their mirrored dice and seats, and every game's outcome."""

    def __init__(self, game: str, seed: int, slots: int, games: int, max_plies: int, record_dice: bool,
                 record_plays: bool = False):
        super().__init__(game, slots, games, max_plies)
        self.points = np.zeros(games, dtype=np.int64)
        self.plies_done = np.zeros(games, dtype=np.int64)
        self.capped = np.zeros(games, dtype=bool)
        self.dice_log = [[] for _ in range(games)] if record_dice else None
        self.ply_log: list | None = [] if record_plays else None  # per ply: (game ids, A moved, before, after, dice)
        self.dice = MirroredDice(seed, slots)
        self.seat = np.zeros(slots, dtype=np.int64)  # seat on roll: 0 or 1
        self._start(np.arange(slots))

    def _start(self, slots: np.ndarray) -> None:
        """Begin the next games in ``slots`` (as many as remain): start position, opening throw."""
        slots = self.deal(slots)
        if len(slots):
            opening = self.dice.open(slots, self.number[slots] // 2, play_opening=self.game == "backgammon")
            self.seat[slots] = np.where(opening[:, 0] > opening[:, 1], 0, 1)

    def play_ply(self, player_a: Player, player_b: Player) -> int:
        """Every live game plays one turn; returns how many games ended."""
        idx = self.live_slots()
        positions = self.pos[idx]
        dice = self.dice.roll(idx)
        children, parent = legal_plays(self.game, positions, dice)
        who = self.player(idx, self.seat[idx])  # 0 where A moves, 1 where B does
        chosen = choose_by_player((player_a, player_b), who, children, parent,
                                  lambda player, mine, kids, kid_parent:
                                  player.select(positions[mine], dice[mine], kids, kid_parent))
        after = children[chosen]
        a_moves = who == 0
        if self.dice_log is not None:
            for game_id, roll in zip(self.number[idx], dice):
                self.dice_log[game_id].append(tuple(int(d) for d in roll))
        if self.ply_log is not None:
            self.ply_log.append((self.number[idx], a_moves, positions, after, dice))
        score, ended, capped = self.end_turn(idx, after)
        ids = self.number[idx[ended]]
        self.points[ids] = np.where(a_moves[ended], score[ended], -score[ended])
        self.plies_done[ids] = self.plies[idx[ended]]
        self.capped[ids] = capped[ended]
        self.seat[idx] ^= 1
        self._start(idx[ended])
        return int(ended.sum())

    def plays_by_game(self) -> list | None:
        """The logged plies regrouped by game, in play order: per game (a_moved (P,) bool, before
        (P, 28), after (P, 28) in the mover's frame before the turn passes, dice (P, 2)); None if not
        logged."""
        if self.ply_log is None:
            return None
        ids, a_moved, before, after, dice = (np.concatenate(column) for column in zip(*self.ply_log))
        order = np.argsort(ids, kind="stable")  # stable: each game's plies stay in play order
        cuts = np.cumsum(np.bincount(ids, minlength=self.total))[:-1]
        return list(zip(*(np.split(column[order], cuts) for column in (a_moved, before, after, dice))))

