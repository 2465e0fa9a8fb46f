"""Several nets of one game answering as one: the mean of their outcome probabilities.

``MeanNet([a, b, ...])`` has the networks' interface (``config``, ``probabilities(positions, device)``,
``eval()``) of its first net, so every consumer that takes a net (players, look-ahead, hint, cube
decisions, rollouts, the label jobs) takes it unchanged. For positions (B, 28) seen by the side on roll:

    MeanNet(nets).probabilities(p) = mean over the nets of net.probabilities(p)

The nets may differ in shape and inputs (a two-layer and a three-layer run, feature versions of the
same game); they must play the same game and give the same outcomes. An ensemble of two
independently trained self-play nets plays better than either (measured in experiments/nardi.md),
so its values are a teacher the nets are not (a labels stage's ``teacher_also``, model/train/labels.py).

A player spec joins the checkpoints with commas (``a.safetensors,b.safetensors``, with the usual
suffixes after the last one; model/players/registry.py); model.net.loader.load_mean_evaluator loads it.
"""

from __future__ import annotations

import numpy as np


class MeanNet:
    """The nets ``nets`` (two or more, one game, one outcome count) as one net: their mean."""

    def __init__(self, nets):
        nets = list(nets)
        if len(nets) < 2:
            raise ValueError(f"an ensemble needs two nets or more, got {len(nets)}")
        first = nets[0].config
        for net in nets[1:]:
            if net.config.game != first.game:
                raise ValueError(f"the nets play different games: {first.game} and {net.config.game}")
            if net.config.outputs != first.outputs:
                raise ValueError(f"the nets give {first.outputs} and {net.config.outputs} outcomes")
        self.nets = nets
        self.config = first

    def eval(self):
        for net in self.nets:
            net.eval()
        return self

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        positions = np.asarray(positions)
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        total = np.asarray(self.nets[0].probabilities(positions, device), dtype=np.float64)
        for net in self.nets[1:]:
            total = total + net.probabilities(positions, device)
        return total / len(self.nets)

    def __repr__(self) -> str:
        return f"MeanNet({', '.join(repr(net) for net in self.nets)})"


__all__ = ["MeanNet"]
