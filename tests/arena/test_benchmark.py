"""The checker-play benchmark: losses and error rates on hand-made data, the shipped file's contents,
and the ``benchmark`` command."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from engine.board import start_position
from engine.movegen import legal_plays
from model.arena.benchmark import (
    CLASSES,
    DEFAULT_PATH,
    Benchmark,
    choose,
    error_rates,
    load_benchmark,
    losses,
    save_benchmark,
)
from model.players.base import Player
from tests.helpers import ROOT

GAME = "backgammon"


class Scripted(Player):
    """Plays, in position i, its ``picks[i]``-th legal play (indices within the position's own plays)."""

    def __init__(self, picks):
        super().__init__(GAME)
        self.picks = np.asarray(picks)

    def select(self, positions, dice, children, parent):
        start = np.searchsorted(parent, np.arange(len(positions)))
        return start + self.picks[: len(positions)]


def hand_made() -> Benchmark:
    """The opening position with 3-1 (contact) and with 6-5 (called crashed here, to have two classes):
    every legal play, 2-ply equities set by hand: play 0 the best, play 1 worse by 0.050 (3-1) and
    0.200 (6-5), play 2 not judged (NaN), 0-ply equities 0.010 below the 2-ply ones where judged."""
    start = start_position(GAME, 1)
    positions, dice = np.repeat(start, 2, axis=0), np.array([[3, 1], [6, 5]])
    children, parent = legal_plays(GAME, positions, dice)
    counts = np.bincount(parent)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    eq2 = np.full(len(children), np.nan)
    eq0 = np.linspace(-0.3, -0.2, len(children))
    for i, (best, gap) in enumerate([(0.10, 0.05), (0.02, 0.20)]):
        a = offsets[i]
        eq2[a], eq2[a + 1] = best, best - gap
        eq0[a], eq0[a + 1] = best - 0.01, best - gap - 0.01
    return Benchmark(positions, dice, np.array([5, 4], dtype=np.int8), offsets, children, eq0, eq2,
                     {"made": "by hand"})


def test_the_best_play_loses_nothing_and_a_worse_one_its_gap():
    """Play 0 scores 0; play 1 scores 0.05 and 0.20; the ER is their mean x 1000 per class and overall."""
    bench = hand_made()
    best = losses(bench, choose(Scripted([0, 0]), bench))
    assert best.loss.tolist() == [0.0, 0.0] and not best.estimated.any()
    worse = losses(bench, choose(Scripted([1, 1]), bench)).loss
    assert worse == pytest.approx([0.05, 0.20])
    rates = error_rates(bench, worse)
    assert rates["contact"]["er"] == pytest.approx(50.0) and rates["crashed"]["er"] == pytest.approx(200.0)
    assert rates["overall"]["er"] == pytest.approx(125.0)
    assert rates["overall"]["ci95"] == pytest.approx(1.96 * np.std([50.0, 200.0], ddof=1) / np.sqrt(2))
    assert rates["contact"]["positions"] == 1 and "race" not in rates


def test_an_unjudged_pick_is_judged_now_or_estimated_from_0ply():
    """Play 2 has no 2-ply equity: a judge gives it one; without a judge its 0-ply equity is shifted by
    the position's mean 2-ply minus 0-ply difference (+0.010 here); a judged value above the best is
    no loss."""
    bench = hand_made()
    chosen = choose(Scripted([2, 2]), bench)
    judged = losses(bench, chosen, judge=lambda children: np.array([0.07, 0.5]))
    assert judged.loss == pytest.approx([0.03, 0.0]) and judged.judged_now.all()
    estimated = losses(bench, chosen)
    expected = bench.best_2ply() - (bench.equity_0ply[chosen] + 0.01)
    assert estimated.loss == pytest.approx(expected) and estimated.estimated.all()


def test_a_subset_and_a_saved_file_keep_every_play(tmp_path):
    """subset picks positions with their own plays; save_benchmark and load_benchmark round-trip."""
    bench = hand_made()
    second = bench.subset([1])
    assert len(second) == 1 and (second.children == bench.children[bench.offsets[1]:]).all()
    save_benchmark(tmp_path / "b.npz", bench)
    back = load_benchmark(tmp_path / "b.npz")
    assert back.meta == {"made": "by hand"} and (back.children == bench.children).all()
    assert np.array_equal(back.equity_2ply, bench.equity_2ply, equal_nan=True)


def test_a_player_that_picks_another_positions_play_is_refused():
    """choose checks every pick lies among its own position's plays."""
    bench = hand_made()
    with pytest.raises(ValueError, match="another position"):
        choose(Scripted([30, 0]), bench)


def test_the_shipped_benchmark_holds_what_it_promises():
    """At least 1,000 contact, crashed and race positions; each position's stored plays are exactly its
    legal plays (checked on a sample); gnubg 0-ply's best play (or one of those tied best) is judged at
    2-ply everywhere."""
    bench = load_benchmark(DEFAULT_PATH)
    classes = bench.classes
    for name in ("contact", "crashed", "race"):
        assert (classes == name).sum() >= 1000
    assert set(classes) <= set(CLASSES)
    rng = np.random.default_rng(0)
    sample = bench.subset(np.sort(rng.choice(len(bench), 40, replace=False)))
    children, parent = legal_plays(GAME, sample.positions, sample.dice.astype(np.int64))
    for i in range(len(sample)):
        ours = {row.tobytes() for row in children[parent == i].astype(np.int8)}
        stored = {row.tobytes() for row in sample.children[sample.offsets[i]: sample.offsets[i + 1]]}
        assert ours == stored
    top0 = np.maximum.reduceat(bench.equity_0ply, bench.offsets[:-1])
    for a, b, top in zip(bench.offsets[:-1], bench.offsets[1:], top0):  # ties: one of them is judged
        assert np.isfinite(bench.equity_2ply[a:b][bench.equity_0ply[a:b] == top]).any()


def test_gnubg_classes_of_a_sample_match_the_stored_ones():
    """The stored class codes are gnubg-nn's classify of the positions (a sample)."""
    from model.players.gnubg import classify, import_gnubg

    gnubg = pytest.importorskip("gnubg_nn") and import_gnubg()
    bench = load_benchmark(DEFAULT_PATH)
    index = np.random.default_rng(1).choice(len(bench), 200, replace=False)
    assert (classify(gnubg, bench.positions[index]) == bench.gnubg_class[index]).all()


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "benchmark", *args], check=False, cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)


