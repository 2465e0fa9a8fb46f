"""Concurrent requests scored together: a network's stand-in that merges the calls of many threads.

uvicorn answers requests side by side on its threads, and each 0-ply hint, evaluation or cube
decision asks the network twice for a few dozen positions. A network call has a fixed cost (the
feature encoding's and the layers' per-call overhead: about 1 ms on the 2-core development machine,
where 1,600 positions in one call cost 6 ms and one at a time 75 to 115 ms) that such small calls pay
again and again. ``NetBatcher(net)`` has the networks' interface (``config``, ``probabilities``,
``eval``); behind it one worker thread takes the calls that wait in its queue, the ones that arrived
within ``wait`` seconds of the first and those that came while the previous forward pass ran, stacks
their positions into one array (at most ``max_rows``), makes one call of ``net`` and hands every
caller its own rows. A call of more than ``max_rows`` positions (a 2-ply look-ahead's, a rollout's)
goes straight to ``net`` in the caller's thread: it is big enough on its own.

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
"""Seconds the worker waits after a call's arrival for others to join it (the server's default)."""
MAX_ROWS = 4096
"""Most positions per merged call; a larger call is not batched (model/net/inference.py's CHUNK)."""


class _Call:
    """One caller's positions, waiting for its probabilities (or the error of its merged call)."""

    __slots__ = ("arrived", "device", "done", "error", "positions", "result")

    def __init__(self, positions: np.ndarray, device):
        self.positions, self.device, self.arrived = positions, device, time.monotonic()
        self.done = threading.Event()
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
        self._worker: threading.Thread | None = None
        self._closed = False

    def eval(self):
        self.net.eval()
        return self

    def probabilities(self, positions: np.ndarray, device="cpu") -> np.ndarray:
        """Outcome probabilities (B, K) of positions (B, 28) seen by the side on roll, as ``net``'s."""
        positions = np.asarray(positions)
        call = _Call(positions, device) if 0 < len(positions) <= self.max_rows else None
        with self._cond:
            if call is None or self._closed:
                self.calls += 1
                call = None
            else:
                self._queue.append(call)
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, name="net-batcher", daemon=True)
                    self._worker.start()
                self._cond.notify()
        if call is None:
            return self.net.probabilities(positions, device)
        call.done.wait()
        if call.error is not None:
            raise call.error
        return call.result

    def close(self) -> None:
        """Stop the worker once the queue is empty; later calls go straight to ``net``."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._worker is not None:
            self._worker.join(10)

    # -- the worker -----------------------------------------------------------------------------

    def _take(self) -> list[_Call] | None:
        """The next batch: the first call waiting and those that join it within ``wait`` seconds of its
        arrival (same device, ``max_rows`` positions in all); None when closed and empty."""
        with self._cond:
            while not self._queue:
                if self._closed:
                    return None
                self._cond.wait()
            first = self._queue[0]
            deadline = first.arrived + self.wait
            while not self._closed and self._rows(first.device) < self.max_rows:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            batch, rows, kept = [], 0, deque()
            while self._queue:
                call = self._queue.popleft()
                if call.device == first.device and (not batch or rows + len(call.positions) <= self.max_rows):
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

    def _work(self) -> None:
        while (batch := self._take()) is not None:
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
            for call in batch:
                call.done.set()

    def __repr__(self) -> str:
        return f"NetBatcher({self.net!r}, wait={self.wait})"


def unbatched(net):
    """The network behind a ``NetBatcher`` (``net`` itself when it is none)."""
    return net.net if isinstance(net, NetBatcher) else net


__all__ = ["MAX_ROWS", "WAIT", "NetBatcher", "unbatched"]
