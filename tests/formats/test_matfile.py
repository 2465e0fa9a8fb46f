"""Jellyfish .mat match text (engine/formats/matfile.py): gnubg's layout, step notation with hits/bar/off, records
from engine/game.py states, reading gnubg's own export, round trips, and import by the real gnubg 1.07."""

from __future__ import annotations

import numpy as np
import pytest

from engine import game as g
from engine.errors import FormatError
from engine.formats.matfile import (
    BEAVER,
    DOUBLE,
    DROP,
    MOVE,
    TAKE,
    Action,
    GameRecord,
    MatchRecord,
    format_mat,
    game_record,
    mat_play,
    money_session,
    player_names,
    read_mat,
    rules_options,
    swap_sides,
    write_mat,
)
from engine.formats.position import read_json_position
from engine.notation import parse_play
from model.players.registry import make_player
from tests.helpers import gnubg_import, needs_gnubg, replay


def _position(board, bar=(0, 0), off=(0, 0)):
    return read_json_position("backgammon", {"board": board, "bar": list(bar), "off": list(off)})


SMALL = MatchRecord(("bot", "gnubg"), 3, (GameRecord((
    Action(1, MOVE, (3, 1), "8/5 6/5"),
    Action(0, MOVE, (6, 5), "24/18 18/13"),
    Action(1, DOUBLE),
    Action(0, DROP),
), (0, 0), winner=1, points=1),))


def test_small_game_is_written_in_gnubgs_layout():
    """Header, names line, numbered rows (a blank left cell when player 1 opens), cube words, result cell."""
    assert format_mat(SMALL) == (
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " bot : 0                        gnubg : 0\n"
        "  1)                             31: 8/5 6/5\n"
        "  2) 65: 24/18 18/13              Doubles => 2\n"
        "  3)  Drops                      Wins 1 point\n"
    )


def test_result_of_the_left_player_goes_on_its_own_line():
    """A game won by player 0 ends with `Wins N points` in the left column on a line of its own."""
    record = MatchRecord(("a", "b"), 0, (GameRecord((Action(0, MOVE, (6, 6), ""),), (0, 0), 0, 2),))
    text = format_mat(record)
    assert text.endswith("  1) 66:\n      Wins 2 points\n") and text.startswith(" 0 point match\n")
    assert read_mat(text) == record


def test_mat_play_marks_hits_and_numbers_bar_and_off():
    """Steps use 25 for the bar and 0 for off, in a playable order, with `*` where a blot is hit."""
    entering = _position([0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 12],
                         bar=(1, 0), off=(0, 14))
    after = parse_play("backgammon", entering, (3, 1), "bar/22* 22/21")
    assert mat_play(entering, after, (3, 1)) == "25/22* 22/21"
    bearing = _position([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -15], off=(13, 0))
    after = parse_play("backgammon", bearing, (6, 1), "6/off 1/off")
    assert sorted(mat_play(bearing, after, (6, 1)).split()) == ["1/0", "6/0"]


def test_a_long_left_cell_keeps_two_spaces_before_the_right_one():
    """gnubg splits a row at a double space: a left cell over 28 characters is still followed by two."""
    record = MatchRecord(("a", "b"), 5, (GameRecord((
        Action(0, MOVE, (6, 6), "25/19* 19/13* 13/7* 7/1*"), Action(1, DOUBLE), Action(0, TAKE),
    ), (1, 2)),))
    text = format_mat(record)
    assert "  1) 66: 25/19* 19/13* 13/7* 7/1*   Doubles => 2\n" in text
    assert read_mat(text) == record


def test_names_lose_colons_and_spaces():
    """Player names are written as one word without ':' (gnubg's reader splits names at ':')."""
    record = MatchRecord(("Deep Blue: v2", " "), 1, (GameRecord((), (0, 0)),))
    assert " Deep_Blue_v2 : 0" in format_mat(record) and "player : 0" in format_mat(record)


