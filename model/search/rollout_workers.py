"""Rollout trials spread over Ray workers: ``evaluate.py rollout ... --workers N [--ray-address ...]``.

    engine = ray_trials(workers=2)                        # or ray_trials(2, address="HOST:PORT")
    result = rollout(net, position, dice, trials=1296, engine=engine)

model.search.rollout.rollout plays its trials through ``engine``; RayTrials stands in for
model/search/trials.py's Trials. Trial t's dice depend only on (seed, t) (trials.trial_dice), so any
range of trials can be played anywhere: the trials are cut into *chunks*, consecutive ranges of
about CHUNK_BATCHES x batch items (candidates x trials), chunk k played by one
``Trials(..., first=start_k)`` in a Ray worker, at most N chunks at a time. Each chunk's per-trial
results land in the arrays at its own trials, and rollout() computes every statistic from those
arrays as it does for an in-process run: the merge is exact.

The chunks depend on the trials, the candidates and the batch, never on N, and each is played the
same way wherever it runs. So one seed gives the same numbers to the last bit whatever N is (on
machines whose CPUs compute the network alike). A rollout without --workers batches its trials in
one pool instead, which changes the network's float32 sums in the last bits: its numbers agree with
these to about 1e-7, and the plays chosen are the same barring exact ties.

Ctrl-C stops the chunks in flight; the result keeps the trials of the chunks finished before the
first unfinished one, as rollout() does with the trials finished by every candidate.
"""

from __future__ import annotations

import math

import numpy as np

from model.net.cluster import start_ray
from model.search.trials import Candidates, Settings, Trials

CHUNK_BATCHES = 4  # items of a chunk, at most, in batches: long enough that its last plies cost little
MIN_CHUNKS = 8  # rollouts of fewer items are cut into chunks of at least one batch


def chunk_trials(candidates: int, trials: int, batch: int) -> int:
    """Trials per chunk: about trials / MIN_CHUNKS, kept between one and CHUNK_BATCHES batches of items."""
    items = min(max(candidates * trials / MIN_CHUNKS, batch), CHUNK_BATCHES * batch)
    return max(1, math.ceil(items / candidates))


def play_chunk(evaluator, cands: Candidates, trials: int, s: Settings, batch: int, first: int):
    """Trials first .. first + trials - 1 of every candidate: (probs, raw, cf, cf_raw) as Trials keeps them."""
    engine = Trials(evaluator, cands, trials, s, batch, first=first)
    engine.run()
    return engine.probs, engine.raw, engine.cf, engine.cf_raw


class RayTrials:
    """Trials' results (probs, raw, cf, cf_raw, c, completed, run) from chunks played by Ray workers."""

    def __init__(self, workers: int, address: str, evaluator, cands: Candidates, trials: int, s: Settings,
                 batch: int):
        self.workers, self.address = workers, address
        self.evaluator, self.c, self.s, self.batch, self.trials = evaluator, cands, s, batch, trials
        n_c, k = len(cands.positions), evaluator.config.outputs
        self.probs = np.full((n_c, trials, k), np.nan)
        self.raw = np.full((n_c, trials, k), np.nan)
        self.cf = np.full((n_c, trials), np.nan)
        self.cf_raw = np.full((n_c, trials), np.nan)
        self.done = np.zeros(trials, dtype=bool)
        size = chunk_trials(n_c, trials, batch)
        self.chunks = [(a, min(a + size, trials)) for a in range(0, trials, size)]

    def completed(self) -> int:
        """Trials t such that every trial <= t is finished (a prefix)."""
        return int(np.argmin(self.done)) if not self.done.all() else self.trials

    def run(self, progress=None) -> None:
        """Play every chunk, at most ``workers`` at a time; ``progress(n)`` as each chunk comes back."""
        ray, started = start_ray(self.address, self.workers)
        task = ray.remote(num_cpus=1, max_retries=3)(play_chunk)  # a chunk whose worker dies runs again
        shared = ray.put(self.evaluator)
        todo, pending = list(self.chunks), {}
        try:
            while todo or pending:
                while todo and len(pending) < self.workers:
                    a, b = todo.pop(0)
                    pending[task.remote(shared, self.c, b - a, self.s, self.batch, a)] = (a, b)
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)  # short: Ctrl-C stays prompt
                for ref in ready:
                    a, b = pending.pop(ref)
                    self.probs[:, a:b], self.raw[:, a:b], self.cf[:, a:b], self.cf_raw[:, a:b] = ray.get(ref)
                    self.done[a:b] = True
                    if progress is not None:
                        progress(b - a)
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            if started:
                ray.shutdown()


def ray_trials(workers: int, address: str = ""):
    """An ``engine`` for model.search.rollout.rollout that spreads the trials over ``workers`` Ray workers
    (on this machine, or the cluster at ``address``)."""

    def engine(evaluator, cands, trials, s, batch):
        return RayTrials(workers, address, evaluator, cands, trials, s, batch)

    return engine
