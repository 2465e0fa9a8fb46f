"""train.py --actors N: self-play actors on Ray. The actors play with the learner's weights; a run
trains and checkpoints, an actor killed with SIGKILL is restarted and plays again, SIGTERM stops the
actors with a checkpoint, and the run resumes with and without Ray. Needs the [ray] extra (CI installs
it)."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from model.net.checkpoint import read

pytest.importorskip("ray")
ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
SMALL = ["--threads", "1", "--parallel-games", "32", "--samples-per-update", "1024", "--hidden", "16",
         "--eval-every", "0", "--game", "nardi", "--no-progress"]


class Run:
    """train.py in the background, its output lines gathered as they come."""

    def __init__(self, *flags):
        self.proc = subprocess.Popen([sys.executable, "-u", str(ROOT / "train.py"), *SMALL, *flags], env=ENV,
                                     cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)

    def wait_for(self, text: str, timeout: float = 240) -> str:
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = [line for line in self.lines if text in line]
            if found:
                return found[0]
            assert self.proc.poll() is None, "".join(self.lines)[-3000:]
            time.sleep(0.2)
        raise AssertionError(f"no {text!r} in {''.join(self.lines)[-3000:]}")


def test_ray_actors_play_with_the_learners_weights():
    """Each answer of a Ray actor is played with the weights the learner sent last: its positions and
    targets are, one for one, those the same actor (its seed) makes in this process with those
    weights, for two successive weight versions; the answer says it played the learner's version
    (staleness 0 with one request in flight); and the first weights would have played other games."""
    import torch

    from model.net.network import NetConfig, OutcomeNet
    from model.train.actors import RayActors
    from model.train.td import SelfPlayActor, collect

    def net(seed: int) -> OutcomeNet:
        torch.manual_seed(seed)
        return OutcomeNet(NetConfig("nardi", (16,)))

    first, learned, later = net(0), net(1), net(2)
    source = RayActors(1, first, games=8, lam=0.7, seed=5, inflight=1, log=lambda *_: None)
    try:
        here = SelfPlayActor(first, games=8, lam=0.7, seed=np.random.SeedSequence([5, 0, 0]))  # actor 0's seed
        for weights in (learned, later):
            source.set_weights(weights.state_dict())
            got = source.collect(200, 10**6)
            assert source.staleness == [0]
            here.set_weights(weights.state_dict())
            want = collect(here, 200, 10**6)
            np.testing.assert_array_equal(got.positions, want.positions)
            np.testing.assert_allclose(got.targets, want.targets, atol=1e-6)
            assert (got.games, got.plies) == (want.games, want.plies)
    finally:
        source.close()
    with_first, with_learned = (collect(SelfPlayActor(weights, games=8, lam=0.7, seed=np.random.SeedSequence([5, 0, 0])),
                                        200, 10**6) for weights in (first, learned))
    assert not np.array_equal(with_first.targets[:100], with_learned.targets[:100])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def scalars(run_dir: Path, tag: str) -> list[float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir / "tb"))
    acc.Reload()
    return [e.value for e in acc.Scalars(tag)] if tag in acc.Tags()["scalars"] else []


def stop_after_a_kill(run: Run) -> list[int]:
    """Kill actor 0 once the run has checkpointed, wait until it plays again, then SIGTERM the run (exit
    130); the pids of the actors still alive before the SIGTERM."""
    line = run.wait_for("self-play actors on Ray (pids")
    pids = [int(p) for p in line.split("(pids")[1].split(")")[0].split()]
    assert len(pids) == 2, line
    # two actors on this machine's Ray keep two of its cores: the learner's torch threads are the rest
    assert f"the learner on {max(1, (os.cpu_count() or 1) - 2)} torch thread" in line
    run.wait_for("wrote")  # a checkpoint: the actors play and the learner learns
    os.kill(pids[0], signal.SIGKILL)
    run.wait_for("actor 0 died")
    back = run.wait_for("actor 0 is playing again")  # restarted by Ray, in a new process, with the weights
    pids[0] = int(back.split("pid")[1].strip(" )\n"))
    run.proc.send_signal(signal.SIGTERM)
    assert run.proc.wait(timeout=120) == 130, "".join(run.lines)[-3000:]
    return pids


def test_actors_survive_a_kill_stop_on_sigterm_and_the_run_resumes_with_or_without_ray(tmp_path):
    run_dir = tmp_path / "run"
    # --threads 0 (train.py's default) over SMALL's 1: the learner's threads as train.py picks them
    run = Run("--actors", "2", "--threads", "0", "--games", "100000", "--checkpoint-every", "100",
              "--run-dir", str(run_dir))
    try:
        pids = stop_after_a_kill(run)
    finally:
        run.proc.kill()  # no-op once it has ended
    games = read(run_dir / "last.pt")["games"]
    assert games >= 100 and list((run_dir / "snapshots").glob("games_*.pt"))
    deadline = time.time() + 30
    while any(alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.5)
    assert not any(alive(p) for p in pids), "an actor outlived the run"
    assert max(scalars(run_dir, "charts/actor_restarts")) >= 1
    assert scalars(run_dir, "charts/weight_staleness")  # logged; which weights the actors play with: below

    # resumed with Ray, the run finishes at its --games; then without Ray
    done = subprocess.run([sys.executable, str(ROOT / "train.py"), *SMALL, "--resume", "--run-dir", str(run_dir),
                           "--actors", "2", "--games", str(games + 150)], env=ENV, cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    after_ray = read(run_dir / "last.pt")
    assert after_ray["games"] >= games + 150 and "actor_rng" not in after_ray["train_state"]
    done = subprocess.run([sys.executable, str(ROOT / "train.py"), *SMALL, "--resume", "--run-dir", str(run_dir),
                           "--games", str(after_ray["games"] + 100)], env=ENV, cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    last = read(run_dir / "last.pt")
    assert last["games"] >= after_ray["games"] + 100 and "actor_rng" in last["train_state"]


def test_actor_flags_are_checked_in_one_line(tmp_path):
    for flags, said in ((["--ray-address", "auto"], "--ray-address"), (["--actors", "-1"], "--actors"),
                        (["--actors", "1", "--ray-address", "127.0.0.1:1"], "cannot join the Ray cluster at 127.0.0.1:1")):
        done = subprocess.run([sys.executable, str(ROOT / "train.py"), *SMALL, "--run-dir", str(tmp_path / "r"),
                               *flags], env=ENV, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr[-2000:]
