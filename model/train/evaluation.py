"""Strength checks during training: the current network against the baselines (mirrored dice), and
its checker-play error rates on the stored benchmark."""

from __future__ import annotations

from model.arena.benchmark import load_benchmark, score
from model.arena.cubeless import play_games
from model.players.net_player import NetPlayer
from model.players.registry import make_player

BASELINES = {"backgammon": ("pubeval", "random"), "nardi": ("heuristic", "random")}


def strength_check(net, game: str, games: int, seed: int):
    """[(opponent, points per game, 95% half-width)] for the net against each baseline of ``game``."""
    me = NetPlayer(net, name="training")
    out = []
    for name in BASELINES[game]:
        result = play_games(me, make_player(name, game, seed=seed), games, seed=seed)
        out.append((name, result.ppg, result.ci95))
    return out


def benchmark_check(net, path=None, device="cpu") -> dict:
    """The net's 0-ply checker-play error rates on the benchmark (model/arena/benchmark.py), backgammon
    only: {class or "overall": (ER, 95% half-width)} and {"estimated": picks not judged in the file}.

    No gnubg runs here: a pick the file has no 2-ply equity for is estimated from gnubg 0-ply's stored
    equity, so the check takes seconds and needs no gnubg-nn. A measurement only: nothing of it may
    enter training (it may choose which snapshot to keep). ``device``: where the net's weights are."""
    result = score(NetPlayer(net, device=device, name="training"), load_benchmark(path))
    rates = {name: (r["er"], r["ci95"]) for name, r in result["error_rates"].items()}
    return {**rates, "estimated": result["estimated"]}
