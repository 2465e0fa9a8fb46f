"""Self-play from given start positions, and the race positions a race net starts its games from.

A race net (model/net/race.py) is trained by self-play on races only: every game starts from a race
position drawn from a pool and is played to the end. ``StartGames`` is the actor's table of games
(model/arena/pool.py's CubelessGames) dealing those positions instead of the opening;
``race_starts`` makes the pool: the first position without contact of self-play games of a
network at 0-ply (the shipped net, say), so pip counts and checker distributions are those races
begin with in play. The games then run through every later race position down to the bear-off.
"""

from __future__ import annotations

import numpy as np

from engine.board import CHECKERS, OFF, flip, has_contact
from engine.groups import group_argmax
from engine.movegen import legal_plays
from model.arena.pool import CubelessGames
from model.net.bearoff import bearoff_mask
from model.net.equity import cubeless_equity
from model.net.evaluator import child_probabilities


class StartGames(CubelessGames):
    """CubelessGames whose dealt games start from positions drawn at random from ``starts`` (S, 28)
    (each seen by its side on roll) instead of the opening."""

    def __init__(self, game: str, slots: int, total: int | None, max_plies: int, starts: np.ndarray,
                 rng: np.random.Generator):
        self.starts = np.asarray(starts, dtype=np.int8)
        if self.starts.ndim != 2 or self.starts.shape[1] != 28 or not len(self.starts):
            raise ValueError(f"start positions must be a non-empty (N, 28) array, not {self.starts.shape}")
        self.rng = rng
        super().__init__(game, slots, total, max_plies)

    def deal(self, slots) -> np.ndarray:
        slots = super().deal(slots)
        self.pos[slots] = self.starts[self.rng.integers(0, len(self.starts), len(slots))]
        return slots


def race_starts(evaluator, n: int, seed: int = 0, games: int = 256, max_plies: int = 400,
                device="cpu") -> np.ndarray:
    """(n, 28) int8: the first position without contact (side on roll's view) of ``n`` self-play games
    of ``evaluator`` (greedy at 0-ply by cubeless equity, random dice, ``games`` in flight); games
    that end or reach ``max_plies`` without a race give none, and a race that is already a bear-off
    (both sides home) is skipped. The opening is thrown as any roll (a double included): a spread of
    starts, not a record of play."""
    rng = np.random.default_rng(seed)
    table = CubelessGames("backgammon", games, None, max_plies)
    table.deal(np.arange(games))
    found: list[np.ndarray] = []
    count = 0
    every = np.arange(games)
    while count < n:
        dice = rng.integers(1, 7, (games, 2))
        children, parent = legal_plays("backgammon", table.pos, dice)
        probs = child_probabilities(evaluator, children, device)
        chosen = children[group_argmax(cubeless_equity("backgammon", probs), parent, games)]
        _, ended, _ = table.end_turn(every, chosen)
        race = ~ended & ~has_contact("backgammon", table.pos)
        keep = race & is_race_start(table.pos)
        found.append(table.pos[keep].copy())
        count += int(keep.sum())
        table.deal(np.flatnonzero(ended | race))
    return np.concatenate(found)[:n]


def is_race_start(positions: np.ndarray) -> np.ndarray:
    """(B,) bool: positions a race game may start from (no contact, not over, not yet a bear-off)."""
    pos = np.asarray(positions)
    over = (pos[:, OFF] == CHECKERS) | (flip("backgammon", pos)[:, OFF] == CHECKERS)
    return ~has_contact("backgammon", pos) & ~over & ~bearoff_mask("backgammon", pos)


__all__ = ["StartGames", "is_race_start", "race_starts"]
