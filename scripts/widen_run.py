"""Start a new training run from a run's last.pt with a wider or deeper network that plays exactly as before.

    python scripts/widen_run.py experiments/resume/nardi-v2 experiments/resume/nardi-512 --hidden 512
    python train.py --run-dir experiments/resume/nardi-512 --resume --lr-schedule ...   # then train on
    python scripts/widen_run.py experiments/resume/backgammon-v3-distill4 runs/deep --deepen

The last hidden layer gets new units (``--hidden`` in all, at least the old width): their input
weights drawn as a new layer's are (PyTorch's default for nn.Linear, from ``--seed``), their output
weights zero, so the wider net computes the same outcome probabilities as the old one on every
position and training starts from the old net's strength, with room to learn more (the new units'
output weights get gradients at once; their inputs follow). The new run keeps the old run's
settings, games played and actor state; its optimizer state is dropped (Adam starts afresh: the
shapes changed) and its ``made_by`` records the widening. Only single-hidden-layer nets.

``--deepen`` instead adds a hidden layer of the last one's width after it, its weights the identity
and its bias zero: the last layer's units are already rectified (never negative), so the new layer
passes them on unchanged and the deeper net, too, computes exactly what the old one did.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def widen(blob: dict, hidden: int, seed: int) -> dict:
    """The checkpoint dict ``blob`` with its single hidden layer widened to ``hidden`` units."""
    import torch

    from engine.tools.cli import UsageError

    old = list(blob["net_config"]["hidden"])
    if len(old) != 1:
        raise UsageError(f"only single-hidden-layer nets can be widened; this one has hidden {old}")
    if hidden < old[0]:
        raise UsageError(f"--hidden {hidden} is narrower than the net's {old[0]} units")
    w, b = blob["weights"]["body.0.weight"], blob["weights"]["body.0.bias"]
    head = blob["weights"]["head.weight"]
    fresh = torch.nn.Linear(w.shape[1], hidden - old[0])
    with torch.no_grad():
        torch.manual_seed(seed)
        fresh.reset_parameters()
    weights = dict(blob["weights"])
    weights["body.0.weight"] = torch.cat([w, fresh.weight.detach().to(w.dtype)])
    weights["body.0.bias"] = torch.cat([b, fresh.bias.detach().to(b.dtype)])
    weights["head.weight"] = torch.cat([head, torch.zeros(head.shape[0], hidden - old[0], dtype=head.dtype)], 1)
    out = dict(blob)
    out["weights"] = weights
    out["net_config"] = {**blob["net_config"], "hidden": [hidden]}
    out["optimizer"] = None
    out["args"] = {**blob["args"], "hidden": str(hidden)}
    made = dict(blob.get("made_by") or {})
    made["widened"] = f"from {old[0]} to {hidden} hidden units at {blob['games']} games (scripts/widen_run.py)"
    out["made_by"] = made
    return out


def deepen(blob: dict) -> dict:
    """The checkpoint dict ``blob`` with an identity hidden layer added after its last hidden layer."""
    import torch

    from model.net.checkpoint import deepenings_of, fits_of

    old = list(blob["net_config"]["hidden"])
    width, n = old[-1], len(old)
    head = blob["weights"]["head.weight"]
    weights = dict(blob["weights"])
    weights[f"body.{2 * n}.weight"] = torch.eye(width, dtype=head.dtype)
    weights[f"body.{2 * n}.bias"] = torch.zeros(width, dtype=head.dtype)
    hidden = [*old, width]
    out = dict(blob)
    out["weights"] = weights
    out["net_config"] = {**blob["net_config"], "hidden": hidden}
    out["optimizer"] = None
    out["args"] = {**blob["args"], "hidden": ",".join(map(str, hidden))}
    made = dict(blob.get("made_by") or {})
    fits = len(fits_of(made))
    earlier = deepenings_of(made)  # every deepening in order, each with the number of fits before it
    text = (f"from hidden {old} to {hidden}, the new layer the identity, at {blob['games']} games "
            "(scripts/widen_run.py --deepen)")
    made.update(deepened=text, deepened_after_fits=fits, deepenings=[*earlier, [fits, text]])  # the keys: the last
    out["made_by"] = made
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", help="the run to widen or deepen (its last.pt is read, not changed)")
    parser.add_argument("new_run_dir", help="where the new run's last.pt is written (must not exist)")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--hidden", type=int, help="hidden units of the widened net")
    how.add_argument("--deepen", action="store_true", help="add an identity hidden layer after the last one")
    parser.add_argument("--seed", type=int, default=1, help="seed of the new units' input weights")
    args = parser.parse_args(argv)

    from engine.tools.cli import UsageError, run_main

    def run(_argv) -> int:
        import torch

        from model.net.checkpoint import save
        from model.net.config import NetConfig
        from model.net.network import OutcomeNet

        src, dst = Path(args.run_dir) / "last.pt", Path(args.new_run_dir)
        if dst.exists():
            raise UsageError(f"{dst} exists; choose a new run directory")
        try:
            blob = torch.load(src, weights_only=True)
        except (OSError, RuntimeError) as err:
            raise UsageError(f"cannot read {src}: {err}") from None
        if not isinstance(blob, dict) or "net_config" not in blob:
            raise UsageError(f"{src} is not a training checkpoint")
        out = deepen(blob) if args.deepen else widen(blob, args.hidden, args.seed)
        net = OutcomeNet(NetConfig.from_dict(out["net_config"]))
        net.load_state_dict(out["weights"])
        dst.mkdir(parents=True)
        save(dst / "last.pt", net, games=out["games"], train_state=out["train_state"], args=out["args"],
             made_by=out["made_by"])
        print(f"{dst / 'last.pt'}: {out['made_by']['deepened' if args.deepen else 'widened']}")
        return 0

    return run_main("widen_run.py", run, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
