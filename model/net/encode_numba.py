"""The backgammon network inputs as numba kernels, one position at a time: the same numbers, bit for bit.

model/net/contact_inputs.py is the reference (read its docstrings for what each input means); its
numpy code runs a few hundred array operations of about a microsecond each whatever the batch size,
so one position costs some 400 us there and 2 us here (0.56 us a position in batches). Each feature
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
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

BAR_BIT = 1 << 25  # bit 25: the bar, in the masks of contact_hits.py (bit i + 1: index i)


@intrinsic
def _leading_zeros(typingctx, mask):
    """The leading zero bits of an int64 (64 for 0): LLVM's ctlz, one instruction (lzcnt) where the CPU
    has it, and a vector one (vplzcntq) inside the loops over the rolls below where it has AVX-512."""
    if mask != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))
    return types.int64(types.int64), codegen


@intrinsic
def _set_bits(typingctx, mask):
    """The set bits of an int64: LLVM's ctpop (popcnt)."""
    if mask != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.int64), codegen


@njit(cache=True, inline="always")
def _highest_bit(mask):
    """Index of the highest set bit of a non-negative mask; -1 for 0 (0.79 -> 0.70 us a position's
    inputs against halving the range six times)."""
    mask = np.int64(mask)
    return 63 - _leading_zeros(mask) if mask > 0 else np.int64(-1)


@njit(cache=True, inline="always")
def _popcount(mask):
    return _set_bits(np.int64(mask))


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

_HIGH = np.array([high for high in range(2, 7) for low in range(1, high)] + [2], dtype=np.int64)
_LOW = np.array([low for high in range(2, 7) for low in range(1, high)] + [1], dtype=np.int64)
_WAYS = np.array([2] * 15 + [0], dtype=np.int64)
"""The 15 non-doubles (high, low), each thrown 2 ways in 36, and a 16th lane that counts for nothing, so
that the loop over them is whole vectors."""
_DIE = np.array([1, 2, 3, 4, 5, 6, 1, 1], dtype=np.int64)
_DOUBLE_WAYS = np.array([1, 1, 1, 1, 1, 1, 0, 0], dtype=np.int64)
"""The 6 doubles, each 1 way in 36, and two lanes that count for nothing."""


@njit(cache=True)
def _non_doubles_off_bar(shooters, singles, open_, blots):
    """contact_hits.non_doubles_no_bar for one position and all 15 non-doubles at once: the sums over
    them of ways x (the farthest blot hit's index + 1, any blot hit, two blots hit). Without a branch,
    so that LLVM runs the rolls side by side in vector registers (with the doubles below: 0.70 -> 0.57
    us a position's inputs)."""
    loss = one = two = 0
    for k in range(16):
        high, low, ways = _HIGH[k], _LOW[k], _WAYS[k]
        from_high = shooters >> high
        from_low = shooters >> low
        direct_high = from_high & blots
        direct_low = from_low & blots
        hit = (direct_high | direct_low | (((from_high & open_) >> low) & blots)
               | (((from_low & open_) >> high) & blots))
        both = (((direct_high >> low) | (direct_low >> high)) & blots) != 0
        rest = direct_high & (direct_high - 1)
        both |= ((rest & (rest - 1)) != 0) & (direct_low != 0)  # three blots hit by the high die
        first = direct_high & -direct_high
        second = rest & -rest
        taken = first | (((first << high) & singles) >> low)  # the low die may not move the same checker
        both |= (first != 0) & ((direct_low & ~taken) != 0)
        taken = second | (((second << high) & singles) >> low)
        both |= (second != 0) & ((direct_low & ~taken) != 0)
        loss += ways * max(63 - _leading_zeros(hit), 0)
        one += ways * (hit != 0)
        two += ways * both
    return loss, one, two


