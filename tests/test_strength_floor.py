"""A strength floor for each shipped net (checkpoints/), so that a clearly weaker net cannot ship green.

Each floor is set well below what the shipped net measures, so that a net of about its strength passes
whatever its luck on these fixed dice, and one clearly weaker fails:

- backgammon.safetensors, cubeless against pubeval over 2,000 mirrored games (seed 1): +0.648 +- 0.053
  here, +0.629 +- 0.024 over 10,000 in checkpoints/README.md; the floor +0.45 fails the README's
  two-minute net (+0.36). Raw points, not luck-adjusted ones: judging the luck of 300 games took longer
  here (20 s) than playing 2,000 (13 s) for the same interval.
- its checker play on the stored benchmark (benchmarks/backgammon-checker-play.npz, every play judged by
  gnubg 2-ply when the file was made; the few picks it did not judge estimated from gnubg 0-ply, so
  gnubg-nn is not needed): error rate 2.6 +- 0.33; the ceiling 4.0 fails the first shipped net, plain
  TD (L0: 8.5; pubeval 29.1).
- backgammon-race.safetensors, which plays the races of ``backgammon.safetensors+race``: the same
  benchmark's races, error rate 3.7 +- 0.8; the ceiling 6.0 stays below pubeval's 8.3.
- nardi.safetensors against the heuristic over 600 mirrored games (seed 1): +1.383 +- 0.060 here,
  +1.345 +- 0.025 over 4,000 in checkpoints/README.md; the floor +1.2 fails the run that became it at
  58,812 games (+1.137).
"""

from __future__ import annotations

from model.arena.benchmark import choose, error_rates, load_benchmark, losses
from model.arena.cubeless import play_games
from model.players.registry import make_player
from tests.helpers import ROOT

NETS = ROOT / "checkpoints"
BACKGAMMON, NARDI = str(NETS / "backgammon.safetensors"), str(NETS / "nardi.safetensors")
RACE = f"{BACKGAMMON}+race"


def duel(player, opponent: str, games: int) -> float:
    """``player``'s points per game against the baseline ``opponent`` over ``games`` mirrored cubeless
    games (seed 1)."""
    result = play_games(player, make_player(opponent, player.game, seed=1), games, seed=1)
    print(f"{player.name} against {opponent}: {result.ppg:+.3f} +- {result.ci95:.3f} over {games} games")
    assert result.capped.sum() == 0
    return result.ppg


def benchmark_error_rates(player) -> dict[str, float]:
    """{class or "overall": error rate} of ``player``'s checker play on the stored benchmark."""
    bench = load_benchmark()
    rates = error_rates(bench, losses(bench, choose(player, bench)).loss)
    print(player.name, {name: f"{r['er']:.2f} +- {r['ci95']:.2f}" for name, r in rates.items()})
    return {name: r["er"] for name, r in rates.items()}


def test_the_backgammon_net_beats_pubeval_by_a_margin():
    assert duel(make_player(BACKGAMMON, "backgammon"), "pubeval", 2000) > 0.45


def test_the_backgammon_nets_checker_play_loses_little_by_gnubgs_judgment():
    assert benchmark_error_rates(make_player(BACKGAMMON, "backgammon"))["overall"] < 4.0


def test_the_race_net_plays_races_well_enough():
    assert benchmark_error_rates(make_player(RACE, "backgammon"))["race"] < 6.0


def test_the_nardi_net_beats_the_heuristic_by_a_margin():
    assert duel(make_player(NARDI, "nardi"), "heuristic", 600) > 1.2
