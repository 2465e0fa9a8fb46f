"""Analysis of whole matches: every checker play, cube decision and roll of a .mat or .sgf record, rated.

    from model.analysis.review import ReviewSettings, analyse_mat_text
    report = analyse_mat_text(open("match.mat").read(), net, ReviewSettings(ply=2), name="bg")  # JSON-ready

(``net``: a backgammon network; model/service/match_review.py's ``analyse_match(bot, text, settings)``
passes a ``Bot``'s.)

The record is replayed through the rules (engine/formats/matreplay.py) and every decision is put to
the project's one policy (model/players/cube_policy.py ``CubePolicy`` at ``ply``, its move filter, cubeful
values), as hint, play and serve decide:

* Checker play: every legal play is ranked (``rank_plays``; the play made is always looked at the full
  depth, as gnubg's analysis does); the loss is the best play's value minus the value of the play made.
  Values are cubeful money equity per cube, or match-winning chance (MWC) at a match score.
* Cube decisions: at every turn on which the side on roll may double, the cube decision of the
  position (no double / double, take / double, pass, in normalised equity per cube: gnubg's
  ``mwc2eq`` in a match). Not doubling loses ``optimal - ND`` (a missed double), doubling
  ``optimal - min(DT, DP)`` (a wrong double); the doubled side loses ``DT - DP`` by a take (or a
  beaver) when a pass was right (a wrong take) and ``DP - DT`` by a pass when a take was right (a wrong
  pass). A record played without the cube (its ``; [CubeLimit "1"]`` line, engine/formats/matfile.py)
  has no cube decisions, and its plays are valued by cubeless equity (gammons counting, no Jacoby).
* Luck of each roll (gnubg's method, 0-ply whatever ``ply``): the value of the best play of the roll
  thrown minus the average of that value over the 21 rolls (weights 1/36 and 2/36); the opening throw,
  which also decides who plays, is measured against the 30 non-double throws, half of them the
  opponent's.
* ``rollout`` N > 0: the ``rollout_max`` worst decisions marked bad or very bad are rolled out again
  (model/search/rollout.py, cubeful trials, N each): a checker play against the best play (same dice in
  both, so their difference is sharp), a cube decision as the rollout decides it; their losses and
  marks then come from the rollout.

Marks and statistics: model/analysis/marks.py (gnubg's thresholds). Network calls are batched across
all positions of the match: one legal_plays call and one network call per batch (``CHUNK`` positions
per batch at each depth keeps memory bounded at 2-ply).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from engine.board import flip
from engine.errors import FormatError
from engine.formats.match_id import MatchInfo, write_match_id
from engine.formats.matchfiles import read_match_text
from engine.formats.matfile import BEAVER, DOUBLE, DROP, MOVE, TAKE, MatchRecord
from engine.formats.matreplay import ROLL, GameReplay, replay_match
from engine.formats.position import write_json_position, write_position_id
from engine.game import may_double
from engine.groups import group_argmax, group_starts
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS, legal_plays
from engine.notation import format_plays
from model.analysis.cube_errors import cube_losses
from model.analysis.marks import (
    CLOSE_CUBE,
    LUCK_THRESHOLDS,
    THRESHOLDS,
    luck_mark,
    mark,
    player_statistics,
)
from model.analysis.rollouts import roll_out_worst
from model.cube import decisions as cube
from model.players.cube_policy import CubePolicy, cube_view, ranking_order

CHUNK = {0: 1024, 1: 32, 2: 2}
"""Checker decisions per batch at each depth (plies above 2: 1): at 2-ply two positions' candidates
already make some 150,000 positions for the network. A cube decision costs about what one candidate
play does (CUBE_CHUNK times more of them per batch); the luck looks at 21 rolls of LUCK_CHUNK turns."""
CUBE_CHUNK, LUCK_CHUNK = 8, 128
TOP_PLAYS = 5
"""Plays listed per checker decision in the report (the play made is listed too)."""
SCHEMA = "nardibot-match-analysis/1"


def _chunks(n: int, size: int):
    for start in range(0, n, size):
        yield slice(start, min(n, start + size))


def _normalised(values, view):
    """Normalised equity of values: money values already are (per cube); MWC -> mwc2eq."""
    return np.asarray(values, dtype=np.float64) if view.is_money else cube.mwc2eq(values, view)


# ----------------------------------------------------------------------------------------------
# checker play


def _rate_plays(policy: CubePolicy, steps, views) -> list[dict]:
    """One dict per move step: the ranked plays, the play made, its loss (see the module docstring)."""
    game = policy.game
    out = []
    for part in _chunks(len(steps), CHUNK.get(policy.plies, 1)):
        chunk, chunk_views = steps[part], views[part]
        positions = np.stack([s.state.position for s in chunk])
        dice = np.array([s.state.dice for s in chunk])
        children, parent = legal_plays(game, positions, dice)
        start, count = group_starts(parent, len(chunk))
        played = []
        for i, step in enumerate(chunk):
            block = children[start[i]:start[i] + count[i]]
            hit = np.flatnonzero((block == step.child).all(axis=1))
            if len(hit) != 1:
                raise FormatError(f"a play that is not among the legal ones ({step.state.dice})")
            played.append(start[i] + hit[0])
        value, _probs, depth = policy.rank_plays(children, parent, chunk_views, include=played, positions=positions)
        for i, step in enumerate(chunk):
            out.append(_play_report(game, step, chunk_views[i], children, value, depth,
                                    start[i], count[i], played[i]))
    return out


def _play_report(game, step, view, children, value, depth, first, count, played) -> dict:
    block = np.arange(first, first + count)
    order = block[ranking_order(value[block], depth[block])]
    best = order[0]
    money = view.is_money
    emg = _normalised(value[block], view)  # emg[k - first]: child k's value in normalised equity
    loss = max(0.0, float(emg[best - first] - emg[played - first]))
    shown = [int(k) for k in order[:TOP_PLAYS]]
    if played not in shown:
        shown.append(int(played))
    texts = format_plays(game, step.state.position, step.state.dice, children[shown])
    plays = [{"move": text, "rank": int(np.flatnonzero(order == k)[0]) + 1, "ply": int(depth[k]),
              "equity": float(emg[k - first]), "mwc": None if money else float(value[k])}
             for k, text in zip(shown, texts)]
    return {
        "dice": [int(d) for d in step.state.dice],
        "choices": int(count),
        "played": plays[shown.index(int(played))]["move"],
        "best": plays[0]["move"],
        "played_rank": plays[shown.index(int(played))]["rank"],
        "plays": plays,
        "loss": loss,
        "loss_mwc": None if money else max(0.0, float(value[best] - value[played])),
        "evaluated": f"{int(depth[played])}-ply",
    }


# ----------------------------------------------------------------------------------------------
# cube decisions


def _cube_numbers(decision, i=0) -> dict:
    """The three equities (normalised) and MWCs of a CubeDecision's item ``i``, and what is right."""
    d = decision
    out = {"no_double": float(d.no_double[i]), "double_take": float(d.double_take[i]),
           "double_pass": float(d.double_pass[i]), "right": str(d.labels[i]),
           "doubling_right": bool(d.double[i]), "response_right": str(d.response[i]),
           "optimal": float(d.optimal[i])}
    if d.no_double_mwc is not None:
        out.update(no_double_mwc=float(d.no_double_mwc[i]), double_take_mwc=float(d.double_take_mwc[i]),
                   double_pass_mwc=float(d.double_pass_mwc[i]))
    return out


