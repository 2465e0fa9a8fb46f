"""The entry points pin numpy's BLAS to one thread before numpy loads, unless the user chose."""

from __future__ import annotations

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


FAULTS = """import model.runtime, resource, sys, numpy as np
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
n, k = int(sys.argv[1]), int(sys.argv[2])
for _ in range(3):  # batches' temporaries (k arrays of n float64), freed after each batch
    x = [np.ones(n) for _ in range(k)]
    del x
before = faults()
for _ in range(20):
    x = [np.ones(n) for _ in range(k)]
    del x
print(os.environ.get('MALLOC_TOP_PAD_'), faults() - before)"""


def _pad_and_faults(size: int = 1 << 18, count: int = 8, **env: str) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    out = subprocess.run([sys.executable, "-c", "import os\n" + FAULTS, str(size), str(count)], cwd=ROOT, capture_output=True,
                         text=True, env={**clean, "PYTHONPATH": str(ROOT), **env}, check=True, timeout=120)
    pad, faults = out.stdout.split()
    return pad, int(faults)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_freed_memory_is_reused_without_page_faults():
    """Batches of temporaries freed and allocated again come back without fresh pages (a few faults at
    most, not one per page: 20 x 16 MiB would be 80,000), and the processes started inherit the pad."""
    pad, faults = _pad_and_faults()
    assert pad == str(64 << 20)
    assert faults < 1000


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_large_arrays_are_reused_without_page_faults():
    """Arrays of 40 MiB (a look-ahead level's), 160 MiB at a time, come from the heap and stay there: no
    fresh mapping per array (before, 20 rounds of them cost some 20,000 faults in huge pages)."""
    assert _pad_and_faults(5 << 20, 4)[1] < 1000


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_a_malloc_setting_the_user_made_is_kept():
    assert _pad_and_faults(MALLOC_TOP_PAD_="4096")[0] == "4096"
