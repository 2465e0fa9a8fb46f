"""Rollouts (model/search/rollout.py, trials.py): stratified common dice, exact answers where the value
is known (two-sided bear-offs with an exact evaluator, truncation at one and two plies against the
look-ahead), the databases and the cube decision in bear-offs, candidates, bad input, interruption."""

import numpy as np
import pytest

from engine.board import flip, start_position
from engine.dice import throws
from engine.movegen import legal_plays
from engine.tools.sample import random_positions
from model.cube.decisions import CubeState, match
from model.cube.exact_bearoff import exact_cube_decision
from model.net import bearoff_two_sided as ts
from model.net.checkpoint import load_net
from model.net.equity import cubeless_equity
from model.net.evaluator import ExactEndgames
from model.search.lookahead import evaluate_positions
from model.search.rollout import rollout
from model.search.trials import NO_OWNER, Candidates, Settings, Trials, trial_dice
from tests.helpers import bearoff, save_tiny_checkpoints

SMALL = [bearoff([1, 1, 0, 1, 0, 0], [0, 2, 0, 0, 1, 0]), bearoff([2, 0, 0, 0, 0, 1], [1, 1, 1, 0, 0, 0]),
         bearoff([0, 0, 1, 0, 1, 1], [0, 0, 0, 2, 0, 0])]


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    paths = save_tiny_checkpoints(tmp_path_factory.mktemp("rollout"))
    return {game: load_net(path, backend="numpy")[0] for game, path in paths.items()}


def test_quasi_random_dice_are_stratified_and_pure():
    """Each aligned run of 36 trials throws every first roll once and every second roll once; 1,296
    throw every pair once; later throws are the arena's counter-based ones."""
    t = np.arange(1296)
    first, second = trial_dice(7, t, np.zeros(1296, int)), trial_dice(7, t, np.ones(1296, int))
    code = lambda d: (d[:, 0] - 1) * 6 + d[:, 1] - 1
    assert len(np.unique(code(first) * 36 + code(second))) == 1296
    for start in (0, 36, 504):
        block = slice(start, start + 36)
        assert len(np.unique(code(first[block]))) == 36 and len(np.unique(code(second[block]))) == 36
    np.testing.assert_array_equal(trial_dice(7, t[:50], np.full(50, 5)), throws(7, t[:50], np.full(50, 5)))
    np.testing.assert_array_equal(trial_dice(7, t[::-1][:10], np.zeros(10, int)), first[::-1][:10])


def test_an_exact_evaluator_makes_every_adjusted_trial_exact(nets):
    """Two-sided bear-offs played out (no database stop) with the exact evaluator: optimal play, and
    the luck adjustment telescopes to W exactly, so every trial gives the database's value; without
    the adjustment the interval still holds it."""
    exact = ExactEndgames(nets["backgammon"])
    for pos in SMALL:
        w = ts.two_sided_win(pos[None])[0]
        r = rollout(exact, pos, trials=24, bearoff=False, seed=3, prune=0)
        assert r.evaluation.equity == pytest.approx(2 * w - 1, abs=1e-9) and r.evaluation.equity_se < 1e-9
        raw = rollout(exact, pos, trials=400, bearoff=False, vr=False, seed=3)
        assert abs(raw.evaluation.equity - (2 * w - 1)) < 4 * raw.evaluation.equity_se + 1e-9
    pos = SMALL[0]
    r = rollout(exact, pos, dice=(2, 1), plays="all", trials=12, bearoff=False, prune=0)
    kids, _ = legal_plays("backgammon", pos[None], np.array([[2, 1]]))
    truth = sorted(1 - ts.two_sided_win(flip("backgammon", kids)), reverse=True)
    np.testing.assert_allclose([(e.equity + 1) / 2 for e in r.plays], truth, atol=1e-9)


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_truncation_after_one_and_two_plies_is_the_look_ahead(nets, game):
    """Truncated after one ply, 36 stratified trials average exactly the 1-ply value (every roll once);
    with the luck adjustment every single trial is that value. After two plies 1,296 trials give 2-ply."""
    net, pos = nets[game], start_position(game)
    one = evaluate_positions(net, pos[None], 1)[0]
    plain = rollout(net, pos, trials=36, truncate=1, vr=False, bearoff=False, seed=5)
    np.testing.assert_allclose(plain.evaluation.probs, one, atol=1e-9)
    adjusted = rollout(net, pos, trials=36, truncate=1, bearoff=False, seed=5, prune=0)
    np.testing.assert_allclose(adjusted.evaluation.probs, one, atol=1e-9)
    assert adjusted.evaluation.equity_se < 1e-9 < plain.evaluation.equity_se
    if game == "backgammon":
        two = rollout(net, pos, trials=1296, truncate=2, vr=False, bearoff=False, seed=1, batch=1296)
        np.testing.assert_allclose(two.evaluation.probs, evaluate_positions(net, pos[None], 2)[0], atol=1e-9)


