"""Matches and money sessions (engine.match), and random matches played to the end through engine.game.

The random matches take random legal and illegal actions (doubles at any moment, beavers, drops,
resignations by either side) and check every answer of the transitions against a referee written
here from RULES-DECISIONS.md, then check that the final scores add up.
"""

from collections import Counter

import numpy as np
import pytest

from engine import game as g
from engine.board import BAR, OFF, has_contact
from engine.match import GameResult, MatchState, RuleError, Rules, new_match, record_result


def result(winner, points, game="backgammon"):
    """A finished game worth ``points`` to ``winner``."""
    return GameResult(winner=winner, level=1, cube=points, points=points, how="played", game=game)


# --- rules and scoring ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, reason",
    [
        ({"match_length": 26}, "1..25 points"),
        ({"match_length": -1}, ">= 0"),
        ({"match_length": 5, "jacoby": True}, "money-play options"),
        ({"match_length": 3, "automatic_doubles": 2}, "money-play options"),
        ({"match_length": 3, "session_games": 2}, "money-play options"),
        ({"game": "nardi", "beavers": True}, "long nardi has no doubling cube"),
        ({"game": "nardi", "jacoby": True}, "long nardi has no doubling cube"),
        ({"cube": False, "automatic_doubles": 1}, "need the cube"),
        ({"game": "chess"}, "unknown game"),
    ],
)
def test_rules_refuse_options_that_cannot_go_together(options, reason):
    """Money-only options in a match, cube options without a cube, bad lengths: RuleError with the reason."""
    with pytest.raises(RuleError, match=reason):
        Rules(**options)


def test_crawford_game_comes_once_after_a_side_reaches_one_away():
    """5-point match: 0-0, 3-0 normal; 4-0 Crawford; after it every game is post-Crawford, also at 4-4."""
    match = new_match(match_length=5)
    assert not match.is_crawford and not match.post_crawford
    match = record_result(match, result(0, 3))
    assert not match.is_crawford
    match = record_result(match, result(0, 1))
    assert match.score == (4, 0) and match.is_crawford
    match = record_result(match, result(1, 2))
    assert match.crawford_played and not match.is_crawford and match.post_crawford
    match = record_result(match, result(1, 2))
    assert match.score == (4, 4) and not match.is_crawford and match.post_crawford


def test_no_crawford_game_when_a_side_jumps_past_one_away_or_in_short_matches():
    """A gammon from 1-0 to 3-0 in a 3-point match ends it; a 1-point match has no Crawford game."""
    match = record_result(new_match(match_length=3), result(0, 1))
    match = record_result(match, result(0, 2))
    assert match.is_over and match.winner == 0 and not match.is_crawford
    assert not new_match(match_length=1).is_crawford
    assert not MatchState(Rules(game="nardi", match_length=5), score=(4, 0)).is_crawford


def test_a_match_ends_when_a_side_reaches_its_length_and_refuses_more_games():
    """Scores add up to the length or past it; the match is over and no game can start or be recorded."""
    match = record_result(new_match(match_length=3), result(1, 4))
    assert (match.score, match.is_over, match.winner, match.away(0)) == ((0, 4), True, 1, 3)
    with pytest.raises(RuleError, match="the match is over"):
        g.start_game(match, throws=[(6, 1)])
    with pytest.raises(RuleError, match="the match is over"):
        record_result(match, result(0, 1))


def test_a_money_session_ends_only_after_its_games():
    """Money play scores points without end, or ends after ``session_games`` games."""
    endless = new_match()
    for _ in range(30):
        endless = record_result(endless, result(0, 8))
    assert not endless.is_over and endless.score == (240, 0) and endless.winner is None
    session = new_match(session_games=2)
    session = record_result(record_result(session, result(1, 2)), result(0, 1))
    assert session.is_over and session.winner == 1 and not session.is_crawford


