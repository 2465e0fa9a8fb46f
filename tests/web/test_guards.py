"""What keeps the web server (nardibot/web/) from being taken over: a rollout job keeps few trials in play
and a bounded number of results whatever it asks, stops within a ply when cancelled and lets go of what it
held; requests for another host (DNS rebinding), bodies of another content type (a cross-site form) and
other sites' pages are refused with a 4xx and one line."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from tests.web.test_api import OPENING, refused

FINISHED = ("done", "cancelled", "failed")


def _finished(client, job_id: str) -> dict:
    """The job once it has finished (polled; the deadline only keeps a broken server from hanging the run)."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        job = client.get(f"/api/rollout/{job_id}").json()
        if job["status"] in FINISHED:
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} never finished")


# --- rollout jobs --------------------------------------------------------------------------------


@pytest.mark.parametrize("ply, most", [(1, 16), (2, 1)])
def test_a_deep_rollout_job_keeps_few_trials_in_play_whatever_it_asks(client, monkeypatch, ply, most):
    """One ply of a trial scores some 400 positions at 1 ply and 8,000 at 2 (per candidate play and
    roll): a job of 100,000 trials plays at most 16, or 1, at a time, so its memory does not grow with
    the trials asked (it grew to 5.5 GB with 256 in play). Seen in the trial runner itself."""
    from model.search import trials

    seen = []

    def run(self, progress=None):
        seen.append(len(self.item))
        raise KeyboardInterrupt  # nothing played: the job ends cancelled

    monkeypatch.setattr(trials.Trials, "run", run)
    job = client.post("/api/rollout", json={"position": OPENING, "dice": "31", "trials": 100_000, "ply": ply})
    assert job.status_code == 202, job.text
    assert _finished(client, job.json()["id"])["status"] == "cancelled"
    assert seen and seen[0] <= most


def test_cancelling_a_rollout_job_stops_it_within_a_ply(client, monkeypatch):
    """DELETE reaches the network's calls inside a ply (a 2-ply ply took minutes and went on at full CPU
    after the cancel): once the job is cancelled, not one more block of positions is scored."""
    from model.search import trials

    started, cancelled, scored = threading.Event(), threading.Event(), []

    def run(self, progress=None):
        started.set()
        cancelled.wait(600)
        for _ in range(50):  # a long ply: call after call of the network
            self.net.probabilities(self.pos[:1])
            scored.append(1)

    monkeypatch.setattr(trials.Trials, "run", run)
    job = client.post("/api/rollout", json={"position": OPENING, "dice": "31", "trials": 100_000, "ply": 2}).json()
    assert started.wait(600)
    assert client.delete(f"/api/rollout/{job['id']}").status_code == 200
    cancelled.set()
    assert _finished(client, job["id"])["status"] == "cancelled" and scored == []


def test_a_rollout_too_large_to_keep_is_refused(client):
    """Every trial of every candidate is kept to the end (for the standard errors): plays x trials past
    what the move filter's 8 plays at 100,000 trials need is a 400, before anything runs."""
    message = refused(client.post("/api/rollout", json={"position": OPENING, "dice": "11", "plays": "all",
                                                        "trials": 100_000}))
    assert "trials" in message and "800,000" in message
    kept = client.post("/api/rollout", json={"position": OPENING, "dice": "11", "trials": 100_000})
    assert kept.status_code == 202, kept.text
    client.delete(f"/api/rollout/{kept.json()['id']}")
    _finished(client, kept.json()["id"])


class _Work:
    """A job's work that can be seen to be let go of (a weak reference)."""

    def __init__(self, gate: threading.Event | None = None):
        self.gate = gate

    def __call__(self, job):
        if self.gate is not None:
            self.gate.wait(600)
        return {}


def test_a_cancelled_queued_job_lets_go_of_its_work_and_memory_is_given_back(monkeypatch):
    """A queued job cancelled drops its work at once (64 cancelled jobs held 1.2 GB); after each job the
    memory freed goes back to the system (``release_memory``)."""
    from nardibot.web import jobs as jobs_module

    released = []
    monkeypatch.setattr(jobs_module, "release_memory", lambda: released.append(1), raising=False)
    jobs, gate = jobs_module.Jobs(workers=1), threading.Event()
    try:
        first = jobs.submit("rollout", 1, _Work(gate))
        work = _Work()
        queued, alive = jobs.submit("rollout", 1, work), weakref.ref(work)
        del work
        assert jobs.cancel(queued.id).status == "cancelled"
        gc.collect()
        assert alive() is None
        gate.set()
        deadline = time.monotonic() + 600
        while first.status not in FINISHED or not released:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert first.status == "done" and released
    finally:
        gate.set()
        jobs.shutdown()


