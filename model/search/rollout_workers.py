"""Rollout trials spread over processes: this machine's cores (``nardibot rollout``'s default,
``--processes N``) or Ray workers (``--workers N [--ray-address ...]``).

    engine = local_trials(2)                              # processes forked from this one
    engine = ray_trials(workers=2)                        # or ray_trials(2, address="HOST:PORT")
    result = rollout(net, position, dice, trials=1296, engine=engine)

model.search.rollout.rollout plays its trials through ``engine``; LocalTrials and RayTrials stand in
for model/search/trials.py's Trials. Trial t's dice depend only on (seed, t) (trials.trial_dice), so
any set of trials can be played anywhere, and each trial's results land in the arrays at its own
number: rollout() computes every statistic from those arrays as it does for an in-process run.

Local processes (LocalTrials) are forked from this one (Linux and macOS): they inherit the network
and the candidates, and write each finished trial's results straight into arrays they share with
this process, which watches them for the progress bar. Process k of N plays trials k, k + N,
k + 2N, ... in one pool of its own, so each process batches as many trials as one process would
(small pools cost: 324 trials of the opening took 20 CPU seconds per 1,000 trials in pools of 41,
27 in pools of 162, 29 in one of 324; scripts/bench_rollout.py). They ignore Ctrl-C, which this
process handles: it ends them, and the result keeps the trials finished before the first
unfinished one, as rollout() does with the trials finished by every candidate. Networks on torch
(a GPU) are not forked: their rollouts stay in one process (torch's threads do not survive a fork).

Ray workers (RayTrials) play *chunks*, consecutive trial ranges of about a MIN_CHUNKS-th of the items
(candidates x trials), at least one batch and at most CHUNK_BATCHES batches of them, chunk k played
by one ``Trials(..., first=start_k)``, at most N at a time. The chunks depend on the
trials, the candidates and the batch, never on N, so one seed gives the same numbers to the last bit
whatever N is (on machines whose CPUs compute the network alike).

Every process that plays trials, forked or a Ray worker, runs every compiled kernel where numba is
installed (engine/compiled.py's ``use_every_kernel``), the network's forward pass included, whatever
the process that started it runs: a rollout is long work, and its numbers are all its own. That
kernel's numbers for a row depend on the row (and the position it was played from) only, not on its
batch: one seed gives the same numbers for any N, and as ``nardibot rollout --processes 1`` (which
runs every kernel too), up to the last float64 digit or two of the cubeful values (sums of other
lengths). Before forking, this
process loads the bear-off databases (and, where it runs every kernel itself, the kernels) once for
all of them (``LocalTrials._prepare``). Without numba the forward pass is the matrix library's, whose
float32 sums depend in their last bits on how many rows go through it together (the BLAS blocks its
products by rows): the very same numbers for the same N processes (or any N Ray workers), numbers
that agree to float32 rounding (about 1e-7) otherwise; the plays chosen are the same barring exact
ties.
"""

from __future__ import annotations

import math
import mmap
import multiprocessing
import multiprocessing.connection
import os
import signal
from dataclasses import replace

import numpy as np

from engine import compiled
from model.net.cluster import start_ray
from model.net.evaluator import ExactEndgames
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


def _play_chunk_on_worker(evaluator, cands: Candidates, trials: int, s: Settings, batch: int, first: int):
    """play_chunk in a Ray worker, which runs every kernel as a forked process does (``_play_share``)."""
    compiled.use_every_kernel()
    return play_chunk(evaluator, cands, trials, s, batch, first)


class RayTrials:
    """Trials' results (probs, raw, cf, cf_raw, c, completed, run) from chunks played by Ray workers, on
    this machine or the cluster at ``address``."""

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
        task = ray.remote(num_cpus=1, max_retries=3)(_play_chunk_on_worker)  # a chunk whose worker dies runs again
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


_FORKED: tuple = ()  # what forked processes play: (evaluator, cands, settings, batch, shared results), set before


def _shared(shape, dtype) -> np.ndarray:
    """A zeroed array in memory that processes forked later share with this one."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    return np.frombuffer(mmap.mmap(-1, max(size, 1)), dtype=dtype, count=int(np.prod(shape))).reshape(shape)


def _play_share(numbers: np.ndarray) -> None:
    """A forked process: play the trials ``numbers`` in one pool, copying each finished trial's results
    into the shared arrays (the flag last) after every ply."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the processes on Ctrl-C
    compiled.use_every_kernel()  # its numbers are all its own: the fastest path, whatever the parent ran
    evaluator, cands, s, batch, out = _FORKED
    engine = Trials(evaluator, cands, len(numbers), s, batch, first=numbers)
    copied = np.zeros_like(engine.done)

    def copy(_ended):
        c, t = np.nonzero(engine.done & ~copied)
        if len(c):
            g = numbers[t]
            out["probs"][c, g], out["raw"][c, g] = engine.probs[c, t], engine.raw[c, t]
            out["cf"][c, g], out["cf_raw"][c, g] = engine.cf[c, t], engine.cf_raw[c, t]
            out["done"][c, g] = True
            copied[c, t] = True

    engine.run(copy)


