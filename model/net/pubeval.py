"""Tesauro's pubeval (1993), the standard benchmark opponent's evaluation: a linear score of the position
after a play (model/players/pubeval_player.py plays by it).

For thirty years bots have reported their strength as points per game against it (see
../shared/PUBEVAL.md). The encoding, read from the position AFTER the play in the mover's frame (the
side that played, which moves 24 -> 1): for the mover's point p = 24 down to 1, block j = 24 - p,
k = 5 j, with n the signed count on p (+ mover, - opponent):

    x[k]   = 1 if n == -1            (an opponent blot; opponent points are not encoded)
    x[k+1] = 1 if n == 1
    x[k+2] = 1 if n >= 2
    x[k+3] = 1 if n == 3
    x[k+4] = (n - 3) / 2 if n >= 4
    x[120] = opponent checkers on the bar / 2
    x[121] = mover's checkers borne off / 15

The mover's own bar is not encoded. Score = weights . x, with the race weights when the position
BEFORE the play has no contact and the contact weights otherwise; a play that bears off the last
checker scores highest. Pubeval plays the legal play with the highest score.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from engine.board import CHECKERS, OFF, OPP_BAR, POINTS

WEIGHTS_FILE = Path(__file__).parent / "data" / "pubeval_weights.json"
NUM_INPUTS = 122
WIN_SCORE = 1e9  # above any linear score: bearing off the last checker wins the game


@lru_cache(maxsize=1)
def load_weights() -> tuple[np.ndarray, np.ndarray]:
    """(race, contact) weight vectors, 122 each, from model/net/data/pubeval_weights.json."""
    data = json.loads(WEIGHTS_FILE.read_text())
    race = np.asarray(data["race"], dtype=np.float64)
    contact = np.asarray(data["contact"], dtype=np.float64)
    if race.shape != (NUM_INPUTS,) or contact.shape != (NUM_INPUTS,):
        raise ValueError(f"{WEIGHTS_FILE} must hold 'race' and 'contact' lists of {NUM_INPUTS} weights")
    return race, contact


def pubeval_inputs(positions: np.ndarray) -> np.ndarray:
    """Pubeval's 122 inputs (N, 122) of positions (N, 28) seen by the side that just played."""
    pos = np.atleast_2d(np.asarray(positions))
    n = pos[:, POINTS][:, ::-1].astype(np.float64)  # (N, 24): block j is the mover's point 24 - j
    blocks = np.zeros((len(pos), 24, 5))
    blocks[..., 0] = n == -1
    blocks[..., 1] = n == 1
    blocks[..., 2] = n >= 2
    blocks[..., 3] = n == 3
    blocks[..., 4] = np.where(n >= 4, (n - 3) / 2, 0.0)
    x = np.empty((len(pos), NUM_INPUTS))
    x[:, :120] = blocks.reshape(len(pos), 120)
    x[:, 120] = pos[:, OPP_BAR] / 2.0
    x[:, 121] = pos[:, OFF] / float(CHECKERS)
    return x


def pubeval_scores(positions: np.ndarray, race: np.ndarray) -> np.ndarray:
    """Scores (N,) of after-play positions; ``race`` (N,) picks the race weights (no contact before).

    A position whose mover has borne off all fifteen gets WIN_SCORE, above every linear score.
    """
    race_w, contact_w = load_weights()
    x = pubeval_inputs(positions)
    score = np.where(np.asarray(race, dtype=bool), x @ race_w, x @ contact_w)
    return np.where(np.atleast_2d(positions)[:, OFF] == CHECKERS, WIN_SCORE, score)


@lru_cache(maxsize=1)
def _point_tables() -> np.ndarray:
    """(2, 24, 31) float32: [race/contact][mover's slot i][signed count + 15] -> that point's share
    of the score (the five inputs of block 23 - i times their weights)."""
    n = np.arange(-15, 16, dtype=np.float64)
    units = np.stack([n == -1, n == 1, n >= 2, n == 3, np.where(n >= 4, (n - 3) / 2, 0.0)], axis=1)  # (31, 5)
    tables = []
    for w in load_weights():
        blocks = w[:120].reshape(24, 5)[::-1]  # row i: the block of the mover's slot i (point i + 1)
        tables.append(blocks @ units.T)
    return np.asarray(tables, dtype=np.float32)


@lru_cache(maxsize=1)
def flat_tables() -> tuple[np.ndarray, np.ndarray]:
    """(_point_tables() flattened (2 * 24 * 31,), [race, contact] weights of the bar and off inputs (2, 2))."""
    race_w, contact_w = load_weights()
    extra = np.array([[race_w[120] / 2.0, race_w[121] / CHECKERS], [contact_w[120] / 2.0, contact_w[121] / CHECKERS]])
    return _point_tables().ravel(), extra


def table_cells(positions: np.ndarray, contact: np.ndarray) -> np.ndarray:
    """(N, 24) indices into the flattened point tables (``flat_tables()[0]``, or any array of that
    layout): each point's row of signed counts, in the race half or the contact half."""
    cells = positions[:, :24].astype(np.intp) + (15 + 31 * np.arange(24))  # (N, 24) into one table ...
    cells += (24 * 31 * np.asarray(contact, dtype=np.intp))[:, None]  # ... the race half or the contact half
    return cells


def fast_scores(positions: np.ndarray, race: np.ndarray) -> np.ndarray:
    """``pubeval_scores`` (in float32) by table look-up: one gather per point instead of the 122 inputs."""
    pos = np.atleast_2d(np.asarray(positions))
    contact = ~np.asarray(race, dtype=bool)
    table, extra = flat_tables()
    cells = table_cells(pos, contact)
    w = extra[contact.astype(np.intp)]
    score = (np.take(table, cells).sum(axis=1, dtype=np.float64)
             + w[:, 0] * pos[:, OPP_BAR] + w[:, 1] * pos[:, OFF])
    return np.where(pos[:, OFF] == CHECKERS, WIN_SCORE, score)
