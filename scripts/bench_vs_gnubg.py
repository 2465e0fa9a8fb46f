"""Speed at equal cores beside GNU Backgammon, in one run: the table of docs/benchmarking.md, "Speed at equal cores".

    python scripts/bench_vs_gnubg.py [--rounds 5] [--all] [--json FILE]
    python scripts/bench_vs_gnubg.py --quick          # a smoke test: every row, tiny sizes, one round

Every row does the same work on the same seeded positions (engine.tools.sample: 1,024 mid-game
positions with their dice, 1,024 race positions) in both programs, on the same number of cores, in
rounds that take turns so that other load on the machine falls on both; the figures are medians over
the rounds. In-process rows are timed in CPU seconds of the process (``time.process_time``; each side
single-threaded: numpy gets one BLAS thread through model/runtime.py, gnubg-nn has no threads), so
that load from other jobs inflates neither; whole commands are timed on the wall clock. The rows of
one position at a time give both sides the same positions, one untimed pass over them and then
``ONE_PASSES`` timed ones (a single pass lasts a millisecond or two, too short to outweigh the cold
caches left by the rows before it).

gnubg's side:
  - gnubg-nn (the ``gnubg_nn`` module of the ``[gnubg]`` extra, gnubg's C evaluator and move
    generator): ``moves`` for move generation, ``probabilities(board, 0)`` for 0-ply evaluation,
    ``best_move(board, d1, d2, n=0)`` for the best play, each one position per call (it has no batch
    call), with its evaluation cache off (``net_load(weights, 0)``): every position is new to both
    programs, as in play; with the cache on, the rounds after the first would be answered from it.
  - Debian's gnubg 1.07 (/usr/games/gnubg, its embedded Python): ``hint`` at 0 and 2 ply (its own
    move filter: up to 8 plays within 0.16 at 0 ply go on to 2 ply, as ours; inside the search each
    roll's play is picked among the best 5 + floor(log2(legal plays)) by its pruning net, about 9 in
    the middle game, per gnubg's eval.c: the filter ``--prune 8`` matches), CPU seconds inside
    one gnubg process over all the positions (a fresh process per round, so its cache never
    answers a position a second time); the whole command (start-up included) on the opening with
    4-3; with --all, self-play (gnubg's 0-ply rollout of the opening without variance reduction:
    each trial a whole game of gnubg against itself) and rollouts with variance reduction, both
    with 2 threads against our 2 processes (scripts/bench_actors.py, scripts/bench_rollout.py), and
    the same rollouts at equal precision: each program's trials per second over its own variance per
    trial (gnubg prints its standard error with the results, read through a pseudo-terminal).

Ours: the engine's ``legal_plays``, the shipped net as ``Bot.load()`` loads it (numpy, bear-offs
from the databases), ``Bot.choose`` / ``Bot.choose_batch``, the hint service
(model/service/hint.py's ``hint``, as ``nardibot hint`` calls it; once more with ``prune=8``, the
inner plays among pubeval's best 8) and ``python evaluate.py hint``. Where numba is installed,
``--kernels all`` (the default) runs every compiled kernel from the first call, as
NARDIBOT_NUMBA_WARMUP=0 does, and ``--kernels exact`` only the bit-for-bit ones, as a process that
changes over after its warm-up (engine/compiled.py); NARDIBOT_NO_NUMBA=1 runs the numpy code.

The physical limit: FLOPs of one evaluation of the shipped net (two per multiply-add of its layers)
and of gnubg's contact net (250 inputs, 128 hidden units, 5 outputs: gnubg 1.07's documented sizes),
this machine's measured float32 matrix-product rate on one core (numpy, (4096, 256) @ (256, 256)),
and the share of that rate each evaluation row reaches. Beside gnubg-nn's rate of one position per
Python call, gnubg's own loop over its evaluator (its ``calibrate`` command, one thread) shows what
the calls cost it. Our whole commands run with Python's bytecode cache (``user_env``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import model.runtime  # noqa: F401, I001  (first: one BLAS thread, before numpy loads)
import numpy as np

OPENING = "4HPwATDgc/ABMA"
GNUBG_FLOPS = 2 * (250 * 128 + 128 * 5)
"""gnubg 1.07's contact net: 250 inputs, 128 hidden units, 5 outputs (its weights file's sizes)."""

GNUBG_HINT_SCRIPT = """
import gnubg, json, os, time
jobs = json.loads(os.environ["JOBS"])
for c in ["set automatic roll off", "set player 0 human", "set player 1 human",
          "set evaluation chequerplay evaluation plies " + os.environ["PLY"],
          "set evaluation cubedecision evaluation plies " + os.environ["PLY"], "new game"]:
    gnubg.command(c)
