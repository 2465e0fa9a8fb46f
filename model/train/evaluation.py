"""Strength checks during training: the current network against the baselines, mirrored dice."""

from __future__ import annotations

BASELINES = {"backgammon": ("pubeval", "random"), "nardi": ("heuristic", "random")}


def strength_check(net, game: str, games: int, seed: int):
    """[(opponent, points per game, 95% half-width)] for the net against each baseline of ``game``."""
    from model.arena.cubeless import play_games
    from model.players.net_player import NetPlayer
    from model.players.registry import make_player

    me = NetPlayer(net, name="training")
    out = []
    for name in BASELINES[game]:
        result = play_games(me, make_player(name, game, seed=seed), games, seed=seed)
        out.append((name, result.ppg, result.ci95))
    return out
