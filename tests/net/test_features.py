"""Network inputs: shapes, the per-point units, and the shot counts behind the hit-chance feature."""

import numpy as np

from engine.board import flip, start_position
from engine.tools.sample import random_positions
from model.net.features import encode, hit_chance, num_features


def shooter_position(shooter: int, blot: int, block: int | None = None) -> np.ndarray:
    """Side on roll: one checker on ``shooter``, 14 on its 1-point; the opponent: a blot on ``blot``
    (in the roller's numbers), optionally two checkers making ``block``, the rest borne off."""
    pos = np.zeros(28, dtype=np.int8)
    pos[shooter - 1] = 1
    pos[0] += 14
    pos[blot - 1] = -1
    pos[27] = 14
    if block is not None:
        pos[block - 1] = -2
        pos[27] = 12
    return pos


def test_shot_counts_match_the_known_tables():
    """A blot 6 away is hit by 17 of 36 rolls, 8 away by 6, 11 away by 2; a point on the way blocks."""
    cases = {(8, 2): 17, (10, 2): 6, (13, 2): 2, (3, 2): 11}
    for (shooter, blot), rolls in cases.items():
        got = hit_chance(shooter_position(shooter, blot)[None])[0]
        assert round(got * 36) == rolls, (shooter, blot, got * 36)
    # with the opponent holding the 5-point, 3-3 can no longer go 8/5/2
    assert round(hit_chance(shooter_position(8, 2, block=5)[None])[0] * 36) == 16


def test_encoding_shapes_and_units():
    """The start position encodes the counts by TD-Gammon units, for both games and both sides
    (backgammon's feature version 2; version 3 has its own tests in test_contact_inputs.py)."""
    for game in ("backgammon", "nardi"):
        x = encode(game, start_position(game, 3))
        assert x.shape == (3, num_features(game)) and x.dtype == np.float32
    x = encode("backgammon", start_position("backgammon", 1), 2)[0]
    # mover's 6-point holds 5: units n>=1, n>=2, n>=3, (n-3)/2 = 1
    np.testing.assert_allclose(x[5 * 8 : 5 * 8 + 4], [1, 1, 1, 1])
    # opponent's 2 checkers on our 1-point
    np.testing.assert_allclose(x[0 * 8 + 4 : 0 * 8 + 8], [1, 1, 0, 0])


def test_hit_chance_of_both_sides_are_swapped_by_flipping():
    """The two hit-chance inputs of a position (feature version 2) are those of its flipped position,
    swapped."""
    pos = random_positions("backgammon", 200, seed=3)[0]
    a, b = encode("backgammon", pos, 2), encode("backgammon", flip("backgammon", pos), 2)
    np.testing.assert_allclose(a[:, 209], b[:, 210])
    np.testing.assert_allclose(a[:, 210], b[:, 209])


def test_whole_board_facts_match_their_definitions():
    """The longest run of made points and contact (both computed with bit and argmax tricks) equal a
    plain scan of the board, on random positions of both kinds."""
    from engine.board import has_contact
    from model.net.features import _longest_run

    pos = np.concatenate([random_positions("backgammon", 300, seed=s, kind=k)[0]
                          for s, k in ((1, "midgame"), (2, "race"), (3, "any"))])
    for row, made in zip(pos, _longest_run(pos[:, :24] >= 2)):
        runs = "".join("x" if c >= 2 else "." for c in row[:24]).split(".")
        assert made == max(len(r) for r in runs)
    for row, contact in zip(pos, has_contact("backgammon", pos)):
        mine = [25] * int(row[24] > 0) + [p + 1 for p in range(24) if row[p] > 0]
        theirs = [0] * int(row[25] > 0) + [p + 1 for p in range(24) if row[p] < 0]
        assert contact == (bool(mine) and bool(theirs) and max(mine) > min(theirs))
