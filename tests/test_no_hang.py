"""tests/strategies.py's no_hang: the fuzz tests' alarm never goes off inside numba's compiler."""

import time

import pytest

from tests.strategies import Hang, no_hang, numba_compiling


def test_the_alarm_waits_for_numbas_compiler_then_goes_off():
    """An alarm due while the compiler lock is held (as a kernel compiles) is put off until it is let
    go; then Hang is raised as before (``left`` is set only after the lock is let go)."""
    pytest.importorskip("numba")
    from numba.core.compiler_lock import global_compiler_lock

    left = None
    with pytest.raises(Hang), no_hang(0.2):
        with global_compiler_lock:
            assert numba_compiling()
            time.sleep(0.7)  # the alarm falls due here and waits
        left = time.monotonic()
        time.sleep(5)
    assert left is not None and not numba_compiling()
    with pytest.raises(Hang), no_hang(0.2):  # and without the lock, at once
        time.sleep(5)
