"""The forward kernel's weight-row sums (model/net/forward_numba.py ``_add_rows``) against two rewrites,
timed on the shipped net's second hidden layer: 64 of its 256 rows (a row's active units after the
first layer) added into 256 sums, 20,000 times, the rows drawn at random (seed 0).

    python experiments/forward_kernel/add_rows_variants.py

  shipped   eight weight rows a pass over the sums, LLVM free to reorder each pass's sum (``FAST``)
  tree      the same passes, the eight products summed pairwise and nothing reordered (contract only)
  block32   32 sums held in locals across all 64 rows, then written (the rows read once per block)

Each with the net's float16 weights read as halves and with float32 copies. The 512-bit build: run it
again with numba told to use 512-bit vectors (LLVM's x86 tuning 'prefer-256-bit' off) in a cache of
its own:

    FEAT=$(python -c "import llvmlite.binding as ll; print(ll.get_host_cpu_features().flatten())")
    NUMBA_CACHE_DIR=/tmp/nb512 NUMBA_CPU_FEATURES="$FEAT,-prefer-256-bit" python experiments/forward_kernel/add_rows_variants.py
"""

import time

import numpy as np
from numba import njit

from model.net import forward_numba as F
from model.net.checkpoint import load_net
from model.net.forward_numba import _widen


@njit(fastmath={"contract"})
def add_tree(h, w, index, count, source, width):
    q = 0
    while q + 8 <= count:
        i0, i1, i2, i3 = index[q], index[q + 1], index[q + 2], index[q + 3]
        i4, i5, i6, i7 = index[q + 4], index[q + 5], index[q + 6], index[q + 7]
        a0, a1, a2, a3 = source[i0], source[i1], source[i2], source[i3]
        a4, a5, a6, a7 = source[i4], source[i5], source[i6], source[i7]
        r0, r1, r2, r3 = w[i0], w[i1], w[i2], w[i3]
        r4, r5, r6, r7 = w[i4], w[i5], w[i6], w[i7]
        for j in range(width):
            h[j] += ((a0 * _widen(r0[j]) + a1 * _widen(r1[j])) + (a2 * _widen(r2[j]) + a3 * _widen(r3[j]))) + (
                (a4 * _widen(r4[j]) + a5 * _widen(r5[j])) + (a6 * _widen(r6[j]) + a7 * _widen(r7[j])))
        q += 8
    while q < count:
        i = index[q]
        a = source[i]
        r = w[i]
        for j in range(width):
            h[j] += a * _widen(r[j])
        q += 1


def _block(size: int):
    """``size`` sums held in locals s0, s1, ... across every row (the source written out, then compiled)."""
    lines = ["def add_block(h, w, index, count, source, width):", f"    for jb in range(0, width, {size}):"]
    lines += [f"        s{k} = h[jb + {k}]" for k in range(size)]
    lines += ["        for q in range(count):", "            i = index[q]", "            a = source[i]",
              "            r = w[i]"]
    lines += [f"            s{k} += a * _widen(r[jb + {k}])" for k in range(size)]
    lines += [f"        h[jb + {k}] = s{k}" for k in range(size)]
    space = {"_widen": _widen}
    exec("\n".join(lines), space)  # noqa: S102 - our own generated source
    return njit(fastmath={"contract"})(space["add_block"])


def _timed(add):
    @njit(fastmath=F.FAST)
    def run(h, w, index, source, repeat):
        total = 0.0
        for r in range(repeat):
            add(h, w, index[r % 64], 64, source, 256)
            total += h[r % 256]
        return total
    return run


def main() -> None:
    net, _ = load_net("checkpoints/backgammon.safetensors", "backgammon", backend="numpy")
    halves = net.kernel_weights[0][1]
    singles = np.ascontiguousarray(halves.view(np.float16).astype(np.float32))
    rng = np.random.default_rng(0)
    index = np.stack([np.sort(rng.choice(256, 64, replace=False)) for _ in range(64)]).astype(np.int64)
    source = rng.random(256).astype(np.float32)
    variants = {"shipped": _timed(F._add_rows), "tree": _timed(add_tree), "block32": _timed(_block(32))}
    for run in variants.values():  # compiled before anything is timed
        for w in (halves, singles):
            run(np.zeros(256, np.float32), w, index, source, 2)
    repeat = 20_000
    for _ in range(3):
        for w, name in ((halves, "halves"), (singles, "float32")):
            cells = []
            for label, run in variants.items():
                start = time.perf_counter()
                run(np.zeros(256, np.float32), w, index, source, repeat)
                cells.append(f"{label} {(time.perf_counter() - start) / repeat * 1e6:.3f} us")
            print(f"{name:8s}" + "; ".join(cells))


if __name__ == "__main__":
    main()
