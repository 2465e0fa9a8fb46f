"""One-sided bear-off database (both games) and exact cubeless probabilities of home-board races.

Rules (RULES-DECISIONS.md, "Bearing off"; long nardi bears off "by the same rules as backgammon"):
once every checker not yet borne off is in the home board (points 1..6), a die takes a checker off
from the point of its number; a higher die may take one off the highest occupied point only when no
checker stands higher; a checker may instead move down inside the home board. Inside the home board
every die can be played while a checker is left (a checker above the die's point moves down, one on
it bears off, and with none at or above it the highest one bears off), so "use the most dice" removes
nothing: a play of a non-double (a, b) is a then b or b then a, of a double four moves of the die,
and dice left once the last checker is off are lost. Nothing of the opponent's can stand on the
mover's home points when both sides are home, and in long nardi the six-in-a-row rule never binds
there (every opponent checker is then past the mover's home points), so one table serves both games.
Tests check the plays against the engine's ``legal_plays`` for both games.

Positions. One side's home board is six counts c1..c6 (points 1..6) with 0 <= n = sum <= 15:
C(21, 6) = 54,264 positions. Rank (combinatorial number system): write c1 stars, a bar, c2 stars, a
bar, ..., c6 stars, a bar, then 15 - n stars; the 6 bars stand at places b_k = c1 + ... + ck + k - 1
(k = 1..6, increasing) of the 21, and rank = sum_k C(b_k, k), the colex rank of that 6-subset: a
bijection onto 0..54,263. As b_6 = n + 5, the positions with n checkers are ranks C(n+5, 6) ..
C(n+6, 6) - 1: rank 0 is the empty board, ranks < 924 hold at most 6 checkers (the two-sided
database), and ranks >= 38,760 hold all 15 (nothing borne off yet).

Tables, each side playing every roll to minimise its expected number of rolls for its own goal
(w_r = 1/36 for a double, 2/36 otherwise; ties of expected rolls, to 1e-9, go to the lowest rank):
    E(empty) = 0,      E(x) = 1 + sum_r w_r min_{c in plays(x, r)} E(c)
    OFF[x, k]   = P(x needs exactly k rolls to bear off all)  = sum_r w_r OFF[c_r(x), k - 1]
    FIRST[x, k] = the same for bearing off the first checker, for x with 15 checkers (every position
                  with fewer is done: 0 rolls); stored as row x - 38,760.
Built level by level in pip count (every move lowers it), vectorised over the positions of a level:
the best final position of k moves of a die d is min over the six single moves of the best of k - 1
moves from there, so no play list is ever materialised. About a second; cached on disk.

Race probabilities, both sides with every remaining checker at home (no contact, nobody on the
bar). The side on roll ("me", N_m rolls to finish, F_m to its first checker off) rolls first, so its
k-th roll comes before the opponent's k-th:
    win         = P(N_m <= N_o) = sum_k OFF_m[k] P(N_o >= k)
    win_gammon  = P(N_m <= F_o)  if the opponent has borne off none, else 0
    lose_gammon = P(N_o <  F_m)  if I have borne off none, else 0
    backgammons = 0: the loser's checkers are all in its own home board, none on the bar or in the
                  winner's home board.
Long nardi's mars is the same event as the gammon (the loser bore off none): [win, win_mars,
lose_mars]. The sides' roll counts are independent, each side playing the one-sided policy: exact
when each plays for speed, which is close to but not the same as playing to win (the two-sided
database in bearoff_two_sided.py is exact for that); for the gammon terms the side in danger plays
to save the gammon and the other to finish, the usual approximation.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import warnings
from functools import cache
from math import comb
from pathlib import Path

import numpy as np

from engine.board import BAR, CHECKERS, OPP_BAR, check_game, flip
from engine.compiled import Kernels
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from model.net.equity import LOSE_GAMMON, LOSE_MARS, NARDI_WIN, OUTPUTS, WIN, WIN_GAMMON, WIN_MARS

HOME_POINTS = 6
N_POSITIONS = comb(CHECKERS + HOME_POINTS, HOME_POINTS)  # 54,264
FULL_START = comb(CHECKERS + HOME_POINTS - 1, HOME_POINTS)  # 38,760: first rank with 15 checkers
VERSION = 1
CACHE_ENV = "NARDIBOT_CACHE_DIR"
"""Environment variable naming the cache folder (else $XDG_CACHE_HOME/nardibot, else ~/.cache/nardibot)."""
ONE_SIDED_FILE = f"bearoff-one-sided-v{VERSION}.npz"

_BINOM = np.array([[comb(n, k) for k in range(HOME_POINTS + 1)] for n in range(CHECKERS + HOME_POINTS + 1)],
                  dtype=np.int64)
_MAX_ROLLS = 46  # each die moves a checker at least one pip: 90 pips take at most 45 rolls
_TIE = 1e9  # expected rolls are compared rounded to 1e-9, ties broken by rank


# ---------------------------------------------------------------- ranking
def rank(counts) -> np.ndarray:
    """Ranks (...,) of home boards (..., 6): counts on points 1..6, each >= 0, at most 15 in all."""
    c = np.asarray(counts, dtype=np.int64)
    if c.shape[-1:] != (HOME_POINTS,):
        raise ValueError(f"home boards have {HOME_POINTS} counts, got shape {c.shape}")
    if (c < 0).any() or (c.sum(axis=-1) > CHECKERS).any():
        raise ValueError("home-board counts must be >= 0 and sum to at most 15")
    bars = np.cumsum(c, axis=-1) + np.arange(HOME_POINTS)
    return _BINOM[bars, np.arange(1, HOME_POINTS + 1)].sum(axis=-1)


@cache
def home_boards() -> np.ndarray:
    """All 54,264 home boards (N, 6) int8, row i the board of rank i (read-only)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(HOME_POINTS):
        reps = CHECKERS - rows.sum(axis=1) + 1  # this point may take 0..(checkers left)
        starts = np.cumsum(reps) - reps
        new = np.arange(reps.sum()) - np.repeat(starts, reps)
        rows = np.column_stack([np.repeat(rows, reps, axis=0), new])
    out = np.empty((N_POSITIONS, HOME_POINTS), dtype=np.int8)
    out[rank(rows)] = rows
    out.flags.writeable = False
    return out


