"""Exact endgames (model/net/evaluator.py): bear-off rows come from the databases, the rest from the
network untouched; the play loaders wrap only when asked (or when EXACT_ENDGAMES says so)."""

import numpy as np
import pytest

from engine.board import start_position
from engine.tools.sample import random_positions
from model.net import evaluator
from model.net.bearoff import bearoff_mask, bearoff_probabilities
from model.net.bearoff_two_sided import two_sided_win
from model.net.evaluator import ExactEndgames, with_exact_endgames
from model.net.inference import NumpyNet
from model.players.net_player import load_player
from model.players.registry import make_player, parse_checkpoint_spec
from tests.helpers import bearoff, save_tiny_checkpoints


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    return save_tiny_checkpoints(tmp_path_factory.mktemp("exact"))


def test_bearoff_rows_are_exact_and_the_rest_untouched(paths):
    """Mixed batch: the net's numbers where no database applies, one-sided race numbers in one-sided
    bear-offs, the two-sided exact win (no gammons) where both sides have at most 6 checkers."""
    net = load_player(paths["backgammon"], exact_endgames=False).net
    exact = ExactEndgames(net)
    small, big = bearoff([2, 1, 0, 0, 0, 1], [1, 1, 1, 0, 0, 0]), bearoff([3, 3, 3, 2, 2, 2], [2, 2, 2, 3, 3, 3])
    batch = np.concatenate([start_position("backgammon", 1), small[None], big[None],
                            random_positions("backgammon", 20, seed=3)[0]])
    got = exact.probabilities(batch)
    mask = bearoff_mask("backgammon", batch)
    np.testing.assert_array_equal(got[~mask], net.probabilities(batch[~mask]))
    np.testing.assert_allclose(got[1], [two_sided_win(small[None])[0], 0, 0, 0, 0])
    np.testing.assert_allclose(got[2], bearoff_probabilities("backgammon", big[None])[0], rtol=1e-6)
    assert exact.config is net.config and exact.eval() is exact


def test_nardi_uses_the_one_sided_table(paths):
    """Long nardi: the same one-sided database (mars = gammon), no two-sided table."""
    net = load_player(paths["nardi"], exact_endgames=False).net
    pos = np.zeros((1, 28), dtype=np.int8)
    pos[0, :3] = [2, 1, 1]
    pos[0, 12:15] = [-1, -1, -2]  # the opponent's points 1..3 are my 13..15
    pos[0, 26], pos[0, 27] = 11, 11
    np.testing.assert_allclose(ExactEndgames(net).probabilities(pos), bearoff_probabilities("nardi", pos))


def test_loaders_wrap_only_when_asked(paths, monkeypatch):
    """load_player and make_player: on by default (EXACT_ENDGAMES), off with exact_endgames=False or
    the +noexact suffix, on with the +exact suffix whatever the module default."""
    assert isinstance(load_player(paths["backgammon"]).net, ExactEndgames)
    monkeypatch.setattr(evaluator, "EXACT_ENDGAMES", False)
    assert isinstance(load_player(paths["backgammon"]).net, NumpyNet)
    assert isinstance(load_player(paths["backgammon"], exact_endgames=True).net, ExactEndgames)
    player = make_player(f"{paths['backgammon']}+exact", "backgammon")
    assert isinstance(player.net, ExactEndgames) and player.name.endswith("+exact")
    assert parse_checkpoint_spec("a.pt+noexact").exact is False
    monkeypatch.setattr(evaluator, "EXACT_ENDGAMES", True)
    assert isinstance(load_player(paths["backgammon"]).net, ExactEndgames)
    assert isinstance(make_player(f"{paths['backgammon']}+noexact", "backgammon").net, NumpyNet)
    raw = load_player(paths["backgammon"], exact_endgames=False).net
    wrapped = with_exact_endgames(raw)
    assert isinstance(wrapped, ExactEndgames) and with_exact_endgames(wrapped, False) is wrapped.net


def test_the_td_actor_can_learn_from_exact_endgames():
    """SelfPlayActor(exact_endgames=True) plays and records values through the databases."""
    from model.net.network import NetConfig, OutcomeNet
    from model.train.td import SelfPlayActor

    actor = SelfPlayActor(OutcomeNet(NetConfig("backgammon", (8,))), games=4, exact_endgames=True)
    assert isinstance(actor.evaluator, ExactEndgames) and actor.evaluator.net is actor.forward
    assert actor.forward.net is actor.net  # the net itself, its point units from a table (TableForward)
    batch = actor.play(50)
    assert len(batch.positions) >= 50 and np.isfinite(batch.targets).all()


def test_every_evaluator_follows_the_one_interface(paths):
    """The torch net, its numpy twin, the lookup-table forward pass, the ensemble mean and the exact
    endgames are each an Evaluator: one batch of positions in, its probabilities out, the same numbers
    whichever wraps them (the race split, which needs a race net, is checked in tests/net/test_race.py)."""
    from model.net.checkpoint import load_net
    from model.net.ensemble import MeanNet
    from model.net.table_forward import TableForward

    torch_net, _ = load_net(paths["backgammon"], backend="torch")
    numpy_net, _ = load_net(paths["backgammon"], backend="numpy")
    wrapped = [numpy_net, TableForward(torch_net), MeanNet([numpy_net, numpy_net]),
               ExactEndgames(numpy_net)]
    positions, _ = random_positions("backgammon", 64, seed=4)
    positions = positions[~bearoff_mask("backgammon", positions)]
    want = torch_net.probabilities(positions)
    for candidate in [torch_net, *wrapped]:
        assert isinstance(candidate, evaluator.Evaluator), type(candidate).__name__
        got = candidate.eval().probabilities(positions, "cpu")
        np.testing.assert_allclose(got, want, atol=1e-5, err_msg=type(candidate).__name__)
