"""The self-play actor's forward pass: OutcomeNet's first layer with the per-point units looked up.

Most of a net's inputs are the units of each point (model/net/features.py ``unit_slots``: four units
per point and side in backgammon feature version 3 and nardi version 2, eight per point of the board
in the version-2 backgammon and version-1 nardi encodings), and most points
are empty, so their units are 0. The first layer's product with a slot's units depends only on the
slot and its value, so ``refresh`` precomputes it for every value (a table of P x C rows of the hidden
width) and a forward pass sums the rows of each position's occupied slots (torch's embedding_bag)
plus the product of the remaining inputs (the whole-board features) with their weights. That is
about half the first layer's arithmetic of a full matrix product; the rest of the net is OutcomeNet's
own modules. The result equals ``OutcomeNet.probabilities`` within float32 rounding (the sums are
added in another order); tests/net/test_table_forward.py checks it.

``TableForward(net)`` has the networks' interface (``config``, ``probabilities(positions, device)``,
``eval()``); ``refresh()`` must follow every change of ``net``'s weights (SelfPlayActor.set_weights).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from model.net.equity import chain_heads
from model.net.features import dense_columns, split_encode, unit_slots
from model.net.network import OutcomeNet

BLOCK = 4096
"""Rows per block of a large batch. The encoding's and the layers' temporaries of a whole batch of a
look-ahead level (900,000 children for 256 positions at 2-ply) page through hundreds of megabytes of
fresh memory; in blocks they stay in cache. CPU per child, 2-core EPYC, v3 net: 300,000 children 12 us in one call,
4.2 in blocks of 4,096; 43,000 (a one-ply actor's ply) 5.1 against 3.2; the plain actor's 6,400 are
fastest whole, so only batches over twice a block are cut."""


class TableForward:
    """``net``'s probabilities with its first layer's point units summed from a table."""

    def __init__(self, net: OutcomeNet, block: int = BLOCK):
        self.net = net
        self.block = block  # rows per block of batches over twice this (0: never cut)
        self.config = net.config
        self.layout = unit_slots(self.config.game, self.config.feature_version)
        self.refresh()

    def eval(self):
        self.net.eval()
        return self

    @torch.no_grad()
    def refresh(self) -> None:
        """Rebuild the tables from ``net``'s current weights."""
        columns, table = self.layout
        first = self.net.body[0]
        weight = first.weight.detach()  # (H, F)
        slots, values = len(columns), len(table)
        units = torch.from_numpy(table).to(weight.device)  # (C, U)
        # rows[p * C + c] = weight[:, columns[p]] @ table[c]: slot p's contribution when it holds value c
        self.rows = torch.einsum("cu,hpu->pch", units, weight[:, torch.from_numpy(columns).to(weight.device)])
        self.rows = self.rows.reshape(slots * values, -1).contiguous()
        dense = dense_columns(self.config.game, self.config.feature_version)
        self.dense_weight = weight[:, torch.from_numpy(dense).to(weight.device)].contiguous()
        self.bias = first.bias.detach()
        self.occupied = (table != 0).any(axis=1)  # values whose units are not all 0
        empty = np.flatnonzero(~self.occupied)
        self.empty = int(empty[0]) if len(empty) == 1 else None  # the one value without units (0 checkers)
        self.base = np.arange(slots) * values

    def probabilities(self, positions: np.ndarray, device: torch.device | str = "cpu") -> np.ndarray:
        """Outcome probabilities (B, K) float64 of positions (B, 28) seen by the side on roll."""
        n, block = len(positions), self.block
        if block <= 0 or n <= 2 * block:
            return self._probabilities(positions, device)
        out = np.empty((n, self.config.outputs))
        for start in range(0, n, block):
            out[start : start + block] = self._probabilities(positions[start : start + block], device)
        return out

    @torch.no_grad()
    def _probabilities(self, positions: np.ndarray, device) -> np.ndarray:
        if len(positions) == 0:
            return self.net.probabilities(positions, device)
        game, version = self.config.game, self.config.feature_version
        values, rest = split_encode(game, positions, version)  # the units are not written
        live = values != self.empty if self.empty is not None else self.occupied[values]
        index = torch.from_numpy((self.base + values).ravel()[np.flatnonzero(live)]).to(device)
        offsets = np.zeros(len(positions), dtype=np.int64)
        np.cumsum(np.count_nonzero(live, axis=1)[:-1], out=offsets[1:])
        hidden = F.embedding_bag(index, self.rows, torch.from_numpy(offsets).to(device), mode="sum")
        hidden += F.linear(torch.from_numpy(rest).to(device), self.dense_weight, self.bias)
        hidden = self.net.body[2:](torch.relu_(hidden))
        s = torch.sigmoid(self.net.head(hidden))
        return chain_heads(game, s, lambda cols: torch.stack(cols, dim=1)).double().cpu().numpy()
