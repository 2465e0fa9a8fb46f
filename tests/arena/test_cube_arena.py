"""Full games with the cube and full matches: every cube action checked against the rules, scores that
add up, mirrored matches, nardi matches without a cube, and the network's cube policy."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from engine import game as g
from engine.board import start_position
from engine.formats.matfile import DROP, format_mat, read_mat
from engine.match import MAX_CUBE
from model.arena.cubeful import mat_records, play_matches, wilson_interval
from model.net.config import NetConfig
from model.net.inference import NumpyNet
from model.players.cube_players import NetCubePlayer, NoCubePlayer, RandomCubePlayer, make_cube_player
from model.players.heuristic import HeuristicPlayer
from tests.helpers import GNUBG, gnubg_import, replay


class AuditedPlayer(RandomCubePlayer):
    """A random cube player that checks, whenever it is asked to double, that the rules allow it:
    backgammon, a cube, not a one-point match, not the Crawford game, the cube centred or its own, no
    double past 64, and not a side whose cube value already wins it the match."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked = 0

    def doubles(self, states):
        for s in states:
            check_double_allowed(s)
        self.asked += len(states)
        return super().doubles(states)


def check_double_allowed(s: g.GameState) -> None:
    """The rules of the cube, stated on their own (not through engine.game's predicates)."""
    rules, match = s.rules, s.match
    assert s.phase is g.Phase.ROLL and rules.game == "backgammon" and rules.cube
    assert rules.match_length != 1, "a one-point match has no cube"
    assert s.cube_owner in (None, s.mover), "only the cube's owner (or either side, centred) doubles"
    assert 2 * s.cube <= MAX_CUBE, "the cube goes no higher than 64"
    if rules.match_length:
        score = match.score
        crawford = max(score) == rules.match_length - 1 and not match.crawford_played
        assert not crawford, "no doubling in the Crawford game"
        assert score[s.mover] + s.cube < rules.match_length, "a dead cube: its value already wins the match"


class ActionLog:
    """on_action hook: keeps (match, action, state before) and checks each action against the rules."""

    def __init__(self):
        self.actions = []

    def __call__(self, match_index, state, action):
        self.actions.append((match_index, action, state))
        if action == "double":
            check_double_allowed(state)
        elif action in ("take", "drop", "beaver"):
            assert state.phase is g.Phase.TAKE
        if action == "beaver":
            assert state.rules.money and state.rules.beavers, "beavers only in money play with the option"
            assert 4 * state.cube <= MAX_CUBE

    def count(self, action):
        return sum(a == action for _, a, _ in self.actions)


def replay_scores(final: g.MatchState) -> list[tuple[int, int]]:
    """The score before each game of a finished match, recomputed from its results; checks they add up."""
    length, score, before = final.rules.match_length, [0, 0], []
    for result in final.results:
        assert max(score) < length, "no game after the match was won"
        before.append(tuple(score))
        assert result.points == result.level * result.cube or (result.how == "dropped"
                                                              and result.points == result.cube)
        score[result.winner] += result.points
    assert tuple(score) == final.score and max(score) >= length > min(score)
    return before


@pytest.mark.parametrize("length", [1, 3, 5, 7])
def test_random_matches_keep_the_cube_rules_and_their_scores_add_up(length):
    """Random cube players play matches to the end: each double allowed, Crawford games cubeless,
    one-point matches without a cube, scores the sum of the games' points, A's results as recorded."""
    a = AuditedPlayer("backgammon", seed=1, double_rate=0.6, drop_rate=0.3, beaver_rate=0.3)
    b = AuditedPlayer("backgammon", seed=2, double_rate=0.6, drop_rate=0.3, beaver_rate=0.3)
    log = ActionLog()
    result = play_matches(a, b, g.Rules(match_length=length), matches=16, seed=length, batch=5, on_action=log)
    crawford_games = 0
    for m, final in enumerate(result.finals):
        before = replay_scores(final)
        for score, game_result in zip(before, final.results):
            if length > 1 and max(score) == length - 1 and score == next(
                    s for s in before if max(s) == length - 1):
                crawford_games += 1
                assert game_result.cube == 1 and game_result.how == "played"
            if length == 1:
                assert game_result.cube == 1
        a_side = m % 2
        assert result.a_points[m] == final.score[a_side] - final.score[1 - a_side]
        assert result.a_won[m] == float(final.winner == a_side)
    assert log.count("beaver") == 0 and result.games.sum() == len(result.cubes)
    if length == 1:
        assert a.asked + b.asked == 0 and not log.actions and (result.games == 1).all()
    else:
        assert log.count("double") > 10 and log.count("drop") > 0 and crawford_games > 0
        assert log.count("double") == log.count("take") + log.count("drop")


