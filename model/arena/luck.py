"""Luck-adjusted duel results: the same points per game, measured with less noise.

Mirrored dice (model/arena/cubeless.py) cancel the luck of the throws only while the two games of a
pair stay alike; once the players choose differently, the same dice fall on different positions and
the pair's result is again mostly luck. The usual variance reduction takes the rest out: before each
turn a judge values every roll r by its best play, V(r) (the mover's cubeless money equity after the
play, at 0-ply), and the luck of the roll thrown is V(thrown) - sum_r P(r) V(r). A game's adjusted
result is A's points less the luck of A's throws plus the luck of B's. Whatever the judge, the luck of
a throw has mean zero given everything before it (V is a function of the position and the roll only),
so the adjusted points per game estimate exactly what the raw ones do; the better the judge, the
smaller their spread. A game's first throw (the opening) is left out: that keeps the mean at zero
and needs no rule for which rolls an opening can be.

The judge is a player made from a checkpoint spec as the arena's players are (bear-offs from the
exact databases by default, model/net/evaluator.py); backgammon judges may look at pubeval's best
``prune`` plays of each roll only (model/search/top_plays.py, as rollouts do), which keeps the mean at zero
too and costs about a quarter of judging every legal play of every roll.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from engine.groups import group_argmax
from engine.movegen import ROLL_INDEX, ROLL_WEIGHTS
from model.net.equity import cubeless_equity
from model.net.evaluator import child_probabilities
from model.search.top_plays import ROLLS, roll_plays

CHUNK = 256
"""Positions per judge call: 21 rolls of 256 positions are some 100,000 children at all plays."""


def roll_luck(net, positions: np.ndarray, dice: np.ndarray, prune: int = 0) -> np.ndarray:
    """The luck (B,) of each throw ``dice`` (B, 2) from ``positions`` (B, 28, mover's frame, before
    the play), in the mover's cubeless money equity as ``net`` judges it at 0-ply."""
    game = net.config.game
    children, row = roll_plays(game, positions, prune)
    equity = cubeless_equity(game, child_probabilities(net, children, parents=(positions, row // ROLLS)))
    value = equity[group_argmax(equity, row, len(positions) * ROLLS)].reshape(len(positions), ROLLS)
    return value[np.arange(len(positions)), ROLL_INDEX[dice[:, 0], dice[:, 1]]] - value @ ROLL_WEIGHTS


def judged_turns(plays: list) -> int:
    """How many turns ``game_luck`` judges in the recorded games ``plays``: all but each game's first."""
    return sum(len(positions) - 1 for _, positions, _, _ in plays)


def game_luck(net, plays: list, prune: int = 0, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """A's luck in each game (G,): the luck of A's throws less B's, from the recorded plies of
    ``play_games(..., record_plays=True)`` (``ArenaResult.plays``), each game's opening left out.
    ``progress(n)`` is called with the number of turns just judged."""
    games, sign, before, dice = [], [], [], []
    for number, (a_moved, positions, _after, throws) in enumerate(plays):
        games.append(np.full(len(positions) - 1, number))
        sign.append(np.where(a_moved[1:], 1.0, -1.0))
        before.append(positions[1:])
        dice.append(throws[1:])
    games, sign = np.concatenate(games), np.concatenate(sign)
    before, dice = np.concatenate(before), np.concatenate(dice)
    luck = np.empty(len(before))
    for start in range(0, len(before), CHUNK):
        stop = min(start + CHUNK, len(before))
        luck[start:stop] = roll_luck(net, before[start:stop], dice[start:stop], prune)
        if progress is not None:
            progress(stop - start)
    return np.bincount(games, weights=sign * luck, minlength=len(plays))
