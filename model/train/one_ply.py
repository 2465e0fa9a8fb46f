"""The one-ply expectation as the TD target: every roll of the next side looked at, not just the one thrown.

Plain TD moves V(x_t) toward the value of the next position the dice happened to give. Here the actor
generates, for every game in flight, the children of all 21 rolls of the side about to move, picks
each roll's best play by the network, and averages:

    V1(x) = sum over rolls r (1/36 doubles, 2/36 others) of V(best play of r from x)      (x's view)

which is the expectation the sampled next position only estimates; the rolls' noise leaves the
target. The roll thrown is drawn from the same 21 with those weights and its best play is the move,
so the expectation costs one move-generator call for 21 rolls per ply instead of one roll. The
lambda-returns then mix V1 with the game's continuation:

    G_t = (1 - lambda) V1(x_t) + lambda flip(G_{t+1})        (lambda = 0: the one-ply value alone)

``prune`` = K > 0 (backgammon) scores only each roll's K best plays by pubeval with the network, a
cheaper approximation of each roll's best play; 0 scores every play.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.groups import group_argmax
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from model.net.equity import cubeless_equity
from model.net.evaluator import child_probabilities
from model.search.top_plays import roll_plays

ROLLS = len(ALL_ROLLS)
_NON_DOUBLES = np.flatnonzero(ALL_ROLLS[:, 0] != ALL_ROLLS[:, 1])


@dataclass
class Replies:
    """Each roll's best play from B positions: rows are position * 21 + roll (ALL_ROLLS order)."""

    children: np.ndarray  # (N, 28) int8 the plays of every row, mover's view
    row: np.ndarray  # (N,) the row of each child (sorted)
    best: np.ndarray  # (B*21,) index into children of each row's best play
    probs: np.ndarray  # (B*21, K) the best play's probabilities, mover's view

    def expectation(self) -> np.ndarray:
        """V1 (B, K) of the positions, from the side on roll: the rolls' best plays, weighted."""
        weighted = self.probs.reshape(-1, ROLLS, self.probs.shape[1]) * ROLL_WEIGHTS[None, :, None]
        return weighted.sum(axis=1)


def best_replies(evaluator, game: str, positions: np.ndarray, prune: int = 0, device="cpu") -> Replies:
    """The best play of each of the 21 rolls from each of ``positions`` (B, 28), side on roll's view.

    ``prune`` = K > 0 (backgammon): each roll's plays are the K that pubeval scores highest, found by
    model/search/top_plays.py's ``luck_plays`` (the rollouts' variance reduction uses the same) without
    generating every legal play; K plays of a double are the best a beam search finds. 0: every play."""
    n = len(positions)
    children, row = roll_plays(game, positions, prune)
    probs = child_probabilities(evaluator, children, device)
    best = group_argmax(cubeless_equity(game, probs), row, n * ROLLS)
    return Replies(children, row, best, probs[best])


def throw(game: str, rng: np.random.Generator, opening: np.ndarray) -> np.ndarray:
    """(B,) index into ALL_ROLLS of each game's roll: weighted as dice fall, and for a backgammon
    opening (``opening`` True) one of the 15 non-doubles, equally likely (model/train/td.py's
    ``opening_dice``: ties are thrown again)."""
    roll = rng.choice(ROLLS, size=len(opening), p=ROLL_WEIGHTS)
    if game == "backgammon" and opening.any():
        roll[opening] = rng.choice(_NON_DOUBLES, size=int(opening.sum()))
    return roll
