"""Speed of the network encodings: model.net.features.encode('backgammon') against the gnubg-style
contact_inputs and race_inputs (model/net/contact_inputs.py), and the long-nardi inputs
(model/net/nardi_inputs.py: the full ones and the dense ones of the self-play actors).

    python scripts/bench_inputs.py [--positions 10000] [--single 500] [--repeats 5] [--seed 1] [--numpy]
                                   [--profile] [--json FILE]

The compiled kernels run where numba is installed (engine/compiled.py, from the first call); ``--numpy``
keeps the numpy code. ``--single N`` also times the first N positions one at a time (what a hint does).

Seeded middle-game positions (engine.tools.sample, kind "midgame"; race positions for race_inputs). Each
encoding runs ``--repeats`` times, interleaved with the others so that a busy machine slows all
alike; the median and the fastest run are reported (CPU time of the process), in positions per second. Single-threaded on
purpose (OMP_NUM_THREADS=1 is set before numpy loads): small matrix products under a multi-threaded
BLAS on a shared machine are erratic. ``--profile`` adds the median time of each contact feature.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import functools
import json
import statistics
import sys
import time
from pathlib import Path


def timings(functions: dict, repeats: int) -> dict:
    """{name: [CPU seconds of this process per run]}, the functions called in turn ``repeats`` times."""
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.process_time()
            function()
            times[name].append(time.process_time() - start)
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--single", type=int, default=500, help="positions timed one at a time (0: none)")
    parser.add_argument("--numpy", action="store_true", help="the numpy code, not the compiled kernels")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from engine.compiled import use_numba
    from engine.tools.sample import random_positions
    from model.net import contact_inputs as ci
    from model.net import nardi_inputs as ni
    from model.net.contact_sides import both_sides, prepare
    from model.net.features import encode

    use_numba(not args.numpy)
    n = args.positions
    midgame = random_positions("backgammon", n, seed=args.seed, kind="midgame")[0]
    race = random_positions("backgammon", n, seed=args.seed, kind="race")[0]
    nardi = random_positions("nardi", n, seed=args.seed, kind="midgame")[0]
    functions = {
        "features.encode": lambda: encode("backgammon", midgame),
        "contact_inputs": lambda: ci.contact_inputs(midgame),
        "race_inputs": lambda: ci.race_inputs(race),
        "position_class": lambda: ci.position_class(midgame),
        "nardi_inputs": lambda: ni.nardi_inputs(nardi),
        "nardi_dense": lambda: ni.dense_inputs(nardi),
    }
    one = args.single
    if one:
        functions["features.encode one"] = lambda: [encode("backgammon", midgame[i:i + 1]) for i in range(one)]
        functions["nardi_inputs one"] = lambda: [ni.nardi_inputs(nardi[i:i + 1]) for i in range(one)]
    count = {name: one if name.endswith(" one") else n for name in functions}
    for f in functions.values():  # warm up
        f()
    print("the numpy code" if args.numpy or ci._kernels() is None else "the compiled kernels")
    result = {"kernels": not args.numpy and ci._kernels() is not None}
    for name, runs in timings(functions, args.repeats).items():
        median, k = statistics.median(runs), count[name]
        result[name] = {"median_s": median, "fastest_s": min(runs), "positions_per_s": k / median,
                        "positions": k}
        print(f"{name:20s} median {median * 1000:7.1f} ms  fastest {min(runs) * 1000:7.1f} ms  "
              f"{k / median:10,.0f} positions/s  ({1e6 * median / k:.2f} us each)")
    ratio = result["contact_inputs"]["median_s"] / result["features.encode"]["median_s"]
    result["contact_over_encode"] = ratio
    print(f"contact_inputs takes {ratio:.2f} x the time of features.encode per position")

    if args.profile:
        own, opp = both_sides(midgame)
        sides = prepare(own, opp)
        parts = {"both_sides": lambda: both_sides(midgame), "prepare": lambda: prepare(own, opp)}
        for name in ("checkers_off", "break_contact", "back_checker", "back_anchor", "forward_anchor",
                     "back_escapes", "containment", "mobility", "moment2", "enter_features", "timing",
                     "backbone", "back_game", "free_pips"):
            parts[name] = functools.partial(getattr(ci, name), sides)
        masks = ci.hit_masks(sides)
        parts["hit_features"] = lambda: ci.hit_features(*masks, sides.own[:, 24])
        profile = {name: statistics.median(runs) for name, runs in timings(parts, args.repeats).items()}
        for name, seconds in sorted(profile.items(), key=lambda item: -item[1]):
            print(f"  {name:16s} {seconds * 1000:6.2f} ms")
        result["profile_s"] = profile
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