def test_money_games_reach_the_64_cube_and_stop_there():
    """Money with beavers: reckless doublers push the cube to 64, never past; beavers only while
    the cube can go four times higher; each game's points are its level times the cube."""
    a = AuditedPlayer("backgammon", seed=3, double_rate=1.0, drop_rate=0.0, beaver_rate=0.5)
    b = AuditedPlayer("backgammon", seed=4, double_rate=1.0, drop_rate=0.0, beaver_rate=0.5)
    log = ActionLog()
    result = play_matches(a, b, g.Rules(beavers=True), matches=12, seed=7, batch=12, on_action=log)
    assert result.cubes.max() == MAX_CUBE and log.count("beaver") > 0
    for m, final in enumerate(result.finals):
        (game,) = final.results
        sign = 1 if game.winner == m % 2 else -1
        assert result.a_points[m] == sign * game.level * game.cube
    assert result.summary()["actions"]["a_beaver"] + result.summary()["actions"]["b_beaver"] == log.count("beaver")


class Beaverer(RandomCubePlayer):
    """Answers every double with a beaver, whatever the rules say."""

    def answers(self, states):
        return ["beaver"] * len(states)


def test_the_runner_refuses_what_the_rules_refuse():
    """A player that beavers in a match (or without the option) is stopped by engine.game's RuleError."""
    doubler = RandomCubePlayer("backgammon", seed=1, double_rate=1.0)
    for rules in (g.Rules(match_length=5), g.Rules()):
        with pytest.raises(g.RuleError, match="beaver"):
            play_matches(doubler, Beaverer("backgammon", seed=2), rules, matches=2)


@pytest.mark.parametrize("length", [3, 7])
def test_nardi_matches_add_points_with_no_cube(length):
    """Long nardi: no cube action is ever asked or taken; wins score 1 and mars 2, added to the length."""
    eager = AuditedPlayer("nardi", seed=5, double_rate=1.0)
    log = ActionLog()
    result = play_matches(eager, NoCubePlayer(HeuristicPlayer("nardi")), g.Rules(game="nardi", match_length=length),
                          matches=4, seed=2, batch=4, on_action=log)
    assert eager.asked == 0 and not log.actions and (result.cubes == 1).all()
    for final in result.finals:
        replay_scores(final)
        assert {r.points for r in final.results} <= {1, 2}
    assert check_summary(result)["a_win_rate"] < 0.5  # random play loses to the heuristic


@pytest.mark.parametrize("rules", [g.Rules(), g.Rules(match_length=3)])
def test_mirrored_matches_replay_the_same_dice_with_seats_swapped(rules):
    """Two copies of one deterministic player: match 2k+1 is match 2k with the seats swapped, so A's
    results cancel within each pair; and the batch size changes nothing."""
    def player():
        return NoCubePlayer(HeuristicPlayer("backgammon"))

    one = play_matches(player(), player(), rules, matches=6, seed=3, batch=6)
    np.testing.assert_array_equal(one.a_points[0::2], -one.a_points[1::2])
    np.testing.assert_array_equal(one.a_won[0::2] + one.a_won[1::2], np.ones(3))
    other = play_matches(player(), player(), rules, matches=6, seed=3, batch=4)
    np.testing.assert_array_equal(one.a_points, other.a_points)
    assert not (one.a_points == 0).all()


# -- the network's cube policy ------------------------------------------------------------------


