"""Where the learner's positions come from: the actor in this process, or N self-play actors on Ray.

    source = LocalActor(actor)                        # nardibot train --actors 0: no Ray, repeatable
    source = RayActors(2, net, games=256, ...)        # nardibot train --actors 2 [--ray-address HOST:PORT]
    exp = source.collect(min_samples, max_games)      # an Experience (model/train/td.py)
    source.set_weights(learner.weights())             # a new weight version for the actors
    source.close()

RayActors runs N ``SelfPlayWorker`` Ray actors, each a SelfPlayActor in its own process playing its
games side by side as train.py's in-process actor does. Each has at most ``inflight`` play requests
outstanding (the driver waits on them with ``ray.wait``), so the object store holds at most N x
``inflight`` answers of about ``min_samples / N`` positions each. Every new weight version is put in
the object store once (``ray.put``) and requests carry its reference inside a list, so Ray does not
fetch it for them: an actor fetches it only when the version differs from the one it holds. An
answer says which version played it; the learner's version minus that one is the *staleness*.

Faults: the actors are made with ``max_restarts=-1``. One that dies (kill -9, its node lost) fails
its requests in flight (those games are lost), Ray starts it again (its constructor runs again with
fresh dice) and the driver sends it requests again, which bring it the current weights; an actor
still failing a minute after it died is replaced by a new one. ``close`` kills the actors and, when this
process started Ray, stops it.

Ray is imported only here and only when RayActors is made: ``--actors 0`` needs no Ray.
"""

from __future__ import annotations

import os
import time

import numpy as np

from model.net.cluster import ClusterError, start_ray
from model.train.td import Experience, SelfPlayActor, collect, join

REPLACE_AFTER_S = 60.0  # an actor still failing this long after it died is replaced rather than left to Ray
RETRY_S = 1.0  # while Ray restarts an actor, requests are sent to it again this often


class ActorsError(RuntimeError):
    """Ray is missing, the cluster cannot be reached, or it cannot start the actors asked for."""


class LocalActor:
    """The self-play actor of this process (``--actors 0``): collect plays in the caller's process."""

    def __init__(self, actor: SelfPlayActor):
        self.actor = actor
        self.staleness: list[int] = []  # always current
        self.restarts = 0

    def collect(self, min_samples: int, max_games: int) -> Experience:
        return collect(self.actor, min_samples, max_games)

    def set_weights(self, weights: dict) -> None:
        self.actor.set_weights(weights)

    def state(self) -> dict:
        """What a checkpoint keeps to go on with the same dice: the actor's generator."""
        import json

        return {"actor_rng": json.dumps(self.actor.rng.bit_generator.state)}

    def close(self) -> None:
        pass


def numpy_weights(state_dict: dict) -> dict:
    """A torch state dict as float32 numpy arrays (what goes into Ray's object store)."""
    return {k: v.detach().cpu().numpy() for k, v in state_dict.items()}


def _tensors(weights: dict) -> dict:
    import torch

    return {k: torch.from_numpy(np.array(v)) for k, v in weights.items()}


class SelfPlayWorker:
    """One Ray actor: a SelfPlayActor in its own process (made a Ray actor by RayActors)."""

    def __init__(self, config: dict, index: int, seed: int, games: int, lam: float, explore: float,
                 exact_endgames: bool, device: str = "cpu", target: str = "sample", prune: int = 0,
                 generation: int = 0, play_prune: int = 0):
        import warnings

        import ray
        import torch

        import model.runtime  # noqa: F401  (freed memory kept for reuse, also on a node started without our env)
        from model.net.network import NetConfig, OutcomeNet

        torch.set_num_threads(1)
        entropy = [seed, index, generation]  # generation: how many times RayActors replaced this actor
        with warnings.catch_warnings():  # deprecated in Ray 2.5x, without a successor that says this
            warnings.simplefilter("ignore")
            if ray.get_runtime_context().was_current_actor_reconstructed:
                entropy += [time.time_ns(), os.getpid()]  # a restarted actor does not replay the same dice
        # the weights come with the first request (the constructor's arguments stay small and by value,
        # so that Ray can always run it again)
        self.actor = SelfPlayActor(OutcomeNet(NetConfig.from_dict(config)), games=games, lam=lam,
                                   seed=np.random.SeedSequence(entropy), device=device, explore=explore,
                                   exact_endgames=exact_endgames, target=target, prune=prune,
                                   play_prune=play_prune)
        self.version = -1

    def pid(self) -> int:
        return os.getpid()

    def play(self, version: int, box: list, min_samples: int, max_games: int) -> tuple[int, int, Experience]:
        """(the weight version played with, this process's id, collect(min_samples, max_games)); ``box`` =
        [the object reference of weight version ``version``], fetched only when this actor holds another."""
        if version != self.version:
            import ray

            self.actor.set_weights(_tensors(ray.get(box[0])))
            self.version = version
        return self.version, os.getpid(), collect(self.actor, min_samples, max_games)