def board_pips(boards) -> np.ndarray:
    """Pip counts of home boards (..., 6)."""
    return np.asarray(boards, dtype=np.int64) @ np.arange(1, HOME_POINTS + 1)


@cache
def move_table() -> np.ndarray:
    """(N, 6, 6) int64: the rank after moving one checker from point s with a die d, at [x, d-1, s-1];
    N (one past the last rank) where that move is illegal. The empty board has one "move" per die,
    to itself (dice left after the last checker is off are lost)."""
    boards = home_boards().astype(np.int64)
    occupied = boards > 0
    highest = np.where(occupied.any(axis=1), HOME_POINTS - np.argmax(occupied[:, ::-1], axis=1), 0)
    moves = np.full((N_POSITIONS, 6, HOME_POINTS), N_POSITIONS, dtype=np.int64)
    for d in range(1, 7):
        for s in range(1, HOME_POINTS + 1):
            ok = occupied[:, s - 1] & ((s >= d) | (s == highest))  # down, exactly off, or off the highest
            new = boards[ok].copy()
            new[:, s - 1] -= 1
            if s > d:
                new[:, s - d - 1] += 1
            moves[ok, d - 1, s - 1] = rank(new)
    moves[0, :, 0] = 0
    moves.flags.writeable = False
    return moves


