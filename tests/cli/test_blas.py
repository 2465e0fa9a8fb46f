"""The entry points pin numpy's BLAS to one thread before numpy loads, unless the user chose."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
    assert _threads_after_import("model.cli.main") == "1"


def test_a_thread_count_the_user_set_is_kept():
    """A user's own OPENBLAS_NUM_THREADS wins."""
    assert _threads_after_import("model.cli.main", OPENBLAS_NUM_THREADS="3") == "3"


def test_nothing_changes_once_numpy_has_loaded():
    """Imported after numpy (as a library user might), the module leaves the environment alone."""
    assert _threads_after_import("numpy, model.cli.blas") == "None"
