"""Every player behind one name: the baselines by name, trained networks by checkpoint path.

    make_player("heuristic", "nardi")            the seed's one-look heuristic
    make_player("gnubg-1ply", "backgammon")      GNU Backgammon's nets (optional gnubg-nn package)
    make_player("runs/bg/last.pt", "backgammon") a trained network from a checkpoint
    make_player("runs/bg/last.pt+exact", ...)    the same, bear-offs from the databases (+noexact: never)
    make_player("runs/bg/last.pt+2ply", ...)     the same, picking its plays at 2-ply (+1ply, +0ply)
    make_player("runs/bg/last.pt+race", ...)     the same, races from the race net (model/net/race.py)
    make_player("a.safetensors,b.safetensors", ...)  the mean of two nets' probabilities (model/net/ensemble.py)

A checkpoint spec is a path with suffixes in any order, each at most once (``parse_checkpoint_spec``):
+exact / +noexact (bear-offs from the databases or from the network), +0ply / +1ply / +2ply
(look-ahead: model/players/lookahead_player.py, hint's ranking of plays at that depth) and +race
(backgammon: positions without contact from the race net checkpoints/backgammon-race.safetensors).
Checkpoint paths joined by commas play as one net, the mean of their outcome probabilities (an
ensemble, model/net/ensemble.py); the suffixes after the last path apply to the whole (not +race).

Baselines: random, heuristic, heuristic-easy (both games); pubeval, gnubg (= gnubg-0ply), gnubg-0ply,
gnubg-1ply, gnubg-2ply (backgammon only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.board import check_game
from model.players.base import Player, RandomPlayer
from model.players.heuristic import HeuristicPlayer
from model.players.lookahead_player import LookaheadPlayer
from model.players.net_player import load_mean_player, load_player
from model.players.pubeval_player import PubevalPlayer


def _gnubg(ply: int):
    def make(game: str, seed: int | None) -> Player:
        from model.players.gnubg import GnubgPlayer  # lazy: gnubg-nn is an optional extra

        return GnubgPlayer(game, ply=ply)

    return make


def _pubeval(game: str, seed: int | None) -> Player:
    return PubevalPlayer(game)


BASELINES = {
    "random": lambda game, seed: RandomPlayer(game, seed=seed),
    "heuristic": lambda game, seed: HeuristicPlayer(game, seed=seed),
    "heuristic-easy": lambda game, seed: HeuristicPlayer(game, easy=True, seed=seed),
    "pubeval": _pubeval,
    "gnubg": _gnubg(0),
    "gnubg-0ply": _gnubg(0),
    "gnubg-1ply": _gnubg(1),
    "gnubg-2ply": _gnubg(2),
}
"""Baseline name -> factory(game, seed)."""

BACKGAMMON_ONLY = {"pubeval", "gnubg", "gnubg-0ply", "gnubg-1ply", "gnubg-2ply"}


def make_player(spec: str, game: str, device: str = "cpu", seed: int | None = None) -> Player:
    """A player from a baseline name or a checkpoint spec (a path with the suffixes of
    ``parse_checkpoint_spec``; +1ply / +2ply make a model.players.lookahead_player.LookaheadPlayer).

    Raises ValueError for an unknown name, a baseline that does not play ``game``, a bad suffix or a
    bad checkpoint, FileNotFoundError for a path that does not exist, ImportError (GnubgUnavailable)
    when gnubg is asked for without the gnubg-nn package.
    """
    check_game(game)
    name = spec.strip().lower()
    if name in BASELINES:
        if name in BACKGAMMON_ONLY and game != "backgammon":
            raise ValueError(f"{spec} plays backgammon only, not {game}")
        player = BASELINES[name](game, seed)
        player.name = name
        return player
    parsed = parse_checkpoint_spec(spec)
    if parsed.suffix and parsed.path.strip().lower() in BASELINES:
        raise ValueError(f"the suffixes {SUFFIX_HELP} are for checkpoints, not the baseline {parsed.path}")
    if not _looks_like_path(parsed.path):
        raise ValueError(f"unknown player {spec!r}: give a checkpoint path or one of {', '.join(BASELINES)}")
    whole = Path(parsed.path)  # a file whose own name holds a comma is one checkpoint
    paths = [whole] if whole.is_file() else [Path(part.strip()) for part in parsed.path.split(",")]
    for path in paths:
        if not path.is_file():
            hint = f" (a checkpoint path may end in {SUFFIX_HELP})" if "+" in str(path) else ""
            raise FileNotFoundError(f"checkpoint not found: {path}{hint}")
    if parsed.race and game != "backgammon":
        raise ValueError(f"+race is for backgammon checkpoints, not {game}")
    if len(paths) > 1:
        if parsed.race:
            raise ValueError("+race is for one checkpoint, not an ensemble of several")
        player = load_mean_player(paths, game=game, device=device, exact_endgames=parsed.exact)
    else:
        player = load_player(paths[0], game=game, device=device, exact_endgames=parsed.exact, race=parsed.race)
    if parsed.plies:
        player = LookaheadPlayer(player.net, parsed.plies, device=device, name=player.name)
    player.name += parsed.suffix
    return player


ENDGAME_SUFFIXES = {True: "+exact", False: "+noexact"}
"""Checkpoint spec suffixes: bear-off positions from the databases (+exact) or from the network
(+noexact) whatever model/net/evaluator.py's EXACT_ENDGAMES default says."""
MAX_SPEC_PLIES = 2
"""The deepest look-ahead a spec may ask for (+2ply), as hint's --ply."""
SUFFIX_HELP = "+exact, +noexact, +0ply, +1ply, +2ply, +race"
_PLY = re.compile(r"(\d+)ply")


