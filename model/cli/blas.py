"""One BLAS thread for numpy, chosen before numpy loads: imported first by the entry points
(``train.py``, ``evaluate.py`` / ``nardibot`` through model/cli/main.py).

The inputs and the networks multiply tall, thin matrices (``(B, 25) @ (25, 3)`` in the feature
encoding, ``(B, 253) @ (253, 256)`` in a net); OpenBLAS's default of one thread per core spends more
time handing such products out than doing them, and on a busy machine far more. Encoding feature
version 3 took twice the CPU time with two threads as with one on the 2-core development machine
(79 against 155 ms per 10,000 positions, ``time.process_time``); torch keeps its own thread count
(``--threads``). A variable the user has set is left alone; once numpy has loaded, this does nothing.
"""

import os
import sys

if "numpy" not in sys.modules:
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_name, "1")
