"""Rollout speed side by side with GNU Backgammon 1.07's own rollout, in one run.

    python scripts/bench_rollout.py --vr-trials 324 --plain-trials 1296 --repeat 3 \
        --json experiments/results/bench_rollout.json
    git archive COMMIT | tar -x -C /tmp/before    # then, before and after in the same run:
    python scripts/bench_rollout.py --tree /tmp/before ...

The same position (default: the opening, the side on roll to roll), the same trials, 0-ply checker
play, cubeless, no truncation, quasi-random dice, with and without variance reduction. gnubg runs
as Debian's /usr/games/gnubg with an embedded-Python script (/work/shared/FORMATS.md, "gnubg's
rollout, for speed comparisons"); the script times only its ``rollout`` command. Ours is
model.search.rollout.rollout on the shipped net, timed from the first trial to the last (loading
excluded), with the luck pruned as ``--prune`` says (one run per value). ``--repeat`` rounds run
every program in turn so that other load on the machine falls on all of them, and the figures are
each run's median; each line also gives the CPU seconds the process used (gnubg: its own
user+system time inside the run), a figure less sensitive to that load. Ratios are ours / gnubg's
trials per second (and per CPU second), and at equal precision: trials per second times gnubg's
variance per trial over ours (each program's own standard error at the same trials; gnubg prints its
results only to a terminal, so it runs on a pseudo-terminal). ``--tree DIR`` adds our rollouts as played by the source tree
in DIR (an older commit, unpacked), each round in turn with the others, in a subprocess that loads its
own net; its rows are marked with DIR's name. Like evaluate.py, this script and each tree's run import
their model/runtime.py before numpy (one BLAS thread, freed memory kept for reuse); a tree's run does
not inherit this one's settings.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
import model.runtime  # noqa: I001  (first, as evaluate.py: BLAS threads, malloc, before numpy loads)
import numpy as np

GNUBG_SCRIPT = """
import gnubg, os, time
for c in ["set automatic roll off", "new game", "set board " + os.environ["POS"], "set turn 1",
          "set rollout trials " + os.environ["TRIALS"], "set rollout truncation enable off",
          "set rollout varredn " + os.environ["VR"], "set rollout quasirandom on", "set rollout cubeful off",
          "set rollout chequerplay plies 0", "set rollout cubedecision plies 0", "set rollout seed 1",
          "set threads " + os.environ["THREADS"], "set output digits 6"]:
    gnubg.command(c)
