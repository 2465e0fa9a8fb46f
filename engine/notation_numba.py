"""The notation of a position's plays as one numba kernel: what engine/notation.py writes, byte for byte.

engine/notation.py's ``format_generated_many`` writes the notation of every play of a roll from the
generator's steps; in Python that is some 3 us a play (a double's four steps take the general loop),
a third of a 0-ply hint. This kernel follows the same rules for all of a position's plays in one
call, into one ASCII buffer that the caller cuts at ``ends``: each play's steps as (source,
destination), sorted high to low, a step joined to an earlier path ending on its source (the point
kept only where an opponent's checker stood before the play), identical paths counted, a star on
kept points and on the first landing on each point where an opponent's checker stood. The Python
code stays the reference: tests/engine/test_notation_numba.py compares the two on thousands of
positions of both games.

Only engine/notation.py imports this module, when engine/compiled.py's ``numba_due`` says so.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_OFF, _BAR = 0, 25
_PER_PLAY = 64  # the longest play's text is well under this: four words of "bar/24*/18*" at most


@njit(cache=True)
def _put_point(buf, n, point):
    """Write a point's name ("off", 1..24, "bar") at ``buf[n]``; return the new end."""
    if point == _OFF:
        buf[n], buf[n + 1], buf[n + 2] = 111, 102, 102  # off
        return n + 3
    if point == _BAR:
        buf[n], buf[n + 1], buf[n + 2] = 98, 97, 114  # bar
        return n + 3
    if point >= 10:
        buf[n] = 48 + point // 10
        n += 1
    buf[n] = 48 + point % 10
    return n + 1


@njit(cache=True)
def notation_kernel(befores, owner, taken, backgammon):
    """The notation of each play (``taken`` (N, 4, 2) int8: the generator's (source, die) steps, (0, 0)
    past the last) of its position ``befores[owner[i]]`` (``befores`` (P, 28) int8, ``owner`` (N,)
    int64: one position's plays, or each of many positions' best), as (buffer uint8, ends (N,) int64):
    play i's text is ``buffer[ends[i - 1]:ends[i]]``; an empty play writes nothing."""
    hit = np.zeros(26, dtype=np.bool_)  # points 1..24 where an opponent's checker stands before the play
    n_plays = taken.shape[0]
    seen = -1
    buf = np.empty(n_plays * _PER_PLAY, dtype=np.uint8)
    ends = np.empty(n_plays, dtype=np.int64)
    src = np.empty(4, dtype=np.int64)
    dst = np.empty(4, dtype=np.int64)
    paths = np.empty((4, 6), dtype=np.int64)  # each path's points; a path keeps at most 5
    length = np.empty(4, dtype=np.int64)
    used = np.empty(4, dtype=np.bool_)
    starred = np.empty(26, dtype=np.bool_)
    n = 0
    for r in range(n_plays):
        if backgammon and owner[r] != seen:
            seen = owner[r]
            before = befores[seen]
            for p in range(1, 25):
                hit[p] = before[p - 1] < 0
        m = 0
        for k in range(taken.shape[1]):
            s = np.int64(taken[r, k, 0])
            if s == 0:
                continue
            d = s - np.int64(taken[r, k, 1])
            # insertion sort, descending by source, then destination
            at = m
            while at > 0 and (src[at - 1] < s or (src[at - 1] == s and dst[at - 1] < max(d, _OFF))):
                src[at], dst[at] = src[at - 1], dst[at - 1]
                at -= 1
            src[at], dst[at] = s, max(d, _OFF)
            m += 1
        for i in range(m):
            paths[i, 0], paths[i, 1] = src[i], dst[i]
            length[i] = 2
            used[i] = False
        for i in range(m):  # join each path with later steps starting where it ends
            if used[i]:
                continue
            for j in range(i + 1, m):
                last = paths[i, length[i] - 1]
                if not used[j] and last != _OFF and paths[j, 0] == last:
                    if not hit[last]:
                        length[i] -= 1  # nothing happened on the way: the point is dropped
                    paths[i, length[i]] = paths[j, length[j] - 1]
                    length[i] += 1
                    used[j] = True
        starred[:] = False
        first = True
        for i in range(m):
            if used[i]:
                continue
            count = 1
            for j in range(i + 1, m):
                if used[j] or length[j] != length[i]:
                    continue
                same = True
                for q in range(length[i]):
                    if paths[j, q] != paths[i, q]:
                        same = False
                        break
                if same:
                    used[j] = True
                    count += 1
            if not first:
                buf[n] = 32  # " "
                n += 1
            first = False
            n = _put_point(buf, n, paths[i, 0])
            for q in range(1, length[i] - 1):  # kept intermediate points are hits
                buf[n] = 47  # "/"
                n = _put_point(buf, n + 1, paths[i, q])
                buf[n] = 42  # "*"
                n += 1
                starred[paths[i, q]] = True
            last = paths[i, length[i] - 1]
            buf[n] = 47
            n = _put_point(buf, n + 1, last)
            if last != _OFF and hit[last] and not starred[last]:  # a blot is hit once: one star a point
                buf[n] = 42
                n += 1
                starred[last] = True
            if count > 1:
                buf[n], buf[n + 1], buf[n + 2] = 40, 48 + count, 41  # "(k)"
                n += 3
        ends[r] = n
    return buf[:n], ends
