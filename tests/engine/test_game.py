"""Game flow, cube and resignation rules of engine.game, one hand-made case per rule.

Positions are drawn from the mover's side as {point: checkers}: ``mine`` for the mover, ``theirs``
for the opponent in the mover's numbers; checkers not on the board or the bar are borne off.
"""

import numpy as np
import pytest

from engine import game as g
from engine.board import OFF, OPP_OFF, flip, start_position, validate
from engine.match import MatchState, RuleError, Rules
from engine.movegen import legal_plays


def position(mine, theirs, bar=(0, 0), game="backgammon"):
    """A valid position (28,) from {point: count} maps; the rest of each side is borne off."""
    pos = np.zeros(28, dtype=np.int8)
    for point, count in mine.items():
        pos[point - 1] += count
    for point, count in theirs.items():
        pos[point - 1] -= count
    pos[24], pos[25] = bar
    pos[26] = 15 - sum(mine.values()) - bar[0]
    pos[27] = 15 - sum(theirs.values()) - bar[1]
    validate(game, pos)
    return pos


def state_at(pos, rules=None, score=(0, 0), crawford_played=False, mover=0, cube=1, owner=None, dice=None):
    """A game state mid-game: ``mover`` on roll in ``pos``, or with ``dice`` thrown."""
    rules = rules or Rules()
    match = MatchState(rules=rules, score=score, crawford_played=crawford_played)
    return g.resume_game(match, pos, mover, cube=cube, cube_owner=owner, dice=dice)


BEAR_OFF_LAST = {1: 1}  # the mover has one checker left, on its 1-point: any roll ends the game
MIDGAME = start_position("backgammon")


# --- the opening and the turns ----------------------------------------------------------------------


def test_backgammon_opening_higher_die_plays_both_dice():
    """Backgammon opening: ties are thrown again and the higher side plays the two dice just thrown."""
    state = g.start_game(g.new_match(), throws=[(3, 3), (2, 5)])
    assert (state.mover, state.phase, state.dice, state.cube) == (1, g.Phase.MOVE, (5, 2), 1)
    expected, _ = legal_plays("backgammon", start_position("backgammon", 1), np.array([[5, 2]]))
    assert {r.tobytes() for r in state.plays} == {r.tobytes() for r in expected}
    assert state.opening == ((3, 3), (2, 5))


def test_automatic_doubles_stop_at_the_limit_and_at_64():
    """Each opening tie doubles the centred cube, at most ``automatic_doubles`` times and never past 64."""
    ties = [(1, 1), (2, 2), (3, 3)]
    state = g.start_game(g.new_match(automatic_doubles=2), throws=ties + [(6, 1)])
    assert (state.cube, state.cube_owner, state.mover) == (4, None, 0)
    state = g.start_game(g.new_match(automatic_doubles=10), throws=ties * 3 + [(1, 6)])
    assert state.cube == 64
    assert g.start_game(g.new_match(), throws=ties + [(6, 1)]).cube == 1


@pytest.mark.parametrize("throws", [[(3, 3)], [(6, 1), (2, 2)], [(6, 1), (5, 2)], [(7, 1)], [], [(1,)]])
def test_opening_refuses_throws_that_are_no_opening(throws):
    """An opening is ties then exactly one non-tie, dice 1..6."""
    with pytest.raises(RuleError):
        g.start_game(g.new_match(), throws=throws)


def test_nardi_opening_winner_throws_both_dice_for_a_first_turn():
    """Nardi: the higher single die starts by throwing both dice; its 6-6 takes two checkers off the head."""
    state = g.start_game(g.new_match(game="nardi"), throws=[(4, 4), (2, 6)])
    assert (state.mover, state.phase, state.dice) == (1, g.Phase.ROLL, None)
    state = g.roll(state, (6, 6))
    assert len(state.plays) == 1
    assert state.plays[0][23] == 13 and state.plays[0][17] == 2


