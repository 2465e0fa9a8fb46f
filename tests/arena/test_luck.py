"""Luck-adjusted duels (model/arena/luck.py): the luck of a throw has mean zero over the rolls, a
game's luck is A's throws less B's with the opening left out, and the adjustment narrows the interval."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from model.arena.cubeless import play_games
from model.arena.luck import game_luck, roll_luck
from model.players.registry import make_player

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = {game: ROOT / "checkpoints" / f"{game}.safetensors" for game in ("backgammon", "nardi")}


def positions_from_games(game: str, n: int, seed: int = 5) -> np.ndarray:
    """Some positions (mover's frame, before the throw) from heuristic self-play, past the opening."""
    result = play_games(make_player("heuristic", game, seed=1), make_player("heuristic", game, seed=2), 4,
                        seed=seed, record_plays=True)
    before = np.concatenate([plays[1][1:] for plays in result.plays])
    return before[np.random.default_rng(seed).choice(len(before), n, replace=False)]


@pytest.mark.parametrize("game, prune", [("backgammon", 0), ("backgammon", 8), ("nardi", 0)])
def test_the_luck_of_a_throw_has_mean_zero_over_the_rolls(game, prune):
    """Each position thrown every one of the 21 rolls: the rolls' lucks, weighted by their chances, sum
    to zero; a roll better than average for the mover is lucky, and the rolls are mostly not all alike."""
    judge = make_player(str(SHIPPED[game]), game).net
    positions = positions_from_games(game, 12)
    both = np.repeat(positions, len(ALL_ROLLS), axis=0)
    luck = roll_luck(judge, both, np.tile(ALL_ROLLS, (len(positions), 1)), prune).reshape(len(positions), -1)
    assert np.allclose(luck @ ROLL_WEIGHTS, 0.0, atol=1e-6)  # float32 nets
    spread = luck.max(axis=1) - luck.min(axis=1)  # 0 only where every roll does as well (one checker left)
    assert (spread > 1e-4).mean() > 0.5 and luck.max() > 0.05 and luck.min() < -0.05


def test_a_games_luck_is_as_throws_less_bs_without_the_opening():
    """game_luck adds each turn's roll_luck with A's sign (+ where A threw, - where B did), from the
    second turn of each game on."""
    judge = make_player(str(SHIPPED["backgammon"]), "backgammon").net
    result = play_games(make_player("pubeval", "backgammon"), make_player("heuristic", "backgammon", seed=3), 6,
                        seed=11, record_plays=True)
    luck = game_luck(judge, result.plays, prune=8)
    for number, (a_moved, before, _after, dice) in enumerate(result.plays):
        each = roll_luck(judge, before[1:], dice[1:], prune=8)
        assert luck[number] == pytest.approx(float(np.sum(np.where(a_moved[1:], each, -each))))
    assert luck.shape == (6,) and np.abs(luck).min() > 0


def test_the_adjusted_result_keeps_the_mean_and_narrows_the_interval():
    """The shipped net against pubeval over 200 games: the luck-adjusted figure lies inside the raw
    interval, and its interval is under half as wide (the mirrored pairs' luck taken out)."""
    net = str(SHIPPED["backgammon"])
    result = play_games(make_player(net, "backgammon"), make_player("pubeval", "backgammon"), 200, seed=4,
                        record_plays=True)
    assert result.luck_adjusted() is None and "luck_adjusted" not in result.summary()
    result.luck, result.luck_judge = game_luck(make_player(net, "backgammon").net, result.plays), net
    adjusted = result.summary()["luck_adjusted"]
    assert adjusted["judge"] == net
    assert abs(adjusted["ppg"] - result.ppg) < result.ci95
    assert adjusted["ppg"] == pytest.approx(result.ppg - adjusted["a_luck_per_game"])
    assert adjusted["ci95"] < 0.5 * result.ci95
