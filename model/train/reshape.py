"""A wider or deeper net that plays exactly as before: a recipe's "widen" and "deepen" stages
(model/train/pipeline.py).

``widen``: the last hidden layer gets new units (``hidden`` in all, at least the old width): their input
weights drawn as a new layer's are (PyTorch's default for nn.Linear, from ``seed``), their output weights
zero, so the wider net computes the same outcome probabilities as the old one on every position and
training starts from the old net's strength, with room to learn more. Only single-hidden-layer nets.

``deepen``: a hidden layer of the last one's width after it, its weights the identity and its bias zero:
the last layer's units are already rectified (never negative), so the new layer passes them on
unchanged and the deeper net, too, computes exactly what the old one did.

The new state keeps the old one's settings, games played and actor state; its optimizer state is
dropped (Adam starts afresh: the shapes changed) and its ``made_by`` records the step.
"""

from __future__ import annotations

from pathlib import Path

from model.net.checkpoint import deepenings_of, fits_of, save


def widen(blob: dict, hidden: int, seed: int) -> dict:
    """The checkpoint dict ``blob`` with its single hidden layer widened to ``hidden`` units."""
    import torch

    old = list(blob["net_config"]["hidden"])
    if len(old) != 1:
        raise ValueError(f"only single-hidden-layer nets can be widened; this one has hidden {old}")
    if hidden < old[0]:
        raise ValueError(f"hidden {hidden} is narrower than the net's {old[0]} units")
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
    made["widened"] = f"from {old[0]} to {hidden} hidden units at {blob['games']} games"
    out["made_by"] = made
    return out


def deepen(blob: dict) -> dict:
    """The checkpoint dict ``blob`` with an identity hidden layer added after its last hidden layer."""
    import torch

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
    text = f"from hidden {old} to {hidden}, the new layer the identity, at {blob['games']} games"
    made.update(deepened=text, deepened_after_fits=fits, deepenings=[*earlier, [fits, text]])  # the keys: the last
    out["made_by"] = made
    return out


def reshape(state: Path, out: Path, kind: str, hidden: int = 0, seed: int = 1) -> Path:
    """Write ``out`` (a .pt): the state ``state`` widened to ``hidden`` units (kind "widen") or
    deepened (kind "deepen"); ValueError for a net that cannot be."""
    import torch

    from model.net.config import NetConfig
    from model.net.network import OutcomeNet

    blob = torch.load(state, weights_only=True)
    new = deepen(blob) if kind == "deepen" else widen(blob, hidden, seed)
    net = OutcomeNet(NetConfig.from_dict(new["net_config"]))
    net.load_state_dict(new["weights"])
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    save(out, net, games=new["games"], train_state=new["train_state"], args=new["args"], made_by=new["made_by"])
    return Path(out)