def test_pruned_luck_changes_no_play_and_keeps_the_mean(nets):
    """The luck from a few plays a roll (prune 4, model/search/top_plays.py) changes no play: the raw
    trials are those of the luck from every play (prune 0). Truncated after one ply, 36 stratified
    trials still average exactly the 1-ply value: each first roll is thrown once, so the luck
    adjustments sum to zero, as they do only if the roll thrown is valued as the mean's rolls are."""
    net = nets["backgammon"]
    pos = random_positions("backgammon", 1, seed=4, kind="midgame")[0][0]
    cands = Candidates(pos[None], np.ones(1, bool), np.zeros(1, bool), np.ones(1, int), np.full(1, NO_OWNER),
                       np.zeros(1, bool))
    raw = []
    for prune in (0, 4):
        engine = Trials(net, cands, 12, Settings("backgammon", prune=prune, seed=2), 64)
        engine.run()
        raw.append(engine.raw)
    np.testing.assert_allclose(raw[0], raw[1], atol=1e-6)
    one = evaluate_positions(net, pos[None], 1)[0]
    adjusted = rollout(net, pos, trials=36, truncate=1, bearoff=False, seed=5, prune=4)
    np.testing.assert_allclose(adjusted.evaluation.probs, one, atol=1e-9)


def test_bearoffs_end_at_the_database_with_the_exact_cube_decision(nets):
    """A two-sided bear-off is valued by the database at once: exact cubeless value, and the money cube
    decision's no double / double, take from the exact cubeful tables."""
    pos = SMALL[1]
    r = rollout(nets["backgammon"], pos, trials=4, state=CubeState())
    assert r.evaluation.equity == pytest.approx(2 * ts.two_sided_win(pos[None])[0] - 1)
    exact = exact_cube_decision(pos[None])
    c = r.cube_decision
    assert c["no_double"]["value"] == pytest.approx(exact.no_double[0])
    assert c["double_take"]["value"] == pytest.approx(exact.double_take[0])
    assert c["double"] == exact.double[0]


def test_common_dice_whatever_the_batch(nets):
    """Two identical candidates get identical trials (same dice stream per trial), and the results do
    not depend on how many items are in play at once."""
    net, pos = nets["backgammon"], start_position("backgammon")
    cands = Candidates(np.stack([pos, pos]), np.ones(2, bool), np.zeros(2, bool), np.ones(2, int),
                       np.full(2, NO_OWNER), np.zeros(2, bool))
    runs = []
    for batch in (3, 40):
        t = Trials(net, cands, 10, Settings("backgammon", truncate=6, seed=2), batch)
        t.run()
        runs.append(t.probs)
    np.testing.assert_allclose(runs[0][0], runs[0][1], atol=1e-7)  # float32 sums vary with the batch
    np.testing.assert_allclose(runs[0], runs[1], atol=1e-7)


