"""The strength tables of checkpoints/README.md, written from the JSON files measure_release.sh leaves.

    python scripts/release_tables.py > /tmp/tables.md

Reads experiments/results/release/*.json and the checkpoints themselves (games, seconds, commands), so
the figures in the docs are copied by a program, not by hand. The commands are printed as each file's
``made_by`` records them, but with the folders that have moved since named where they are now (MOVED).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STRENGTH = ROOT / "experiments" / "results" / "release"
MOVED = {"checkpoints/levers/": "experiments/nets/", "checkpoints/resume/": "experiments/resume/"}
"""Folders a recorded command names, old -> new: the research record's nets and runs left checkpoints/."""


def moved(command: str) -> str:
    """``command`` with the folders of MOVED named where they are now."""
    for old, new in MOVED.items():
        command = command.replace(old, new)
    return command


def load(name: str) -> dict:
    return json.loads((STRENGTH / f"{name}.json").read_text())


def cubeless_row(name: str, label: str) -> str:
    r = load(name)["result"]
    levels = ("win", "gammon", "backgammon") if r["game"] == "backgammon" else ("win", "mars")
    plural = {"win": "wins", "gammon": "gammons", "backgammon": "backgammons", "mars": "mars"}
    rates = ", ".join(f"{plural[level]} {100 * r['a_' + level]:.1f}%" for level in levels)
    adjusted = r.get("luck_adjusted")  # evaluate.py --luck: the same figure, the luck taken out
    luck = f" (luck-adjusted {adjusted['ppg']:+.3f} +- {adjusted['ci95']:.3f})" if adjusted else ""
    return (f"| {label} | {r['games']:,} | {r['ppg']:+.3f} +- {r['ci95']:.3f}{luck} | {rates} | "
            f"`{name}.json` |")


def recipe_made_by(blob: dict) -> str:
    """The provenance of a net a recipe's ``export`` stage wrote (model/train/pipeline.py ``provenance``):
    the recipe with its checksum, the hours, and every stage with its minutes and one-line summary."""
    r = blob["made_by"]["recipe"]
    hidden = ",".join(str(h) for h in blob["net_config"]["hidden"])
    shipped = {hashlib.sha256(f.read_bytes()).hexdigest(): f.name for f in (ROOT / "recipes").glob("*.toml")}
    name = shipped.get(r["sha256"], Path(r["recipe"]).name)  # the shipped recipe file with the same bytes
    lines = [(f"- Made from random weights by one job, `nardibot train {Path(name).stem} --run-dir DIR` "
              f"(`recipes/{name}`, sha256 `{r['sha256'][:16]}...`): "
              f"{r['hours']:.2f} hours on the 2-core machine, {blob['games']:,} self-play games, hidden layer(s) "
              f"{hidden}, feature version {blob['feature_version']}."),
             ("- Its stages, as the run's manifest records them (the whole recipe and manifest are in the "
             "file's `made_by[\"recipe\"]`):"), "", "| stage | kind | minutes | what it did |", "|---|---|---|---|"]
    for stage in r["stages"]:
        summary = stage["summary"].replace("|", "\\|")
        lines.append(f"| {stage['name']} | {stage['kind']} | {stage['seconds'] / 60:.1f} | {summary} |")
    return "\n".join(lines)


