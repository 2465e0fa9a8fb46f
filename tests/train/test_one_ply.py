"""Self-play toward the one-ply expectation (model/train/one_ply.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.board import CHECKERS, OFF, has_contact, is_valid
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from engine.tools.sample import random_positions
from model.net.equity import cubeless_equity
from model.net.evaluator import child_probabilities
from model.net.network import NetConfig, OutcomeNet
from model.net.pubeval import pubeval_scores
from model.search.lookahead import evaluate_positions
from model.train.one_ply import ROLLS, best_replies, throw
from model.train.td import SelfPlayActor


def _net(game: str, seed: int = 0) -> OutcomeNet:
    torch.manual_seed(seed)
    return OutcomeNet(NetConfig(game=game, hidden=(16,))).eval()


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_the_expectation_over_all_plays_is_the_one_ply_look_ahead(game):
    """With every play scored, V1 equals the project's 1-ply evaluation (model/search/lookahead.py)."""
    net = _net(game)
    positions, _ = random_positions(game, 40, seed=3)
    v1 = best_replies(net, game, positions, prune=0).expectation()
    np.testing.assert_allclose(v1, evaluate_positions(net, positions, 1), atol=1e-6)
    if game == "backgammon":  # pruned alike: the look-ahead's prune is the one-ply target's
        v1 = best_replies(net, game, positions, prune=3).expectation()
        np.testing.assert_allclose(v1, evaluate_positions(net, positions, 1, prune=3), atol=1e-6)
        assert not np.allclose(v1, evaluate_positions(net, positions, 1), atol=1e-6)


