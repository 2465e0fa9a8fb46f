"""The entry points pin numpy's BLAS to one thread before numpy loads, unless the user chose."""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = "import {module}, os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"


def _threads_after_import(module: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                               "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], cwd=ROOT, capture_output=True,
                         text=True, env={**clean, "PYTHONPATH": str(ROOT), **env}, check=True, timeout=120)
    return out.stdout.strip()


def test_the_command_line_sets_one_blas_thread_before_numpy_loads():
    """Importing the nardibot dispatch (what evaluate.py runs) sets OPENBLAS_NUM_THREADS=1."""
    assert _threads_after_import("nardibot.cli.main") == "1"


def test_a_thread_count_the_user_set_is_kept():
    """A user's own OPENBLAS_NUM_THREADS wins."""
    assert _threads_after_import("nardibot.cli.main", OPENBLAS_NUM_THREADS="3") == "3"


def test_nothing_changes_once_numpy_has_loaded():
    """Imported after numpy (as a library user might), the module leaves the environment alone."""
    assert _threads_after_import("numpy, model.runtime") == "None"


BOT_PROBE = """import numpy, threadpoolctl
def blas_threads():
    return max(i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas")
before = blas_threads()
from model import Bot
Bot.load()
print(before, blas_threads())"""


def _blas_threads_around_bot_load(**env: str) -> list[int]:
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                               "MKL_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", BOT_PROBE], cwd=ROOT, capture_output=True, text=True,
                         env={**clean, "PYTHONPATH": str(ROOT), **env}, check=True, timeout=120)
    return [int(n) for n in out.stdout.split()]


USABLE_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@pytest.mark.skipif(USABLE_CPUS < 2, reason="OpenBLAS starts one thread on one usable core anyway")
def test_a_bot_loaded_after_numpy_sets_one_blas_thread_unless_the_user_chose():
    """A program that imported numpy first (no entry point set the thread count before it loaded):
    ``Bot.load`` brings BLAS from a thread per core to one through threadpoolctl; a count the user set
    is kept."""
    before, after = _blas_threads_around_bot_load()
    assert before > 1 and after == 1
    assert _blas_threads_around_bot_load(OPENBLAS_NUM_THREADS="2") == [2, 2]

HEAP = """import model.runtime, ctypes, os, sys, numpy as np
class MallInfo2(ctypes.Structure):  # glibc's struct mallinfo2 (malloc.h), every field a size_t
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
n, k = int(sys.argv[1]), int(sys.argv[2])
x = [np.ones(n) for _ in range(k)]
held = libc.mallinfo2()
del x
freed = libc.mallinfo2()
x = [np.ones(n) for _ in range(k)]
again = libc.mallinfo2()
print(os.environ.get('MALLOC_TOP_PAD_'), held.hblkhd, freed.arena, freed.fordblks, again.arena)"""
"""Allocates ``k`` arrays of ``n`` float64, frees them and allocates them again; prints the pad the
process has, the bytes of blocks served by their own mmap while the arrays are held (``hblkhd``), and
the heap's size and free bytes once they are freed and its size once they are allocated again: what
glibc's allocator did, which the machine's load does not change (page faults, which the reuse saves,
would)."""


def _heap(size: int = 1 << 18, count: int = 8, **env: str) -> tuple[str, dict[str, int]]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", HEAP, str(size), str(count)], cwd=ROOT, capture_output=True,
                         text=True, env={**clean, "PYTHONPATH": str(ROOT), **env}, check=True, timeout=120)
    pad, *numbers = out.stdout.split()
    return pad, dict(zip(("mapped_while_held", "heap_freed", "free_in_heap", "heap_again"), map(int, numbers)))


GLIBC_MALLINFO2 = platform.libc_ver()[0] == "glibc" and hasattr(ctypes.CDLL(None), "mallinfo2")
needs_glibc = pytest.mark.skipif(not GLIBC_MALLINFO2, reason="glibc's malloc (2.33 or later, for mallinfo2)")
GLIBC_DEFAULTS = {"MALLOC_MMAP_THRESHOLD_": str(128 << 10), "MALLOC_TRIM_THRESHOLD_": str(128 << 10),
                  "MALLOC_TOP_PAD_": str(128 << 10)}
"""glibc's own settings, made by hand (model/runtime.py keeps a user's): each large block its own mapping,
freed memory handed back to the kernel."""


@pytest.mark.parametrize("size, count", [(1 << 18, 8), (5 << 20, 4)], ids=["2MiB-arrays", "40MiB-arrays"])
@needs_glibc
def test_freed_arrays_stay_in_the_heap_for_reuse(size, count):
    """Batches' temporaries (8 arrays of 2 MiB) and a look-ahead level's arrays (4 of 40 MiB) come from
    the heap, not a fresh mapping each; freed, they stay in the process; allocated again, they reuse
    that memory (the heap does not grow by another array). With glibc's defaults each would be mapped
    and unmapped, each page faulted in anew: the measure tells the two apart. The processes started
    inherit the pad."""
    total = size * 8 * count
    pad, heap = _heap(size, count)
    assert pad == str(64 << 20)
    assert heap["mapped_while_held"] < size * 8  # not one array in a mapping of its own
    assert heap["free_in_heap"] >= total and heap["heap_freed"] >= total  # kept, not handed back
    assert heap["heap_again"] - heap["heap_freed"] < size * 8  # reused
    _, default = _heap(size, count, **GLIBC_DEFAULTS)
    assert default["mapped_while_held"] >= total and default["free_in_heap"] < size * 8


@needs_glibc
def test_a_malloc_setting_the_user_made_is_kept():
    assert _heap(MALLOC_TOP_PAD_="4096")[0] == "4096"
