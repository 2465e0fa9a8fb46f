"""The trained player: scores every legal result of a batch with one network call and takes the best.

Children come from engine.movegen.legal_plays in the mover's frame, before the turn passes. The
network scores positions for the side on roll, so each child is flipped (the opponent is on roll
there), scored, and its probabilities flipped back to the mover's view. A child in which the mover
has borne off its last checker is not scored by the network: its outcome is known exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.board import CHECKERS, OFF, flip, winner_score
from model.net.equity import cubeless_equity, flip_probs, outcome_targets
from model.players.base import Player, group_argmax


def child_probabilities(net, children: np.ndarray, device="cpu") -> np.ndarray:
    """Outcome probabilities (N, K) of each child from the view of the side that just moved.

    One network call for the whole batch: the children are flipped so the opponent is on roll,
    scored, and the probabilities flipped back. Finished games get their exact outcome.
    """
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


class NetPlayer(Player):
    """Picks, for each position, the child with the best value for the mover at 0-ply.

    ``net`` is a model.net.network.OutcomeNet or a model.net.inference.NumpyNet: anything with ``config`` and
    ``probabilities(positions, device)``.

    ``utility`` maps probabilities (N, K), mover's view, to the number to maximise; the default is
    cubeless money equity. Match play passes a match-winning-chance function instead.
    """

    def __init__(self, net, device="cpu", name: str = "net",
                 utility: Callable[[np.ndarray], np.ndarray] | None = None):
        super().__init__(net.config.game)
        self.net = net.eval()
        self.device = device
        self.name = name
        self.utility = utility or (lambda p: cubeless_equity(self.game, p))
        self.last_probs: np.ndarray | None = None  # probabilities of the children of the last call

    def select(self, positions, dice, children, parent):
        self.last_probs = child_probabilities(self.net, children, self.device)
        return group_argmax(self.utility(self.last_probs), parent, len(positions))
