"""The one interface every player follows, trained or not: pick a play for a batch of positions.

A player sees the batch of positions (B, 28) in the mover's frame, the dice (B, 2), and every legal
result from ``engine.movegen.legal_plays`` (children[N, 28], parent[N], sorted by parent). It
returns, for each position, the index into ``children`` of the play it makes. Computing the children
once, outside the player, lets an arena or trainer share them between players and features.
"""

from __future__ import annotations

import numpy as np

from engine.groups import group_starts
from engine.movegen import legal_plays


class Player:
    """Base class: subclasses implement ``select``; ``choose`` is the convenience entry."""

    name = "player"
    net = None
    """The Evaluator (model/net/evaluator.py) a network player plays by; None for the baselines."""

    def __init__(self, game: str):
        self.game = game

    def select(self, positions: np.ndarray, dice: np.ndarray, children: np.ndarray,
               parent: np.ndarray) -> np.ndarray:
        """(B,) indices into ``children``: the play made from each position."""
        raise NotImplementedError

    def choose(self, positions: np.ndarray, dice: np.ndarray, first_turn=None) -> np.ndarray:
        """The positions (B, 28) this player's plays leave, seen by the mover before the turn passes."""
        positions = np.atleast_2d(np.asarray(positions, dtype=np.int8))
        dice = np.atleast_2d(np.asarray(dice))
        children, parent = legal_plays(self.game, positions, dice, first_turn)
        return children[self.select(positions, dice, children, parent)]

    def reset(self) -> None:
        """Called between batches of games; stateless players ignore it."""


class RandomPlayer(Player):
    """Picks uniformly among the distinct legal results."""

    name = "random"

    def __init__(self, game: str, seed: int | None = None):
        super().__init__(game)
        self.rng = np.random.default_rng(seed)

    def select(self, positions, dice, children, parent):
        start, count = group_starts(parent, len(positions))
        return start + (self.rng.random(len(positions)) * count).astype(np.int64)