cpu = 0.0
for position, dice in jobs:
    gnubg.command("set board " + position)
    gnubg.command("set turn 1")
    gnubg.command("set dice " + dice)
    before = time.process_time()
    gnubg.command("hint")
    cpu += time.process_time() - before
print("BENCH", cpu, len(jobs))
"""


# --- measuring ---------------------------------------------------------------------------------

def cpu_seconds(f) -> float:
    """CPU seconds of this process while ``f()`` runs."""
    start = time.process_time()
    f()
    return time.process_time() - start


ONE_PASSES = 4
"""The one-position rows: each side calls its function on every position once untimed, then ONE_PASSES
times timed (a pass of 256 positions takes a millisecond or two, where what ran before, cold caches,
weighs on a single timed pass)."""


def one_at_a_time(f, n: int) -> float:
    """Calls per CPU second of ``f(i)`` for i < n, one call at a time, as ``ONE_PASSES`` says."""
    for i in range(n):
        f(i)
    return ONE_PASSES * n / cpu_seconds(lambda: [f(i) for _ in range(ONE_PASSES) for i in range(n)])


def gnubg_nn():
    """gnubg-nn's module with its evaluation cache off, or None when the package is missing."""
    try:
        import gnubg_nn
    except ImportError:
        return None
    weights = Path(gnubg_nn.__file__).parent / "data" / "gnubg.weights"
    if weights.is_file():
        gnubg_nn.net_use(gnubg_nn.net_load(str(weights), 0))
    return gnubg_nn


def gnubg_hint_cpu(gnubg: str, jobs: list[tuple[str, str]], ply: int) -> float:
    """CPU seconds per position of Debian gnubg's ``hint`` at ``ply`` over ``jobs`` (Position ID, dice)."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "hint.py"
        script.write_text(GNUBG_HINT_SCRIPT)
        env = dict(os.environ, JOBS=json.dumps(jobs), PLY=str(ply))
        done = subprocess.run([gnubg, "-t", "-q", "-r", "-p", str(script)], capture_output=True, text=True,
                              env=env, cwd=tmp, timeout=3600, check=False)
    line = [x for x in done.stdout.splitlines() if x.startswith("BENCH")]
    if not line:
        raise RuntimeError(f"gnubg gave no timing: {done.stdout[-500:]} {done.stderr[-500:]}")
    cpu, n = line[-1].split()[1:]
    return float(cpu) / int(n)


def gnubg_hint_command(gnubg: str, position: str, dice: str, ply: int) -> float:
    """Wall seconds of a whole gnubg process that gives one hint (start-up included)."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "hint.py"
        script.write_text(GNUBG_HINT_SCRIPT)
        env = dict(os.environ, JOBS=json.dumps([[position, dice]]), PLY=str(ply))
        start = time.perf_counter()
        subprocess.run([gnubg, "-t", "-q", "-r", "-p", str(script)], capture_output=True, text=True,
                       env=env, cwd=tmp, timeout=600, check=True)
        return time.perf_counter() - start


def gnubg_calibrate(gnubg: str, iterations: int) -> float | None:
    """gnubg's own figure for its evaluator, without a Python call per position: the static evaluations
    a second that its ``calibrate ITERATIONS`` command reports on one thread (None where it says nothing).
    Its rate settles within a few hundred iterations (130.6k at 200, 131.5k at 1,000 on the Xeon; 20,000
    took 167 s), so the full bench runs 2,000 (about 16 s) and --quick 100."""
    done = subprocess.run([gnubg, "-t", "-q"], input=f"set threads 1\ncalibrate {iterations}\nquit\n", capture_output=True,
                          text=True, timeout=600, check=False)
    found = re.search(r"Calibration result: ([0-9.]+) static evaluations/second", done.stdout)
    return float(found.group(1)) if found else None


