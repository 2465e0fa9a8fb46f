"""Rollouts over Ray workers (model/search/rollout_workers.py, evaluate.py rollout --workers): 1 and 2
workers give the very same statistics for one seed, the in-process rollout the same up to float32
rounding, and a trial range played alone gives the numbers it has inside the whole rollout. Needs
the [ray] extra (CI installs it)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from engine.board import start_position
from model.net.checkpoint import load_net
from model.search.rollout import rollout
from model.search.rollout_workers import chunk_trials
from model.search.trials import Trials
from tests.helpers import ROOT, save_tiny_checkpoints

TRIALS, SEED, BATCH = 60, 4, 16


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = save_tiny_checkpoints(tmp_path_factory.mktemp("workers"))["backgammon"]
    return path, load_net(path, backend="numpy")[0]


@pytest.fixture
def ray_here():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}})
    yield ray
    ray.shutdown()


def numbers(result) -> list:
    return [(p.label, p.equity, p.equity_se, p.raw_equity_se, *p.probs, *p.probs_se) for p in result.plays] + [
        tuple(result.separation.values())]


def test_one_and_two_workers_give_identical_statistics(tiny, ray_here):
    from model.search.rollout_workers import ray_trials

    path, net = tiny
    pos = start_position("backgammon", 1)[0]
    kw = {"trials": TRIALS, "seed": SEED, "truncate": 6, "batch": BATCH}
    one = rollout(net, pos, (4, 2), engine=ray_trials(1), **kw)
    two = rollout(net, pos, (4, 2), engine=ray_trials(2), **kw)
    assert len(one.plays) > 1 and 60 // chunk_trials(len(one.plays), TRIALS, BATCH) >= 2  # really split
    assert numbers(one) == numbers(two) and one.trials == two.trials == TRIALS
    here = rollout(net, pos, (4, 2), **kw)  # batched otherwise: float32 rounding apart
    assert [p.label for p in here.plays] == [p.label for p in one.plays]
    np.testing.assert_allclose([p.equity for p in here.plays], [p.equity for p in one.plays], atol=1e-6)

    # the command line, in a Ray of its own, gives the same numbers again
    ray_here.shutdown()
    done = subprocess.run([sys.executable, "evaluate.py", "rollout", "4HPwATDgc/ABMA", "--dice", "42", "--bot",
                           str(path), "--trials", str(TRIALS), "--seed", str(SEED), "--truncate", "6", "--batch",
                           str(BATCH), "--workers", "2", "--cubeless", "--json", "--no-progress"], cwd=ROOT,
                          capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    plays = json.loads(done.stdout)["plays"]
    assert [(p["move"], p["equity"], p["equity_se"]) for p in plays] == [
        (p.label, p.equity, p.equity_se) for p in one.plays]


def test_a_trial_range_plays_the_dice_of_its_own_trials(tiny):
    """Trials(first=a) of b - a trials (play_chunk, as a worker plays it) gives, trial for trial, what the same chunk gives inside a
    longer run whose chunk starts there (same batch): the dice are those of the trials' own numbers."""
    from model.search.rollout_workers import play_chunk

    _, net = tiny
    captured = {}

    def engine(*args):
        captured["args"] = args
        return Trials(*args)

    rollout(net, start_position("backgammon", 1)[0], trials=8, seed=SEED, truncate=4, engine=engine)
    evaluator, cands, _, s, _ = captured["args"]
    whole = play_chunk(evaluator, cands, 8, s, 8, 0)
    part = play_chunk(evaluator, cands, 4, s, 8, 4)
    for w, p in zip(whole, part):  # probs, raw, cf, cf_raw (cubeless: nan)
        np.testing.assert_allclose(w[:, 4:], p, atol=1e-6)
    assert not np.allclose(whole[0][:, :4], part[0], atol=1e-6)  # other trials, other dice


