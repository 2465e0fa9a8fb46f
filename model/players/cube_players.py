"""Players with a cube: checker plays, doubles, answers to doubles and resignations, for a batch of games.

A ``CubePlayer`` is asked about many games at once (model/arena/cubeful.py batches them). Each game is an
engine.game ``GameState``; the player answers for the side the question is put to:

    doubles(states)  -> (B,) bool     ROLL phase, the player is on roll and the rules let it double
    answers(states)  -> [B] str       TAKE phase, the player was doubled: "take", "drop" or "beaver"
    select(states, children, parent) MOVE phase: (B,) indices into children (legal_plays' layout)
    resigns(states)  -> (B,) int      ROLL phase, on roll: level to offer (0 none, 1..3)
    accepts(states)  -> (B,) bool     a resignation offered to it waits

The players here:
  * ``NetCubePlayer``: a network deciding through model/players/cube_policy.py's ``CubePolicy``, the policy
    hint, play and serve use too. ``style="aware"`` decides at the real cube and score
    (match-winning chances, the Crawford game, dead cubes); ``style="money"`` plays every game as if
    it were money ("money-style": money cube decisions ignoring the score, no Jacoby, no beavers,
    cubeless money equity for checker play). ``checker``: the policy's checker play (cubeful or
    cubeless).
  * ``NoCubePlayer``: any model/players/base.py ``Player`` that never doubles and always takes.
  * ``RandomCubePlayer``: random plays and random cube actions among those the rules allow (tests).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine import game as g
from model.players.base import Player, RandomPlayer
from model.players.cube_policy import CHECKER_PLAY, CubePolicy, cube_view, groups
from model.players.registry import make_player

STYLES = ("aware", "money")
ANSWERS = ("take", "drop", "beaver")


def positions_of(states: Sequence[g.GameState]) -> np.ndarray:
    """(B, 28) int8: each game's position, seen by its side on turn."""
    return np.stack([s.position for s in states]) if states else np.zeros((0, 28), dtype=np.int8)


def dice_of(states: Sequence[g.GameState]) -> np.ndarray:
    """(B, 2): each game's thrown dice (MOVE phase)."""
    return np.array([s.dice for s in states], dtype=np.int64).reshape(len(states), 2)


def allowed_answer(state: g.GameState, answer: str) -> str:
    """``answer`` where the rules allow it; a beaver the rules refuse becomes a take."""
    if answer == "beaver" and g.beaver_refusal(state) is not None:
        return "take"
    return answer