def one_sided_plays(ranks, dice):
    """Every distinct result of a full play of ``dice`` (B, 2) from home boards ``ranks`` (B,):
    (children ranks (M,), parent (M,)), sorted by parent then rank. An empty board passes (itself)."""
    moves = move_table()
    ranks = np.asarray(ranks, dtype=np.int64)
    dice = np.asarray(dice, dtype=np.int64)
    high, low = dice.max(axis=1), dice.min(axis=1)

    def step(parent, pos, die):
        cand = moves[pos, die[parent] - 1]  # (m, 6)
        rows, cols = np.nonzero(cand < N_POSITIONS)
        return parent[rows], cand[rows, cols]

    def dedupe(parent, pos):
        key = np.unique(parent * N_POSITIONS + pos)
        return key // N_POSITIONS, key % N_POSITIONS

    parents, kids = [], []
    rows = np.flatnonzero(high != low)
    for first, second in ((high, low), (low, high)):
        p, c = step(rows, ranks[rows], first)
        p, c = step(p, c, second)
        parents.append(p)
        kids.append(c)
    p = np.flatnonzero(high == low)
    c = ranks[p]
    for _ in range(4):
        p, c = dedupe(*step(p, c, high))
    parent, child = dedupe(np.concatenate(parents + [p]), np.concatenate(kids + [c]))
    return child, parent


# ---------------------------------------------------------------- building
def _solve(done: np.ndarray) -> np.ndarray:
    """Roll-count distributions (N, 46) for the goal whose finished positions are ``done`` (N,) bool,
    each roll played to minimise the expected rolls (module docstring)."""
    moves = move_table()
    n = N_POSITIONS
    pips = board_pips(home_boards())
    big = np.iinfo(np.int64).max
    expected = np.zeros(n)
    dist = np.zeros((n, _MAX_ROLLS))
    dist[done, 0] = 1.0
    key = np.full(n + 1, big, dtype=np.int64)  # (expected rolls rounded, rank) packed; slot n: no move
    finished = np.flatnonzero(done)
    key[finished] = finished  # expected rolls 0
    best = np.full((3, 6, n + 1), big, dtype=np.int64)  # best key after 1, 2, 3 moves of a die
    best[:, :, finished] = finished  # finished positions stay as they are
    weights = ROLL_WEIGHTS[None, :]
    for level in range(1, int(pips.max()) + 1):
        idx = np.flatnonzero((pips == level) & ~done)
        if not len(idx):
            continue
        m = moves[idx]
        for d in range(6):
            best[0, d, idx] = key[m[:, d]].min(axis=1)
            best[1, d, idx] = best[0, d][m[:, d]].min(axis=1)
            best[2, d, idx] = best[1, d][m[:, d]].min(axis=1)
        chosen = np.empty((len(idx), len(ALL_ROLLS)), dtype=np.int64)
        for r, (a, b) in enumerate(ALL_ROLLS):
            if a == b:
                chosen[:, r] = best[2, a - 1][m[:, a - 1]].min(axis=1)
            else:
                chosen[:, r] = np.minimum(best[0, b - 1][m[:, a - 1]].min(axis=1),
                                          best[0, a - 1][m[:, b - 1]].min(axis=1))
        child = chosen & 0xFFFF
        expected[idx] = 1.0 + (expected[child] * weights).sum(axis=1)
        dist[idx, 1:] = np.einsum("kr,krl->kl", weights.repeat(len(idx), 0), dist[child, :-1])
        key[idx] = (np.rint(expected[idx] * _TIE).astype(np.int64) << 16) | idx
    assert not dist[:, -1].any(), "roll-count bound exceeded"
    return dist


def _trim(dist: np.ndarray) -> np.ndarray:
    used = np.flatnonzero(dist.any(axis=0))
    return np.ascontiguousarray(dist[:, : used[-1] + 1])


def build_one_sided() -> dict[str, np.ndarray]:
    """{"off": (54264, L) float64, "first": (15504, L') float64} (module docstring)."""
    n_checkers = home_boards().sum(axis=1, dtype=np.int64)
    off = _trim(_solve(n_checkers == 0))
    first = _trim(_solve(n_checkers < CHECKERS)[FULL_START:])
    return {"version": np.array(VERSION), "off": off, "first": first}


