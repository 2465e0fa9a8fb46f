"""The compiled small-batch forward pass (model/net/forward_numba.py) against the numpy one.

The probabilities of every shipped net (backgammon contact and race, long nardi) and of random nets
of one and of three hidden layers agree with the matrix-library path to float32 rounding (bounded
here at 1e-5; the sums run in another order) on seeded positions of every kind, one at a time and in
small batches; the kernel runs exactly for batches up to SMALL_BATCH rows. The compiled bear-off test
gives the numpy one's answer on every position.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.compiled import use_numba
from engine.tools.sample import KINDS, random_positions
from model.net import bearoff, inference
from model.net.checkpoint import load_net
from model.net.config import NetConfig
from model.net.inference import SMALL_BATCH, NumpyNet
from tests.helpers import numpy_then_kernels
from tests.net.test_encode_numba import scattered

pytest.importorskip("numba")

TOLERANCE = 1e-5
ROOT = Path(__file__).resolve().parents[2]


def both_paths(f, *args):
    return numpy_then_kernels(inference._kernels, f, *args)


def positions_of(game: str, n: int, seed: int) -> np.ndarray:
    """``n`` seeded positions of each of the game's kinds (engine.tools.sample.KINDS)."""
    return np.concatenate([random_positions(game, n, seed=seed + i, kind=kind)[0]
                           for i, kind in enumerate(KINDS[game])])


def shipped(name: str) -> NumpyNet:
    net, _ = load_net(ROOT / "checkpoints" / name, backend="numpy")
    return net


def random_net(game: str, hidden: tuple[int, ...], seed: int) -> NumpyNet:
    config = NetConfig(game=game, hidden=hidden)
    rng = np.random.default_rng(seed)
    weights, width = {}, config.inputs
    for i, h in enumerate(hidden):
        weights[f"body.{2 * i}.weight"] = rng.normal(0, 1 / np.sqrt(width), (h, width)).astype(np.float32)
        weights[f"body.{2 * i}.bias"] = rng.normal(0, 0.1, h).astype(np.float32)
        width = h
    weights["head.weight"] = rng.normal(0, 1 / np.sqrt(width), (config.outputs, width)).astype(np.float32)
    weights["head.bias"] = rng.normal(0, 0.1, config.outputs).astype(np.float32)
    return NumpyNet(config, weights)


def one_and_small_batches(net, positions):
    """Each position alone, then in batches of 7 and of SMALL_BATCH: (3, B, K)."""
    one = np.concatenate([net.probabilities(positions[i:i + 1]) for i in range(len(positions))])
    sevens = np.concatenate([net.probabilities(positions[i:i + 7]) for i in range(0, len(positions), 7)])
    full = np.concatenate([net.probabilities(positions[i:i + SMALL_BATCH])
                           for i in range(0, len(positions), SMALL_BATCH)])
    return np.stack([one, sevens, full])


@pytest.mark.parametrize("name", ["backgammon.safetensors", "backgammon-race.safetensors", "nardi.safetensors"])
def test_shipped_nets_agree_to_float32_rounding(name):
    net = shipped(name)
    assert isinstance(net, NumpyNet)
    positions = positions_of(net.config.game, 300, seed=5)
    reference, compiled = both_paths(one_and_small_batches, net, positions)
    assert compiled.shape == reference.shape
    assert np.abs(compiled - reference).max() < TOLERANCE
    assert not np.array_equal(compiled, np.zeros_like(compiled))
    assert np.all((compiled >= 0) & (compiled <= 1))


@pytest.mark.parametrize("game, hidden", [("backgammon", (40,)), ("backgammon", (64, 48, 32)), ("nardi", (30, 20))])
def test_other_shapes_agree(game, hidden):
    net = random_net(game, hidden, seed=len(hidden))
    positions = positions_of(game, 100, seed=9)
    if game == "backgammon":
        positions = np.concatenate([positions, scattered(200, seed=4)])
    reference, compiled = both_paths(one_and_small_batches, net, positions)
    assert np.abs(compiled - reference).max() < TOLERANCE


def test_the_kernel_runs_for_small_batches_only(monkeypatch):
    net = shipped("backgammon.safetensors")
    positions = positions_of("backgammon", 40, seed=2)
    calls = []
    previous = use_numba(True)
    try:
        kernels = inference._kernels()
        monkeypatch.setattr(kernels, "forward", lambda n, x: calls.append(len(x)) or np.zeros((len(x), 5)))
        assert np.all(net.probabilities(positions[:SMALL_BATCH]) == 0)
        assert net.probabilities(positions[:SMALL_BATCH + 1]).min() > 0  # the matrix library's
    finally:
        use_numba(previous)
    assert calls == [min(SMALL_BATCH, len(positions))]


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_compiled_bearoff_mask_is_the_numpy_one(game):
    parts = [positions_of(game, 300, seed=13)]
    if game == "backgammon":
        parts.append(scattered(3000, seed=8))
    positions = np.concatenate(parts)
    previous = use_numba(False)
    try:
        reference = bearoff.bearoff_mask(game, positions)
        use_numba(True)
        assert bearoff._kernels() is not None
        compiled = bearoff.bearoff_mask(game, positions)
    finally:
        use_numba(previous)
    assert compiled.dtype == np.bool_ and np.array_equal(compiled, reference)
    assert 0 < reference.sum() < len(reference)  # both answers occur