class CubePlayer:
    """Base class: never doubles, always takes, never resigns, accepts only what cannot be bettered.

    Subclasses implement ``select`` and override what they decide differently."""

    name = "cube-player"

    def __init__(self, game: str):
        self.game = game

    def reset(self) -> None:
        """Called before a run of games; stateless players ignore it."""

    def doubles(self, states: Sequence[g.GameState]) -> np.ndarray:
        """(B,) bool: double now? Asked only where the rules allow the player on roll to double."""
        return np.zeros(len(states), dtype=bool)

    def answers(self, states: Sequence[g.GameState]) -> list[str]:
        """"take", "drop" or "beaver" for each waiting double (the player is the doubled side)."""
        return ["take"] * len(states)

    def select(self, states: Sequence[g.GameState], children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        """(B,) indices into ``children`` (N, 28), grouped by ``parent`` (N,) as legal_plays gives them."""
        raise NotImplementedError

    def resigns(self, states: Sequence[g.GameState]) -> np.ndarray:
        """(B,) resignation level to offer (0: none); the player is on roll, before its cube action."""
        return np.zeros(len(states), dtype=np.int64)

    def accepts(self, states: Sequence[g.GameState]) -> np.ndarray:
        """(B,) bool for offers made to the player: accept when the offer is the most the other side
        can still lose (engine.game.max_resignation), so that accepting can cost nothing."""
        return np.array([s.resignation[1] >= g.max_resignation(s, s.resignation[0]) for s in states],
                        dtype=bool)


class NoCubePlayer(CubePlayer):
    """A model/players/base.py ``Player`` with the cube ignored: "never doubles, always takes"."""

    def __init__(self, player: Player, name: str | None = None):
        super().__init__(player.game)
        self.player = player
        self.name = name or f"{getattr(player, 'name', 'player')}/no-cube"

    def reset(self) -> None:
        self.player.reset()

    def select(self, states, children, parent):
        return self.player.select(positions_of(states), dice_of(states), children, parent)


class RandomCubePlayer(CubePlayer):
    """Random plays; doubles with probability ``double_rate`` whenever allowed; answers a double with a
    drop (``drop_rate``), a beaver where allowed (``beaver_rate``), else a take; offers resignations
    at random levels the rules allow (``resign_rate``) and accepts half of them. For rule tests."""

    def __init__(self, game: str, seed: int | None = None, double_rate: float = 0.3,
                 drop_rate: float = 0.2, beaver_rate: float = 0.3, resign_rate: float = 0.0):
        super().__init__(game)
        self.rng = np.random.default_rng(seed)
        self.plays = RandomPlayer(game, seed=None if seed is None else seed + 1)
        self.double_rate, self.drop_rate = double_rate, drop_rate
        self.beaver_rate, self.resign_rate = beaver_rate, resign_rate
        self.name = "random-cube"

    def doubles(self, states):
        return self.rng.random(len(states)) < self.double_rate

    def answers(self, states):
        out = []
        for state, u in zip(states, self.rng.random(len(states))):
            answer = "drop" if u < self.drop_rate else "beaver" if u < self.drop_rate + self.beaver_rate else "take"
            out.append(allowed_answer(state, answer))
        return out

    def select(self, states, children, parent):
        return self.plays.select(positions_of(states), dice_of(states), children, parent)

    def resigns(self, states):
        levels = np.zeros(len(states), dtype=np.int64)
        for k, state in enumerate(states):
            if self.rng.random() < self.resign_rate:
                levels[k] = self.rng.integers(1, g.max_resignation(state, state.mover) + 1)
        return levels

    def accepts(self, states):
        return self.rng.random(len(states)) < 0.5


class NetCubePlayer(CubePlayer):
    """A network deciding everything through model/players/cube_policy.py's ``CubePolicy`` at ``plies``.

    ``net``: anything with ``config`` (game, outputs) and ``probabilities(positions, device)`` for
    positions seen by the side on roll (model.net.network.OutcomeNet, model.net.inference.NumpyNet, a
    test stub). ``style`` and ``checker``: see the module docstring. ``resign``: offer and judge
    resignations (model/cube/resign.py, cubeful values); off, it never offers and accepts as the base
    class does.
    """

    def __init__(self, net, style: str = "aware", checker: str = "cubeful", name: str = "net",
                 device="cpu", resign: bool = False, plies: int = 0):
        if style not in STYLES:
            raise ValueError(f"cube style must be one of {', '.join(STYLES)}, got {style!r}")
        super().__init__(net.config.game)
        self.policy = CubePolicy(net, plies=plies, checker="cubeless" if style == "money" else checker,
                                 device=device)
        self.net, self.style, self.checker, self.device, self.resign = net, style, checker, device, resign
        self.name = name

    def _views(self, states, sides) -> list:
        return [cube_view(s, side, money_style=self.style == "money") for s, side in zip(states, sides)]

    def doubles(self, states):
        return self.policy.doubles(positions_of(states), self._views(states, [s.mover for s in states]))

    def answers(self, states):
        """The policy's take / drop / beaver, a beaver the rules refuse turned into a take."""
        said = self.policy.answers(positions_of(states), self._views(states, [1 - s.mover for s in states]))
        return [allowed_answer(s, "drop" if a == "pass" else a) for s, a in zip(states, said)]

    def select(self, states, children, parent):
        return self.policy.choose(positions_of(states), dice_of(states), children, parent,
                                  self._views(states, [s.mover for s in states]))

    def resigns(self, states):
        """The policy's lowest level worth offering (on roll), capped by the rules."""
        if not self.resign or not states:
            return np.zeros(len(states), dtype=np.int64)
        levels = self.policy.resignations(positions_of(states), self._views(states, [s.mover for s in states]),
                                          np.ones(len(states), dtype=bool))
        return np.array([min(int(level), g.max_resignation(s, s.mover)) if level else 0
                         for s, level in zip(states, levels)], dtype=np.int64)

    def accepts(self, states):
        """The policy's answer: accept an offer worth at least playing on."""
        if not self.resign or not states:
            return super().accepts(states)
        me = [1 - s.resignation[0] for s in states]
        return self.policy.accepts(positions_of(states), self._views(states, me),
                                   [s.resignation[1] for s in states], [m == s.mover for m, s in zip(me, states)])


POLICIES = ("auto", "net", "money", "none", "random")
"""Cube policies of ``make_cube_player``: auto (net for a checkpoint, none for a baseline), net
(match-aware cube and cubeful checker play), money (money-style), none (never doubles, always
takes), random (random cube actions)."""


def make_cube_player(spec: str, game: str, policy: str = "auto", checker: str = "cubeful",
                     seed: int | None = None, resign: bool = False) -> CubePlayer:
    """A CubePlayer from a baseline name or a checkpoint path (model/players/registry.py's
    ``make_player``) and a policy.

    ValueError for an unknown policy or a network policy on a baseline (it has no probabilities).
    """
    if policy not in POLICIES:
        raise ValueError(f"cube policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    player = make_player(spec, game, seed=seed)
    net = player.net
    if policy == "auto":
        policy = "net" if net is not None else "none"
    if policy == "none":
        return NoCubePlayer(player)
    if policy == "random":
        return RandomCubePlayer(game, seed=seed)
    if net is None:
        raise ValueError(f"{spec}: the {policy!r} cube policy needs a network (a checkpoint), not a baseline")
    style = "money" if policy == "money" else "aware"
    label = f"{player.name}/{'money-style' if style == 'money' else 'cube'}"
    return NetCubePlayer(net, style=style, checker="cubeless" if style == "money" else checker,
                         name=label, resign=resign, plies=getattr(player, "plies", 0))  # "path+2ply"


__all__ = [
    "ANSWERS", "CHECKER_PLAY", "POLICIES", "STYLES", "CubePlayer", "NetCubePlayer", "NoCubePlayer",
    "RandomCubePlayer", "allowed_answer", "cube_view", "dice_of", "groups",
    "make_cube_player", "positions_of",
]
