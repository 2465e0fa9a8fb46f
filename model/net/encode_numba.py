"""The backgammon network inputs as numba kernels, one position at a time: the same numbers, bit for bit.

model/net/contact_inputs.py is the reference (read its docstrings for what each input means); its
numpy code runs a few hundred array operations of about a microsecond each whatever the batch size,
so one position costs some 400 us there and 4 us here (1.2 us a position in batches). Each feature
is computed here from the same whole numbers as there, and its last division is the same operation
on the same types (float64, or float32 where the numpy code divides in float32; the sums of
``hit_features`` and ``mobility`` are sums of whole numbers, exact in float32 in any order), so the
results are identical: tests/net/test_encode_numba.py compares the two on thousands of positions of
every kind.

Nothing imports this module but the lazy loader of contact_inputs.py (engine/compiled.py says when).
The kernels are compiled the first time a process calls them and kept in numba's disk cache
(``cache=True``: next to this file, or in the user's cache folder where that is not writable), so
later processes only load them. The tables are contact_inputs.py's, handed in as one tuple
(``contact_inputs.KERNEL_TABLES``), so there is one definition of each. The functions that take a
position's arrays are inlined into their callers (forward_numba.py says why).
"""

from __future__ import annotations

import numpy as np
from numba import njit

BAR_BIT = 1 << 25  # bit 25: the bar, in the masks of contact_hits.py (bit i + 1: index i)


@njit(cache=True)
def _highest_bit(mask):
    """Index of the highest set bit of a non-negative mask; -1 for 0 (halving the range six times,
    not a bit at a time: the hit features ask it of each of the 21 rolls)."""
    if mask <= 0:
        return -1
    bit = 0
    for width in (32, 16, 8, 4, 2, 1):
        if mask >> width:
            mask >>= width
            bit += width
    return bit


