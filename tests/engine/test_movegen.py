"""The batched move generator: against the scalar reference, on hand-made positions, perft counts
from the starting positions, and invariants after every move of random games.

Boards in the comments are drawn from the mover's side, points 24 down to 1: ``X`` counts are the
mover's checkers, ``O`` counts the opponent's, ``.`` an empty point; checkers not drawn are off.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.board import BAR, CHECKERS, HEAD, OFF, OPP_BAR, OPP_OFF, flip, is_valid, pips, start_position
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS, _step, count_plays, legal_plays
from engine.rules import head_limits, heads_left
from engine.tools.sample import KINDS, random_children, random_positions
from tests.reference import all_sequences, breaks_six_in_a_row, make_position, reference_plays

SEED = 7
KIND_CASES = [(game, kind) for game in KINDS for kind in KINDS[game]]


def child_sets(children: np.ndarray, parent: np.ndarray, n: int) -> list[set]:
    """Per parent, the set of its children as tuples; asserts they are distinct."""
    sets = [set() for _ in range(n)]
    for row, p in zip(children.tolist(), parent.tolist()):
        assert tuple(row) not in sets[p], "a child is listed twice"
        sets[p].add(tuple(row))
    return sets


def assert_matches_reference(game, positions, dice, first_turn=None):
    children, parent = legal_plays(game, positions, dice, first_turn)
    fast = child_sets(children, parent, len(positions))
    for i, got in enumerate(fast):
        want = reference_plays(game, positions[i], dice[i], first_turn)
        assert got == want, (
            f"{game} position {positions[i].tolist()} dice {dice[i].tolist()} first_turn {first_turn}: "
            f"missing {sorted(want - got)[:3]}, extra {sorted(got - want)[:3]}"
        )


# ---------------------------------------------------------------- fast vs reference


@pytest.mark.parametrize("game,kind", KIND_CASES)
def test_fast_matches_reference_on_thrown_dice(game, kind):
    """600 random positions of each kind, with the dice thrown there: the same set of results."""
    positions, dice = random_positions(game, 600, seed=SEED, kind=kind)
    assert_matches_reference(game, positions, dice)


@pytest.mark.parametrize("game,kind", KIND_CASES)
def test_fast_matches_reference_over_all_rolls(game, kind):
    """20 random positions of each kind under every one of the 21 rolls: the same set of results."""
    positions, _ = random_positions(game, 20, seed=SEED + 1, kind=kind)
    positions = np.repeat(positions, len(ALL_ROLLS), axis=0)
    dice = np.tile(ALL_ROLLS, (len(positions) // len(ALL_ROLLS), 1))
    assert_matches_reference(game, positions, dice)


@pytest.mark.parametrize("first_turn", [True, False])
def test_nardi_first_turn_flag_matches_reference(first_turn):
    """An explicit first_turn overrides "all 15 on the head" the same way in both generators."""
    positions, _ = random_positions("nardi", 12, seed=SEED, kind="heads")
    positions = np.concatenate([positions, start_position("nardi", 1)])
    positions = np.repeat(positions, len(ALL_ROLLS), axis=0)
    dice = np.tile(ALL_ROLLS, (len(positions) // len(ALL_ROLLS), 1))
    assert_matches_reference("nardi", positions, dice, first_turn)


def rule_effects(game: str, position, dice) -> set[str]:
    """Which of the rules of using the roll decide something for this position and roll."""
    pos = tuple(int(v) for v in position)
    dice = (int(dice[0]), int(dice[1]))
    sequences = all_sequences(game, pos, dice, None)
    effects = set()
    if game == "nardi":
        kept = {(p, u) for p, u in sequences if not u or not breaks_six_in_a_row(p)}
        if max(len(u) for _, u in kept) < max(len(u) for _, u in sequences) or any(
            breaks_six_in_a_row(p) and len(u) == max(len(v) for _, v in sequences) for p, u in sequences
        ):
            effects.add("six in a row")
        sequences = kept
    most = max(len(u) for _, u in sequences)
    full = 4 if dice[0] == dice[1] else 2
    if most == 0:
        effects.add("pass")
    elif most < full:
        effects.add("partial")
        if most == 1 and full == 2 and {u for _, u in sequences if len(u) == 1} == {(dice[0],), (dice[1],)}:
            effects.add("higher die")
    return effects


@pytest.mark.parametrize("game", list(KINDS))
def test_random_sets_exercise_every_rule(game):
    """The random sets used above do reach passes, partial plays, the higher-die choice and (nardi)
    the six-in-a-row rule, so the agreement is not vacuous."""
    seen: dict[str, int] = {}
    for kind in KINDS[game]:
        positions, dice = random_positions(game, 600, seed=SEED, kind=kind)
        for pos, roll in zip(positions[:250], dice[:250]):
            for effect in rule_effects(game, pos, roll):
                seen[effect] = seen.get(effect, 0) + 1
    wanted = {"pass", "partial", "higher die"} | ({"six in a row"} if game == "nardi" else set())
    assert {e for e, count in seen.items() if count >= 5} >= wanted, seen


# ---------------------------------------------------------------- hand-made positions


def plays(game, position, dice, first_turn=None) -> set:
    children, _ = legal_plays(game, np.array([position], dtype=np.int8), np.array([dice]), first_turn)
    return {tuple(row) for row in children.tolist()}


def test_higher_die_when_only_one_can_be_played():
    """Either die alone but not both: the higher one must be played (6-5, one checker on 24)."""
    # 24 23 22 21 20 19 18 17 16 15 14 13 12 .. 1
    #  X  .  .  .  .  .  .  .  .  .  .  O2  .     (14 X off, 13 O off)
    position = make_position("backgammon", {24: 1}, {13: 2})
    assert plays("backgammon", position, (6, 5)) == {make_position("backgammon", {18: 1}, {13: 2})}
    assert plays("backgammon", position, (5, 6)) == {make_position("backgammon", {18: 1}, {13: 2})}


def test_lower_die_when_the_higher_is_blocked():
    """Only the lower die can be played: it is played (6 blocked by O on 18, 5 open)."""
    # 24 23 22 21 20 19 18 17 16 15 14 13
    #  X  .  .  .  .  . O2  .  .  .  .  O2
    position = make_position("backgammon", {24: 1}, {18: 2, 13: 2})
    assert plays("backgammon", position, (6, 5)) == {make_position("backgammon", {19: 1}, {18: 2, 13: 2})}


def test_both_dice_forced_through_the_only_order():
    """Both dice must be played when one order allows it: 6-1 with the 6 first blocked, so 24/23/17."""
    # 24 23 22 21 20 19 18 17
    #  X  .  .  .  .  . O2  .      (14 X off, 13 O off)
    position = make_position("backgammon", {24: 1}, {18: 2})
    assert plays("backgammon", position, (6, 1)) == {make_position("backgammon", {17: 1}, {18: 2})}


def test_hit_sends_the_blot_to_the_bar_and_double_stops_when_blocked():
    """A hit puts the blot on the bar; a double plays as many moves as it can (two here)."""
    # 24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9
    #  X  .  .  .  .  O  .  .  .  .  .  .  .  .  . O2
    position = make_position("backgammon", {24: 1}, {19: 1, 9: 2})
    # 5-5: 24/19* 19/14, and 14/9 is closed
    assert plays("backgammon", position, (5, 5)) == {
        make_position("backgammon", {14: 1}, {9: 2}, bar=(0, 1))
    }


def test_bar_entry_first_then_the_rest():
    """With a checker on the bar it must enter before anything moves; the other die is then free."""
    # bar: X   points: 24 23 22 21 20 19 | 6: X2   O holds 24 (2) and 22 (2)
    position = make_position("backgammon", {6: 2}, {24: 2, 22: 2}, bar=(1, 0))
    got = plays("backgammon", position, (3, 1))
    # the 1 enters on 24? closed. The 3 enters on 22? closed. Nothing can be played.
    assert got == {position}
    got = plays("backgammon", position, (4, 3))  # 4 enters on 21, then the 3: 21/18, 6/3
    assert got == {
        make_position("backgammon", {18: 1, 6: 2}, {24: 2, 22: 2}),
        make_position("backgammon", {21: 1, 6: 1, 3: 1}, {24: 2, 22: 2}),
    }


def test_two_on_the_bar_one_enters():
    """Two checkers on the bar and only one die enters: that one is played, nothing else moves."""
    position = make_position("backgammon", {6: 5}, {20: 2}, bar=(2, 0))
    assert plays("backgammon", position, (5, 2)) == {
        make_position("backgammon", {6: 5, 23: 1}, {20: 2}, bar=(1, 0))
    }


def test_bear_off_higher_die_only_from_the_highest_point():
    """Bearing off: 5-4 with X on 3 and 1 takes both off (higher dice, highest point first)."""
    # 6 5 4 3 2 1
    # . . . X . X
    position = make_position("backgammon", {3: 1, 1: 1}, {24: 2})
    assert plays("backgammon", position, (5, 4)) == {make_position("backgammon", {}, {24: 2})}


def test_bear_off_may_move_inside_instead():
    """With every checker home a die may move inside instead of bearing off, and a higher die bears
    off only from the highest point: 2-1 with X on 6, 2 and 1."""
    # 6 5 4 3 2 1
    # X . . . X X      O2 on 24
    position = make_position("backgammon", {6: 1, 2: 1, 1: 1}, {24: 2})
    assert plays("backgammon", position, (2, 1)) == {
        make_position("backgammon", {6: 1}, {24: 2}),  # 2/off 1/off
        make_position("backgammon", {4: 1, 2: 1}, {24: 2}),  # 6/4 1/off
        make_position("backgammon", {5: 1, 1: 1}, {24: 2}),  # 6/5 2/off
        make_position("backgammon", {3: 1, 2: 1, 1: 1}, {24: 2}),  # 6/3
        make_position("backgammon", {4: 1, 1: 2}, {24: 2}),  # 6/4 2/1
    }  # never 6/5 1/off: the 2 may not take the 1 while 5 is held


def test_nardi_first_turn_three_three_two_checkers():
    """Long nardi, first turn, 3-3: two checkers leave the head; 24/15 alone is blocked at 12."""
    # X: 15 on the head (24); O: 15 on its head, our 12
    start = tuple(start_position("nardi").tolist())
    assert plays("nardi", start, (3, 3)) == {
        make_position("nardi", {24: 13, 21: 1, 15: 1}, {12: 15}),
        make_position("nardi", {24: 13, 18: 2}, {12: 15}),
    }
    assert plays("nardi", start, (4, 4)) == {make_position("nardi", {24: 13, 16: 2}, {12: 15})}


def test_nardi_not_first_turn_one_head_checker():
    """Long nardi, a normal turn with 5-5: one checker leaves the head; the rest of the dice go to others."""
    # 24 ... 12 11 10 ... 1
    # X14    O15  .  X
    position = make_position("nardi", {24: 14, 10: 1}, {12: 15})
    assert plays("nardi", position, (5, 5)) == {
        make_position("nardi", {24: 13, 9: 1, 5: 1}, {12: 15}),  # 24/9 10/5
        make_position("nardi", {24: 13, 4: 1, 10: 1}, {12: 15}),  # 24/4
    }


def test_nardi_opponent_checkers_block_single():
    """Long nardi: a single opponent checker closes a point and is never hit (2-2, O alone on 18)."""
    # 24 23 22 21 20 19 18 ... 12
    # X14  .  .  .  X  .  O    O14
    position = make_position("nardi", {24: 14, 20: 1}, {12: 14, 18: 1})
    assert plays("nardi", position, (2, 2)) == {make_position("nardi", {24: 13, 20: 2}, {12: 14, 18: 1})}


# ---------------------------------------------------------------- perft counts


def test_perft_backgammon_start():
    """Distinct results of each of the 21 rolls from the backgammon start, and two plies deep."""
    start = start_position("backgammon", len(ALL_ROLLS))
    counts = count_plays("backgammon", start, ALL_ROLLS)
    # rolls in ALL_ROLLS order: 11 21 22 31 32 33 41 42 43 44 51 52 53 54 55 61 62 63 64 65 66
    assert counts.tolist() == [42, 15, 75, 16, 17, 73, 14, 18, 17, 52, 8, 8, 9, 9, 4, 10, 14, 14, 14, 7, 11]
    children, _ = legal_plays("backgammon", start, ALL_ROLLS)
    assert len(children) == 447
    replies = flip("backgammon", children)
    total = count_plays("backgammon", np.repeat(replies, 21, axis=0), np.tile(ALL_ROLLS, (447, 1))).sum()
    assert total == 202782


def test_perft_nardi_start():
    """Long nardi's first turn: one result for every roll but 3-3 (two); 484 replies two plies deep."""
    start = start_position("nardi", len(ALL_ROLLS))
    counts = count_plays("nardi", start, ALL_ROLLS)
    assert counts.tolist() == [1, 1, 1, 1, 1, 2] + [1] * 15
    children, _ = legal_plays("nardi", start, ALL_ROLLS)
    replies = flip("nardi", children)
    n = len(replies)
    assert count_plays("nardi", np.repeat(replies, 21, axis=0), np.tile(ALL_ROLLS, (n, 1))).sum() == 484


