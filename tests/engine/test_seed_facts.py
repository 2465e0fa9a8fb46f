"""The facts the rule texts (shared/seeds) state outright, each pinned against the engine.

Boards in the comments are drawn from the mover's side: ``X`` counts are the mover's checkers, ``O``
counts the opponent's; checkers not drawn are off.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import BAR, HEAD, flip, pips, start_position
from engine.movegen import ALL_ROLLS, legal_plays
from tests.reference import make_position


def plays(game, position, dice, first_turn=None) -> set:
    children, _ = legal_plays(game, np.array([position], dtype=np.int8), np.array([dice]), first_turn)
    return {tuple(row) for row in children.tolist()}


def test_start_pip_count_is_167():
    """"At the start both players have a pip count of 167" (seed 003)."""
    start = start_position("backgammon")
    assert pips("backgammon", start).tolist() == [167, 167]


@pytest.mark.parametrize("closed,entering", [(0, 36), (1, 35), (2, 32), (3, 27), (4, 20), (5, 11), (6, 0)])
def test_entering_table(closed, entering):
    """"How many of the 36 rolls let a checker enter": 36, 35, 32, 27, 20, 11, 0 with 0..6 points
    closed in the opponent's home board (seed 003)."""
    # X on the bar; O holds the mover's points 24, 23, ... (the opponent's 1, 2, ...) two deep
    theirs = {24 - i: 2 for i in range(closed)}
    position = make_position("backgammon", {6: 5}, theirs, bar=(1, 0))
    batch = np.repeat(np.array([position], dtype=np.int8), len(ALL_ROLLS), axis=0)
    children, parent = legal_plays("backgammon", batch, ALL_ROLLS)
    entered = np.zeros(len(ALL_ROLLS), dtype=bool)
    entered[parent[children[:, BAR] == 0]] = True
    ways = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 1, 2)
    assert int(ways[entered].sum()) == entering


def test_six_bears_off_from_four_not_from_two():
    """"With all your remaining checkers on points 4 and 2, a 6 may bear off from 4. It cannot remove
    the checker from 2 while one remains on 4" (seed 001)."""
    # 6 5 4  3 2  1
    # . . X O2 X O2      6-1: the 1 cannot move (3 and 1 closed), so only the 6 is played
    position = make_position("backgammon", {4: 1, 2: 1}, {3: 2, 1: 2})
    assert plays("backgammon", position, (6, 1)) == {make_position("backgammon", {2: 1}, {3: 2, 1: 2})}
    # with the 1 free as well, still no play takes the 2 off with the 6 while the 4 stands
    open_board = make_position("backgammon", {4: 1, 2: 1}, {24: 2})
    assert plays("backgammon", open_board, (6, 1)) == {
        make_position("backgammon", {1: 1}, {24: 2}),  # 4/off 2/1
        make_position("backgammon", {2: 1}, {24: 2}),  # 4/3/off: the 6 takes the highest, now on 3
    }


def test_six_five_bears_off_three_and_two():
    """"You have just two checkers, on the 3-point and the 2-point, and you roll 6-5. The 6 bears off
    the checker on the 3-point, the farthest one, and the 5 bears off the one on the 2-point" (seed 003)."""
    position = make_position("backgammon", {3: 1, 2: 1}, {24: 2})
    assert plays("backgammon", position, (6, 5)) == {make_position("backgammon", {}, {24: 2})}


def test_six_three_never_jumps_a_blocked_landing():
    """"Never treat 6-3 as one nine-point leap across a blocked intermediate landing" (seed 001)."""
    # 13 12 11 10  9  8  7  6  5  4  3  2  1
    #  X  .  . O2  .  . O2  .  .  .  .  . X14
    both_closed = make_position("backgammon", {13: 1, 1: 14}, {10: 2, 7: 2})
    assert plays("backgammon", both_closed, (6, 3)) == {both_closed}  # 13/4 is no play: the turn passes
    one_open = make_position("backgammon", {13: 1, 1: 14}, {7: 2})  # 10 open: 13/10/4
    assert plays("backgammon", one_open, (6, 3)) == {make_position("backgammon", {4: 1, 1: 14}, {7: 2})}


