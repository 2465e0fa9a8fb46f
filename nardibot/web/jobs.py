"""Rollouts over HTTP as jobs: started by one request, polled for progress, cancelled by another.

A ``Jobs`` registry runs each job's work on a small thread pool (one worker by default: a rollout
uses a core fully, and queued jobs wait their turn). A job is "queued", "running", then "done",
"cancelled" or "failed"; while it runs, ``done_units`` counts the finished trials. Cancelling sets a
flag the work polls (model/search/rollout.py's ``stop``, asked after every ply), so that a running
rollout stops within a ply and keeps the trials finished so far as its result. The registry keeps
at most ``keep`` jobs: the oldest finished ones are forgotten first; when all are unfinished, a new
job is refused (``JobsFull``).
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

QUEUED, RUNNING, DONE, CANCELLED, FAILED = "queued", "running", "done", "cancelled", "failed"
FINISHED = (DONE, CANCELLED, FAILED)


class JobsFull(RuntimeError):
    """Every kept job is still queued or running: no room for another."""


@dataclass
class Job:
    """One piece of background work and what is known of it."""

    id: str
    kind: str
    total_units: int  # what the work will count up to (trials)
    status: str = QUEUED
    done_units: int = 0
    result: dict | None = None
    error: str | None = None
    created: float = field(default_factory=time.time)
    finished: float | None = None
    cancel_requested: threading.Event = field(default_factory=threading.Event)

    def to_json(self) -> dict:
        """The job as the API shows it."""
        return {"id": self.id, "kind": self.kind, "status": self.status, "done": self.done_units,
                "total": self.total_units, "progress": round(min(self.done_units / max(self.total_units, 1), 1), 4),
                "result": self.result, "error": self.error}


class Jobs:
    """The registry: ``submit`` work, ``get`` a job, ``cancel`` it."""

    def __init__(self, workers: int = 1, keep: int = 64):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="job")
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._counter = itertools.count(1)
        self.keep = keep

    def submit(self, kind: str, total_units: int, work: Callable[[Job], dict]) -> Job:
        """Queue ``work(job) -> result dict``; it reports progress by adding to ``job.done_units`` and
        stops early when ``job.cancel_requested`` is set (returning what it has, or raising
        KeyboardInterrupt when it has nothing). Any other exception fails the job with its message."""
        with self._lock:
            self._make_room()
            job = Job(f"{next(self._counter)}-{secrets.token_hex(4)}", kind, total_units)
            self._jobs[job.id] = job
        self._pool.submit(self._run, job, work)
        return job

    def _make_room(self) -> None:
        while len(self._jobs) >= self.keep:
            oldest = next((j for j in self._jobs.values() if j.status in FINISHED), None)
            if oldest is None:
                raise JobsFull(f"{len(self._jobs)} jobs are queued or running; cancel one or wait")
            del self._jobs[oldest.id]

    def _run(self, job: Job, work: Callable[[Job], dict]) -> None:
        if job.cancel_requested.is_set():
            job.status, job.finished = CANCELLED, time.time()
            return
        job.status = RUNNING
        try:
            job.result = work(job)
            job.status = CANCELLED if job.cancel_requested.is_set() else DONE
        except KeyboardInterrupt as stopped:  # cancelled before any result was worth keeping
            job.status, job.error = CANCELLED, str(stopped) or "cancelled"
        except Exception as err:  # noqa: BLE001 - a job's failure is reported, never raised in the server
            job.status, job.error = FAILED, (str(err).splitlines() or [type(err).__name__])[0]
        job.finished = time.time()

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Ask a job to stop (a finished one stays as it is); None when there is no such job."""
        job = self.get(job_id)
        if job is not None and job.status not in FINISHED:
            job.cancel_requested.set()
            if job.status == QUEUED:
                job.status = CANCELLED
        return job

    def shutdown(self) -> None:
        """Cancel everything and stop the workers (the server is stopping)."""
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel_requested.set()
        self._pool.shutdown(wait=False, cancel_futures=True)
