"""The compiled move generator (engine/movegen_numba.py) gives the numpy reference's answer exactly.

``legal_plays`` with the kernel off (engine/movegen.py's numpy code) and on: the same children in the
same order, the same parents and the same step trails, with the same dtypes, for both games, every
one of the 21 rolls, on seeded positions of every kind, on positions with the checkers scattered
anywhere, with long nardi's first-turn override, and on hypothesis' positions and dice.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import movegen
from engine.board import start_position
from engine.compiled import use_numba
from engine.movegen import ALL_ROLLS, legal_plays
from engine.tools.sample import KINDS, random_positions
from tests.net.test_encode_numba import scattered
from tests.strategies import DICE, FUZZ, positions

pytest.importorskip("numba")


def both_paths(*args, **kwargs):
    """``legal_plays(*args, **kwargs)`` with the numpy code, then with the kernel."""
    previous = use_numba(False)
    try:
        reference = legal_plays(*args, **kwargs)
        use_numba(True)
        assert movegen._kernel() is not None, "the kernel did not load"
        compiled = legal_plays(*args, **kwargs)
    finally:
        use_numba(previous)
    return reference, compiled


def assert_same(reference, compiled):
    assert len(reference) == len(compiled)
    for a, b in zip(reference, compiled):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b)


def every_roll(pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each position with each of the 21 rolls, the lower die first for half of them."""
    dice = np.tile(ALL_ROLLS, (len(pos), 1))
    dice[::2] = dice[::2, ::-1]
    return np.repeat(pos, len(ALL_ROLLS), axis=0), dice


@pytest.mark.parametrize("game,kind", [(g, k) for g in ("backgammon", "nardi") for k in KINDS[g]])
def test_every_kind_every_roll_gives_the_same_plays(game, kind):
    pos, _ = random_positions(game, 120, seed=13, kind=kind)
    assert_same(*both_paths(game, *every_roll(pos), with_steps=True))
    assert_same(*both_paths(game, *every_roll(pos[:20])))


def test_scattered_backgammon_checkers_give_the_same_plays():
    """Both bars, hits and bear-offs of every sort, passes (a closed board with checkers on the bar)."""
    pos, dice = every_roll(scattered(400, seed=8))
    reference, compiled = both_paths("backgammon", pos, dice, with_steps=True)
    assert (np.bincount(reference[1]) == 1).any()  # some rolls pass or leave one play
    assert_same(reference, compiled)


@pytest.mark.parametrize("first_turn", [True, False])
def test_long_nardi_first_turn_override(first_turn):
    """The head limits (two checkers off the head on a first turn's 6-6, 4-4, 3-3) reach the kernel."""
    pos, dice = every_roll(np.concatenate([start_position("nardi", batch=1), random_positions("nardi", 40, seed=2)[0]]))
    assert_same(*both_paths("nardi", pos, dice, first_turn=first_turn, with_steps=True))


def test_one_position_at_a_time_and_an_empty_batch():
    pos, dice = random_positions("backgammon", 50, seed=4)
    for i in range(50):
        assert_same(*both_paths("backgammon", pos[i : i + 1], dice[i : i + 1], with_steps=True))
    assert_same(*both_paths("backgammon", pos[:0], dice[:0], with_steps=True))


@FUZZ
@given(st.sampled_from(["backgammon", "nardi"]).flatmap(
    lambda game: st.tuples(st.just(game), st.lists(st.tuples(positions(game), DICE), min_size=1, max_size=16))))
def test_hypothesis_positions_give_the_same_plays(case):
    game, drawn = case
    pos = np.stack([p for p, _ in drawn])
    dice = np.array([d for _, d in drawn])
    assert_same(*both_paths(game, pos, dice, with_steps=True))


def test_arguments_of_other_types_reach_the_compiled_code_as_its_own():
    """The kernels' machine code is called without numba's dispatcher (movegen_numba.compiled), so
    legal_plays must hand it exactly the types it was compiled for: read-only, strided, other integer
    types and lists give the answer of plain int8 and int64 arrays."""
    pos, dice = random_positions("backgammon", 30, seed=6)
    for rows in (slice(0, 1), slice(0, 30)):
        want = both_paths("backgammon", pos[rows], dice[rows], with_steps=True)[1]
        readonly = pos[rows].copy()
        readonly.flags.writeable = False
        strided = np.repeat(pos[rows], 2, axis=0)[::2]
        flipped = np.ascontiguousarray(dice[rows][:, ::-1])[:, ::-1]  # strided, the same dice
        for p, d in ((readonly, dice[rows]), (strided, flipped), (pos[rows].astype(np.int16), dice[rows].astype(np.int8)),
                     (pos[rows].tolist(), dice[rows].tolist())):
            assert_same(want, both_paths("backgammon", p, d, with_steps=True)[1])
            assert_same(want[:2], both_paths("backgammon", p, d)[1])


@pytest.mark.parametrize("rows", [1, 3, 300])
@pytest.mark.parametrize("bad", [0, 7, -1])
def test_the_kernel_refuses_a_bad_die_in_the_same_words(rows, bad):
    """The kernel checks the dice itself (for one position, a tenth of the check's time in Python)."""
    pos, dice = random_positions("backgammon", rows, seed=5)
    dice[rows - 1, 0] = bad
    previous = use_numba(True)
    try:
        for with_steps in (False, True):
            with pytest.raises(ValueError, match=r"dice must have shape \(B, 2\) with values 1\.\.6"):
                legal_plays("backgammon", pos, dice, with_steps=with_steps)
    finally:
        use_numba(previous)


def test_threads_each_work_in_their_own_workspace():
    """legal_plays from several threads (a web server's), each with its own workspace, gives the one thread's answer."""
    from concurrent.futures import ThreadPoolExecutor

    pos, dice = random_positions("backgammon", 64, seed=9)
    previous = use_numba(True)
    try:
        want = [legal_plays("backgammon", pos[i : i + 1], dice[i : i + 1]) for i in range(64)]
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda i: legal_plays("backgammon", pos[i : i + 1], dice[i : i + 1]), range(64)))
    finally:
        use_numba(previous)
    for a, b in zip(want, got):
        assert_same(a, b)
