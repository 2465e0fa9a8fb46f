"""The actor's forward pass with the point units from a table (model/net/table_forward.py) and the
layout of the units it relies on (model/net/features.py ``unit_slots``)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.tools.sample import random_positions
from model.net.features import SUPPORTED, dense_columns, encode, slot_values, split_encode, unit_slots
from model.net.network import NetConfig, OutcomeNet
from model.net.table_forward import TableForward

ENCODINGS = [(game, version) for game, versions in SUPPORTED.items() for version in versions]


def positions(game: str) -> np.ndarray:
    kinds = ("any", "bar", "race") if game == "backgammon" else ("any",)
    return np.concatenate([random_positions(game, 150, seed=2, kind=k)[0] for k in kinds])


@pytest.mark.parametrize("game,version", ENCODINGS)
def test_unit_slots_are_where_the_encoding_puts_the_units(game, version):
    """Each slot's columns of the encoding hold its table row; the slots cover distinct columns."""
    columns, table = unit_slots(game, version)
    pos = positions(game)
    x, values = encode(game, pos, version), slot_values(game, pos, version)
    assert values.shape == (len(pos), len(columns)) and len(np.unique(columns)) == columns.size
    for p in range(len(columns)):
        np.testing.assert_array_equal(x[:, columns[p]], table[values[:, p]])


@pytest.mark.parametrize("game,version", ENCODINGS)
def test_table_forward_equals_the_net_within_float32_rounding(game, version):
    """The same probabilities as OutcomeNet, for one and two hidden layers, before and after the
    weights change (refresh rebuilds the tables; without it the old tables would answer)."""
    torch.manual_seed(1)
    pos = positions(game)
    for hidden in ((32,), (24, 16)):
        net = OutcomeNet(NetConfig(game, hidden, version)).eval()
        fast = TableForward(net)
        np.testing.assert_allclose(fast.probabilities(pos), net.probabilities(pos), rtol=0, atol=2e-6)
        with torch.no_grad():
            for p in net.parameters():
                p.add_(torch.randn_like(p) * 0.3)
        stale = fast.probabilities(pos)
        fast.refresh()
        np.testing.assert_allclose(fast.probabilities(pos), net.probabilities(pos), rtol=0, atol=2e-6)
        assert np.abs(stale - net.probabilities(pos)).max() > 1e-3
    assert fast.probabilities(pos[:0]).shape == (0, net.config.outputs)


@pytest.mark.parametrize("game,version", ENCODINGS)
def test_split_encode_is_encode_without_the_unit_columns(game, version):
    """The dense part equals encode's columns outside the units, bit for bit, and the slot values are
    slot_values'; on random positions of every kind and on positions along self-play games."""
    pos = positions(game)
    values, rest = split_encode(game, pos, version)
    x = encode(game, pos, version)
    assert rest.dtype == np.float32 and rest.shape == (len(pos), x.shape[1] - unit_slots(game, version)[0].size)
    np.testing.assert_array_equal(rest, x[:, dense_columns(game, version)])
    np.testing.assert_array_equal(values, slot_values(game, pos, version))


@pytest.mark.parametrize("game,version", [("backgammon", 3), ("nardi", 2)])
def test_a_large_batch_in_blocks_equals_one_call(game, version):
    """Cut into blocks (a batch over twice the block, the last block short), the same probabilities as
    one call over the whole batch, and a batch of at most two blocks is not cut."""
    torch.manual_seed(3)
    pos = positions(game)
    net = OutcomeNet(NetConfig(game, (32,), version)).eval()
    whole = TableForward(net, block=0).probabilities(pos)
    cut = TableForward(net, block=64)
    calls = []
    inner = cut._probabilities
    cut._probabilities = lambda x, device: calls.append(len(x)) or inner(x, device)
    np.testing.assert_allclose(cut.probabilities(pos), whole, rtol=0, atol=1e-6)
    assert calls == [64] * (len(pos) // 64) + [len(pos) % 64] * (len(pos) % 64 > 0)
    calls.clear()
    cut.probabilities(pos[:128])
    assert calls == [128]
