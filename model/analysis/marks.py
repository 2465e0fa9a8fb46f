"""Marks on decisions and rolls, and the per-player statistics of an analysed match.

The thresholds are GNU Backgammon 1.07's defaults (``show analysis``; docs/FORMATS.md), on the
equity a decision lost, in normalised equity per cube (gnubg's EMG: money equity per unit of the
current cube; in a match the match-winning chance turned into equity at the current cube with
model/cube's ``mwc2eq``):

    doubtful  >= 0.030     bad  >= 0.060     very bad  >= 0.120
    a roll's luck:  very lucky >= +0.600, lucky >= +0.300, unlucky <= -0.300, very unlucky <= -0.600

A cube decision is *close* when doubling would have cost less than CLOSE_CUBE = 0.16 against the
right action (optimal - min(double/take, double/pass) < 0.16, as we read gnubg 1.07's
``isCloseCubedecision``); doubles, takes and passes always count ("close or actual").

Per player, as gnubg's statistics count them (``export match text``):
    moves            every checker play, forced ones and plays of no die included
    unforced moves   plays with more than one distinct legal result
    checker error    the sum of the equity lost by the player's plays; its rate is per unforced move
    cube error       the sum over cube decisions (missed and wrong doubles, wrong takes and passes);
                     its rate is per close-or-actual cube decision
    overall rate     (checker + cube error) / (unforced moves + close-or-actual cube decisions)
    luck             the sum of the luck of the player's rolls; its rate is per roll (per move)
Errors and luck come in normalised equity (``emg``) and, in a match, MWC (``mwc``, a fraction: 0.01
is one percent); rates in the text report are in thousandths (mEMG) and percent, as gnubg's.
"""

from __future__ import annotations

DOUBTFUL, BAD, VERY_BAD = "doubtful", "bad", "very bad"
MARKS = (DOUBTFUL, BAD, VERY_BAD)
THRESHOLDS = {DOUBTFUL: 0.030, BAD: 0.060, VERY_BAD: 0.120}
"""Equity lost (normalised, per cube) from which a decision gets each mark (gnubg 1.07's defaults)."""
VERY_LUCKY, LUCKY, UNLUCKY, VERY_UNLUCKY = "very lucky", "lucky", "unlucky", "very unlucky"
LUCK_MARKS = (VERY_LUCKY, LUCKY, UNLUCKY, VERY_UNLUCKY)
LUCK_THRESHOLDS = {VERY_LUCKY: 0.600, LUCKY: 0.300, UNLUCKY: -0.300, VERY_UNLUCKY: -0.600}
CLOSE_CUBE = 0.16
"""A cube decision is close when doubling costs less than this (normalised equity)."""

CUBE_ERRORS = {"missed double": "missed_doubles", "wrong double": "wrong_doubles", "wrong take": "wrong_takes",
               "wrong pass": "wrong_passes"}
"""The kinds of cube error and their counters' names in the statistics."""


def mark(loss: float) -> str | None:
    """The mark of a decision that lost ``loss`` (>= 0, normalised equity): None below doubtful."""
    for name in (VERY_BAD, BAD, DOUBTFUL):
        if loss >= THRESHOLDS[name] - 1e-12:
            return name
    return None


def luck_mark(luck: float) -> str | None:
    """The mark of a roll whose luck is ``luck`` (normalised equity): None between -0.3 and +0.3."""
    if luck >= LUCK_THRESHOLDS[VERY_LUCKY]:
        return VERY_LUCKY
    if luck >= LUCK_THRESHOLDS[LUCKY]:
        return LUCKY
    if luck <= LUCK_THRESHOLDS[VERY_UNLUCKY]:
        return VERY_UNLUCKY
    if luck <= LUCK_THRESHOLDS[UNLUCKY]:
        return UNLUCKY
    return None


def _amount(match: bool) -> dict:
    return {"emg": 0.0, "mwc": 0.0 if match else None}


def _add(total: dict, decision: dict, key: str) -> None:
    total["emg"] += decision[key]
    if total["mwc"] is not None:
        total["mwc"] += decision[key + "_mwc"]


def _rate(total: dict, count: int) -> dict:
    return {k: (None if v is None or count == 0 else v / count) for k, v in total.items()}


def player_statistics(decisions: list[dict], player: int, match: bool) -> dict:
    """The statistics of ``player`` (0 or 1) over the decision dicts of model/analysis/review.py
    (module docstring). ``match``: MWC figures as well as equity."""
    mine = [d for d in decisions if d["player"] == player]
    moves = [d for d in mine if d["kind"] == "move"]
    cubes = [d for d in mine if d["kind"] in ("double", "take")]
    unforced = [d for d in moves if d["choices"] > 1]
    checker, cube, luck = _amount(match), _amount(match), _amount(match)
    for d in unforced:
        _add(checker, d, "loss")
    for d in cubes:
        _add(cube, d, "loss")
    for d in moves:
        if d["luck"] is not None:
            _add(luck, d, "luck")
    rolls = sum(d["luck"] is not None for d in moves)
    close = [d for d in cubes if d["close"] or d["action"] != "no double"]
    overall = {k: (None if v is None else v + cube[k]) for k, v in checker.items()}
    actions = [d["action"] for d in cubes]
    return {
        "moves": len(moves),
        "unforced_moves": len(unforced),
        "marked": {m: sum(d["mark"] == m for d in moves) for m in MARKS},
        "unmarked": sum(d["mark"] is None for d in moves),
        "checker_error": checker,
        "checker_error_rate": _rate(checker, len(unforced)),
        "luck": {m: sum(d["luck_mark"] == m for d in moves) for m in LUCK_MARKS},
        "luck_total": luck,
        "luck_rate": _rate(luck, rolls),
        "cube": {
            "decisions": len(cubes),
            "close_or_actual": len(close),
            "doubles": actions.count("double"),
            "takes": actions.count("take") + actions.count("beaver"),  # a beaver is a take, redoubled
            "passes": actions.count("pass"),
            **{key: sum(d["error"] == kind for d in cubes) for kind, key in CUBE_ERRORS.items()},
            "marked": {m: sum(d["mark"] == m for d in cubes) for m in MARKS},
            "error": cube,
            "error_rate": _rate(cube, len(close)),
        },
        "overall_error": overall,
        "overall_error_rate": _rate(overall, len(unforced) + len(close)),
    }


__all__ = ["BAD", "CLOSE_CUBE", "CUBE_ERRORS", "DOUBTFUL", "LUCK_MARKS", "LUCK_THRESHOLDS", "MARKS", "THRESHOLDS",
           "VERY_BAD", "luck_mark", "mark", "player_statistics"]
