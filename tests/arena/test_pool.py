"""Games in flight (model/arena/pool.py) and their dice (engine/dice.py): counter-based dice and openings, dealing games to slots,
mirrored seats, ending a cubeless turn, one select call per player."""

from __future__ import annotations

import numpy as np

from engine.board import CHECKERS, OFF, OPP_OFF, flip, start_position
from engine.dice import MirroredDice, opening_throws, opening_with_ties, throws
from model.arena.pool import CubelessGames, GamesInPlay, choose_by_player


def test_dice_are_a_pure_function_of_seed_stream_and_index():
    """The same (seed, stream, index) always throws the same dice; other seeds or streams throw others."""
    stream, index = np.repeat(np.arange(50), 20), np.tile(np.arange(20), 50)
    first = throws(3, stream, index)
    np.testing.assert_array_equal(first, throws(3, stream, index))
    np.testing.assert_array_equal(first[::7], throws(3, stream[::7], index[::7]))  # no hidden state
    assert (first != throws(4, stream, index)).any(axis=1).mean() > 0.9
    assert (first != throws(3, stream + 1000, index)).any(axis=1).mean() > 0.9


def test_dice_are_fair():
    """All 36 ordered throws come up about equally often (chi-square far below its 0.1% point, 67)."""
    dice = throws(11, np.arange(36_000) // 100, np.arange(36_000) % 100)
    counts = np.bincount((dice[:, 0] - 1) * 6 + dice[:, 1] - 1, minlength=36)
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert dice.min() == 1 and dice.max() == 6 and chi2 < 67


def test_opening_throws_never_tie():
    """Each seat throws one die; ties are thrown again."""
    opening = opening_throws(5, np.arange(5000))
    assert (opening[:, 0] != opening[:, 1]).all()
    assert 0.45 < (opening[:, 0] > opening[:, 1]).mean() < 0.55


def test_opening_ties_are_counted_and_replayed():
    """The ties before each opening are counted (about one opening in six has one), and ``opening_of``
    gives the whole opening, ties first, ending in the stream's opening throw."""
    opening, ties = opening_with_ties(5, np.arange(3000))
    np.testing.assert_array_equal(opening, opening_throws(5, np.arange(3000)))
    assert 0.13 < (ties > 0).mean() < 0.2 and ties.max() >= 2
    dice = MirroredDice(seed=5, slots=2)
    tied = int(np.flatnonzero(ties >= 2)[0])
    dice.open([0, 1], [tied, tied + 1 if ties[tied + 1] == 0 else tied + 2], play_opening=False)
    whole = dice.opening_of(0)
    assert len(whole) == ties[tied] + 1 and all(a == b for a, b in whole[:-1])
    assert whole[-1] == tuple(opening[tied]) and len(dice.opening_of(1)) == 1


def test_mirrored_dice_play_the_opening_then_the_stream_in_order():
    """With play_opening the first roll is the opening throw, then throws 0, 1...; without it, throw 0
    comes first. Slots on the same stream throw the same dice whenever they roll."""
    dice = MirroredDice(seed=7, slots=3)
    opening = dice.open(np.array([0, 1, 2]), np.array([4, 4, 9]), play_opening=True)
    np.testing.assert_array_equal(opening, opening_throws(7, [4, 4, 9]))
    np.testing.assert_array_equal(dice.roll([0, 2]), opening[[0, 2]])
    np.testing.assert_array_equal(dice.roll([0]), throws(7, [4], [0]))
    np.testing.assert_array_equal(dice.roll([0, 1, 2]), np.concatenate(
        [throws(7, [4], [1]), opening[[1]], throws(7, [9], [0])]))
    dice.open([2], [4], play_opening=False)
    np.testing.assert_array_equal(dice.roll([1, 2]), throws(7, [4, 4], [0, 0]))


def test_numbers_are_dealt_in_order_until_none_are_left():
    """Freed slots take the next numbers in their order, plies at 0; past the total they go idle."""
    games = GamesInPlay(slots=3, total=5, max_plies=10)
    np.testing.assert_array_equal(games.deal(np.arange(3)), [0, 1, 2])
    games.plies[:] = 4
    np.testing.assert_array_equal(games.deal([2, 0]), [2, 0])
    np.testing.assert_array_equal(games.number, [4, 1, 3])
    np.testing.assert_array_equal(games.plies, [0, 4, 0])
    assert len(games.deal([1, 2])) == 0
    np.testing.assert_array_equal(games.live_slots(), [0])
    endless = GamesInPlay(slots=2, total=None, max_plies=10)
    endless.deal([0, 1])
    for _ in range(50):
        endless.deal([1])
    assert endless.live.all() and endless.number[1] == 51


def test_player_a_sits_in_seat_zero_of_even_numbers():
    """0 for A, 1 for B: the two games of a mirrored pair swap the seats."""
    games = GamesInPlay(slots=4, total=4, max_plies=10)
    games.deal(np.arange(4))
    np.testing.assert_array_equal(games.player(np.arange(4), 0), [0, 1, 0, 1])
    np.testing.assert_array_equal(games.player(np.arange(4), [1, 1, 0, 0]), [1, 0, 0, 1])
    assert games.player(3, 1) == 0


def test_ending_a_turn_scores_bear_offs_caps_long_games_and_passes_the_dice():
    """A mover who bore off all 15 wins (a backgammon here: the loser still has checkers in the
    winner's home board); a game at the cap ends unscored; the others go on with the position
    turned to the next side on roll. Dealt slots start afresh."""
    games = CubelessGames("backgammon", slots=3, total=None, max_plies=3)
    games.deal(np.arange(3))
    games.plies[:] = [0, 0, 2]
    after = start_position("backgammon", 3)
    after[0, :24] = np.minimum(after[0, :24], 0)
    after[0, OFF] = CHECKERS
    score, ended, capped = games.end_turn(np.arange(3), after)
    np.testing.assert_array_equal(score, [3, 0, 0])
    np.testing.assert_array_equal(ended, [True, False, True])
    np.testing.assert_array_equal(capped, [False, False, True])
    np.testing.assert_array_equal(games.plies, [1, 1, 3])
    np.testing.assert_array_equal(games.pos[1], flip("backgammon", after[1:2])[0])
    assert games.pos[0, OPP_OFF] == CHECKERS
    games.deal([0, 2])
    np.testing.assert_array_equal(games.pos[[0, 2]], start_position("backgammon", 2))
    np.testing.assert_array_equal(games.plies, [0, 1, 0])


def test_each_player_is_asked_once_for_its_own_positions():
    """choose_by_player hands each player its positions' children, renumbered from 0, in player
    order, and maps its picks back to indices among all the children."""
    parent = np.array([0, 0, 1, 2, 2, 2, 3])
    children = np.arange(7)[:, None] * 10
    who = np.array([1, 0, 1, 0])
    asked = []

    def select(player, mine, kids, kid_parent):
        asked.append((player, mine.tolist(), kids[:, 0].tolist(), kid_parent.tolist()))
        return np.array([0, len(kids) - 1])  # the first child of its first position, the last of its last

    chosen = choose_by_player(("a", "b"), who, children, parent, select)
    assert asked == [("a", [False, True, False, True], [20, 60], [0, 1]),
                     ("b", [True, False, True, False], [0, 10, 30, 40, 50], [0, 0, 1, 1, 1])]
    np.testing.assert_array_equal(chosen, [0, 2, 5, 6])