def test_roll_weights():
    """The 21 rolls carry 36 chances in all, 1 for a double and 2 otherwise."""
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)
    assert len({tuple(r) for r in ALL_ROLLS.tolist()}) == 21


# ---------------------------------------------------------------- random play invariants


def check_turn(game, positions, dice, children, parent):
    n = len(positions)
    assert np.all(np.diff(parent) >= 0), "parent indices are sorted"
    assert np.array_equal(np.unique(parent), np.arange(n)), "every position has a child"
    assert is_valid(game, children).all(), "15 checkers a side, no negative counts"
    counts = np.bincount(parent, minlength=n)
    same = (children == positions[parent]).all(axis=1)
    assert np.all(counts[parent[same]] == 1), "a pass is the only child of its position"
    used = pips(game, positions)[parent, 0] - pips(game, children)[:, 0]
    roll_total = np.where(dice[:, 0] == dice[:, 1], 4 * dice[:, 0], dice[:, 0] + dice[:, 1])
    assert np.all((used >= 0) & (used <= roll_total[parent])), "the mover moves forward, no further than the roll"
    assert np.all(same | (used > 0)), "a play that is no pass moves the mover"
    before = positions[parent]
    if game == "nardi":
        theirs = np.minimum(before[:, :24], 0)
        assert np.array_equal(np.minimum(children[:, :24], 0), theirs), "nothing is hit in long nardi"
        assert np.all(before[:, HEAD] - children[:, HEAD] <= 2)
        assert not (children[:, BAR:OPP_BAR + 1] != 0).any()
    else:
        hit = (before[:, :24] == -1) & (children[:, :24] >= 0)  # a blot gone (hit, maybe passed on)
        kept = np.minimum(children[:, :24], 0) == np.minimum(before[:, :24], 0)
        assert np.all(kept | hit), "the opponent's checkers move only when a blot is hit"
        assert np.array_equal(children[:, OPP_BAR] - before[:, OPP_BAR], hit.sum(axis=1)), "hits go to the bar"
        assert np.all(children[:, OPP_OFF] == before[:, OPP_OFF])


