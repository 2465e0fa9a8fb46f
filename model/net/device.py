"""The torch device that networks run on, as the command lines choose it (``--device``, ``--threads``)."""

from __future__ import annotations

import os


def learner_threads(threads: int, local_actors: int = 0) -> int:
    """The torch CPU threads of a learner: ``threads`` when given (> 0), else one a core, less one a core
    for each of ``local_actors`` self-play actors playing on this machine beside it (at least one).
    Two Ray actors and a learner on two threads on a 2-core machine: torch's threads wait for work
    by spinning on the cores the actors play on, 250 to 270 games/s of self-play with learning
    against 310 to 430 with the learner on one thread (scripts/bench_actors.py, "actors 2")."""
    if threads > 0:
        return threads
    return max(1, (os.cpu_count() or 1) - max(0, local_actors))


def choose_device(name: str = "auto", threads: int = 0) -> str:
    """The torch device called ``name``; "auto" is cuda when there is a CUDA device, else cpu. Sets torch's
    CPU threads to ``threads`` (0: one a core). Without torch (the light install) "auto" and "cpu" are
    the CPU, where networks run in numpy. ValueError, said for a command line, when another device is
    asked for without torch, torch knows no such device, or it is a CUDA device this machine does not have."""
    try:
        import torch
    except ImportError:
        if name in ("auto", "cpu"):
            return "cpu"
        raise ValueError(f"--device {name} needs torch (the [train] extra); without it networks run "
                         "on the cpu") from None
    torch.set_num_threads(threads or os.cpu_count() or 1)
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError):
        raise ValueError(f"--device: not a torch device: {name!r}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"--device {name}: no CUDA device is available")
    if device.type == "cuda" and (device.index or 0) >= torch.cuda.device_count():
        raise ValueError(f"--device {name}: no such CUDA device ({torch.cuda.device_count()} available)")
    return name