class RayActors:
    """N self-play actors on Ray feeding the learner of this process (module docstring)."""

    def __init__(self, n: int, net, *, games: int, lam: float, seed: int, explore: float = 0.0,
                 exact_endgames: bool = False, address: str = "", inflight: int = 2, gpus: float = 0.0,
                 log=print, start_timeout: float = 180.0, target: str = "sample", prune: int = 0,
                 play_prune: int = 0):
        try:
            ray, self.started_ray = start_ray(address, n, "--actors")
        except ClusterError as e:
            raise ActorsError(str(e)) from None
        self.ray, self.n, self.inflight, self.log = ray, n, inflight, log
        self.version = 0
        self.weights_ref = ray.put(numpy_weights(net.state_dict()))
        self.remote = ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=-1, max_task_retries=0)(SelfPlayWorker)
        self.spec = {"config": net.config.to_dict(), "seed": seed, "games": games, "lam": lam,
                     "explore": explore, "exact_endgames": exact_endgames, "device": "cuda" if gpus > 0 else "cpu",
                     "target": target, "prune": prune, "play_prune": play_prune}
        self.handles = [self._spawn(i) for i in range(n)]
        self.pending: dict = {}  # object reference of a request -> the actor's index
        self.down_since: list[float | None] = [None] * n  # when each failing actor first failed
        self.retry_at = [0.0] * n
        self.restarts = 0
        self.replaced = 0  # actors replaced after staying down (each gets fresh dice)
        self.staleness: list[int] = []  # of the answers of the last collect
        try:
            self.pids = ray.get([h.pid.remote() for h in self.handles], timeout=start_timeout)
        except ray.exceptions.GetTimeoutError:
            cpus = ray.cluster_resources().get("CPU", 0)
            self.close()
            raise ActorsError(f"Ray did not start {n} actors in {start_timeout:.0f} s (each needs a CPU, "
                              f"{gpus:g} GPU; the cluster has {cpus:g} CPUs)") from None
        except ray.exceptions.RayError as e:  # e.g. a node without the project installed
            self.close()
            lines = [line for line in str(e).splitlines() if line.strip()]
            raise ActorsError(f"the actors could not start: {lines[-1] if lines else type(e).__name__}") from None

    def _spawn(self, index: int, generation: int = 0):
        return self.remote.remote(index=index, generation=generation, **self.spec)

    def set_weights(self, weights: dict) -> None:
        """A new weight version: into the object store once; requests sent from now on carry it."""
        self.weights_ref = self.ray.put(numpy_weights(weights))
        self.version += 1

    def state(self) -> dict:
        return {}  # the actors' dice are not kept: a resumed run deals them afresh from --seed

    def _fill(self, min_samples: int, max_games: int) -> None:
        """Send each actor requests until it has ``inflight`` outstanding."""
        busy = list(self.pending.values())
        per_actor = max(1, -(-min_samples // self.n))
        now = time.monotonic()
        for i, handle in enumerate(self.handles):
            if self.retry_at[i] > now:
                continue
            for _ in range(self.inflight - busy.count(i)):
                ref = handle.play.remote(self.version, [self.weights_ref], per_actor, max(1, max_games))
                self.pending[ref] = i

    def _next(self):
        """The next answer: (version played, Experience), or None when an actor died instead."""
        ray = self.ray
        if not self.pending:  # every actor is being restarted
            time.sleep(RETRY_S / 4)
            return None
        ready, _ = ray.wait(list(self.pending), num_returns=1, timeout=RETRY_S)  # short: Ctrl-C stays prompt
        if not ready:
            return None
        index = self.pending.pop(ready[0])
        try:
            answer = ray.get(ready[0])
        except ray.exceptions.RayActorError as e:
            self._failed(index, e)
            return None
        version, pid, exp = answer
        if self.down_since[index] is not None:
            self.down_since[index] = None
            self.pids[index] = pid
            self.log(f"actor {index} is playing again (pid {pid})")
        return version, exp

    def _failed(self, index: int, error: Exception) -> None:
        """A request to actor ``index`` failed: it died, or is still being restarted. Forget its other
        requests (lost with it) and send it new ones a little later; replace it if it stays down."""
        for ref in [r for r, i in self.pending.items() if i == index]:
            del self.pending[ref]
        now = time.monotonic()
        self.retry_at[index] = now + RETRY_S
        if self.down_since[index] is None:
            self.down_since[index] = now
            self.restarts += 1
            self.log(f"actor {index} died ({type(error).__name__}); its games in flight are lost; "
                     "Ray restarts it")
        elif now - self.down_since[index] > REPLACE_AFTER_S:
            self.ray.kill(self.handles[index], no_restart=True)
            self.replaced += 1  # a new actor must not replay the dice of the first one of this index
            self.handles[index] = self._spawn(index, generation=self.replaced)
            self.down_since[index] = now
            self.log(f"actor {index} still down after {REPLACE_AFTER_S:.0f} s: replaced by a new actor")

    def collect(self, min_samples: int, max_games: int) -> Experience:
        """Answers until ``min_samples`` positions or ``max_games`` games have come back (past them by
        at most one answer); the requests still in flight go on and are answered in later calls."""
        parts, samples, games = [], 0, 0
        self.staleness = []
        while samples < min_samples and games < max_games:
            self._fill(min_samples, max_games - games)
            answer = self._next()
            if answer is None:
                continue
            version, exp = answer
            parts.append(exp)
            samples += len(exp.positions)
            games += exp.games
            self.staleness.append(self.version - version)
        return join(parts)

    def close(self) -> None:
        """Kill the actors (their requests in flight are dropped); stop Ray if this process started it."""
        ray = self.ray
        try:
            for handle in getattr(self, "handles", []):
                ray.kill(handle, no_restart=True)
        except Exception as e:  # noqa: BLE001 - the cluster may be gone already (Ctrl-C reaches its processes too)
            self.log(f"stopping the actors: {type(e).__name__}")
        if self.started_ray:
            ray.shutdown()
