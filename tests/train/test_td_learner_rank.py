"""TDLearner.update's families: rows of a family share a minibatch, and the ranking term fits the
differences of cubeless equity within a family."""

from __future__ import annotations

import numpy as np
import torch

from engine.tools.sample import random_positions
from model.net.equity import cubeless_equity
from model.net.features import encode
from model.net.network import NetConfig, OutcomeNet
from model.train.td import TDLearner


def spread_error(net, pos, tgt, fam):
    """Mean squared error of the equity differences from each family's first row."""
    got, want = cubeless_equity("backgammon", net.probabilities(pos)), cubeless_equity("backgammon", tgt)
    first = np.searchsorted(fam, fam)
    return float(((got - got[first] - (want - want[first])) ** 2).mean())


def test_the_ranking_term_fits_differences_within_families_better():
    pos, _ = random_positions("backgammon", 1200, seed=5)
    fam = np.repeat(np.arange(300), 4)
    torch.manual_seed(2)
    teacher = OutcomeNet(NetConfig("backgammon", hidden=(16,)))
    tgt = teacher.probabilities(pos).astype(np.float32)
    errors = {}
    for weight in (0.0, 5.0):
        torch.manual_seed(3)
        learner = TDLearner(OutcomeNet(NetConfig("backgammon", hidden=(16,))), lr=3e-3, batch_size=64, seed=1)
        for _ in range(10):
            learner.update(pos, tgt, fam, weight)
        errors[weight] = spread_error(learner.net, pos, tgt, fam)
    assert errors[5.0] < 0.8 * errors[0.0], errors


def test_a_family_stays_in_one_minibatch():
    pos, _ = random_positions("backgammon", 96, seed=6)
    fam = np.repeat(np.arange(24), 4)  # 24 families of 4; batches of 8 hold two whole families each
    learner = TDLearner(OutcomeNet(NetConfig("backgammon", hidden=(4,))), batch_size=8, seed=2)
    batches, forward = [], learner.net.forward

    def recording(x):
        batches.append(x.detach().clone())
        return forward(x)

    learner.net.forward = recording
    learner.update(pos, np.full((96, 5), 0.5, dtype=np.float32), fam, 1.0)
    enc = torch.from_numpy(encode("backgammon", pos, learner.net.config.feature_version))
    row_of = {tuple(e.tolist()): i for i, e in enumerate(enc)}
    assert len(row_of) == 96 and len(batches) == 12
    for batch in batches:
        families = fam[[row_of[tuple(r.tolist())] for r in batch]]
        assert all(np.sum(families == f) == 4 for f in set(families))