def test_same_seed_gives_the_same_game():
    """Dice come only from the injected rng: one seed, one game."""

    def run(seed):
        rng = np.random.default_rng(seed)
        state, seen = g.start_game(g.new_match(), rng), []
        while not state.is_over:
            if state.phase is g.Phase.ROLL:
                state = g.roll(state, rng)
            else:
                state = g.play(state, state.plays[rng.integers(len(state.plays))])
            seen.append((state.mover, state.position.tobytes()))
        return seen, state.result

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_a_play_flips_the_position_and_passes_the_turn():
    """After a play the other side is on roll and sees the child from its own side."""
    state = g.start_game(g.new_match(), throws=[(6, 1)])
    child = state.plays[3]
    after = g.play(state, child)
    assert (after.mover, after.phase, after.dice, after.turns) == (1, g.Phase.ROLL, None, 1)
    assert np.array_equal(after.position, flip("backgammon", child))
    assert np.array_equal(g.view(after, 0), child)


def test_only_legal_plays_and_only_in_turn():
    """A position that no play of the roll leaves, a play before the roll and a second roll are refused."""
    state = g.start_game(g.new_match(), throws=[(6, 1)])
    with pytest.raises(RuleError, match="not a legal play of 6-1"):
        g.play(state, start_position("backgammon"))
    with pytest.raises(RuleError, match="already thrown"):
        g.roll(state, (2, 3))
    with pytest.raises(RuleError, match="player 1 may not play"):
        g.play(state, state.plays[0], side=1)
    after = g.play(state, state.plays[0])
    with pytest.raises(RuleError, match="not been thrown"):
        g.play(after, after.position)
    with pytest.raises(RuleError, match="dice show 1..6"):
        g.roll(after, (0, 3))


def test_a_roll_with_nothing_to_play_passes():
    """On the bar against a closed board the only "play" is the position itself, and the turn passes."""
    closed = position({13: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}, bar=(1, 0))
    state = state_at(closed, dice=(6, 5))
    assert len(state.plays) == 1 and np.array_equal(state.plays[0], closed)
    after = g.play(state, state.plays[0])
    assert after.mover == 1 and np.array_equal(after.position, flip("backgammon", closed))


def test_resume_game_takes_up_a_reachable_state_and_refuses_others():
    """A game taken up mid-way: on roll, with dice, or doubled; impossible positions and cubes refused."""
    match = MatchState(Rules(match_length=5), score=(1, 2))
    assert g.resume_game(match, MIDGAME, 1).phase is g.Phase.ROLL
    assert g.resume_game(match, MIDGAME, 1, dice=(3, 3)).dice == (3, 3)
    doubled = g.resume_game(match, MIDGAME, 0, cube=2, cube_owner=0, doubled=True)
    assert (doubled.phase, doubled.to_act, doubled.cube) == (g.Phase.TAKE, 1, 2)
    bad = MIDGAME.copy()
    bad[0] = 0
    cases = [
        ({"position": bad}, "checkers"),
        ({"position": position({}, {12: 15})}, "already over"),
        ({"cube": 3}, "power of two"),
        ({"cube": 1, "cube_owner": 0}, "only a turned cube"),
        ({"mover": 2}, "mover is 0 or 1"),
        ({"dice": (3, 1), "doubled": True}, "before its roll"),
    ]
    for options, reason in cases:
        args = {"position": MIDGAME, "mover": 0} | options
        with pytest.raises(RuleError, match=reason):
            g.resume_game(match, args.pop("position"), args.pop("mover"), **args)
    with pytest.raises(RuleError, match="Crawford"):
        g.resume_game(MatchState(Rules(match_length=5), score=(4, 0)), MIDGAME, 0, doubled=True)
    with pytest.raises(RuleError, match="long nardi has no doubling cube"):
        g.resume_game(g.new_match(game="nardi"), start_position("nardi"), 0, cube=2, cube_owner=0)


# --- the end of a game ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "theirs, level, name",
    [({12: 10}, 1, "single"), ({12: 15}, 2, "gammon"), ({3: 1, 12: 14}, 3, "backgammon")],
)
@pytest.mark.parametrize("cube, owner", [(1, None), (4, 1)])
def test_bearing_off_the_last_checker_scores_level_times_cube(theirs, level, name, cube, owner):
    """Single 1, gammon 2 (loser bore off none), backgammon 3 (also one in the winner's home), x cube."""
    state = state_at(position(BEAR_OFF_LAST, theirs), cube=cube, owner=owner, dice=(2, 1))
    over = g.play(state, state.plays[0])
    assert over.is_over and over.to_act is None and over.position[OFF] == 15
    assert (over.result.winner, over.result.level, over.result.name) == (0, level, name)
    assert over.result.points == level * cube


