"""gnubg-style inputs for backgammon nets, one set per position class: contact (and crashed), race.

Positions are int8 (B, 28) in the mover's frame (engine/board.py). Each side is described from its
own point of view, the opponent's half computed exactly as the mover's is on the flipped position
(so the halves of ``flip(pos)`` are those of ``pos`` swapped). Inside, a side is two count arrays
(B, 25), each in its owner's numbering: index i is point i+1, index 24 the bar ("own" for the side,
"opp" for its opponent); every feature below is a function of them (``side_counts``, ``Sides``:
model/net/contact_sides.py).

contact_inputs (B, 250) = [mover half (125) | opponent half (125)], each half:
    0..99     points 1..24 then the bar, 4 units each: 1 -> (1,0,0,0), 2 -> (0,1,0,0), 3 -> (0,0,1,0),
              n >= 4 -> (0,0,1,(n-3)/2)
    100..124  the 25 features of FEATURE_NAMES, in order (``contact_index(name, side)``)
race_inputs (B, 216) = [mover half (108) | opponent half (108)], each half:
    0..91     points 1..23, the same 4 units (in a race nothing stands on the 24-point or the bar)
    92..105   checkers off, one-hot: unit k-1 is 1 when exactly k are off (k = 1..14)
    106       crossovers / 10: checkers on points 7-12 count 1, 13-18 two, 19-24 three (bar: four)
    107       pips / 100 (not in gnubg's race net; the net no longer has to add them up)

gnubg's definitions (eval.c, its comments; no code is copied) are followed; where a definition had to
be read one way, the feature's docstring says so. gnubg's contact net divides the checkers off in
bands of three and its crashed net in bands of five; this encoding uses five for both, and gives
each half its own side's checkers off (gnubg swapped the two by accident when it trained).

With numba installed, ``contact_inputs``, ``dense_inputs`` and ``race_inputs`` run the kernels of
model/net/encode_numba.py instead, which give the same float32 bits (engine/compiled.py says when);
this numpy code is the reference.
"""

from __future__ import annotations

import time

import numpy as np

from engine.compiled import Kernels, charge_numpy
from model.net.contact_hits import highest_bit, hit_features
from model.net.contact_sides import Sides, both_sides, prepare, rearmost, side_counts
from model.net.contact_tables import ENTER_LOSS, ESCAPES, ESCAPES_BEYOND, UNITS

FEATURE_VERSION = 1
"""Changes whenever any of these encodings changes, so a checkpoint is never fed the wrong inputs."""

FEATURE_NAMES = (
    "off1", "off2", "off3", "break_contact", "back_checker", "back_anchor", "forward_anchor",
    "pip_loss", "p1", "p2", "back_escapes", "acontain", "acontain2", "contain", "contain2",
    "mobility", "moment2", "enter", "enter2", "timing", "backbone", "backg", "backg1",
    "free_pips", "back_rescapes",
)
HALF_CONTACT = 25 * 4 + len(FEATURE_NAMES)
HALF_RACE = 23 * 4 + 14 + 2
CONTACT, CRASHED, RACE, BEAROFF = 0, 1, 2, 3
"""The classes of ``position_class``."""


def num_contact_inputs() -> int:
    """Length of a ``contact_inputs`` row: 250."""
    return 2 * HALF_CONTACT


def num_race_inputs() -> int:
    """Length of a ``race_inputs`` row: 216."""
    return 2 * HALF_RACE


def contact_index(name: str, side: int = 0) -> int:
    """Column of feature ``name`` of side 0 (mover) or 1 (opponent) in ``contact_inputs``."""
    return side * HALF_CONTACT + 100 + FEATURE_NAMES.index(name)


# --- tables (model/net/contact_tables.py) and constants ------------------------------------------

