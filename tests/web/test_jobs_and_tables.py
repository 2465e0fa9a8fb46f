"""The web API's limits and endings (nardibot/web/app.py, jobs.py, play_sessions.py): too many unfinished
rollout jobs is a 429 and a finished job makes room, the oldest finished job and the least recently used
table are forgotten first (then a 404 with one line), a job whose work fails is reported "failed" with
one line (never a 500, the server answering on), and resignations in a game against the bot, offered by
either side, accepted or rejected, score as the rules say."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from tests.web.test_api import JOB_DEADLINE, OPENING, _wait, refused

FINISHED = ("done", "cancelled", "failed")
ROLLOUT = {"position": OPENING, "dice": "31", "trials": 36, "truncate": 2}


@pytest.fixture
def served(web_app):
    """A server of its own (its own jobs and tables) on the session's nets: (client, app)."""
    from fastapi.testclient import TestClient

    from nardibot.web.app import create_app

    app = create_app(web_app.state.shelf)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield client, app


def _finished(client, job_id: str) -> dict:
    return _wait(client, job_id, lambda job: job["status"] in FINISHED)


@pytest.fixture
def held_trials(monkeypatch):
    """Every rollout's trials wait for the returned gate to open, then stop with nothing played (the job
    ends "cancelled"): jobs that stay unfinished exactly as long as a test wants."""
    from model.search import trials

    gate = threading.Event()

    def run(self, progress=None):
        gate.wait(JOB_DEADLINE)
        raise KeyboardInterrupt

    monkeypatch.setattr(trials.Trials, "run", run)
    yield gate
    gate.set()


# -- rollout jobs: 429, room, eviction, failure ----------------------------------------------------------


def test_too_many_unfinished_jobs_is_a_429_until_one_finishes(served, held_trials):
    """With room for three jobs, three unfinished ones (one running, two queued) make a fourth a 429 with
    one line; cancelling a queued one finishes it at once, and the next job takes its place: the finished
    job is forgotten (404), the unfinished ones are kept."""
    client, app = served
    app.state.jobs.keep = 3
    ids = [client.post("/api/rollout", json=ROLLOUT).json()["id"] for _ in range(3)]
    message = refused(client.post("/api/rollout", json=ROLLOUT), 429)
    assert "3 jobs are queued or running" in message
    assert client.delete(f"/api/rollout/{ids[2]}").json()["status"] == "cancelled"
    assert client.get(f"/api/rollout/{ids[2]}").json()["status"] == "cancelled"  # kept until room is needed
    fourth = client.post("/api/rollout", json=ROLLOUT)
    assert fourth.status_code == 202, fourth.text
    assert "no rollout job" in refused(client.get(f"/api/rollout/{ids[2]}"), 404)
    assert [client.get(f"/api/rollout/{i}").status_code for i in ids[:2]] == [200, 200]
    held_trials.set()
    assert {_finished(client, i)["status"] for i in (*ids[:2], fourth.json()["id"])} == {"cancelled"}


def test_the_oldest_finished_job_is_forgotten_first(served, held_trials):
    """Once every kept job has finished, each new job forgets the oldest finished one: the first job
    started, then the second; the newer ones stay readable."""
    client, app = served
    app.state.jobs.keep = 3
    held_trials.set()
    ids = [client.post("/api/rollout", json=ROLLOUT).json()["id"] for _ in range(3)]
    for job_id in ids:
        _finished(client, job_id)
    for forgotten in range(2):
        new = client.post("/api/rollout", json=ROLLOUT)
        assert new.status_code == 202, new.text
        ids.append(new.json()["id"])
        _finished(client, ids[-1])
        assert [client.get(f"/api/rollout/{i}").status_code for i in ids] == (
            [404] * (forgotten + 1) + [200] * (len(ids) - forgotten - 1))