def test_jacoby_counts_gammons_single_only_while_the_cube_is_centred():
    """Jacoby (money): a gammon scores 1 x cube on a centred cube, 2 x cube once the cube was taken."""
    rules = Rules(jacoby=True)
    gammon = position(BEAR_OFF_LAST, {12: 15})
    for cube, owner, points in ((1, None, 1), (2, None, 2), (2, 0, 4)):
        state = state_at(gammon, rules=rules, cube=cube, owner=owner, dice=(3, 1))
        assert g.play(state, state.plays[0]).result.points == points
    assert g.game_points(Rules(match_length=5), 2, 1, None) == 2


def test_nardi_scores_a_win_or_a_mars():
    """Long nardi: 1 point for a win, 2 (a mars) if the loser bore off none; no cube."""
    for theirs, points in (({20: 15}, 2), ({20: 14}, 1)):
        pos = position(BEAR_OFF_LAST, theirs, game="nardi")
        state = state_at(pos, rules=Rules(game="nardi"), dice=(4, 2))
        result = g.play(state, state.plays[0]).result
        assert (result.points, result.name) == (points, "mars" if points == 2 else "win")


# --- the cube ---------------------------------------------------------------------------------------


def test_double_then_take_gives_the_taker_the_cube_at_twice_the_value():
    """A take: the taker owns the cube at 2; the doubler then rolls and may not double again."""
    state = g.double(state_at(MIDGAME))
    assert (state.phase, state.to_act, g.actions(state)) == (g.Phase.TAKE, 1, ("take", "drop"))
    taken = g.take(state, side=1)
    assert (taken.cube, taken.cube_owner, taken.phase, taken.mover) == (2, 1, g.Phase.ROLL, 0)
    assert g.actions(taken) == ("roll",)
    with pytest.raises(RuleError, match="the cube belongs to player 1"):
        g.double(taken)
    taker_on_roll = state_at(flip("backgammon", MIDGAME), mover=1, cube=2, owner=1)
    redoubled = g.take(g.double(taker_on_roll))
    assert (redoubled.cube, redoubled.cube_owner) == (4, 0)


def test_drop_loses_the_value_before_the_double():
    """A drop ends the game: the doubler wins the cube's value before the double."""
    state = g.drop(g.double(state_at(MIDGAME, cube=4, owner=0)))
    result = state.result
    assert (result.winner, result.points, result.how, result.level) == (0, 4, "dropped", 1)


def test_double_only_by_the_side_on_turn_before_its_roll():
    """No double after the roll, none by the other side, no answer without a double."""
    with pytest.raises(RuleError, match="before its roll"):
        g.double(state_at(MIDGAME, dice=(3, 1)))
    with pytest.raises(RuleError, match="player 1 may not double"):
        g.double(state_at(MIDGAME), side=1)
    for answer in (g.take, g.drop, g.beaver):
        with pytest.raises(RuleError, match="no double to answer"):
            answer(state_at(MIDGAME))
    with pytest.raises(RuleError, match="player 0 may not take"):
        g.take(g.double(state_at(MIDGAME)), side=0)


def test_beaver_only_in_money_play_with_the_option_on():
    """A beaver: the taker redoubles at once and keeps the cube at four times its value."""
    beavered = g.beaver(g.double(state_at(MIDGAME, rules=Rules(beavers=True))))
    assert (beavered.cube, beavered.cube_owner, beavered.phase, beavered.mover) == (4, 1, g.Phase.ROLL, 0)
    with pytest.raises(RuleError, match="option is off"):
        g.beaver(g.double(state_at(MIDGAME)))
    with pytest.raises(RuleError, match="money play only"):
        g.beaver(g.double(state_at(MIDGAME, rules=Rules(match_length=7))))
    with pytest.raises(RuleError, match="money-play options"):
        Rules(match_length=7, beavers=True)