@njit(cache=True)
def _non_doubles_from_bar(shooters, open_, blots, bar):
    """contact_hits.non_doubles_from_bar for one position with ``bar`` >= 1 checkers to enter and all 15
    non-doubles at once, summed as ``_non_doubles_off_bar`` does: with two or more on the bar both dice
    enter, else one die enters and the other may move any checker on."""
    loss = one = two = 0
    for k in range(16):
        high, low, ways = _HIGH[k], _LOW[k], _WAYS[k]
        enter_high = (BAR_BIT >> high) & open_
        enter_low = (BAR_BIT >> low) & open_
        if bar > 1:
            hit = (enter_high | enter_low) & blots
            both = ((enter_high & blots) != 0) & ((enter_low & blots) != 0)
        else:
            hit_high = enter_high & blots
            after_high = ((shooters | enter_high) >> low) & blots
            hit_low = enter_low & blots
            after_low = ((shooters | enter_low) >> high) & blots
            hit = ((hit_high | after_high) & -np.int64(enter_high != 0)) | ((hit_low | after_low) & -np.int64(enter_low != 0))
            both = ((hit_high != 0) & ((after_high & ~hit_high) != 0)) | ((hit_low != 0) & ((after_low & ~hit_low) != 0))
        loss += ways * max(63 - _leading_zeros(hit), 0)
        one += ways * (hit != 0)
        two += ways * both
    return loss, one, two


@njit(cache=True)
def _doubles(shooters, open_, blots, bar):
    """contact_hits.doubles (and doubles_off_bar, ``bar`` 0) for one position and all 6 doubles at once,
    summed as ``_non_doubles_off_bar`` does. A double whose entry point is closed is not played at all;
    with ``bar`` checkers to enter, 4 - bar steps are left to move on."""
    loss = one = two = 0
    steps = 4 - min(bar, 4)
    for k in range(8):
        die, ways = _DIE[k], _DOUBLE_WAYS[k]
        enter = ((BAR_BIT >> die) & open_) * (bar > 0)
        ways *= (bar == 0) | (enter != 0)
        entered_hit = enter & blots
        reach = ((shooters | enter) >> die) & open_
        b1 = reach & blots & -np.int64(steps >= 1)  # the blots hit at the first step, the second, ...
        reach = (reach >> die) & open_
        b2 = reach & blots & -np.int64(steps >= 2)
        reach = (reach >> die) & open_
        b3 = reach & blots & -np.int64(steps >= 3)
        reach = (reach >> die) & open_
        b4 = reach & blots & -np.int64(steps >= 4)
        later = b1 | b2 | b3 | b4
        hit = entered_hit | later
        both = (entered_hit != 0) & ((later & ~entered_hit) != 0)
        both |= (steps >= 2) & ((b1 & (b1 - 1)) != 0)
        b12 = b1 | b2
        both |= (steps >= 3) & (b1 != 0) & ((b12 & (b12 - 1)) != 0)
        b13 = b1 | b3
        both |= (steps >= 4) & (((b1 != 0) & ((b13 & (b13 - 1)) != 0)) | ((b2 & (b2 - 1)) != 0))
        walkers = (b1 >> die) & open_  # a checker that hit walks on to the next step
        both |= (steps >= 2) & ((walkers & blots) != 0)
        walkers = ((walkers | b2) >> die) & open_
        both |= (steps >= 3) & ((walkers & blots) != 0)
        walkers = ((walkers | b3) >> die) & open_
        both |= (steps >= 4) & ((walkers & blots) != 0)
        loss += ways * max(63 - _leading_zeros(hit), 0)
        one += ways * (hit != 0)
        two += ways * both
    return loss, one, two


@njit(cache=True)
def _hit_features(shooters, singles, open_, blots, bar):
    """contact_hits.hit_features of one position: PIPLOSS, P1, P2 as float32."""
    origins = shooters | (BAR_BIT if bar > 0 else 0)
    if blots == 0 or origins < 2 * (blots & -blots):
        return np.float32(0), np.float32(0), np.float32(0)
    loss, one, two = _doubles(shooters, open_, blots, bar)  # sums over the 36 rolls of whole numbers
    if bar == 0:
        more_loss, more_one, more_two = _non_doubles_off_bar(shooters, singles, open_, blots)
    else:
        more_loss, more_one, more_two = _non_doubles_from_bar(shooters, open_, blots, bar)
    loss, one, two = loss + more_loss, one + more_one, two + more_two
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
