"""Build (or load) the bear-off databases into the cache and report times and file sizes.

    python scripts/build_bearoff.py [--cache-dir DIR] [--force]

The cache folder is DIR, else $NARDIBOT_CACHE_DIR, else $XDG_CACHE_HOME/nardibot, else
~/.cache/nardibot (model/net/bearoff.py). --force rebuilds even when a good file is there.
"""

from __future__ import annotations

import argparse
import sys
import time

from model.net import bearoff, bearoff_two_sided


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--force", action="store_true", help="rebuild even if the cache file is good")
    args = parser.parse_args(argv)
    folder = bearoff.cache_dir(args.cache_dir)
    two = bearoff_two_sided
    jobs = (
        (bearoff.ONE_SIDED_FILE, bearoff.build_one_sided, bearoff._check_one_sided),
        (two.TWO_SIDED_FILE, two.build_two_sided, two._check_two_sided),
    )
    for name, build, check in jobs:
        start = time.perf_counter()
        arrays = bearoff.load_or_build(name, build, check, folder, rebuild=args.force)
        seconds = time.perf_counter() - start
        path = folder / name
        shapes = ", ".join(f"{k} {v.shape}" for k, v in arrays.items() if v.ndim)
        size = path.stat().st_size / 1e6 if path.exists() else float("nan")
        print(f"{path}: {seconds:.2f} s, {size:.1f} MB ({shapes})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
