"""The one cube-aware policy: which play to make, and every cube and resignation decision.

hint, play, serve and the cube arena all decide through ``CubePolicy``, so what gnubg plays against
through ``serve`` is exactly what the arena measures, and what ``hint`` recommends.

Every question comes with the side's view of the cube and score, a ``CubeState`` (``cube_view``
turns an engine.game ``GameState`` into one; long nardi has no cube and its view is None).

Checker play. Each legal result ("child") is valued for the side that just played:
  * ``checker="cubeful"`` (the default): ``checker_play_value(probs_after, view, x_after)``: money
    Janowski cubeful equity, match cubeful match-winning chance (MWC), with the cube efficiency
    ``x_after`` of the position after the play (gnubg's ``ScoreMove``);
  * ``checker="cubeless"``: the cubeless value at the cube and score (money equity, Jacoby included;
    match MWC);
  * long nardi: cubeless equity.
At ``plies`` > 0 every child gets its 0-ply value first; the best ``keep`` within ``margin`` of the
best (in equity; an MWC difference counts double, as MWC = (1 + equity) / 2 at double match point)
are then looked at ``plies`` deeper (model/search/lookahead.py) and ranked first, by that value.

Cube actions, from the cubeless probabilities of the position before the roll (looked at ``plies``
deep): double when ``cube_decision`` says doubling is right (double/take or double/pass, never too
good) and the rules let the side double; answer with ``take_decision``'s take / pass / beaver (a
beaver only where the view allows one). Resignations (model/cube/resign.py, cubeful at the
position's cube efficiency): offer the lowest level worth what playing on is worth; accept an offer
worth at least playing on. Long nardi (no cube): resign when the chance to win is under
``NARDI_RESIGN_BELOW`` (a mars when one is lost with more than 1 - that), accept an offer worth at
least the cubeless equity (offered points = level).

A player without a network (a baseline such as pubeval) has no probabilities: it plays its own
choice, never doubles, always takes, never resigns, and accepts only what cannot be bettered (the
caller knows the rules' maximum).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.cube_state import CubeOwner
from engine.groups import group_argmax, group_starts
from model.cube import decisions as cube
from model.cube.resign import TOLERANCE, accept_resignation, resignation_offer
from model.net.equity import cubeless_equity, flip_probs
from model.net.evaluator import child_probabilities
from model.search.lookahead import (
    MOVE_FILTER_KEEP,
    MOVE_FILTER_MARGIN,
    child_probabilities_ahead,
    evaluate_positions,
    move_filter,
)

CHECKER_PLAY = ("cubeful", "cubeless")
NARDI_RESIGN_BELOW = 0.02
KEEP, MARGIN = MOVE_FILTER_KEEP, MOVE_FILTER_MARGIN
"""The move filter at plies > 0 (model/search/lookahead.py): at most KEEP plays within MARGIN (equity)
of the best 0-ply value."""


def ranking_order(value: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Indices of one position's children, best first: looked at more deeply first, then by value."""
    return np.lexsort((-value, -depth))


def groups(keys: Sequence) -> list[tuple[object, np.ndarray]]:
    """[(key, indices)] of equal keys (hashable), in order of first appearance."""
    found: dict = {}
    for i, key in enumerate(keys):
        found.setdefault(key, []).append(i)
    return [(key, np.asarray(idx, dtype=np.int64)) for key, idx in found.items()]


