"""Concurrent requests scored together (nardibot/web/batch.py): each caller gets exactly its own rows of the
merged call, an error reaches every caller of it, large calls are not held up; over HTTP, concurrent hint,
evaluate and cube requests share network calls and get the answers they get alone. What is merged is made
certain by the tests (a window that ends when every caller's rows have come, a network held until the
other calls have queued), never left to how the threads happen to be scheduled."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse

import numpy as np
import pytest

from engine.formats.position import write_position_id
from engine.tools.sample import random_positions
from nardibot.web.batch import NetBatcher, unbatched


class RowWise:
    """A network whose every row's answer depends on that row alone, in exact arithmetic (no BLAS):
    probabilities = the row's first five entries scaled, so that a wrongly routed row shows."""

    config = type("Config", (), {"game": "backgammon", "outputs": 5})()

    def __init__(self, fail_on: int | None = None):
        self.calls, self.sizes, self.fail_on = 0, [], fail_on
        self.lock = threading.Lock()

    def eval(self):
        return self

    def probabilities(self, positions, device="cpu"):
        with self.lock:
            self.calls += 1
            self.sizes.append(len(positions))
        if self.fail_on is not None and (positions[:, 0] == self.fail_on).any():
            raise ValueError("a position this network refuses")
        return positions[:, :5].astype(np.float64) / 16.0


WINDOW = 600.0
"""A waiting window no machine reaches: the first call of a test waits for company until the rows
queued reach ``max_rows``, which the test sets to all its callers' rows, so that what is merged does
not depend on how the threads happen to be scheduled (a window of 0.3 s did, on a loaded machine)."""


def concurrently(functions: list) -> list:
    """Run the functions on one thread each, released together; their results (or exceptions) in order."""
    results = [None] * len(functions)
    gate = threading.Barrier(len(functions))

    def run(k):
        gate.wait()
        try:
            results[k] = functions[k]()
        except Exception as err:  # noqa: BLE001 - returned for the test to look at
            results[k] = err

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(functions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WINDOW)  # a hang guard
    return results


def test_concurrent_calls_are_merged_and_each_caller_gets_its_own_rows():
    """Eight callers of different sizes at once, the first waiting for company until all their rows have
    come: one network call for all eight, and each caller's answer is exactly the network's answer for
    its rows, in its order."""
    inner = RowWise()
    rng = np.random.default_rng(1)
    batches = [rng.integers(-15, 16, size=(n, 28)).astype(np.int8) for n in (1, 3, 20, 7, 1, 40, 2, 11)]
    batcher = NetBatcher(inner, wait=WINDOW, max_rows=sum(map(len, batches)))
    answers = concurrently([lambda b=b: batcher.probabilities(b) for b in batches])
    for batch, answer in zip(batches, answers):
        assert isinstance(answer, np.ndarray) and np.array_equal(answer, batch[:, :5] / 16.0)
    assert inner.calls == 1 and inner.sizes == [sum(map(len, batches))] and batcher.merged == len(batches)


def test_an_error_reaches_every_caller_of_the_merged_call_and_large_calls_go_straight():
    """A merged call that fails fails for each of its callers (the one with good rows too); a call over
    ``max_rows`` goes to the network alone, at once; without a window a call alone is one call."""
    inner = RowWise(fail_on=99)
    good, bad = np.zeros((4, 28), np.int8), np.full((2, 28), 99, np.int8)
    batcher = NetBatcher(inner, wait=WINDOW, max_rows=len(good) + len(bad))  # the two are merged
    answers = concurrently([lambda: batcher.probabilities(good), lambda: batcher.probabilities(bad)])
    assert inner.calls == 1 and all(isinstance(a, ValueError) for a in answers), answers
    before = inner.calls
    large = np.ones((len(good) + len(bad) + 1, 28), np.int8)
    assert np.array_equal(batcher.probabilities(large), large[:, :5] / 16.0) and inner.calls == before + 1
    alone = NetBatcher(inner)  # no waiting: a call alone is one call of the net, in the caller's thread
    assert np.array_equal(alone.probabilities(good), good[:, :5] / 16.0) and inner.sizes[-1] == len(good)
    assert unbatched(batcher) is inner and unbatched(inner) is inner