_CONTAIN_FROM = np.arange(-1, 9)  # containment is measured for an enemy checker on each of these indices
_MOBILE = np.arange(6, 25)  # our checkers outside home (and the bar) for mobility
_SIX = range(64)
_LOWEST_OF_SIX = np.array([(m & -m).bit_length() - 1 for m in _SIX])  # -1 for 0
_HIGHEST_OF_SIX = np.array([m.bit_length() - 1 for m in _SIX])
_POPCOUNT_OF_BYTE = np.array([m.bit_count() for m in range(256)])
_POPCOUNT_OF_SIX = _POPCOUNT_OF_BYTE[:64]


def _popcount(bits: np.ndarray) -> np.ndarray:
    """Number of set bits of masks below 2**32 (numpy's bitwise_count needs numpy 2)."""
    return sum(_POPCOUNT_OF_BYTE[(bits >> shift) & 255] for shift in (0, 8, 16, 24))


# --- the 25 features of a side, each (n,) or (k, n) ---------------------------------------------
# Every figure is a whole number (or a table of them) until one last division in float64, as in the
# definitions; so the inputs are the same bits however they are computed.

def _float32_table(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float32)


_OFF_BANDS = _float32_table(np.clip((np.arange(16)[None, :] - np.array([[0], [5], [10]])) / 5.0, 0.0, 1.0))


def checkers_off(s: Sides):
    """OFF1..3 (3, n): n checkers off in bands of five: min(n, 5)/5, clip(n-5, 0, 5)/5, clip(n-10, 0, 5)/5."""
    off = 15 - s.below[25, 0]
    return _OFF_BANDS[:, off]


def break_contact(s: Sides):
    """BREAK_CONTACT: pips our checkers need to get past the opponent's rearmost one, / 167.

    A checker on index i behind it (i > opp_back) needs i + 1 - opp_back pips. gnubg divides by
    15 + 152; the opening position needs exactly 167, so it scores 1.0.
    """
    sums = s.sums_above(s.opp_back).astype(np.int64)
    return (sums[1] + (1 - s.opp_back) * sums[0]) / 167.0


def free_pips(s: Sides):
    """FREEPIP: pips of our checkers already past the opponent's rearmost checker, / 100."""
    sums = s.sums_below(np.maximum(s.opp_back, 0)).astype(np.int64)
    return (sums[0] + sums[1]) / 100.0


def timing(s: Sides):
    """TIMING: pips we can play before breaking our home board, / 100 (gnubg's heuristic).

    Counted at index value (pips to the 1-point): each checker on the bar 24; on points beyond both
    the opponent's rearmost checker and our 12-point, the checkers beyond the two that hold a
    point (a lone checker counts, a point of exactly two counts nothing: an anchor stays); every
    checker on points 7 to there; home points' checkers beyond two. Then, from the 6-point down,
    each home point with fewer than two takes the checkers it needs from that total, if enough
    remain, and their pips (index value) are taken off. Never below 0.
    """
    kept = s.sums_above(np.maximum(s.opp_back, 11))  # held points beyond keep two each
    outside = s.below[25, :2] - s.below[6, :2]  # our checkers from index 6 (point 7) up
    total = outside[1] - 2 * kept[4]
    spare = outside[0] - 2 * kept[3]
    home = s.ownt[:6]
    extra = np.maximum(home - 2, 0)  # (6, n) at once: the loop below only carries ``spare`` along
    need = np.maximum(2 - home, 0)
    zero = np.zeros_like(spare)
    for i in range(5, -1, -1):
        change = extra[i] - np.where(spare >= need[i], need[i], zero)
        total += i * change
        spare += change
    return np.maximum(total, 0).astype(np.float32) / np.float32(100.0)


def back_checker(s: Sides):
    """BACK_CHEQUER: index of our rearmost checker (bar = 24) / 24; -1/24 with none left."""
    return np.maximum(highest_bit(s.occupied) - 1, -1) / 24.0


def back_anchor(s: Sides):
    """BACK_ANCHOR: index of our rearmost point held by two or more (bar excluded) / 24; -1/24 if none."""
    return np.maximum(highest_bit(s.held) - 1, -1) / 24.0