def user_env() -> dict:
    """The environment a user's command runs in: this one, with Python's bytecode cache on (as an
    installed package has it: without it every start compiles some 60 modules again, 0.06 s)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


_cached: set = set()  # the commands already run once, untimed (the bytecode cache written)


def our_hint_command(position: str, dice: str, ply: int) -> float:
    """Wall seconds of ``python evaluate.py hint`` (a fresh process, start-up included; the first run
    of each command untimed, as ``user_env`` says why)."""
    cmd = [sys.executable, str(ROOT / "evaluate.py"), "hint", position, "--dice", dice, "--ply", str(ply)]
    for _ in range(1 if tuple(cmd) in _cached else 2):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600, check=True, env=user_env())
        _cached.add(tuple(cmd))
    return time.perf_counter() - start


def sgemm_rate() -> float:
    """This machine's float32 matrix-product rate on one core (FLOP/s), median of 5."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4096, 256), dtype=np.float32)
    b = rng.standard_normal((256, 256), dtype=np.float32)
    a @ b
    times = [cpu_seconds(lambda: a @ b) for _ in range(5)]
    return 2 * 4096 * 256 * 256 / statistics.median(times)


def net_flops(net) -> int:
    """FLOPs of one evaluation of a NumpyNet: two per multiply-add of each layer."""
    return sum(2 * w.shape[0] * w.shape[1] for w, _ in net.layers + [net.head])


def sparse_work(net, features: np.ndarray) -> tuple[float, float]:
    """(FLOPs, bytes of weights) a row of the compiled kernel takes on ``features``
    (model/net/forward_numba.py): each layer only the weight rows of its non-zero inputs (the inputs,
    then the hidden units after the ReLU)."""
    x, flops, rows = features.astype(np.float32), 0.0, 0.0
    stored = [w.itemsize for w in net.kernel_weights[0]] + [net.head[0].itemsize]  # halves: 2 bytes a weight
    for (w, b), size in zip(net.layers + [net.head], stored):
        active = np.count_nonzero(x, axis=1).mean()
        flops += 2 * active * w.shape[1]
        rows += active * w.shape[1] * size
        x = np.maximum(x @ w + b, 0.0)
    return flops, rows


def matrix_seconds(net, features: np.ndarray, repeat: int) -> tuple[float, str]:
    """CPU seconds per position of the net's layers alone on one encoded position at a time, and what
    ran them: the compiled kernel where it runs (model/net/forward_numba.py: a process on
    numba from its first call), else the matrix library."""
    from model.net import inference

    kernels = inference._kernels()

    def layers():
        for row in features:
            x = row[None]
            if kernels is not None:
                kernels.forward(net, x)
                continue
            for w, b in net.layers:
                x = x @ w
                x += b
                np.maximum(x, 0.0, out=x)
            x @ net.head[0]
    layers()  # compiled (or loaded from numba's cache) before it is timed
    seconds = cpu_seconds(lambda: [layers() for _ in range(repeat)]) / (repeat * len(features))
    return seconds, "the compiled layers alone, a call of their own" if kernels is not None else "the matrix products alone"


# --- the rows ----------------------------------------------------------------------------------

