"""Look-ahead: n-ply evaluation of positions, batched over positions, rolls and replies.

For a position S with side X on roll, the n-ply probabilities (X's view) are

    P_0(S) = the network's output
    P_n(S) = sum over the 21 rolls r (weights 1/36 for doubles, 2/36 otherwise) of
             flip( P_{n-1}( flip(best_r) ) )

where best_r is the play X would make with roll r, chosen by 0-ply equity (as gnubg does inside its
search: the move at an inner node is picked by the quick evaluation and then looked at more deeply).
A finished game scores its exact result. Every level is one move-generator call and one network call
for the whole frontier: positions x rolls.

Which candidates of a root position are looked at that deeply (a move filter in the spirit of
gnubg's) is the policy's decision: model/players/cube_policy.py's ``CubePolicy.rank_plays``.

``net`` is anything with ``config`` and ``probabilities(positions, device)``: a model.net.network.OutcomeNet
or a model.net.inference.NumpyNet.
"""

from __future__ import annotations

import numpy as np

from engine.board import CHECKERS, OFF, flip, winner_score
from engine.groups import group_argmax, group_rank
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from model.net.equity import cubeless_equity, flip_probs, outcome_targets
from model.net.evaluator import child_probabilities
from model.search.top_plays import roll_plays


def evaluate_positions(net, positions: np.ndarray, plies: int, device="cpu", prune: int = 0) -> np.ndarray:
    """n-ply probabilities (B, K) of positions (B, 28), each for its side on roll. ``prune`` = K > 0
    (backgammon): each roll's best play is chosen among the K that pubeval scores highest, at every
    level (model/search/top_plays.py's ``roll_plays``), instead of among every legal play."""
    game = net.config.game
    positions = np.asarray(positions, dtype=np.int8)
    if plies <= 0 or len(positions) == 0:
        return net.probabilities(positions, device)
    n = len(positions)
    rolls = len(ALL_ROLLS)
    children, parent = roll_plays(game, positions, prune)  # rows position * 21 + roll
    probs = child_probabilities(net, children, device, (positions, parent // rolls))  # mover's view
    best = group_argmax(cubeless_equity(game, probs), parent, n * rolls)
    chosen = children[best]
    done = chosen[:, OFF] == CHECKERS
    value = np.empty((n * rolls, probs.shape[1]))
    value[done] = outcome_targets(game, winner_score(game, chosen[done]))
    if (~done).any():
        if plies == 1:
            value[~done] = probs[best[~done]]
        else:
            deeper = evaluate_positions(net, flip(game, chosen[~done]), plies - 1, device, prune)
            value[~done] = flip_probs(game, deeper)
    weights = np.tile(ROLL_WEIGHTS, n)[:, None]
    return (value * weights).reshape(n, rolls, -1).sum(axis=1)


def child_probabilities_ahead(net, children: np.ndarray, plies: int, device="cpu", prune: int = 0) -> np.ndarray:
    """n-ply probabilities (N, K) of children (the mover just played), from the mover's view; ``prune``
    as ``evaluate_positions``."""
    if plies <= 0:
        return child_probabilities(net, children, device)
    game = net.config.game
    done = children[:, OFF] == CHECKERS
    out = np.empty((len(children), net.config.outputs))
    out[done] = outcome_targets(game, winner_score(game, children[done]))
    if (~done).any():
        out[~done] = flip_probs(game, evaluate_positions(net, flip(game, children[~done]), plies, device, prune))
    return out


MOVE_FILTER_KEEP, MOVE_FILTER_MARGIN = 8, 0.16
"""The move filter of every deeper look (look-ahead at plies > 0, hint, rollouts' candidates and their
trials' checker play): at most 8 plays within 0.16 equity of the best, as gnubg's default."""


def move_filter(util: np.ndarray, keep: int = MOVE_FILTER_KEEP, margin: float = MOVE_FILTER_MARGIN) -> np.ndarray:
    """The plays worth a closer look, best first: at most ``keep`` of the children of ONE position,
    each within ``margin`` of the best utility (ties keep the generator's order)."""
    order = np.argsort(-util, kind="stable")
    cand = order[:keep]
    return cand[util[cand] >= util[order[0]] - margin]


def move_filter_mask(util: np.ndarray, parent: np.ndarray, n: int, keep: int = MOVE_FILTER_KEEP,
                     margin: float = MOVE_FILTER_MARGIN) -> np.ndarray:
    """``move_filter`` for the children (N,) of a batch of ``n`` positions (``parent`` sorted): (N,) bool,
    the children the filter keeps (the same plays as ``move_filter`` of each position's block)."""
    top = util[group_argmax(util, parent, n)][parent]
    return (group_rank(util, parent, n) < keep) & (util >= top - margin)