# ---------------------------------------------------------------- cache
def cache_dir(directory=None) -> Path:
    """The cache folder: ``directory`` if given, else $NARDIBOT_CACHE_DIR, else
    $XDG_CACHE_HOME/nardibot, else ~/.cache/nardibot."""
    if directory is not None:
        return Path(directory)
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nardibot"


def _atomic_save(path: Path, arrays: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_or_build(name: str, build, check, directory=None, rebuild: bool = False) -> dict:
    """The arrays of cache file ``name``: loaded and passed to ``check`` (which raises if they are
    wrong), else built with ``build()`` and saved atomically. A missing, unreadable or corrupt file
    is rebuilt (with a warning if it existed); an unwritable cache folder only warns."""
    path = cache_dir(directory) / name
    if not rebuild:
        try:
            with np.load(path, allow_pickle=False) as f:
                arrays = {k: f[k] for k in f.files}
            check(arrays)
            return arrays
        except FileNotFoundError:
            pass
        except Exception as exc:  # noqa: BLE001 - any damage means: build it again
            warnings.warn(f"rebuilding the bear-off cache {path}: {exc!r}", stacklevel=2)
    arrays = build()
    check(arrays)
    try:
        _atomic_save(path, arrays)
    except OSError as exc:
        warnings.warn(f"could not save the bear-off cache {path}: {exc!r}", stacklevel=2)
    return arrays


def _check_one_sided(a: dict) -> None:
    if int(a["version"]) != VERSION:
        raise ValueError("wrong version")
    for name, rows in (("off", N_POSITIONS), ("first", N_POSITIONS - FULL_START)):
        d = a[name]
        if d.dtype != np.float64 or d.ndim != 2 or d.shape[0] != rows or not 2 <= d.shape[1] <= _MAX_ROLLS:
            raise ValueError(f"{name}: bad shape {d.shape} or dtype {d.dtype}")
        if not (np.isfinite(d).all() and (d >= 0).all() and np.allclose(d.sum(axis=1), 1.0, atol=1e-9)):
            raise ValueError(f"{name}: not probability distributions")


_LOADED: dict[tuple[str, str], dict] = {}


def loaded(file_name: str, build, check, directory=None) -> dict[str, np.ndarray]:
    """A database file's arrays, loaded (or built, ``load_or_build``) once per cache folder and process."""
    key = (str(cache_dir(directory).resolve()), file_name)
    if key not in _LOADED:
        _LOADED[key] = load_or_build(file_name, build, check, directory)
    return _LOADED[key]


def one_sided(directory=None) -> dict[str, np.ndarray]:
    """The one-sided database {"off", "first"}, loaded (or built) once per cache folder."""
    return loaded(ONE_SIDED_FILE, build_one_sided, _check_one_sided, directory)


# ---------------------------------------------------------------- positions and probabilities
def home_counts(game: str, positions) -> tuple[np.ndarray, np.ndarray]:
    """(mine, theirs): each side's counts on its own points 1..6, (B, 6) int64 (the opponent's read
    from the flipped position: its point q is my 25-q in backgammon, my q+12 in long nardi)."""
    pos = np.atleast_2d(np.asarray(positions))
    mine = np.maximum(pos[:, :HOME_POINTS], 0).astype(np.int64)
    theirs = np.maximum(flip(game, pos)[:, :HOME_POINTS], 0).astype(np.int64)
    return mine, theirs


def _import_kernels():
    from model.net import forward_numba  # where numba runs (engine/compiled.py): one pass, no temporaries

    return forward_numba


_kernels = Kernels(_import_kernels)


def bearoff_mask(game: str, positions) -> np.ndarray:
    """(B,) bool: every checker of both sides not yet borne off is in its own home board, none on
    the bar (so no contact in either game). Finished games (a side with none left) are included."""
    check_game(game)
    pos = np.atleast_2d(np.asarray(positions))
    kernels = _kernels()
    if kernels is not None:
        return kernels.bearoff_mask(game, pos)
    board = pos[:, :24]
    mine_ok = ~(board[:, HOME_POINTS:] > 0).any(axis=1)
    theirs = board < 0
    if game == "backgammon":  # their home is my points 19..24
        theirs_ok = ~theirs[:, :18].any(axis=1)
    else:  # their home is my points 13..18
        theirs_ok = ~theirs[:, :12].any(axis=1) & ~theirs[:, 18:].any(axis=1)
    counts_ok = ((np.maximum(board, 0).sum(axis=1) <= CHECKERS)
                 & (np.maximum(-board, 0).sum(axis=1) <= CHECKERS))
    return mine_ok & theirs_ok & counts_ok & (pos[:, BAR] == 0) & (pos[:, OPP_BAR] == 0)


def _first_rows(db: dict, ranks: np.ndarray, length: int) -> np.ndarray:
    """FIRST distributions padded to ``length``; rows with fewer than 15 checkers: done (0 rolls)."""
    out = np.zeros((len(ranks), length))
    full = ranks >= FULL_START
    out[~full, 0] = 1.0
    first = db["first"][ranks[full] - FULL_START]
    out[np.ix_(full, np.arange(first.shape[1]))] = first
    return out


def bearoff_probabilities(game: str, positions, directory=None) -> np.ndarray:
    """Cubeless outcome probabilities (B, K) float32 of positions where ``bearoff_mask`` holds, in
    model/net/equity.py's order: backgammon [win, win_gammon, 0, lose_gammon, 0], long nardi [win,
    win_mars, lose_mars] (module docstring for the formulas). Raises ValueError on other positions."""
    check_game(game)
    pos = np.atleast_2d(np.asarray(positions))
    if not bearoff_mask(game, pos).all():
        raise ValueError("bearoff_probabilities: some positions are not bear-offs (bearoff_mask)")
    db = one_sided(directory)
    mine, theirs = home_counts(game, pos)
    r_me, r_them = rank(mine), rank(theirs)
    length = max(db["off"].shape[1], db["first"].shape[1])
    off_me = np.zeros((len(pos), length))
    off_them = np.zeros((len(pos), length))
    off_me[:, : db["off"].shape[1]] = db["off"][r_me]
    off_them[:, : db["off"].shape[1]] = db["off"][r_them]
    first_me, first_them = _first_rows(db, r_me, length), _first_rows(db, r_them, length)

    def at_least(d):  # P(N >= k), k = 0..length-1
        return np.cumsum(d[:, ::-1], axis=1)[:, ::-1]

    win = (off_me * at_least(off_them)).sum(axis=1)
    win_gammon = np.minimum((off_me * at_least(first_them)).sum(axis=1), win)
    below_them = np.cumsum(off_them, axis=1) - off_them  # P(N_o <= k - 1)
    lose_gammon = np.minimum((first_me * below_them).sum(axis=1), 1.0 - win)
    win_gammon = np.where(r_them >= FULL_START, win_gammon, 0.0)
    lose_gammon = np.where(r_me >= FULL_START, lose_gammon, 0.0)
    out = np.zeros((len(pos), OUTPUTS[game]), dtype=np.float32)
    if game == "backgammon":
        out[:, WIN], out[:, WIN_GAMMON], out[:, LOSE_GAMMON] = win, win_gammon, lose_gammon
    else:
        out[:, NARDI_WIN], out[:, WIN_MARS], out[:, LOSE_MARS] = win, win_gammon, lose_gammon
    return out


def expected_rolls(boards, directory=None) -> np.ndarray:
    """Expected rolls to bear off every checker of home boards (..., 6), playing for speed."""
    off = one_sided(directory)["off"]
    return off[rank(boards)] @ np.arange(off.shape[1])


__all__ = ["CACHE_ENV", "FULL_START", "N_POSITIONS", "bearoff_mask", "bearoff_probabilities",
           "build_one_sided", "cache_dir", "expected_rolls", "home_boards", "home_counts", "move_table",
           "one_sided", "one_sided_plays", "rank"]
