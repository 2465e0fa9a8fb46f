"""Rolling out the worst decisions of an analysed match again (``analyse --rollout N``).

The decisions marked bad or very bad at the analysis depth, worst first, at most ``at_most`` of them,
are rolled out with model/search/rollout.py (cubeful trials: the cube is in play, at the decision's
cube and score), N trials each:

* a checker play: the best play at the analysis depth against the play made, with the same dice in
  both (so their difference has a much smaller error than either value); the loss becomes the
  rolled-out best minus the play made (0 when the play made comes out ahead);
* a cube decision: the position is rolled out without dice (no double; double, take), and the
  decision is judged from the rolled-out equities as at the analysis depth (model/analysis/cube_errors.py's
  ``cube_losses``); a double and its answer share one rollout.

The decision keeps its analysis-depth loss as ``ply_loss`` and gets ``evaluated: "rollout N"`` and a
``rollout`` entry with the rolled-out values.
"""

from __future__ import annotations

from engine.formats.matfile import BEAVER, DOUBLE, DROP, TAKE
from engine.formats.matreplay import ROLL
from model.analysis.cube_errors import cube_losses
from model.analysis.marks import BAD, VERY_BAD, mark
from model.cube import decisions as cube
from model.search.rollout import rollout
from model.search.rollout_workers import local_trials

STEP_OF_ACTION = {"no double": ROLL, "double": DOUBLE, "take": TAKE, "beaver": BEAVER, "pass": DROP}


def worst(decisions: list[dict], at_most: int) -> list[int]:
    """Indices of the decisions marked bad or very bad, the largest loss first, at most ``at_most``."""
    marked = [i for i, d in enumerate(decisions) if d["mark"] in (BAD, VERY_BAD)]
    return sorted(marked, key=lambda i: -decisions[i]["loss"])[:at_most]


def _roll_out(net, position, dice, trials: int, view, seed: int, processes: int, device, **options):
    """model.search.rollout.rollout of ``position`` at the cube ``view`` in ``processes`` processes
    (0: one per core, 1: this one)."""
    return rollout(net, position, dice, trials, state=view, seed=seed, device=device, engine=local_trials(processes),
                   **options)


def roll_out_worst(net, decisions: list[dict], contexts: list, trials: int, at_most: int, seed: int = 0,
                   processes: int = 1, device="cpu") -> int:
    """Roll out the worst decisions (module docstring) with the network ``net`` on ``device``, updating
    them in place; ``contexts[i]`` is the (position, model.cube CubeState) of decision i; ``processes``:
    the rollouts' processes (0: one per core, 1: this one). Returns how many were rolled out."""
    cube_results: dict = {}
    chosen = worst(decisions, at_most)
    for i in chosen:
        d, (position, view) = decisions[i], contexts[i]
        d["ply_loss"] = d["loss"]
        if d["kind"] == "move":
            _checker(net, d, position, view, trials, seed, processes, device)
        else:
            key = (d["game"], d["position_id"], view)
            if key not in cube_results:
                cube_results[key] = _roll_out(net, position, None, trials, view, seed, processes, device)
            _cube(d, cube_results[key], view)
        d["mark"] = mark(d["loss"])
        d["evaluated"] = f"rollout {trials}"
    return len(chosen)


def _checker(net, d: dict, position, view, trials: int, seed: int, processes: int, device) -> None:
    dice = (int(d["dice"][0]), int(d["dice"][1]))
    result = _roll_out(net, position, dice, trials, view, seed, processes, device, cubeful=True,
                       plays=[d["best"], d["played"]])
    values = {e.label: e.cubeful for e in result.plays}
    played = values[d["played"]]
    best = max(values.values())
    if view.is_money:
        d["loss"], d["loss_mwc"] = max(0.0, best - played), None
    else:
        d["loss"] = max(0.0, float(cube.mwc2eq(best, view) - cube.mwc2eq(played, view)))
        d["loss_mwc"] = max(0.0, best - played)
    d["rollout"] = {"trials": result.trials, "values": values, "separation": result.separation,
                    "unit": "equity" if view.is_money else "mwc"}


def _cube(d: dict, result, view) -> None:
    rolled = result.cube_decision
    norm = rolled["normalised"]
    numbers = {"no_double": norm["no_double"], "double_take": norm["double_take"],
               "double_pass": norm["double_pass"], "doubling_right": bool(rolled["double"])}
    if not view.is_money:
        numbers.update(no_double_mwc=rolled["no_double"]["value"], double_take_mwc=rolled["double_take"]["value"],
                       double_pass_mwc=rolled["double_pass"]["value"])
    _action, loss, loss_mwc, error = cube_losses(numbers, STEP_OF_ACTION[d["action"]], view.is_money)
    d.update(loss=loss, loss_mwc=loss_mwc, error=error, proper=rolled["action"],
             rollout={"trials": result.trials, "equities": norm, "action": rolled["action"],
                      "response": rolled["response"]})
    if d["kind"] == "take":
        d["right"] = rolled["response"]
    else:
        d["right"] = "double" if rolled["double"] else "no double"
