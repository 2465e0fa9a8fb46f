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

from engine.board import check_game
from engine.errors import FormatError
from engine.formats.position import write_json_positions
from model.net.equity import OUTPUT_NAMES, cubeless_equity
from model.service.hint import HintSettings, rank_positions
from model.service.query import (
    cube_view_of,
    read_dice,
    read_position,
    read_position_and_info,
    read_valid_arrays,
)
from model.service.rollout_settings import RolloutSettings

__all__ = ["Bot", "read_dice", "read_position"]


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
        +1ply / +2ply, ``rank`` and ``choose`` rank the plays at that depth, as ``hint --ply N`` does.
        numpy's BLAS is set to one thread, as ``nardibot`` sets it, unless OPENBLAS_NUM_THREADS,
        OMP_NUM_THREADS or MKL_NUM_THREADS says otherwise (model/runtime.py's ``one_blas_thread``)."""
        # imported here, for start-up: the loaders only once a bot is loaded, every baseline's module
        # (model/players/registry.py) only once a baseline is
        from model.net.checkpoint import SUFFIXES, load_net, shipped_path
        from model.net.evaluator import with_exact_endgames
        from model.players.net_player import NetPlayer
        from model.runtime import one_blas_thread

        one_blas_thread()  # as the command line has it: small products on one thread (model/runtime.py)
        check_game(game)
        if path is None or Path(str(path)).suffix in SUFFIXES or Path(str(path)).is_file():
            file = shipped_path(game) if path is None else Path(path)
            net, blob = load_net(file, game=game, device=device, backend="auto")
            net = with_exact_endgames(net, exact_endgames)
            return cls(NetPlayer(net, device=device, name=file.stem), blob["game"], file.stem, net)
        from model.players.registry import make_player  # every baseline's module: only when one is asked for

        player = make_player(str(path), game, device=device)  # a baseline, or "checkpoint+exact"
        return cls(player, game, str(path), getattr(player, "net", None))

    # -- ranking ----------------------------------------------------------------------------------

    @property
    def hint_settings(self) -> HintSettings:
        """How ``rank`` ranks: as ``hint`` does by default (model/service/hint.py: cubeful checker play
        at the position's cube and score), at the depth of a "checkpoint+Nply" spec (0-ply otherwise)."""
        plies = getattr(self.player, "plies", 0) if self.net is not None else 0
        return HintSettings(ply=plies)

    def _cube_views(self, positions) -> tuple[np.ndarray, list]:
        """The positions (B, 28) and the cube view of each, as ``hint`` reads them: a Match ID's or an
        XGID's cube and score, else money with a centred cube (model/service/query.py's
        ``cube_view_of``); None in long nardi."""
        pos = read_valid_arrays(self.game, positions)
        if pos is not None:  # arrays, all valid: checked at once, and no ID to read
            return pos, [None if self.game != "backgammon" else cube_view_of(pos[0], None, None)] * len(pos)
        read = [read_position_and_info(self.game, p) for p in positions]  # the reason, where one is bad
        pos = np.stack([p for p, _ in read]) if read else np.zeros((0, 28), np.int8)
        if self.game != "backgammon":
            return pos, [None] * len(pos)
        return pos, [cube_view_of(p, info, None) for p, info in read]  # without an ID: one money view, kept

    def rank_batch(self, positions, dice, first_turn=None) -> list[list[dict]]:
        """For each position, every distinct legal play, best first (see ``rank``)."""
        return self._plays(positions, dice, first_turn, best_only=False)

    def _plays(self, positions, dice, first_turn, best_only: bool) -> list[list[dict]]:
        """``rank_batch``; with ``best_only``, each list holds its first play alone (``choose_batch``:
        the same dict, without writing out the plays nobody asked for)."""
        if len(positions) == 0 or len(dice) == 0:  # an empty batch: nothing to answer
            if len(positions) != len(dice):
                raise FormatError(f"{len(positions)} positions but {len(dice)} rolls")
            return []
        pos, views = self._cube_views(positions)
        roll = np.stack([read_dice(d) for d in dice])
        if len(roll) != len(pos):
            raise FormatError(f"{len(pos)} positions but {len(roll)} rolls")
        out = []
        rankings = rank_positions(self, pos, roll, views, self.hint_settings, first_turn, best_only=best_only)
        for ranking, view in zip(rankings, views):
            util, probs = ranking.value, ranking.probs
            money = view is None or view.is_money
            best = util[0]
            plays = []
            for j, (move, position) in enumerate(zip(ranking.moves, write_json_positions(ranking.children))):
                play = {"move": move, "position": position}  # the edge: notation and dicts for people
                if probs is not None:
                    play["probs"] = dict(zip(OUTPUT_NAMES[self.game], map(float, probs[j])))
                    if money:
                        play["equity"] = float(util[j])
                    else:  # as hint: no money equity at a match score, the match-winning chance instead
                        play.update(equity=None, mwc=float(util[j]))
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
        play), ``equity`` (at a match score None, and ``mwc``) and ``loss`` against the best. The order and the
        figures are ``hint``'s (model/service/hint.py's ``rank_positions`` with ``hint_settings``):
        cubeful money equity at the cube of a Match ID or XGID (a centred cube without one), at a match
        score the match-winning chance, in long nardi cubeless equity. A baseline lists its own pick
        first, then the rest by its score where it has one (``score``)."""
        return self.rank_batch([position], [dice], first_turn)[0]

    def choose(self, position, dice, first_turn=None) -> dict:
        """The best play: the first entry of ``rank``."""
        return self.choose_batch([position], [dice], first_turn)[0]

    def choose_batch(self, positions, dice, first_turn=None) -> list[dict]:
        """``choose`` for many positions at once (one generator call, one network call)."""
        return [plays[0] for plays in self._plays(positions, dice, first_turn, best_only=True)]

    def evaluate(self, position) -> dict:
        """Cubeless probabilities and equity of a position for the side on roll (networks only)."""
        if self.net is None:
            raise ValueError(f"{self.name} is a baseline and gives no probabilities")
        pos = read_position(self.game, position)
        probs = self.net.probabilities(pos[None, :], self.player.device)[0]
        return {"probs": dict(zip(OUTPUT_NAMES[self.game], map(float, probs))),
                "equity": float(cubeless_equity(self.game, probs))}

    # -- rollouts ---------------------------------------------------------------------------------

    def rollout(self, position, dice=None, trials: int = RolloutSettings.trials, state=None, processes: int = 1,
                **options):
        """Roll out ``position`` (any accepted form; networks only): with ``dice``, its candidate
        plays ranked with intervals; without, its cubeless value and, in backgammon with a ``state``
        (model.cube.decisions.CubeState), the cube decision from cubeful rollouts. ``processes``: play
        the trials in this many processes forked from this one (0: one per core; default 1, this
        process; model/search/rollout_workers.py). ``options``: those of model.search.rollout.rollout
        (plies, truncate, vr, bearoff, seed, plays, cubeful, ...; the settings among them are
        model/service/rollout_settings.py's ``RolloutSettings``). Returns its RolloutResult
        (``.plays``, ``.evaluation``, ``.separation``, ``.cube_decision``)."""
        if self.net is None:
            raise ValueError(f"{self.name} is a baseline: a rollout needs a network")
        pos = read_position(self.game, position)
        roll = None if dice is None else tuple(int(d) for d in read_dice(dice))
        from model.service.rollout_answer import (
            roll_out,  # here, not at the top: a hint need not load the trials
        )

        settings, extra = RolloutSettings.of_options(trials=trials, processes=processes, **options)
        return roll_out(self.net, pos, roll, state, settings, device=self.player.device, **extra)