def _rate_cube(policy: CubePolicy, steps, views) -> list[dict]:
    """The cube decision (``_cube_numbers``) of each on-roll step's position, looked at ``plies`` deep:
    one network call per chunk (the whole match at 0-ply), one cube decision per distinct cube view."""
    out = [None] * len(steps)
    for part in _chunks(len(steps), CUBE_CHUNK * CHUNK.get(policy.plies, 1)):
        positions = np.stack([s.state.position for s in steps[part]])
        for idx, decision in policy.cube_decisions(positions, views[part]):
            for k, i in enumerate(idx):
                out[part.start + i] = {**_cube_numbers(decision, k), "ply": policy.plies}
    return out


# ----------------------------------------------------------------------------------------------
# luck


def _luck(policy0: CubePolicy, steps, views, openings, **kw) -> list[tuple[float, float | None]]:
    """(luck in normalised equity, luck in MWC or None) of the roll of each move step (0-ply); ``kw``:
    ``cube_view``'s options (the match equity table) for the opponent's view of an opening roll."""
    game = policy0.game
    items = []  # (position, view, step index, mine: the mover's own rolls or the opponent's)
    for i, (step, view) in enumerate(zip(steps, views)):
        items.append((step.state.position, view, i, True))
        if openings[i]:
            items.append((flip(game, step.state.position), cube_view(step.state, 1 - step.player, **kw), i, False))
    values = np.empty((len(items), len(ALL_ROLLS)))
    rolls = len(ALL_ROLLS)
    for part in _chunks(len(items), LUCK_CHUNK):
        chunk = items[part]
        frontier = np.repeat(np.stack([it[0] for it in chunk]), rolls, axis=0)
        dice = np.tile(ALL_ROLLS, (len(chunk), 1))
        fviews = [it[1] for it in chunk for _ in range(rolls)]
        children, parent = legal_plays(game, frontier, dice)
        value, _, _ = policy0.rank_plays(children, parent, fviews, positions=frontier)
        best = group_argmax(value, parent, len(frontier))
        values[part] = value[best].reshape(len(chunk), rolls)
    out = []
    k = 0
    for i, (step, view) in enumerate(zip(steps, views)):
        mine = values[k]
        k += 1
        roll = int(np.flatnonzero((ALL_ROLLS == sorted(step.state.dice, reverse=True)).all(axis=1))[0])
        if openings[i]:
            theirs = values[k]
            k += 1
            theirs = (1.0 - theirs) if not view.is_money else -theirs  # the opponent's rolls, my value
            singles = ALL_ROLLS[:, 0] != ALL_ROLLS[:, 1]
            mean_native = (mine[singles].sum() + theirs[singles].sum()) / (2 * singles.sum())
            mean_eq = (_normalised(mine[singles], view).sum() + _normalised(theirs[singles], view).sum()) / (
                2 * singles.sum())
        else:
            mean_native = float(ROLL_WEIGHTS @ mine)
            mean_eq = float(ROLL_WEIGHTS @ _normalised(mine, view))
        luck = float(_normalised(mine[roll], view)) - mean_eq
        out.append((luck, None if view.is_money else float(mine[roll] - mean_native)))
    return out