def test_finish_game_refuses_an_unfinished_game_or_another_match():
    """Only a finished game of this very match state is scored."""
    match = new_match(match_length=3)
    state = g.start_game(match, throws=[(6, 1)])
    with pytest.raises(RuleError, match="not over"):
        g.finish_game(match, state)
    over = g.drop(g.double(g.play(state, state.plays[0])))
    assert g.finish_game(match, over).score == (0, 1)
    with pytest.raises(RuleError, match="not started from this match"):
        g.finish_game(record_result(match, result(0, 1)), over)


# --- random matches against a referee ---------------------------------------------------------------


def may_double(state, crawford):
    """Referee: "before its roll, the side on turn may double" when the cube is centred or its own;
    not in long nardi, cubeless play, a 1-point match or the Crawford game; never past 64; not when
    its score plus the cube value reaches the match length."""
    rules, mover = state.rules, state.mover
    if rules.game != "backgammon" or not rules.cube or rules.match_length == 1 or crawford:
        return False
    if state.phase is not g.Phase.ROLL or state.resignation is not None:
        return False
    if state.cube_owner not in (None, mover) or state.cube * 2 > 64:
        return False
    return not (rules.match_length and state.match.score[mover] + state.cube >= rules.match_length)


def resignation_cap(state, side):
    """Referee: 1 once the side bore off; in backgammon 3 with a checker on the bar, in the winner's
    home board or any contact left; else 2."""
    own = g.view(state, side)
    if own[OFF]:
        return 1
    if state.game == "nardi":
        return 2
    alive = own[BAR] > 0 or (own[18:24] > 0).any() or has_contact("backgammon", own[None])[0]
    return 3 if alive else 2


def refusal_kind(state, crawford):
    """Which rule a refused double before the roll ran into, for the coverage counts."""
    rules, mover = state.rules, state.mover
    if rules.game != "backgammon" or not rules.cube or rules.match_length == 1:
        return "no cube refusal"
    if crawford:
        return "crawford refusal"
    if state.cube_owner not in (None, mover):
        return "owner refusal"
    if state.cube * 2 > 64:
        return "64 refusal"
    return "dead cube refusal"


def attempt(action, state, *args):
    """(new state, True) if the transition accepted, (state, False) if it raised RuleError."""
    try:
        return action(state, *args), True
    except RuleError:
        return state, False


def random_step(state, rng, crawford, barred, seen):
    """One random action; every accept/refuse is checked against the referee. Returns the new state."""
    if rng.random() < 0.01:  # either side offers a random resignation, whatever the phase
        side, level = int(rng.integers(2)), int(rng.integers(1, 4))
        ok_expected = (
            state.resignation is None
            and state.phase is not g.Phase.TAKE
            and not barred[side]
            and level <= resignation_cap(state, side)
        )
        new, ok = attempt(g.offer_resignation, state, side, level)
        assert ok == ok_expected, (side, level, state.phase, barred)
        seen["resign offered" if ok else "resign refused"] += 1
        return new
    if state.resignation is not None:
        offerer = state.resignation[0]
        if rng.random() < 0.2:
            return g.accept_resignation(state, side=1 - offerer)
        barred[offerer] = True
        return g.reject_resignation(state, side=1 - offerer)
    if state.phase is g.Phase.TAKE:
        r = rng.random()
        if r < 0.2:
            rules = state.rules
            ok_expected = rules.money and rules.beavers and state.cube * 4 <= 64
            new, ok = attempt(g.beaver, state)
            assert ok == ok_expected and ("beaver" in g.actions(state)) == ok_expected
            seen["beaver" if ok else "beaver refused"] += 1
            if ok:
                return new
        return g.drop(state) if r < 0.35 else g.take(state)
    if rng.random() < 0.4:  # try to double, also where the rules refuse it
        expected = may_double(state, crawford)
        new, ok = attempt(g.double, state)
        assert ok == expected == ("double" in g.actions(state)), (state.phase, state.cube, state.match.score)
        if ok:
            seen["double"] += 1
            seen["max cube"] = max(seen["max cube"], 2 * state.cube)
            return new
        if state.phase is g.Phase.ROLL:
            seen[refusal_kind(state, crawford)] += 1
    if state.phase is g.Phase.ROLL:
        return g.roll(state, rng)
    barred[:] = [False, False]
    return g.play(state, state.plays[rng.integers(len(state.plays))])


