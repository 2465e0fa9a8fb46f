"""Does `evaluate.py analyse` agree with GNU Backgammon 1.07's own analysis of matches gnubg played?

    python scripts/analysis_agreement.py --matches 6 --length 5 --ply 0 \
        --json experiments/results/analysis_agreement.json
    python scripts/analysis_agreement.py --matches 2 --length 3 --ply 2

For each match (seed s = 1, 2, ...): Debian's gnubg (``/usr/games/gnubg -t -q``, driven by this same
file as its Python script) plays a ``--length``-point match with itself, player 0 at 0-ply, player 1
at 0-ply with evaluation noise ``--noise`` (checker play and cube), ``set seed s``; it analyses the
match itself at 2-ply (``analyse match``, checker play and cube) and writes ``export match text``,
``export match mat`` and its per-move record (``gnubg.match(analysis=True)``). Our analysis
(model/analysis/review.py, the shipped net at ``--ply``) reads the exported .mat.

Reported, per match and over all matches:
- the checker-play error rate per unforced move of each player (mEMG): gnubg's (its text export's
  "Match statistics") and ours, and whether the two rank the players the same way (the overall rate,
  with cube errors, too);
- of gnubg's checker plays marked bad or very bad, the share we also mark bad or very bad, and the share
  we mark at all (doubtful or worse); and the other way round, of ours, the share gnubg marks. Plays
  are matched by their order in the game (the dice are checked to be the same);
- per cube decision (on roll: missed and wrong doubles; the answer: wrong takes and passes): gnubg's
  cube errors, every one its text export alerts ("Alert: wrong take (-0.238)!", checked against its
  "Cube statistics" counts) and those it marks doubtful or worse (" [very bad]"), and the share of them
  our analysis also calls an error and also marks; and the other way round. Decisions are matched by
  game, player, Position ID and kind. Cube errors are rare (a few per match), so these shares rest on
  small counts: run more matches for a firmer figure.
Exit status 0 when every match ranks the players the same way by checker error rate, 1 when one does
not, 2 on bad flags or a missing gnubg.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DRIVER_FLAG = "ANALYSIS_AGREEMENT_DRIVER"
"""Set in gnubg's environment: this file then runs as the driver inside gnubg (no ``__file__`` there)."""

GNUBG = "/usr/games/gnubg"
MARKED_BAD = ("bad", "very bad")
GNUBG_SKILL = {"doubtful": "doubtful", "bad": "bad", "very bad": "very bad", "verybad": "very bad"}


def run_driver() -> None:
    """Inside gnubg: play one match as the environment asks, analyse it, export it."""
    import gnubg  # gnubg's embedded module

    env = os.environ
    length, noise, out = int(env["AA_LENGTH"]), float(env["AA_NOISE"]), env["AA_OUT"]
    commands = ["set automatic game off", "set defaultnames zero noisy",
                "set player 0 gnubg", "set player 1 gnubg"]
    for side in (0, 1):
        for what in ("chequerplay", "cubedecision"):
            commands.append(f"set player {side} {what} evaluation plies 0")
    commands += [f"set player 1 chequerplay evaluation noise {noise:g}",
                 f"set player 1 cubedecision evaluation noise {noise:g}",
                 f"set seed {int(env['AA_SEED'])}", f"new match {length}"]
    for command in commands:
        gnubg.command(command)
    while True:
        match = gnubg.match(analysis=False, boards=False)
        scores = [0, 0]
        for game in match["games"]:
            if game["info"].get("winner") is not None:
                scores["XO".index(game["info"]["winner"])] += game["info"]["points-won"]
        if max(scores) >= length or match["games"][-1]["info"].get("winner") is None:
            break
        gnubg.command("new game")
    for command in ("set analysis chequerplay evaluation plies 2", "set analysis cubedecision evaluation plies 2",
                    "analyse match", f"export match text {out}/gnubg.txt", f"export match mat {out}/match.mat"):
        gnubg.command(command)
    with open(f"{out}/gnubg.json", "w") as f:
        json.dump(gnubg.match(analysis=True, boards=True), f, default=list)


