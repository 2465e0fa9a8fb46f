"""Rollouts over HTTP as jobs: started by one request, polled for progress, cancelled by another.

A ``Jobs`` registry runs each job's work on a small thread pool (one worker by default: a rollout
uses a core fully, and queued jobs wait their turn). A job is "queued", "running", then "done",
"cancelled" or "failed"; while it runs, ``done_units`` counts the finished trials. Cancelling sets a
flag the work polls (model/search/rollout.py's ``stop``, asked after every ply and before every block
of the network's calls), so that a running rollout stops within a fraction of a second and keeps the
trials finished so far as its result; a queued job cancelled lets go of its work at once. After each
job the memory it freed is handed back to the system (``release_memory``: the allocator keeps it
otherwise, and a server that ran a few large rollouts would stay large). The registry keeps at most
``keep`` jobs: the oldest finished ones are forgotten first; when all are unfinished, a new job is
refused (``JobsFull``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from engine.formats.match_id import shortened

QUEUED, RUNNING, DONE, CANCELLED, FAILED = "queued", "running", "done", "cancelled", "failed"
MAX_ERROR = 300
"""Characters of a failed job's error line at most (its message's first line, cut: as app.py's refusals)."""
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
    work: Callable[[Job], dict] | None = field(default=None, repr=False)  # until it runs or is cancelled

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
            job = Job(f"{next(self._counter)}-{secrets.token_hex(4)}", kind, total_units, work=work)
            self._jobs[job.id] = job
        self._pool.submit(self._run, job)
        return job

    def _make_room(self) -> None:
        while len(self._jobs) >= self.keep:
            oldest = next((j for j in self._jobs.values() if j.status in FINISHED), None)
            if oldest is None:
                raise JobsFull(f"{len(self._jobs)} jobs are queued or running; cancel one or wait")
            del self._jobs[oldest.id]

    def _run(self, job: Job) -> None:
        with self._lock:
            work, job.work = job.work, None
            if work is None or job.cancel_requested.is_set():
                job.status, job.finished = CANCELLED, job.finished or time.time()
                return
            job.status = RUNNING
        try:
            job.result = work(job)
            job.status = CANCELLED if job.cancel_requested.is_set() else DONE
        except KeyboardInterrupt as stopped:  # cancelled before any result was worth keeping
            job.status, job.error = CANCELLED, str(stopped) or "cancelled"
        except Exception as err:  # noqa: BLE001 - a job's failure is reported, never raised in the server
            job.status, job.error = FAILED, shortened((str(err).splitlines() or [type(err).__name__])[0], MAX_ERROR)
        finally:
            del work
            job.finished = time.time()
            release_memory()

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Ask a job to stop (a finished one stays as it is); None when there is no such job."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is not None and job.status not in FINISHED:
                job.cancel_requested.set()
                if job.status == QUEUED:  # its work, with all it holds, is dropped now
                    job.status, job.work, job.finished = CANCELLED, None, time.time()
        return job

    def shutdown(self) -> None:
        """Cancel everything and stop the workers (the server is stopping)."""
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel_requested.set()
        self._pool.shutdown(wait=False, cancel_futures=True)


def _malloc_trim():
    """glibc's ``malloc_trim``, or None elsewhere (macOS, musl: nothing to call)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim()


def release_memory() -> None:
    """Hand the memory freed back to the system: glibc keeps freed blocks of a thread's arena for reuse,
    and after a rollout that is hundreds of megabytes (measured: 229 MB held after a 1-ply job, 91 MB
    once trimmed). A no-op where there is no ``malloc_trim``."""
    if _TRIM is not None:
        _TRIM(0)
