"""Ray, for the commands that spread work over processes or machines (nardibot train --actors,
nardibot rollout --workers): join a running cluster, or start one on this machine.

Ray is imported only when one of these is called; the plain install and the [train] extra need none.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class ClusterError(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached: said in one line for a command line."""


def start_ray(address: str = "", cpus: int = 0, flag: str = "--workers"):
    """The ``ray`` module, connected: to the cluster at ``address`` (HOST:PORT or "auto"), or, without
    one, to a cluster started here with ``cpus`` CPUs (at least the machine's cores), its workers finding
    this checkout on their path and running at this process's priority. Returns (ray, whether this call started Ray: then the caller stops it
    with ray.shutdown()). ClusterError when Ray is missing or the cluster cannot be joined."""
    try:
        import ray
    except ImportError:
        raise ClusterError(f"{flag} needs Ray: pip install -e '.[ray]'") from None
    if ray.is_initialized():
        return ray, False
    if address and address != "auto":
        _reachable(address)
    try:
        if address:
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            # Ray lowers its workers' priority (nice 15) by default; here they do the command's main work,
            # so they run at the command's own priority (RAY_worker_niceness set beforehand wins)
            os.environ.setdefault("RAY_worker_niceness", "0")
            path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
            ray.init(num_cpus=max(os.cpu_count() or 1, cpus), include_dashboard=False,
                     logging_level=logging.WARNING, runtime_env={"env_vars": {"PYTHONPATH": path}})
    except Exception as e:  # noqa: BLE001 - Ray raises bare Exceptions too (a node that starts too slowly)
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        what = f"join the Ray cluster at {address}" if address else "start Ray on this machine"
        raise ClusterError(f"cannot {what}: {reason}") from None
    return ray, True


def _reachable(address: str, timeout: float = 5.0) -> None:
    """ClusterError unless something accepts connections at HOST:PORT (Ray itself would keep trying for
    minutes)."""
    import socket

    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except ValueError:
        raise ClusterError(f"--ray-address must be HOST:PORT or auto, not {address!r}") from None
    except OSError as e:
        raise ClusterError(f"cannot join the Ray cluster at {address}: {e.strerror or e}") from None