def test_nardi_first_turn_six_six():
    """"With 6-6 ... two may leave": two checkers go to the 18-point and the other two sixes are lost,
    since the 12-point is the opponent's head (seeds 000, RULES-DECISIONS)."""
    start = tuple(start_position("nardi").tolist())
    assert plays("nardi", start, (6, 6)) == {make_position("nardi", {24: 13, 18: 2}, {12: 15})}
    # the second side's first turn too, after the first side opened 6-6
    reply = tuple(flip("nardi", np.array(make_position("nardi", {24: 13, 18: 2}, {12: 15}))).tolist())
    assert reply[HEAD] == 15
    assert plays("nardi", reply, (6, 6)) == {
        make_position("nardi", {24: 13, 18: 2}, {12: 13, 6: 2})
    }


def test_nardi_one_checker_leaves_the_head_on_a_normal_turn():
    """"Only one checker may leave the head in a turn": 6-6 off the first turn, and 5-5 on it."""
    position = make_position("nardi", {24: 14, 16: 1}, {12: 15})
    got = plays("nardi", position, (6, 6))
    assert got and all(p[HEAD] == 13 for p in got)
    start = tuple(start_position("nardi").tolist())
    assert plays("nardi", start, (5, 5)) == {make_position("nardi", {24: 14, 4: 1}, {12: 15})}  # 24/4
    # an explicit "not the first turn" holds back the second head checker even with 6-6
    assert plays("nardi", start, (6, 6), first_turn=False) == {
        make_position("nardi", {24: 14, 18: 1}, {12: 15})
    }


def holds_six_in_a_row(position) -> bool:
    """The mover holds six consecutive points along the opponent's way (12 .. 1, 24 .. 13)."""
    path = list(range(12, 0, -1)) + list(range(24, 12, -1))
    held = [position[p - 1] > 0 for p in path]
    return any(all(held[i:i + 6]) for i in range(len(path) - 5))


def test_nardi_six_block_refused_until_passed():
    """"A side may not hold 6 points in a row unless at least one of the opponent's checkers is already
    past them": refused with none past, allowed once one is past (seed 000, RULES-DECISIONS)."""
    # 24 23 22 21 20 19 18 17 16 15 14 13 | 12 ...
    # X9  .  X  .  X  X  X  X  X  .  .  . | O15       2-1: 22/21 would make 21..16
    mine = {24: 9, 22: 1, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}
    seven = make_position("nardi", {24: 8, 22: 1, 21: 1, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1}, {12: 15})
    none_past = make_position("nardi", mine, {12: 15})
    got = plays("nardi", none_past, (2, 1))
    assert got and not any(holds_six_in_a_row(p) for p in got)
    assert seven not in got  # 22/21 24/22
    # one opponent checker on the mover's 13, further along its way than 22..16: allowed
    past = make_position("nardi", mine, {12: 14, 13: 1})
    got_past = plays("nardi", past, (2, 1))
    assert make_position("nardi", {24: 8, 22: 1, 21: 1, 20: 1, 19: 1, 18: 1, 17: 1, 16: 1},
                         {12: 14, 13: 1}) in got_past


def test_nardi_block_rule_comes_before_the_most_dice():
    """Rule 1 before rule 2: the only six the roll allows would make an unpassed six-block, so the
    6-6 passes; once an opponent checker is borne off (past every block) the same six is played."""
    # 24 .. 18 17 16 15 14 13 | 12 11 10  9  8  7
    # X10  .  X  X  X  X  X   | O10 O  O  O  O  O      6-6: only 24/18, which makes 18..13
    mine = {24: 10, 17: 1, 16: 1, 15: 1, 14: 1, 13: 1}
    theirs = {12: 10, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1}
    walled = make_position("nardi", mine, theirs)
    assert plays("nardi", walled, (6, 6)) == {walled}
    # a block ending on the 13, the last point of the opponent's way, is passed only by bearing off
    one_off = make_position("nardi", mine, {**theirs, 12: 9})  # the opponent has borne one off
    assert plays("nardi", one_off, (6, 6)) == {make_position("nardi", {**mine, 24: 9, 18: 1}, {**theirs, 12: 9})}