@pytest.mark.parametrize("game", list(KINDS))
def test_random_play_invariants(game):
    """64 random games, 150 turns: invariants hold for every child of every position met."""
    rng = np.random.default_rng(SEED)
    positions = start_position(game, 64)
    for _ in range(150):
        dice = rng.integers(1, 7, size=(64, 2))
        children, parent = legal_plays(game, positions, dice)
        check_turn(game, positions, dice, children, parent)
        chosen = children[random_children(parent, 64, rng)]
        done = chosen[:, OFF] == CHECKERS
        positions = flip(game, chosen)
        positions[done] = start_position(game)


@pytest.mark.parametrize("game", list(KINDS))
def test_children_order_does_not_depend_on_the_batch(game):
    """Each position's children come in the same order alone as in any batch (players break ties by it)."""
    positions, dice = random_positions(game, 300, seed=SEED, kind="any")
    children, parent = legal_plays(game, positions, dice)
    rng = np.random.default_rng(SEED)
    shuffle = rng.permutation(len(positions))
    shuffled, shuffled_parent = legal_plays(game, positions[shuffle], dice[shuffle])
    for new_index, old_index in enumerate(shuffle[:60]):
        expected = children[parent == old_index]
        np.testing.assert_array_equal(shuffled[shuffled_parent == new_index], expected)
        alone, _ = legal_plays(game, positions[old_index:old_index + 1], dice[old_index:old_index + 1])
        np.testing.assert_array_equal(alone, expected)