GNUBG_EXPORT = """; [EventDate "2026.11.29"]

 5 point match

 Game 3
 bot : 1                        gnubg : 2
  1) 53: 8/3 6/3                 43: 24/21 13/9 
  2) 54: 13/9 9/4*               42: 25/21* 13/11 
 11) 66:                         21: 12/10 10/9 
 14) 32: 8/6 6/3                  Doubles => 2
 15)  Drops                       Wins 1 point 

 Game 4
 bot : 1                        gnubg : 3
  1) 65: 24/18 18/13             64: 24/18 18/14 
  2)  Doubles => 2                Takes
 19) 64: 4/0 5/0                 
      Wins 2 points
"""


def test_reads_gnubgs_own_export():
    """A piece of gnubg 1.07's `export match mat`: scores, plays, a dance, cube actions, both result layouts."""
    record = read_mat(GNUBG_EXPORT)
    assert record.match_length == 5 and record.names == ("bot", "gnubg")
    third, fourth = record.games
    assert third.scores == (1, 2) and (third.winner, third.points) == (1, 1)
    assert third.actions[3] == Action(1, MOVE, (4, 2), "25/21* 13/11")
    assert third.actions[4] == Action(0, MOVE, (6, 6), "")
    assert [a.kind for a in third.actions[-3:]] == [MOVE, DOUBLE, DROP]
    assert fourth.scores == (1, 3) and (fourth.winner, fourth.points) == (0, 2)
    assert [(a.player, a.kind) for a in fourth.actions[2:4]] == [(0, DOUBLE), (1, TAKE)]


def test_not_a_mat_file():
    """Text without an `N point match` line is refused with one clear error."""
    with pytest.raises(FormatError, match="point match"):
        read_mat("hello\n")


def played_by(player, state):
    """The state after ``player``'s pick among the legal plays of ``state`` (MOVE phase)."""
    pick = player.select(state.position[None], np.array([state.dice]), state.plays,
                         np.zeros(len(state.plays), dtype=np.int64))[0]
    return g.play(state, state.plays[pick])


def _play_match(seed: int, length: int = 5):
    """A match played with engine/game.py (pubeval plays, random doubles/takes/drops, an accepted
    resignation in the second game), as the records ``game_record`` makes of it, and the final match state."""
    rng = np.random.default_rng(seed)
    player = make_player("pubeval", "backgammon")
    match = g.new_match(g.Rules(match_length=length))
    games, resigned = [], False
    while not match.is_over:
        state = g.start_game(match, rng)
        states = [state]
        while not state.is_over:
            if not resigned and len(games) == 1 and state.turns >= 20 and state.phase is g.Phase.ROLL:
                side = state.mover
                state = g.offer_resignation(state, side, g.max_resignation(state, side))
                states.append(state)
                state = g.accept_resignation(state)
                resigned = True
            elif state.phase is g.Phase.ROLL:
                state = g.double(state) if g.may_double(state) and rng.random() < 0.15 else g.roll(state, rng)
            elif state.phase is g.Phase.TAKE:
                state = g.take(state) if rng.random() < 0.6 else g.drop(state)
            else:
                state = played_by(player, state)
            states.append(state)
        games.append(game_record(states))
        match = g.finish_game(match, state)
    return MatchRecord(("bot", "gnubg"), length, tuple(games)), match


def test_records_from_engine_games_round_trip():
    """Records read off engine/game.py states keep every play, cube action and result through the text."""
    record, match = _play_match(seed=4)
    assert {"dropped", "resigned", "played"} <= {r.how for r in match.results}  # every ending is covered
    assert read_mat(format_mat(record)) == record
    assert [(r.winner, r.points) for r in match.results] == [(game.winner, game.points) for game in record.games]
    for game, result in zip(record.games, match.results):
        kinds = [a.kind for a in game.actions]
        assert (result.how == "dropped") == (kinds[-1] == DROP)
        assert kinds.count(DOUBLE) == kinds.count(TAKE) + (result.how == "dropped")