def test_the_command_scores_players_and_refuses_bad_input(tmp_path):
    """Two players on the hand-made file: a line each and the paired difference; a missing file and an
    unknown player are one line and exit status 2."""
    save_benchmark(tmp_path / "b.npz", hand_made())
    done = run("pubeval", "heuristic", "--file", str(tmp_path / "b.npz"), "--no-judge")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2].startswith("pubeval") and lines[3].startswith("heuristic")
    assert "heuristic minus pubeval, paired:" in done.stdout
    missing = run("pubeval", "--file", str(tmp_path / "none.npz"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    unknown = run("nobody", "--file", str(tmp_path / "b.npz"))
    assert unknown.returncode == 2 and "nobody" in unknown.stderr


def test_training_reports_a_nets_error_rates_without_gnubg(tmp_path):
    """model/train/evaluation.py benchmark_check: a tiny net's ERs are its own picks' losses, and its
    unjudged picks are counted as estimated."""
    from model.net.checkpoint import load_net
    from model.players.net_player import NetPlayer
    from model.train.evaluation import benchmark_check
    from tests.helpers import save_tiny_checkpoints

    save_benchmark(tmp_path / "b.npz", hand_made())
    net, _ = load_net(save_tiny_checkpoints(tmp_path)[GAME], GAME)
    report = benchmark_check(net, tmp_path / "b.npz")
    bench = hand_made()
    result = losses(bench, choose(NetPlayer(net), bench))
    assert report["contact"][0] == pytest.approx(1000 * result.loss[0])
    assert report["overall"][0] == pytest.approx(500 * result.loss.sum())
    assert report["estimated"] == int(result.estimated.sum())