@dataclass(frozen=True)
class CheckpointSpec:
    """A checkpoint spec read: the path, the bear-off choice (None: the default), the look-ahead
    depth (None: not given, which plays at 0-ply) and whether races go to the race net."""

    path: str
    exact: bool | None = None
    plies: int | None = None
    race: bool = False

    @property
    def suffix(self) -> str:
        """The suffixes given, in one order (+exact/+noexact, +race, +Nply): what a player's name ends in."""
        return (ENDGAME_SUFFIXES.get(self.exact, "") + ("+race" if self.race else "")
                + ("" if self.plies is None else f"+{self.plies}ply"))


def parse_checkpoint_spec(spec: str) -> CheckpointSpec:
    """The one reader of checkpoint specs: "path", "path+exact", "path+2ply+noexact"... Suffixes are
    read from the end, case-insensitive, in any order; whatever precedes the last known one is the
    path (which may hold a "+" of its own). ValueError for a suffix given twice, +exact with
    +noexact, or a look-ahead deeper than MAX_SPEC_PLIES."""
    path, exact, plies, race = spec, None, None, False
    while "+" in path:
        head, token = path.rsplit("+", 1)
        token = token.strip().lower()
        if token in ("exact", "noexact"):
            if exact is not None:
                raise ValueError("+exact and +noexact together: give one of them")
            exact = token == "exact"
        elif _PLY.fullmatch(token):
            if plies is not None:
                raise ValueError("the look-ahead given twice: give one +Nply")
            plies = int(_PLY.fullmatch(token).group(1))
            if plies > MAX_SPEC_PLIES:
                raise ValueError(f"look-ahead +{plies}ply: give +0ply, +1ply or +{MAX_SPEC_PLIES}ply")
        elif token == "race":
            if race:
                raise ValueError("+race given twice")
            race = True
        else:
            break
        path = head
    return CheckpointSpec(path, exact, plies, race)


def _looks_like_path(spec: str) -> bool:
    """A spec that names a file: has a folder part or a file suffix (e.g. ``last.pt``)."""
    path = Path(spec)
    return bool(path.suffix) or len(path.parts) > 1 or path.exists()
