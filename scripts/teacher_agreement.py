"""How much a deeper teacher knows that a shallower look-ahead does not, on sibling label chunks.

    python scripts/teacher_agreement.py checkpoints/backgammon.safetensors runs/l3p-a runs/l3p-b --plies 0,1,2

For each family of candidate plays in a label stage's ``siblings`` chunks (model/train/labels.py) (made with the
same net), every depth of ``--plies`` values the candidates itself (model/search/lookahead.py's
``evaluate_positions``, pruned as the chunk's labels were, bear-offs from the databases) and picks
one; the chunk's own labels judge the pick: the choice error (equity x 1000 lost per family of two or
more, model/train/labels.py), the share of families where it picks another play than the labels, and
the mean equity shift of the labels against that depth's values (``--judge N``: the net's own N-ply
values judge instead of the labels). A fit to the labels can teach the 0-ply net at most what
separates the labels from its own picks; what separates them from a cheaper teacher's (say 2-ply
against 3-ply labels) is what the dearer labels add. Chunks of scripts/rollout_labels.py are judged
the same way, and their trials also give the labels' own noise: the standard error of the difference
between two siblings, which a choice error judged by them cannot get under.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

LOOK = 64  # positions per look-ahead call (model/train/labels.py)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", help="the net that made the labels (.pt or .safetensors)")
    parser.add_argument("chunks", nargs="+", help="chunk_*.npz files or folders of them")
    parser.add_argument("--plies", default="0,1,2", help="depths to judge, comma-separated (default 0,1,2)")
    parser.add_argument("--max-chunks", type=int, default=0, help="at most this many chunks of each folder (0: all)")
    parser.add_argument("--judge", type=int, default=None,
                        help="judge by the net's own values at this many plies instead of the chunks' labels")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    import model.runtime  # noqa: F401, I001  one BLAS thread, before numpy loads
    import zipfile

    import numpy as np
    from tqdm import tqdm

    from engine.tools.cli import UsageError, run_main
    from model.net.checkpoint import CheckpointError, load_net
    from model.net.equity import cubeless_equity
    from model.net.evaluator import ExactEndgames
    from model.search.lookahead import evaluate_positions
    from model.train.labels import choice_losses

    def sibling_se(trial_equity, group) -> list[float]:
        """Each sibling's trial-by-trial equity minus its family's first sibling's: the standard error of
        the mean difference, one a sibling after the first."""
        out = []
        for g in np.unique(group):
            rows = np.flatnonzero(group == g)
            for r in rows[1:]:
                d = trial_equity[r] - trial_equity[rows[0]]
                out.append(float(d.std(ddof=1) / np.sqrt(len(d))))
        return out

    def run(_argv) -> int:
        try:
            depths = [int(p) for p in args.plies.split(",")]
        except ValueError:
            raise UsageError(f"--plies must be whole numbers separated by commas, not {args.plies!r}") from None
        if not depths or min(depths) < 0 or args.max_chunks < 0 or (args.judge is not None and args.judge < 0):
            raise UsageError("--plies and --judge must be 0 or more, --max-chunks 0 or more")
        own = args.judge is not None  # judged by the net's own look-ahead, not the labels
        files = []
        for name in args.chunks:
            path = Path(name)
            found = sorted(path.glob("chunk_*.npz")) if path.is_dir() else [path] if path.is_file() else []
            if not found:
                raise UsageError(f"no chunk files at {name}")
            files += found[: args.max_chunks] if args.max_chunks else found
        try:
            net, _ = load_net(args.checkpoint, backend="numpy")
        except (CheckpointError, OSError, ValueError) as err:
            raise UsageError(f"cannot load {args.checkpoint}: {err}") from None
        evaluator, game = ExactEndgames(net), net.config.game

        def values(pos, plies, prune):
            return np.concatenate([evaluate_positions(evaluator, pos[s : s + LOOK], plies, prune=prune)
                                   for s in range(0, len(pos), LOOK)])

        losses = {d: [] for d in depths}
        shifts = {d: [] for d in depths}
        pair_se: list[float] = []  # rollout chunks: the standard error of each sibling's difference from its first
        label_kinds = set()  # what made the judging labels: ("plies", 2) or ("trials", 36), a rollout's

        chunks = []  # every chunk read (and checked) before the long part begins
        for f in files:
            try:
                with np.load(f) as chunk:
                    c = dict(chunk)
                made = ("trials", int(c["trials"])) if "trials" in c else ("plies", int(c.get("plies", 2)))
                chunks.append((c["positions"], int(c["prune"]), c["targets"], c["group"], made))
                if "trial_equity" in c:
                    pair_se += sibling_se(c["trial_equity"].astype(np.float64), c["group"])
            except (OSError, ValueError, zipfile.BadZipFile) as err:
                raise UsageError(f"cannot read {f}: {err}") from None
            except KeyError as err:
                raise UsageError(f"{f} has no {err} (not a siblings chunk of a label stage)") from None
            if chunks[-1][2].ndim != 2 or chunks[-1][2].shape[1] != net.config.outputs:
                raise UsageError(f"{f}: its labels do not have the {net.config.outputs} outputs of "
                                 f"{args.checkpoint} (a chunk of another game's net?)")
        for pos, prune, targets, group, made in tqdm(chunks, unit="chunk", desc="judging"):
            label_kinds.add(("plies", args.judge) if own else made)
            ahead = {d: values(pos, d, prune) for d in {*depths, *([args.judge] if own else [])}}
            judge = ahead[args.judge] if own else targets
            labels = cubeless_equity(game, judge.astype(np.float64))
            for d in depths:
                got = ahead[d]
                losses[d].append(choice_losses(game, judge, got, group))
                shifts[d].append(labels - cubeless_equity(game, got))
        if not sum(len(part) for part in losses[depths[0]]):
            raise UsageError("no family of two or more candidates in these chunks")
        rows = []
        judged = f"the net's own {args.judge}-ply" if own else "the labels"
        kinds = [f"{n}-ply" if kind == "plies" else f"rollouts of {n} trials" for kind, n in sorted(label_kinds)]
        made = "" if own else f" (labels: {', '.join(kinds)})"
        print(f"{len(files)} chunks, judged by {judged}{made}")
        noise = None
        if pair_se and not own:
            noise = {"median": float(np.median(pair_se)), "mean": float(np.mean(pair_se)), "pairs": len(pair_se)}
            print(f"the rollout labels' noise: a sibling's equity minus its family's first has a standard error of "
                  f"{noise['median']:.4f} (median of {len(pair_se)} pairs; the same dice for every sibling)")
        for d in depths:
            lost, shift = np.concatenate(losses[d]), np.concatenate(shifts[d])
            half = 1960 * float(lost.std(ddof=1)) / np.sqrt(len(lost)) if len(lost) > 1 else 0.0
            row = {"plies": d, "families": len(lost), "choice_error": 1000 * float(lost.mean()),
                   "choice_error_95": half, "disagree": float(np.mean(lost > 0)),
                   "mean_shift": float(shift.mean()), "mean_abs_shift": float(np.abs(shift).mean())}
            rows.append(row)
            print(f"{d}-ply picks, judged by {judged}: choice error {row['choice_error']:.2f} +- {half:.2f} "
                  f"over {len(lost)} families, another play in {100 * row['disagree']:.1f}%; labels minus "
                  f"{d}-ply equity {row['mean_shift']:+.4f} (mean absolute {row['mean_abs_shift']:.4f})")
        if args.json:
            Path(args.json).write_text(json.dumps({"checkpoint": args.checkpoint, "chunks": [str(f) for f in files],
                                                   "label_plies": sorted(n for kind, n in label_kinds if kind == "plies"),
                                                   "label_rollout_trials": sorted(n for kind, n in label_kinds
                                                                                  if kind == "trials"),
                                                   "sibling_difference_se": noise, "judge": args.judge,
                                                   "depths": rows}, indent=1))
        return 0

    return run_main("teacher_agreement.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
