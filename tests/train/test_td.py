"""TD(lambda) pieces: lambda-returns, the self-play actor and the learner."""

import numpy as np
import torch

from engine.board import CHECKERS, OFF, is_valid
from model.net.equity import flip_probs
from model.net.network import NetConfig, OutcomeNet
from model.train.td import SelfPlayActor, TDLearner, lambda_returns, opening_dice


def test_lambda_returns_match_the_recursion_by_hand():
    """G_T = V_T and G_t = flip((1-l) V_{t+1} + l G_{t+1}), for games of different lengths."""
    rng = np.random.default_rng(0)
    values = rng.random((2, 4, 5))
    values[..., 1:3] *= values[..., :1]  # any numbers do; keep them in range
    lengths = np.array([4, 2])
    lam = 0.6
    got = lambda_returns("backgammon", values, lengths, lam)
    for g, n in enumerate(lengths):
        expect = values[g, n - 1]
        np.testing.assert_allclose(got[g, n - 1], expect)
        for t in range(n - 2, -1, -1):
            expect = flip_probs("backgammon", (1 - lam) * values[g, t + 1] + lam * expect)
            np.testing.assert_allclose(got[g, t], expect)
        assert not got[g, n:].any()


def test_lambda_returns_of_long_games_match_the_recursion_step_by_step():
    """The matrix form agrees with the recursion ply by ply for long games of mixed lengths (past the
    64- and 128-ply blocks of its cached weights), both games, with and without a final value apart."""
    rng = np.random.default_rng(5)
    for game, k in (("backgammon", 5), ("nardi", 3)):
        for lam in (0.0, 0.7, 1.0):
            lengths = np.array([1, 2, 63, 64, 65, 200, 129])
            values = rng.random((len(lengths), 200, k)).astype(np.float32)
            final = rng.random((len(lengths), k)).astype(np.float32)
            for given in (None, final):
                got = lambda_returns(game, values, lengths, lam, given)
                assert got.dtype == np.float32
                for g, n in enumerate(lengths):
                    expect = values[g, n - 1].astype(np.float64) if given is None else final[g].astype(np.float64)
                    np.testing.assert_array_equal(got[g, n - 1], expect.astype(np.float32))
                    for t in range(n - 2, -1, -1):
                        expect = flip_probs(game, (1 - lam) * values[g, t + 1] + lam * expect)
                        np.testing.assert_allclose(got[g, t], expect, rtol=1e-5, atol=1e-6)
                    assert not got[g, n:].any()


def test_lambda_one_gives_the_final_result_to_every_position():
    """With lambda = 1 every target is the game's result, seen by the side on roll at that ply."""
    values = np.zeros((1, 3, 3))
    values[0, 2] = [0.0, 0.0, 1.0]  # last side on roll lost a mars
    got = lambda_returns("nardi", values, np.array([3]), 1.0)
    np.testing.assert_allclose(got[0, 1], [1.0, 1.0, 0.0])  # the winner was on roll one ply earlier
    np.testing.assert_allclose(got[0, 0], [0.0, 0.0, 1.0])


def test_backgammon_opening_dice_are_never_doubles_and_cover_all_30_orders():
    """The opening throw plays the two different single dice."""
    dice = opening_dice("backgammon", np.random.default_rng(1), 20000)
    assert (dice[:, 0] != dice[:, 1]).all()
    assert len({tuple(d) for d in dice}) == 30


def test_actor_plays_legal_games_and_learner_reduces_loss():
    """Self-play yields valid positions with targets in [0, 1]; fitting them lowers the loss."""
    torch.manual_seed(0)
    for game in ("backgammon", "nardi"):
        net = OutcomeNet(NetConfig(game, (16,)))
        actor = SelfPlayActor(net, games=16, seed=3, max_plies=400)
        exp = actor.play(600)
        assert exp.games > 0 and len(exp.positions) >= 600
        assert is_valid(game, exp.positions).all()
        assert (exp.positions[:, OFF] < CHECKERS).all()
        assert (exp.targets >= 0).all() and (exp.targets <= 1).all()
        learner = TDLearner(net, lr=3e-3, batch_size=256)
        first = learner.update(exp.positions, exp.targets)["loss"]
        for _ in range(5):
            last = learner.update(exp.positions, exp.targets)["loss"]
        assert last < first


