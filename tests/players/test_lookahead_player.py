"""Checkpoint specs with look-ahead (model/players/registry.py parse_checkpoint_spec) and the player
they make (model/players/lookahead_player.py): its picks are hint's N-ply top plays, batched or not, and
Bot.load and the cube players take the same specs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.board import start_position
from engine.formats.position import write_json_position
from engine.movegen import legal_plays
from engine.tools.sample import random_positions
from model import Bot
from model.arena.cubeless import play_games
from model.players.cube_players import make_cube_player
from model.players.lookahead_player import LookaheadPlayer
from model.players.net_player import NetPlayer
from model.players.registry import CheckpointSpec, make_player, parse_checkpoint_spec
from nardibot.cli import cmd_hint as hint
from tests.helpers import save_tiny_checkpoints


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """A tiny untrained network per game (hidden 16): its values differ from play to play."""
    return save_tiny_checkpoints(tmp_path_factory.mktemp("lookahead"), hidden=(16,), seed=3)


@pytest.mark.parametrize("spec, parsed", [
    ("a.pt", CheckpointSpec("a.pt")),
    ("a.pt+exact", CheckpointSpec("a.pt", exact=True)),
    ("a.pt+2ply", CheckpointSpec("a.pt", plies=2)),
    ("a.pt+1PLY+noexact", CheckpointSpec("a.pt", exact=False, plies=1)),
    ("a.pt+noexact+1ply", CheckpointSpec("a.pt", exact=False, plies=1)),
    ("a.pt+0ply", CheckpointSpec("a.pt", plies=0)),
    ("runs/a+b/last.pt+2ply", CheckpointSpec("runs/a+b/last.pt", plies=2)),  # a "+" of the path stays
    ("a.pt+1-ply", CheckpointSpec("a.pt+1-ply")),  # not a suffix: part of the path (not found later)
])
def test_the_spec_parser_reads_suffixes_in_any_order(spec, parsed):
    assert parse_checkpoint_spec(spec) == parsed


@pytest.mark.parametrize("spec, message", [
    ("a.pt+3ply", "+3ply: give +0ply, +1ply or +2ply"),
    ("a.pt+1ply+2ply", "look-ahead given twice"),
    ("a.pt+exact+noexact", "+exact and +noexact together"),
    ("a.pt+exact+1ply+exact", "+exact and +noexact together"),
])
def test_the_spec_parser_refuses_bad_suffixes(spec, message):
    with pytest.raises(ValueError, match=message.replace("+", r"\+")):
        parse_checkpoint_spec(spec)


def test_make_player_builds_a_lookahead_player_only_when_asked(nets):
    path = nets["backgammon"]
    deep = make_player(f"{path}+noexact+2ply", "backgammon")
    assert isinstance(deep, LookaheadPlayer) and deep.plies == 2 and deep.policy.plies == 2
    assert deep.name == "backgammon+noexact+2ply" and deep.policy.checker == "cubeless"
    plain = make_player(f"{path}+0ply", "backgammon")
    assert type(plain) is NetPlayer and plain.name == "backgammon+0ply"
    assert type(make_player(str(path), "backgammon")) is NetPlayer
    assert make_cube_player(f"{path}+2ply", "backgammon").policy.plies == 2  # the cube arena looks ahead too
    with pytest.raises(ValueError, match="for checkpoints, not the baseline pubeval"):
        make_player("pubeval+1ply", "backgammon")
    with pytest.raises(FileNotFoundError, match="may end in"):
        make_player(f"{path}+1-ply", "backgammon")


def hint_top(capsys, nets, game, position, dice, ply) -> dict:
    """hint's top play (JSON position) at ``ply``, asked as a person asks (nardibot.cli.cmd_hint.main)."""
    code = hint.main([json.dumps(write_json_position(position)), "--dice", f"{dice[0]}{dice[1]}",
                      "--bot", str(nets[game]), "--game", game, "--ply", str(ply), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["plays"][0]["position"]


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_a_one_ply_player_picks_hints_one_ply_top_play(capsys, nets, game):
    """On a handful of positions, the +1ply player's pick is hint --ply 1's first play (hint ranks a
    money game cubefully, so the backgammon positions are ones where that agrees with the cubeless
    pick; nardi has no cube), and on at least one the 0-ply player picks another play: the test
    would notice a player that did not look ahead."""
    positions, dice = random_positions(game, 6, seed=11)
    positions = np.concatenate([start_position(game, 1), positions])
    dice = np.concatenate([[[6, 4]], dice])
    deep, flat = make_player(f"{nets[game]}+1ply", game), make_player(str(nets[game]), game)
    bot = Bot.load(f"{nets[game]}+1ply", game=game)
    children, parent = legal_plays(game, positions, dice)
    picked = children[deep.select(positions, dice, children, parent)]
    differs = 0
    for k in range(len(positions)):
        top = hint_top(capsys, nets, game, positions[k], dice[k], 1)
        assert write_json_position(picked[k]) == top, k
        assert bot.choose(write_json_position(positions[k]), [int(d) for d in dice[k]])["position"] == top, k
        zero = flat.choose(positions[k], dice[k])[0]
        differs += not np.array_equal(zero, picked[k])
    assert differs >= 1


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_a_batch_picks_what_each_game_alone_picks(nets, game):
    """One select for many games (one with no legal play among them) equals one select per game."""
    positions, dice = random_positions(game, 5, seed=5)
    if game == "backgammon":  # on the bar against a closed board: no play
        closed = np.zeros(28, dtype=np.int8)
        closed[18:24], closed[5], closed[24], closed[27] = -2, 14, 1, 3  # mover: bar 24, opponent: off 27
        positions, dice = np.concatenate([positions, closed[None]]), np.concatenate([dice, [[3, 5]]])
    player = make_player(f"{nets[game]}+1ply", game)
    together = player.choose(positions, dice)
    alone = np.stack([player.choose(positions[k], dice[k])[0] for k in range(len(positions))])
    np.testing.assert_array_equal(together, alone)


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_lookahead_players_play_whole_games(nets, game):
    """+1ply against the same net at 0-ply: games finish with a result through the arena."""
    a = make_player(f"{nets[game]}+1ply", game)
    b = make_player(str(nets[game]), game)
    result = play_games(a, b, 2, seed=1, batch=2)
    assert result.games == 2 and not result.capped.any() and np.all(np.abs(result.points) >= 1)
    assert result.names == (f"{game}+1ply", game)


def test_a_pruned_player_values_its_plays_as_the_pruned_search():
    """``LookaheadPlayer(..., prune=K)`` (scripts/prune_agreement.py --benchmark plays it): the plays it
    looks at are valued by the 2-ply search with each roll's inner play among pubeval's K best, as
    ``hint --prune K`` values them, which differs from the full search's values."""
    from model.search.lookahead import child_probabilities_ahead

    bot = Bot.load()  # the shipped net: pubeval's pruning changes its 2-ply values
    positions, dice = random_positions("backgammon", 1, seed=5, kind="midgame")
    children, parent = legal_plays("backgammon", positions, dice)
    values = {}
    for k in (0, 8):
        player = LookaheadPlayer(bot.net, 2, prune=k)
        _, probs, depth = player.rank(children, parent, 1)
        looked = depth == 2
        assert looked.sum() >= 2
        np.testing.assert_allclose(probs[looked], child_probabilities_ahead(bot.net, children[looked], 2, prune=k),
                                   atol=1e-12)
        values[k] = probs[looked]
    assert not np.allclose(values[0], values[8])