@njit(cache=True)
def _popcount(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def _two_or_more(x):
    return (x & (x - 1)) != 0


@njit(cache=True)
def _three_or_more(x):
    y = x & (x - 1)
    return (y & (y - 1)) != 0


@njit(cache=True)
def _sums(own, lo, hi):
    """Over the indices lo <= i < hi of a side's counts: the sums of n_i, i n_i and i^2 n_i, and over
    its held points (i <= 23) their number and the sum of their indices (``Sides.below``)."""
    n0 = n1 = n2 = held = held_index = 0
    for i in range(max(lo, 0), hi):
        n = own[i]
        n0 += n
        n1 += i * n
        n2 += i * i * n
        if i < 24 and n >= 2:
            held += 1
            held_index += i
    return n0, n1, n2, held, held_index


# --- the hits of the 21 rolls (contact_hits.py, one position) ------------------------------------

@njit(cache=True)
def _non_double_off_bar(shooters, singles, open_, blots, high, low):
    """contact_hits.non_doubles_no_bar for one position and roll: (blots hit, whether two are)."""
    direct_high = (shooters >> high) & blots
    direct_low = (shooters >> low) & blots
    hit = direct_high | direct_low
    hit |= (((shooters >> high) & open_) >> low) & blots
    hit |= (((shooters >> low) & open_) >> high) & blots
    two = (((direct_high >> low) | (direct_low >> high)) & blots) != 0
    two |= _three_or_more(direct_high) and direct_low != 0
    first = direct_high & -direct_high
    second = (direct_high ^ first) & -(direct_high ^ first)
    for x in (first, second):
        taken = x | (((x << high) & singles) >> low)
        two |= x != 0 and (direct_low & ~taken) != 0
    return hit, two


@njit(cache=True)
def _non_double_from_bar(shooters, open_, blots, bar, high, low):
    """contact_hits.non_doubles_from_bar for one position and roll (``bar`` >= 1)."""
    enter_high = (BAR_BIT >> high) & open_
    enter_low = (BAR_BIT >> low) & open_
    if bar > 1:
        return (enter_high | enter_low) & blots, (enter_high & blots) != 0 and (enter_low & blots) != 0
    hit = 0
    two = False
    for enter, other in ((enter_high, low), (enter_low, high)):
        entered_hit = enter & blots
        after = ((shooters | enter) >> other) & blots
        if enter != 0:
            hit |= entered_hit | after
        two |= entered_hit != 0 and (after & ~entered_hit) != 0
    return hit, two


@njit(cache=True)
def _double(shooters, open_, blots, bar, die):
    """contact_hits.doubles (and doubles_off_bar, ``bar`` 0) for one position and double."""
    steps = 4
    entered_hit = 0
    reach = shooters
    if bar > 0:
        enter = (BAR_BIT >> die) & open_
        if enter == 0:  # a closed entry point: the double is not played at all
            return 0, False
        steps = 4 - min(bar, 4)
        entered_hit = enter & blots
        reach = shooters | enter
    b1 = b2 = b3 = b4 = 0
    for k in range(1, 5):
        reach = (reach >> die) & open_
        at = reach & blots if steps >= k else 0
        if k == 1:
            b1 = at
        elif k == 2:
            b2 = at
        elif k == 3:
            b3 = at
        else:
            b4 = at
    later = b1 | b2 | b3 | b4
    hit = entered_hit | later
    two = entered_hit != 0 and (later & ~entered_hit) != 0
    two |= steps >= 2 and _two_or_more(b1)
    two |= steps >= 3 and b1 != 0 and _two_or_more(b1 | b2)
    two |= steps >= 4 and ((b1 != 0 and _two_or_more(b1 | b3)) or _two_or_more(b2))
    walkers = 0
    for level, at in ((2, b1), (3, b2), (4, b3)):  # a checker that hit walks on to the next step
        walkers = ((walkers | at) >> die) & open_
        two |= steps >= level and (walkers & blots) != 0
    return hit, two


@njit(cache=True)
def _hit_features(shooters, singles, open_, blots, bar):
    """contact_hits.hit_features of one position: PIPLOSS, P1, P2 as float32."""
    origins = shooters | (BAR_BIT if bar > 0 else 0)
    if blots == 0 or origins < 2 * (blots & -blots):
        return np.float32(0), np.float32(0), np.float32(0)
    loss = one = two = 0  # sums over the 36 rolls of whole numbers
    for high in range(1, 7):
        for low in range(1, high + 1):
            if high == low:
                ways = 1
                hit, both = _double(shooters, open_, blots, bar, high)
            elif bar > 0:
                ways = 2
                hit, both = _non_double_from_bar(shooters, open_, blots, bar, high, low)
            else:
                ways = 2
                hit, both = _non_double_off_bar(shooters, singles, open_, blots, high, low)
            loss += ways * max(_highest_bit(hit), 0)
            one += ways * (hit != 0)
            two += ways * both
    return (np.float32(loss) / np.float32(36 * 12), np.float32(one) / np.float32(36),
            np.float32(two) / np.float32(36))


# --- the 25 features of a side ----------------------------------------------------------------------

@njit(cache=True, inline="always")
def _side_features(own, opp, row, col, tables):
    """Write the 25 features of FEATURE_NAMES of the side ``own`` (25,) facing ``opp`` (25,), both in
    their owner's numbering, into ``row[col : col + 25]``; return (pips, index of the rearmost
    checker, our index of the opponent's rearmost checker) for the race columns."""
    (_, off_bands, escapes, beyond, contained, contained2, enter_table, enter2_table, backbone_table,
     lowest_of_six, highest_of_six) = tables
    occupied = held = singles = home_two = opp_occupied = their_held = their_held_ours = blots_ours = 0
    for i in range(25):
        bit = 1 << (i + 1)
        if own[i] > 0:
            occupied |= bit
        if opp[i] > 0:
            opp_occupied |= bit
        if i < 24:
            ours = 1 << (24 - i)  # the opponent's index i is our index 23 - i
            if own[i] >= 2:
                held |= bit
            elif own[i] == 1:
                singles |= bit
            if opp[i] >= 2:
                their_held |= bit
                their_held_ours |= ours
            elif opp[i] == 1:
                blots_ours |= ours
        if i < 6 and own[i] == 2:
            home_two |= bit
    shooters = occupied & ~home_two & ~BAR_BIT
    opp_back = 23 - max(_highest_bit(opp_occupied) - 1, -1)
    count, first, _, _, _ = _sums(own, 0, 25)

    for band in range(3):  # off1..3
        row[col + band] = off_bands[band, 15 - count]
    ahead0, ahead1, _, _, _ = _sums(own, opp_back + 1, 25)
    row[col + 3] = (ahead1 + (1 - opp_back) * ahead0) / 167.0  # break_contact
    rear = _highest_bit(occupied) - 1
    row[col + 4] = max(rear, -1) / 24.0  # back_checker
    row[col + 5] = max(_highest_bit(held) - 1, -1) / 24.0  # back_anchor
    home, outer = (held >> 19) & 63, (held >> 13) & 63
    k = 6 - lowest_of_six[home] if home > 0 else (12 - highest_of_six[outer] if outer > 0 else 12)
    row[col + 6] = k / 6.0  # forward_anchor
    blots = blots_ours if _popcount((held >> 1) & 63) >= 3 else blots_ours & ~0b110
    row[col + 7], row[col + 8], row[col + 9] = _hit_features(shooters, singles, ~their_held_ours, blots, own[24])
    window = (held >> (opp_back + 2)) & 0xFFF
    row[col + 10] = escapes[window] / 36.0  # back_escapes
    row[col + 24] = beyond[window] / 36.0  # back_rescapes

    start = min(opp_back + 1, 9)  # containment: the fewest escapes from our index c - 1 on
    fewest = 36
    contain = acontain = 36
    for c in range(9, -1, -1):
        fewest = min(fewest, escapes[(held >> (c + 1)) & 0xFFF])
        if c == 1:
            contain = fewest
        if c == start and opp_back <= 8:
            acontain = fewest
    row[col + 11], row[col + 12] = contained[acontain], contained2[acontain]
    row[col + 13], row[col + 14] = contained[contain], contained2[contain]

    mobile = 0
    for i in range(6, 25):
        mobile += (i - 5) * own[i] * escapes[(their_held >> (25 - i)) & 0xFFF]
    row[col + 15] = mobile / 3600.0  # mobility

    mean = -(-first // max(count, 1))
    n0, n1, n2, _, _ = _sums(own, mean + 1, 25)
    spread = n2 - 2 * mean * n1 + mean * mean * n0
    row[col + 16] = -(-spread // max(n0, 1)) / 400.0  # moment2

    closed = (their_held >> 1) & 63
    bar = own[24]
    row[col + 17] = enter_table[(64 if bar > 1 else 0) + closed] if bar > 0 else np.float32(0)
    row[col + 18] = enter2_table[closed]

    outside0, outside1, _, _, _ = _sums(own, 6, 25)
    _, _, _, kept_held, kept_index = _sums(own, max(opp_back, 11) + 1, 25)
    total = outside1 - 2 * kept_index
    spare = outside0 - 2 * kept_held
    for i in range(5, -1, -1):
        change = max(own[i] - 2, 0)
        need = max(2 - own[i], 0)
        if spare >= need:
            change -= need
        total += i * change
        spare += change
    row[col + 19] = np.float32(max(total, 0)) / np.float32(100.0)  # timing

    inner = held & ~0b11
    others = _popcount(inner) - 1
    if others > 0:
        aligned = inner << min(24 - _highest_bit(inner), 25)
        row[col + 20] = 1.0 - backbone_table[(aligned >> 13) & 0x7FF] / (11.0 * others)
    else:
        row[col + 20] = 0.0

    anchors = _popcount((held >> 19) & 63)
    t = np.float32(_sums(own, 18, 25)[0])
    row[col + 21] = (t - np.float32(3)) / np.float32(4) if anchors > 1 else np.float32(0)  # backg
    row[col + 22] = t / np.float32(8) if anchors == 1 else np.float32(0)  # backg1
    free0, free1, _, _, _ = _sums(own, 0, max(opp_back, 0))
    row[col + 23] = (free0 + free1) / 100.0  # free_pips
    return count + first, rear, opp_back


# --- positions --------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _sides(position, own, opp):
    """Fill ``own`` and ``opp`` (25,) with the mover's and the opponent's checkers of one position
    (28,), each side in its own numbering (contact_sides.side_counts); ValueError on a side with
    more than 15 checkers or a negative bar."""
    for i in range(24):
        own[i] = max(position[i], 0)
        opp[i] = max(-position[23 - i], 0)
    own[24], opp[24] = position[24], position[25]
    for side in (own, opp):
        if side[24] < 0 or side.sum() > 15:
            raise ValueError("a side has more than 15 checkers or a negative bar")


@njit(cache=True, inline="always")
def _units(side, row, col, units, points):
    """Write the four units of each of the first ``points`` indices of ``side`` into ``row`` from ``col``."""
    for i in range(points):
        for u in range(4):
            row[col + 4 * i + u] = units[side[i], u]


@njit(cache=True, inline="always")
def _both_features(own, opp, row, mover, opponent, race, tables):
    """Both sides' features at columns ``mover`` and ``opponent``; at ``race`` (if >= 0) both pip
    counts / 100 and whether contact remains."""
    pips, rear, opp_back = _side_features(own, opp, row, mover, tables)
    their_pips, _, _ = _side_features(opp, own, row, opponent, tables)
    if race >= 0:
        row[race] = np.float32(pips) / np.float32(100.0)
        row[race + 1] = np.float32(their_pips) / np.float32(100.0)
        row[race + 2] = 1.0 if rear > opp_back else 0.0


@njit(cache=True)
def contact_kernel(positions, out, race, tables):
    """contact_inputs(positions, out, race) of positions (B, 28) int8 into ``out`` (B, >= 250 or 253) float32."""
    own = np.empty(25, dtype=np.int64)
    opp = np.empty(25, dtype=np.int64)
    units = tables[0]
    for b in range(positions.shape[0]):
        _sides(positions[b], own, opp)
        row = out[b]
        _units(own, row, 0, units, 25)
        _units(opp, row, 125, units, 25)
        _both_features(own, opp, row, np.int64(100), np.int64(225), np.int64(250 if race else -1), tables)


@njit(cache=True)
def dense_kernel(positions, counts, dense, tables):
    """dense_inputs(positions): ``counts`` (B, 2, 25) int8 and ``dense`` (B, 53) float32 written."""
    own = np.empty(25, dtype=np.int64)
    opp = np.empty(25, dtype=np.int64)
    for b in range(positions.shape[0]):
        _sides(positions[b], own, opp)
        for i in range(25):
            counts[b, 0, i] = own[i]
            counts[b, 1, i] = opp[i]
        _both_features(own, opp, dense[b], np.int64(0), np.int64(25), np.int64(50), tables)


@njit(cache=True)
def race_kernel(positions, out, units):
    """race_inputs(positions) into ``out`` (B, 216) float32."""
    own = np.empty(25, dtype=np.int64)
    opp = np.empty(25, dtype=np.int64)
    for b in range(positions.shape[0]):
        _sides(positions[b], own, opp)
        row = out[b]
        for side, col in ((own, 0), (opp, 108)):
            _units(side, row, col, units, 23)
            for k in range(col + 92, col + 106):
                row[k] = 0.0
            off = 15 - side.sum()
            if 1 <= off <= 14:
                row[col + 91 + off] = 1.0
            crossovers = 4 * side[24]
            pips = 25 * side[24]
            for i in range(24):
                crossovers += side[i] * (i // 6)
                pips += side[i] * (i + 1)
            row[col + 106] = crossovers / 10.0
            row[col + 107] = pips / 100.0
