"""Exact endgames: a network whose bear-off positions are answered by the databases instead.

``ExactEndgames(net)`` has the networks' interface (``config``, ``probabilities(positions, device)``,
``eval()``), so every consumer that takes a net (players, look-ahead, hint, cube decisions, rollouts,
the TD actor) takes it unchanged. For positions (B, 28) seen by the side on roll:

    bearoff_mask(p)                         -> bearoff_probabilities(p)   (model/net/bearoff.py)
    backgammon and two_sided_mask(p)        -> [W(x, y), 0, 0, 0, 0]      (model/net/bearoff_two_sided.py)
    otherwise                               -> net.probabilities(p)

where W is the exact cubeless win chance of the two-sided database (at most 6 checkers a side, so no
gammons). The one-sided numbers are exact when both sides play for speed, the usual bear-off
approximation otherwise (see bearoff.py). Only the rows that need it go to the network: one call
for the rest of the batch, as before.

Nets loaded *for play* (``model.net.checkpoint.load_player``, ``model.Bot.load``) are wrapped when
``EXACT_ENDGAMES`` is True or when asked for explicitly; training always gets the raw torch module.
"""

from __future__ import annotations

import numpy as np

from model.net.bearoff import bearoff_mask, bearoff_probabilities
from model.net.equity import WIN

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
        exact = bearoff_mask(game, positions)
        if not exact.any():
            return self.net.probabilities(positions, device)
        out = np.empty((len(positions), self.config.outputs))
        if (~exact).any():
            out[~exact] = self.net.probabilities(positions[~exact], device)
        rows = np.flatnonzero(exact)
        out[rows] = bearoff_probabilities(game, positions[rows])
        if self.two_sided:
            from model.net.bearoff_two_sided import two_sided_mask, two_sided_win

            small = rows[two_sided_mask(positions[rows])]
            if len(small):
                out[small] = 0.0  # at most 6 checkers a side left: at least 9 off, no gammons
                out[small, WIN] = two_sided_win(positions[small])
        return out

    def __repr__(self) -> str:
        return f"ExactEndgames({self.net!r})"


def with_exact_endgames(net, exact: bool | None = None):
    """``net`` wrapped in ExactEndgames when ``exact`` is True (None: the EXACT_ENDGAMES default),
    else ``net`` itself (unwrapped if it was wrapped)."""
    exact = EXACT_ENDGAMES if exact is None else exact
    if exact:
        return net if isinstance(net, ExactEndgames) else ExactEndgames(net)
    return net.net if isinstance(net, ExactEndgames) else net


__all__ = ["EXACT_ENDGAMES", "ExactEndgames", "with_exact_endgames"]