def test_bad_worker_flags_are_one_line():
    for flags in (["--workers", "-1"], ["--ray-address", "auto"], ["--workers", "1", "--ray-address", "127.0.0.1:1"]):
        done = subprocess.run([sys.executable, "evaluate.py", "rollout", "4HPwATDgc/ABMA", "--dice", "42", *flags],
                              cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 2 and "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_local_processes_give_the_numbers_of_one_process_to_rounding(tiny):
    """Forked processes (evaluate.py rollout's default): each process's trials played as in one process
    (the same dice: the trial numbers are kept), the results merged into the caller's arrays; the same
    numbers again for the same number of processes."""
    from model.search.rollout_workers import LocalTrials, local_trials

    _, net = tiny
    pos = start_position("backgammon", 1)[0]
    kw = {"trials": TRIALS, "seed": SEED, "truncate": 6, "batch": BATCH}
    captured = []

    def engine(*args):
        captured.append(local_trials(2)(*args))
        return captured[-1]

    two = rollout(net, pos, (4, 2), engine=engine, **kw)
    assert isinstance(captured[0], LocalTrials) and captured[0].done.all()
    again = rollout(net, pos, (4, 2), engine=local_trials(2), **kw)
    assert numbers(two) == numbers(again) and two.trials == TRIALS
    three = rollout(net, pos, (4, 2), engine=local_trials(3), **kw)
    here = rollout(net, pos, (4, 2), **kw)
    for other in (three, here):
        assert [p.label for p in other.plays] == [p.label for p in two.plays]
        np.testing.assert_allclose(values(other), values(two), atol=1e-6)
    one = []
    rollout(net, pos, trials=4, seed=SEED, truncate=2, engine=lambda *a: one.append(local_trials(1)(*a)) or one[-1])
    assert type(one[0]) is Trials  # one process: played here, nothing forked
    with pytest.raises(ValueError, match="processes"):
        local_trials(-1)


def values(result) -> np.ndarray:
    return np.array([[p.equity, p.equity_se, p.raw_equity_se, *p.probs, *p.probs_se] for p in result.plays])


def test_local_processes_stop_on_request_with_the_trials_finished(tiny):
    """A stop request (the web's cancel; Ctrl-C takes the same path) ends the processes; the result keeps
    the prefix of trials finished."""
    from model.search.rollout_workers import local_trials

    _, net = tiny
    pos = start_position("backgammon", 1)[0]
    seen = []
    part = rollout(net, pos, trials=20_000, seed=SEED, batch=BATCH, engine=local_trials(2),
                   progress=seen.append, stop=lambda: sum(seen) >= 20)
    assert part.interrupted and 20 <= part.trials < 20_000 and part.evaluation.trials == part.trials


def test_bad_processes_flag_is_one_line():
    done = subprocess.run([sys.executable, "evaluate.py", "rollout", "4HPwATDgc/ABMA", "--dice", "42",
                           "--processes", "-1"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--processes" in done.stderr, done.stderr


def test_forked_processes_run_every_kernel_and_give_the_numbers_of_one_such_process(monkeypatch):
    """A rollout's forked processes run every compiled kernel whatever this process runs (engine/
    compiled.py's use_every_kernel), unless numba is switched off: their numbers are those of one
    process on every kernel to the last digit, for 2 or 3 processes (each row's sums on their own),
    and this process keeps its own path."""
    pytest.importorskip("numba")
    from engine import compiled
    from model.bot import Bot
    from model.search.rollout_workers import local_trials

    net, pos = Bot.load().net, start_position("backgammon", 1)[0]

    def rolled(forced, processes=1):
        monkeypatch.setattr(compiled, "_forced", forced)
        result = rollout(net, pos, (3, 1), trials=24, seed=SEED, truncate=8, batch=8, plays="all",
                         engine=local_trials(processes))
        assert compiled._forced is forced
        return values(result)

    every, plain = rolled(True), rolled(False)  # in this process: every kernel, the matrix library
    assert every.tolist() != plain.tolist()  # the two forward passes differ in the last bits
    assert rolled(None, 2).tolist() == rolled(None, 3).tolist() == every.tolist()
    off = rolled(False, 2)  # use_numba(False) holds in the forked processes
    assert off.tolist() != every.tolist()
    np.testing.assert_allclose(off, plain, atol=1e-6)
