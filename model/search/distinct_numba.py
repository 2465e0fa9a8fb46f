"""The rollouts' distinct children as one numba kernel: what model/search/trials.py's ``distinct_rows``
returns, exactly.

``distinct_rows``' numpy code hashes each row (a position's 28 bytes and a 4-byte group, as four
64-bit words), sorts the hashes with ``np.unique`` and checks the rows it merged: some 1.3 ms a ply
of a rollout's batch of 256 trials (about 10,000 children), 5% of a trial's CPU. This kernel puts the
rows in an open-addressing hash table instead, comparing the four words of rows whose hashes meet, so
no sort and no collision can merge two different rows: (first, inverse) with the distinct rows in
the order they first occur, as the numpy code gives them. tests/search/test_top_plays.py compares the
two. Only model/search/trials.py imports this module, when engine/compiled.py's ``numba_due`` says so.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def distinct_kernel(words, mix, first, inverse):
    """Rows ``words`` (N, 4) uint64: ``first[:D]`` the index of each distinct row where it first occurs, in
    that order, ``inverse`` (N,) each row's distinct number; returns D. ``mix`` (4,) uint64: the hash's
    odd multipliers."""
    n = words.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, dtype=np.int64)
    shift = np.uint64(31)
    d = 0
    for i in range(n):
        w0, w1, w2, w3 = words[i, 0], words[i, 1], words[i, 2], words[i, 3]
        key = w0 * mix[0] + w1 * mix[1] + w2 * mix[2] + w3 * mix[3]
        key ^= key >> shift
        slot = key & mask
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = d
                first[d] = i
                inverse[i] = d
                d += 1
                break
            j = first[k]
            if words[j, 0] == w0 and words[j, 1] == w1 and words[j, 2] == w2 and words[j, 3] == w3:
                inverse[i] = k
                break
            slot = (slot + np.uint64(1)) & mask
    return d
