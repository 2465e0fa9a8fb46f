"""Network inputs: positions (B, 28) int8 -> features (B, F) float32, one encoding per game.

The position is seen by the side on roll (the mover). Per point and per side, TD-Gammon's four
units for a count n: [n >= 1, n >= 2, n >= 3, (n - 3) / 2 if n > 3]. Then a few whole-board facts
a small net finds hard to add up by itself: bar and borne-off counts, pip counts, whether the game
is still a contact game, home-board points, the longest run of made points (a prime / a block),
blots, and (long nardi) checkers still on the head.

Backgammon also gets, for each side, the chance that the side can hit at least one enemy blot with
its next roll (direct and indirect shots, the way over open points only), which a net otherwise
learns slowly: "blots by the chance of being hit" is what decides most contact plays.

Backgammon version 3 is gnubg's inputs instead (model/net/contact_inputs.py: per side, the four
units of every point and the bar and 25 features: escapes, containment, hitting chances, pips lost to
hits, timing, anchors, back game...), then both sides' pip counts / 100 and whether contact remains.

Backgammon version 4 is gnubg's race inputs alone (``race_inputs`` of model/net/contact_inputs.py:
per side the four units of points 1..23, the checkers off one by one, crossovers and pips; 216
columns), for a race net that only ever sees positions without contact (model/net/race.py).

Nardi version 2 (the default since the shipped nardi net uses it) is the long-nardi inputs of
model/net/nardi_inputs.py instead of version 1's (per side, the four units of every point and
features for the head, blocks and primes, escapes of the rearmost checker, containment, the race and
the mars), then the race lead and whether contact remains.

Every checkpoint records its game's ``feature_version``; ``SUPPORTED`` lists the encodings this code
can compute, so a checkpoint made with another encoding is refused instead of silently misread.
``FEATURE_VERSION`` is the encoding a new network gets by default.
"""

from __future__ import annotations

import numpy as np

from engine.board import BAR, HEAD, OFF, OPP_BAR, OPP_OFF, flip, has_contact
from engine.movegen import ROLL_WEIGHTS
from model.net import contact_inputs as _contact
from model.net import nardi_inputs as _nardi
from model.net.contact_inputs import contact_inputs, num_contact_inputs, num_race_inputs, race_inputs
from model.net.contact_sides import side_counts
from model.net.nardi_inputs import nardi_inputs, num_nardi_inputs
from model.net.shots import hits_by_roll

FEATURE_VERSION = {"backgammon": 3, "nardi": 2}
SUPPORTED = {"backgammon": (2, 3, 4), "nardi": (1, 2)}
RACE_VERSION = 4
"""The backgammon encoding of race nets (race inputs only: meaningless for a position with contact)."""


def _unit_table() -> np.ndarray:
    """(31, 8) table: row c+15 is the 8 units of a signed count c (4 for the mover, 4 for the opponent)."""
    table = np.zeros((31, 8), dtype=np.float32)
    for c in range(-15, 16):
        n, side = abs(c), (0 if c > 0 else 4)
        if n:
            table[c + 15, side : side + 4] = [n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2]
    return table


_UNITS = _unit_table()
_UNIT_WORDS = _UNITS.view(np.uint64)  # (31, 4): a row's 8 float32 units as four 64-bit words, which
# np.take copies about ten times faster than fancy indexing copies 8 floats


_BITS = np.int64(1) << np.arange(24, dtype=np.int64)


def _longest_run(made: np.ndarray) -> np.ndarray:
    """Length of the longest run of True along the last axis (B, 24) -> (B,): the row as a 24-bit
    integer, ``m &= m >> 1`` shortens every run by one, so the number of steps a row stays non-zero
    is its longest run (as many vectorised steps as the batch's longest run)."""
    m = made @ _BITS
    best = np.zeros(made.shape[0], dtype=np.int16)
    while True:
        alive = m != 0
        if not alive.any():
            return best
        best += alive
        m &= m >> 1


def _side_summary(game: str, pos: np.ndarray) -> np.ndarray:
    """Whole-board facts for the mover of ``pos`` (B, 28): (B, 6) floats."""
    board = pos[:, :24]
    mine = np.maximum(board, 0).astype(np.float32)
    made = board >= 2
    pip = mine @ np.arange(1, 25, dtype=np.float32) + 25 * pos[:, BAR]
    home_points = np.count_nonzero(made[:, :6], axis=1)
    if game == "nardi":
        # any held point blocks in long nardi, so a "run" counts single checkers too
        run = _longest_run(board > 0)
        back = pos[:, HEAD].astype(np.float32)  # checkers still on the head
    else:
        run = _longest_run(made)
        back = mine[:, 18:24].sum(1) + pos[:, BAR]  # checkers still in the opponent's home board
    blots = np.count_nonzero(board == 1, axis=1)
    return np.stack([pip / 100.0, home_points / 6.0, run / 6.0, blots / 5.0, back / 5.0,
                     (mine[:, 6:24].sum(1) + pos[:, BAR]) / 15.0], axis=1)


def hit_chance(positions: np.ndarray) -> np.ndarray:
    """Backgammon: chance (B,) that the side on roll hits at least one opponent blot with its roll
    (direct and indirect shots over open points; model/net/shots.py)."""
    return ROLL_WEIGHTS @ (hits_by_roll(positions) != 0)


