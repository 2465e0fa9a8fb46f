"""A race net beside the main net: positions without contact answered by a net trained on races only.

``RaceSplit(main, race)`` has the networks' interface (``config``, ``probabilities(positions, device)``,
``eval()``) of ``main``, so every consumer that takes a net (players, look-ahead, hint, cube decisions,
rollouts, the TD actor) takes it unchanged. For positions (B, 28) seen by the side on roll:

    no contact (engine.board.has_contact False)   -> race.probabilities(p)
    otherwise                                     -> main.probabilities(p)

one call per net for its rows of the batch. Composed with the bear-off databases as
``ExactEndgames(RaceSplit(main, race))`` (model/net/evaluator.py): bear-off rows go to the databases
first, the other races to the race net, the rest to the main net.

The race net is a backgammon OutcomeNet on feature version 4 (gnubg's race inputs,
model/net/features.py ``RACE_VERSION``); it is refused for any other encoding or game, since its
inputs say nothing about contact. ``RACE_NET`` is the file a ``+race`` player spec loads
(model/players/registry.py); scripts/train_race.py makes it.
"""

from __future__ import annotations

import numpy as np

from engine.board import has_contact
from model.net.checkpoint import SHIPPED, CheckpointError, load_net
from model.net.features import RACE_VERSION

RACE_NET = SHIPPED / "backgammon-race.safetensors"
"""The race net a ``+race`` spec plays with."""


class RaceSplit:
    """``main`` with the rows without contact of every batch answered by ``race`` instead."""

    def __init__(self, main, race):
        if main.config.game != "backgammon" or race.config.game != "backgammon":
            raise ValueError("a race net is for backgammon only")
        if race.config.feature_version != RACE_VERSION:
            raise ValueError(f"a race net takes backgammon feature version {RACE_VERSION}, "
                             f"not {race.config.feature_version}")
        self.main, self.race = main, race
        self.config = main.config

    def eval(self):
        self.main.eval()
        self.race.eval()
        return self

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        positions = np.asarray(positions)
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        race = ~has_contact("backgammon", positions)
        if not race.any():
            return self.main.probabilities(positions, device)
        if race.all():
            return self.race.probabilities(positions, device)
        out = np.empty((len(positions), self.config.outputs))
        out[race] = self.race.probabilities(positions[race], device)
        out[~race] = self.main.probabilities(positions[~race], device)
        return out

    def __repr__(self) -> str:
        return f"RaceSplit({self.main!r}, {self.race!r})"


def load_race_net(path=RACE_NET, device="cpu", backend: str = "auto"):
    """The race net of checkpoint ``path``; CheckpointError if it is not a backgammon race net."""
    net, _ = load_net(path, "backgammon", device, backend=backend)
    if net.config.feature_version != RACE_VERSION:
        raise CheckpointError(f"{path} is not a race net: backgammon feature version "
                              f"{net.config.feature_version}, a race net has {RACE_VERSION}")
    return net


__all__ = ["RACE_NET", "RaceSplit", "load_race_net"]
