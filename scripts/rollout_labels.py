"""Label the positions of sibling label chunks again, by rolling each one out (a resumable job).

    python scripts/rollout_labels.py checkpoints/backgammon.safetensors runs/l3p-a runs/l3p-a-rollout --trials 36

Reads the ``chunk_*.npz`` files of a label stage's folder (model/train/labels.py) and writes, chunk by chunk under
the same names, the same positions, families and fields with ``targets`` replaced by a rollout's
outcome probabilities of each position (the side on roll's view, as in the source), so that
scripts/teacher_agreement.py can judge the same families by look-ahead labels and by rollouts, and
a fit stage (model/train/fit.py) can fit to them. The rollouts are model/search/trials.py's: cubeless, the net at
0-ply playing both sides to the end of the game, bear-offs from the exact databases, variance reduction
with pubeval's ``--luck-prune`` best plays per roll (evaluate.py rollout's defaults), quasi-random
first two throws, and common dice: trial t throws the same dice in every position of a chunk, so the
siblings of a family are compared on the same games. Each chunk also keeps ``trial_equity`` (n,
trials), the luck-adjusted cubeless equity of every trial (the side on roll's view), for the noise of
the labels and of the differences between siblings, and ``trials``.

Chunk i is rolled out with seed ``--seed`` + i, so the labels are the same however the job is cut; a
chunk already in OUT is left as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="the net that plays the rollouts (.pt or .safetensors)")
    parser.add_argument("source", help="a label stage's folder of chunks")
    parser.add_argument("out", help="folder of the relabelled chunks (created; an existing one is continued)")
    parser.add_argument("--trials", type=int, default=36, help="trials per position (default 36)")
    parser.add_argument("--luck-prune", type=int, default=4,
                        help="variance reduction: the best of pubeval's K best plays per roll (0: all; default 4)")
    parser.add_argument("--max-chunks", type=int, default=0, help="at most this many chunks (0: all)")
    parser.add_argument("--batch", type=int, default=256, help="trials in play at once (default 256)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    import model.runtime  # noqa: F401, I001  one BLAS thread, before numpy loads
    import zipfile

    import numpy as np
    from tqdm import tqdm

    from engine.tools.cli import UsageError, run_main
    from model.net.checkpoint import CheckpointError, load_net
    from model.net.equity import cubeless_equity
    from model.search.trials import NO_OWNER, Candidates, Settings, Trials
    from model.train.labels import write_chunk

    def run(_argv) -> int:
        if args.trials < 2 or args.batch <= 0 or args.luck_prune < 0 or args.max_chunks < 0:
            raise UsageError("--trials must be 2 or more, --batch positive, --luck-prune and --max-chunks 0 or more")
        out = Path(args.out)
        if out.resolve() == Path(args.source).resolve():
            raise UsageError("the output folder must not be the source folder (its chunks would be replaced)")
        files = sorted(Path(args.source).glob("chunk_*.npz"))
        if not files:
            raise UsageError(f"no chunk files in {args.source}")
        files = files[: args.max_chunks] if args.max_chunks else files
        try:
            net, _ = load_net(args.checkpoint, backend="numpy")
        except (CheckpointError, OSError, ValueError) as err:
            raise UsageError(f"cannot load {args.checkpoint}: {err}") from None
        game = net.config.game
        todo = []  # every chunk to do, read and checked before the long part begins
        for f in files:
            if (out / f.name).exists():
                continue
            try:
                with np.load(f) as z:
                    chunk = dict(z)
                pos, width = chunk["positions"], chunk["targets"].shape[-1]
                index = int(f.stem.split("_")[-1])
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
                raise UsageError(f"cannot read {f}: {err}") from None
            if pos.ndim != 2 or pos.shape[1] != 28:
                raise UsageError(f"{f}: positions of shape {pos.shape}, not (n, 28)")
            if width != net.config.outputs:
                raise UsageError(f"{f}: its labels have {width} outputs, {args.checkpoint} {net.config.outputs} "
                                 f"(a chunk of another game?)")
            todo.append((f, index, chunk))
        out.mkdir(parents=True, exist_ok=True)
        bar = tqdm(total=len(files), initial=len(files) - len(todo), unit="chunk", desc=f"rollouts of {args.trials}")
        for f, index, chunk in todo:
            pos = chunk["positions"]
            n = len(pos)
            # the side on roll is the root: the trials' values come back in its view
            cands = Candidates(pos.astype(np.int8), np.ones(n, bool), np.zeros(n, bool), np.ones(n, np.int64),
                               np.full(n, NO_OWNER), np.zeros(n, bool))
            s = Settings(game, seed=args.seed + index, prune=args.luck_prune)
            engine = Trials(net, cands, args.trials, s, args.batch)
            engine.run()
            probs = engine.probs  # (n, trials, K), luck-adjusted, root = side on roll
            chunk["targets"] = probs.mean(axis=1).astype(np.float32)
            chunk["trial_equity"] = cubeless_equity(game, probs).astype(np.float32)
            chunk["trials"] = args.trials
            chunk["plies"] = 0  # the rollouts' own play
            write_chunk(out / f.name, **chunk)
            bar.update(1)
        bar.close()
        print(f"{out}: {len(files)} chunks rolled out, {args.trials} trials a position")
        return 0

    return run_main("rollout_labels.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