def test_pruning_scores_fewer_plays_and_keeps_the_chosen_plays_legal():
    """Prune K: each roll keeps 1..K of its legal plays, a non-double's those pubeval scores highest
    (model/search/top_plays.py); the expectation is the mean over the rolls, weighted by their
    chances, of each roll's best kept play by the net, never better in equity than the unpruned one."""
    net = _net("backgammon")
    positions, _ = random_positions("backgammon", 40, seed=4)
    full = best_replies(net, "backgammon", positions, prune=0)
    pruned = best_replies(net, "backgammon", positions, prune=2)
    per_roll = np.bincount(pruned.row, minlength=len(positions) * ROLLS)
    assert per_roll.min() >= 1 and per_roll.max() <= 2 and len(pruned.row) < len(full.row)
    legal = {(r, c.tobytes()) for r, c in zip(full.row, full.children)}
    assert all((r, c.tobytes()) in legal for r, c in zip(pruned.row, pruned.children))
    # a non-double's kept plays are those of pubeval's two best scores (plays of equal score count as
    # one; a double's come from a beam search, model/search/top_plays.py)
    race = ~has_contact("backgammon", positions)
    full_score = np.round(pubeval_scores(full.children, race[full.row // ROLLS]), 5)
    kept_score = np.round(pubeval_scores(pruned.children, race[pruned.row // ROLLS]), 5)
    for r in np.flatnonzero(np.tile(ALL_ROLLS[:, 0] != ALL_ROLLS[:, 1], len(positions))):
        best_two = np.unique(full_score[full.row == r])[::-1][:2]
        np.testing.assert_array_equal(np.sort(kept_score[pruned.row == r])[::-1], best_two)
    # V1 by hand: each roll's best kept play by the net (cubeless equity), weighted by the roll's chance
    kid_probs = child_probabilities(net, pruned.children)
    equity = cubeless_equity("backgammon", kid_probs)
    by_hand = np.zeros((len(positions), kid_probs.shape[1]))
    for r in range(len(positions) * ROLLS):
        mine = np.flatnonzero(pruned.row == r)
        by_hand[r // ROLLS] += ROLL_WEIGHTS[r % ROLLS] * kid_probs[mine[np.argmax(equity[mine])]]
    v_full, v_pruned = full.expectation(), pruned.expectation()
    np.testing.assert_allclose(v_pruned, by_hand, atol=1e-9)
    # each roll's unpruned pick is the best there is, so the pruned expectation never beats it in
    # equity (linear in the probabilities), and falls short where pubeval's two miss the net's best
    shortfall = cubeless_equity("backgammon", v_full) - cubeless_equity("backgammon", v_pruned)
    assert shortfall.min() >= -1e-9 and shortfall.max() > 0


def test_throws_fall_as_dice_do_and_openings_are_never_doubles():
    """Roll indices follow ROLL_WEIGHTS; a backgammon opening is one of the 15 non-doubles."""
    rng = np.random.default_rng(0)
    rolls = throw("backgammon", rng, np.zeros(200_000, dtype=bool))
    share = np.bincount(rolls, minlength=ROLLS) / len(rolls)
    np.testing.assert_allclose(share, ROLL_WEIGHTS, atol=0.004)
    opening = throw("backgammon", rng, np.ones(3000, dtype=bool))
    assert (ALL_ROLLS[opening, 0] != ALL_ROLLS[opening, 1]).all()
    assert len(np.unique(opening)) == 15
    assert (ALL_ROLLS[throw("nardi", rng, np.ones(3000, dtype=bool)), 0]
            == ALL_ROLLS[throw("nardi", rng, np.ones(3000, dtype=bool)), 1]).any()  # nardi opens with any roll


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_one_ply_actor_plays_legal_games_with_probability_targets(game):
    """The one-ply actor finishes games through legal positions; with lambda 0 each target is the
    recorded V1 of its position, a probability vector."""
    net = _net(game, seed=1)
    actor = SelfPlayActor(net, games=8, lam=0.0, seed=2, target="one-ply", prune=3)
    batch = actor.play(200)
    assert batch.games > 0
    assert is_valid(game, batch.positions).all()
    assert (batch.positions[:, OFF] < CHECKERS).all()
    assert np.all((batch.targets >= -1e-6) & (batch.targets <= 1 + 1e-6))
    v1 = best_replies(actor.evaluator, game, batch.positions[:5], prune=3).expectation()
    np.testing.assert_allclose(batch.targets[:5], v1, atol=1e-5)


def test_an_unknown_target_is_refused():
    with pytest.raises(ValueError, match="target"):
        SelfPlayActor(_net("backgammon"), games=2, target="rollout")


def test_lambda_one_carries_each_games_exact_result_to_all_its_positions(monkeypatch):
    """With lambda 1 the one-ply returns are the game's result (seen from each position's side):
    the final ply's own exact value starts the chain, not the V1 recorded beside it (made a
    constant 0.37 here, so that a V1 that happened to be exact cannot hide the difference)."""
    from model.train.one_ply import Replies

    monkeypatch.setattr(Replies, "expectation", lambda self: np.full((len(self.probs) // ROLLS, 5), 0.37))
    net = _net("backgammon", seed=3)
    actor = SelfPlayActor(net, games=6, lam=1.0, seed=4, target="one-ply", prune=2, max_plies=2000)
    batch = actor.play(100)
    assert batch.games > 0 and batch.cut_off == 0
    assert np.isin(np.round(batch.targets, 6), [0.0, 1.0]).all()  # every target an exact outcome


def test_lambda_returns_start_from_a_final_value_given_apart():
    """``final`` replaces the last entry as G_T; the step before mixes V(x_T) and G_T by lambda."""
    from model.net.equity import flip_probs
    from model.train.td import lambda_returns

    values = np.array([[[0.5, 0.1, 0.0, 0.1, 0.0], [0.4, 0.1, 0.0, 0.2, 0.0], [0.3, 0.0, 0.0, 0.0, 0.0]]])
    final = np.array([[1.0, 0.0, 0.0, 0.0, 0.0]])
    out = lambda_returns("backgammon", values, np.array([3]), 0.25, final)
    np.testing.assert_allclose(out[0, 2], final[0])
    np.testing.assert_allclose(out[0, 1], flip_probs("backgammon", 0.75 * values[0, 2] + 0.25 * final[0]))


def test_target_filter_script_reports_what_each_prune_loses(tmp_path):
    """scripts/target_filter.py: one row per K; a larger K misses fewer rolls' best plays and falls
    short by less."""
    import os
    import re
    import subprocess
    import sys

    from model.net.checkpoint import save
    from tests.helpers import ROOT

    path = tmp_path / "net.pt"
    save(path, _net("backgammon", seed=3))
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "target_filter.py"), str(path), "--k", "1,3",
                           "--positions", "60"], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          check=False, env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split() for line in proc.stdout.splitlines() if re.match(r"\s*\d+\s+\d\.\d{3}\s", line)]
    assert [r[0] for r in rows] == ["1", "3"]
    missed, gap, over = ([float(r[i]) for r in rows] for i in (1, 4, 7))
    assert missed[0] > 0  # pubeval's single best play often is not a random net's best
    # pubeval's best play is among its best three: K = 3 misses no roll's best that K = 1 finds, so it
    # misses no more, falls short by no more and no more often, and here strictly less
    assert missed[0] >= missed[1] and gap[0] >= gap[1] and over[0] >= over[1]
    assert missed[1] < missed[0] and gap[1] < gap[0]
    bad = subprocess.run([sys.executable, str(ROOT / "scripts" / "target_filter.py"), str(path), "--k", "x"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