class StubNet:
    """A "network" that gives fixed probabilities to every position, or a function of the position."""

    def __init__(self, probs=None, function=None):
        self.config = NetConfig(game="backgammon")
        self.probs, self.function = probs, function

    def eval(self):
        return self

    def probabilities(self, positions, device=None):
        if self.function is not None:
            return np.array([self.function(p) for p in positions], dtype=np.float64)
        return np.tile(np.asarray(self.probs, dtype=np.float64), (len(positions), 1))


def on_roll(rules=None, position=None, mover=0, **match_fields):
    """A game state with ``mover`` on roll in ``position`` (the start by default)."""
    match = g.MatchState(rules=rules or g.Rules(), **match_fields)
    return g.resume_game(match, start_position("backgammon") if position is None else position, mover)


@pytest.mark.parametrize("probs, doubles, answer", [
    ([0.50, 0.0, 0.0, 0.0, 0.0], False, "take"),   # an even game: no double, an easy take
    ([0.75, 0.0, 0.0, 0.0, 0.0], True, "take"),    # past the doubling window, short of the cash point
    ([0.85, 0.0, 0.0, 0.0, 0.0], True, "drop"),    # past the cash point (about 80% with a live cube)
    ([0.90, 0.70, 0.0, 0.0, 0.0], False, "drop"),  # too good to double: playing on for the gammon
])
def test_net_cube_player_doubles_and_answers_from_the_probabilities(probs, doubles, answer):
    """Money, centred cube, contact: Janowski's windows with x = 0.68 decide the double and the take."""
    player = NetCubePlayer(StubNet(probs))
    state = on_roll()
    assert player.doubles([state])[0] == doubles
    assert player.answers([g.double(state)]) == [answer]


def test_money_style_ignores_the_score_and_aware_play_does_not():
    """Post-Crawford, 4-away against the 1-away leader, an even game: the trailer doubles at once
    (the leader's cube is worthless to him); money-style keeps the cube, as in a money game."""
    state = on_roll(g.Rules(match_length=5), score=(1, 4), crawford_played=True)
    even = [0.5, 0.12, 0.01, 0.12, 0.01]
    assert NetCubePlayer(StubNet(even), style="aware").doubles([state])[0]
    assert not NetCubePlayer(StubNet(even), style="money").doubles([state])[0]


def race_probabilities(position):
    """A pip-count race model seen by the side on roll: P(win) from the pip lead (plus a roll's worth)."""
    mine = (np.maximum(position[:24], 0) * np.arange(1, 25)).sum()
    theirs = (np.maximum(-position[:24], 0) * np.arange(24, 0, -1)).sum()
    win = 1 / (1 + np.exp(-(theirs - mine + 8) / 6))
    return [win, 0.0, 0.0, 0.0, 0.0]


def crushing_race():
    """Both sides bearing off, no gammon left; the mover (on roll) far ahead:

        mover:    2 checkers on each of its points 1-4 (20 pips), 7 off
        opponent: 3 on each of its points 4, 5, 6 and 1 on its 3 (48 pips), 5 off
    """
    pos = np.zeros(28, dtype=np.int8)
    pos[0:4] = 2
    pos[[20, 19, 18, 21]] = [-3, -3, -3, -1]  # the opponent's point p is the mover's 25 - p
    pos[26], pos[27] = 7, 5
    return pos


def gnubg_net():
    """GNU Backgammon's 0-ply net as a StubNet, or skip the test without the gnubg-nn package."""
    from model.players.gnubg import GnubgUnavailable, import_gnubg, to_gnubg_boards

    try:
        gnubg = import_gnubg()
    except GnubgUnavailable:
        pytest.skip("gnubg-nn is not installed")
    return StubNet(function=lambda p: gnubg.probabilities(to_gnubg_boards(p)[0].tolist(), 0))