def _beaver_game():
    """A money game with beavers, Jacoby and automatic doubles: one opening tie (cube 2, centred), player
    0's play, player 1's double to 4 and player 0's beaver to 8; then player 1 resigns a single game (8 points)."""
    match = g.new_match(g.Rules(beavers=True, jacoby=True, automatic_doubles=2))
    state = g.start_game(match, throws=[(2, 2), (6, 1)])
    states = [state, g.play(state, state.plays[0])]
    states.append(g.double(states[-1]))
    states.append(g.beaver(states[-1]))
    states.append(g.accept_resignation(g.offer_resignation(states[-1], 1, 1)))
    return states


def test_a_beaver_and_the_money_options_round_trip_and_nardi_has_no_mat_form():
    """A beaver is written 'Beavers => 8' in the beavering side's column; the money options and the
    game's starting cube are comment lines; all of it reads back; long-nardi games are refused."""
    states = _beaver_game()
    game = game_record(states)
    assert [a.kind for a in game.actions] == [MOVE, DOUBLE, BEAVER] and [a.player for a in game.actions] == [0, 1, 0]
    assert (game.cube, game.winner, game.points) == (2, 0, 8)
    record = money_session(("bot", "human"), [game], **rules_options(states[0].rules))
    text = format_mat(record)
    assert text.startswith('; [Jacoby "On"]\n; [Beaver "On"]\n; [AutomaticDoubles "2"]\n\n 0 point match')
    assert '; [Cube "2"]' in text and "Doubles => 4" in text and "Beavers => 8" in text
    assert read_mat(text) == record
    assert rules_options(g.Rules(match_length=5)) == {}
    assert format_mat(MatchRecord(("a", "b"), 5, ())).startswith(" 5 point match")  # a match says no options
    nardi = g.start_game(g.new_match(g.Rules(game="nardi")), throws=[(6, 1)])
    with pytest.raises(ValueError, match="backgammon only"):
        game_record([nardi])


@needs_gnubg
def test_gnubg_reads_a_beaver_and_skips_the_comments(tmp_path):
    """gnubg 1.07 imports the beaver game: a double, the beaver as the taker's redouble, and the
    resignation worth 8 points at its own cube (its beavers are on by default; it does not know the
    opening tie, so its cube is 4 after the beaver where ours is 8: the [Cube "2"] line says why)."""
    record = money_session(("bot", "human"), [game_record(_beaver_game())], jacoby=True, beavers=True,
                           automatic_doubles=2)
    imported = gnubg_import(write_mat(record, tmp_path / "beaver.mat"), tmp_path)
    [game] = imported["games"]
    actions = [(a["action"], a["player"]) for a in game["game"] if a["action"] in ("double", "take", "drop")]
    assert actions[:2] == [("double", "O"), ("double", "X")]
    assert game["info"]["winner"] == "X" and game["info"]["resigned"]


def test_swap_sides_money_session_and_names():
    """Swapping exchanges players, scores and winner; a money session counts the points won before each
    game; the same name twice becomes two names."""
    game = GameRecord((Action(0, MOVE, (3, 1), "8/5 6/5"), Action(1, DOUBLE), Action(0, DROP)), (2, 5), 1, 1)
    swapped = swap_sides(game)
    assert [a.player for a in swapped.actions] == [1, 0, 1] and swapped.actions[0].play == "8/5 6/5"
    assert (swapped.scores, swapped.winner, swapped.points) == ((5, 2), 0, 1) and swap_sides(swapped) == game
    unfinished = GameRecord((), (0, 0))
    session = money_session(("a", "b"), [game, swapped, unfinished, swapped])
    assert session.match_length == 0 and session.names == ("a", "b")
    assert [x.scores for x in session.games] == [(0, 0), (0, 1), (1, 1), (1, 1)]
    assert player_names("pubeval", "pubeval") == ("A_pubeval", "B_pubeval")
    assert player_names("last", "best") == ("last", "best")


def test_records_of_engine_games_replay_legally():
    """The plays of a match read off engine/game.py states replay legally from the start position."""
    record, match = _play_match(seed=4)
    for (last, position), game, result in zip(replay(record), record.games, match.results):
        if result.how == "played":  # the winner made the last play and bore off all 15
            assert last == game.winner and position[26] == 15