STEP_KINDS = {"backgammon": ("contact", "bar", "bearoff"), "nardi": ("opening", "blocks", "heads", "bearoff")}


@pytest.mark.parametrize("game", list(KINDS))
def test_steps_replay_to_each_child(game):
    """with_steps: the same children; each child's steps, taken one by one, are single moves the rules
    allow where they are taken, use dice of the roll, and reach the child; a pass has none."""
    for kind in STEP_KINDS[game]:
        positions, dice = random_positions(game, 60, seed=SEED + 3, kind=kind)
        dice[::3, 1] = dice[::3, 0]  # more doubles
        children, parent = legal_plays(game, positions, dice)
        kids, par, trail = legal_plays(game, positions, dice, with_steps=True)
        np.testing.assert_array_equal(kids, children)
        np.testing.assert_array_equal(par, parent)
        limits = head_limits(game, positions, dice)
        for kid, p, taken in zip(kids, par, trail):
            pos, roll = positions[p : p + 1], list(dice[p]) * (2 if dice[p, 0] == dice[p, 1] else 1)
            for source, die in taken[taken[:, 0] > 0]:
                roll.remove(die)
                allowed = np.arange(25)[None] == source - 1
                left = heads_left(game, limits[p : p + 1], positions[p : p + 1, HEAD], pos)
                pos, _, _ = _step(game, pos, np.array([die]), left, allowed)
                assert len(pos) == 1, f"{positions[p].tolist()} {dice[p]}: step {source}/{die} refused"
            assert np.array_equal(pos[0], kid)
            assert not taken[taken[:, 0] == 0].any(), "unused steps are (0, 0)"


