"""Export a torch checkpoint (.pt) as a .safetensors file for play: same weights (float32), same fields,
without the optimizer state; the export itself is recorded in ``made_by["exported_from"]``.

    python scripts/export_safetensors.py experiments/resume/backgammon/last.pt /tmp/backgammon.safetensors

Needs torch (the [train] extra) to read the .pt. ``train.py --out X.safetensors`` writes this form
directly; this script is for checkpoints that already exist.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from model.net.checkpoint import CheckpointError, is_safetensors, read, write_safetensors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a torch checkpoint (.pt)")
    parser.add_argument("target", help="the .safetensors file to write")
    args = parser.parse_args(argv)
    if not is_safetensors(args.target):
        parser.error(f"the target must end in .safetensors, got {args.target}")
    try:
        blob = read(args.source, backend="numpy")
    except CheckpointError as e:
        parser.error(str(e))
    digest = hashlib.sha256(Path(args.source).read_bytes()).hexdigest()
    command = "python scripts/export_safetensors.py " + " ".join(argv if argv is not None else sys.argv[1:])
    blob["made_by"] = {**(blob.get("made_by") or {}),
                       "exported_from": {"file": Path(args.source).name, "sha256": digest, "command": command}}
    write_safetensors(args.target, blob)
    print(f"wrote {args.target} ({Path(args.target).stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
