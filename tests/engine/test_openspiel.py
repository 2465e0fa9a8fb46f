"""Backgammon move generation against OpenSpiel's (``pyspiel``), on every turn of seeded random games.

pyspiel cannot be handed a position, so the positions are reached by playing random games through
OpenSpiel itself; at every turn start its board is converted to our layout (``engine.tools.bench``'s
bridge) and both generators list every position the whole turn can leave.

OpenSpiel's semantics, read from its backgammon.cc and checked here: a turn of a non-double is one
action of two checker moves; it keeps only two-move actions when any exist, and when only one die
can be played it keeps the moves of the highest playable die, as RULES-DECISIONS rules 2 and 3 do.
A double is two such half-turns, the second with the same player to move, so the two halves are
combined into one full turn here. OpenSpiel asks for the most dice within each half, not across
the turn, so in principle a first half could leave fewer moves for the second than another first
half would; in backgammon a move never takes a move of the same die away from another checker, and
no such case was found in 360,000 constructed bear-off and bar positions, so nothing is excluded:
the comparison is of the full sets, exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from engine.board import BAR, OFF, flip, has_contact, start_position
from engine.movegen import legal_plays
from engine.tools.bench import (
    openspiel_dice,
    openspiel_position,
    openspiel_turn_leaves,
    openspiel_turn_starts,
)

GAMES = 24
SEED = 2024


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game("backgammon")


@pytest.fixture(scope="module")
def turn_starts(game):
    return openspiel_turn_starts(game, SEED, GAMES)


def test_bridge_reads_the_start_and_the_dice(game):
    """The converted opening board is our start from either side, and the dice are the thrown ones."""
    for outcome in (0, 20):  # one opening with each side to play
        state = game.new_initial_state()
        state.apply_action(outcome)
        player = state.current_player()
        np.testing.assert_array_equal(openspiel_position(state, player), start_position("backgammon"))
        np.testing.assert_array_equal(openspiel_position(state, 1 - player),
                                      flip("backgammon", start_position("backgammon")))
        text = state.to_string()
        a, b = openspiel_dice(state)
        assert f"Dice: {a}{b}" in text


def test_same_results_as_openspiel_at_every_turn(turn_starts):
    """At least 2,000 turn starts of random OpenSpiel games: the same set of resulting positions."""
    states, positions, dice, _ = turn_starts
    assert len(states) >= 2000
    children, parent = legal_plays("backgammon", positions, dice)
    starts = np.searchsorted(parent, np.arange(len(states) + 1))
    for i, state in enumerate(states):
        player = state.current_player()
        theirs = {tuple(openspiel_position(leaf, player).tolist()) for leaf in openspiel_turn_leaves(state)}
        ours = {tuple(row) for row in children[starts[i]:starts[i + 1]].tolist()}
        assert ours == theirs, (
            f"turn {i}: position {positions[i].tolist()} dice {dice[i].tolist()}: "
            f"only ours {sorted(ours - theirs)[:2]}, only OpenSpiel's {sorted(theirs - ours)[:2]}"
        )


def test_the_games_cover_the_hard_cases(turn_starts):
    """The compared turns include bar entries, bear-offs, races, doubles, passes and one-die plays."""
    states, positions, dice, _ = turn_starts
    children, parent = legal_plays("backgammon", positions, dice)
    first = np.searchsorted(parent, np.arange(len(positions)))
    counts = np.bincount(parent, minlength=len(positions))
    passes = (counts == 1) & (children[first] == positions).all(axis=1)
    all_home = ~(positions[:, 6:25] > 0).any(axis=1)
    doubles = dice[:, 0] == dice[:, 1]

    def one_die_only(state) -> bool:
        player = state.current_player()
        moves = [sum(m.pos >= 0 for m in state.spiel_move_to_checker_moves(player, a))
                 for a in state.legal_actions()]
        return max(moves) == 1

    cases = {
        "bar": int((positions[:, BAR] > 0).sum()),
        "bear-off": int((all_home & (positions[:, OFF] < 15)).sum()),
        "race": int((~has_contact("backgammon", positions)).sum()),
        "double": int(doubles.sum()),
        "pass": int(passes.sum()),
        "one die": sum(one_die_only(s) for s, d in zip(states, doubles) if not d),
    }
    assert min(cases.values()) >= 20, cases
