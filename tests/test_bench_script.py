"""scripts/bench_vs_gnubg.py --quick: the speed table beside gnubg prints every row, the command, the
load average and the physical limit (tiny sizes, one round: a smoke test, not a measurement)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from tests.helpers import ROOT, run_script


def _rows():
    spec = importlib.util.spec_from_file_location("bench_vs_gnubg", ROOT / "scripts" / "bench_vs_gnubg.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ROWS


def test_quick_run_prints_every_row_of_the_table():
    # from a fresh clone the run compiles every kernel first (numba's cache is empty): minutes on a slow machine
    done = run_script("bench_vs_gnubg.py", "--quick", timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "command: python" in out and "scripts/bench_vs_gnubg.py --quick" in out
    assert "load average" in out and "physical limit" in out and "GFLOP/s" in out
    sizes = {"positions": "32", "batch": "256", "hints": 1, "trials": 8}
    gnubg = importlib.util.find_spec("gnubg_nn") is not None and Path("/usr/games/gnubg").is_file()
    table = [line for line in out.splitlines() if line.startswith("| ")]
    for key, work, _unit, _higher, _cores, only_all in _rows():
        if not only_all:
            line = [t for t in table if t.startswith(f"| {work.format(**sizes)} |")]
            assert len(line) == 1, (key, out)
            ours, theirs, ratio, rounds = line[0].split("|")[3:7]
            assert any(ch.isdigit() for ch in ours), line[0]
            if gnubg:  # both gnubgs are there (CI installs them): every row has gnubg's figure too
                assert any(ch.isdigit() for ch in theirs), line[0]
                # one round: the rounds' lowest and highest ratio are that round's, the row's ratio
                assert rounds.strip() == f"{ratio.strip()}-{ratio.strip()}", line[0]
    assert "share of that rate reached as dense products, eval one" in out and "eval batch" in out
    if importlib.util.find_spec("numba") is not None:  # the kernel's own work beside the dense products
        assert "the compiled kernel skips zero inputs and inactive units" in out


def test_prune_agreement_plays_the_benchmark_full_and_pruned(tmp_path):
    """scripts/prune_agreement.py --benchmark on one position per class: both searches' error rates per
    class, the paired difference, and a JSON file with them (a smoke test, not a measurement)."""
    import json

    out = tmp_path / "prune.json"
    done = run_script("prune_agreement.py", "--benchmark", "--positions", "1", "--json", str(out), timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2-ply, --prune 0: contact" in done.stdout and "2-ply, --prune 8: contact" in done.stdout
    assert "--prune 8 minus the full search, paired" in done.stdout
    result = json.loads(out.read_text())
    assert result["positions"] == 4 and set(result["runs"]) == {"0", "8"}
    assert set(result["runs"]["8"]["error_rates"]) == {"contact", "crashed", "race", "bearoff", "overall"}
    assert 0 <= result["runs"]["8"]["minus_full"]["same_loss"] <= 4
    for bad, said in ((["--prune", "-1"], "--prune must be 1 or more"), (["--positions", "-3"], "--positions must be")):
        done = run_script("prune_agreement.py", "--benchmark", *bad, timeout=60)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
