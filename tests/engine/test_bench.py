"""The generator benchmark's command line runs and refuses bad flags (speed itself is not tested)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run([sys.executable, "-m", "engine", "bench", *args], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=300, check=False)


def test_bench_writes_its_figures(tmp_path):
    """One run without OpenSpiel writes positions/s for every set and the peak memory."""
    proc = run("--runs", "1", "--no-openspiel", "--json", str(tmp_path / "b.json"))
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / "b.json").read_text())
    text = json.dumps(data)
    assert "midgame" in text and "race" in text and "nardi" in text
    assert "Traceback" not in proc.stderr


def test_bench_bad_flags_exit_2():
    """A bad flag is one line on stderr and status 2."""
    proc = run("--runs", "zero")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