# ----------------------------------------------------------------------------------------------
# the whole match


def _base(game: GameReplay, index: int, step, kind: str, view) -> dict:
    """The fields every decision has (the JSON schema in nardibot/cli/cmd_analyse.py)."""
    state = step.state
    return {"game": game.number, "index": index, "entry": step.entry + 1, "player": step.player, "kind": kind,
            "position": write_json_position(state.position), "position_id": write_position_id(state.position),
            "match_id": write_match_id(MatchInfo.of_state(state)),
            "cube": {"value": view.value, "owner": view.owner, "score": [view.score_me, view.score_opp],
                     "crawford": view.crawford}}


@dataclass(frozen=True)
class ReviewSettings:
    """How a match is analysed: ``ply``, the look-ahead of the ratings (the luck is 0-ply whatever it
    is); ``rollout``: trials per decision rolled out again (0: none, else at least 2), at most
    ``rollout_max`` of them, the worst first, with dice ``seed`` in ``processes`` processes (0: one per
    core, 1: this one; model/search/rollout_workers.py); ``jacoby``: money play under the Jacoby rule
    (gnubg's default when it imports a .mat); ``met``: the match equity table (None: model/cube/met.py's
    default)."""

    ply: int = 0
    rollout: int = 0
    rollout_max: int = 10
    jacoby: bool = True
    met: str | None = None
    seed: int = 0
    processes: int = 1


