"""The trained player: scores every legal result of a batch with one network call and takes the best.

Children come from engine.movegen.legal_plays in the mover's frame, before the turn passes. The
network scores positions for the side on roll, so each child is flipped (the opponent is on roll
there), scored, and its probabilities flipped back to the mover's view. A child in which the mover
has borne off its last checker is not scored by the network: its outcome is known exactly.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine.groups import group_argmax
from model.net.equity import cubeless_equity
from model.net.evaluator import child_probabilities
from model.net.loader import load_evaluator, load_mean_evaluator
from model.players.base import Player


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
        self.last_probs = child_probabilities(self.net, children, self.device, (positions, parent))
        return group_argmax(self.utility(self.last_probs), parent, len(positions))


def load_player(path: str | os.PathLike, game: str | None = None, device="cpu",
                exact_endgames: bool | None = None, race: bool | str | os.PathLike = False) -> NetPlayer:
    """A NetPlayer from a checkpoint file: model.net.loader.load_evaluator's net, named by the file."""
    net = load_evaluator(path, game, device, exact_endgames, race)
    return NetPlayer(net, device=device, name=Path(path).stem)


def load_mean_player(paths, game: str | None = None, device="cpu", exact_endgames: bool | None = None) -> NetPlayer:
    """A NetPlayer playing by the mean of the checkpoints ``paths`` (model.net.loader.load_mean_evaluator)."""
    net = load_mean_evaluator(paths, game, device, exact_endgames)
    return NetPlayer(net, device=device, name="mean(" + ",".join(Path(p).stem for p in paths) + ")")