def gnubg_match(folder: Path, length: int, noise: float, seed: int) -> dict:
    """Have gnubg play and analyse one match into ``folder``: {"mat", "text", "record"}."""
    for old in folder.glob("gnubg*"):
        old.unlink()
    env = dict(os.environ, **{DRIVER_FLAG: "1", "AA_LENGTH": str(length), "AA_NOISE": str(noise),
                              "AA_SEED": str(seed), "AA_OUT": str(folder)})
    proc = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(Path(__file__).resolve())], env=env,
                          capture_output=True, text=True, timeout=1800, check=False)
    if not (folder / "gnubg.json").exists():
        raise RuntimeError(f"gnubg wrote no analysis (seed {seed}): {proc.stdout[-500:]} {proc.stderr[-500:]}")
    texts = [t.read_text(errors="replace") for t in sorted(folder.glob("gnubg*.txt"))]  # gnubg.txt, gnubg_002.txt...
    return {"mat": folder / "match.mat", "text": "\n".join(texts), "games": texts,
            "record": json.loads((folder / "gnubg.json").read_text())}


_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def gnubg_rates(text: str) -> dict:
    """From gnubg's text export (the last game's file ends with the match's statistics), the
    match's per-player error rates (mEMG, as positive losses):
    {"checker": [p0, p1], "overall": [p0, p1]}."""
    part = text[text.index("Match statistics"):]
    out = {}
    for key, section in (("checker", "Chequerplay statistics"), ("overall", "Overall statistics")):
        block = part[part.index(section):]
        line = next(x for x in block.splitlines() if x.startswith("Error rate mEMG"))
        numbers = [float(v) for v in _NUMBER.findall(line.split("mEMG", 1)[1].replace("(MWC)", ""))]
        out[key] = [-numbers[0], -numbers[2]]  # each player: mEMG then (MWC %)
    return out


def gnubg_moves(record: dict) -> list[list[dict]]:
    """Per game, gnubg's checker plays: {"player", "dice", "mark", "loss" (2-ply, >= 0)}."""
    games = []
    for game in record["games"]:
        plays = []
        for action in game["game"]:
            if action.get("action") != "move":
                continue
            analysis = action.get("analysis", {})
            moves, k = analysis.get("moves"), analysis.get("imove")
            loss = moves[0]["score"] - moves[k]["score"] if moves and k is not None else 0.0
            plays.append({"player": "XO".index(action["player"]), "dice": sorted(action["dice"]),
                          "mark": GNUBG_SKILL.get(analysis.get("skill")), "loss": max(0.0, loss)})
        games.append(plays)
    return games


_SECTION = re.compile(r"^Move number \d+:", re.MULTILINE)
_ACTOR = re.compile(r"^\* (\S+) (?:moves|doubles|accepts|rejects|passes|cannot|beavers|resigns)", re.MULTILINE)
_CUBE_ALERT = re.compile(r"Alert: (missed double|wrong double|wrong take|wrong pass) \(\s*([-+]?\d+\.\d+)(%?)\s*\)!"
                         r"\s*(?:\[([a-z ]+)\])?")
_MARKED_ONLY = re.compile(r"Alert: (double|take) decision marked ([a-z ]+)")
DECISION_OF = {"missed double": "double", "wrong double": "double", "wrong take": "take", "wrong pass": "take"}
"""Our decision kind (model/analysis: "double" on roll, "take" the answer) of each of gnubg's cube errors."""


def gnubg_cube_errors(games: list[str]) -> list[dict]:
    """gnubg's cube errors from its text export (one text per game): every "Alert: missed double / wrong
    double / wrong take / wrong pass (loss)!" with its mark (" [doubtful]", " [bad]", " [very bad]" on the
    next line, gnubg 1.07's thresholds; none below doubtful), and "Alert: double/take decision marked ..."
    without an error kind. Each: {"game", "player" (name), "position_id", "decision", "error", "loss" (EMG,
    None when printed as MWC), "mark"}."""
    out = []
    for number, text in enumerate(games, start=1):
        starts = [m.start() for m in _SECTION.finditer(text)] + [len(text)]
        for begin, end in itertools.pairwise(starts):
            section = text[begin:end]
            actor, position = _ACTOR.search(section), re.search(r"Position ID: (\S+)", section)
            found = [(DECISION_OF[m[1]], m[1], None if m[3] else abs(float(m[2])), m[4])
                     for m in _CUBE_ALERT.finditer(section)]
            found += [(m[1], None, None, m[2].strip()) for m in _MARKED_ONLY.finditer(section)]
            for decision, error, loss, mark in found:
                if actor is None or position is None:
                    raise RuntimeError(f"a cube alert of gnubg's in a section without a player or position: {section[:200]}")
                out.append({"game": number, "player": actor[1], "position_id": position[1], "decision": decision,
                            "error": error, "loss": loss, "mark": GNUBG_SKILL.get(mark) if mark else None})
    return out