def check_version(game: str, version: int | None) -> int:
    """The encoding ``version`` of ``game`` (None: the default), ValueError if this code cannot compute it."""
    version = FEATURE_VERSION[game] if version is None else version
    if version not in SUPPORTED[game]:
        raise ValueError(f"{game} feature version {version} is not one this code computes "
                         f"({', '.join(map(str, SUPPORTED[game]))})")
    return version


def num_features(game: str, version: int | None = None) -> int:
    """Length F of the feature vector for ``game`` in encoding ``version`` (None: the default)."""
    version = check_version(game, version)
    if game == "backgammon" and version == 3:
        return num_contact_inputs() + 3
    if game == "backgammon" and version == RACE_VERSION:
        return num_race_inputs()
    if game == "nardi" and version == 2:
        return num_nardi_inputs()
    return 24 * 8 + 4 + 2 * 6 + 1 + (2 if game == "backgammon" else 0)


def encode(game: str, positions: np.ndarray, version: int | None = None) -> np.ndarray:
    """Features (B, F) float32 of positions (B, 28) seen by the side on roll, in encoding ``version``."""
    pos = np.asarray(positions, dtype=np.int8)
    version = check_version(game, version)
    if game == "nardi" and version == 2:
        return nardi_inputs(pos)
    if game == "backgammon" and version == 3:
        return contact_inputs(pos, race=True)  # the pips / 100 and contact as board.pips, has_contact
    if game == "backgammon" and version == RACE_VERSION:
        return race_inputs(pos)
    b = len(pos)
    out = np.empty((b, num_features(game, version)), dtype=np.float32)
    units = np.take(_UNIT_WORDS, pos[:, :24].astype(np.intp) + 15, axis=0, mode="clip")
    out[:, :192] = units.view(np.float32).reshape(b, 192)
    out[:, 192] = pos[:, BAR] / 2.0
    out[:, 193] = pos[:, OPP_BAR] / 2.0
    out[:, 194] = pos[:, OFF] / 15.0
    out[:, 195] = pos[:, OPP_OFF] / 15.0
    out[:, 196:202] = _side_summary(game, pos)
    out[:, 202:208] = _side_summary(game, flip(game, pos))
    out[:, 208] = has_contact(game, pos)
    if game == "backgammon":
        out[:, 209] = hit_chance(pos)
        out[:, 210] = hit_chance(flip(game, pos))
    return out


def unit_slots(game: str, version: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Where an encoding puts its per-point units: (columns (P, U) int, table (C, U) float32) such that
    ``encode(positions)[:, columns[p]] == table[slot_values(positions)[:, p]]`` for each slot p (a point
    of one side, or of the board). model/net/table_forward.py turns the first layer's weights on these
    columns into a lookup table."""
    version = check_version(game, version)
    if game == "backgammon" and version == 3:  # two halves of 125: the 25 points' 4 units, then features
        half = np.arange(100).reshape(25, 4)
        return np.concatenate([half, half + _contact.HALF_CONTACT]), _contact.UNITS
    if game == "backgammon" and version == RACE_VERSION:  # two halves of 108: points 1..23's 4 units first
        half = np.arange(92).reshape(23, 4)
        return np.concatenate([half, half + _contact.HALF_RACE]), _contact.UNITS
    if game == "nardi" and version == 2:  # two halves of HALF: the 24 points' 4 units, then features
        half = np.arange(96).reshape(24, 4)
        return np.concatenate([half, half + _nardi.HALF]), _nardi.UNITS
    return np.arange(192).reshape(24, 8), _UNITS  # the signed count of each point


def dense_columns(game: str, version: int | None = None) -> np.ndarray:
    """The columns of ``encode`` outside ``unit_slots``', in order."""
    return np.setdiff1d(np.arange(num_features(game, version)), unit_slots(game, version)[0].ravel())


def split_encode(game: str, positions: np.ndarray,
                 version: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(``slot_values`` (B, P), ``encode(...)[:, dense_columns(...)]``) without writing the unit columns
    where an encoding can skip them (backgammon version 3, nardi version 2); model/net/table_forward.py
    looks the units up."""
    pos = np.asarray(positions, dtype=np.int8)
    version = check_version(game, version)
    if game == "backgammon" and version == 3:
        counts, dense = _contact.dense_inputs(pos)
        return counts.reshape(len(pos), 50), dense
    if game == "nardi" and version == 2:
        return _nardi.dense_inputs(pos)
    return slot_values(game, pos, version), encode(game, pos, version)[:, dense_columns(game, version)]


def slot_values(game: str, positions: np.ndarray, version: int | None = None) -> np.ndarray:
    """(B, P) the row of ``unit_slots``' table each slot of each position takes."""
    pos = np.asarray(positions, dtype=np.int8)
    if game == "backgammon" and check_version(game, version) == 3:
        return side_counts(pos).reshape(len(pos), 50)
    if game == "backgammon" and version == RACE_VERSION:
        return side_counts(pos)[:, :, :23].reshape(len(pos), 46)
    if game == "nardi" and check_version(game, version) == 2:
        return _nardi.unit_counts(pos)
    return pos[:, :24].astype(np.intp) + 15
