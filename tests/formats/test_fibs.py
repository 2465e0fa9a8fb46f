"""FIBS board strings (engine/formats/fibs.py): FORMATS.md's worked request, lines observed from gnubg 1.07 as an
external-player client (take and cube questions, both seats, Crawford), round trips, and bad lines."""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import flip
from engine.errors import FormatError
from engine.formats.fibs import CUBE, MOVE, TAKE, FibsBoard, read_fibs_board, write_fibs_board
from engine.formats.position import read_json_position
from engine.notation import parse_play
from engine.tools.sample import random_positions

WORKED = ("board:bot:gnubg:3:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:5:6:5:6:1:1:1:0:"
          "1:-1:0:25:0:0:0:0:0:0:0:1")
"""FORMATS.md: 3-point match, 0-0, the bot as player 0 on roll with 5-6 (answered 24/18 18/13)."""

# Lines gnubg 1.07 sent to the server (scripts/gnubg_vs_bot.py with --verbose), one of each kind.
TAKE_AS_PLAYER0 = ("board:gnubg:bot:5:1:2:0:0:2:1:-2:3:2:0:2:2:0:1:0:0:0:0:0:-1:-2:-4:0:2:-2:-1:-3:0:1:0:0:"
                   "0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
TAKE_AS_PLAYER1 = ("board:bot:gnubg:3:0:0:0:0:1:0:0:-2:6:3:2:0:0:0:-2:2:0:-1:0:-3:0:-3:-2:-2:1:0:0:0:-1:0:0:"
                   "0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1")
CUBE_OWNED_BY_PLAYER1 = ("board:gnubg:bot:5:0:2:0:-1:0:2:0:0:4:0:2:0:0:-1:-3:3:0:0:0:-2:-3:-3:-2:0:1:1:1:1:1:"
                         "0:0:0:0:2:1:0:0:1:-1:0:25:0:0:0:0:0:0:0:1")
CRAWFORD_GAME = ("board:gnubg:bot:5:4:2:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:5:4:5:4:1:1:"
                 "1:0:1:-1:0:25:0:0:0:0:0:0:0:0")
POST_CRAWFORD = ("board:bot:gnubg:5:2:4:0:-1:0:0:0:0:5:0:3:0:0:1:-6:4:0:0:0:-3:0:-5:0:1:0:0:1:0:-1:0:0:0:0:1:"
                 "1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1")
BAR_ENTRY_AS_PLAYER1 = ("board:gnubg:bot:5:0:2:0:0:0:2:0:0:4:0:2:0:0:0:0:3:0:0:0:0:0:0:-1:0:-3:-4:-4:4:1:6:3:"
                        "6:3:2:1:0:0:1:-1:0:25:0:3:0:0:0:0:0:1")
MONEY_CUBE_OWNED_BY_PLAYER0 = ("board:gnubg:root:0:0:4:0:3:0:-2:2:2:3:1:0:0:0:0:0:-1:0:0:0:-2:-2:-4:2:-2:-2:2:"
                               "0:0:-1:0:0:0:0:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:0:1")
OBSERVED = [WORKED, TAKE_AS_PLAYER0, TAKE_AS_PLAYER1, CUBE_OWNED_BY_PLAYER1, CRAWFORD_GAME, POST_CRAWFORD,
            BAR_ENTRY_AS_PLAYER1, MONEY_CUBE_OWNED_BY_PLAYER0]


def test_worked_request_reads_as_the_bot_on_roll_in_its_own_frame():
    """FORMATS.md's request: player 0 on roll with 5-6 at 0-0 of 3, its 24-point (slot 1) holding two checkers."""
    board = read_fibs_board(WORKED)
    assert (board.mover, board.actor, board.kind, board.dice) == (0, 0, MOVE, (5, 6))
    assert (board.names, board.match_length, board.scores) == (("bot", "gnubg"), 3, (0, 0))
    assert (board.cube, board.cube_owner, board.doubled, board.crawford, board.post_crawford) == (
        1, None, False, False, False)
    expected = {"board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -2, 0, -4, -2, 0, 0, 0, 2],
                "bar": [0, 0], "off": [0, 0]}
    assert board.position.tolist() == read_json_position("backgammon", expected).tolist()


def test_worked_answer_is_legal_and_moves_the_checkers_on_slot_1():
    """`24/18 18/13` is a legal 5-6 there, and written back it empties one checker from slot 1 onto slot 12."""
    board = read_fibs_board(WORKED)
    after = parse_play("backgammon", board.position, board.dice, "24/18 18/13")
    moved = FibsBoard(board.names, 3, (0, 0), after, mover=0, dice=None)
    slots = [int(f) for f in write_fibs_board(moved).split(":")[6:32]]
    before = [int(f) for f in WORKED.split(":")[6:32]]
    assert slots[1] == before[1] + 1 == -1 and slots[12] == before[12] - 1 == -6
    assert [s for i, s in enumerate(slots) if i not in (1, 12)] == [s for i, s in enumerate(before) if i not in (1, 12)]


@pytest.mark.parametrize("line", OBSERVED)
def test_observed_lines_round_trip_exactly(line):
    """Every kind of line gnubg 1.07 sent is written back character for character."""
    assert write_fibs_board(read_fibs_board(line)) == line


def test_take_question_to_player0_swaps_names_and_scores_back():
    """A take question: the doubler (player 1) is on roll, player 0 must answer; names/scores came as (p1, p0)."""
    board = read_fibs_board(TAKE_AS_PLAYER0)
    assert (board.kind, board.mover, board.actor, board.dice) == (TAKE, 1, 0, None)
    assert board.names == ("bot", "gnubg") and board.scores == (2, 1)
    assert (board.cube, board.cube_owner) == (1, None)


def test_take_question_to_player1():
    """The bot in seat 1 is doubled by player 0 (turn -1): it is the actor, and the board is in the doubler's frame."""
    board = read_fibs_board(TAKE_AS_PLAYER1)
    assert (board.kind, board.mover, board.actor) == (TAKE, 0, 1)
    assert board.names == ("gnubg", "bot") and board.scores == (0, 0)
    assert np.array_equal(board.seen_by(1), flip("backgammon", board.position))


def test_cube_question_with_an_owned_cube():
    """Dice 0 0 is roll-or-double; "player 0 may double" = 0 means player 1 owns the 2-cube."""
    board = read_fibs_board(CUBE_OWNED_BY_PLAYER1)
    assert (board.kind, board.mover, board.actor, board.cube, board.cube_owner) == (CUBE, 1, 1, 2, 1)
    money = read_fibs_board(MONEY_CUBE_OWNED_BY_PLAYER0)
    assert (money.kind, money.match_length, money.cube, money.cube_owner, money.crawford) == (CUBE, 0, 2, 0, False)


def test_crawford_and_post_crawford_flags():
    """Field 52 = 0 with a side at L-1 is the Crawford game; field 51 = 1 a post-Crawford game."""
    crawford = read_fibs_board(CRAWFORD_GAME)
    assert crawford.crawford and not crawford.post_crawford and crawford.scores == (4, 2)
    post = read_fibs_board(POST_CRAWFORD)
    assert post.post_crawford and not post.crawford and post.scores == (2, 4)
    assert not read_fibs_board(WORKED).crawford  # 0-0: no side at L-1


def test_bar_entry_seen_by_player1():
    """Player 1's bar is slot 25: the bot in seat 1 has four checkers there; `bar/19` enters one with the 6
    (the 3 cannot enter: player 0 holds the bot's 22-point)."""
    board = read_fibs_board(BAR_ENTRY_AS_PLAYER1)
    assert board.mover == 1 and board.position[24] == 4 and board.position[21] < -1
    after = parse_play("backgammon", board.position, board.dice, "bar/19")
    assert after[24] == 3 and after[18] == board.position[18] + 1


@pytest.mark.parametrize("mover", [0, 1])
def test_random_positions_round_trip_from_both_seats(mover):
    """Random positions of every kind, either side on roll, any cube: write then read gives them back."""
    rng = np.random.default_rng(mover)
    kinds = ("opening", "midgame", "contact", "bar", "bearoff", "race")
    positions = np.concatenate([random_positions("backgammon", 20, seed=5, kind=k)[0] for k in kinds])
    for position in positions:
        dice = None if rng.random() < 0.3 else (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        doubled = dice is None and rng.random() < 0.5
        owner = [None, 0, 1][int(rng.integers(3))]
        cube = 1 if owner is None else 2 ** int(rng.integers(1, 6))
        board = FibsBoard(("a", "b"), 7, (3, 5), position, mover, dice, cube, owner, doubled)
        back = read_fibs_board(write_fibs_board(board) + "\n\x00")
        assert np.array_equal(back.position, position)
        assert (back.mover, back.dice, back.cube, back.cube_owner, back.doubled, back.names, back.scores) == (
            mover, dice, cube, owner, doubled, ("a", "b"), (3, 5))
        assert back.actor == (1 - mover if doubled else mover)


def _with(line: str, index: int, value: str) -> str:
    """``line`` with field ``index`` (1-based, after 'board:') replaced."""
    fields = line.split(":")
    fields[index] = value
    return ":".join(fields)


@pytest.mark.parametrize("line, reason", [
    ("", "must start with 'board:'"),
    ("hello gnubg", "must start with 'board:'"),
    (WORKED + ":0", "expected 52 fields"),
    (WORKED.rsplit(":", 1)[0], "expected 52 fields"),
    (_with(WORKED, 7, "x"), "whole numbers"),
    (_with(WORKED, 32, "0"), "turn (field 32)"),
    (_with(WORKED, 41, "-1"), "fields 41-44"),
    (_with(WORKED, 7, "-3"), "player 0 has 16 checkers"),
    (_with(WORKED, 4, "3"), "do not fit a match of 3"),
    (_with(WORKED, 33, "7"), "dice (fields 33-34)"),
    (_with(WORKED, 37, "3"), "power of two"),
    (_with(_with(WORKED, 38, "0"), 39, "0"), "may-double flags"),
    (_with(WORKED, 40, "1"), "answered before the roll"),
])
def test_malformed_lines_raise_one_clear_error(line, reason):
    """Each malformed line raises FormatError saying what is wrong."""
    with pytest.raises(FormatError) as err:
        read_fibs_board(line)
    assert reason in str(err.value) and "\n" not in str(err.value)
