"""The seed's heuristic bot, for both games: it scores every full play of the throw and looks no further.

Seed 002: "The machine weighs every full play of the throw and looks no further: pips, checkers off,
points made, blots by the chance of being hit, checkers on the bar. On Easy it picks at random among
the better half."

Every feature is read from the position a play leaves (the mover's frame, before the turn passes) and
computed for all children of a batch at once; the score is a weighted sum. Long nardi has no hitting,
so its version weighs what matters there instead: pips, checkers off, points held (one checker holds a
point), blocks in front of the opponent's checkers, checkers brought down from the head, stacking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.board import BAR, HEAD, OFF, OPP_BAR, POINTS, flip, pips
from engine.groups import group_starts
from engine.movegen import ALL_ROLLS
from model.net.shots import hits_by_roll
from model.players.base import Player

# ----------------------------------------------------------------------------------------------
# Backgammon: shots at blots

_ROLL_COUNT = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 1, 2)  # rolls of 36 behind each of the 21


def shots(positions: np.ndarray) -> np.ndarray:
    """Rolls of 36 (N, 25) with which the opponent can hit the mover's blot on point p (column p).

    The opponent's shots are model/net/shots.py's ``hits_by_roll`` of the flipped position (the opponent
    on roll), whose point q is our point 25-q; direct and indirect shots over open points, the duty
    to enter from the bar first ignored (a small overestimate). Column 0 is 0.
    """
    hits = hits_by_roll(flip("backgammon", np.asarray(positions)))  # (21, N), bit q = their point q
    bits = (hits[:, :, None] >> np.arange(25, dtype=np.int64)) & 1  # (21, N, 25): column q
    counts = np.tensordot(_ROLL_COUNT, bits, axes=1).astype(np.int32)  # (N, 25) by their numbering
    out = np.zeros_like(counts)
    out[:, 1:] = counts[:, :0:-1]  # their point q = our point 25 - q
    return out


def _longest_run(held: np.ndarray) -> np.ndarray:
    """Length of the longest run of consecutive True values in each row of ``held`` (N, L)."""
    run = np.zeros(len(held), dtype=np.int32)
    best = np.zeros(len(held), dtype=np.int32)
    for column in held.T:
        run = np.where(column, run + 1, 0)
        best = np.maximum(best, run)
    return best


@dataclass(frozen=True)
class BackgammonWeights:
    """Weights of the backgammon features; the score of a play is their weighted sum."""

    pip_lead: float = 0.05  # per pip of (opponent's pips - mover's pips): hits and wasted pips
    off: float = 0.4  # per mover checker borne off
    home_point: float = 1.0  # per point made (2+ checkers) in the home board (points 1..6)
    bar_point: float = 0.9  # the 7-point made
    outfield_point: float = 0.4  # points 8..11 made
    anchor: float = 0.1  # points 19..24 made (an anchor in the opponent's home board)
    other_point: float = 0.1  # points 12..18 made
    blot_risk: float = 0.6  # per expected hit, scaled by 0.5 + pips lost / 25
    prime: float = 0.1  # per point of the longest run of made points
    opponent_bar: float = 0.8  # per opponent checker on the bar
    own_bar: float = 0.6  # per mover checker left on the bar
    stack: float = 0.15  # per checker above three on one point


_POINT_VALUE_SLOTS = {
    "home_point": slice(0, 6), "bar_point": slice(6, 7), "outfield_point": slice(7, 11),
    "other_point": slice(11, 18), "anchor": slice(18, 24),
}


def backgammon_scores(children: np.ndarray, w: BackgammonWeights = BackgammonWeights()) -> np.ndarray:
    """Heuristic score (N,) of backgammon positions left by a play, from the mover's view."""
    pos = np.asarray(children)
    board = pos[:, POINTS].astype(np.int32)
    made = board >= 2
    pip_counts = pips("backgammon", pos)
    score = w.pip_lead * (pip_counts[:, 1] - pip_counts[:, 0]).astype(np.float64)
    score += w.off * pos[:, OFF]
    for name, slots in _POINT_VALUE_SLOTS.items():
        score += getattr(w, name) * made[:, slots].sum(axis=1)
    pips_lost = 25 - np.arange(25)  # a blot hit on point p goes back to the bar: 25 - p pips
    hit = shots(pos) / 36.0
    score -= w.blot_risk * (hit * (0.5 + pips_lost / 25.0)).sum(axis=1)
    score += w.prime * _longest_run(made)
    score += w.opponent_bar * pos[:, OPP_BAR] - w.own_bar * pos[:, BAR]
    score -= w.stack * np.maximum(board - 3, 0).sum(axis=1)
    return score


# ----------------------------------------------------------------------------------------------
# Long nardi: blocks instead of hits

# The opponent's way in the mover's numbers: 12, 11, ..., 1, 24, 23, ..., 13, then off (slots).
_OPPONENT_PATH = np.array(list(range(12, 0, -1)) + list(range(24, 12, -1))) - 1