def forward_anchor(s: Sides):
    """FORWARD_ANCHOR: our most advanced anchor in the opponent's home board, at its point k (1..6):
    k / 6; else an anchor on its points 7..12, k / 6 for the one nearest its home (gnubg's choice);
    else 2 ("some continuity: 0 would be the same as an anchor at the bar")."""
    home = (s.held >> 19) & 63  # bit j: our index 18 + j, the opponent's point 6 - j
    outer = (s.held >> 13) & 63  # bit j: our index 12 + j, the opponent's point 12 - j
    k = np.where(home > 0, 6 - _LOWEST_OF_SIX[home], np.where(outer > 0, 12 - _HIGHEST_OF_SIX[outer], 12))
    return k / 6.0


def escapes_ahead(held_bits, index):
    """The 12-bit window of held points ahead of a checker moving up from ``index`` (-1..24,
    broadcastable) past the points of ``held_bits`` (bit i+1 = index i held)."""
    return (held_bits >> (np.asarray(index) + 2)) & 0xFFF


def back_escapes(s: Sides):
    """BACK_ESCAPES, BACK_RESCAPES (2, n), n / 36: the rolls with which the opponent's rearmost
    checker escapes past our points (gnubg computes these from the blocking side's board). The
    second counts only rolls landing beyond our nearest point ahead of it (0 when none is within 12).
    When that checker is on the bar, these are the escapes of a re-entering checker (from our
    "point 0": the 12 points from our 1-point on)."""
    window = escapes_ahead(s.held, s.opp_back)
    return np.stack([ESCAPES[window], ESCAPES_BEYOND[window]]) / 36.0


_CONTAINED = _float32_table(1.0 - np.arange(37) / 36.0)  # by the fewest escaping rolls
_CONTAINED2 = _float32_table((1.0 - np.arange(37) / 36.0) ** 2)
_ESCAPES8 = ESCAPES.astype(np.int8)


def containment(s: Sides):
    """ACONTAIN, ACONTAIN2, CONTAIN, CONTAIN2 (4, n): 1 - (fewest escaping rolls) / 36 for an enemy
    checker placed on our points, and their squares. CONTAIN: over our points 1..9; ACONTAIN: over
    those from our 9-point back to the opponent's rearmost checker (the bar included when it is
    there), 0 when that checker is already past our 9-point."""
    fewest_from = _ESCAPES8[escapes_ahead(s.held[None, :], _CONTAIN_FROM[:, None])]  # (10, n) escapes
    for c in range(8, -1, -1):  # then [c]: the fewest from index c - 1 on
        np.minimum(fewest_from[c], fewest_from[c + 1], out=fewest_from[c])
    contain = fewest_from[1]
    n = len(s.opp_back)
    start = np.minimum(s.opp_back + 1, 9)
    acontain = np.where(s.opp_back > 8, 36, np.take(fewest_from, start * n + np.arange(n)))
    return np.stack([_CONTAINED[acontain], _CONTAINED2[acontain], _CONTAINED[contain], _CONTAINED2[contain]])


_ESCAPES32 = ESCAPES.astype(np.float32)
_MOBILE_WEIGHT = (_MOBILE - 5).astype(np.float32)


def mobility(s: Sides):
    """MOBILITY: sum over our checkers on points 7..24 and the bar of (index - 5) x (its escaping
    rolls past the opponent's points), / 3600."""
    escapes = np.take(_ESCAPES32, escapes_ahead(s.their_held[None, :], 23 - _MOBILE[:, None]))  # (19, n)
    return (_MOBILE_WEIGHT @ (s.ownt[6:25] * escapes)).astype(np.float64) / 3600.0