def _close(a, b, path="answer") -> None:
    """Two answers alike: the same keys, texts and integers; numbers within float32 rounding of the
    network's products (rounded to 6 decimals by hint); plays matched by their move."""
    if isinstance(a, dict):
        assert set(a) == set(b), path
        if a.get("plays"):
            assert {p["move"] for p in a["plays"]} == {p["move"] for p in b["plays"]}, path
            theirs = {p["move"]: p for p in b["plays"]}
            for mine in a["plays"]:
                other = theirs[mine["move"]]
                ranks_may_differ = any(abs(p["equity"] - mine["equity"]) < 3e-6 for p in a["plays"] if p is not mine)
                _close({k: v for k, v in mine.items() if k != "rank" or not ranks_may_differ},
                       {k: v for k, v in other.items() if k != "rank" or not ranks_may_differ}, path + ".plays")
            a, b = {k: v for k, v in a.items() if k != "plays"}, {k: v for k, v in b.items() if k != "plays"}
        for key in a:
            _close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for k, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{k}]")
    elif isinstance(a, float) and not isinstance(b, bool):
        assert a == pytest.approx(b, abs=3e-6), path
    else:
        assert a == b, path


def _get(base: str, path: str) -> dict:
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 200, body[:300]
    return json.loads(body)


def test_concurrent_requests_share_network_calls_and_answer_as_alone(web_app):
    """Eight 0-ply requests at once (six hints, an evaluation, a cube decision) through a server whose
    net counts its calls, the first call held until the seven other requests have queued theirs (as
    under load, when calls come while a pass runs; no timing involved): those seven are one network
    call, and the eight requests make fewer calls than one at a time (14: a hint makes two); the
    answers are those the same requests get one at a time (each then alone in its network call: the
    command line's bits, nardibot/web/batch.py), to float32 rounding."""
    from model.bot import Bot
    from nardibot.web.app import BotShelf, create_app
    from tests.web.conftest import serving

    raw = web_app.state.shelf.get("backgammon", batched=False)
    real = unbatched(raw.net)

    class Counting:  # the real net, its calls counted; ``hold`` once set, the next call waits on it
        config, calls, lock, hold = real.config, 0, threading.Lock(), None

        def eval(self):
            return self

        def probabilities(self, positions, device="cpu"):
            with self.lock:
                self.calls += 1
                hold, self.hold = self.hold, None
            if hold is not None:
                hold()
            return real.probabilities(positions, device)

    held = []

    def until_the_others_queue():
        """The first network call of the eight requests holds the network (as a slow pass would) until
        the seven others have queued theirs (the batcher's queue, seen under its lock)."""
        with batcher._cond:
            held.append(batcher._cond.wait_for(lambda: len(batcher._queue) >= len(paths) - 1, timeout=WINDOW))

    counted = Counting()
    shelf = BotShelf(bots={"backgammon": Bot(raw.player, "backgammon", raw.name, counted)}, batch_wait=0.0)
    batcher = shelf.get("backgammon").net
    positions, dice = random_positions("backgammon", 6, seed=11, kind="midgame")
    ids = [urllib.parse.quote(write_position_id(p)) for p in positions]
    paths = [f"/api/hint?position={i}&dice={d[0]}{d[1]}&ply=0" for i, d in zip(ids, dice)]
    paths += [f"/api/evaluate?position={ids[0]}", f"/api/cube?position={ids[1]}"]
    with serving(create_app(shelf)) as base:
        alone = [_get(base, path) for path in paths]
        calls_alone, merged_alone = counted.calls, batcher.merged
        counted.calls, counted.hold = 0, until_the_others_queue
        together = concurrently([lambda p=p: _get(base, p) for p in paths])
    assert calls_alone == 2 * 6 + 1 + 1 and merged_alone == 0  # one at a time, no call is shared
    assert all(isinstance(t, dict) for t in together), together
    assert held == [True]  # the seven came while the first held the network: their calls were one
    assert batcher.merged >= len(paths) - 1 and counted.calls < calls_alone, (batcher.merged, counted.calls)
    for mine, theirs in zip(together, alone):
        _close(mine, theirs)
