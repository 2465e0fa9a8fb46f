"""Look-ahead: the batched n-ply evaluation equals the definition worked out one roll at a time."""

import numpy as np
import torch

from engine.board import flip, start_position
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS, legal_plays
from engine.tools.sample import random_positions
from model.cube.match_equity import money
from model.net.equity import cubeless_equity, flip_probs
from model.net.evaluator import child_probabilities
from model.net.network import NetConfig, OutcomeNet
from model.players.cube_policy import CubePolicy, ranking_order
from model.search.lookahead import child_probabilities_ahead, evaluate_positions


def one_ply_by_hand(net, game, position):
    """P_1(S) = sum_r w_r flip(P_0(flip(best_r))) with best_r by 0-ply equity, one roll at a time."""
    total = 0
    for roll, w in zip(ALL_ROLLS, ROLL_WEIGHTS):
        kids, _ = legal_plays(game, position[None], roll[None])
        probs = child_probabilities(net, kids)
        total = total + w * probs[int(np.argmax(cubeless_equity(game, probs)))]
    return total


def test_one_ply_matches_the_definition():
    """Batched 1-ply equals the roll-by-roll computation, for both games."""
    torch.manual_seed(0)
    for game in ("backgammon", "nardi"):
        net = OutcomeNet(NetConfig(game, (16,)))
        positions = np.concatenate([start_position(game, 1), random_positions(game, 3, seed=5)[0]])
        got = evaluate_positions(net, positions, 1)
        for i, pos in enumerate(positions):
            np.testing.assert_allclose(got[i], one_ply_by_hand(net, game, pos), rtol=1e-5, atol=1e-6)


def test_two_ply_is_one_ply_of_the_best_replies():
    """P_2(S) averages, over the rolls, the 1-ply value of the position the 0-ply best play leaves."""
    torch.manual_seed(1)
    net = OutcomeNet(NetConfig("backgammon", (16,)))
    pos = start_position("backgammon")
    total = 0
    for roll, w in zip(ALL_ROLLS, ROLL_WEIGHTS):
        kids, _ = legal_plays("backgammon", pos[None], roll[None])
        probs = child_probabilities(net, kids)
        best = kids[int(np.argmax(cubeless_equity("backgammon", probs)))]
        total = total + w * flip_probs("backgammon", evaluate_positions(net, flip("backgammon", best[None]), 1)[0])
    np.testing.assert_allclose(evaluate_positions(net, pos[None], 2)[0], total, rtol=1e-5, atol=1e-6)


def test_the_policy_filters_then_looks_deeper():
    """Only candidates near the best are searched (model/players/cube_policy.py's move filter), and they rank
    above the rest."""
    torch.manual_seed(2)
    net = OutcomeNet(NetConfig("backgammon", (16,)))
    kids, parent = legal_plays("backgammon", start_position("backgammon", 1), np.array([[6, 4]]))
    policy = CubePolicy(net, plies=1, checker="cubeless", keep=3, margin=10.0)
    util, probs, depth = policy.rank_plays(kids, parent, [money(jacoby=False)])
    assert (depth == 1).sum() == 3
    order = ranking_order(util, depth)
    assert (depth[order[:3]] == 1).all()
    deep = depth == 1
    np.testing.assert_allclose(probs[deep], child_probabilities_ahead(net, kids[deep], 1))


def test_the_luck_keeps_each_rolls_k_best_by_score():
    """The rollouts' top-K per roll (K passes of group_argmax) is the first K of each group in a sort by
    score, ties to the first, groups smaller than K kept whole."""
    from engine.groups import group_top

    rng = np.random.default_rng(3)
    for _ in range(100):
        n = int(rng.integers(1, 25))
        parent = np.repeat(np.arange(n), rng.integers(1, 8, n))
        scores = rng.integers(0, 5, len(parent)).astype(float)
        for k in (1, 2, 4, 6):
            want = np.zeros(len(parent), dtype=bool)
            for g in range(n):
                rows = np.flatnonzero(parent == g)
                want[rows[np.argsort(-scores[rows], kind="stable")[:k]]] = True
            np.testing.assert_array_equal(group_top(scores, parent, n, k), want)