def moment2(s: Sides):
    """MOMENT2: one-sided second moment of our checkers' indices (bar 24), / 400: with A the mean
    index rounded up, the mean of (i - A)^2 over the checkers beyond A, rounded up (gnubg's integers)."""
    count, first = s.below[25, :2].astype(np.int64)
    mean = -(-first // np.maximum(count, 1))
    n0, n1, n2 = s.sums_above(mean)[:3].astype(np.int64)
    spread = n2 - 2 * mean * n1 + mean * mean * n0
    return -(-spread // np.maximum(n0, 1)) / 400.0


_ENTER = _float32_table(ENTER_LOSS / (36.0 * 49.0 / 6.0))
_ENTER2 = _float32_table(1.0 - (1.0 - _POPCOUNT_OF_SIX / 6.0) ** 2)


def enter_features(s: Sides):
    """ENTER, ENTER2 (2, n). ENTER: pips we lose per roll to the opponent's closed home points while
    we have checkers on the bar (``_enter_loss_table``), / (49/6 pips, an average roll); 0 off the
    bar. ENTER2, gnubg's formula with n closed points: 1 - (1 - n/6)^2, the chance that a roll has
    a closed die (so two checkers on the bar cannot both come in); it does not depend on our bar."""
    closed = (s.their_held >> 1) & 63
    bar = s.ownt[24]
    return np.stack([np.where(bar > 0, _ENTER[64 * (bar > 1) + closed], np.float32(0)), _ENTER2[closed]])


def _backbone_weights() -> np.ndarray:
    """(2048,): for 11 bits, bit j standing for a held point 11 - j pips in front of the rearmost held
    point, the sum of their weights w(d) (11 within 6 pips, 13 - d at 7..11)."""
    d = 11 - np.arange(11)
    w = np.where(d <= 6, 11, 13 - d)
    return ((np.arange(2048)[:, None] >> np.arange(11)) & 1) @ w


_BACKBONE = _backbone_weights()


def backbone(s: Sides):
    """BACKBONE: 1 - (mean over our other held points of w(d)) / 11, where d is the distance to our
    rearmost held point and w = 11 within 6 pips, 13 - d at 7..11, 0 beyond; 0 with fewer than two
    held points. As gnubg computes it, every point is measured from the rearmost one (not from its
    neighbour), and the 1-point is left out."""
    held = s.held & ~np.int64(0b11)  # indices 1..23 (bits 2..24)
    back = highest_bit(held)  # bit of the rearmost held point
    others = _popcount(held) - 1
    aligned = held << np.minimum(24 - back, 25)  # the rearmost held point on bit 24, d pips on 24 - d
    weight = _BACKBONE[(aligned >> 13) & 0x7FF]
    return np.where(others > 0, 1.0 - weight / (11.0 * np.maximum(others, 1)), 0.0)


def back_game(s: Sides):
    """BACKG, BACKG1 (2, n), with t our checkers in the opponent's home board and on the bar: with
    two or more points held there, (t - 3) / 4; with exactly one, t / 8 (the other is 0)."""
    anchors = _POPCOUNT_OF_SIX[(s.held >> 19) & 63]
    t = (s.below[25, 0] - s.below[18, 0]).astype(np.float32)
    zero = np.float32(0)
    return np.stack([np.where(anchors > 1, (t - 3) / np.float32(4), zero), np.where(anchors == 1, t / np.float32(8), zero)])


def hit_masks(s: Sides):
    """The masks (shooters, singles, open, blots) for ``contact_hits.hit_features``; the opponent's
    blots on our 1- and 2-points count only when we hold three or more home points."""
    strong = _POPCOUNT_OF_SIX[(s.held >> 1) & 63] >= 3
    blots = s.their_blots_ours & np.where(strong, ~np.int64(0), ~np.int64(0b110))
    return s.shooters, s.singles, ~s.their_held_ours, blots


def half_features(s: Sides) -> np.ndarray:
    """(n, 25) float32: the features of FEATURE_NAMES, in order, for each row of ``s`` (a view of a
    (25, n) array: each feature is written to contiguous memory)."""
    out = np.empty((len(FEATURE_NAMES), len(s.own)), dtype=np.float32)
    out[0:3] = checkers_off(s)
    out[3] = break_contact(s)
    out[4] = back_checker(s)
    out[5] = back_anchor(s)
    out[6] = forward_anchor(s)
    out[7:10] = hit_features(*hit_masks(s), s.own[:, 24]).T
    escapes = back_escapes(s)
    out[10] = escapes[0]
    out[11:15] = containment(s)
    out[15] = mobility(s)
    out[16] = moment2(s)
    out[17:19] = enter_features(s)
    out[19] = timing(s)
    out[20] = backbone(s)
    out[21:23] = back_game(s)
    out[23] = free_pips(s)
    out[24] = escapes[1]
    return out.T


def pips_and_contact(s: Sides) -> tuple[np.ndarray, np.ndarray]:
    """For the rows of ``both_sides`` (mover, opponent, mover...): (pips (n,) float32 of each row's side,
    contact (n,) bool: its rearmost checker has not passed the opponent's), what engine.board's
    ``pips`` and ``has_contact`` give, read off the same counts."""
    pips = (s.below[25, 0] + s.below[25, 1]).astype(np.float32)  # the checker on index i needs i + 1 pips
    return pips, highest_bit(s.occupied) - 1 > s.opp_back


# --- the encodings ------------------------------------------------------------------------------

KERNEL_TABLES = (UNITS, _OFF_BANDS, ESCAPES, ESCAPES_BEYOND, _CONTAINED, _CONTAINED2, _ENTER, _ENTER2,
                 _BACKBONE, _LOWEST_OF_SIX, _HIGHEST_OF_SIX)
"""The tables the compiled kernels read (model/net/encode_numba.py), in the order they unpack them."""


def _import_kernels():
    """model/net/encode_numba.py, imported the first time engine/compiled.py's ``numba_due`` says so
    (never when this module is); until then, or without numba, the numpy code here runs."""
    from model.net import encode_numba

    return encode_numba


_kernels = Kernels(_import_kernels)


def contact_inputs(positions: np.ndarray, out: np.ndarray | None = None, race: bool = False) -> np.ndarray:
    """(B, 250) float32 inputs of backgammon positions (B, 28) for a contact or crashed net; written
    into the first 250 columns of ``out`` (B, >= 250) float32 when given (no copy), which is returned.
    ``race``: also write each side's pip count / 100 (mover, opponent) and whether contact remains
    (0/1) into columns 250..252 (feature version 3's last three inputs, model/net/features.py)."""
    kernels = _kernels()
    if kernels is not None and (out is None or out.dtype == np.float32):  # the kernels write float32 as such
        pos = np.ascontiguousarray(positions, dtype=np.int8)
        if out is None:
            out = np.empty((len(pos), 2 * HALF_CONTACT + 3 * race), dtype=np.float32)
        kernels.contact_kernel(pos, out, race, KERNEL_TABLES)
        return out
    start = time.perf_counter()
    own, opp = both_sides(positions)
    b = len(own) // 2
    if out is None:
        out = np.empty((b, 2 * HALF_CONTACT + 3 * race), dtype=np.float32)
    halves = out[:, : 2 * HALF_CONTACT].reshape(b, 2, HALF_CONTACT)  # a view: splits the column axis
    halves[:, :, :100] = np.take(UNITS, own, axis=0).reshape(b, 2, 100)
    sides = prepare(own, opp)
    _write_features(halves[:, :, 100:], sides)
    if race:
        _write_race(out[:, 2 * HALF_CONTACT : 2 * HALF_CONTACT + 3], sides)
    charge_numpy(time.perf_counter() - start)
    return out


def dense_inputs(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``contact_inputs(positions, race=True)`` less the point units, for a forward pass that looks
    the units up (model/net/table_forward.py): (``side_counts`` (B, 2, 25) int8, which the units are
    a function of; (B, 53) float32, the columns 100..124, 225..252 of contact_inputs: the mover's 25
    features, the opponent's, both pip counts / 100 and contact)."""
    kernels = _kernels()
    if kernels is not None:
        pos = np.ascontiguousarray(positions, dtype=np.int8)
        counts = np.empty((len(pos), 2, 25), dtype=np.int8)
        dense = np.empty((len(pos), 2 * len(FEATURE_NAMES) + 3), dtype=np.float32)
        kernels.dense_kernel(pos, counts, dense, KERNEL_TABLES)
        return counts, dense
    start = time.perf_counter()
    counts = side_counts(positions)
    b, k = len(counts), len(FEATURE_NAMES)
    dense = np.empty((b, 2 * k + 3), dtype=np.float32)
    sides = prepare(counts.reshape(-1, 25), counts[:, ::-1].reshape(-1, 25))
    _write_features(dense[:, : 2 * k].reshape(b, 2, k), sides)
    _write_race(dense[:, 2 * k :], sides)
    charge_numpy(time.perf_counter() - start)
    return counts, dense


def _write_features(view: np.ndarray, sides: Sides) -> None:
    """Write the features of the rows of ``both_sides`` into ``view`` (B, 2, 25): one strided copy of
    half_features' (25, 2B) array."""
    b = view.shape[0]
    view.transpose(2, 0, 1)[...] = half_features(sides).T.reshape(len(FEATURE_NAMES), b, 2)


def _write_race(view: np.ndarray, sides: Sides) -> None:
    """Write the pips / 100 of the mover and the opponent and whether contact remains into ``view`` (B, 3)."""
    pips, contact = pips_and_contact(sides)
    view[:, :2] = pips.reshape(-1, 2) / np.float32(100.0)
    view[:, 2] = contact[::2]


def race_inputs(positions: np.ndarray) -> np.ndarray:
    """(B, 216) float32 inputs of backgammon race positions (B, 28); see the module docstring."""
    kernels = _kernels()
    if kernels is not None:
        pos = np.ascontiguousarray(positions, dtype=np.int8)
        out = np.empty((len(pos), 2 * HALF_RACE), dtype=np.float32)
        kernels.race_kernel(pos, out, UNITS)
        return out
    start = time.perf_counter()
    own, _ = both_sides(positions)
    n = len(own)
    half = np.zeros((n, HALF_RACE), dtype=np.float32)
    half[:, :92] = np.take(UNITS, own[:, :23], axis=0).reshape(n, 92)
    off = 15 - own.sum(1)
    rows = np.flatnonzero((off >= 1) & (off <= 14))
    half[rows, 91 + off[rows]] = 1.0
    half[:, 106] = (own[:, :24] @ (np.arange(24) // 6) + 4 * own[:, 24]) / 10.0
    half[:, 107] = own @ np.arange(1.0, 26.0) / 100.0
    charge_numpy(time.perf_counter() - start)
    return half.reshape(n // 2, 2 * HALF_RACE)


def crashed(counts: np.ndarray) -> np.ndarray:
    """(B,) bool: a side with 6 or fewer active checkers (gnubg's test). With n on the board and the
    bar, a on the 1-point and b on the 2-point: n <= 6; or, when a >= 2, n - a <= 6, or (b >= 2 too)
    n - a - (b - 1) <= 6; when a <= 1, n - (b - 1) <= 6."""
    n, a, b = counts.sum(1), counts[:, 0], counts[:, 1]
    deep_one = (n - a <= 6) | ((b > 1) & (n - a - (b - 1) <= 6))
    deep_two = n - (b - 1) <= 6
    return (n <= 6) | np.where(a > 1, deep_one, deep_two)


def position_class(positions: np.ndarray) -> np.ndarray:
    """(B,) int8: CONTACT 0, CRASHED 1 (contact, and either side crashed), RACE 2 (no contact),
    BEAROFF 3 (no contact and every checker of both sides left on the board in its home board).
    Contact: the two rearmost checkers (bar included) have not passed each other."""
    counts = side_counts(positions)
    own, opp = counts[:, 0], counts[:, 1]
    contact = rearmost(own) + rearmost(opp) > 22
    home = (own[:, 6:25].sum(1) == 0) & (opp[:, 6:25].sum(1) == 0)
    cls = np.where(contact, np.where(crashed(own) | crashed(opp), CRASHED, CONTACT),
                   np.where(home, BEAROFF, RACE))
    return cls.astype(np.int8)