def analyse_record(record: MatchRecord, net, settings: ReviewSettings = ReviewSettings(), *, name: str = "net",
                   device="cpu") -> dict:
    """The analysis of ``record`` as a JSON-ready dict (nardibot/cli/cmd_analyse.py documents its schema)
    by the backgammon network ``net`` (anything model/players/cube_policy.py's ``CubePolicy`` takes; None
    is refused) called ``name`` in the report, on ``device``. FormatError (a ValueError) for a record
    the rules refuse."""
    plies, rollout = settings.ply, settings.rollout
    if net is None or net.config.game != "backgammon":
        raise ValueError(f"{name}: match analysis needs a backgammon network")
    if plies < 0 or rollout < 0 or rollout == 1:
        raise ValueError("plies must be >= 0 and rollout trials 0 (none) or at least 2")
    started = time.perf_counter()
    games = replay_match(record, settings.jacoby)
    if not any(game.steps for game in games):
        raise FormatError("no game with any play in it")
    rules = games[0].match.rules
    checker = "cubeful" if rules.cube else "cubeless"  # without the cube: no cube decisions (may_double)
    policy = CubePolicy(net, plies=plies, checker=checker, device=device)
    policy0 = CubePolicy(net, plies=0, checker=checker, device=device)
    kw = {} if settings.met is None else {"met": settings.met}
    moves, cubes = [], []  # (game, step, view)
    for game in games:
        for step in game.steps:
            if step.kind == MOVE:
                moves.append((game, step, cube_view(step.state, step.player, **kw)))
            elif step.kind in (ROLL, DOUBLE) and may_double(step.state):
                cubes.append((game, step, cube_view(step.state, step.player, **kw)))
    openings = [step is game.steps[0] for game, step, _ in moves]
    move_steps, move_views = [m[1] for m in moves], [m[2] for m in moves]
    plays = _rate_plays(policy, move_steps, move_views)
    lucks = _luck(policy0, move_steps, move_views, openings, **kw)
    numbers = _rate_cube(policy, [c[1] for c in cubes], [c[2] for c in cubes])
    rated = {id(step): (view, play, luck) for (_, step, view), play, luck in zip(moves, plays, lucks)}
    rated |= {id(step): (view, nums, None) for (_, step, view), nums in zip(cubes, numbers)}
    decisions, contexts, games_out = [], [], []  # contexts: (position, view) of each decision
    for game in games:
        mine, doubled = [], None
        for step in game.steps:
            if step.kind in (TAKE, BEAVER, DROP):  # answered from the doubler's numbers, just rated
                found = doubled
            else:
                found = rated.get(id(step))
                doubled = found if step.kind == DOUBLE else None
            if found is None:
                continue  # a roll on which the side could not double
            view, numbers_or_play, luck = found
            contexts.append((step.state.position, view))
            if step.kind == MOVE:
                mine.append(_move_decision(game, len(mine) + 1, step, view, numbers_or_play, luck))
            else:
                mine.append(_cube_decision(game, len(mine) + 1, step, view, numbers_or_play))
        decisions += mine
        games_out.append(_game_summary(game, mine))
    if rollout:
        roll_out_worst(net, decisions, contexts, rollout, settings.rollout_max, settings.seed, settings.processes,
                       device=device)
    match = record.match_length > 0
    return {
        "schema": SCHEMA,
        "players": list(record.names),
        "match_length": record.match_length,
        "jacoby": rules.jacoby if not match else None,
        "cube": rules.cube,
        "bot": name,
        "ply": plies,
        "rollout": {"trials": rollout, "at_most": settings.rollout_max, "seed": settings.seed} if rollout else None,
        "thresholds": {**{k.replace(" ", "_"): v for k, v in THRESHOLDS.items()},
                       **{k.replace(" ", "_"): v for k, v in LUCK_THRESHOLDS.items()}, "close_cube": CLOSE_CUBE,
                       "unit": "normalised equity per cube (gnubg's EMG)"},
        "games": games_out,
        "decisions": decisions,
        "statistics": [{"player": p, "name": record.names[p], **player_statistics(decisions, p, match)}
                       for p in (0, 1)],
        "seconds": time.perf_counter() - started,
    }


def _move_decision(game, index, step, view, play, luck) -> dict:
    d = _base(game, index, step, "move", view)
    d.update(play)
    d["mark"] = mark(d["loss"])
    d["luck"], d["luck_mwc"] = luck
    d["luck_mark"] = luck_mark(luck[0])
    return d


def _cube_decision(game, index, step, view, numbers) -> dict:
    """A cube decision: on roll (kind "double": the action was "double" or "no double") or the
    doubled side's answer (kind "take": "take", "beaver" or "pass"); the numbers are the doubler's."""
    action, loss, loss_mwc, error = cube_losses(numbers, step.kind, view.is_money)
    kind = "take" if step.kind in (TAKE, BEAVER, DROP) else "double"
    d = _base(game, index, step, kind, view)
    d.update(action=action, right=numbers["response_right"] if kind == "take" else
             ("double" if numbers["doubling_right"] else "no double"), proper=numbers["right"],
             equities={k: v for k, v in numbers.items() if k in ("no_double", "double_take", "double_pass")},
             mwc=None if view.is_money else {k: numbers[k + "_mwc"] for k in ("no_double", "double_take",
                                                                                "double_pass")},
             loss=loss, loss_mwc=loss_mwc, error=error, mark=mark(loss),
             close=bool(numbers["optimal"] - min(numbers["double_take"], numbers["double_pass"]) < CLOSE_CUBE),
             evaluated=f"{numbers.get('ply', 0)}-ply")
    return d


def _game_summary(game: GameReplay, decisions: list[dict]) -> dict:
    """A game's score, result (from the record; how it ended from the replay) and decision count."""
    record, final = game.record, game.final
    how = None
    if record.winner is not None:
        how = final.result.how if final is not None and final.is_over else "resigned"
    return {"number": game.number, "score": list(record.scores), "crawford": game.match.is_crawford,
            "winner": record.winner, "points": record.points if record.winner is not None else None,
            "ended": how, "decisions": len(decisions)}


def analyse_mat_text(text: str, net, settings: ReviewSettings = ReviewSettings(), *, name: str = "net",
                     device="cpu") -> dict:
    """``analyse_record`` of a .mat or .sgf file's text (engine/formats/matchfiles.py tells which by the
    content); FormatError (a ValueError) with one line for text that is neither or that the rules
    refuse. (model/service/match_review.py's ``analyse_match`` gives it a ``Bot``'s network.)"""
    return analyse_record(read_match_text(text), net, settings, name=name, device=device)


__all__ = ["SCHEMA", "ReviewSettings", "analyse_mat_text", "analyse_record", "cube_losses"]
