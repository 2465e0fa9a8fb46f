"""Two-sided bear-off database for backgammon: up to 6 checkers a side on the home points, exact.

A position is a pair (x, y): x the home board of the side on roll ("me"), y the opponent's, each a
one-sided rank below 924 (model/net/bearoff.py: ranks < 924 are exactly the boards of 0..6
checkers). With at most 6 checkers left a side has borne off at least 9, so there are no gammons:
every game is won or lost by one unit times the cube. Ranks 0 (an empty board) are finished games:
x empty, I have won; y empty (and x not), I have lost.

Cubeless (play to win): W(x, y) = P(I win), with plays(x, r) the results of a full play of roll r
(w_r = 1/36 for a double, 2/36 otherwise):
    W(empty, y) = 1,   W(x, empty) = 0,   W(x, y) = sum_r w_r max_{c in plays(x, r)} (1 - W(y, c)).

Cubeful money equity per unit of the cube, for me on roll before I decide whether to double, in
three cube states: C (centred), O (I own it: I may redouble), U (the opponent owns it: I may not
double). "No double" values, where after my play the opponent is on roll and the cube state is seen
from its side (centred stays centred, mine is its opponent's, its own is its own):
    ND_C(x, y) = sum_r w_r max_c -E_C(y, c)
    ND_O(x, y) = sum_r w_r max_c -E_U(y, c)
    ND_U(x, y) = sum_r w_r max_c -E_O(y, c)
If I double, the opponent passes (I win 1) or takes (the cube is doubled and it owns it: I get 2 ND_U),
and it picks the smaller:
    E_C = max(ND_C, min(2 ND_U, 1)),   E_O = max(ND_O, min(2 ND_U, 1)),   E_U = ND_U,
with E(empty, y) = +1 and E(x, empty) = -1 in every state. Each state plays its own best move.
Money game without gammons, so the Jacoby rule changes nothing; beavers (an immediate redouble by
the taker) are ignored, as the cube to 64 limit (never reached in a bear-off this short).
No equity here ever exceeds 1 (the opponent can always pass), so "too good to double" (playing on
worth more than the pass) does not occur; a sure win is a double and pass. The cube decision built
on these tables is model/cube/exact_bearoff.py's.

Both tables are solved by a recursion over the total pip count pips(x) + pips(y), which every play
lowers, one level at a time, vectorised with numpy over the pairs of a level and the plays of each
pair (the plays of every board under every roll are listed once, by bearoff.one_sided_plays).
Under ten seconds on two shared cores; cached on disk next to the one-sided database.
"""

from __future__ import annotations

from math import comb

import numpy as np

from engine.cube_state import CubeOwner
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from model.net.bearoff import (
    VERSION,
    bearoff_mask,
    board_pips,
    home_boards,
    home_counts,
    loaded,
    one_sided_plays,
    rank,
)

TWO_SIDED_CHECKERS = 6
N_TWO_SIDED = comb(TWO_SIDED_CHECKERS + 6, 6)  # 924 boards of 0..6 checkers
TWO_SIDED_FILE = f"bearoff-two-sided-v{VERSION}.npz"

_OWNER_CODES = {CubeOwner.CENTRED: 0, CubeOwner.ME: 1, CubeOwner.OPPONENT: 2}
"""The tables' cube states C, O and U (below) by the owner as the side on roll sees it."""


def _plays_by_roll():
    """For every board x < 924 and roll r, its plays: (children (M,), counts (924, 21)), children
    listed by x, then roll (ALL_ROLLS order), then rank."""
    n = N_TWO_SIDED
    child, parent = one_sided_plays(np.repeat(np.arange(n), len(ALL_ROLLS)), np.tile(ALL_ROLLS, (n, 1)))
    counts = np.bincount(parent, minlength=n * len(ALL_ROLLS)).reshape(n, len(ALL_ROLLS))
    return child, counts


def build_two_sided() -> dict[str, np.ndarray]:
    """{"win", "nd_centred", "nd_mover", "nd_opponent"}: (924, 924) float64 tables W and ND_C, ND_O,
    ND_U of the module docstring, indexed [my board, the opponent's board]."""
    n = N_TWO_SIDED
    child, counts = _plays_by_roll()
    per_board = counts.sum(axis=1)
    board_start = np.cumsum(per_board) - per_board
    pips = board_pips(home_boards()[:n])
    win = np.zeros((n, n))
    win[0, :] = 1.0
    ec, eo, eu = (np.full((n, n), -1.0) for _ in range(3))  # E_C, E_O, E_U
    for e in (ec, eo, eu):
        e[0, :] = 1.0
    nd = {k: np.full((n, n), -1.0) for k in ("centred", "mover", "opponent")}  # the same finished games
    for table in nd.values():
        table[0, :] = 1.0
    total = pips[:, None] + pips[None, :]
    total[0, :] = total[:, 0] = -1  # finished games are given above
    w = ROLL_WEIGHTS
    for level in range(2, int(total.max()) + 1):
        xs, ys = np.nonzero(total == level)
        if not len(xs):
            continue
        k = per_board[xs]
        pair = np.repeat(np.arange(len(xs)), k)
        flat = np.arange(k.sum()) + np.repeat(board_start[xs] - (np.cumsum(k) - k), k)
        c, y = child[flat], ys[pair]
        seg = counts[xs].ravel()
        starts = np.cumsum(seg) - seg

        def worst_for_them(table, y=y, c=c, starts=starts, xs=xs):  # this level's arrays, bound explicitly
            """sum_r w_r min_c table[y, c]: the opponent's value after my best play."""
            return np.minimum.reduceat(table[y, c], starts).reshape(len(xs), -1) @ w

        win[xs, ys] = 1.0 - worst_for_them(win)
        nd_c, nd_o, nd_u = -worst_for_them(ec), -worst_for_them(eu), -worst_for_them(eo)
        double = np.minimum(2.0 * nd_u, 1.0)
        ec[xs, ys] = np.maximum(nd_c, double)
        eo[xs, ys] = np.maximum(nd_o, double)
        eu[xs, ys] = nd_u
        nd["centred"][xs, ys], nd["mover"][xs, ys], nd["opponent"][xs, ys] = nd_c, nd_o, nd_u
    out = {"win": np.clip(win, 0.0, 1.0)}  # the clip only drops rounding (1 + 2e-16)
    out.update({f"nd_{k}": np.clip(t, -1.0, 1.0) for k, t in nd.items()})
    return {"version": np.array(VERSION), **out}