def test_the_cube_goes_no_higher_than_64():
    """No double from 64; a double from 32 reaches 64; a beaver past 64 is refused."""
    rules = Rules(beavers=True)
    with pytest.raises(RuleError, match="no higher than 64"):
        g.double(state_at(MIDGAME, rules=rules, cube=64, owner=0))
    doubled = g.double(state_at(MIDGAME, rules=rules, cube=32, owner=0))
    assert g.take(doubled).cube == 64
    assert "beaver" not in g.actions(doubled)
    with pytest.raises(RuleError, match="past 64"):
        g.beaver(doubled)
    assert g.beaver(g.double(state_at(MIDGAME, rules=rules, cube=16, owner=0))).cube == 64


def test_no_doubling_in_the_crawford_game_and_back_after_it():
    """5-point match at 4-2: nobody doubles in the Crawford game; after it the trailer may, the leader may not."""
    rules = Rules(match_length=5)
    for mover in (0, 1):
        crawford = state_at(MIDGAME, rules=rules, score=(4, 2), mover=mover)
        assert crawford.match.is_crawford
        with pytest.raises(RuleError, match="no doubling in the Crawford game"):
            g.double(crawford)
    trailer = state_at(MIDGAME, rules=rules, score=(4, 2), crawford_played=True, mover=1)
    assert trailer.match.post_crawford and g.may_double(trailer)
    leader = state_at(MIDGAME, rules=rules, score=(4, 2), crawford_played=True, mover=0)
    with pytest.raises(RuleError, match="dead cube: .* already gives player 0 the match"):
        g.double(leader)


def test_a_refused_double_says_the_reason_of_the_whole_turn_first():
    """After the roll, the Crawford game, the opponent's cube and a dead cube are named before "only
    before its roll"; the sides' names are the caller's."""
    crawford = state_at(MIDGAME, rules=Rules(match_length=5), score=(4, 2), dice=(3, 1))
    assert g.double_refusal(crawford) == "no doubling in the Crawford game"
    theirs = state_at(MIDGAME, cube=2, owner=1, dice=(3, 1))
    assert g.double_refusal(theirs, ("you", "the bot")).startswith("the cube belongs to the bot")
    dead = state_at(MIDGAME, rules=Rules(match_length=5), score=(3, 0), cube=2, owner=0, dice=(3, 1))
    assert g.double_refusal(dead, ("you", "the bot")).startswith("dead cube: winning this game at 2 already gives you")
    assert g.double_refusal(state_at(MIDGAME, dice=(3, 1))) == "a side may double only before its roll"


def test_no_double_for_a_side_whose_cube_value_already_wins_the_match():
    """7-point match at 5-3 with a 2-cube: the side at 5 may not redouble; the side at 3 may."""
    rules = Rules(match_length=7)
    assert not g.may_double(state_at(MIDGAME, rules=rules, score=(5, 3), cube=2, owner=0))
    assert g.may_double(state_at(MIDGAME, rules=rules, score=(5, 3), cube=2, owner=1, mover=1))
    assert g.may_double(state_at(MIDGAME, rules=rules, score=(4, 3), cube=2, owner=0))


def test_no_cube_in_a_one_point_match_in_nardi_or_cubeless_play():
    """Doubling is refused in a one-point match, in long nardi and with the cube off."""
    cases = [
        (Rules(match_length=1), MIDGAME, "one-point match has no cube"),
        (Rules(game="nardi"), start_position("nardi"), "long nardi has no doubling cube"),
        (Rules(cube=False), MIDGAME, "without the cube"),
    ]
    for rules, pos, reason in cases:
        state = state_at(pos, rules=rules)
        assert g.actions(state) == ("roll",)
        with pytest.raises(RuleError, match=reason):
            g.double(state)
    nardi = state_at(start_position("nardi"), rules=Rules(game="nardi"))
    for answer in (g.take, g.drop, g.beaver):
        with pytest.raises(RuleError, match="long nardi has no doubling cube"):
            answer(nardi)


