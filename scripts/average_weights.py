"""Average the weights of several checkpoints of one network shape into a .safetensors file for play.

Two uses: the last snapshots of one run (an average over its last stretch of training, which smooths
the noise of the last updates), or the ends of runs forked from one checkpoint with other dice (a
"soup" of runs that share a start). Both only make sense for nets that left a common ancestor late
enough to stay in one basin; averaging unrelated nets gives a poor net, which a duel shows at once.

    python scripts/average_weights.py runs/nardi-deep/last.pt runs/nardi-deepb/last.pt /tmp/soup.safetensors
    python scripts/average_weights.py runs/nardi-deep/snapshots/games_0008*.pt /tmp/swa.safetensors

The other fields (game, net shape, feature version, provenance) are the first source's; ``games`` is
the largest of the sources'; ``made_by["averaged_from"]`` names every source by file, games and sha256.
Reads .pt (needs torch) or .safetensors.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

from model.net.checkpoint import CheckpointError, is_safetensors, read, write_safetensors


def average(blobs: list[dict]) -> dict[str, np.ndarray]:
    """The element-wise mean of the sources' weights; ValueError unless every source has the same
    game, net shape, feature version and weight names and shapes."""
    first = blobs[0]
    for blob in blobs[1:]:
        for key in ("game", "net_config", "feature_version"):
            if blob.get(key) != first.get(key):
                raise ValueError(f"the sources differ in {key}: {first.get(key)!r} and {blob.get(key)!r}")
        if set(blob["weights"]) != set(first["weights"]):
            raise ValueError("the sources have different weight names")
    mean = {}
    for name in first["weights"]:
        arrays = [np.asarray(blob["weights"][name], dtype=np.float64) for blob in blobs]
        if any(a.shape != arrays[0].shape for a in arrays):
            raise ValueError(f"the sources differ in the shape of {name}")
        mean[name] = (sum(arrays) / len(arrays)).astype(np.float32)
    return mean


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="two or more checkpoints (.pt or .safetensors), then the .safetensors file to write")
    args = parser.parse_args(argv)
    *sources, target = args.paths
    if len(sources) < 2:
        parser.error("give at least two checkpoints to average and the file to write")
    if not is_safetensors(target):
        parser.error(f"the target must end in .safetensors, got {target}")
    if Path(target).resolve() in {Path(s).resolve() for s in sources}:
        parser.error(f"the target {target} is also a source")
    try:
        blobs = [read(source, backend="numpy") for source in sources]
        weights = average(blobs)
    except (CheckpointError, ValueError) as e:
        parser.error(str(e))
    out = dict(blobs[0])
    out["weights"] = weights
    out["games"] = max(int(blob["games"]) for blob in blobs)
    command = "python scripts/average_weights.py " + " ".join(argv if argv is not None else sys.argv[1:])
    out["made_by"] = {**(blobs[0].get("made_by") or {}), "averaged_from": [
        {"file": str(source), "games": int(blob["games"]),
         "sha256": hashlib.sha256(Path(source).read_bytes()).hexdigest()}
        for source, blob in zip(sources, blobs)], "average_command": command}
    write_safetensors(target, out)
    print(f"wrote {target}: the mean of {len(sources)} nets ({Path(target).stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