@pytest.mark.parametrize("net", ["race model", "gnubg"])
def test_net_cube_player_doubles_a_crushing_race_out(net):
    """The side far ahead doubles and the side behind drops; with the sides swapped nobody doubles.
    The probabilities are read from the right side (a race model, and gnubg's own net)."""
    stub = StubNet(function=race_probabilities) if net == "race model" else gnubg_net()
    player = NetCubePlayer(stub)
    ahead = on_roll(position=crushing_race(), mover=0)
    behind = on_roll(position=g.view(ahead, 1), mover=1)
    assert list(player.doubles([ahead, behind])) == [True, False]
    assert player.answers([g.double(ahead)]) == ["drop"]


def tiny_net(game, seed=0):
    """An untrained one-layer numpy network (no torch)."""
    config = NetConfig(game=game, hidden=(8,))
    rng = np.random.default_rng(seed)
    weights = {"body.0.weight": rng.normal(0, 0.1, (8, config.inputs)).astype(np.float32),
               "body.0.bias": np.zeros(8, np.float32),
               "head.weight": rng.normal(0, 0.1, (config.outputs, 8)).astype(np.float32),
               "head.bias": np.zeros(config.outputs, np.float32)}
    return NumpyNet(config, weights)


def check_summary(result) -> dict:
    """The summary's figures recomputed from the matches' games (engine.game's results, seen from A's
    seat: match m has A in seat m % 2): points, games, points per game and its interval over the
    mirrored pairs, match wins with both intervals, the largest cube. Returns the summary."""
    s = result.summary()
    a_seat = np.arange(len(result.finals)) % 2
    outcomes = [[(r.points if r.winner == a else -r.points, r.cube) for r in final.results]
                for final, a in zip(result.finals, a_seat)]
    points = np.array([sum(p for p, _ in games) for games in outcomes], dtype=float)
    games = np.array([len(games) for games in outcomes])
    np.testing.assert_array_equal(result.a_points, points)
    assert s["games"] == games.sum() and s["max_cube"] == max(c for match in outcomes for _, c in match)
    assert s["ppg"] == pytest.approx(points.sum() / games.sum())
    pairs = (points / games).reshape(-1, 2).mean(axis=1)  # one pair: no interval (nan)
    spread = pairs.std(ddof=1) if len(pairs) > 1 else np.nan
    assert s["ppg_ci95"] == pytest.approx(1.96 * spread / np.sqrt(len(pairs)), nan_ok=True)
    if result.rules.match_length:
        won = np.array([final.winner == a for final, a in zip(result.finals, a_seat)], dtype=float)
        pairs = won.reshape(-1, 2).mean(axis=1)
        spread = pairs.std(ddof=1) if len(pairs) > 1 else np.nan
        assert s["a_match_wins"] == won.sum() and s["a_win_rate"] == pytest.approx(won.mean())
        assert s["a_win_ci95"] == pytest.approx(1.96 * spread / np.sqrt(len(pairs)), nan_ok=True)
        assert (s["a_win_wilson_low"], s["a_win_wilson_high"]) == pytest.approx(wilson_interval(won.sum(), len(won)))
    return s


def test_network_players_play_money_matches_and_nardi_through_the_runner():
    """Tiny nets with the cube (aware, money-style, with resignations) finish money games and 3-point
    matches, and a nardi net finishes a nardi match without a cube; every figure of the summaries is
    what the games add up to."""
    net = tiny_net("backgammon")
    aware = NetCubePlayer(net, name="aware", resign=True)
    money = NetCubePlayer(net, style="money", checker="cubeless", name="money", resign=True)
    result = play_matches(aware, money, g.Rules(match_length=3), matches=4, seed=1, resignations=True)
    assert check_summary(result)["matches"] == 4
    for final in result.finals:
        replay_scores(final)
    result = play_matches(aware, NoCubePlayer(HeuristicPlayer("backgammon")), g.Rules(), matches=4)
    assert check_summary(result)["games"] == 4
    nardi = NetCubePlayer(tiny_net("nardi"))
    result = play_matches(nardi, NoCubePlayer(HeuristicPlayer("nardi")), g.Rules(game="nardi", match_length=3),
                          matches=2)
    s = check_summary(result)
    assert s["games"] >= 4 and s["max_cube"] == 1 and (result.cubes == 1).all()