# --- resignation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mine, theirs, bar, most",
    [
        ({1: 1}, {12: 10}, (0, 0), 1),  # the loser (player 1) has borne off: a single at most
        ({1: 1}, {12: 15}, (0, 0), 2),  # no contact, nothing in the winner's home: a gammon at most
        ({1: 1}, {3: 1, 12: 14}, (0, 0), 3),  # a checker in the winner's home board
        ({1: 1}, {12: 14}, (0, 1), 3),  # a checker on the bar
        ({20: 1}, {12: 15}, (0, 0), 3),  # contact: a loser checker may still be hit and sent back
    ],
)
def test_resignation_is_capped_at_what_the_game_can_still_be_lost_by(mine, theirs, bar, most):
    """The side not on turn may offer up to max_resignation; a bigger offer is refused with the reason."""
    state = state_at(position(mine, theirs, bar))
    assert g.max_resignation(state, 1) == most
    offered = g.offer_resignation(state, 1, most)
    assert offered.resignation == (1, most) and offered.to_act == 0
    if most < 3:
        with pytest.raises(RuleError, match="can no longer lose"):
            g.offer_resignation(state, 1, most + 1)


def test_an_accepted_resignation_ends_the_game_at_level_times_cube():
    """Accepting a gammon offer on a 2-cube gives the other side 4; with Jacoby and a centred cube, 1 x cube."""
    state = g.offer_resignation(state_at(MIDGAME, cube=2, owner=1), 0, 2)
    result = g.accept_resignation(state, side=1).result
    assert (result.winner, result.points, result.how) == (1, 4, "resigned")
    jacoby = g.offer_resignation(state_at(MIDGAME, rules=Rules(jacoby=True)), 0, 3)
    assert g.accept_resignation(jacoby).result.points == 1
    nardi = state_at(start_position("nardi"), rules=Rules(game="nardi"))
    assert g.accept_resignation(g.offer_resignation(nardi, 1, 2)).result.points == 2
    with pytest.raises(RuleError, match="a resignation is 1 .a win., 2 .a mars."):
        g.offer_resignation(nardi, 1, 3)


def test_after_a_rejection_the_side_may_offer_again_only_after_a_roll_is_played():
    """A rejected side waits for the next play (a roll thrown is not enough); the other side need not."""
    state = g.reject_resignation(g.offer_resignation(state_at(MIDGAME), 0, 1), side=1)
    assert state.resignation is None and state.phase is g.Phase.ROLL
    with pytest.raises(RuleError, match="may offer again once a roll has been played"):
        g.offer_resignation(state, 0, 1)
    assert g.offer_resignation(state, 1, 1).resignation == (1, 1)
    rolled = g.roll(state, (3, 1))
    with pytest.raises(RuleError, match="once a roll has been played"):
        g.offer_resignation(rolled, 0, 2)
    played = g.play(rolled, rolled.plays[0])
    assert g.offer_resignation(played, 0, 2).resignation == (0, 2)


def test_no_resigning_while_a_double_waits_and_nothing_else_while_an_offer_waits():
    """A waiting double blocks resignations; a waiting offer blocks everything but its answer by the other side."""
    with pytest.raises(RuleError, match="while a double waits"):
        g.offer_resignation(g.double(state_at(MIDGAME)), 1, 1)
    waiting = g.offer_resignation(state_at(MIDGAME, dice=(4, 2)), 1, 1)
    assert g.actions(waiting) == ("accept", "reject")
    for action in (lambda s: g.play(s, s.plays[0]), g.double, lambda s: g.offer_resignation(s, 0, 1)):
        with pytest.raises(RuleError, match="waits for its answer"):
            action(waiting)
    with pytest.raises(RuleError, match="player 1 may not accept"):
        g.accept_resignation(waiting, side=1)
    resumed = g.reject_resignation(waiting)
    assert resumed.phase is g.Phase.MOVE and resumed.dice == (4, 2)
    with pytest.raises(RuleError, match="no resignation offer waits"):
        g.accept_resignation(resumed)


def test_nothing_happens_after_the_game_is_over():
    """Every action on a finished game is refused."""
    over = g.drop(g.double(state_at(MIDGAME)))
    assert over.is_over and g.actions(over) == () and over.position[OPP_OFF] == 0
    for action in (g.double, lambda s: g.roll(s, (1, 2)), lambda s: g.offer_resignation(s, 0, 1), g.take):
        with pytest.raises(RuleError, match="over"):
            action(over)
