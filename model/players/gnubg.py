"""GNU Backgammon's neural nets as an opponent (backgammon only), through the optional gnubg-nn package.

The PyPI package ``gnubg-nn`` installs the module ``gnubg_nn`` (older builds of the same bindings
were called ``gnubg``; both are tried). It is imported lazily, when a gnubg player is made.

Its board is a pair of 25-slot lists, each side in its own numbering (slots 0..23 its points 1..24,
slot 24 its bar): ``board[1]`` is the side on roll, ``board[0]`` its opponent, as in the gnubg
Position ID. ``best_move(board, d1, d2, n=ply, b=1)`` returns the play and the position key it leaves,
with the side that just played FIRST.

Plies follow gnubg's own numbering: 0-ply scores every play by the net alone, 1-ply averages the
opponent's 21 rolls answered by its best 0-ply play, 2-ply one level deeper (gnubg prunes candidate
plays with its move filters above 0-ply). eXtreme Gammon and some other bots call these 1-, 2- and
3-ply. Measured on the project's 2-core machine (busy), single thread, whole games against pubeval:
0-ply about 90 us per move inside gnubg (gnubg-0ply vs gnubg-0ply ~110 games/s with our move
generator and conversion, ~30% of the time), 1-ply about 13 ms per move (2.6 games/s), 2-ply about
160 ms per move (0.2 games/s).

The API is one position at a time, so this player loops over the batch in Python: a reference
opponent, not a fast one. Each gnubg play is matched to one of our legal children, which checks our
move generator against gnubg's on every move.
"""

from __future__ import annotations

import importlib

import numpy as np

from engine.board import BAR, CHECKERS, NUM_SLOTS, OFF, OPP_BAR, OPP_OFF, POINTS, flip, winner_score
from engine.groups import group_starts
from model.players.base import Player

PLIES = (0, 1, 2)


class GnubgUnavailable(ImportError):
    """The gnubg-nn package is not installed."""


def import_gnubg():
    """The gnubg-nn module (``gnubg_nn``, or ``gnubg`` in older builds); GnubgUnavailable if missing."""
    for name in ("gnubg_nn", "gnubg"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "best_move") and hasattr(module, "board_from_position_key"):
            return module
    raise GnubgUnavailable("the gnubg player needs the optional gnubg-nn package: pip install gnubg-nn")


def to_gnubg_boards(positions: np.ndarray) -> np.ndarray:
    """gnubg boards (B, 2, 25) of our positions (B, 28): [opponent, mover], each in its own numbering.

    Our point p is the opponent's point 25 - p, so the opponent's slot q-1 reads our slot 24-q.
    """
    pos = np.atleast_2d(np.asarray(positions)).astype(np.int64)
    board = pos[:, POINTS]
    out = np.zeros((len(pos), 2, 25), dtype=np.int64)
    out[:, 1, :24] = np.maximum(board, 0)
    out[:, 1, 24] = pos[:, BAR]
    out[:, 0, :24] = np.maximum(-board, 0)[:, ::-1]
    out[:, 0, 24] = pos[:, OPP_BAR]
    return out


def from_gnubg_board(board) -> np.ndarray:
    """Our position (28,) of a gnubg board pair [opponent, mover]; borne-off counts are what is missing."""
    theirs = np.asarray(board[0], dtype=np.int64)
    mine = np.asarray(board[1], dtype=np.int64)
    pos = np.zeros(NUM_SLOTS, dtype=np.int8)
    pos[POINTS] = mine[:24] - theirs[:24][::-1]
    pos[BAR] = mine[24]
    pos[OPP_BAR] = theirs[24]
    pos[OFF] = CHECKERS - mine.sum()
    pos[OPP_OFF] = CHECKERS - theirs.sum()
    return pos


