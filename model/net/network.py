"""The evaluation network: features of a position -> outcome probabilities for the side on roll.

A plain MLP whose heads are chained so the probabilities are always consistent (a backgammon is a
gammon is a win; gammons can only be lost if the game is lost):

    backgammon:  win  = s(z0)            win_gammon  = win * s(z1)   win_bg  = win_gammon * s(z2)
                 lose_gammon = (1 - win) * s(z3)                    lose_bg = lose_gammon * s(z4)
    nardi:       win  = s(z0)            win_mars    = win * s(z1)   lose_mars = (1 - win) * s(z2)

where s is the logistic function. Equity is a pure function of these (model/net/equity.py).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from model.net.config import NetConfig
from model.net.equity import chain_heads
from model.net.features import encode

__all__ = ["NetConfig", "OutcomeNet"]


class OutcomeNet(nn.Module):
    """features (B, F) -> consistent outcome probabilities (B, K) for the side on roll."""

    def __init__(self, config: NetConfig):
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        width = config.inputs
        for h in config.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, config.outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = torch.sigmoid(self.head(self.body(x)))  # (B, K) conditional probabilities
        return chain_heads(self.config.game, s, lambda cols: torch.stack(cols, dim=1))

    @torch.no_grad()
    def probabilities(self, positions: np.ndarray, device: torch.device | str = "cpu") -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        if len(positions) == 0:
            return np.zeros((0, self.config.outputs))
        x = torch.from_numpy(encode(self.config.game, positions, self.config.feature_version)).to(device)
        return self(x).double().cpu().numpy()
