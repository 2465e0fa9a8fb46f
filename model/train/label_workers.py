"""Making a label stage's chunks (model/train/labels.py) in this process, in local worker processes,
or as Ray tasks on a cluster. Chunks are independent (chunk i is drawn from its own seed), so they
spread over any number of workers and come out the same; only this process writes them, each
atomically, so a stop at any moment loses at most the chunks under way.

Ctrl-C or SIGTERM: the workers are stopped with the job (they ignore Ctrl-C themselves, and a worker
whose parent dies is sent SIGTERM), the chunks not yet written are made by the next --resume.
"""

from __future__ import annotations

import contextlib
import io
import signal
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

from model.train.labels import LabelSettings, chunk_path, make_chunk, missing_chunks, write_chunk

_NETS = None  # the nets of this worker process (its net and the teacher's others), loaded once


def _load(source, game: str | None = None):
    """A torch net from a checkpoint path or its bytes (a Ray task's copy); ValueError for a file that
    is not a checkpoint of ``game``."""
    from model.net.checkpoint import CheckpointError, load_net

    if isinstance(source, bytes):
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".pt") as f:
            f.write(source)
            f.flush()
            return load_net(f.name, game, "cpu", backend="torch")[0]
    try:
        return load_net(source, game, "cpu", backend="torch")[0]
    except CheckpointError as e:
        raise ValueError(f"cannot load {source}: {e}") from None


def _load_all(state, others) -> tuple:
    """(the net, [the teacher's other nets]), the others checked to be of the net's game and outcomes."""
    net = _load(state)
    rest = [_load(o, net.config.game) for o in others]
    for path, other in zip(others, rest, strict=True):
        if other.config.outputs != net.config.outputs:
            raise ValueError(f"{path} gives {other.config.outputs} outcomes, the run's net {net.config.outputs}")
    return net, rest


def _worker_start(state: str, others: tuple) -> None:
    """A label worker process: one BLAS and torch thread, Ctrl-C left to the parent, SIGTERM when the
    parent dies (Linux), its net loaded once."""
    global _NETS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(Exception):  # PR_SET_PDEATHSIG: no orphan keeps labelling after a kill -9
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    import torch

    torch.set_num_threads(1)
    _NETS = _load_all(state, others)


def _worker_chunk(settings: LabelSettings, index: int) -> tuple[int, dict]:
    return index, make_chunk(_NETS[0], settings, index, _NETS[1])


def make_chunks(state: Path, settings: LabelSettings, folder: Path, workers: int = 1, ray_address: str = "",
                progress: bool = True, log=None, name: str = "labels",
                on_chunk: Callable[[int], None] | None = None, others: tuple = ()) -> int:
    """Make the chunks ``folder`` still lacks, labelled by the net of ``state`` (a .pt); the number made.
    ``others``: the files of ``settings.teacher_also`` (default: as the settings name them);
    ``log``: a StageLog (model/train/pipeline.py) for the rate; ``on_chunk(i)`` after chunk i is written.
    ValueError for a teacher's net that cannot be loaded."""
    import time

    from tqdm import tqdm

    others = tuple(str(o) for o in (others or settings.teacher_also))
    todo = missing_chunks(folder, settings)
    bar = tqdm(total=settings.chunks, initial=settings.chunks - len(todo), unit="chunk", desc=name,
               disable=not progress, dynamic_ncols=True)
    t0, made = time.time(), 0

    def done(index: int, arrays: dict) -> None:
        nonlocal made
        write_chunk(chunk_path(folder, index), **arrays)
        made += 1
        bar.update(1)
        if log is not None:
            log.scalar("labels_per_s", made * settings.chunk / max(time.time() - t0, 1e-9))
        if on_chunk is not None:
            on_chunk(index)

    try:
        if not todo:
            return 0
        if ray_address:
            _on_ray(state, settings, todo, ray_address, done, others)
        elif workers <= 1 or len(todo) == 1:
            net, rest = _load_all(str(state), others)
            for index in todo:
                done(index, make_chunk(net, settings, index, rest))
        else:
            _load_all(str(state), others)  # a net that cannot be loaded is said here, in one line
            _in_processes(state, settings, todo, workers, done, others)
    finally:
        bar.close()
    return made


def _in_processes(state: Path, settings: LabelSettings, todo: list[int], workers: int, done, others) -> None:
    pool = ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=get_context("spawn"),
                               initializer=_worker_start, initargs=(str(state), others))
    pending = set()
    queue = list(todo)
    try:
        while queue or pending:
            while queue and len(pending) < 2 * workers:  # a few ahead, so that a stop drops little
                pending.add(pool.submit(_worker_chunk, settings, queue.pop(0)))
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                done(*future.result())
    except BaseException:
        for process in list((pool._processes or {}).values()):  # stop the chunks under way at once
            with contextlib.suppress(Exception):
                process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _on_ray(state: Path, settings: LabelSettings, todo: list[int], address: str, done, others) -> None:
    try:
        import ray
    except ImportError:
        raise ValueError("--ray-address needs Ray (pip install -e '.[ray]')") from None
    started = not ray.is_initialized()  # this call connects (or starts a local Ray), so it disconnects after
    if started:
        ray.init(address=None if address == "local" else address, log_to_driver=False, logging_level="ERROR")
    net_bytes = ray.put(Path(state).read_bytes())
    other_bytes = ray.put([Path(o).read_bytes() for o in others])

    @ray.remote(num_cpus=1)
    def chunk(source, rest, index):
        import torch

        torch.set_num_threads(1)
        with contextlib.redirect_stdout(io.StringIO()):
            return index, make_chunk(_load(source), settings, index, [_load(o) for o in rest])

    pending = [chunk.remote(net_bytes, other_bytes, i) for i in todo]
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            done(*ray.get(ready[0]))
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
