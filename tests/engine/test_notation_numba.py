"""The compiled notation (engine/notation_numba.py) writes engine/notation.py's text, byte for byte.

``format_generated_many`` with the kernel off (the Python reference: ``generated_steps`` and
``group_steps``) and on, for every play of every roll of seeded positions of every kind of both
games, positions with the checkers scattered anywhere, and long nardi's first turn.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import notation
from engine.board import start_position
from engine.compiled import use_numba
from engine.movegen import ALL_ROLLS, legal_plays
from engine.notation import format_generated_each, format_generated_many
from engine.tools.sample import KINDS, random_positions
from tests.net.test_encode_numba import scattered

pytest.importorskip("numba")


def assert_same_notation(game, positions, dice, first_turn=None):
    """Both paths' notation of every child of every position (the generator's steps), and how many
    plays were compared."""
    _, parent, taken = legal_plays(game, positions, dice, first_turn, with_steps=True)
    compared = 0
    lasts = []  # each position's last play and its text, for format_generated_each
    for i in range(len(positions)):
        rows = np.flatnonzero(parent == i)
        previous = use_numba(False)
        try:
            reference = format_generated_many(game, positions[i], taken[rows])
            use_numba(True)
            assert notation._kernel() is not None, "the kernel did not load"
            compiled = format_generated_many(game, positions[i], taken[rows])
        finally:
            use_numba(previous)
        assert compiled == reference, (game, positions[i].tolist(), dice[i].tolist())
        compared += len(rows)
        lasts.append((rows[-1], reference[-1]))
    rows = np.array([row for row, _ in lasts])
    previous = use_numba(False)
    try:  # one play of each position, all positions in one call: the same texts on both paths
        each_reference = format_generated_each(game, positions, taken[rows])
        use_numba(True)
        each_compiled = format_generated_each(game, positions, taken[rows])
    finally:
        use_numba(previous)
    assert each_reference == each_compiled == [text for _, text in lasts]
    return compared


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_every_kind_every_roll(game):
    """Seeded positions of every kind, each with all 21 rolls: hits, joins, counts, bar, off."""
    compared = 0
    for seed, kind in enumerate(KINDS[game]):
        positions, _ = random_positions(game, 12, seed=300 + seed, kind=kind)
        positions = np.repeat(positions, len(ALL_ROLLS), axis=0)  # each position with every roll
        dice = np.tile(ALL_ROLLS, (12, 1))
        compared += assert_same_notation(game, positions, dice)
    assert compared > 5_000


def test_scattered_positions():
    """Backgammon checkers anywhere (scattered blots: many hits, and joins through hit points)."""
    positions = scattered(400, 5)
    dice = np.random.default_rng(5).integers(1, 7, size=(len(positions), 2))
    assert assert_same_notation("backgammon", positions, dice) > 1_000


def test_long_nardi_first_turn():
    """Two checkers may leave the head on long nardi's first turn with 6-6, 4-4 or 3-3."""
    positions = np.repeat(start_position("nardi", batch=1), len(ALL_ROLLS), axis=0)
    assert assert_same_notation("nardi", positions, ALL_ROLLS, first_turn=True) > 0


def test_known_texts():
    """A few plays written out: a hit kept on the way, a count, a bear-off, a pass."""
    from engine.formats.position import read_position_id

    position = read_position_id("4HPwATDgc/ABMA")  # the opening position
    _, _, taken = legal_plays("backgammon", position[None], np.array([[6, 6]]), with_steps=True)
    previous = use_numba(True)
    try:
        moves = format_generated_many("backgammon", position, taken)
    finally:
        use_numba(previous)
    assert "24/18(2) 13/7(2)" in moves
