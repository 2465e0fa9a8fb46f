"""Process settings, made before numpy loads: one BLAS thread for numpy and glibc's malloc keeping
freed memory for reuse. Imported first by the entry points (``nardibot`` and ``evaluate.py`` through nardibot/cli/main.py,
``train.py`` itself) and by the Ray actors; nothing else needs to reach for it.

The inputs and the networks multiply tall, thin matrices (``(B, 25) @ (25, 3)`` in the feature
encoding, ``(B, 253) @ (253, 256)`` in a net); OpenBLAS's default of one thread per core spends more
time handing such products out than doing them, and on a busy machine far more. Encoding feature
version 3 took twice the CPU time with two threads as with one on the 2-core development machine
(79 against 155 ms per 10,000 positions, ``time.process_time``); torch keeps its own thread count
(``--threads``). A variable the user has set is left alone; once numpy has loaded, this does nothing.

Freed memory is kept for reuse: glibc gives the top of its heap back to the kernel as soon as 128 KiB
or so of it is free, so every batch's temporaries (a few MiB per 4,096 positions in the encoders
and the network) came back as fresh pages, each a page fault when first written: about 40% of
feature version 3's encoding time on the development machine (27,000 faults per 40,960 positions,
51 against 30 ms of CPU per 10,000). ``M_TOP_PAD`` keeps up to ``TOP_PAD`` bytes (64 MiB) at the
top of the heap instead: set here for this process (``mallopt``) and through ``MALLOC_TOP_PAD_``
for the processes it starts (Ray actors, workers). A value the user has set is left alone; not
glibc (macOS, Windows): nothing happens.

Setting any of these fixes glibc's threshold for serving a block by a fresh ``mmap`` at its default
of 128 KiB (glibc otherwise raises it as large blocks are freed), so every array over 128 KiB was
mapped, faulted in page by page and unmapped again: the look-ahead's levels (hundreds of thousands
of children) spent a third of their time in the kernel. ``M_MMAP_THRESHOLD`` and ``M_TRIM_THRESHOLD``
at ``LARGE`` (256 MiB) serve such arrays from the heap and keep them there for reuse (env
``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_`` for the processes started). Measured side by
side, the labels bit-equal: 1,000 2-ply sibling labels 39.6 -> 24.8 s (system time 12.0
-> 0.5 s, 3.0 million page faults -> 65,000), 100 3-ply labels 60.9 -> 42.9 s, the one-ply target's
actor 1,052 -> 1,262 plies per CPU second; the plain actor and rollouts (blocks of 4,096 rows) did
not change. A process may so keep up to LARGE + TOP_PAD of freed memory.
"""

import ctypes
import os
import sys

TOP_PAD = 64 << 20
LARGE = 256 << 20
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3  # glibc's malloc.h

SET_HERE: list[str] = []
"""The environment variables this module set (not the user): a benchmark that times another source
tree's code takes them out of its environment, so that tree runs with what its own entry points set."""

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

if "numpy" not in sys.modules:
    for _name in BLAS_THREADS:
        if _name not in os.environ:
            os.environ[_name] = "1"
            SET_HERE.append(_name)


def one_blas_thread() -> None:
    """numpy's BLAS to one thread from now on where numpy loaded before this module could set it (a
    program that imported numpy, then ``model.Bot``: ``Bot.load`` calls this), through threadpoolctl;
    nothing where any of ``BLAS_THREADS`` is set (by this module before numpy loaded, or by the user).
    Under load a 0-ply hint took 15.3 ms of CPU with OpenBLAS's two threads against 2.2 ms with one."""
    if any(name in os.environ for name in BLAS_THREADS):
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def _keep_freed_memory() -> None:
    """Have glibc keep ``TOP_PAD`` bytes of freed heap and serve blocks up to ``LARGE`` from the heap
    (module docstring); each setting only where the user has not made it."""
    for name, option, value in (("MALLOC_TOP_PAD_", _M_TOP_PAD, TOP_PAD),
                                ("MALLOC_MMAP_THRESHOLD_", _M_MMAP_THRESHOLD, LARGE),
                                ("MALLOC_TRIM_THRESHOLD_", _M_TRIM_THRESHOLD, LARGE)):
        if name in os.environ:  # the user's (read by glibc when the process started) or ours
            continue
        os.environ[name] = str(value)
        SET_HERE.append(name)
        try:
            ctypes.CDLL(None).mallopt(option, value)
        except (AttributeError, OSError, TypeError):  # not glibc
            pass


_keep_freed_memory()