def test_net_probabilities_are_consistent():
    """Chained heads: win >= win gammon >= win backgammon, lose gammon <= 1 - win, etc."""
    net = OutcomeNet(NetConfig("backgammon", (8,)))
    with torch.no_grad():
        p = net(torch.randn(500, net.config.inputs) * 3).numpy()
    assert (p[:, 1] <= p[:, 0] + 1e-7).all() and (p[:, 2] <= p[:, 1] + 1e-7).all()
    assert (p[:, 3] <= 1 - p[:, 0] + 1e-7).all() and (p[:, 4] <= p[:, 3] + 1e-7).all()


def test_play_prune_plays_the_nets_best_of_pubevals_k_best():
    """With play_prune K, every ply's play is, of the K plays pubeval ranks highest for the roll, the one
    the net values most; the games stay legal and the learner gets the same kind of samples."""
    from engine.board import has_contact
    from engine.groups import group_argmax
    from engine.movegen import legal_plays
    from model.net.equity import cubeless_equity
    from model.net.evaluator import child_probabilities
    from model.search.top_plays import scores, top_distinct

    torch.manual_seed(0)
    net = OutcomeNet(NetConfig("backgammon", (16,)))
    k, n = 3, 24
    actor = SelfPlayActor(net, games=n, seed=5, play_prune=k)
    checked = differs = 0
    for _ in range(60):
        before = actor.table.pos.copy()
        state = actor.rng.bit_generator.state
        later = actor.table.plies > 0  # the opening's dice come from a second draw: checked apart
        chosen = actor._step()
        # the same dice again, every play scored: the actor's play is the net's best of pubeval's top k
        after = actor.rng.bit_generator.state
        actor.rng.bit_generator.state = state
        dice = actor.rng.integers(1, 7, (n, 2))
        actor.rng.bit_generator.state = after
        children, parent = legal_plays("backgammon", before, dice)
        top = top_distinct(scores(children, has_contact("backgammon", before)[parent]), parent, k)
        value = cubeless_equity("backgammon", child_probabilities(actor.forward, children))
        best_top = children[group_argmax(np.where(top, value, -np.inf), parent, n)]
        assert (chosen[later] == best_top[later]).all()
        differs += int((children[group_argmax(value, parent, n)] != best_top)[later].any(axis=1).sum())
        checked += int(later.sum())
        _, ended, _ = actor.table.end_turn(np.arange(n), chosen)
        actor.table.deal(np.flatnonzero(ended))
    assert checked >= n * 50 and differs > 0  # pruning does change some plays of this untrained net
    exp = SelfPlayActor(net, games=16, seed=2, play_prune=k).play(400)
    assert is_valid("backgammon", exp.positions).all() and exp.games > 0
    assert (exp.targets >= 0).all() and (exp.targets <= 1).all()
    assert SelfPlayActor(OutcomeNet(NetConfig("nardi", (8,))), games=2, play_prune=8).play_prune == 0


def test_the_plies_of_the_games_finished_are_their_lengths():
    """Experience.game_plies sums the lengths of the games it counts (training logs their mean as
    charts/mean_game_plies), also over several collected parts."""
    from model.train.td import collect

    torch.manual_seed(0)
    net = OutcomeNet(NetConfig("nardi", (8,)))
    actor = SelfPlayActor(net, games=24, seed=4)
    lengths: list[int] = []
    deal = actor.table.deal

    def recording_deal(slots):
        lengths.extend(actor.table.plies[slots].tolist())  # each ended game's plies, before its slot is dealt again
        deal(slots)

    actor.table.deal = recording_deal
    for _ in range(3):
        lengths.clear()
        exp = collect(actor, 1500, 10**9)
        assert exp.cut_off == 0 and exp.games == len(lengths) > 0
        assert exp.game_plies == sum(lengths)
        assert min(lengths) >= 29  # a long-nardi game lasts at least 29 plies (360 pips, at most 24 a turn)