def made_by(game: str) -> str:
    from model.net.checkpoint import deepenings_of, fits_of, read
    from model.train.labels import ENSEMBLE_TEACHER

    blob = read(ROOT / "checkpoints" / f"{game}.safetensors", backend="numpy")
    m = blob["made_by"]
    if "recipe" in m:  # one recipe run made it: its manifest is the provenance
        return recipe_made_by(blob)
    hidden = ",".join(str(h) for h in blob["net_config"]["hidden"])
    lines = [(f"- {blob['games']:,} self-play games, {m.get('seconds', 0) / 3600:.2f} hours of training "
             f"(wall time on the 2-core machine, shared with other work), hidden layer(s) {hidden}, "
             f"feature version {blob['feature_version']}."), "- Commands, in order:", ""]
    lines += [f"      {moved(c)}" for c in m.get("commands", [m.get("command", "")])]
    fits = fits_of(m)
    how = "fitted to labels of its own look-ahead (a recipe's fit stage, `model/train/fit.py`)"
    if any(ENSEMBLE_TEACHER in f for f in fits):  # labels with teacher_also
        how = ("fitted to labels of an ensemble: the mean of its net and the nets a fit names "
               "(a labels stage's `teacher_also`, `model/train/labels.py`)")
    steps = deepenings_of(m)  # a deepen stage between two fits (experiments/backgammon_deeper_fits.md)
    for after, text in reversed(steps):  # from the last, so each index still counts only the fits before it
        fits.insert(int(after), text)
    if steps:
        layers = "a second hidden layer" if len(steps) == 1 else f"{len(steps)} more hidden layers"
        how += f" and given {layers} (a deepen stage, `model/train/reshape.py`)"
    if fits:  # fit rounds after the last command (experiments/backgammon_fitting.md, L7)
        lines += ["", f"  then {how}, in order:", ""]
        lines += [f"      {moved(f)}" for f in fits]
    if "exported_from" in m:  # trained into a .pt, then written out as .safetensors
        e = m["exported_from"]
        lines += ["", f"  then exported from `{e['file']}` (sha256 `{e['sha256'][:16]}...`):", "",
                  f"      {moved(e['command'])}"]
    return "\n".join(lines)


def main() -> int:
    out = ["## backgammon.safetensors", "", made_by("backgammon"), "",
           ("Cubeless money games, mirrored dice (each dice stream played twice with the seats swapped), "
           "the shipped net at 0-ply as A:"), "",
           "| opponent | games | A's points per game (95%) | A's rates | file |", "|---|---|---|---|---|",
           cubeless_row("backgammon_vs_pubeval", "pubeval"),
           cubeless_row("backgammon_vs_gnubg0", "gnubg 0-ply (gnubg-nn)"),
           cubeless_row("backgammon_vs_heuristic", "heuristic"),
           cubeless_row("backgammon_vs_random", "random"), ""]
    money, match = load("cube_money")["results"]["money"], load("cube_match")["results"]["match"]
    out += ["With the cube (`scripts/cube_strength.py`):", "",
            (f"- money games: the net with its cube module against the same net that never doubles and "
            f"always takes, {money['games']:,} mirrored games: {money['ppg']:+.3f} +- {money['ppg_ci95']:.3f} "
            f"points per game (mean cube {money['mean_cube']:.2f})."),
            (f"- 5-point matches: match-aware (cube decisions at the score, checker play by match-winning "
            f"chance) against the same net playing money-style, {match['matches']:,} matches: "
            f"{100 * match['a_win_rate']:.1f}% +- {100 * match['a_win_ci95']:.1f}% match wins (Wilson "
            f"{100 * match['a_win_wilson_low']:.1f}-{100 * match['a_win_wilson_high']:.1f}%)."), ""]
    agree = load("gnubg_agreement")
    s = agree["summary"]
    loss = s["loss"]
    out += [("Checker play against gnubg (`scripts/gnubg_agreement.py`, "
            f"{len(agree['records'])} positions with a choice from {agree['games']} games of the bot against "
            "gnubg 0-ply; judge: gnubg 2-ply, cubeless money equity):"), "",
            (f"- top play agrees with gnubg 0-ply's: {100 * s['agreement_bot0_gnubg0']['mean']:.1f}% "
            f"+- {100 * s['agreement_bot0_gnubg0']['ci95']:.1f}% (at 2-ply with gnubg 2-ply's: "
            f"{100 * s['agreement_bot2_gnubg2']['mean']:.1f}%)"), "",
            "| chooser | mean equity loss per move (95%) |", "|---|---|"]
    for key in ("bot-0ply", "bot-1ply", "bot-2ply", "gnubg-0ply"):
        out.append(f"| {key} | {loss[key]['mean']:.4f} +- {loss[key]['ci95']:.4f} |")
    out += ["", "## nardi.safetensors", "", made_by("nardi"), "",
            "| opponent | games | A's points per game (95%) | A's rates | file |", "|---|---|---|---|---|",
            cubeless_row("nardi_vs_heuristic", "heuristic"), cubeless_row("nardi_vs_random", "random"),
            cubeless_row("nardi_vs_v1", "the nardi net of commit 413dfce (feature version 1)"), ""]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