def gnubg_cube_counts(text: str) -> dict:
    """gnubg's own count of each kind of cube error over the match, both players together (its text
    export's "Cube statistics": "Missed doubles below CP", ..., "Wrong passes")."""
    part = text[text.index("Match statistics"):]
    counts = dict.fromkeys(DECISION_OF, 0)
    for line in part.splitlines():
        kind = next((k for k in DECISION_OF if line.lower().startswith(k + "s")), None)
        if kind and "(EMG (MWC))" in line:
            rest = re.sub(r"\([^()]*(?:\([^()]*\))?[^()]*\)", "", line.split("(EMG (MWC))", 1)[1])
            counts[kind] += sum(int(n) for n in rest.split())
    return counts


def compare_cube(ours: dict, gnubg_games: list[str]) -> dict:
    """Per cube decision: gnubg's errors (every alert, and those it marks doubtful or worse) against ours,
    matched by game, player, position and decision (on roll or the answer)."""
    names = {s["player"]: s["name"] for s in ours["statistics"]}
    mine = {(d["game"], names[d["player"]], d["position_id"], d["kind"]): d for d in ours["decisions"]
            if d["kind"] in ("double", "take")}
    theirs = gnubg_cube_errors(gnubg_games)
    by_kind = {k: sum(e["error"] == k for e in theirs) for k in DECISION_OF}
    counted = gnubg_cube_counts("\n".join(gnubg_games))
    if by_kind != counted:  # every cube error gnubg counts has its alert, found here, and no other
        raise RuntimeError(f"gnubg's cube alerts {by_kind} are not its statistics' {counted}")
    keys = {(e["game"], e["player"], e["position_id"], e["decision"]): e for e in theirs}
    unmatched = [k for k in keys if k not in mine]
    if unmatched:
        raise RuntimeError(f"gnubg's cube errors at decisions our analysis does not have: {unmatched[:3]}")
    ours_errors = {k: d for k, d in mine.items() if d["error"] is not None}
    gnubg_marked = [k for k, e in keys.items() if e["mark"] is not None]
    our_marked = [k for k, d in ours_errors.items() if d["mark"] is not None]
    kinds = list(DECISION_OF)
    return {
        "cube_decisions": len(mine),
        "gnubg_cube_errors": len(keys),
        "gnubg_cube_errors_by_kind": by_kind,
        "gnubg_cube_errors_we_call_errors": sum(k in ours_errors for k in keys),
        "gnubg_cube_marked": len(gnubg_marked),
        "gnubg_cube_marked_we_mark": sum(k in our_marked for k in gnubg_marked),
        "gnubg_cube_marked_we_call_errors": sum(k in ours_errors for k in gnubg_marked),
        "our_cube_errors": len(ours_errors),
        "our_cube_errors_by_kind": {k: sum(d["error"] == k for d in ours_errors.values()) for k in kinds},
        "our_cube_errors_gnubg_calls_errors": sum(k in keys for k in ours_errors),
        "our_cube_marked": len(our_marked),
        "our_cube_marked_gnubg_marks": sum(k in gnubg_marked for k in our_marked),
        "our_cube_marked_gnubg_calls_errors": sum(k in keys for k in our_marked),
        "cube_loss_pairs": [[None if k not in keys or keys[k]["loss"] is None else round(keys[k]["loss"], 4),
                             round(mine[k]["loss"], 4)] for k in sorted(set(keys) | set(ours_errors))],
    }