def _check_two_sided(a: dict) -> None:
    if int(a["version"]) != VERSION:
        raise ValueError("wrong version")
    for name in ("win", "nd_centred", "nd_mover", "nd_opponent"):
        t = a[name]
        if t.shape != (N_TWO_SIDED, N_TWO_SIDED) or t.dtype != np.float64 or not np.isfinite(t).all():
            raise ValueError(f"{name}: bad shape {t.shape}, dtype {t.dtype} or values")
        low = 0.0 if name == "win" else -1.0
        if t.min() < low - 1e-9 or t.max() > 1.0 + 1e-9:
            raise ValueError(f"{name}: values outside [{low}, 1]")


def two_sided(directory=None) -> dict[str, np.ndarray]:
    """The two-sided database (``build_two_sided``), loaded or built once per cache folder."""
    return loaded(TWO_SIDED_FILE, build_two_sided, _check_two_sided, directory)


def _with_access(nd_own: np.ndarray, nd_opponent: np.ndarray) -> np.ndarray:
    """Equity with the cube available to me: max(no double, min(double/take, double/pass))."""
    return np.maximum(nd_own, np.minimum(2.0 * nd_opponent, 1.0))


def two_sided_mask(positions) -> np.ndarray:
    """(B,) bool: backgammon bear-offs (bearoff_mask) with at most 6 checkers left on each side."""
    pos = np.atleast_2d(np.asarray(positions))
    mine, theirs = home_counts("backgammon", pos)
    few = (mine.sum(axis=1) <= TWO_SIDED_CHECKERS) & (theirs.sum(axis=1) <= TWO_SIDED_CHECKERS)
    return bearoff_mask("backgammon", pos) & few


def _pairs(positions):
    pos = np.atleast_2d(np.asarray(positions))
    if not two_sided_mask(pos).all():
        raise ValueError("some positions are not two-sided bear-offs (two_sided_mask)")
    mine, theirs = home_counts("backgammon", pos)
    return rank(mine), rank(theirs)


def two_sided_win(positions, directory=None) -> np.ndarray:
    """(B,) float64: exact cubeless chance that the side on roll wins, both playing to win."""
    x, y = _pairs(positions)
    return two_sided(directory)["win"][x, y]


def _owner_codes(cube_owner, n: int) -> np.ndarray:
    owners = np.broadcast_to(np.asarray(cube_owner), (n,))
    try:
        return np.array([_OWNER_CODES[CubeOwner(str(o))] for o in owners], dtype=np.int64)
    except ValueError as exc:
        raise ValueError(f"cube_owner must be one of {', '.join(CubeOwner)}: {exc}") from None


def two_sided_no_double(positions, cube_owner=CubeOwner.CENTRED, directory=None) -> np.ndarray:
    """(B,) float64: exact money equity of the side on roll per unit of the cube if it does not double
    now, ``cube_owner`` (engine.cube_state.CubeOwner, one for the batch or one per row) CENTRED or ME:
    the side on roll must have access to the cube (ND_C or ND_O above)."""
    x, y = _pairs(positions)
    db = two_sided(directory)
    codes = _owner_codes(cube_owner, len(x))
    if (codes == 2).any():
        raise ValueError("the side on roll has no access to the cube when the opponent owns it")
    return np.where(codes == 0, db["nd_centred"][x, y], db["nd_mover"][x, y])


def two_sided_take(positions, directory=None) -> np.ndarray:
    """(B,) float64: the side on roll's double/take equity per unit of the current cube, 2 ND_U (the
    opponent owns the doubled cube)."""
    x, y = _pairs(positions)
    return 2.0 * two_sided(directory)["nd_opponent"][x, y]


def two_sided_cubeful(positions, cube_owner=CubeOwner.CENTRED, directory=None) -> np.ndarray:
    """(B,) float64: exact cubeful money equity of the side on roll per unit of the cube, both sides
    doubling, taking and playing optimally; ``cube_owner`` an engine.cube_state.CubeOwner (seen by
    the side on roll; one for the batch or one per row)."""
    x, y = _pairs(positions)
    db = two_sided(directory)
    codes = _owner_codes(cube_owner, len(x))
    nd_u = db["nd_opponent"][x, y]
    return np.select([codes == 0, codes == 1],
                     [_with_access(db["nd_centred"][x, y], nd_u), _with_access(db["nd_mover"][x, y], nd_u)],
                     nd_u)


__all__ = ["N_TWO_SIDED", "build_two_sided", "two_sided", "two_sided_cubeful", "two_sided_mask", "two_sided_no_double",
           "two_sided_take", "two_sided_win"]
