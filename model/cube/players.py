"""Players with a cube: checker plays, doubles, answers to doubles and resignations, for a batch of games.

A ``CubePlayer`` is asked about many games at once (model/arena/cubeful.py batches them). Each game is an
engine.game ``GameState``; the player answers for the side the question is put to:

    doubles(states)  -> (B,) bool     ROLL phase, the player is on roll and the rules let it double
    answers(states)  -> [B] str       TAKE phase, the player was doubled: "take", "drop" or "beaver"
    select(states, children, parent) MOVE phase: (B,) indices into children (legal_plays' layout)
    resigns(states)  -> (B,) int      ROLL phase, on roll: level to offer (0 none, 1..3)
    accepts(states)  -> (B,) bool     a resignation offered to it waits

The players here:
  * ``NetCubePlayer``: a network with model/cube/decisions.py's decisions from the five cubeless probabilities
    of the position before the roll (0-ply). ``style="aware"`` decides at the real cube and score
    (match-winning chances, the Crawford game, dead cubes); ``style="money"`` plays every game as if
    it were money ("money-style": money cube decisions ignoring the score, no Jacoby, no beavers).
    Checker play: ``checker="cubeful"`` maximises model.cube.decisions.checker_play_value with the cube
    efficiency of the position after the play (money: Janowski cubeful equity; match: cubeful
    match-winning chance), ``"cubeless"`` the cubeless value at this cube and score (money: cubeless
    equity; match: cubeless MWC). Money-style always plays cubeless money equity. Long nardi has no
    cube: checker play is cubeless equity.
  * ``NoCubePlayer``: any model/players/base.py ``Player`` that never doubles and always takes.
  * ``RandomCubePlayer``: random plays and random cube actions among those the rules allow (tests).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine import game as g
from engine.board import flip

from model.cube import decisions as cube
from model.net.equity import cubeless_equity, flip_probs
from model.players.net_player import child_probabilities
from model.players.base import Player, RandomPlayer, group_argmax
from model.cube.resign import accept_resignation, resignation_offer

STYLES = ("aware", "money")
CHECKER_PLAY = ("cubeful", "cubeless")
ANSWERS = ("take", "drop", "beaver")


def cube_view(state: g.GameState, side: int, money_style: bool = False) -> cube.CubeState:
    """The game's cube and score as model/cube/decisions.py's CubeState, seen by ``side``.

    Money play: the rules' Jacoby and beaver options. A match: the score, the Crawford flag of the
    game (engine.match: "the first game after a side comes within one point of the match") and
    post-Crawford play. ``money_style``: the cube alone, as in a money game without Jacoby or beavers,
    whatever the score.
    """
    owner = {None: cube.CENTRED, side: cube.ME, 1 - side: cube.OPPONENT}[state.cube_owner]
    rules, match = state.rules, state.match
    if money_style:
        return cube.money(owner, state.cube, jacoby=False, beavers=False)
    if rules.money:
        return cube.money(owner, state.cube, jacoby=rules.jacoby, beavers=rules.beavers)
    return cube.match(match.length, match.score[side], match.score[1 - side], state.cube, owner,
                      crawford=match.is_crawford)


def positions_of(states: Sequence[g.GameState]) -> np.ndarray:
    """(B, 28) int8: each game's position, seen by its side on turn."""
    return np.stack([s.position for s in states]) if states else np.zeros((0, 28), dtype=np.int8)


def dice_of(states: Sequence[g.GameState]) -> np.ndarray:
    """(B, 2): each game's thrown dice (MOVE phase)."""
    return np.array([s.dice for s in states], dtype=np.int64).reshape(len(states), 2)