def check_cube(state):
    """Invariants after every step: the cube is 1..64, a power of two, owned only once turned."""
    assert state.cube in (1, 2, 4, 8, 16, 32, 64)
    if not state.rules.has_cube:
        assert state.cube == 1 and state.cube_owner is None
    if state.cube_owner is not None:
        assert state.cube_owner in (0, 1) and state.cube >= 2


def play_random_match(rules, seed, seen):
    """Play a whole match with random actions; return the final MatchState."""
    rng = np.random.default_rng(seed)
    match, crawford_seen, points = new_match(rules), False, [0, 0]
    length = rules.match_length
    while not match.is_over:
        crawford = rules.game == "backgammon" and length > 1 and not crawford_seen
        crawford = crawford and max(match.score) == length - 1
        assert match.is_crawford == crawford, match
        crawford_seen |= crawford
        seen["crawford games"] += crawford
        state, barred = g.start_game(match, rng), [False, False]
        while not state.is_over:
            state = random_step(state, rng, crawford, barred, seen)
            check_cube(state)
            assert state.resign_barred == tuple(barred)
        game_result = state.result
        assert 1 <= game_result.points <= 3 * state.cube
        points[game_result.winner] += game_result.points
        seen[game_result.how] += 1
        match = g.finish_game(match, state)
    assert tuple(points) == match.score
    assert sum(r.points for r in match.results) == sum(match.score)
    if length:
        assert max(match.score) >= length > min(match.score)
        assert match.score[match.winner] >= length
        last = match.results[-1]
        assert match.score[last.winner] - last.points < length  # nobody had won before the last game
    else:
        assert len(match.results) == rules.session_games
    return match


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
@pytest.mark.parametrize("length", [1, 3, 5, 7])
def test_random_matches_keep_the_rules_and_add_up(game, length):
    """Random matches of 1, 3, 5, 7 points end with the winner at the length; every cube action is ruled."""
    seen = Counter()
    for seed in range(8 if game == "backgammon" else 3):
        play_random_match(Rules(game=game, match_length=length), 100 * length + seed, seen)
    if game == "nardi" or length == 1:
        assert seen["double"] == 0 and seen["no cube refusal"] > 0
    else:
        assert seen["double"] > 0 and seen["owner refusal"] > 0 and seen["dead cube refusal"] > 0
    if game == "backgammon" and length > 3:
        assert seen["crawford games"] > 0 and seen["crawford refusal"] > 0
    assert seen["resign offered"] > 0 and seen["played"] > 0


@pytest.mark.parametrize(
    "rules",
    [
        Rules(session_games=8, jacoby=True, beavers=True, automatic_doubles=2),
        Rules(session_games=6),
        Rules(game="nardi", session_games=3),
    ],
    ids=["money-beavers-jacoby-auto", "money-plain", "nardi-session"],
)
def test_random_money_sessions_keep_the_rules_and_add_up(rules):
    """Money sessions run their games; beavers only where allowed, the cube up to 64 and no further."""
    seen = Counter()
    for seed in range(2):
        play_random_match(rules, seed, seen)
    if rules.beavers:
        assert (
            seen["beaver"] > 0 and seen["max cube"] == 64 and seen["64 refusal"] + seen["beaver refused"] > 0
        )
    elif rules.game == "backgammon":
        assert seen["double"] > 0 and seen["beaver refused"] > 0
    else:
        assert seen["double"] == 0 and seen["no cube refusal"] > 0
    assert seen["resign offered"] > 0
