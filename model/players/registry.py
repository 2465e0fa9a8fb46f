"""Every player behind one name: the baselines by name, trained networks by checkpoint path.

    make_player("heuristic", "nardi")            the seed's one-look heuristic
    make_player("gnubg-1ply", "backgammon")      GNU Backgammon's nets (optional gnubg-nn package)
    make_player("runs/bg/last.pt", "backgammon") a trained network from a checkpoint
    make_player("runs/bg/last.pt+exact", ...)    the same, bear-offs from the databases (+noexact: never)

Baselines: random, heuristic, heuristic-easy (both games); pubeval, gnubg (= gnubg-0ply), gnubg-0ply,
gnubg-1ply, gnubg-2ply (backgammon only).
"""

from __future__ import annotations

from pathlib import Path

from engine.board import check_game

from model.players.heuristic import HeuristicPlayer
from model.players.base import Player, RandomPlayer


def _gnubg(ply: int):
    def make(game: str, seed: int | None) -> Player:
        from model.players.gnubg import GnubgPlayer  # lazy: gnubg-nn is an optional extra

        return GnubgPlayer(game, ply=ply)

    return make


def _pubeval(game: str, seed: int | None) -> Player:
    from model.players.pubeval import PubevalPlayer

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
    """A player from a baseline name or a checkpoint path.

    Raises ValueError for an unknown name, a baseline that does not play ``game`` or a bad
    checkpoint, FileNotFoundError for a path that does not exist, ImportError (GnubgUnavailable)
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
    spec, exact = split_endgame_suffix(spec)
    if not _looks_like_path(spec):
        raise ValueError(f"unknown player {spec!r}: give a checkpoint path or one of {', '.join(BASELINES)}")
    path = Path(spec)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint not found: {spec}")
    from model.net.checkpoint import load_player  # lazy: needs torch and the network code

    player = load_player(path, game=game, device=device, exact_endgames=exact)
    if exact is not None:
        player.name += ENDGAME_SUFFIXES[exact]
    return player


ENDGAME_SUFFIXES = {True: "+exact", False: "+noexact"}
"""Checkpoint spec suffixes: bear-off positions from the databases (+exact) or from the network
(+noexact) whatever model/net/evaluator.py's EXACT_ENDGAMES default says."""


def split_endgame_suffix(spec: str) -> tuple[str, bool | None]:
    """("path", True/False) for "path+exact" / "path+noexact", ("path", None) without a suffix."""
    for exact, suffix in ENDGAME_SUFFIXES.items():
        if spec.lower().endswith(suffix):
            return spec[: -len(suffix)], exact
    return spec, None


def _looks_like_path(spec: str) -> bool:
    """A spec that names a file: has a folder part or a file suffix (e.g. ``last.pt``)."""
    path = Path(spec)
    return bool(path.suffix) or len(path.parts) > 1 or path.exists()