@needs_gnubg
def test_gnubg_imports_our_file_and_replays_the_same_games(tmp_path):
    """gnubg 1.07 `import mat` of a written match gives the same plays (dice and steps), cube actions, winners,
    points and the resignation, game by game."""
    record, _ = _play_match(seed=4)
    imported = gnubg_import(write_mat(record, tmp_path / "match.mat"), tmp_path)
    assert imported["match-info"]["match-length"] == 5
    assert [p["name"] for p in (imported["match-info"]["X"], imported["match-info"]["O"])] == ["bot", "gnubg"]
    assert len(imported["games"]) == len(record.games)
    kinds = {"move": MOVE, "double": DOUBLE, "take": TAKE, "drop": DROP}
    resignations = 0
    for ours, theirs in zip(record.games, imported["games"]):
        info = theirs["info"]
        assert ("XO".index(info["winner"]), info["points-won"]) == (ours.winner, ours.points)
        assert (info["score-X"], info["score-O"]) == ours.scores
        resignations += bool(info["resigned"])
        actions = [a for a in theirs["game"] if a["action"] in kinds]
        assert len(actions) == len(ours.actions)
        for mine, gnubg_action in zip(ours.actions, actions):
            assert ("XO".index(gnubg_action["player"]), kinds[gnubg_action["action"]]) == (mine.player, mine.kind)
            if mine.kind == MOVE:
                assert tuple(gnubg_action["dice"]) == mine.dice
                steps = sorted(f"{a}/{b}" for a, b in gnubg_action["move"])
                assert steps == sorted(mine.play.replace("*", "").split())
    assert resignations == 1


def _cubeless_session():
    """Two money games of pubeval against itself played without the cube, as one session."""
    rng = np.random.default_rng(7)
    player = make_player("pubeval", "backgammon")
    match, games = g.new_match(g.Rules(cube=False)), []
    for _ in range(2):
        state = g.start_game(match, rng)
        states = [state]
        while not state.is_over:
            if state.phase is g.Phase.ROLL:
                state = g.roll(state, rng)
            else:
                state = played_by(player, state)
            states.append(state)
        games.append(game_record(states))
        match = g.finish_game(match, state)
    return money_session(("bot", "human"), games, **rules_options(match.rules))


def test_a_cubeless_record_says_so_in_a_comment_and_reads_back():
    """Games played without the cube: the record says so (``; [CubeLimit "1"]``, no cube past 1, the line
    other writers of cubeless .mat files use), with Jacoby off (gammons count as played); it reads back;
    a match without the cube says it too, and the cube in play says nothing new."""
    record = _cubeless_session()
    assert record.cube is False and record.jacoby is False
    text = format_mat(record)
    assert text.startswith('; [Jacoby "Off"]\n; [Beaver "Off"]\n; [AutomaticDoubles "0"]\n; [CubeLimit "1"]\n\n')
    assert read_mat(text) == record
    assert read_mat(text.replace('; [CubeLimit "1"]', '; [CubeLimit "1024"]')).cube is None  # gnubg's own line
    assert rules_options(g.Rules(match_length=5, cube=False)) == {"cube": False}
    assert format_mat(MatchRecord(("a", "b"), 5, (), cube=False)).startswith('; [CubeLimit "1"]\n\n 5 point match')
    assert "cube" not in rules_options(g.Rules()) and "CubeLimit" not in format_mat(SMALL)


@needs_gnubg
def test_gnubg_imports_a_cubeless_record(tmp_path):
    """gnubg 1.07 skips the CubeLimit comment: it imports both games, their plays and winners."""
    record = _cubeless_session()
    imported = gnubg_import(write_mat(record, tmp_path / "cubeless.mat"), tmp_path)
    assert len(imported["games"]) == 2
    assert ["XO".index(game["info"]["winner"]) for game in imported["games"]] == [x.winner for x in record.games]
    moves = [sum(a["action"] == "move" for a in game["game"]) for game in imported["games"]]
    assert moves == [sum(a.kind == MOVE for a in x.actions) for x in record.games]
