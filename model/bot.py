"""The public API for asking the bot (kept stable: outside checks use it).

    from model import Bot
    bot = Bot.load()                                  # the shipped backgammon network
    bot = Bot.load(game="nardi")                      # the shipped nardi network
    bot = Bot.load("runs/bg/last.pt")                 # any checkpoint (.safetensors, or .pt with torch)
    bot = Bot.load("pubeval")                         # a baseline by name
    bot.choose("4HPwATDgc/ABMA", [3, 1])              # {"move": "8/5 6/5", "position": {...}, ...}
    bot.rank(position, dice)                          # every legal play, best first
    bot.choose_batch([pos1, pos2], [[3, 1], [6, 6]])  # many positions, one network call

A position is our JSON form (a dict or its text), a gnubg Position ID (optionally "PositionID:MatchID"),
an XGID, or an int8 array (28,) in the mover's frame; the side on roll is the mover. The returned
``position`` is the JSON form of what the play leaves, seen by the same side, before the turn passes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.board import check_game, validate
from engine.errors import FormatError
from engine.formats.position import read_json_position, read_position_text, write_json_position
from engine.movegen import legal_plays
from engine.notation import format_plays
from model.net.equity import OUTPUT_NAMES, cubeless_equity
from model.players.base import group_starts


def read_position(game: str, position) -> np.ndarray:
    """Any accepted position form -> (28,) int8 in the mover's frame; FormatError with the reason."""
    check_game(game)
    if isinstance(position, np.ndarray):
        pos = position.astype(np.int8)
        try:
            validate(game, pos)
        except ValueError as e:
            raise FormatError(str(e)) from None
        return pos
    if isinstance(position, dict):
        return read_json_position(game, position)
    return read_position_text(game, position)[0]


def read_dice(dice) -> np.ndarray:
    """Two dice 1..6 as an array (2,); FormatError otherwise. Accepts [3, 1], (3, 1), "31", "3-1"."""
    if isinstance(dice, str):
        dice = [int(c) for c in dice if c in "0123456789"]  # not str.isdigit: '²' is a digit to it
    values = list(np.asarray(dice, dtype=object).reshape(-1)) if not np.isscalar(dice) else [dice]
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in values):
        raise FormatError(f"dice must be two whole numbers 1..6, got {dice!r}")
    if len(values) != 2 or not all(1 <= v <= 6 for v in values):  # before int64: 10**20 is no die either
        raise FormatError(f"dice must be two numbers 1..6, got {dice!r}")
    return np.array(values, dtype=np.int64)