t, c = time.time(), os.times()
gnubg.command("rollout")
wall, after = time.time() - t, os.times()
print("BENCH", wall, after.user - c.user + after.system - c.system)
"""


GNUBG_RESULT = re.compile(r'Estimated SE for "Current Position" after (\d+) trials\s+([0-9.]+)')
"""gnubg's last line of a rollout's results: the standard error of the cubeless equity."""
GNUBG_DONE = "Rollout done. Printing final results."
GNUBG_EQUITY = re.compile(r"CL\s+([+-][0-9.]+)")


def _run_on_a_terminal(argv: list[str], env: dict, cwd: str, timeout: float) -> str:
    """stdout and stderr of ``argv`` run with a pseudo-terminal as its output (gnubg prints a rollout's
    results, equity and standard error, only to a terminal); killed after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    master, slave = pty.openpty()
    out = bytearray()
    proc = None
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, cwd=cwd)
        os.close(slave)
        slave = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{argv[0]} ran past {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(master, 1 << 16)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            out += data
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
    return out.decode(errors="replace").replace("\r", "\n")


def gnubg_rollout(gnubg: str, position: str, trials: int, vr: bool, threads: int = 1) -> dict:
    """gnubg's rollout of ``position`` with ``threads`` calculation threads (its default here: 1):
    {"trials", "seconds", "cpu_seconds", "trials_per_s", "equity", "equity_se"} (the cubeless
    equity and the standard error gnubg prints with the results)."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bench.py"
        script.write_text(GNUBG_SCRIPT)
        env = dict(os.environ, POS=position, TRIALS=str(trials), VR="on" if vr else "off", THREADS=str(threads),
                   LC_ALL="C", LANG="C")  # gnubg's messages untranslated, as the patterns read them
        out = _run_on_a_terminal([gnubg, "-t", "-q", "-r", "-p", str(script)], env, tmp, timeout=3600)
    line = [x for x in out.splitlines() if x.startswith("BENCH")]
    if not line:
        raise RuntimeError(f"gnubg gave no timing: {out[-1000:]}")
    wall, cpu = map(float, line[-1].split()[1:])
    figures = {"trials": trials, "seconds": wall, "cpu_seconds": cpu, "trials_per_s": trials / wall}
    final = out.rfind(GNUBG_DONE)  # the results printed once the rollout is done, not a progress line's
    se = GNUBG_RESULT.findall(out[final:]) if final >= 0 else []
    equity = GNUBG_EQUITY.findall(out[final:]) if se else []
    if se and equity and int(se[-1][0]) == trials:
        figures.update(equity=float(equity[0]), equity_se=float(se[-1][1]))
    return figures


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the rollout's processes)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def our_rollout(net, position: str, trials: int, vr: bool, prune: int, batch: int | None, processes: int = 1) -> dict:
    from model.bot import read_position
    from model.search.rollout import rollout

    pos = read_position("backgammon", position)
    options = {}
    if processes != 1:  # an older tree (--tree) knows only the one-process rollout
        from model.search.rollout_workers import local_trials

        options["engine"] = local_trials(processes)
    cpu = _cpu()
    r = rollout(net, pos, trials=trials, vr=vr, prune=prune, batch=batch, seed=1, **options)
    e = r.evaluation
    return {"trials": r.trials, "seconds": r.seconds, "cpu_seconds": _cpu() - cpu,
            "trials_per_s": r.trials_per_s, "equity": e.equity, "equity_se": e.equity_se,
            "raw_equity_se": e.raw_equity_se}


TREE_SCRIPT = """
import model.runtime  # the tree's own process settings, as its evaluate.py makes them
import json, runpy, sys
from model.net.checkpoint import load_net
our_rollout = runpy.run_path(sys.argv[1] + "/scripts/bench_rollout.py")["our_rollout"]  # the tree's own
net, _ = load_net(sys.argv[2], "backgammon", backend="numpy")
batch = None if sys.argv[7] == "None" else int(sys.argv[7])
print("BENCH", json.dumps(our_rollout(net, sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1", int(sys.argv[6]), batch)))
"""


def own_env() -> dict:
    """This process's environment less what model/runtime.py set in it: another tree's run gets what
    its own code sets."""
    return {k: v for k, v in os.environ.items() if k not in model.runtime.SET_HERE}


def tree_rollout(tree: str, checkpoint: str, position: str, trials: int, vr: bool, prune: int,
                 batch: int | None) -> dict:
    """our_rollout as the source tree ``tree`` plays it (its own scripts/bench_rollout.py), in a subprocess."""
    done = subprocess.run([sys.executable, "-c", TREE_SCRIPT, tree, checkpoint, position, str(trials),
                           "1" if vr else "0", str(prune), str(batch)], capture_output=True, text=True, cwd=tree,
                          env={**own_env(), "PYTHONPATH": tree}, timeout=3600, check=False)
    line = [x for x in done.stdout.splitlines() if x.startswith("BENCH")]
    if not line:
        raise RuntimeError(f"{tree} gave no timing: {done.stdout[-500:]} {done.stderr[-500:]}")
    return json.loads(line[-1][len("BENCH"):])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--position", default="4HPwATDgc/ABMA")
    ap.add_argument("--checkpoint", default=str(ROOT / "checkpoints" / "backgammon.safetensors"))
    ap.add_argument("--vr-trials", type=int, default=324)
    ap.add_argument("--plain-trials", type=int, default=1296)
    ap.add_argument("--prune", default="4", help="the luck's --prune of our runs with variance reduction, "
                    "comma-separated for several (default: 4, the rollouts' default; 0: every play)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the figures are each run's median (default: 3)")
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--processes", default="1,2", help="our runs in this many processes (evaluate.py rollout "
                    "--processes), comma-separated for several (default: 1,2)")
    ap.add_argument("--gnubg-threads", default="1,2", help="gnubg's runs with this many calculation threads "
                    "(its 'set threads'; its default here is 1), comma-separated (default: 1,2)")
    ap.add_argument("--tree", action="append", default=[], help="also time our rollouts from the source "
                    "tree in this folder (e.g. an older commit, unpacked); repeatable")
    ap.add_argument("--gnubg", default="/usr/games/gnubg")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    from model.net.checkpoint import load_net

    net, _ = load_net(args.checkpoint, "backgammon", backend="numpy")
    prunes = [int(k) for k in args.prune.split(",")]
    load_before = os.getloadavg()
    rows = []

    def add(name, figures):
        rows.append({"run": name, **figures})
        print(f"{name:<48}{figures['trials']:>7} trials {figures['seconds']:8.1f} s {figures['trials_per_s']:9.1f}"
              f" trials/s   cpu {figures['cpu_seconds']:7.1f} s"
              + (f"   equity {figures['equity']:+.4f} se {figures['equity_se']:.4f}" if "equity" in figures else ""),
              flush=True)

    procs = [int(n) for n in args.processes.split(",")]
    threads = [int(n) for n in args.gnubg_threads.split(",")]

    def gnubg_name(vr, n):
        return f"gnubg 1.07, {'variance reduction' if vr else 'no variance reduction'}" + (
            f", {n} threads" if n > 1 else "")

    def ours_name(k, n, label=""):
        what = "no variance reduction" if k is None else ("luck from every play" if k == 0 else
                                                            f"luck pruned to {k} plays")
        return f"ours, {what}" + (f", {n} processes" if n > 1 else "") + (f" ({label})" if label else "")

    trees = {tree: Path(tree).name for tree in args.tree}
    names = []
    for _ in range(args.repeat):  # rounds, each program in turn, so that other load falls on all of them
        for vr, trials, settings in ((True, args.vr_trials, prunes), (False, args.plain_trials, [None])):
            for n in threads:
                add(gnubg_name(vr, n), gnubg_rollout(args.gnubg, args.position, trials, vr, n))
            for k in settings:
                for n in procs:
                    add(ours_name(k, n), our_rollout(net, args.position, trials, vr, k or 0, args.batch, n))
                for tree, label in trees.items():
                    add(ours_name(k, 1, label), tree_rollout(tree, args.checkpoint, args.position, trials, vr,
                                                             k or 0, args.batch))
    for r in rows:
        if r["run"] not in names:
            names.append(r["run"])
    median = {}
    for name in names:
        runs = [r for r in rows if r["run"] == name]
        median[name] = {key: float(np.median([r[key] for r in runs]))
                        for key in ("seconds", "trials_per_s", "cpu_seconds", "equity_se", "raw_equity_se")
                        if all(key in r for r in runs)}
        median[name]["cpu_ms_per_trial"] = 1e3 * median[name]["cpu_seconds"] / runs[0]["trials"]
    ratios, cpu = {}, {}
    pairs = []  # (key, ours, gnubg's): each of ours against gnubg's default (1 thread) and as many threads
    for vr, settings in ((True, prunes), (False, [None])):
        for k in settings:
            tag = "no_vr" if k is None else f"vr_prune{k}"
            for n in procs:
                for m in sorted({1, n} & set(threads)):
                    pairs.append((f"{tag}{'' if n == 1 else f' {n}p'} / gnubg{'' if m == 1 else f' {m}t'}",
                                  ours_name(k, n), gnubg_name(vr, m)))
            for label in trees.values():
                if 1 in threads:
                    pairs.append((f"{tag} ({label})", ours_name(k, 1, label), gnubg_name(vr, 1)))
    for key, ours, theirs in pairs:
        ratios[key] = median[ours]["trials_per_s"] / median[theirs]["trials_per_s"]
        cpu[key] = median[theirs]["cpu_ms_per_trial"] / median[ours]["cpu_ms_per_trial"]
    print(f"medians of {args.repeat} rounds:")
    for name, m in median.items():
        print(f"  {name:<48}{m['trials_per_s']:9.1f} trials/s  {m['cpu_ms_per_trial']:7.1f} ms CPU per trial")
    print("ours / gnubg, trials per second: " + ", ".join(f"{k} {v:.2f}x" for k, v in ratios.items()))
    print("ours / gnubg, trials per CPU second: " + ", ".join(f"{k} {v:.2f}x" for k, v in cpu.items()))
    vr_factor = {name: m["raw_equity_se"] / m["equity_se"] for name, m in median.items()
                 if "equity_se" in m and name.startswith("ours, luck")}
    print("variance-reduction factor (se without / with the luck adjustment, same trials): "
          + ", ".join(f"{name[len('ours, '):]} {v:.2f}" for name, v in vr_factor.items()))
    precision = {}  # trials per second per unit of variance: ours / gnubg's at the same trials, equal cores
    for key, ours, theirs in pairs:
        o, g = median[ours], median[theirs]
        if "equity_se" in o and "equity_se" in g and o["equity_se"] > 0:
            precision[key] = ratios[key] * (g["equity_se"] / o["equity_se"]) ** 2
    if precision:
        print("ours / gnubg at equal precision (trials per second times gnubg's variance over ours, same "
              "trials): " + ", ".join(f"{k} {v:.2f}x" for k, v in precision.items()))
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"command": " ".join(sys.argv), "position": args.position,
                                               "runs": rows, "median": median, "ratio_trials_per_s": ratios,
                                               "ratio_trials_per_cpu_s": cpu, "ratio_equal_precision": precision,
                                               "vr_factor": vr_factor, "load_before": load_before,
                                               "load_after": os.getloadavg()}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
