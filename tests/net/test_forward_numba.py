"""The compiled forward pass (model/net/forward_numba.py) against the numpy one.

The probabilities of every shipped net (backgammon contact and race, long nardi) and of random nets
of one and of three hidden layers agree with the matrix-library path to float32 rounding (bounded
here at 1e-5; the sums run in another order) on seeded positions of every kind, one at a time, in
small batches and in one batch, and a row gives the same numbers in each; every batch goes through
the kernels where they run. ExactEndgames on the fused backgammon kernel answers the bear-off rows
from the databases, as on the numpy path. The compiled bear-off test gives the numpy one's answer
on every position.
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
from model.net.evaluator import ExactEndgames
from model.net.inference import NumpyNet
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
    """Each position alone, in batches of 7, of 128 and all in one: (4, B, K)."""
    one = np.concatenate([net.probabilities(positions[i:i + 1]) for i in range(len(positions))])
    sevens = np.concatenate([net.probabilities(positions[i:i + 7]) for i in range(0, len(positions), 7)])
    blocks = np.concatenate([net.probabilities(positions[i:i + 128]) for i in range(0, len(positions), 128)])
    return np.stack([one, sevens, blocks, net.probabilities(positions)])


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
    assert all(np.array_equal(compiled[0], c) for c in compiled[1:])  # a row's numbers, whatever its batch


@pytest.mark.parametrize("game, hidden", [("backgammon", (40,)), ("backgammon", (64, 48, 32)), ("nardi", (30, 20))])
def test_other_shapes_agree(game, hidden):
    net = random_net(game, hidden, seed=len(hidden))
    positions = positions_of(game, 100, seed=9)
    if game == "backgammon":
        positions = np.concatenate([positions, scattered(200, seed=4)])
    reference, compiled = both_paths(one_and_small_batches, net, positions)
    assert np.abs(compiled - reference).max() < TOLERANCE


@pytest.mark.parametrize("name, kernel", [("backgammon.safetensors", "contact_forward"),
                                          ("nardi.safetensors", "forward")])
def test_every_batch_goes_through_the_kernels(monkeypatch, name, kernel):
    net = shipped(name)
    positions = positions_of(net.config.game, 1100, seed=2)[: inference.CHUNK + 5]
    assert len(positions) == inference.CHUNK + 5
    calls = []
    previous = use_numba(True)
    try:
        kernels = inference._kernels()
        real = getattr(kernels, kernel)
        monkeypatch.setattr(kernels, kernel, lambda n, x, *rest: calls.append(len(x)) or real(n, x, *rest))
        net.probabilities(positions[:1])
        net.probabilities(positions)  # in blocks of CHUNK rows
        use_numba(False)
        net.probabilities(positions[:50])  # the numpy path
    finally:
        use_numba(previous)
    assert calls == [1, inference.CHUNK, 5]


def test_exact_endgames_on_the_fused_kernel():
    """The bear-off rows of a batch get the databases' numbers, the rest the net's, as on the numpy path."""
    net = ExactEndgames(shipped("backgammon.safetensors"))
    positions = np.concatenate([positions_of("backgammon", 60, seed=21), scattered(400, seed=3)])
    exact = bearoff.bearoff_mask("backgammon", positions)
    assert 0 < exact.sum() < len(positions)
    one = positions[np.flatnonzero(exact)[:1]]
    reference, compiled = both_paths(lambda p: (net.probabilities(p), net.probabilities(one)), positions)
    assert np.array_equal(compiled[0][exact], reference[0][exact])
    assert np.array_equal(compiled[1], reference[1])
    assert np.abs(compiled[0] - reference[0]).max() < TOLERANCE
    assert compiled[0][~exact].min() > 0


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


@pytest.mark.parametrize("exact", [True, False])
def test_child_probabilities_on_the_fused_kernel(exact):
    """Children scored in the kernel (flipped there) are the long way's numbers; finished games and
    bear-offs are left to it and get the same exact values."""
    from engine.board import OFF, flip
    from engine.movegen import legal_plays
    from model.net.evaluator import child_probabilities

    raw = shipped("backgammon.safetensors")
    net = ExactEndgames(raw) if exact else raw
    positions, dice = random_positions("backgammon", 150, seed=31, kind="bearoff")
    start = np.concatenate([positions, positions_of("backgammon", 40, seed=33)])
    rolls = np.concatenate([dice, random_positions("backgammon", len(start) - len(dice), seed=34)[1]])
    children, _ = legal_plays("backgammon", start, rolls)
    finished = children[:, OFF] == 15
    assert finished.any() and bearoff.bearoff_mask("backgammon", flip("backgammon", children)).any()
    reference, compiled = both_paths(child_probabilities, net, children)
    assert np.array_equal(compiled[finished], reference[finished])
    assert np.abs(compiled - reference).max() < TOLERANCE


@pytest.mark.parametrize("exact", [True, False])
def test_children_started_from_their_parents_first_layer(exact):
    """With ``parents`` the kernel starts each child's first layer from the sums of the position it was
    played from: the numpy numbers to float32 rounding, finished games and bear-offs as without, and a
    child's numbers the same whether its parent's children come alone or in a batch of many parents
    (in any order), so they depend on the child and its parent only. The rows left to the long way
    (finished games; with ExactEndgames the bear-offs) are the same as without parents."""
    from engine.movegen import legal_plays
    from model.net.evaluator import child_probabilities

    raw = shipped("backgammon.safetensors")
    net = ExactEndgames(raw) if exact else raw
    start = np.concatenate([random_positions("backgammon", 60, seed=41, kind="bearoff")[0],
                            positions_of("backgammon", 40, seed=43)])
    rolls = random_positions("backgammon", len(start), seed=44)[1]
    children, parent = legal_plays("backgammon", start, rolls)
    reference, plain = both_paths(child_probabilities, net, children)
    previous = use_numba(True)
    try:
        anchored = child_probabilities(net, children, parents=(start, parent))
        order = np.random.default_rng(5).permutation(len(children))
        shuffled = np.empty_like(anchored)
        shuffled[order] = child_probabilities(net, children[order], parents=(start, parent[order]))
        alone = [child_probabilities(net, children[parent == i], parents=(start[i:i + 1], np.zeros((parent == i).sum(), int)))
                 for i in range(0, len(start), 7)]
    finally:
        use_numba(previous)
    assert np.abs(anchored - reference).max() < TOLERANCE
    assert not np.array_equal(anchored, plain)  # the other sums: float32 rounding apart
    left = (children[:, 26] == 15) | (exact & bearoff.bearoff_mask("backgammon", flip_children(children)))
    assert left.any() and not left.all()
    np.testing.assert_array_equal(anchored[left], plain[left])
    np.testing.assert_array_equal(shuffled, anchored)
    for i, got in zip(range(0, len(start), 7), alone):
        np.testing.assert_array_equal(got, anchored[parent == i])


def flip_children(children: np.ndarray) -> np.ndarray:
    from engine.board import flip

    return flip("backgammon", children)


def half_net(net: NumpyNet) -> NumpyNet:
    """``net`` with its hidden layers' weights rounded to float16 values (a ``half = true`` export)."""
    from model.net.checkpoint import hidden_weights_as_halves

    weights = {f"body.{2 * i}.weight": w.T for i, (w, _) in enumerate(net.layers)}
    weights |= {f"body.{2 * i}.bias": b for i, (_, b) in enumerate(net.layers)}
    weights |= {"head.weight": net.head_t, "head.bias": net.head[1]}
    return NumpyNet(net.config, hidden_weights_as_halves(weights))


