"""The torch device that networks run on, as the command lines choose it (``--device``, ``--threads``)."""

from __future__ import annotations

import os


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