def child_equities(gnubg, children: np.ndarray, plies: int) -> np.ndarray:
    """Cubeless money equity (N,) of each backgammon child (B, 28), for the side that just moved, by
    gnubg at ``plies``: the child is flipped so the opponent is on roll, scored with
    ``probabilities(board, plies)`` and turned back. A child that bears off the last checker scores
    its exact result. One position at a time (the API has no batch)."""
    from model.net.equity import cubeless_equity, flip_probs, outcome_targets

    game = "backgammon"
    children = np.atleast_2d(np.asarray(children))
    done = children[:, OFF] == CHECKERS
    probs = np.empty((len(children), 5))
    if done.any():
        probs[done] = outcome_targets(game, winner_score(game, children[done]))
    boards = to_gnubg_boards(flip(game, children[~done]))  # the opponent on roll
    probs[~done] = flip_probs(game, np.array([gnubg.probabilities(b.tolist(), plies) for b in boards])
                              .reshape(-1, 5))
    return cubeless_equity(game, probs)


GNUBG_CLASSES = {0: "over", 1: "bearoff", 2: "bearoff", 3: "race", 4: "crashed", 5: "contact"}
"""gnubg-nn's ``classify`` codes (its c_over, c_bearoff, c_race, c_crashed, c_contact; 1 is the two-sided
bear-off database, which the package names no constant for) -> the benchmark's class words."""


def classify(gnubg, positions: np.ndarray) -> np.ndarray:
    """gnubg's class code (B,) of each position (B, 28), the mover on roll, by gnubg-nn's ``classify``.

    gnubg's rule (gnubg 1.07 eval.c, ClassifyPosition; facts, not code): over when a side has no
    checker left; race when the two sides' rearmost checkers have passed each other (no contact), and
    bear-off when such a race fits gnubg's bear-off databases (every checker of both sides at home
    here); a contact position is crashed when, for either side, the checkers it has left (bar
    included) number at most 6, or at most 6 once a heap of two or more on its 1-point is set aside,
    or, with such a heap and two or more on its 2-point, at most 6 once both heaps but one checker
    are set aside; without a heap on the 1-point, at most 6 once all but one checker of its 2-point
    are set aside. Every other contact position is contact.
    """
    return np.array([gnubg.classify(b.tolist()) for b in to_gnubg_boards(positions)], dtype=np.int8)


class GnubgPlayer(Player):
    """Plays gnubg's best move at 0, 1 or 2 ply (gnubg's numbering), cubeless money play."""

    def __init__(self, game: str = "backgammon", ply: int = 0):
        if game != "backgammon":
            raise ValueError(f"the gnubg player plays backgammon only, not {game!r}")
        if ply not in PLIES:
            raise ValueError(f"gnubg ply must be one of {PLIES}, got {ply!r}")
        super().__init__(game)
        self.gnubg = import_gnubg()
        self.ply = ply
        self.name = f"gnubg-{ply}ply"

    def _play(self, board: np.ndarray, dice) -> np.ndarray:
        """The position (28,) gnubg's chosen play leaves, mover's frame (a pass leaves it unchanged)."""
        _, key = self.gnubg.best_move(board.tolist(), int(dice[0]), int(dice[1]), n=self.ply, b=1)
        after = self.gnubg.board_from_position_key(key)  # [mover after its play, opponent]
        return from_gnubg_board((after[1], after[0]))

    def select(self, positions, dice, children, parent):
        positions = np.asarray(positions)
        boards = to_gnubg_boards(positions)
        start, count = group_starts(parent, len(positions))
        chosen = np.empty(len(positions), dtype=np.int64)
        for i in range(len(positions)):  # the API scores one position at a time
            after = self._play(boards[i], dice[i])
            block = children[start[i]: start[i] + count[i]]
            match = np.flatnonzero((block == after).all(axis=1))
            if len(match) != 1:
                raise RuntimeError(f"gnubg's play from {positions[i].tolist()} with {list(dice[i])} "
                                   f"left {after.tolist()}, which is not one of our legal plays")
            chosen[i] = start[i] + match[0]
        return chosen
