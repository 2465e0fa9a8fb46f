"""Concurrent requests scored together: a network's stand-in that merges the calls of many threads.

uvicorn answers requests side by side on its threads, and each 0-ply hint, evaluation or cube
decision asks the network twice for a few dozen positions. A network call has a fixed cost (the
feature encoding's and the layers' per-call overhead, about 1 ms on the 2-core development machine:
100 calls of 16 positions took 100 to 130 ms of CPU, the same 1,600 positions in one call 6 to 8 ms)
that such small calls pay again and again. ``NetBatcher(net)`` has the networks' interface (``config``, ``probabilities``,
``eval``) and merges such calls of concurrent threads: a call that finds no forward pass running runs
one itself, after waiting at most ``wait`` seconds from its arrival for others to join it, for all the
calls then queued (at most ``max_rows`` positions); calls that arrive while a pass runs queue, and when
it ends one of their threads runs the next pass for all of them. Each caller gets its own rows back.
No thread is woken to run a call: with ``wait`` 0 a call alone costs one lock more than a plain
call; under load, every call that comes while a pass runs joins the next one. A call of more than ``max_rows``
positions (a 2-ply look-ahead's deepest, a rollout's) goes straight to ``net``: it is big enough on
its own.

Each position's probabilities are the network's for that position whatever else is in the batch: the
caller gets exactly its rows back, in order, and an error of the merged call is raised in every caller
of it. They are not always the same bits as in a call of the caller's positions alone: OpenBLAS's
float32 matrix product computes a row with a different instruction sequence depending on where it
falls in its micro-tiles, so a row scored among other rows can differ from the same row scored alone
in the last bits (measured on the development machine: 300 middle-game positions one at a time
against the same in one call, 1,401 of their 1,500 outputs differed, by at most 1.9e-7; ``hint``'s
answers are rounded to 6 decimals). The numpy forward pass itself already has this property for any
two batch sizes; only a call alone reproduces the command line's bits.
"""

from __future__ import annotations

import threading
import time
from collections import deque

import numpy as np

WAIT = 0.002
"""Seconds a call that finds no pass running waits from its arrival for others to join it (the
server's default). Measured with 8 clients of 0-ply hints (scripts/bench_web.py, 7 interleaved runs,
load average 9 to 12 on 2 cores): CPU per request 9.9 ms unbatched, 8.8 / 8.2 / 7.7 / 7.4 ms waiting
0 / 1 / 2 / 5 ms; a request alone pays the wait once per network call (two for a 0-ply hint)."""
MAX_ROWS = 4096
"""Most positions per merged call; a larger call is not batched (model/net/inference.py's CHUNK)."""


class _Call:
    """One caller's positions, waiting for its probabilities (or the error of its merged call)."""

    __slots__ = ("arrived", "device", "done", "error", "positions", "result")

    def __init__(self, positions: np.ndarray, device):
        self.positions, self.device, self.arrived = positions, device, time.monotonic()
        self.done = False
        self.result: np.ndarray | None = None
        self.error: BaseException | None = None


class NetBatcher:
    """``net`` (anything with ``config`` and ``probabilities(positions, device)``), its concurrent
    small calls merged into one (module docstring). ``calls`` counts the calls ``net`` received,
    ``merged`` the callers' calls that shared one with another."""

    def __init__(self, net, wait: float = WAIT, max_rows: int = MAX_ROWS):
        if wait < 0 or max_rows < 1:
            raise ValueError(f"wait must be >= 0 and max_rows >= 1, got {wait} and {max_rows}")
        self.net, self.config, self.wait, self.max_rows = net, net.config, wait, max_rows
        self.calls = self.merged = 0
        self._queue: deque[_Call] = deque()
        self._cond = threading.Condition()
        self._running = False  # a thread is taking or running a merged call

    def eval(self):
        self.net.eval()
        return self

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        """Outcome probabilities (B, K) of positions (B, 28) seen by the side on roll, as ``net``'s."""
        positions = np.asarray(positions)
        if not 0 < len(positions) <= self.max_rows:
            with self._cond:
                self.calls += 1
            return self.net.probabilities(positions, device)
        call = _Call(positions, device)
        with self._cond:
            self._queue.append(call)
            self._cond.notify_all()  # a leader waiting for company sees the rows grow
        while True:
            with self._cond:
                while self._running and not call.done:
                    self._cond.wait()
                if call.done:
                    break
                self._running = True  # this thread leads: it runs the next merged call
                batch = self._take(call)
            self._run(batch)
        if call.error is not None:
            raise call.error
        return call.result

    def _take(self, first: _Call) -> list[_Call]:
        """(With the lock held.) The calls of the next merged call: those queued within ``wait``
        seconds of ``first``'s arrival, on its device, ``max_rows`` positions in all (``first`` always)."""
        deadline = first.arrived + self.wait
        while self._rows(first.device) < self.max_rows and (left := deadline - time.monotonic()) > 0:
            self._cond.wait(left)
        batch, rows, kept = [], 0, deque()
        for call in self._queue:
            if call is first or (call.device == first.device and rows + len(call.positions) <= self.max_rows):
                batch.append(call)
                rows += len(call.positions)
            else:
                kept.append(call)
        self._queue = kept
        self.calls += 1
        self.merged += len(batch) if len(batch) > 1 else 0
        return batch

    def _rows(self, device) -> int:
        return sum(len(c.positions) for c in self._queue if c.device == device)

    def _run(self, batch: list[_Call]) -> None:
        """One call of ``net`` for the batch (outside the lock); every caller then gets its rows."""
        try:
            stacked = np.concatenate([c.positions for c in batch]) if len(batch) > 1 else batch[0].positions
            out = self.net.probabilities(stacked, batch[0].device)
            start = 0
            for call in batch:
                call.result = out[start:start + len(call.positions)].copy()
                start += len(call.positions)
        except BaseException as err:  # noqa: BLE001 - every caller of the merged call sees its error
            for call in batch:
                call.error = err
        with self._cond:
            for call in batch:
                call.done = True
            self._running = False
            self._cond.notify_all()

    def __repr__(self) -> str:
        return f"NetBatcher({self.net!r}, wait={self.wait})"


def unbatched(net):
    """The network behind a ``NetBatcher`` (``net`` itself when it is none)."""
    return net.net if isinstance(net, NetBatcher) else net


__all__ = ["MAX_ROWS", "WAIT", "NetBatcher", "unbatched"]