def test_candidates_and_cubeful_trials(nets):
    """The filter, 'all' and named plays; cubeful money and match trials run and rank by their value;
    a nardi rollout gives nardi's three probabilities."""
    net, pos = nets["backgammon"], start_position("backgammon")
    every = rollout(net, pos, dice=(3, 1), plays="all", trials=2, truncate=2)
    assert len(every.plays) == 16 and every.separation is not None
    named = rollout(net, pos, dice=(3, 1), plays=["8/5 6/5", "24/21 6/5", "6/5 8/5"], trials=4, truncate=4)
    assert sorted(e.label for e in named.plays) == ["24/21 6/5", "8/5 6/5"]
    for state in (CubeState(), match(5, 2, 3)):
        r = rollout(net, pos, dice=(3, 1), trials=4, truncate=6, state=state, cubeful=True, plays="all")
        values = [e.cubeful for e in r.plays]
        assert np.isfinite(values).all() and values == sorted(values, reverse=True)
    r = rollout(net, pos, trials=6, truncate=4, state=match(5, 2, 3))
    assert r.cube_decision["unit"] == "mwc" and 0 <= r.cube_decision["no_double"]["value"] <= 1
    nardi = rollout(nets["nardi"], start_position("nardi"), dice=(6, 5), trials=2, truncate=3)
    assert len(nardi.plays[0].probs) == 3
    assert cubeless_equity("nardi", nardi.plays[0].probs) == pytest.approx(nardi.plays[0].equity)



def test_plays_are_rolled_out_cubeful_whenever_a_cube_state_is_given(nets):
    """The one default of every rollout of a roll (``cubeful`` unsaid): with a cube state the plays
    are rolled out with the cube in play, the very trials of ``cubeful=True``; without one, or with
    ``cubeful=False``, cubeless."""
    net, pos = nets["backgammon"], start_position("backgammon")
    plain = rollout(net, pos, dice=(4, 2), trials=4, truncate=4, state=CubeState(), plays="all")
    cubeful = rollout(net, pos, dice=(4, 2), trials=4, truncate=4, state=CubeState(), plays="all", cubeful=True)
    assert plain.settings["cubeful"] is True and all(e.cubeful is not None for e in plain.plays)
    assert [(e.label, e.cubeful) for e in plain.plays] == [(e.label, e.cubeful) for e in cubeful.plays]
    for r in (rollout(net, pos, dice=(4, 2), trials=4, truncate=4, plays="all"),
              rollout(net, pos, dice=(4, 2), trials=4, truncate=4, state=CubeState(), plays="all", cubeful=False)):
        assert r.settings["cubeful"] is False and all(e.cubeful is None for e in r.plays)

def test_bad_input_is_refused(nets):
    """No legal play, a finished game, an illegal play, too few trials: ValueError with the reason."""
    net = nets["backgammon"]
    closed = np.zeros(28, dtype=np.int8)
    closed[:6], closed[18:24], closed[24] = [-3, 0, 0, 0, 0, 14], -2, 1
    with pytest.raises(ValueError, match="no legal play"):
        rollout(net, closed, dice=(6, 5), trials=4)
    with pytest.raises(ValueError, match="over"):
        rollout(net, bearoff([0] * 6, [1, 0, 0, 0, 0, 0]), trials=4)
    with pytest.raises(ValueError, match="24/18"):
        rollout(net, start_position("backgammon"), dice=(3, 1), plays=["24/18"], trials=4)
    with pytest.raises(ValueError, match="trials"):
        rollout(net, start_position("backgammon"), trials=0)


def test_ctrl_c_keeps_the_finished_trials(nets):
    """A KeyboardInterrupt during the trials: the result of the trials every candidate finished."""
    seen = []

    def progress(n):
        seen.append(n)
        if sum(seen) >= 10:
            raise KeyboardInterrupt

    r = rollout(nets["backgammon"], start_position("backgammon"), trials=60, truncate=8, batch=8, progress=progress)
    assert r.interrupted and 10 <= r.trials < 60 and r.evaluation.trials == r.trials