def test_make_cube_player_policies():
    """Baselines never double unless random; a network policy on a baseline is refused."""
    assert isinstance(make_cube_player("heuristic", "backgammon"), NoCubePlayer)
    assert isinstance(make_cube_player("random", "backgammon", policy="random"), RandomCubePlayer)
    with pytest.raises(ValueError, match="needs a network"):
        make_cube_player("pubeval", "backgammon", policy="net")
    with pytest.raises(ValueError, match="cube policy"):
        make_cube_player("pubeval", "backgammon", policy="sometimes")


def test_wilson_interval():
    """Wilson's interval: 50 of 100 is about 0.404..0.596; it stays within 0..1 at the edges."""
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0 and wilson_interval(10, 10)[1] == pytest.approx(1)


def test_cube_command_plays_writes_json_and_refuses_bad_input(tmp_path, capsys):
    """``evaluate.py cube``: a money run and a match run print their figures and write JSON; bad input
    is one line on stderr and status 2."""
    from nardibot.cli.cmd_cube import main

    out = tmp_path / "cube.json"
    assert main(["random", "heuristic", "--a-cube", "random", "--games", "4", "--json", str(out),
                 "--no-progress"]) == 0
    assert "A points per game (cube included)" in capsys.readouterr().out
    blob = __import__("json").loads(out.read_text())
    assert blob["result"]["games"] == 4 and blob["settings"]["a_cube"] == "random"
    assert main(["heuristic", "random", "--length", "3", "--matches", "2", "--no-progress"]) == 0
    assert "A match wins" in capsys.readouterr().out
    for bad in (["pubeval", "random", "--matches", "3"], ["pubeval", "random", "--length", "3", "--jacoby"],
                ["pubeval", "nowhere.pt"], ["pubeval", "random", "--a-cube", "net"]):
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.startswith("nardibot cube: error:") and err.count("\n") == 1


def test_resignations_end_games_at_the_offered_level():
    """With resignations on, offers and answers go through engine.game (a level past what the game can
    still be lost by would raise): accepted ones end the game as "resigned", rejected ones play on,
    and the match scores still add up."""
    a = RandomCubePlayer("backgammon", seed=8, double_rate=0.2, resign_rate=0.1)
    b = RandomCubePlayer("backgammon", seed=9, double_rate=0.2, resign_rate=0.1)
    log = ActionLog()
    result = play_matches(a, b, g.Rules(match_length=3), matches=8, seed=5, resignations=True, on_action=log)
    assert log.count("accept") > 0 and log.count("reject") > 0
    assert log.count("resign") == log.count("accept") + log.count("reject")
    assert result.endings["resigned"] == log.count("accept")
    for final in result.finals:
        replay_scores(final)


def test_recorded_matches_become_mat_records_with_a_on_the_left():
    """record=True changes no result; mat_records gives a record per match, A as player 0 (seats swapped
    back in odd matches): every game, legal plays, drops, results and scores as the match had them;
    money play gives one session of all the games."""
    def players():
        return (RandomCubePlayer("backgammon", seed=3, double_rate=0.3, resign_rate=0.05),
                RandomCubePlayer("backgammon", seed=4, double_rate=0.3, resign_rate=0.05))

    rules = g.Rules(match_length=3)
    plain = play_matches(*players(), rules, matches=4, seed=2, resignations=True)
    result = play_matches(*players(), rules, matches=4, seed=2, resignations=True, record=True)
    np.testing.assert_array_equal(plain.a_points, result.a_points)
    assert set(result.endings) == {"played", "dropped", "resigned"}  # every way a game ends is recorded
    records = mat_records(result)
    assert len(records) == 4 and read_mat(format_mat(records[1])) == records[1]
    for m, (record, final) in enumerate(zip(records, result.finals)):
        assert record.names == ("A_random-cube", "B_random-cube") and record.match_length == 3
        assert len(record.games) == len(final.results)
        replay(record)
        a_seat = m % 2
        for game, outcome, score in zip(record.games, final.results, replay_scores(final)):
            assert (game.winner, game.points) == (int(outcome.winner != a_seat), outcome.points)
            assert game.scores == (score[a_seat], score[1 - a_seat])
            assert (outcome.how == "dropped") == (game.actions[-1].kind == DROP)
    money = play_matches(*players(), g.Rules(), matches=4, seed=2, record=True)
    [session] = mat_records(money)
    assert session.match_length == 0 and len(session.games) == 4
    assert [game.points for game in session.games] == [r.points for f in money.finals for r in f.results]
    replay(session)
    with pytest.raises(ValueError, match="backgammon only"):
        play_matches(RandomCubePlayer("nardi", seed=1), RandomCubePlayer("nardi", seed=2), g.Rules(game="nardi"),
                     matches=2, record=True)