# --- hosts, content types, other sites -------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhostx"])
def test_requests_for_another_host_are_refused(client, host):
    """A DNS-rebinding page sends its own name as Host: refused, whatever the path."""
    assert host.split(":")[0] in refused(client.get("/api/regions", headers={"host": host}))
    refused(client.get("/", headers={"host": host}))


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8000", "localhost:1234", "LocalHost", "[::1]:8000"])
def test_the_local_names_are_served(client, host):
    assert client.get("/api/regions", headers={"host": host}).status_code == 200


def test_more_hosts_can_be_allowed():
    """``create_app(allowed_hosts=...)`` (``nardibot web --host``, ``--allowed-hosts``) adds names; "*" any."""
    from fastapi.testclient import TestClient

    from nardibot.web.app import create_app

    with TestClient(create_app(allowed_hosts=["bots.example.org"]), base_url="http://bots.example.org") as named:
        assert named.get("/api/regions").status_code == 200
        assert named.get("/api/regions", headers={"host": "localhost"}).status_code == 200
        refused(named.get("/api/regions", headers={"host": "other.example.org"}))
    with TestClient(create_app(allowed_hosts=["*"]), base_url="http://anything.example") as anyone:
        assert anyone.get("/api/regions").status_code == 200


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_json_endpoints_take_only_json(client, content_type):
    """A cross-site form can send text/plain, urlencoded or multipart bodies (and fetch a body with no
    type) without the browser asking first: a JSON endpoint refuses them (415)."""
    headers = {} if content_type is None else {"content-type": content_type}
    body = b'{"position": "4HPwATDgc/ABMA", "dice": "31"}'
    assert "application/json" in refused(client.post("/api/hint", content=body, headers=headers), 415)
    refused(client.post("/api/rollout", content=body, headers=headers), 415)
    ok = client.post("/api/hint", content=body, headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200


def test_match_analysis_takes_only_its_type(client):
    """/api/analyse reads a .mat file sent as application/octet-stream; text/plain (what a cross-site form
    sends) or no type: 415, unread."""
    mat = b" 1 point match\n\n Game 1\n a : 0                          b : 0\n"
    for headers in ({}, {"content-type": "text/plain"}, {"content-type": "application/x-www-form-urlencoded"}):
        assert "application/octet-stream" in refused(client.post("/api/analyse", content=mat, headers=headers), 415)


def test_other_sites_pages_are_refused(client):
    """A browser marks a request made by another site's page (Sec-Fetch-Site: cross-site): refused (403),
    whatever its method; the page's own requests and typed addresses are served."""
    refused(client.get("/api/hint", params={"position": OPENING}, headers={"sec-fetch-site": "cross-site"}), 403)
    for site in ("same-origin", "none"):
        assert client.get("/api/regions", headers={"sec-fetch-site": site}).status_code == 200


def test_the_command_serves_its_host_and_the_allowed_hosts():
    """``nardibot web --host H --allowed-hosts A,B``: H, A, B and the local names are served, another is refused."""
    import http.client
    import json
    import os
    import socket
    import subprocess
    import sys

    from tests.helpers import ROOT

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "evaluate.py", "web", "--port", str(port), "--host", "127.0.0.1",
                               "--allowed-hosts", "bots.example.org, 10.0.0.7"], cwd=ROOT,
                              env=dict(os.environ, OMP_NUM_THREADS="1"), stderr=subprocess.PIPE, text=True)
    try:
        assert "serving" in server.stderr.readline()  # the nets are loaded; uvicorn starts

        def status(host: str) -> tuple[int, dict]:
            for _ in range(600):  # a hang guard while uvicorn binds, not a measure
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    connection.request("GET", "/api/regions", headers={"Host": host})
                    answer = connection.getresponse()
                    return answer.status, json.loads(answer.read())
                except ConnectionRefusedError:
                    time.sleep(0.1)
            raise AssertionError("the server never answered")

        for host in (f"127.0.0.1:{port}", "localhost", "bots.example.org", f"10.0.0.7:{port}"):
            assert status(host)[0] == 200, host
        code, body = status("rebound.example.net")
        assert code == 400 and "--allowed-hosts rebound.example.net" in body["error"]
    finally:
        server.terminate()
        server.wait(60)
