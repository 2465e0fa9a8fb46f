"""Whether the compiled kernels run: numba, when it is installed (the ``[fast]`` extra).

The numpy code is the reference and what runs without numba. Where numba is installed, the
per-position work runs as numba kernels. Most give the same numbers bit for bit ("exact" kernels:
the backgammon and long-nardi network inputs, model/net/encode_numba.py and nardi_numba.py; the move
generator, engine/movegen_numba.py; the notation of a roll's plays, engine/notation_numba.py; the
bear-off test and the cube values of checker play, model/net/forward_numba.py and
model/cube/cube_numba.py; the rollouts' luck plays, model/search/top_plays_numba.py, and their
distinct children, model/search/distinct_numba.py; each compared bit for bit in its test).
One does not: the network's forward pass (model/net/forward_numba.py) sums in
another order than the matrix library, so its probabilities agree with numpy's to float32 rounding.

numba's import and the loading of its cached kernels cost about 0.6 s of CPU, more than a whole
0-ply ``nardibot hint``. So a process starts on the numpy path and changes over to the exact kernels
once the work that has kernels has taken ``NARDIBOT_NUMBA_WARMUP`` seconds there (default 0.5): a
single command never imports numba, a server or a training run changes over within its first
second, and the answers are the same either way. The forward-pass kernel runs only in a process
that uses numba from its first call (``NARDIBOT_NUMBA_WARMUP=0``, or ``use_numba(True)``), so that
no process changes its numbers on the way (a seeded rollout gives the same figures to the last
digit, a server the same as a command); such a process's figures differ from a numpy process's in
the last float32 digits. Rollouts and bot-against-bot games are long work from their start:
``nardibot rollout``, every process that plays a rollout's trials, ``nardibot duel`` and ``nardibot
cube`` run every kernel (``use_every_kernel``, ``every_kernel``; 324 trials of the opening, cubeful,
on 2 cores: 3.1 s instead of 5.0; a duel of the shipped net against pubeval, 400 games: 300 games
a second instead of 180). NARDIBOT_NO_NUMBA=1 keeps every process on numpy. Nothing
here imports numba; each module with kernels imports them when they are first due.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextlib import contextmanager
from importlib.util import find_spec
from typing import Any

_forced: bool | None = None  # use_numba's setting; None: decide as above
_installed: bool | None = None  # numba is installed and not switched off (looked up when first needed)
_numpy_seconds = 0.0  # seconds spent so far on numpy paths that have kernels


def _warmup_seconds(text: str | None) -> float:
    """NARDIBOT_NUMBA_WARMUP as seconds: 0.5 when unset or not a number of 0 or more."""
    try:
        value = float(text if text is not None else "0.5")
    except ValueError:
        return 0.5
    return value if value >= 0 else 0.5


WARMUP_SECONDS = _warmup_seconds(os.environ.get("NARDIBOT_NUMBA_WARMUP"))


def numba_installed() -> bool:
    """numba can be imported (without importing it) and NARDIBOT_NO_NUMBA is unset or "0"."""
    global _installed
    if _installed is None:
        _installed = os.environ.get("NARDIBOT_NO_NUMBA", "0") in ("", "0") and find_spec("numba") is not None
    return _installed


def numba_due() -> bool:
    """Whether the kernels should run now: the warm-up spent (or inside ``every_kernel``), numba installed
    and not switched off."""
    if _forced is not None:
        return _forced
    return (_numpy_seconds >= WARMUP_SECONDS or _here.every) and numba_installed()


def charge_numpy(seconds: float) -> None:
    """Count ``seconds`` of work done on a numpy path that has a kernel towards the warm-up."""
    global _numpy_seconds
    _numpy_seconds += seconds


def numba_from_start() -> bool:
    """Whether this process runs the kernels from its first call (no warm-up, or ``use_numba(True)``), or
    this thread is inside ``every_kernel``: where the kernels that are not bit for bit may run (the
    module docstring)."""
    if _forced is not None:
        return _forced
    return (WARMUP_SECONDS == 0 or _here.every) and numba_installed()


def use_numba(flag: bool | None) -> bool | None:
    """Run the kernels from now on (True, where numba is installed) or never (False); None: decide
    as the module docstring says. Returns the previous setting, for tests and benchmarks that compare
    the two paths."""
    global _forced
    previous = _forced
    _forced = None if flag is None else bool(flag) and find_spec("numba") is not None
    return previous


def use_every_kernel() -> bool | None:
    """From now on this process runs every kernel, the forward pass included, where numba is installed
    and not switched off (NARDIBOT_NO_NUMBA, ``use_numba(False)``): for a process whose work is long
    from its start and all its own, each process forked (or each Ray worker) to play a rollout's trials
    (model/search/rollout_workers.py). Its numbers are then those of a process on numba from its first
    call, whatever ran before. Returns the previous setting: ``use_numba(previous)`` restores it.
    ``every_kernel`` does the same for a block of one thread."""
    global _forced
    previous = _forced
    if _forced is None and numba_installed():
        _forced = True
    return previous


class _Here(threading.local):
    every = False  # inside ``every_kernel``, in this thread


_here = _Here()


@contextmanager
def every_kernel():
    """Every kernel, as ``use_every_kernel`` gives them, in this thread for a block: a command of long
    work (``nardibot rollout``, ``duel``, ``cube``), which may run inside another program (a test), and
    a server's rollout job, whose thread runs beside requests that keep the server's path."""
    previous = _here.every
    _here.every = True
    try:
        yield
    finally:
        _here.every = previous


class Kernels:
    """A module's compiled kernels, imported by ``load`` (a function that imports them and returns
    what the module calls) the first time they are due; calling it gives them, or None while
    ``numba_due`` is false or where numba would not import (a numba that does not fit this numpy):
    the caller then runs its numpy code. ``exact=False``: kernels whose numbers are not the numpy
    code's bit for bit, due only where ``numba_from_start`` says so."""

    def __init__(self, load: Callable[[], Any], exact: bool = True):
        self._load = load
        self._exact = exact
        self._loaded: Any = None  # False once an import failed

    def __call__(self) -> Any:
        if not (numba_due() if self._exact else numba_from_start()):
            return None
        if self._loaded is None:
            try:
                self._loaded = self._load()
            except ImportError:
                self._loaded = False
        return self._loaded or None