def compare(ours: dict, gnubg: dict) -> dict:
    """The figures of one match (module docstring)."""
    rates = gnubg_rates(gnubg["text"])
    stats = ours["statistics"]
    our_checker = [1000 * s["checker_error_rate"]["emg"] for s in stats]
    our_overall = [1000 * s["overall_error_rate"]["emg"] for s in stats]
    theirs = gnubg_moves(gnubg["record"])
    mine = [[d for d in ours["decisions"] if d["kind"] == "move" and d["game"] == g + 1] for g in range(len(theirs))]
    pairs = []
    for g_moves, o_moves in zip(theirs, mine):
        if len(g_moves) != len(o_moves):
            raise RuntimeError(f"gnubg has {len(g_moves)} plays in a game and we {len(o_moves)}")
        for a, b in zip(g_moves, o_moves):
            if a["dice"] != sorted(b["dice"]) or a["player"] != b["player"]:
                raise RuntimeError("the plays of gnubg's record and of the .mat are not the same")
            pairs.append((a["mark"], b["mark"], a["loss"], b["loss"]))
    return {
        "gnubg_checker_rate": rates["checker"], "our_checker_rate": our_checker,
        "gnubg_overall_rate": rates["overall"], "our_overall_rate": our_overall,
        "same_ranking_checker": _rank(rates["checker"]) == _rank(our_checker),
        "same_ranking_overall": _rank(rates["overall"]) == _rank(our_overall),
        "plays": len(pairs),
        "gnubg_bad": sum(p[0] in MARKED_BAD for p in pairs),
        "gnubg_bad_we_mark_bad": sum(p[0] in MARKED_BAD and p[1] in MARKED_BAD for p in pairs),
        "gnubg_bad_we_mark": sum(p[0] in MARKED_BAD and p[1] is not None for p in pairs),
        "our_bad": sum(p[1] in MARKED_BAD for p in pairs),
        "our_bad_gnubg_marks_bad": sum(p[1] in MARKED_BAD and p[0] in MARKED_BAD for p in pairs),
        "our_bad_gnubg_marks": sum(p[1] in MARKED_BAD and p[0] is not None for p in pairs),
        "loss_pairs": [[round(p[2], 4), round(p[3], 4)] for p in pairs if p[2] > 0 or p[3] > 0],
        **compare_cube(ours, gnubg["games"]),
    }


def _rank(rates: list[float]) -> int:
    """Which player erred more per move: 0 or 1 (ties count as player 1's)."""
    return 0 if rates[0] > rates[1] else 1


CUBE_COUNTS = ("cube_decisions", "gnubg_cube_errors", "gnubg_cube_errors_we_call_errors", "gnubg_cube_marked",
               "gnubg_cube_marked_we_mark", "gnubg_cube_marked_we_call_errors", "our_cube_errors",
               "our_cube_errors_gnubg_calls_errors", "our_cube_marked", "our_cube_marked_gnubg_marks",
               "our_cube_marked_gnubg_calls_errors")


def summary(rows: list[dict]) -> dict:
    total = {k: sum(r[k] for r in rows) for k in ("plays", "gnubg_bad", "gnubg_bad_we_mark_bad", "gnubg_bad_we_mark",
                                                  "our_bad", "our_bad_gnubg_marks_bad", "our_bad_gnubg_marks",
                                                  *CUBE_COUNTS)}
    for side in ("gnubg", "our"):
        total[f"{side}_cube_errors_by_kind"] = {k: sum(r[f"{side}_cube_errors_by_kind"][k] for r in rows)
                                               for k in DECISION_OF}

    def share(a, b):
        return None if total[b] == 0 else total[a] / total[b]

    return {**total, "matches": len(rows),
            "same_ranking_checker": sum(r["same_ranking_checker"] for r in rows),
            "same_ranking_overall": sum(r["same_ranking_overall"] for r in rows),
            "share_gnubg_bad_we_mark_bad": share("gnubg_bad_we_mark_bad", "gnubg_bad"),
            "share_gnubg_bad_we_mark": share("gnubg_bad_we_mark", "gnubg_bad"),
            "share_our_bad_gnubg_marks_bad": share("our_bad_gnubg_marks_bad", "our_bad"),
            "share_our_bad_gnubg_marks": share("our_bad_gnubg_marks", "our_bad"),
            "share_gnubg_cube_marked_we_mark": share("gnubg_cube_marked_we_mark", "gnubg_cube_marked"),
            "share_gnubg_cube_errors_we_call_errors": share("gnubg_cube_errors_we_call_errors", "gnubg_cube_errors"),
            "share_our_cube_marked_gnubg_marks": share("our_cube_marked_gnubg_marks", "our_cube_marked"),
            "share_our_cube_errors_gnubg_calls_errors": share("our_cube_errors_gnubg_calls_errors", "our_cube_errors")}