class Bench:
    """The positions and players of one run; each ``row_*`` returns (ours, gnubg's) in the row's unit."""

    def __init__(self, args):
        from engine.formats.position import write_position_id
        from engine.movegen import legal_plays
        from engine.tools.sample import random_positions
        from model import Bot
        from model.players.gnubg import to_gnubg_boards

        self.args = args
        n = args.positions
        self.mid, self.mid_dice = random_positions("backgammon", n, seed=args.seed, kind="midgame")
        self.race, self.race_dice = random_positions("backgammon", n, seed=args.seed, kind="race")
        self.bot = Bot.load()
        self.net = self.bot.net.net if hasattr(self.bot.net, "net") else self.bot.net
        children, _ = legal_plays("backgammon", self.mid, self.mid_dice)
        from engine.board import flip

        reps = -(-args.batch // len(children))
        self.batch = np.tile(flip("backgammon", children), (reps, 1))[: args.batch]  # children, opponent on roll
        self.g = gnubg_nn()
        self.boards = {k: [b.tolist() for b in to_gnubg_boards(p)] for k, p in
                       (("mid", self.mid), ("race", self.race), ("batch", self.batch))}
        self.dice = {"mid": [(int(a), int(b)) for a, b in self.mid_dice],
                     "race": [(int(a), int(b)) for a, b in self.race_dice]}
        self.gnubg = args.gnubg if Path(args.gnubg).is_file() or shutil.which(args.gnubg) else None
        hints = args.hint_positions
        self.hint_jobs = [(write_position_id(p), f"{d[0]}{d[1]}") for p, d in zip(self.mid[:hints], self.mid_dice[:hints])]
        self.flops = net_flops(self.net)

    # move generation (positions per second)
    def _movegen_batch(self, key, positions, dice):
        from engine.movegen import legal_plays

        ours = len(positions) / cpu_seconds(lambda: legal_plays("backgammon", positions, dice))
        return ours, self._gnubg_moves(key)

    def _gnubg_moves(self, key, n=None):
        if self.g is None:
            return None
        moves, boards = self.g.moves, self.boards[key][:n]
        if n is not None:
            return one_at_a_time(lambda i: moves(boards[i], *self.dice[key][i]), n)
        return len(boards) / cpu_seconds(lambda: [moves(b, x, y) for b, (x, y) in zip(boards, self.dice[key])])

    def row_movegen_mid(self):
        return self._movegen_batch("mid", self.mid, self.mid_dice)

    def row_movegen_race(self):
        return self._movegen_batch("race", self.race, self.race_dice)

    def row_movegen_one(self):
        from engine.movegen import legal_plays

        n = self.args.single
        pos, dice = self.mid[:n], self.mid_dice[:n]
        return one_at_a_time(lambda i: legal_plays("backgammon", pos[i:i + 1], dice[i:i + 1]), n), self._gnubg_moves("mid", n)

    # 0-ply evaluation (evaluations per second)
    def _gnubg_probs(self, key, n=None):
        if self.g is None:
            return None
        probs, boards = self.g.probabilities, self.boards[key][:n]
        if n is not None:
            return one_at_a_time(lambda i: probs(boards[i], 0), n)
        return len(boards) / cpu_seconds(lambda: [probs(b, 0) for b in boards])

    def row_eval_one(self):
        n = self.args.single
        net, pos = self.bot.net, self.batch[:n]
        return one_at_a_time(lambda i: net.probabilities(pos[i:i + 1]), n), self._gnubg_probs("batch", n)

    def row_eval_batch(self):
        net, pos = self.bot.net, self.batch
        net.probabilities(pos[:64])
        ours = len(pos) / cpu_seconds(lambda: net.probabilities(pos))
        return ours, self._gnubg_probs("batch")

    # the best play through the Python API (positions per second)
    def _gnubg_best(self, n, one=False):
        if self.g is None:
            return None
        best, boards, dice = self.g.best_move, self.boards["mid"][:n], self.dice["mid"]
        if one:
            return one_at_a_time(lambda i: best(boards[i], *dice[i], n=0, b=1), n)
        return n / cpu_seconds(lambda: [best(b, x, y, n=0, b=1) for b, (x, y) in zip(boards, dice)])

    def row_choose_one(self):
        n = self.args.single
        bot, pos, dice = self.bot, self.mid[:n], self.mid_dice[:n]
        return one_at_a_time(lambda i: bot.choose(pos[i], dice[i]), n), self._gnubg_best(n, one=True)

    def row_choose_batch(self):
        bot, pos, dice = self.bot, list(self.mid), list(self.mid_dice)
        ours = len(pos) / cpu_seconds(lambda: bot.choose_batch(pos, dice))
        return ours, self._gnubg_best(len(pos))

    # hints (CPU seconds per position; whole command: wall seconds)
    def _our_hint_cpu(self, ply, prune=0):
        from model.service.hint import HintSettings, hint
        from model.service.query import query_of_text

        settings = HintSettings(ply=ply, prune=prune)
        queries = [query_of_text("backgammon", p, d) for p, d in self.hint_jobs]
        return cpu_seconds(lambda: [hint(self.bot, q, settings) for q in queries]) / len(queries)

    def row_hint0(self):
        return self._our_hint_cpu(0), self.gnubg and gnubg_hint_cpu(self.gnubg, self.hint_jobs, 0)

    def row_hint2(self):
        self.gnubg_hint2 = self.gnubg and gnubg_hint_cpu(self.gnubg, self.hint_jobs, 2)
        return self._our_hint_cpu(2), self.gnubg_hint2

    def row_hint2_pruned(self):
        """Inner plays among pubeval's best 8 (hint --prune 8), as gnubg picks them among its pruning
        net's best; gnubg's figure is the same round's of the row above."""
        return self._our_hint_cpu(2, prune=8), getattr(self, "gnubg_hint2", None)

    def row_hint2_command(self):
        return our_hint_command(OPENING, "43", 2), self.gnubg and gnubg_hint_command(self.gnubg, OPENING, "43", 2)

    # --all: whole games and rollouts, 2 cores each
    def row_selfplay(self):
        from bench_rollout import gnubg_rollout

        flags = ["--updates", str(self.args.selfplay_updates), "--samples-per-update", "16384", "--one", "actors 2"]
        done = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench_actors.py"), *flags], capture_output=True,
                              text=True, cwd=ROOT, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
        line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
        if not line:
            raise RuntimeError(f"self-play: {done.stdout[-1500:]} {done.stderr[-1500:]}")
        ours = json.loads(line[0][7:])["games_per_s"]
        theirs = self.gnubg and gnubg_rollout(self.gnubg, OPENING, 1296, False, 2)["trials_per_s"]
        return ours, theirs

    def row_rollout(self):
        from bench_rollout import gnubg_rollout, our_rollout

        trials = self.args.rollout_trials
        ours = our_rollout(self.net, OPENING, trials, True, 4, None, processes=2)
        theirs = self.gnubg and gnubg_rollout(self.gnubg, OPENING, trials, True, 2)
        self.rollout_se = ours["equity_se"] * np.sqrt(ours["trials"])
        self.last_rollouts = (ours, theirs)
        return ours["trials_per_s"], theirs and theirs["trials_per_s"]

    def row_rollout_precision(self):
        """The rollout row's runs as precision bought per second, 1 / (standard error^2 x seconds): trials per
        second over each program's own variance per trial (gnubg's standard error read from its results)."""
        ours, theirs = self.last_rollouts

        def rate(r):
            return r["trials_per_s"] / (r["equity_se"] ** 2 * r["trials"]) if r and r.get("equity_se") else None

        return rate(ours), rate(theirs)


ROWS = (  # (key, work, unit, higher is better, cores, --all only)
    ("movegen_mid", "move generation, {positions} mid-game positions in one batch", "pos/s", True, 1, False),
    ("movegen_race", "move generation, {positions} race positions in one batch", "pos/s", True, 1, False),
    ("movegen_one", "move generation, one position at a time (what hint does)", "pos/s", True, 1, False),
    ("eval_one", "0-ply evaluation, one position at a time", "evals/s", True, 1, False),
    ("eval_batch", "0-ply evaluation, batch of {batch}", "evals/s", True, 1, False),
    ("choose_one", "best play, one position at a time: Bot.choose vs gnubg-nn best_move", "pos/s", True, 1, False),
    ("choose_batch", "best play, Bot.choose_batch of {positions} vs gnubg-nn best_move", "pos/s", True, 1, False),
    ("hint0", "0-ply hint in a running process, CPU per position ({hints} mid-game)", "ms", False, 1, False),
    ("hint2", ("2-ply hint in a running process, CPU per position ({hints} mid-game): every inner play against "
              "gnubg's pruned ones"), "ms", False, 1, False),
    ("hint2_pruned", ("2-ply hint, inner plays among pubeval's best 8 (--prune 8) as gnubg's among its pruning net's "
                     "best 5 + log2(plays), CPU per position"), "ms", False, 1, False),
    ("hint2_command", "2-ply hint, whole command, the opening with 4-3 (wall)", "s", False, 1, False),
    ("selfplay", "self-play with learning, 2 actors vs gnubg 0-ply self-play on 2 threads", "games/s", True, 2, True),
    ("rollout", "rollout with variance reduction, 2 processes vs 2 threads, {trials} trials", "trials/s", True, 2, True),
    ("rollout_precision", "the same rollouts at equal precision: 1 / (standard error^2 x seconds)", "1/(se^2 s)", True,
     2, True),
)
SCALE = {"ms": 1e3}


def fmt(value, unit: str) -> str:
    if value is None:
        return "-"
    value *= SCALE.get(unit, 1)
    if unit in ("pos/s", "evals/s", "games/s", "trials/s"):
        return f"{value / 1e3:,.1f}k" if value >= 1e4 else f"{value:,.0f}"
    return f"{value:.3g}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds; every figure is the median (default 5)")
    parser.add_argument("--positions", type=int, default=1024, help="positions of each set (default 1,024)")
    parser.add_argument("--single", type=int, default=256, help="positions timed one at a time (default 256)")
    parser.add_argument("--batch", type=int, default=16384, help="rows of the batch evaluation (default 16,384)")
    parser.add_argument("--hint-positions", type=int, default=10, help="positions of the hint rows (default 10)")
    parser.add_argument("--all", action="store_true", help="also self-play and rollouts (minutes)")
    parser.add_argument("--selfplay-updates", type=int, default=4)
    parser.add_argument("--rollout-trials", type=int, default=324)
    parser.add_argument("--quick", action="store_true", help="a smoke test: tiny sizes, one round, every row")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--gnubg", default="/usr/games/gnubg")
    parser.add_argument("--json", default=None)
    parser.add_argument("--kernels", choices=("all", "exact"), default="all",
                        help="where numba is installed: every compiled kernel from the first call (all, as "
                             "NARDIBOT_NUMBA_WARMUP=0 does), or only those that give the numpy numbers bit for bit, "
                             "as a process that changes over after its warm-up runs them (exact); "
                             "NARDIBOT_NO_NUMBA=1: none")
    args = parser.parse_args(argv)
    from engine import compiled

    if compiled.numba_installed():
        if args.kernels == "all":
            compiled.use_numba(True)
        else:
            compiled.charge_numpy(compiled.WARMUP_SECONDS)  # the warm-up spent: the exact kernels are due
    if args.quick:
        args.rounds, args.positions, args.single, args.batch, args.hint_positions = 1, 32, 8, 256, 1
        args.selfplay_updates, args.rollout_trials = 1, 8
    command = " ".join([Path(sys.executable).name, "scripts/bench_vs_gnubg.py", *argv])
    loads = [os.getloadavg()[0]]
    bench = Bench(args)
    rows = [r for r in ROWS if args.all or not r[5]]
    runs: dict[str, list] = {r[0]: [] for r in rows}
    for _ in range(args.rounds):
        for key, *_ in rows:
            runs[key].append(getattr(bench, f"row_{key}")())
        loads.append(os.getloadavg()[0])
    sgemm = sgemm_rate()
    matrix = matrix_seconds(bench.net, _encoded(bench), 3 if args.quick else 20)
    sizes = {"positions": f"{args.positions:,}", "batch": f"{args.batch:,}", "hints": args.hint_positions,
             "trials": args.rollout_trials}
    table = {}
    print(f"command: {command}")
    print("ours: " + ("the numpy code" if not compiled.numba_installed() else
                      "every compiled kernel" if args.kernels == "all" else "the bit-for-bit kernels only"))
    print(f"{os.cpu_count()} cores, load average (1 min) {min(loads):.2f}-{max(loads):.2f}; medians of "
          f"{args.rounds} round(s); CPU time in process, wall time for whole commands, self-play and rollouts")
    print("\n| work | cores each | this project | gnubg 1.07 / gnubg-nn (C) | ratio | rounds' ratios |\n"
          "|---|---|---|---|---|---|")
    for key, work, unit, higher, cores, _ in rows:
        ours = statistics.median(r[0] for r in runs[key])
        theirs = [r[1] for r in runs[key] if r[1] is not None]
        theirs = statistics.median(theirs) if theirs else None
        ratio = None if theirs is None else (ours / theirs if higher else theirs / ours)
        # each round's own pair, timed one right after the other: how far the host's load moved the ratio
        paired = [(o / t if higher else t / o) for o, t in runs[key] if t is not None and o and t]
        spread = f"{min(paired):.2f}-{max(paired):.2f}" if paired else "-"
        table[key] = {"ours": ours, "gnubg": theirs, "unit": unit, "ratio": ratio, "ratio_rounds": paired}
        extra = f" ({1e6 / ours:.0f} us each; {matrix[1]}: {matrix[0] * 1e6:.1f})" if key == "eval_one" else ""
        print(f"| {work.format(**sizes)} | {cores} | {fmt(ours, unit)} {unit}{extra} | "
              f"{fmt(theirs, unit)}{f' {unit}' if theirs is not None else ''} | {'-' if ratio is None else f'{ratio:.2f}'} "
              f"| {spread} |")
    print("\nratio: ours / gnubg's rate (for times: gnubg's time / ours), so above 1 is faster than gnubg: of the rounds' "
          "medians; rounds' ratios: the lowest and highest of the rounds' own pairs.")
    sparse, weight_bytes = sparse_work(bench.net, _encoded(bench))
    print(f"physical limit: the shipped net {bench.flops:,} FLOPs per evaluation as dense products, gnubg's contact net "
          f"{GNUBG_FLOPS:,} ({bench.flops / GNUBG_FLOPS:.1f}x); float32 matrix products here {sgemm / 1e9:.1f} GFLOP/s "
          f"on one core, so at most {sgemm / bench.flops / 1e3:,.0f}k dense evaluations/s of ours, "
          f"{sgemm / GNUBG_FLOPS / 1e3:,.0f}k of gnubg's")
    if compiled.numba_from_start():
        print(f"  the compiled kernel skips zero inputs and inactive units: {sparse:,.0f} FLOPs a row on these "
              f"positions ({sparse / bench.flops:.0%} of the dense products), reading {weight_bytes / 1024:.0f} KB of "
              f"weight rows scattered through the cache (what bounds it, with the inputs)")
    calibrate = bench.gnubg and gnubg_calibrate(bench.gnubg, 100 if args.quick else 2000)
    if calibrate:
        print(f"  gnubg's own loop over its C evaluator (its calibrate command, one thread): {calibrate / 1e3:,.1f}k static "
              f"evaluations/s, against gnubg-nn's {table['eval_batch']['gnubg'] / 1e3:,.1f}k a Python call per position "
              "above (gnubg-nn has no batch call)")
    for key in ("eval_one", "eval_batch"):
        row = table[key]
        share = f"ours {row['ours'] * bench.flops / sgemm:.1%}"
        if row["gnubg"] is not None:
            share += f", gnubg {row['gnubg'] * GNUBG_FLOPS / sgemm:.1%}"
        print(f"  share of that rate reached as dense products, {key.replace('_', ' ')}: {share}")
    if args.all and hasattr(bench, "rollout_se"):
        theirs = bench.last_rollouts[1]
        gnubg_se = f"{theirs['equity_se'] * np.sqrt(theirs['trials']):.3f}" if theirs and "equity_se" in theirs else "-"
        print(f"rollout: standard error per trial (last round), ours {bench.rollout_se:.3f}, gnubg's {gnubg_se} equity")
    if args.json:
        Path(args.json).write_text(json.dumps({"command": command, "load_average": loads, "rounds": args.rounds,
                                               "rows": table, "runs": runs, "sgemm_flops": sgemm,
                                               "flops": {"ours": bench.flops, "gnubg": GNUBG_FLOPS,
                                                         "ours_sparse": sparse,
                                                         "ours_sparse_weight_bytes": weight_bytes}, "kernels": args.kernels,
                                               "matrix_seconds_one": matrix[0], "layers": matrix[1],
                                               "gnubg_calibrate": calibrate or None}, indent=1) + "\n")
    return 0


def _encoded(bench) -> np.ndarray:
    from model.net.features import encode

    return encode("backgammon", bench.batch[: bench.args.single], bench.net.config.feature_version)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