@pytest.mark.parametrize("error, line", [
    (RuntimeError("the network is broken\n  at its second layer"), "the network is broken"),
    (MemoryError(), "MemoryError"),  # a message of nothing: its type
    (ValueError("x" * 5000), "x" * 100),  # not echoed whole
])
def test_a_job_whose_work_fails_is_reported_failed(served, monkeypatch, error, line):
    """A rollout that raises while it runs: the job is "failed" with one short line (not a 500, not a
    traceback), polling it and cancelling it answer 200, and the server then runs the next job."""
    from model.search import trials

    real_run = trials.Trials.run
    failures = [error]

    def run(self, progress=None):
        if failures:
            raise failures.pop()
        return real_run(self, progress)

    monkeypatch.setattr(trials.Trials, "run", run)
    client, _ = served
    job_id = client.post("/api/rollout", json=ROLLOUT).json()["id"]
    job = _finished(client, job_id)
    assert job["status"] == "failed" and job["result"] is None, job
    assert job["error"].startswith(line) and "\n" not in job["error"] and len(job["error"]) <= 400, job["error"][:500]
    assert client.delete(f"/api/rollout/{job_id}").json()["status"] == "failed"  # finished: stays as it is
    after = _finished(client, client.post("/api/rollout", json=ROLLOUT).json()["id"])
    assert after["status"] == "done" and after["result"]["trials_done"] == ROLLOUT["trials"]


# -- tables -------------------------------------------------------------------------------------------


def test_the_least_recently_used_table_is_closed_past_the_limit(served):
    """With room for two tables, a third closes the one used least recently (a table read or played
    counts as used): it answers 404 with one line, the others play on."""
    client, app = served
    app.state.tables.keep = 2
    first, second = (client.post("/api/game", json={"seed": s}).json()["id"] for s in (1, 2))
    assert client.get(f"/api/game/{first}").status_code == 200  # used: now the second is the oldest
    third = client.post("/api/game", json={"seed": 3}).json()["id"]
    assert "no game" in refused(client.get(f"/api/game/{second}"), 404)
    refused(client.post(f"/api/game/{second}/action", json={"action": "roll"}), 404)
    assert [client.get(f"/api/game/{t}").status_code for t in (first, third)] == [200, 200]


# -- resignations ---------------------------------------------------------------------------------------


class Doomed:
    """A network by which the side on roll always loses a backgammon: the bot, on roll, offers to resign
    a backgammon, and it accepts nothing less from the person on roll."""

    config = SimpleNamespace(game="backgammon", outputs=5)

    def eval(self):
        return self

    def probabilities(self, positions, device="cpu"):
        return np.tile([0.0, 0.0, 0.0, 1.0, 1.0], (len(positions), 1))


@pytest.fixture(scope="module")
def doomed_client():
    """A server whose backgammon bot is ``Doomed``."""
    from fastapi.testclient import TestClient

    from model.bot import Bot
    from model.players.net_player import NetPlayer
    from nardibot.web.app import BotShelf, create_app

    net = Doomed()
    shelf = BotShelf(bots={"backgammon": Bot(NetPlayer(net), "backgammon", "doomed", net)}, batch_wait=None)
    with TestClient(create_app(shelf), base_url="http://127.0.0.1") as client:
        yield client


def _act(client, table: dict, action: str, **extra) -> dict:
    answer = client.post(f"/api/game/{table['id']}/action", json={"action": action, **extra})
    assert answer.status_code == 200, answer.text
    return answer.json()


def _play_on(client, table: dict) -> dict:
    """The person's next step in the game: a roll, or the first play the bot's hint lists."""
    if table["phase"] == "move" and table["to_act"] == "you":
        move = client.get(f"/api/game/{table['id']}/hint").json()["plays"][0]["move"]
        answer = client.post(f"/api/game/{table['id']}/move", json={"move": move})
        assert answer.status_code == 200, answer.text
        return answer.json()
    return _act(client, table, "roll")


def _until_the_bot_offers(client, table: dict) -> dict:
    for _ in range(20):
        if "accept" in table["actions"]:
            return table
        table = _play_on(client, table)
    pytest.fail(f"the bot never offered to resign: {table['log']}")