def test_cube_command_saves_matches_and_money_games_as_mat(tmp_path, capsys):
    """``cube --mat``: a file per match (FILE-1.mat, FILE-2.mat) named after the specs, a money run in one
    file; gnubg imports a match file with the same games (if installed); nardi and bad money options are
    refused."""
    from nardibot.cli.cmd_cube import main

    out = tmp_path / "m.json"
    assert main(["heuristic", "pubeval", "--a-cube", "random", "--length", "3", "--matches", "2", "--seed", "1",
                 "--mat", str(tmp_path / "m.mat"), "--json", str(out), "--no-progress"]) == 0
    records = [read_mat((tmp_path / f"m-{n}.mat").read_text()) for n in (1, 2)]
    assert sorted(p.name for p in tmp_path.glob("*.mat")) == ["m-1.mat", "m-2.mat"]
    assert all(r.names == ("heuristic", "pubeval") and r.match_length == 3 for r in records)
    assert sum(len(r.games) for r in records) == json.loads(out.read_text())["result"]["games"]
    for record in records:
        replay(record)
    assert main(["heuristic", "pubeval", "--games", "4", "--mat", str(tmp_path / "money.mat"),
                 "--no-progress"]) == 0
    assert len(read_mat((tmp_path / "money.mat").read_text()).games) == 4
    for bad in (["heuristic", "random", "--game", "nardi", "--mat", "x.mat"],
                ["heuristic", "random", "--length", "3", "--automatic-doubles", "2"]):
        capsys.readouterr()
        assert main(bad) == 2
        err = capsys.readouterr().err
        assert err.startswith("nardibot cube: error: ") and err.count("\n") == 1
    if os.access(GNUBG, os.X_OK):
        imported = gnubg_import(tmp_path / "m-1.mat", tmp_path)
        assert imported["match-info"]["match-length"] == 3 and len(imported["games"]) == len(records[0].games)
        assert [game["info"]["points-won"] for game in imported["games"]] == [game.points for game in records[0].games]


def test_automatic_doubles_in_the_arena_and_its_mat():
    """Money games with automatic doubles: every game starts at the cube its opening ties give (the same
    in both games of a mirrored pair), never past the limit; the cube command's .mat says the options
    and each such game's starting cube, and beavers are saved too."""
    from engine.dice import opening_with_ties

    rules = g.Rules(automatic_doubles=2, beavers=True, jacoby=True)
    result = play_matches(RandomCubePlayer("backgammon", seed=1, beaver_rate=0.5),
                          RandomCubePlayer("backgammon", seed=2, beaver_rate=0.5), rules, matches=40, seed=3,
                          record=True)
    starts = np.array([games[0].cube for games in result.records])
    _, ties = opening_with_ties(3, np.arange(20) << 32)
    np.testing.assert_array_equal(starts, np.repeat(2 ** np.minimum(ties, 2), 2))
    assert starts.max() == 4 and (starts == 1).any()
    record = mat_records(result)[0]
    assert (record.jacoby, record.beavers, record.automatic_doubles) == (True, True, 2)
    assert any(a.kind == "beaver" for game in record.games for a in game.actions)
    assert read_mat(format_mat(record)) == record
    assert result.summary()["rules"]["automatic_doubles"] == 2