def test_pruned_luck_stays_unbiased_and_the_pruning_score_is_pubeval(nets):
    """The table look-up score equals pubeval's; with pruning the luck still telescopes to the 1-ply
    value after one ply (every trial), since the plays themselves are not pruned."""
    from engine.board import has_contact
    from engine.tools.sample import random_positions
    from model.net.pubeval import fast_scores, pubeval_scores

    pos, dice = random_positions("backgammon", 200, seed=4)
    kids, parent = legal_plays("backgammon", pos, dice)
    race = (~has_contact("backgammon", pos))[parent]
    np.testing.assert_allclose(fast_scores(kids, race), pubeval_scores(kids, race), atol=1e-4)
    net, start = nets["backgammon"], start_position("backgammon")
    r = rollout(net, start, trials=36, truncate=1, bearoff=False, prune=2, seed=2)
    plain = rollout(net, start, trials=36, truncate=1, bearoff=False, vr=False, seed=2)
    np.testing.assert_allclose(r.evaluation.probs, plain.evaluation.probs, atol=1e-9)


def test_trials_hold_the_blas_to_blas_threads_and_restore_it(nets):
    """While trials are played numpy's BLAS runs BLAS_THREADS threads (trials.py); afterwards it has
    its own number again."""
    import threadpoolctl

    from model.search import trials

    def blas():
        return [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]

    before, seen = blas(), []
    if not before:
        pytest.skip("numpy's BLAS is not one threadpoolctl knows")
    rollout(nets["backgammon"], start_position("backgammon"), trials=4, seed=1,
            progress=lambda n: seen.append(blas()))
    assert seen and all(threads == [trials.BLAS_THREADS] * len(before) for threads in seen)
    assert blas() == before


@pytest.mark.parametrize("plies", [1, 2])
def test_a_stop_is_seen_within_a_ply_of_a_look_ahead(nets, monkeypatch, plies):
    """A server's cancel (``stop()``) is asked before every block of the network's calls, not only after
    a ply (one ply of 2-ply trials scores millions of positions, minutes of work): asked to stop once
    three blocks are scored, the rollout scores no fourth and ends (no trial finished: KeyboardInterrupt)."""
    from model.net.inference import NumpyNet

    net, blocks, block = nets["backgammon"], [], NumpyNet._block
    assert isinstance(net, NumpyNet)
    monkeypatch.setattr(NumpyNet, "_block", lambda self, p: blocks.append(len(p)) or block(self, p))
    with pytest.raises(KeyboardInterrupt):
        rollout(net, start_position("backgammon"), trials=64, plies=plies, stop=lambda: len(blocks) >= 3)
    assert len(blocks) == 3


def test_a_stop_never_asked_for_changes_no_number(nets):
    """Asking ``stop()`` between the network's blocks leaves every number as it is, to the bit (the
    blocks are the ones the network makes of a large call itself)."""
    from model.search.rollout import estimate_json

    net, pos = nets["backgammon"], start_position("backgammon")
    kw = {"dice": (3, 1), "plays": ["8/5 6/5", "24/21 6/5"], "trials": 4, "plies": 1, "truncate": 1,
          "seed": 4}  # network calls of 100,000+ rows
    plain, watched = rollout(net, pos, **kw), rollout(net, pos, stop=lambda: False, **kw)
    assert [estimate_json("backgammon", e) for e in plain.plays] == [estimate_json("backgammon", e)
                                                                      for e in watched.plays]
    assert plain.separation == watched.separation


def test_the_process_pool_stops_on_request(nets):
    """Trials in forked processes (model/search/rollout_workers.py's LocalTrials) honour a stop too: the
    rollout ends with no trial finished and no process is left behind."""
    import multiprocessing

    from model.search.rollout_workers import local_trials

    with pytest.raises(KeyboardInterrupt):
        rollout(nets["backgammon"], start_position("backgammon"), trials=64, plies=2, engine=local_trials(2),
                stop=lambda: True)
    assert not multiprocessing.active_children()