@dataclass(frozen=True)
class NardiWeights:
    """Weights of the long-nardi features; the score of a play is their weighted sum."""

    pips: float = 0.02  # per pip the mover still has to travel (a penalty)
    off: float = 0.4  # per mover checker borne off
    held: float = 0.3  # per point held (one checker holds a point in nardi)
    blocking: float = 0.2  # per held point in front of the opponent's last checker
    block_run: float = 0.25  # per point of the longest run of held points ahead of the opponent
    head: float = 0.3  # per checker still on the head (the 24-point): bring them into play
    stack: float = 0.4  # per checker above three on one point (the head excepted)


def nardi_scores(children: np.ndarray, w: NardiWeights = NardiWeights()) -> np.ndarray:
    """Heuristic score (N,) of long-nardi positions left by a play, from the mover's view.

    "A point holding any opponent checker is closed": a single checker blocks. The opponent's way in
    our numbers runs 12, 11, ..., 1, 24, ..., 13; our points further along it than its last checker
    stand in front of it, and a run of them is a block ("six in a row" only once passed).
    """
    pos = np.asarray(children)
    board = pos[:, POINTS].astype(np.int32)
    along = board[:, _OPPONENT_PATH]  # (N, 24) in the order the opponent travels
    theirs = along < 0
    # index of the opponent's rearmost checker along its way (24: none left on the board)
    last = np.where(theirs.any(axis=1), np.argmax(theirs, axis=1), 24)
    ahead = np.arange(24)[None, :] > last[:, None]
    mine = along > 0
    score = -w.pips * (np.maximum(board, 0) @ np.arange(1, 25)).astype(np.float64)
    score += w.off * pos[:, OFF]
    score += w.held * mine.sum(axis=1)
    score += w.blocking * (mine & ahead).sum(axis=1)
    score += w.block_run * _longest_run(mine & ahead)
    score -= w.head * board[:, HEAD]
    stacked = np.maximum(board - 3, 0)
    stacked[:, HEAD] = 0
    score -= w.stack * stacked.sum(axis=1)
    return score


# ----------------------------------------------------------------------------------------------
# The player


def heuristic_scores(game: str, children: np.ndarray, weights=None) -> np.ndarray:
    """Heuristic scores (N,) of the positions plays leave, for either game."""
    if game == "backgammon":
        return backgammon_scores(children, weights or BackgammonWeights())
    return nardi_scores(children, weights or NardiWeights())


def ranked_plays(scores: np.ndarray, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Every child index, grouped by parent (as legal_plays sorts them), best score first in each group.

    Scores are rounded to 1e-9 and equal scores are ordered by the position the play leaves, so the
    choice depends on (position, dice) alone: a matrix product may differ in its last bit with the
    memory layout of the batch, and the order in which the generator lists equal-scoring plays may
    depend on the rest of the batch. Either would otherwise make a game depend on its batch.
    """
    steady = np.round(np.asarray(scores, dtype=np.float64), 9)
    rows = np.zeros((len(children), 32), dtype=np.uint8)
    rows[:, : children.shape[1]] = np.asarray(children).view(np.uint8)
    words = rows.view(np.uint64)  # (N, 4): the position, exactly
    return np.lexsort((words[:, 3], words[:, 2], words[:, 1], words[:, 0], -steady, parent))


def best_plays(scores: np.ndarray, children: np.ndarray, parent: np.ndarray, n: int) -> np.ndarray:
    """(n,) indices of the best-scored child of each parent (ties as in ranked_plays)."""
    start, count = group_starts(parent, n)
    if (count == 0).any():
        raise ValueError("every position needs at least one child (legal_plays adds passes)")
    return ranked_plays(scores, children, parent)[start]


def better_half_choice(scores: np.ndarray, children: np.ndarray, parent: np.ndarray, n: int,
                       rng: np.random.Generator) -> np.ndarray:
    """(n,) indices: for each parent, a child drawn uniformly from the better half of its plays.

    "On Easy it picks at random among the better half": the ceil(k/2) best-scored of k plays.
    """
    order = ranked_plays(scores, children, parent)
    start, count = group_starts(parent, n)
    half = (count + 1) // 2
    pick = (rng.random(n) * half).astype(np.int64)
    return order[start + pick]


class HeuristicPlayer(Player):
    """The seed's one-look heuristic; ``easy`` picks at random among the better half of the plays."""

    def __init__(self, game: str, easy: bool = False, seed: int | None = None, weights=None):
        super().__init__(game)
        self.easy = easy
        self.weights = weights
        self.rng = np.random.default_rng(seed)
        self.name = "heuristic-easy" if easy else "heuristic"

    def scores(self, positions, dice, children, parent):
        """The heuristic score of every child (N,), higher is better (Bot.rank orders by it)."""
        return heuristic_scores(self.game, children, self.weights)

    def select(self, positions, dice, children, parent):
        scores = self.scores(positions, dice, children, parent)
        if self.easy:
            return better_half_choice(scores, children, parent, len(positions), self.rng)
        return best_plays(scores, children, parent, len(positions))
