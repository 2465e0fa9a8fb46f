"""The one interface of everything that scores positions, and exact endgames behind it.

``Evaluator`` is what every consumer of a network takes (players, look-ahead, hint, cube decisions,
rollouts, the TD actor): ``config`` (a NetConfig: the game, the outputs), ``probabilities(positions,
device)`` for a batch of positions seen by the side on roll, and ``eval()``. The torch network
(model/net/network.py), its numpy twin (inference.py), the race split (race.py), the ensemble mean
(ensemble.py), the lookup-table forward pass (table_forward.py) and ``ExactEndgames`` below implement
it; ``child_probabilities`` scores the children of a batch of positions with one call.

``ExactEndgames(net)`` is an Evaluator whose bear-off positions are answered by the databases instead
of ``net``. For positions (B, 28) seen by the side on roll:

    bearoff_mask(p)                         -> bearoff_probabilities(p)   (model/net/bearoff.py)
    backgammon and two_sided_mask(p)        -> [W(x, y), 0, 0, 0, 0]      (model/net/bearoff_two_sided.py)
    otherwise                               -> net.probabilities(p)

where W is the exact cubeless win chance of the two-sided database (at most 6 checkers a side, so no
gammons). The one-sided numbers are exact when both sides play for speed, the usual bear-off
approximation otherwise (see bearoff.py). Only the rows that need it go to the network: one call
for the rest of the batch, as before.

Nets loaded *for play* (``model.net.loader.load_evaluator``, ``model.Bot.load``) are wrapped when
``EXACT_ENDGAMES`` is True or when asked for explicitly; training always gets the raw torch module.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from engine.board import CHECKERS, OFF, flip, winner_score
from model.net.bearoff import bearoff_mask, bearoff_probabilities, one_sided
from model.net.bearoff_two_sided import two_sided, two_sided_mask, two_sided_win
from model.net.equity import WIN, flip_probs, outcome_targets


@runtime_checkable
class Evaluator(Protocol):
    """Scores a batch of positions: anything a player, a search or a trainer can play with."""

    config: object
    """The net's NetConfig: ``game``, ``outputs`` (the outcome probabilities it gives) and its inputs."""

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        """Outcome probabilities (B, K) float of positions (B, 28) int8 seen by the side on roll:
        win, win-gammon, win-backgammon, lose-gammon, lose-backgammon (model/net/equity.py)."""
        ...

    def eval(self):
        """Inference mode (a torch module's ``eval``); returns the evaluator."""
        ...


def child_probabilities(net, children: np.ndarray, device="cpu", parents=None) -> np.ndarray:
    """Outcome probabilities (N, K) of each child from the view of the side that just moved.

    One network call for the whole batch: the children are flipped so the opponent is on roll,
    scored, and the probabilities flipped back. Finished games get their exact outcome. Where the
    net's compiled kernel runs (``scored_by_kernel``: model/net/inference.py's, ExactEndgames') it
    does the flips in the same call, and only the rows it leaves (finished games, bear-offs) go the
    long way. ``parents``: (positions (P, 28), index (N,)), child i played from
    ``positions[index[i]]`` (legal_plays' positions and parent index): the kernel then starts each
    child's first layer from its parent's (model/net/forward_numba.py), a child's numbers depending
    on the child and its parent only; ignored by the other paths.
    """
    kernel = getattr(net, "scored_by_kernel", None)
    got = kernel(children, children=True, parents=parents) if kernel is not None else None
    if got is None:
        return _child_probabilities(net, children, device)
    probs, left = got
    if left is not None:
        rows = np.flatnonzero(left)
        probs[rows] = _child_probabilities(net, children[rows], device)
    return probs


def _child_probabilities(net, children: np.ndarray, device) -> np.ndarray:
    game = net.config.game
    done = np.flatnonzero(children[:, OFF] == CHECKERS)
    if len(done) == 0:  # most calls: every child goes to the network, no rows picked out and put back
        return flip_probs(game, net.probabilities(flip(game, children), device))
    going = np.flatnonzero(children[:, OFF] != CHECKERS)
    probs = np.empty((len(children), net.config.outputs))
    if len(going):
        probs[going] = flip_probs(game, net.probabilities(flip(game, children[going]), device))
    probs[done] = outcome_targets(game, winner_score(game, children[done]))
    return probs


EXACT_ENDGAMES = True
"""Default for nets loaded for play (load_player, Bot.load, player specs without a suffix): on, since
it measured +0.007 +- 0.006 ppg for the shipped backgammon net (README, "Exact endgames")."""


class ExactEndgames:
    """``net`` with the bear-off rows of every batch replaced by the databases' numbers."""

    def __init__(self, net, two_sided: bool = True):
        self.net = net.net if isinstance(net, ExactEndgames) else net
        self.config = self.net.config
        self.two_sided = two_sided and self.config.game == "backgammon"

    def eval(self):
        self.net.eval()
        return self

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        positions = np.asarray(positions)
        game = self.config.game
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        got = self.scored_by_kernel(positions)
        if got is not None:  # the net's kernel told the bear-offs apart and scored the rest
            out, exact = got
            if exact is None:
                return out
        else:
            exact = bearoff_mask(game, positions)
            if not exact.any():
                return self.net.probabilities(positions, device)
            out = np.empty((len(positions), self.config.outputs))
            if (~exact).any():
                out[~exact] = self.net.probabilities(positions[~exact], device)
        rows = np.flatnonzero(exact)
        out[rows] = bearoff_probabilities(game, positions[rows])
        if self.two_sided:
            small = rows[two_sided_mask(positions[rows])]
            if len(small):
                out[small] = 0.0  # at most 6 checkers a side left: at least 9 off, no gammons
                out[small, WIN] = two_sided_win(positions[small])
        return out

    def load_databases(self) -> None:
        """Load the databases now (each is otherwise loaded when a batch first needs it): before forking
        processes, which then share this process's copy instead of each reading its own."""
        one_sided()
        if self.two_sided:
            two_sided()

    def scored_by_kernel(self, positions: np.ndarray, children: bool = False, skip_bearoff: bool = True,
                         parents=None):
        """The net's ``scored_by_kernel`` (None where it has none or it does not run) with the bear-off
        rows left to the caller, who answers them through ``probabilities``, from the databases
        (always: ``skip_bearoff`` is there for wrappers that pass it on)."""
        kernel = getattr(self.net, "scored_by_kernel", None)
        return kernel(positions, children=children, skip_bearoff=True, parents=parents) if kernel is not None else None

    def __repr__(self) -> str:
        return f"ExactEndgames({self.net!r})"


def with_exact_endgames(net, exact: bool | None = None):
    """``net`` wrapped in ExactEndgames when ``exact`` is True (None: the EXACT_ENDGAMES default),
    else ``net`` itself (unwrapped if it was wrapped)."""
    exact = EXACT_ENDGAMES if exact is None else exact
    if exact:
        return net if isinstance(net, ExactEndgames) else ExactEndgames(net)
    return net.net if isinstance(net, ExactEndgames) else net


__all__ = ["EXACT_ENDGAMES", "Evaluator", "ExactEndgames", "child_probabilities", "with_exact_endgames"]