def test_the_person_resigns_and_the_bot_accepts(client):
    """At the person's first decision, a resignation of a backgammon: the shipped bot accepts, the game
    ends "resigned" and the bot scores 3 points (cube 1); with the Jacoby rule and the cube centred, 1."""
    for jacoby, points in ((False, 3), (True, 1)):
        table = client.post("/api/game", json={"match_length": 0, "seed": 5, "jacoby": jacoby}).json()
        assert "resign" in table["actions"], table["actions"]
        table = _act(client, table, "resign", level=3)
        log = "\n".join(table["log"])
        assert "you offer to resign a backgammon" in log and "the bot accepts your resignation" in log, log
        assert table["phase"] == "over" and table["score"] == [0, points] and table["actions"] == ["next"]


def test_the_bot_rejects_too_small_a_resignation_and_the_person_is_barred_until_a_roll(doomed_client):
    """A single game offered where the bot expects a backgammon: rejected, said in the log; the game
    goes on, and the person may not offer again before a roll has been played (not offered; asked: a
    400 with the rule's reason)."""
    # without the Jacoby rule (on unless said, as in play): with it, a backgammon with the cube centred is worth a single
    table = doomed_client.post("/api/game", json={"match_length": 0, "seed": 5, "jacoby": False}).json()
    table = _act(doomed_client, table, "resign", level=1)
    assert table["log"][-1] == "the bot rejects your resignation" and table["phase"] != "over"
    assert "resign" not in table["actions"]
    reason = refused(doomed_client.post(f"/api/game/{table['id']}/action", json={"action": "resign", "level": 3}))
    assert "once a roll has been played" in reason


@pytest.mark.parametrize("answer", ["accept", "reject"])
def test_the_bot_offers_to_resign_and_the_person_answers(doomed_client, answer):
    """The bot, sure to lose a backgammon, offers to resign one when on roll: the person is asked to
    accept or reject (a hint then advises on that answer), the log says what it would score. Accepted,
    the person wins 3 points; rejected, the log says so and the game goes on, the bot offering no
    more in that game."""
    table = _until_the_bot_offers(doomed_client, doomed_client.post("/api/game", json={"seed": 8, "jacoby": False}).json())
    assert table["actions"] == ["accept", "reject"] and table["to_act"] == "you"
    assert table["log"][-1] == ("the bot offers to resign a backgammon: you would score 3 points "
                                "(backgammon x cube 1)"), table["log"][-1]
    advice = doomed_client.get(f"/api/game/{table['id']}/hint")
    assert advice.status_code == 200, advice.text
    assert advice.json()["resignation"] == {"offered_by": "bot", "level": 3, "points": 3, "advice": "accept"}
    offered = len(table["log"])
    table = _act(doomed_client, table, answer)
    assert table["log"][offered] == f"you {answer}"
    if answer == "accept":
        assert table["phase"] == "over" and table["score"] == [3, 0] and table["log"][offered + 1].startswith("you win")
        return
    assert table["phase"] != "over"
    bot_turns = sum(line.startswith("the bot rolls") for line in table["log"])
    for _ in range(8):  # played on, past two more turns of the bot: no second offer in this game
        table = _play_on(doomed_client, table)
        assert "accept" not in table["actions"] and table["phase"] != "over"
    assert sum(line.startswith("the bot rolls") for line in table["log"]) >= bot_turns + 2


def test_a_resignation_the_rules_refuse_is_a_400(client):
    """Nardi has no backgammon to resign, and there is no offer to accept: 400, one line each."""
    nardi = client.post("/api/game", json={"game": "nardi", "seed": 2}).json()
    assert "a resignation is 1" in refused(client.post(f"/api/game/{nardi['id']}/action",
                                                       json={"action": "resign", "level": 3}))
    refused(client.post(f"/api/game/{nardi['id']}/action", json={"action": "accept"}))