def groups(keys: Sequence) -> list[tuple[object, np.ndarray]]:
    """[(key, indices)] of equal keys (hashable), in order of first appearance."""
    found: dict = {}
    for i, key in enumerate(keys):
        found.setdefault(key, []).append(i)
    return [(key, np.asarray(idx, dtype=np.int64)) for key, idx in found.items()]


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
    """A network with model/cube/decisions.py's cube decisions and cubeful (or cubeless) checker play.

    ``net``: anything with ``config`` (game, outputs) and ``probabilities(positions, device)`` for
    positions seen by the side on roll (model.net.network.OutcomeNet, model.net.inference.NumpyNet, a test stub).
    Cube decisions are 0-ply: the cubeless probabilities of the position before the roll, the cube
    efficiency of its class (model.cube.decisions.cube_efficiency), then ``cube_decision`` (the doubler) or
    ``take_decision`` (the taker) at the game's CubeState (see the module docstring for ``style``
    and ``checker``). ``resign``: offer and judge resignations with model/cube/resign.py (cubeful values);
    off, it never offers and accepts as the base class does.
    """

    def __init__(self, net, style: str = "aware", checker: str = "cubeful", name: str = "net",
                 device="cpu", resign: bool = False):
        if style not in STYLES:
            raise ValueError(f"cube style must be one of {', '.join(STYLES)}, got {style!r}")
        if checker not in CHECKER_PLAY:
            raise ValueError(f"checker play must be one of {', '.join(CHECKER_PLAY)}, got {checker!r}")
        super().__init__(net.config.game)
        self.net, self.style, self.checker, self.device, self.resign = net, style, checker, device, resign
        self.name = name

    # -- what the player sees ---------------------------------------------------------------------

    def _view(self, state: g.GameState, side: int) -> cube.CubeState:
        return cube_view(state, side, money_style=self.style == "money")

    def on_roll_probabilities(self, states) -> np.ndarray:
        """(B, 5) cubeless probabilities of each position before the roll, seen by the side on roll."""
        return self.net.probabilities(positions_of(states), self.device)

    # -- the cube ---------------------------------------------------------------------------------

    def doubles(self, states):
        """Double where ``cube_decision`` says doubling is right (double/take or double/pass; never
        when too good, where playing on for the gammon is worth more than the cube's value)."""
        if not states or self.game != "backgammon":
            return np.zeros(len(states), dtype=bool)
        probs = self.on_roll_probabilities(states)
        x = cube.cube_efficiency(positions_of(states))
        out = np.zeros(len(states), dtype=bool)
        for view, idx in groups([self._view(s, s.mover) for s in states]):
            out[idx] = cube.cube_decision(probs[idx], x[idx], view).double
        return out

    def answers(self, states):
        """The taker's answer from ``take_decision``: pass (drop) when the doubler's double/take equity
        is at least his double/pass, else take, or beaver where it is worth it and the rules allow."""
        if not states:
            return []
        probs = self.on_roll_probabilities(states)  # the doubler on roll
        x = cube.cube_efficiency(positions_of(states))
        mine = flip_probs("backgammon", probs)
        out = [""] * len(states)
        for view, idx in groups([self._view(s, 1 - s.mover) for s in states]):
            for k, answer in zip(idx, cube.take_decision(mine[idx], x[idx], view)):
                out[k] = allowed_answer(states[k], "drop" if answer == cube.PASS else str(answer))
        return out

    # -- checker play -----------------------------------------------------------------------------

    def play_values(self, states, children: np.ndarray, parent: np.ndarray) -> np.ndarray:
        """(N,) value of each child for its mover: cubeful or cubeless at each game's cube and score."""
        probs = child_probabilities(self.net, children, self.device)  # (N, K) the mover's view
        if self.game != "backgammon":
            return cubeless_equity(self.game, probs)
        x = cube.cube_efficiency(flip(self.game, children)) if self.checker == "cubeful" else None
        values = np.empty(len(children))
        for view, idx in groups([self._view(s, s.mover) for s in states]):
            rows = np.flatnonzero(np.isin(parent, idx))
            if self.style == "money":
                values[rows] = cube.money_cubeless_equity(probs[rows], view)
            else:
                values[rows] = cube.checker_play_value(probs[rows], view, None if x is None else x[rows])
        return values

    def select(self, states, children, parent):
        return group_argmax(self.play_values(states, children, parent), parent, len(states))

    # -- resignations -----------------------------------------------------------------------------

    def resigns(self, states):
        """model/cube/resign.py's lowest level worth offering (cubeful, on roll), capped by the rules."""
        out = np.zeros(len(states), dtype=np.int64)
        if not self.resign or not states or self.game != "backgammon":
            return out
        probs = self.on_roll_probabilities(states)
        x = cube.cube_efficiency(positions_of(states))
        for view, idx in groups([self._view(s, s.mover) for s in states]):
            out[idx] = resignation_offer(probs[idx], view, x[idx], on_roll=True)
        for k, state in enumerate(states):
            if out[k]:
                out[k] = min(out[k], g.max_resignation(state, state.mover))
        return out

    def accepts(self, states):
        """model/cube/resign.py's ``accept_resignation``: accept when the offer is worth at least playing on."""
        if not self.resign or not states or self.game != "backgammon":
            return super().accepts(states)
        probs = self.on_roll_probabilities(states)
        x = cube.cube_efficiency(positions_of(states))
        out = np.zeros(len(states), dtype=bool)
        for k, state in enumerate(states):
            me = 1 - state.resignation[0]
            mine = probs[k] if me == state.mover else flip_probs("backgammon", probs[k])
            out[k] = bool(accept_resignation(mine, state.resignation[1], self._view(state, me), x[k],
                                             on_roll=me == state.mover))
        return out


POLICIES = ("auto", "net", "money", "none", "random")
"""Cube policies of ``make_cube_player``: auto (net for a checkpoint, none for a baseline), net
(match-aware cube and cubeful checker play), money (money-style), none (never doubles, always
takes), random (random cube actions)."""


def make_cube_player(spec: str, game: str, policy: str = "auto", checker: str = "cubeful",
                     seed: int | None = None, resign: bool = False) -> CubePlayer:
    """A CubePlayer from a baseline name or a checkpoint path (model/players.make_player) and a policy.

    ValueError for an unknown policy or a network policy on a baseline (it has no probabilities).
    """
    if policy not in POLICIES:
        raise ValueError(f"cube policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    from model.players.registry import make_player

    player = make_player(spec, game, seed=seed)
    net = getattr(player, "net", None)
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
                         name=label, resign=resign)


__all__ = [
    "ANSWERS", "CHECKER_PLAY", "POLICIES", "STYLES", "CubePlayer", "NetCubePlayer", "NoCubePlayer",
    "RandomCubePlayer", "allowed_answer", "cube_view", "dice_of", "groups",
    "make_cube_player", "positions_of",
]