class Bot:
    """A player you can ask: best play, all plays ranked, with probabilities and equity for networks."""

    def __init__(self, player, game: str, name: str, net=None):
        self.player = player
        self.game = game
        self.name = name
        self.net = net  # the OutcomeNet for trained players, None for baselines

    @classmethod
    def load(cls, path: str | None = None, game: str = "backgammon", device: str = "cpu",
             exact_endgames: bool | None = None) -> Bot:
        """A checkpoint path, a baseline name ("pubeval", "heuristic", "random", "gnubg"...), or None
        for the shipped checkpoint of ``game`` (checkpoints/<game>.safetensors). A checkpoint of another
        game than ``game`` is refused (pass game="nardi" for nardi checkpoints). ``exact_endgames``: the
        net answers bear-offs from the databases (model/net/evaluator.py; None: its default). A spec
        with suffixes (model/players/registry.py: "path+noexact", "path+2ply") makes its player; with
        +1ply / +2ply, ``rank`` and ``choose`` rank the plays at that depth (cubeless, hint's search)."""
        from model.net.checkpoint import SUFFIXES, load_net, shipped_path
        from model.net.evaluator import with_exact_endgames
        from model.players.net_player import NetPlayer
        from model.players.registry import make_player

        check_game(game)
        if path is None or Path(str(path)).suffix in SUFFIXES or Path(str(path)).is_file():
            file = shipped_path(game) if path is None else Path(path)
            net, blob = load_net(file, game=game, device=device, backend="auto")
            net = with_exact_endgames(net, exact_endgames)
            return cls(NetPlayer(net, device=device, name=file.stem), blob["game"], file.stem, net)
        player = make_player(str(path), game, device=device)  # a baseline, or "checkpoint+exact"
        return cls(player, game, str(path), getattr(player, "net", None))

    # -- ranking ----------------------------------------------------------------------------------

    def _scores(self, positions, dice, children, parent):
        """(utility per child, probs per child or None, rank key per child): the key orders the plays,
        best first, when sorted ascending."""
        if self.net is not None:
            from model.players.net_player import child_probabilities

            if getattr(self.player, "plies", 0):  # a "checkpoint+Nply" spec: ranked as it plays
                util, probs, depth = self.player.rank(children, parent, len(positions))
                return util, probs, -(util + 1e6 * depth)  # looked at more deeply first
            probs = child_probabilities(self.net, children, self.player.device)
            util = cubeless_equity(self.game, probs)
            return util, probs, -util
        # a baseline: its own pick first (an Easy player's may not be its best-scored play), then the
        # rest by its score where it has one (heuristic, pubeval), else in generator order
        pick = self.player.select(positions, dice, children, parent)
        scores = getattr(self.player, "scores", None)
        util = (np.asarray(scores(positions, dice, children, parent), dtype=np.float64) if scores is not None
                else np.full(len(children), np.nan))
        key = -np.nan_to_num(util)
        key[pick] = -np.inf
        return util, None, key

    def rank_batch(self, positions, dice, first_turn=None) -> list[list[dict]]:
        """For each position, every distinct legal play, best first (see ``rank``)."""
        pos = np.stack([read_position(self.game, p) for p in positions])
        roll = np.stack([read_dice(d) for d in dice])
        if len(roll) != len(pos):
            raise FormatError(f"{len(pos)} positions but {len(roll)} rolls")
        children, parent = legal_plays(self.game, pos, roll, first_turn)
        util, probs, key = self._scores(pos, roll, children, parent)
        start, count = group_starts(parent, len(pos))
        out = []
        for i in range(len(pos)):  # the edge: notation and dicts for people, per position
            block = np.arange(start[i], start[i] + count[i])
            block = block[np.argsort(key[block], kind="stable")]
            ft = None if first_turn is None else bool(np.broadcast_to(first_turn, (len(pos),))[i])
            moves = format_plays(self.game, pos[i], roll[i], children[block], ft)
            best = util[block[0]]
            plays = []
            for j, move in zip(block, moves):
                play = {"move": move, "position": write_json_position(children[j])}
                if probs is not None:
                    play["probs"] = dict(zip(OUTPUT_NAMES[self.game], map(float, probs[j])))
                    play["equity"] = float(util[j])
                    play["loss"] = float(best - util[j])
                elif not np.isnan(util[j]):
                    play["score"] = float(util[j])
                plays.append(play)
            out.append(plays)
        return out

    def rank(self, position, dice, first_turn=None) -> list[dict]:
        """Every distinct legal play of ``dice`` in ``position``, best first: dicts with ``move``
        (gnubg notation, "" when no die can be played), ``position`` (JSON form of the result,
        same side, before the turn passes), and for networks ``probs`` (mover's view after the
        play), cubeless ``equity`` and ``loss`` against the best."""
        return self.rank_batch([position], [dice], first_turn)[0]

    def choose(self, position, dice, first_turn=None) -> dict:
        """The best play: the first entry of ``rank``."""
        return self.rank(position, dice, first_turn)[0]

    def choose_batch(self, positions, dice, first_turn=None) -> list[dict]:
        """``choose`` for many positions at once (one generator call, one network call)."""
        return [plays[0] for plays in self.rank_batch(positions, dice, first_turn)]

    def evaluate(self, position) -> dict:
        """Cubeless probabilities and equity of a position for the side on roll (networks only)."""
        if self.net is None:
            raise ValueError(f"{self.name} is a baseline and gives no probabilities")
        pos = read_position(self.game, position)
        probs = self.net.probabilities(pos[None, :], self.player.device)[0]
        return {"probs": dict(zip(OUTPUT_NAMES[self.game], map(float, probs))),
                "equity": float(cubeless_equity(self.game, probs))}

    # -- rollouts ---------------------------------------------------------------------------------

    def rollout(self, position, dice=None, trials: int = 1296, state=None, processes: int = 1, **options):
        """Roll out ``position`` (any accepted form; networks only): with ``dice``, its candidate
        plays ranked with intervals; without, its cubeless value and, in backgammon with a ``state``
        (model.cube.decisions.CubeState), the cube decision from cubeful rollouts. ``processes``: play
        the trials in this many processes forked from this one (0: one per core; default 1, this
        process; model/search/rollout_workers.py). ``options``: those of model.search.rollout.rollout
        (plies, truncate, vr, bearoff, seed, plays, cubeful, ...). Returns its RolloutResult
        (``.plays``, ``.evaluation``, ``.separation``, ``.cube_decision``)."""
        from model.search.rollout import rollout

        if processes != 1 and "engine" not in options:
            from model.search.rollout_workers import local_trials

            options["engine"] = local_trials(processes)

        if self.net is None:
            raise ValueError(f"{self.name} is a baseline: a rollout needs a network")
        pos = read_position(self.game, position)
        roll = None if dice is None else tuple(int(d) for d in read_dice(dice))
        return rollout(self.net, pos, roll, trials, state=state, device=self.player.device, **options)