class CubePolicy:
    """Checker play and cube actions of one network (or a baseline player) at ``plies`` look-ahead.

    ``net``: anything with ``config`` (game, outputs) and ``probabilities(positions, device)`` for
    positions seen by the side on roll; None for a baseline, which then needs ``player`` (a
    model.players.base.Player) for its plays. ``resign_tolerance``: how close to playing on a
    resignation must be to be offered (model/cube/resign.py). ``prune`` K > 0 (backgammon): inside
    the look-ahead, each roll's play is the net's best of the K plays pubeval ranks highest
    (model/search/lookahead.py), as gnubg picks inner plays among its pruning net's best; 0: of every play.
    """

    def __init__(self, net=None, player=None, plies: int = 0, checker: str = "cubeful", device="cpu",
                 keep: int = KEEP, margin: float = MARGIN, resign_tolerance: float = TOLERANCE, prune: int = 0):
        if checker not in CHECKER_PLAY:
            raise ValueError(f"checker play must be one of {', '.join(CHECKER_PLAY)}, got {checker!r}")
        if net is None and player is None:
            raise ValueError("a policy needs a network or a player")
        if plies < 0:
            raise ValueError(f"plies must be 0 or more, got {plies}")
        if prune < 0:
            raise ValueError(f"prune must be 0 (every play) or more, got {prune}")
        self.prune = prune
        self.net, self.player, self.plies, self.checker, self.device = net, player, plies, checker, device
        self.keep, self.margin, self.resign_tolerance = keep, margin, resign_tolerance
        self.game = net.config.game if net is not None else player.game

    @classmethod
    def for_bot(cls, bot, plies: int = 0, **options) -> CubePolicy:
        """The policy of a model.bot ``Bot``: its network, or its baseline player when it has none."""
        return cls(bot.net, bot.player, plies=plies, device=getattr(bot.player, "device", "cpu"), **options)

    @property
    def has_probabilities(self) -> bool:
        return self.net is not None

    # -- checker play -----------------------------------------------------------------------------

    def _values(self, probs: np.ndarray, children: np.ndarray, parent: np.ndarray, views) -> np.ndarray:
        """(N,) value of each child for its mover at its game's view (module docstring)."""
        if self.game != "backgammon":
            return cubeless_equity(self.game, probs)
        found = [(views[0], None)] if len(views) == 1 else groups(list(views))  # one view: a hint, a game
        values = np.empty(len(children))
        for view, idx in found:
            rows = slice(None) if len(found) == 1 else np.flatnonzero(np.isin(parent, idx))
            if self.checker == "cubeful":  # each play at the cube efficiency of the position it leaves
                values[rows] = cube.play_values(children[rows], probs[rows], view)
            else:
                values[rows] = cube.checker_play_value(probs[rows], view)
        return values

    def rank_plays(self, children: np.ndarray, parent: np.ndarray, views, include=None, positions=None) -> tuple:
        """(value, probabilities, depth) of every child, for games whose children are grouped by
        ``parent`` and whose views are ``views`` (one per game). Rank a game's children by depth, then
        value (``ranking_order``); values of looked-at children are at ``depth`` = plies. ``include``:
        indices of children looked at deeply whatever the move filter says (the play a player made,
        when a match is analysed, is always valued at the full depth, as gnubg's analysis does).
        ``positions``: the games' positions (B, 28), which the compiled forward pass starts each child
        from (model/net/evaluator.py's ``child_probabilities``)."""
        parents = None if positions is None else (positions, parent)
        probs = child_probabilities(self.net, children, self.device, parents)
        value = self._values(probs, children, parent, views)
        depth = np.zeros(len(children), dtype=np.int64)
        if self.plies == 0 or len(children) == 0:
            return value, probs, depth
        scale = np.ones(len(views))
        if self.game == "backgammon":
            scale = np.array([1.0 if view.is_money else 2.0 for view in views])
        start, count = group_starts(parent, len(views))
        chosen = []
        for game in range(len(views)):  # the filter is per position; the deep look is one batch
            block = np.arange(start[game], start[game] + count[game])
            chosen.append(block[move_filter(scale[game] * value[block], self.keep, self.margin)])
        looked = np.concatenate(chosen)
        if include is not None:
            looked = np.union1d(looked, np.asarray(include, dtype=np.int64))
        probs[looked] = child_probabilities_ahead(self.net, children[looked], self.plies, self.device, self.prune)
        value[looked] = self._values(probs[looked], children[looked], parent[looked], views)
        depth[looked] = self.plies
        return value, probs, depth

    def choose(self, positions: np.ndarray, dice: np.ndarray, children: np.ndarray, parent: np.ndarray,
               views) -> np.ndarray:
        """(B,) index into ``children`` of the play to make in each game."""
        if self.net is None:
            return self.player.select(positions, dice, children, parent)
        value, _, depth = self.rank_plays(children, parent, views, positions=positions)
        return self.best(value, depth, parent, len(positions))

    @staticmethod
    def best(value: np.ndarray, depth: np.ndarray, parent: np.ndarray, games: int) -> np.ndarray:
        """(games,) index of each game's best child in ``rank_plays``' output: looked at more deeply
        first, then the highest value (the first of equal ones)."""
        return group_argmax(value + 1e6 * depth, parent, games)  # values never lie 1e6 apart

    # -- the cube ---------------------------------------------------------------------------------

    def on_roll_probabilities(self, positions: np.ndarray) -> np.ndarray:
        """(B, K) cubeless probabilities of positions seen by the side on roll, before its roll."""
        return evaluate_positions(self.net, np.asarray(positions, dtype=np.int8), self.plies, self.device, self.prune)

    def cube_decision(self, position: np.ndarray, view, probs=None):
        """model/cube/decisions.py's ``CubeDecision`` (batch of one) of the side on roll in ``position``,
        from ``probs`` (its probabilities, looked at ``plies`` deep, when already known)."""
        probs = None if probs is None else np.asarray(probs)[None, :]
        return self.cube_decisions(np.asarray(position)[None, :], [view], probs)[0][1]

    def cube_decisions(self, positions: np.ndarray, views, probs=None) -> list[tuple[np.ndarray, object]]:
        """``cube_decision`` of a batch: [(indices, CubeDecision of those positions)], one item per
        distinct view (``groups``); ``probs`` (B, K) as ``on_roll_probabilities`` gives them, if known."""
        positions = np.asarray(positions, dtype=np.int8)
        probs = self.on_roll_probabilities(positions) if probs is None else np.asarray(probs)
        x = cube.cube_efficiency(positions)
        return [(idx, cube.cube_decision(probs[idx], x[idx], view)) for view, idx in groups(list(views))]

    def doubles(self, positions: np.ndarray, views, probs=None) -> np.ndarray:
        """(B,) bool: the side on roll doubles where the cube decision says so and it may (a baseline
        never does). ``probs``: the positions' probabilities (``on_roll_probabilities``) if known."""
        out = np.zeros(len(positions), dtype=bool)
        if self.net is None or self.game != "backgammon" or len(positions) == 0:
            return out
        probs = self.on_roll_probabilities(positions) if probs is None else probs
        x = cube.cube_efficiency(positions)
        for view, idx in groups(list(views)):
            out[idx] = np.asarray(cube.cube_decision(probs[idx], x[idx], view).double) & cube.double_available(view)
        return out

    def answers(self, positions: np.ndarray, taker_views, probs=None) -> list[str]:
        """"take", "pass" or "beaver" of the doubled side; ``positions`` are seen by the doubler, on
        roll; ``taker_views`` by the taker (a beaver only where the view allows beavers)."""
        if self.net is None or len(positions) == 0:
            return ["take"] * len(positions)
        probs = self.on_roll_probabilities(positions) if probs is None else probs
        probs = flip_probs("backgammon", probs)  # the taker's view
        x = cube.cube_efficiency(positions)
        out = [""] * len(positions)
        for view, idx in groups(list(taker_views)):
            for k, answer in zip(idx, cube.take_decision(probs[idx], x[idx], view)):
                out[k] = str(answer)
        return out

    # -- resignations -----------------------------------------------------------------------------

    def _side_probabilities(self, positions, on_roll, probs=None):
        """(B, K) probabilities of each position (seen by the side on roll), turned to the deciding
        side: the side on roll where ``on_roll``, else its opponent; and the cube efficiency."""
        probs = self.on_roll_probabilities(positions) if probs is None else np.asarray(probs)
        mine = np.where(np.asarray(on_roll)[:, None], probs, flip_probs(self.game, probs))
        x = cube.cube_efficiency(positions) if self.game == "backgammon" else None
        return mine, x

    def resignations(self, positions: np.ndarray, views, on_roll, probs=None) -> np.ndarray:
        """(B,) level the deciding side offers (0 none): the side on roll in ``positions`` where
        ``on_roll``, else the other; ``views`` seen by the deciding side; ``probs`` the positions'
        probabilities seen by their side on roll, if known. Not capped by the rules."""
        out = np.zeros(len(positions), dtype=np.int64)
        if self.net is None or len(positions) == 0:
            return out
        mine, x = self._side_probabilities(positions, on_roll, probs)
        if self.game != "backgammon":  # long nardi: [win, win mars, lose mars]
            lost = mine[:, 0] < NARDI_RESIGN_BELOW
            return np.where(lost, 1 + (mine[:, 2] >= 1 - NARDI_RESIGN_BELOW), 0).astype(np.int64)
        on_roll = np.asarray(on_roll, dtype=bool)
        for (view, roll), idx in groups([(v, bool(r)) for v, r in zip(views, on_roll)]):
            out[idx] = resignation_offer(mine[idx], view, x[idx], on_roll=roll, tolerance=self.resign_tolerance)
        return out

    def accepts(self, positions: np.ndarray, views, levels, on_roll, probs=None) -> np.ndarray:
        """(B,) bool: the deciding side (as in ``resignations``) accepts the other's offer of ``levels``."""
        mine, x = self._side_probabilities(positions, on_roll, probs)
        levels = np.asarray(levels)
        if self.game != "backgammon":  # long nardi: the offered points against the cubeless equity
            return levels >= cubeless_equity(self.game, mine) - 1e-9
        out = np.zeros(len(positions), dtype=bool)
        for k in range(len(positions)):
            out[k] = bool(accept_resignation(mine[k], int(levels[k]), views[k], x[k], on_roll=bool(on_roll[k])))
        return out


def cube_view(state, side: int, money_style: bool = False, met: str | None = None):
    """An engine.game ``GameState``'s cube and score as a ``CubeState`` seen by ``side`` (None in a
    game without a cube decision to make: long nardi).

    Money play: the rules' Jacoby and beaver options. A match: the score, the Crawford flag of the
    game (engine.match: "the first game after a side comes within one point of the match") and
    post-Crawford play. ``money_style``: the cube alone, as in a money game without Jacoby or
    beavers, whatever the score. ``met``: the match equity table (default: model/cube/met.py's).
    """
    if state.game != "backgammon":
        return None
    owner = CubeOwner.seen_by(state.cube_owner, side)
    rules, match = state.rules, state.match
    if money_style:
        return cube.money(owner, state.cube, jacoby=False, beavers=False)
    if rules.money:
        return cube.money(owner, state.cube, jacoby=rules.jacoby, beavers=rules.beavers)
    extra = {} if met is None else {"met": met}
    return cube.match(match.length, match.score[side], match.score[1 - side], state.cube, owner,
                      crawford=match.is_crawford, **extra)