def test_steps_are_the_greatest_way_to_the_child():
    """Of the ways to a child, the steps recorded take the higher die first, then the highest source:
    8/2 with 4-2 and a checker on 6 is 8/4 4/2, not 6/2 8/6; 2-2 is taken from the highest point down."""
    position = np.array([make_position("backgammon", {8: 2, 6: 2}, {20: 2})], np.int8)
    kids, _, trail = legal_plays("backgammon", position, np.array([[2, 4]]), with_steps=True)
    eight_two = np.array(make_position("backgammon", {8: 1, 6: 2, 2: 1}, {20: 2}), np.int8)
    (k,) = [i for i, kid in enumerate(kids) if np.array_equal(kid, eight_two)]
    assert trail[k].tolist() == [[8, 4], [4, 2], [0, 0], [0, 0]]
    kids, _, trail = legal_plays("backgammon", position, np.array([[2, 2]]), with_steps=True)
    for taken in trail:
        assert list(taken[:, 0]) == sorted(taken[:, 0], reverse=True)


# ---------------------------------------------------------------- the interface


def test_empty_batch():
    """An empty batch gives no children (and no steps)."""
    children, parent = legal_plays("backgammon", np.zeros((0, 28), np.int8), np.zeros((0, 2), np.int64))
    assert children.shape == (0, 28) and parent.shape == (0,)
    empty = np.zeros((0, 28), np.int8), np.zeros((0, 2), np.int64)
    assert legal_plays("backgammon", *empty, with_steps=True)[2].shape == (0, 4, 2)


@pytest.mark.parametrize("dice", [[[0, 3]], [[7, 1]], [[1, 2, 3]]])
def test_bad_dice_are_refused(dice):
    """Dice outside 1..6 or of the wrong shape raise ValueError."""
    with pytest.raises(ValueError):
        legal_plays("backgammon", start_position("backgammon", 1), np.array(dice))


@pytest.mark.parametrize("rows", [3, 40])
@pytest.mark.parametrize("bad", [0, 7, -1])
def test_a_bad_die_anywhere_in_a_batch_is_refused(rows, bad):
    """On the numpy path small batches check the dice with Python's min and max, large ones with numpy
    (the kernels check them themselves: test_movegen_numba.py): each refuses one bad die anywhere, and
    takes dice of any integer type."""
    positions = np.repeat(start_position("backgammon", 1), rows, axis=0)
    dice = np.full((rows, 2), 3, dtype=np.int8)
    assert len(legal_plays("backgammon", positions, dice)[0]) > 0
    dice[rows - 1, 1] = bad
    with pytest.raises(ValueError, match="1..6"):
        legal_plays("backgammon", positions, dice)


def test_backgammon_head_limits_are_fresh_arrays_of_four():
    """Backgammon has no head: every limit is 4, in an array of the caller's own at every size."""
    positions = np.repeat(start_position("backgammon", 1), 300, axis=0)
    dice = np.full((300, 2), 6)
    for n in (1, 256, 300):
        limits = head_limits("backgammon", positions[:n], dice[:n])
        assert limits.shape == (n,) and limits.dtype == np.int8 and (limits == 4).all()
        limits[:] = 0  # the caller's to change: the next call is not affected
    assert (head_limits("backgammon", positions[:5], dice[:5]) == 4).all()


def test_bad_game_and_shape_are_refused():
    """An unknown game or a position of the wrong width raises ValueError."""
    with pytest.raises(ValueError):
        legal_plays("chess", start_position("backgammon", 1), np.array([[1, 2]]))
    with pytest.raises(ValueError):
        legal_plays("backgammon", np.zeros((1, 27), np.int8), np.array([[1, 2]]))
