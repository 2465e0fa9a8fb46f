"""The race net: feature version 4 (race inputs), the RaceSplit wrapper and the +race player spec."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.board import has_contact, start_position
from engine.tools.sample import random_positions
from model.net.bearoff import bearoff_mask
from model.net.checkpoint import CheckpointError, save
from model.net.contact_inputs import race_inputs
from model.net.evaluator import Evaluator, ExactEndgames
from model.net.features import RACE_VERSION, encode, num_features
from model.net.network import NetConfig, OutcomeNet
from model.net.race import RaceSplit, load_race_net
from model.net.table_forward import TableForward
from model.players.net_player import load_player
from model.players.registry import make_player, parse_checkpoint_spec
from tests.net.test_contact_inputs import position


def nets(seed: int = 0) -> tuple[OutcomeNet, OutcomeNet]:
    torch.manual_seed(seed)
    return (OutcomeNet(NetConfig("backgammon", (8,))).eval(),
            OutcomeNet(NetConfig("backgammon", (8,), feature_version=RACE_VERSION)).eval())


def test_feature_version_4_is_the_race_inputs_on_a_hand_position():
    """5 off each, the mover's 8-point holding 3 (units 0 0 1 0), crossovers and pips by hand."""
    pos = position({14: 2, 8: 3, 3: 5}, {20: 4, 22: 6})
    x = encode("backgammon", pos[None], RACE_VERSION)
    assert x.shape == (1, 216) == (1, num_features("backgammon", RACE_VERSION)) and x.dtype == np.float32
    np.testing.assert_array_equal(x, race_inputs(pos[None]))
    row = x[0]
    np.testing.assert_allclose(row[7 * 4:8 * 4], [0, 0, 1, 0])
    assert row[92:106].tolist() == [0, 0, 0, 0, 1] + [0] * 9  # 5 off
    assert row[106] == pytest.approx((2 * 2 + 3 * 1) / 10) and row[107] == pytest.approx(0.67)
    # the opponent's half in its own numbers: 4 on its 5-point, 6 on its 3-point, 5 off, 4*5+6*3 pips
    np.testing.assert_allclose(row[108 + 4 * 4:108 + 5 * 4], [0, 0, 1, 0.5])
    assert row[108 + 92:108 + 106].tolist() == [0, 0, 0, 0, 1] + [0] * 9
    assert row[108 + 107] == pytest.approx(0.38)


def test_the_actors_table_forward_pass_equals_the_race_nets_own():
    _, race = nets(1)
    positions, _ = random_positions("backgammon", 200, seed=3, kind="race")
    np.testing.assert_allclose(TableForward(race).probabilities(positions), race.probabilities(positions),
                               atol=2e-6)


def test_races_go_to_the_race_net_and_the_rest_to_the_main_net():
    main, race = nets(2)
    races, _ = random_positions("backgammon", 60, seed=4, kind="race")
    mixed = np.concatenate([start_position("backgammon", 1), races[:30],
                            random_positions("backgammon", 40, seed=5)[0], races[30:]])
    is_race = ~has_contact("backgammon", mixed)
    assert 60 <= is_race.sum() < len(mixed)
    split = RaceSplit(main, race)
    assert isinstance(split, Evaluator)
    got = split.probabilities(mixed)
    np.testing.assert_allclose(got[is_race], race.probabilities(mixed[is_race]), atol=1e-12)
    np.testing.assert_allclose(got[~is_race], main.probabilities(mixed[~is_race]), atol=1e-12)
    assert not np.allclose(got[is_race], main.probabilities(mixed[is_race]))
    # composed with the databases: bear-offs exact, other races from the race net
    exact = ExactEndgames(RaceSplit(main, race))
    bear = position({6: 5, 3: 5}, {20: 4, 22: 6})
    both = exact.probabilities(np.stack([bear, races[0]]))
    np.testing.assert_allclose(both[0], ExactEndgames(main).probabilities(bear[None])[0])
    np.testing.assert_allclose(both[1], race.probabilities(races[:1])[0], atol=1e-12)


def test_a_race_net_must_have_the_race_inputs():
    main, race = nets(3)
    with pytest.raises(ValueError, match="feature version 4"):
        RaceSplit(main, main)
    with pytest.raises(ValueError, match="backgammon only"):
        RaceSplit(OutcomeNet(NetConfig("nardi", (8,))), race)


def test_the_race_spec_plays_through_the_race_net(tmp_path, monkeypatch):
    main, race = nets(4)
    save(tmp_path / "main.safetensors", main)
    save(tmp_path / "race.safetensors", race)
    spec = parse_checkpoint_spec(f"{tmp_path}/main.safetensors+race+noexact")
    assert (spec.race, spec.exact, spec.suffix) == (True, False, "+noexact+race")
    with pytest.raises(ValueError, match="twice"):
        parse_checkpoint_spec("a.pt+race+race")
    monkeypatch.setattr("model.net.race.RACE_NET", tmp_path / "race.safetensors")
    player = make_player(f"{tmp_path}/main.safetensors+race", "backgammon")
    assert player.name == "main+race"
    races, _ = random_positions("backgammon", 40, seed=6, kind="race")
    races = races[~bearoff_mask("backgammon", races)]  # those go to the databases (+exact, the default)
    assert len(races) >= 10
    np.testing.assert_allclose(player.net.probabilities(races), race.probabilities(races), atol=1e-6)
    with pytest.raises(CheckpointError, match="not a race net"):
        load_player(tmp_path / "main.safetensors", race=tmp_path / "main.safetensors")
    with pytest.raises(CheckpointError, match="not a race net"):
        load_race_net(tmp_path / "main.safetensors")
