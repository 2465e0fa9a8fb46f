"""``nardibot benchmark PLAYER [PLAYER ...]``: checker-play error rates on the stored benchmark.

    nardibot benchmark checkpoints/backgammon.safetensors pubeval gnubg-0ply --json er.json

Each PLAYER is a checkpoint path or a baseline name, as in the match command. Every stored backgammon
position is shown to the player with its dice and all its legal plays; the error rate (ER) is the mean
equity its picks lose against gnubg 2-ply's best play, x 1000, per class of position (contact, crashed,
race, bear-off, as gnubg classifies them) and over all, with a normal 95% interval over positions
(model/arena/benchmark.py). With two or more players, each after the first also gets the paired
difference of its overall ER from the first's (the same positions: a tighter interval).

A pick that gnubg 2-ply did not judge when the file was made is judged now when gnubg-nn is installed,
else estimated from gnubg 0-ply; the "new" column counts them. --no-judge always estimates.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from model.arena.benchmark import CLASSES, BenchmarkError, gnubg_judge, load_benchmark, score
from model.players.registry import make_player
from nardibot.cli.common import (
    CLOSED_PIPE,
    UsageError,
    check_writable,
    dataclass_parser,
    emit,
    option,
    write_json,
)

GAME = "backgammon"


@dataclass
class Args:
    """Settings of a benchmark run."""

    players: list[str] = option(help="checkpoint paths or baseline names", positional=True, nargs="+")  # noqa: RUF009
    file: str | None = option(None, help="benchmark file (default: benchmarks/backgammon-checker-play.npz)")
    positions: int = option(0, help="score only this many positions per class, a seeded sample (0 = all)")
    seed: int = option(0, help="seed of the sample and of random players")
    no_judge: bool = option(False, help="estimate unjudged picks from gnubg 0-ply even if gnubg-nn is installed")
    json: str | None = option(None, help="write every figure and the settings to this file")


def sample(bench, per_class: int, seed: int):
    """Up to ``per_class`` positions of each class, seeded; the whole benchmark when 0."""
    if per_class == 0:
        return bench
    rng = np.random.default_rng(seed)
    classes = bench.classes
    keep = [rng.permutation(np.flatnonzero(classes == name))[:per_class] for name in CLASSES]
    return bench.subset(np.sort(np.concatenate(keep)))


def table(rows: list[dict]) -> str:
    """One line per player: ER +- 95% half-width per class and overall, picks judged now/estimated, seconds."""
    names = [n for n in [*CLASSES, "overall"] if n in rows[0]["error_rates"]]
    width = max(12, *(len(r["player"]) for r in rows))
    head = f"{'player':<{width}}" + "".join(f"{n:>17}" for n in names) + f"{'new':>7}{'s':>6}"
    lines = [head]
    for r in rows:
        cells = "".join(f"{r['error_rates'][n]['er']:>9.2f} +-{r['error_rates'][n]['ci95']:>6.2f}" for n in names)
        lines.append(f"{r['player']:<{width}}{cells}{r['judged_now'] + r['estimated']:>7}{r['seconds']:>6.1f}")
    return "\n".join(lines)


def paired(first: np.ndarray, other: np.ndarray) -> tuple[float, float]:
    """Mean x 1000 of other - first on the same positions and its normal 95% half-width."""
    d = 1000 * (other - first)
    return float(d.mean()), float(1.96 * d.std(ddof=1) / math.sqrt(len(d)))


def benchmark_main(argv: list[str]) -> int:
    """Score each player; print the table (and paired differences); optionally write JSON."""
    parser = dataclass_parser(Args, prog="nardibot benchmark", description=__doc__.split("\n\n")[0])
    args = Args(**vars(parser.parse_args(argv)))
    if args.positions < 0 or args.seed < 0:
        raise UsageError("--positions and --seed must be at least 0")
    check_writable("--json", args.json)  # said before the work, not after
    try:
        bench = sample(load_benchmark(args.file), args.positions, args.seed)
    except BenchmarkError as e:
        raise UsageError(str(e)) from None
    players = []
    for spec in args.players:
        try:
            players.append(make_player(spec, GAME, seed=args.seed))
        except Exception as e:  # noqa: BLE001 - at the command line any failure to load is bad input
            message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise UsageError(f"player {spec}: {message}") from None
    judge = None if args.no_judge else gnubg_judge()
    rows, losses = [], []
    for spec, player in zip(args.players, players):
        started = time.perf_counter()
        result = score(player, bench, judge)
        losses.append(result.pop("loss"))
        rows.append({"player": spec, **result, "seconds": time.perf_counter() - started})
    lines = [(f"checker-play error rate: mean equity lost per move x 1000 against gnubg 2-ply's best "
              f"(cubeless money), 95% interval; {len(bench)} positions"), table(rows)]
    for row, loss in zip(rows[1:], losses[1:]):
        row["paired_vs_first"] = dict(zip(("er", "ci95"), paired(losses[0], loss)))
        d = row["paired_vs_first"]
        lines.append(f"{row['player']} minus {rows[0]['player']}, paired: {d['er']:+.2f} +- {d['ci95']:.2f}")
    lines.append("new: picks gnubg 2-ply had not judged in the file, " +
                 ("judged now by gnubg-nn" if judge else "estimated from gnubg 0-ply"))
    shown = emit("\n".join(lines))
    if args.json:
        write_json(args.json, {"command": "benchmark", "argv": argv, "settings": asdict(args),
                               "benchmark": {"positions": len(bench), "meta": bench.meta}, "results": rows})
    return 0 if shown else CLOSED_PIPE


main = benchmark_main
