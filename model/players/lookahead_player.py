"""A network that looks ahead: for every game of the batch, the play with the best cubeless money
equity (long nardi: cubeless equity) at ``plies``.

The plays are ranked exactly as ``hint --ply N`` ranks them, by model/players/cube_policy.py's
``CubePolicy.rank_plays`` (checker play "cubeless" at a money game's centred cube of 1 without the
Jacoby rule, which is the plain cubeless equity): every legal result valued at 0-ply, the best few
(the move filter: at most 8 within 0.16 equity of the best) looked at ``plies`` deeper with
model/search/lookahead.py, all games' candidates in one look-ahead call per turn. Only hint's default
differs: it values plays cubefully. A game with one legal play (forced, or no play) is not looked at:
its play is made without the search.

This module imports model.players.cube_policy (the one ranking of plays); model/players/registry.py imports
it only when a checkpoint spec asks for look-ahead.
"""

from __future__ import annotations

import numpy as np

from engine.groups import group_starts
from model.cube.decisions import CENTRED, money
from model.players.cube_policy import CubePolicy
from model.players.net_player import NetPlayer

CUBELESS_MONEY = money(CENTRED, 1, jacoby=False, beavers=False)
"""The cube view of a cubeless game: gammons and backgammons count, nothing else does."""


class LookaheadPlayer(NetPlayer):
    """A NetPlayer that picks at ``plies`` (1 or more) through ``CubePolicy.rank_plays``.

    ``net``, ``device``, ``name``: as NetPlayer's; ``prune``: CubePolicy's (hint's ``--prune``).
    ``last_probs`` holds, after each ``select``, the probabilities of the children of the games that
    had a choice (looked-at ones at ``plies``), and NaN rows for the only play of a game without one.
    """

    def __init__(self, net, plies: int, device="cpu", name: str = "net", prune: int = 0):
        if plies < 1:
            raise ValueError(f"a look-ahead player needs 1 ply or more, got {plies} (0-ply is NetPlayer)")
        super().__init__(net, device=device, name=name)
        self.plies = plies
        self.policy = CubePolicy(net, plies=plies, checker="cubeless", device=device, prune=prune)
        self.view = CUBELESS_MONEY if self.game == "backgammon" else None

    def rank(self, children, parent, games: int) -> tuple:
        """(value, probabilities, depth) of every child of ``games`` games, as ``CubePolicy.rank_plays``
        gives them (``CubePolicy.best`` or ``ranking_order`` orders them); every game looked at."""
        return self.policy.rank_plays(children, parent, [self.view] * games)

    def select(self, positions, dice, children, parent):
        n = len(positions)
        start, count = group_starts(parent, n)
        chosen = start.copy()  # a game with one play makes it
        self.last_probs = np.full((len(children), self.net.config.outputs), np.nan)
        choice = np.flatnonzero(count > 1)
        if len(choice):
            rows = np.flatnonzero(np.repeat(count > 1, count))  # the children of the games with a choice
            sub_parent = np.repeat(np.arange(len(choice)), count[choice])
            value, probs, depth = self.rank(children[rows], sub_parent, len(choice))
            self.last_probs[rows] = probs
            chosen[choice] = rows[CubePolicy.best(value, depth, sub_parent, len(choice))]
        return chosen