def agreement(length: int = 3, seeds=(1,), noise: float = 0.06, ply: int = 0, bot=None, folder=None) -> dict:
    """Play, analyse and compare ``len(seeds)`` matches; {"matches": [...], "summary": {...}}."""
    from model.bot import Bot
    from model.service.match_review import ReviewSettings, analyse_match

    bot = bot or Bot.load()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            where = Path(folder or tmp) / f"seed{seed}"
            where.mkdir(parents=True, exist_ok=True)
            started = time.perf_counter()
            gnubg = gnubg_match(where, length, noise, seed)
            gnubg_s = time.perf_counter() - started
            ours = analyse_match(bot, gnubg["mat"].read_text(), ReviewSettings(ply=ply))
            row = {"seed": seed, "games": len(ours["games"]), "gnubg_seconds": gnubg_s,
                   "our_seconds": ours["seconds"], **compare(ours, gnubg)}
            rows.append(row)
    return {"settings": {"length": length, "noise": noise, "ply": ply, "gnubg_analysis_ply": 2,
                         "bot": bot.name, "seeds": list(seeds)},
            "matches": rows, "summary": summary(rows)}


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _kinds(counts: dict) -> str:
    return ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n) or "none"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--matches", type=int, default=4)
    p.add_argument("--first-seed", type=int, default=1)
    p.add_argument("--length", type=int, default=5)
    p.add_argument("--noise", type=float, default=0.06, help="gnubg's evaluation noise of player 1")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="our analysis depth")
    p.add_argument("--keep", help="keep gnubg's files in this folder")
    p.add_argument("--json", help="write the figures to this file")
    args = p.parse_args(argv)
    if not os.access(GNUBG, os.X_OK):
        print(f"analysis_agreement: error: {GNUBG} is not installed (apt-get install gnubg)", file=sys.stderr)
        return 2
    if args.matches < 1 or args.length < 1:
        print("analysis_agreement: error: --matches and --length must be at least 1", file=sys.stderr)
        return 2
    seeds = range(args.first_seed, args.first_seed + args.matches)
    result = agreement(args.length, seeds, args.noise, args.ply, folder=args.keep)
    print(f"{'seed':>4} {'games':>5} {'plays':>5}  {'gnubg rate p0/p1':>17}  {'our rate p0/p1':>15}  same  "
          f"{'gnubg bad':>9} {'we mark bad':>11}  {'our bad':>7} {'gnubg bad':>9}")
    for r in result["matches"]:
        print(f"{r['seed']:>4} {r['games']:>5} {r['plays']:>5}  {r['gnubg_checker_rate'][0]:7.1f}/"
              f"{r['gnubg_checker_rate'][1]:<9.1f}  {r['our_checker_rate'][0]:6.1f}/{r['our_checker_rate'][1]:<8.1f}  "
              f"{'yes' if r['same_ranking_checker'] else 'NO':<4}  {r['gnubg_bad']:>9} {r['gnubg_bad_we_mark_bad']:>11}  "
              f"{r['our_bad']:>7} {r['our_bad_gnubg_marks_bad']:>9}")
    s = result["summary"]
    print(f"\n{s['matches']} matches, {s['plays']} plays: the players ranked the same by checker error rate in "
          f"{s['same_ranking_checker']}, by overall error rate in {s['same_ranking_overall']}")
    print(f"gnubg's bad or very bad plays: {s['gnubg_bad']}; we mark {_pct(s['share_gnubg_bad_we_mark_bad'])} of them "
          f"bad or very bad, {_pct(s['share_gnubg_bad_we_mark'])} at least doubtful")
    print(f"our bad or very bad plays: {s['our_bad']}; gnubg marks {_pct(s['share_our_bad_gnubg_marks_bad'])} of them "
          f"bad or very bad, {_pct(s['share_our_bad_gnubg_marks'])} at least doubtful")
    print(f"cube decisions: {s['cube_decisions']}; gnubg's cube errors: {s['gnubg_cube_errors']} "
          f"({_kinds(s['gnubg_cube_errors_by_kind'])}), we call {_pct(s['share_gnubg_cube_errors_we_call_errors'])} "
          f"of them errors; {s['gnubg_cube_marked']} marked doubtful or worse, we mark "
          f"{s['gnubg_cube_marked_we_mark']} ({_pct(s['share_gnubg_cube_marked_we_mark'])}) of them")
    print(f"our cube errors: {s['our_cube_errors']} ({_kinds(s['our_cube_errors_by_kind'])}), gnubg calls "
          f"{_pct(s['share_our_cube_errors_gnubg_calls_errors'])} of them errors; {s['our_cube_marked']} marked "
          f"doubtful or worse, gnubg marks {s['our_cube_marked_gnubg_marks']} "
          f"({_pct(s['share_our_cube_marked_gnubg_marks'])}) of them")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if s["same_ranking_checker"] == s["matches"] else 1


if os.environ.get(DRIVER_FLAG) == "1":
    run_driver()
elif __name__ == "__main__":
    sys.exit(main())
