"""The hint: the legal plays of a roll ranked, or the cube decision when no dice are given; and the
evaluation of a position (what ``/api/evaluate`` answers).

    answer = hint(bot, query_of_text("backgammon", "4HPwATDgc/ABMA", "31"), HintSettings(ply=1))

``hint`` returns the JSON-ready dict that ``nardibot hint --json`` prints and ``/api/hint`` serves
(its schema: nardibot/cli/cmd_hint.py's docstring); every decision is model/players/cube_policy.py's,
the one that play, serve and the cube arena make. ``rank_positions`` is the ranking itself, for many
positions at once: ``hint`` lists its order, and ``Bot.rank`` (model/bot.py) lists the same order
with the same settings, so the two never rank the same plays differently.

``bot`` is anything with ``net`` (the network, None for a baseline), ``player`` (its model.players
player; ``device``), ``name`` and ``game``: a model.bot ``Bot``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.board import CHECKERS, OFF, OPP_OFF
from engine.errors import FormatError
from engine.formats.position import (
    write_json_position,
    write_json_positions,
    write_match_id,
    write_position_id,
)
from engine.groups import group_argmax, group_starts
from engine.movegen import legal_plays
from engine.notation import format_generated_each, format_generated_many, generated_steps
from model.net.equity import OUTPUT_NAMES, cubeless_equity
from model.net.evaluator import child_probabilities
from model.players.cube_policy import CHECKER_PLAY, CubePolicy, ranking_order
from model.players.lookahead_player import CUBELESS_MONEY
from model.service.query import BATCH_AT, Query, cube_json, cube_view_of

NO_CUBE = "long nardi has no doubling cube"
CRAWFORD_CUBE = "No double: the cube is not available in the Crawford game"
"""The "action" of a cube decision in the Crawford game, where no side may double (engine/cube_state.py)."""
EVALUATION_KEYS = ("game", "bot", "ply", "position", "position_id", "match_id", "cube", "evaluation")
"""The entries of a hint that make the evaluation of a position (``evaluation``)."""


@dataclass(frozen=True)
class HintSettings:
    """How a hint is worked out.

    ``ply``: look-ahead of the plays (the move filter's best few, model/players/cube_policy.py) and of
    the position's probabilities; ``top``: plays a table lists and ``hint --rollout`` rolls out (the
    answer itself lists every play); ``met``: the match equity table (None: model/cube/met.py's
    default); ``checker``: "cubeful" values plays at the ID's cube and score (money cubeful equity, or
    MWC in a match), "cubeless" by the plain cubeless equity whatever the cube and score; ``prune``:
    inside the look-ahead, each roll's play is picked among pubeval's ``prune`` best (0: among every
    play; backgammon only: CubePolicy's ``prune``)."""

    ply: int = 0
    top: int = 10
    met: str | None = None
    checker: str = "cubeful"
    prune: int = 0

    def __post_init__(self):
        if self.checker not in CHECKER_PLAY:
            raise ValueError(f"checker play must be one of {', '.join(CHECKER_PLAY)}, got {self.checker!r}")
        if self.ply < 0 or self.top < 1 or self.prune < 0:
            raise ValueError(f"ply and prune must be >= 0 and top >= 1, got {self.ply}, {self.prune} and {self.top}")


@dataclass(frozen=True, eq=False)
class Ranking:
    """One position's distinct legal plays, best first: the results (``children``), their notation
    (``moves``; "" when no die can be played), the value they are ranked by (``value``: for a network,
    cubeful money equity, MWC, or cubeless equity as the settings say; a baseline's own score, NaN
    where it has none), the probabilities after the play (mover's view; None for a baseline), the
    depth each was looked at and the single steps of each."""

    children: np.ndarray
    moves: list[str]
    value: np.ndarray
    probs: np.ndarray | None
    depth: np.ndarray
    taken: np.ndarray | None = None
    """Each play's steps as the generator gave them ((N, 4, 2) rows of (source, die), (0, 0) past the
    last: ``legal_plays(..., with_steps=True)``)."""

    @property
    def steps(self) -> list:
        """Each play's single steps (source, destination), one per die, as the generator took them (25
        the bar, 0 off; engine/notation.py's ``generated_steps``), written out when asked for."""
        return generated_steps(self.taken)


def ranking_views(game: str, views, settings: HintSettings) -> list:
    """The cube views plays are valued at: the positions' own (``checker="cubeful"``), or a money game
    without cube, gammons counting (``"cubeless"``); None in long nardi."""
    if game != "backgammon":
        return [None] * len(views)
    return list(views) if settings.checker == "cubeful" else [CUBELESS_MONEY] * len(views)


def _scores(bot, positions, dice, children, parent, views, settings: HintSettings):
    """(value, probs, depth, key) of every child: ``key`` orders a baseline's plays (its own pick first,
    then by its score), None for a network (``ranking_order``)."""
    depth = np.zeros(len(children), dtype=np.int64)
    if bot.net is None:
        pick = bot.player.select(positions, dice, children, parent)
        scores = getattr(bot.player, "scores", None)
        value = (np.asarray(scores(positions, dice, children, parent), dtype=np.float64) if scores is not None
                 else np.full(len(children), np.nan))
        key = -np.nan_to_num(value)
        key[pick] = -np.inf
        return value, None, depth, key
    if settings.ply == 0 and settings.checker == "cubeless":  # the net's own float32 equity, as NetPlayer picks
        probs = child_probabilities(bot.net, children, getattr(bot.player, "device", "cpu"), (positions, parent))
        return cubeless_equity(bot.game, probs), probs, depth, None
    policy = CubePolicy.for_bot(bot, settings.ply, checker=settings.checker, prune=settings.prune)
    value, probs, depth = policy.rank_plays(children, parent, views, positions=positions)
    return value, probs, depth, None


def rank_positions(bot, positions: np.ndarray, dice: np.ndarray, views, settings: HintSettings,
                   first_turn=None, best_only: bool = False) -> list[Ranking]:
    """The ``Ranking`` of each position (B, 28) with its roll (B, 2) and cube view (``views``, one per
    position, valued as ``ranking_views`` says); one move-generator call and one look-ahead for all.
    ``best_only``: each Ranking holds the best play alone (``Bot.choose``). The notation is written
    from the generator's own steps (no second generator call per position)."""
    game = bot.game
    children, parent, steps = legal_plays(game, positions, dice, first_turn, with_steps=True)
    value, probs, depth, key = _scores(bot, positions, dice, children, parent,
                                       ranking_views(game, views, settings), settings)
    start, count = group_starts(parent, len(positions))
    if best_only and key is None and len(positions) >= BATCH_AT:
        return _best_rankings(game, positions, children, parent, steps, value, probs, depth, start, count)
    out = []
    for i in range(len(positions)):
        block = np.arange(start[i], start[i] + count[i])
        if key is None:
            block = block[ranking_order(value[block], depth[block])]
        else:
            block = block[np.argsort(key[block], kind="stable")]
        if best_only:
            block = block[:1]
        taken = steps[block]
        moves = format_generated_many(game, positions[i], taken)
        out.append(Ranking(children[block], moves, value[block], None if probs is None else probs[block],
                           depth[block], taken))
    return out


def _best_rankings(game, positions, children, parent, steps, value, probs, depth, start, count) -> list[Ranking]:
    """``rank_positions``' answer with ``best_only`` for a network: each position's first play in
    ``ranking_order`` (looked at most deeply, then the highest value, ties to the first), picked for
    all positions at once, and the notation of all of them in one call."""
    deepest = np.repeat(np.maximum.reduceat(depth, start), count)
    best = group_argmax(np.where(depth == deepest, value, -np.inf), parent, len(positions))
    moves = format_generated_each(game, positions, steps[best])
    return [Ranking(children[b:b + 1], [move], value[b:b + 1], None if probs is None else probs[b:b + 1],
                    depth[b:b + 1], steps[b:b + 1]) for b, move in zip(best.tolist(), moves)]


def hint(bot, query: Query, settings: HintSettings = HintSettings(), steps: bool = False) -> dict:
    """The whole answer for one query as the JSON-ready dict documented in nardibot/cli/cmd_hint.py:
    the ranked plays of the dice, or without dice the cube decision (backgammon). ``steps``: each play
    also carries its single steps, ``"steps": [[source, destination], ...]`` (``Ranking.steps``)."""
    game, pos = query.game, query.position
    if pos[OFF] == CHECKERS or pos[OPP_OFF] == CHECKERS:
        raise FormatError("the game is over: a side has borne off all 15 checkers")
    if bot.net is None:
        raise ValueError(f"{bot.name} is a baseline: hint needs a network (a checkpoint)")
    policy = CubePolicy.for_bot(bot, settings.ply, prune=settings.prune)
    view = cube_view_of(pos, query.info, settings.met) if game == "backgammon" else None
    out = {"game": game, "bot": bot.name, "ply": settings.ply}
    if settings.prune and settings.ply and game == "backgammon":  # said only where it changed the search
        out["prune"] = settings.prune
    out |= {"position": write_json_position(pos),
            "dice": None if query.dice is None else np.asarray(query.dice).tolist(),
            "plays": None, "cube_decision": None}
    if game == "backgammon":
        out["position_id"] = write_position_id(pos)
        if query.info is not None:
            info = query.info
            if query.dice is not None:  # the Match ID written says which dice were analysed
                info = replace(info, dice=(int(query.dice[0]), int(query.dice[1])))
            out["match_id"] = write_match_id(info)
        out["cube"] = cube_json(view)
    # The position before its roll: at the hint's ply for a cube decision; with dice only at 0-ply, as
    # the plays are what was asked (gnubg's hint of a roll values no more than its plays either).
    at = policy if query.dice is None else CubePolicy.for_bot(bot, 0)
    probs = at.on_roll_probabilities(pos[None])[0]
    values = probs.tolist()
    out["evaluation"] = {"ply": at.plies, "probs": {name: round(v, 6) for name, v in zip(OUTPUT_NAMES[game], values)},
                         "cubeless_equity": round(cubeless_equity(game, values), 6)}
    if query.dice is None:
        if game == "backgammon":
            out["cube_decision"] = cube_decision_json(policy.cube_decision(pos, view, probs))
            if view.crawford:  # no double is allowed at all: there is no cube decision to make
                out["cube_decision"].update(action=CRAWFORD_CUBE, double=False)
            out["cube_decision"]["double_offered"] = bool(query.info is not None and query.info.double_offered)
        return out
    [ranking] = rank_positions(bot, pos[None], query.dice[None], [view], settings)
    util, child_probs = ranking.value, ranking.probs
    cubeless = cubeless_equity(game, child_probs)
    money = game != "backgammon" or ranking_views(game, [view], settings)[0].is_money
    equity = util if game == "backgammon" and money else None
    mwc = None if money else util
    best = util[0]
    names = OUTPUT_NAMES[game]
    # rounded to 6 decimals all at once: numpy's rint(x * 1e6) / 1e6 is Python's round(x, 6) but where x * 1e6
    # falls within a rounding error of a half (none in 20 million tries; tests/test_bot.py checks hints)
    k = len(names)  # one table rounded at once: each play's probabilities, then its three values
    table = np.empty((len(util), k + 3))
    table[:, :k], table[:, k], table[:, k + 1] = child_probs, cubeless, util
    np.maximum(np.subtract(best, util, out=table[:, k + 2]), 0.0, out=table[:, k + 2])
    rows = np.round(table, 6, out=table).tolist()
    plays = [{"rank": i, "move": move, "position": child, "ply": depth, "probs": dict(zip(names, row)),
              "cubeless_equity": row[k], "equity": None if equity is None else row[k + 1],
              "mwc": None if mwc is None else row[k + 1], "loss": row[k + 2]}
             for i, move, child, depth, row in zip(range(1, len(rows) + 1), ranking.moves,
                                                   write_json_positions(ranking.children), ranking.depth.tolist(), rows)]
    if steps:
        for play, singles in zip(plays, ranking.steps):
            play["steps"] = [list(step) for step in singles]
    out["plays"] = plays
    return out


def cube_decision_json(d) -> dict:
    """A model/cube/decisions.py CubeDecision of one position as the "cube_decision" entry of a hint."""
    out = {"action": str(d.labels[0]), "double": bool(d.double[0]), "response": str(d.response[0]),
           "no_double": float(d.no_double[0]), "double_take": float(d.double_take[0]),
           "double_pass": float(d.double_pass[0])}
    if d.no_double_mwc is not None:
        out.update(no_double_mwc=float(d.no_double_mwc[0]), double_take_mwc=float(d.double_take_mwc[0]),
                   double_pass_mwc=float(d.double_pass_mwc[0]))
    return out


def cube_hint(bot, query: Query, settings: HintSettings = HintSettings()) -> dict:
    """The hint of the position without dice (its cube decision; what ``/api/cube`` answers);
    FormatError for long nardi, which has no cube."""
    if query.game != "backgammon":
        raise FormatError(NO_CUBE)
    return hint(bot, replace(query, dice=None), settings)


def evaluation(bot, query: Query, settings: HintSettings = HintSettings()) -> dict:
    """The position's cubeless probabilities and equity for the side on roll, at ``settings.ply``, with
    its IDs and cube (``EVALUATION_KEYS`` of the hint without dice; what ``/api/evaluate`` answers)."""
    answer = hint(bot, replace(query, dice=None), settings)
    return {key: answer[key] for key in EVALUATION_KEYS if key in answer}