class LocalTrials:
    """Trials' results (probs, raw, cf, cf_raw, c, completed, run) from ``processes`` processes forked
    from this one, process k playing trials k, k + N, k + 2N, ... (N = processes) in one pool of its own,
    its results written straight into arrays shared with this process. For one seed the numbers are the
    same for every N (module docstring; without numba, for the same N, and to float32 rounding otherwise)."""

    def __init__(self, processes: int, evaluator, cands: Candidates, trials: int, s: Settings, batch: int):
        self.processes = max(1, min(processes, trials))
        self.evaluator, self.c, self.s, self.batch, self.trials = evaluator, cands, s, batch, trials
        n_c, k = len(cands.positions), evaluator.config.outputs
        self.shared = {"probs": _shared((n_c, trials, k), np.float64), "raw": _shared((n_c, trials, k), np.float64),
                       "cf": _shared((n_c, trials), np.float64), "cf_raw": _shared((n_c, trials), np.float64),
                       "done": _shared((n_c, trials), bool)}
        self.probs, self.raw = self.shared["probs"], self.shared["raw"]
        self.cf, self.cf_raw, self.done = self.shared["cf"], self.shared["cf_raw"], self.shared["done"]

    completed = Trials.completed  # the same (candidates, trials) ``done`` flags: the same prefix

    def _prepare(self) -> None:
        """What every process would load for itself, loaded once here before they are forked: the
        bear-off databases (the two-sided one: 0.14 s of CPU), and in a process that already runs every
        kernel (``nardibot rollout``'s) the kernels, by one trial of two plies (about 0.5 s of CPU the
        first time, nothing after: each later rollout's processes find them loaded; a process that rolled
        out 324 cubeful trials of the opening again and again took 2.8 s a rollout instead of 3.3). A
        process on its warm-up (a server) keeps its path: its forked processes load the kernels themselves."""
        if self.s.bearoff:
            ExactEndgames(self.evaluator).load_databases()
        if compiled.numba_from_start():
            Trials(self.evaluator, self.c, 1, replace(self.s, truncate=2), self.batch).run()

    def run(self, progress=None) -> None:
        """Play every trial; ``progress(n)`` every POLL seconds with the trials finished since.
        Ctrl-C (or an exception from ``progress``) ends the processes and is raised again here."""
        global _FORKED
        self._prepare()
        _FORKED = (self.evaluator, self.c, self.s, self.batch, self.shared)
        context = multiprocessing.get_context("fork")
        procs = [context.Process(target=_play_share, args=(np.arange(k, self.trials, self.processes),), daemon=True)
                 for k in range(self.processes)]
        try:
            for proc in procs:
                proc.start()
            _FORKED = ()
            while any(proc.is_alive() for proc in procs):
                multiprocessing.connection.wait([proc.sentinel for proc in procs if proc.is_alive()], POLL)
                if progress is not None:
                    progress(0)
            failed = [proc.exitcode for proc in procs if proc.exitcode != 0]
            if failed:
                raise RuntimeError(f"a rollout process failed (exit status {failed[0]})")
        finally:
            _FORKED = ()
            for proc in procs:
                if proc.pid is None:  # not started (a fork that failed)
                    continue
                if proc.is_alive():
                    proc.terminate()
                proc.join()


POLL = 0.1
"""Seconds between LocalTrials' looks at the shared results (progress, Ctrl-C)."""


def forkable(evaluator) -> bool:
    """Whether ``evaluator`` may be played by forked processes: a numpy network (torch's threads do not
    survive a fork), on a system that forks."""
    from model.net.inference import NumpyNet

    net = getattr(evaluator, "net", evaluator)
    return isinstance(net, NumpyNet) and "fork" in multiprocessing.get_all_start_methods()


def default_processes() -> int:
    """This machine's cores that this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def local_trials(processes: int = 0):
    """An ``engine`` for model.search.rollout.rollout that plays the trials in ``processes`` forked
    processes of this machine (0: one per core), or in this process (model/search/trials.py's Trials)
    when that is 1, for a single trial, or when the network cannot be forked (``forkable``)."""
    if processes < 0:
        raise ValueError(f"processes must be >= 0 (0: one per core), got {processes}")
    n = processes or default_processes()

    def engine(evaluator, cands, trials, s, batch):
        if n > 1 and trials > 1 and forkable(evaluator):
            return LocalTrials(n, evaluator, cands, trials, s, batch)
        return Trials(evaluator, cands, trials, s, batch)

    return engine


def ray_trials(workers: int, address: str = ""):
    """An ``engine`` for model.search.rollout.rollout that spreads the trials over ``workers`` Ray workers
    (on this machine, or the cluster at ``address``)."""

    def engine(evaluator, cands, trials, s, batch):
        return RayTrials(workers, address, evaluator, cands, trials, s, batch)

    return engine