def test_the_shipped_backgammon_net_is_read_as_halves():
    """Its recipe's export rounds the hidden weights to float16 values (recipes/backgammon.toml)."""
    net = shipped("backgammon.safetensors")
    assert all(w.dtype == np.uint16 for w in net.kernel_weights[0])
    assert all(np.array_equal(w.view(np.float16).astype(np.float32), layer) for w, (layer, _) in
               zip(net.kernel_weights[0], net.layers))


@pytest.mark.parametrize("name", ["backgammon.safetensors", "nardi.safetensors", "random"])
def test_half_weights_read_as_halves_give_the_same_numbers(name):
    """A net whose hidden weights are all float16 values goes to the kernel as halves (uint16), which
    it widens exactly: the same numbers, bit for bit, as the same weights read as float32, and the
    numpy path's to float32 rounding; a row's numbers whatever its batch."""
    original = random_net("backgammon", (64, 48), seed=7) if name == "random" else shipped(name)
    net = half_net(original)
    assert all(w.dtype == np.uint16 for w in net.kernel_weights[0])
    as_float = NumpyNet.__new__(NumpyNet)
    as_float.__dict__.update(net.__dict__)
    as_float.kernel_weights = (tuple(w for w, _ in net.layers), net.kernel_weights[1])
    assert all(w.dtype == np.float32 for w in as_float.kernel_weights[0])
    positions = positions_of(net.config.game, 200, seed=17)
    reference, halves = both_paths(one_and_small_batches, net, positions)
    _, floats = both_paths(one_and_small_batches, as_float, positions)
    assert np.array_equal(halves, floats)
    assert np.abs(halves - reference).max() < TOLERANCE
    assert all(np.array_equal(halves[0], c) for c in halves[1:])


def test_weights_that_are_not_halves_stay_float32():
    net = random_net("backgammon", (32, 16), seed=2)
    assert all(w.dtype == np.float32 for w in net.kernel_weights[0])  # not rounded: as they are
    far = random_net("backgammon", (16,), seed=3)
    far.layers[0][0][0, 0] = 1e6  # beyond float16's range
    assert inference._hidden_weights_for_kernel([w for w, _ in far.layers])[0].dtype == np.float32
    from model.net.checkpoint import hidden_weights_as_halves

    with pytest.raises(ValueError, match="beyond float16's range"):
        hidden_weights_as_halves({"body.0.weight": far.layers[0][0].T, "head.weight": far.head_t})


def test_parents_that_do_not_fit_the_children_are_refused():
    """The kernel reads a child's parent unchecked: an index per child, each within the parents, or a
    ValueError before it runs."""
    from engine.movegen import legal_plays
    from model.net import forward_numba

    net = shipped("backgammon.safetensors")
    start, dice = random_positions("backgammon", 4, seed=51)
    children, parent = legal_plays("backgammon", start, dice)
    for bad in ((start, parent[:-1]), (start[:1], parent), (start, parent - 1)):
        with pytest.raises(ValueError, match="parents"):
            forward_numba.contact_forward(net, children, True, False, bad)
    out, _, _ = forward_numba.contact_forward(net, children, True, False, (start, parent))
    assert out.shape == (len(children), 5)
