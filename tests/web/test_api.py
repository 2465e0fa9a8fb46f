"""The HTTP API (nardibot/web/app.py): hint's own JSON over GET and POST, both games, rollouts as jobs that
can be polled and cancelled, games against the bot, and every kind of malformed request answered with a
4xx and one line (bad IDs, impossible positions, wrong dice, huge bodies, closed connections), never 500,
the server serving on."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

from engine.formats.position import read_json_position
from engine.notation import play_steps
from tests.helpers import ROOT

OPENING = "4HPwATDgc/ABMA"
NARDI_START = {"board": [0] * 11 + [-15] + [0] * 11 + [15], "bar": [0, 0], "off": [0, 0]}


def refused(response, status: int = 400) -> str:
    """The one-line error of a refused request (asserting its status)."""
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def test_hint_is_the_command_lines_json_over_get_and_post(client):
    """GET and POST /api/hint answer exactly what ``evaluate.py hint --json`` prints (the same builder)."""
    done = subprocess.run([sys.executable, "evaluate.py", "hint", OPENING, "--dice", "31", "--ply", "1", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    expected = json.loads(done.stdout)
    by_get = client.get("/api/hint", params={"position": OPENING, "dice": "31", "ply": 1})
    by_post = client.post("/api/hint", json={"position": OPENING, "dice": [3, 1], "ply": 1})
    assert by_get.status_code == by_post.status_code == 200
    assert by_get.json() == by_post.json() == expected
    assert expected["plays"][0]["move"] == "8/5 6/5"


def test_cube_evaluate_board_and_nardi(client):
    """The cube decision of an XGID, the cubeless evaluation, the SVG board with a play marked, and a
    long-nardi hint from its JSON form; nardi has no cube."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    cube = client.get("/api/cube", params={"position": xgid}).json()
    assert cube["plays"] is None and cube["cube_decision"]["action"]
    evaluation = client.post("/api/evaluate", json={"position": OPENING}).json()
    assert set(evaluation) >= {"evaluation", "position", "cube"} and "plays" not in evaluation
    assert abs(evaluation["evaluation"]["probs"]["win"] - 0.5) < 0.1
    svg = client.get("/api/board", params={"position": OPENING, "dice": "31", "play": "8/5 6/5"})
    assert svg.headers["content-type"].startswith("image/svg+xml") and svg.text.count('class="arrow"') == 2
    nardi = client.post("/api/hint", json={"position": NARDI_START, "game": "nardi", "dice": "65"}).json()
    assert nardi["game"] == "nardi" and nardi["plays"][0]["move"] == "24/13"
    assert "nardi" in refused(client.post("/api/cube", json={"position": NARDI_START, "game": "nardi"}))
    regions = client.get("/api/regions").json()
    assert set(regions["points"]) == {str(p) for p in range(26)}


@pytest.mark.parametrize("position", [
    "4HPwATDgc/ABMX",  # a Position ID with bits past its slots
    "4HPwATDgc",  # too short
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0",  # an XGID missing fields
    "XGID=-b----E-C---eE---c-e----B-:0:0:7:00:0:0:0:0:10",  # turn 7
    "4HPwATDgc/ABMA:zzzzzzzzzzzz",  # a Match ID that is not one
    "{not json",
    "",
])
def test_bad_ids_are_refused_in_one_line(client, position):
    """IDs and texts that are no position: 400 with the reader's reason."""
    refused(client.post("/api/hint", json={"position": position, "dice": "31"}))
    refused(client.get("/api/hint", params={"position": position}))


@pytest.mark.parametrize("game, position", [
    ("backgammon", {"board": [3] * 6 + [0] * 18, "bar": [0, 0], "off": [0, 15]}),  # 18 checkers for the mover
    ("backgammon", {"board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
                    "bar": [0, 0], "off": [1, 0]}),  # 16 for the mover
    ("backgammon", {"board": [0] * 24, "bar": [0, 0], "off": [15, 15]}),  # the game is over
    ("nardi", {"board": [0] * 11 + [-15] + [0] * 11 + [14], "bar": [1, 0], "off": [0, 0]}),  # nardi has no bar
    ("backgammon", {"board": [1] * 23, "bar": [0, 0], "off": [0, 0]}),  # 23 points
    ("backgammon", 12),  # not a position at all
])
def test_impossible_positions_are_refused(client, game, position):
    """Positions no game can reach, or that are over: 400 for hint, cube, evaluate, board and rollout."""
    for path in ("/api/hint", "/api/evaluate", "/api/board", "/api/rollout"):
        refused(client.post(path, json={"position": position, "game": game}))


@pytest.mark.parametrize("dice", ["77", "3", [0, 1], [1, 2, 3], "x", True, [1.5, 2], "٣١"])
def test_wrong_dice_are_refused(client, dice):
    """Dice that are not two numbers 1..6."""
    refused(client.post("/api/hint", json={"position": OPENING, "dice": dice}))


def test_wrong_fields_ply_and_methods(client):
    """An unknown field, a ply out of range, a wrong method, an unknown path or job: 4xx, one line."""
    assert "foo" in refused(client.post("/api/hint", json={"position": OPENING, "foo": 1}))
    assert "ply" in refused(client.get("/api/hint", params={"position": OPENING, "ply": 3}))
    assert "ply" in refused(client.get("/api/hint", params={"position": OPENING, "ply": "two"}))
    assert "game" in refused(client.post("/api/hint", json={"position": OPENING, "game": "chess"}))
    refused(client.put("/api/hint", json={}), 405)
    refused(client.get("/api/nothing"), 404)
    refused(client.get("/api/rollout/no-such-job"), 404)
    refused(client.post("/api/hint", content=b"[1, 2", headers={"content-type": "application/json"}))


def test_huge_bodies_are_refused_unread(client):
    """A body over 64 KiB: 413, by its Content-Length or, sent in chunks without one, as it arrives."""
    big = json.dumps({"position": OPENING, "pad": "x" * 200_000}).encode()
    assert "bytes" in refused(client.post("/api/hint", content=big, headers={"content-type": "application/json"}), 413)

    def chunks():
        for start in range(0, len(big), 8192):
            yield big[start:start + 8192]

    refused(client.post("/api/hint", content=chunks(), headers={"content-type": "application/json"}), 413)
    assert client.get("/api/hint", params={"position": OPENING, "dice": "31"}).status_code == 200


def _raw(base: str, data: bytes, read: bool) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        if not read:
            return b""
        sock.shutdown(socket.SHUT_WR)
        return sock.recv(65536)


def test_closed_connections_are_dropped_and_the_server_serves_on(live_server):
    """Clients that close mid-request, before the answer of a slow 2-ply hint, or after half a body:
    dropped without harm; garbage gets a 4xx; the server then answers as before."""
    body = json.dumps({"position": OPENING, "dice": "66", "ply": 2}).encode()
    request = (b"POST /api/hint HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body))
    _raw(live_server, request + body, read=False)  # gone before the answer
    _raw(live_server, request + body[:10], read=False)  # gone mid-body
    _raw(live_server, b"POST /api/hint HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le", read=False)  # gone mid-headers
    garbage = _raw(live_server, b"\x16\x03\x01\x00garbage\r\n\r\n", read=True)
    assert garbage == b"" or garbage.split(b" ")[1].startswith(b"4")
    with urllib.request.urlopen(f"{live_server}/api/hint?position={OPENING}&dice=31", timeout=60) as answer:
        assert answer.status == 200 and json.loads(answer.read())["plays"][0]["move"] == "8/5 6/5"


def _wait(client, job_id: str, until) -> dict:
    """The job once ``until(job)`` holds; polled, with a deadline (JOB_DEADLINE) that only keeps a broken
    server from hanging the run: what the tests assert never depends on how long the job took."""
    deadline = time.monotonic() + JOB_DEADLINE
    while True:
        job = client.get(f"/api/rollout/{job_id}").json()
        if until(job) or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


JOB_DEADLINE = 600
"""Seconds a test waits for a job's state at most (a hang guard; a loaded runner took longer than 30 s)."""


def test_rollout_job_runs_to_its_result(client, capsys):
    """A rollout job reports its progress and ends with rollout --json's result for the plays of 3-1
    (truncated, to be quick), the command's numbers to the last digit (both run every compiled kernel,
    the job in its own thread); a play that is not legal is refused at once."""
    started = client.post("/api/rollout", json={"position": OPENING, "dice": "31", "trials": 36, "truncate": 6,
                                                "plays": ["8/5 6/5", "24/23 13/10"]})
    assert started.status_code == 202 and started.json()["status"] in ("queued", "running")
    job = _wait(client, started.json()["id"], lambda j: j["status"] not in ("queued", "running"))
    assert job["status"] == "done" and job["done"] == job["total"] == 36 and job["progress"] == 1
    result = job["result"]
    assert result["trials_done"] == 36 and {p["move"] for p in result["plays"]} == {"8/5 6/5", "24/23 13/10"}
    from evaluate import main as evaluate_main  # the command's numbers, to the last digit

    assert evaluate_main(["rollout", OPENING, "--dice", "31", "--trials", "36", "--truncate", "6", "--plays",
                          "8/5 6/5,24/23 13/10", "--processes", "1", "--json", "--no-progress"]) == 0
    command = json.loads(capsys.readouterr().out)
    assert result["plays"] == command["plays"] and result["settings"] == command["settings"]
    assert "24/18" in refused(client.post("/api/rollout", json={"position": OPENING, "dice": "31",
                                                                "plays": ["24/18"]}))
    assert "need dice" in refused(client.post("/api/rollout", json={"position": OPENING, "plays": ["8/5 6/5"]}))


def test_rollout_jobs_can_be_cancelled_running_or_queued(client):
    """With one worker, a long job runs and a second waits: the waiting one is cancelled at once, the
    running one stops within a few plies (keeping what it finished, or nothing yet)."""
    long = {"position": OPENING, "trials": 50_000}
    first = client.post("/api/rollout", json=long).json()
    second = client.post("/api/rollout", json=long).json()
    assert _wait(client, first["id"], lambda j: j["status"] == "running")["status"] == "running"
    assert client.delete(f"/api/rollout/{second['id']}").json()["status"] == "cancelled"
    client.delete(f"/api/rollout/{first['id']}")
    job = _wait(client, first["id"], lambda j: j["status"] != "running")
    assert job["status"] == "cancelled" and job["done"] < 50_000


def _steps_of_best(client, table: dict) -> list[list[int]]:
    """The bot's advice for the person's roll, as single steps (engine.notation.play_steps)."""
    advice = client.get(f"/api/game/{table['id']}/hint").json()
    before = read_json_position(table["game"], table["position"])
    after = read_json_position(table["game"], advice["plays"][0]["position"])
    return [list(step) for step in play_steps(table["game"], before, after, table["dice"])]


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_a_game_against_the_bot_step_by_step(client, game):
    """A match against the bot: plays entered a step at a time (half-made plays drawn, illegal steps
    refused with the reason and the table unchanged), actions the rules refuse refused, the log
    growing; each game of both kinds."""
    table = client.post("/api/game", json={"game": game, "match_length": 3, "seed": 7}).json()
    assert table["svg"].startswith("<svg") and table["log"]
    played = 0
    for _ in range(40):
        if played == 3 or table["match_over"]:
            break
        if "roll" in table["actions"]:
            table = client.post(f"/api/game/{table['id']}/action", json={"action": "roll"}).json()
            continue
        if table["phase"] == "move" and table["to_act"] == "you":
            steps = _steps_of_best(client, table)
            before = client.get(f"/api/game/{table['id']}").json()
            wrong = client.post(f"/api/game/{table['id']}/move", json={"steps": [[1, 0]] if steps[0] != [1, 0]
                                                                        else [[2, 0]]})
            refused(wrong)
            assert client.get(f"/api/game/{table['id']}").json()["position"] == before["position"]
            for k in range(1, len(steps) + 1):
                answer = client.post(f"/api/game/{table['id']}/move", json={"steps": steps[:k]}).json()
                if k < len(steps):
                    assert answer["partial"] is not None and answer["partial"]["steps"] == steps[:k]
            assert answer["partial"] is None and any(line.startswith("you roll") for line in answer["log"])
            table, played = answer, played + 1
            continue
        table = client.post(f"/api/game/{table['id']}/action", json={"action": table["actions"][0]}).json()
    assert played == 3 or table["match_over"]
    refused(client.post(f"/api/game/{table['id']}/action", json={"action": "take"}))
    refused(client.post(f"/api/game/{table['id']}/action", json={"action": "fly"}))
    refused(client.get("/api/game/nope"), 404)


def test_a_play_typed_in_notation_and_a_cube_action(client):
    """The whole play in notation, and a double the bot answers (money play, the person on roll)."""
    table = client.post("/api/game", json={"match_length": 0, "seed": 3}).json()
    for _ in range(20):
        if table["phase"] == "move" and table["to_act"] == "you":
            advice = client.get(f"/api/game/{table['id']}/hint").json()
            table = client.post(f"/api/game/{table['id']}/move", json={"move": advice["plays"][0]["move"]}).json()
            assert table["partial"] is None
        elif "double" in table["actions"]:
            table = client.post(f"/api/game/{table['id']}/action", json={"action": "double"}).json()
            assert any(line.startswith("the bot ") and ("take" in line or "drop" in line) for line in table["log"])
            return
        else:
            table = client.post(f"/api/game/{table['id']}/action", json={"action": table["actions"][0]}).json()
    pytest.fail("no double came up")


def test_regions_match_the_drawing():
    """click_regions puts each point where svg_board draws its checkers."""
    from engine.board import start_position
    from engine.formats.svg import click_regions, svg_board

    regions = click_regions()["points"]
    svg = svg_board("backgammon", start_position("backgammon"))
    centres = [tuple(map(float, (part.split('cx="')[1].split('"')[0], part.split('cy="')[1].split('"')[0])))
               for part in svg.split("<circle")[1:] if 'class="checker mover"' in part]
    pos = start_position("backgammon")
    for point in np.flatnonzero(pos[:24] > 0) + 1:
        x, y, w, h = regions[str(point)]
        inside = [c for c in centres if x <= c[0] < x + w and y <= c[1] < y + h]
        assert len(inside) == min(int(pos[point - 1]), 5), point


def test_match_analysis_answers_as_the_command_does(client):
    """/api/analyse of a .mat file is analyse_match's answer (what ``analyse --json`` prints); a
    text that is no match, and a bad ply, are a 400 with one line."""
    from model.bot import Bot
    from model.service.match_review import ReviewSettings, analyse_match

    text = (ROOT / "tests" / "data" / "gnubg_3point.mat").read_text()
    mat = {"content-type": "application/octet-stream"}
    answer = client.post("/api/analyse?ply=0", content=text.encode(), headers=mat)
    assert answer.status_code == 200, answer.text
    expected = json.loads(json.dumps(analyse_match(Bot.load(), text, ReviewSettings(ply=0))))
    got = answer.json()
    assert got.pop("seconds") >= 0 and expected.pop("seconds") >= 0  # the only field that may differ
    assert got == expected
    assert refused(client.post("/api/analyse", content=b"1 point match\n Game 1\n 1) 99: 24/1\n", headers=mat))
    assert "ply" in refused(client.post("/api/analyse?ply=5", content=text.encode(), headers=mat))


def test_the_openapi_pages_reference_nothing_outside_the_server(client):
    """/docs names its script, style, icon and schema by paths of this server (no CDN; the browser test
    in test_page.py checks what a browser really fetches), and each of them is served; there is no
    /redoc (ReDoc fetches its maker's logo from their CDN)."""
    import re

    html = client.get("/docs").text
    paths = [a or b for a, b in re.findall(r"""(?:src|href)=["']([^"']+)["']|url:\s*'([^']+)'""", html)]
    assert len(paths) == 4 and not [p for p in paths if not p.startswith("/")], paths
    assert not re.search(r"https?://", html)
    for path in paths:
        assert client.get(path).status_code == 200, path
    assert client.get("/redoc").status_code == 404
    css = next(p for p in re.findall(r'href="([^"]+)"', client.get("/docs").text) if p.endswith(".css"))
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", client.get(css).text)


def test_command_line_errors_are_one_line():
    """``evaluate.py web``: a bad port, and an address already in use, are one line and status 2."""
    for extra in (["--port", "70000"], ["--rollout-workers", "0"]):
        done = subprocess.run([sys.executable, "evaluate.py", "web", *extra], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, check=False)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "evaluate.py", "web", "--port", str(port)], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "cannot listen" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_money_options_of_a_game_against_the_bot(client):
    """The page's money options reach the rules: a session with Jacoby, beavers and automatic doubles
    says so, starts at cube 2**ties (capped by the limit) and centred; options a match or long nardi
    cannot have are a 400 with one line."""
    import numpy as np

    from engine import game as g

    seed = next(s for s in range(200) if len(g.throw_opening(np.random.default_rng(s))) > 2)  # two ties or more
    table = client.post("/api/game", json={"game": "backgammon", "match_length": 0, "jacoby": True, "beavers": True,
                                           "automatic_doubles": 1, "seed": seed}).json()
    assert table["options"] == {"jacoby": True, "beavers": True, "automatic_doubles": 1}
    assert "Jacoby" in table["svg"] or "jacoby" in table["svg"].lower()
    assert table["cube"] == 2 and table["cube_owner"] is None  # two ties, one automatic double allowed
    assert "jacoby" in refused(client.post("/api/game", json={"match_length": 5, "jacoby": True})).lower()
    refused(client.post("/api/game", json={"game": "nardi", "match_length": 0, "beavers": True}))
    refused(client.post("/api/game", json={"automatic_doubles": -1}))


# -- issue 43: a beaver, nested JSON, long bad input -------------------------------------------------

BEAVER_MAT = ('; [Beaver "On"]\n\n 0 point match\n\n Game 1\n a : 0                          b : 0\n'
              '  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Beavers => 4                 64: 24/18 13/9\n')


def test_match_analysis_of_a_beaver_is_answered(client):
    """/api/analyse of issue 43's .mat file with a beaver: 200 and the beaver rated, not a 500; beavers
    that the file says are off: a 400 naming the entry."""
    mat = {"content-type": "application/octet-stream"}
    answer = client.post("/api/analyse", content=BEAVER_MAT.encode(), headers=mat)
    assert answer.status_code == 200, answer.text
    assert [d["action"] for d in answer.json()["decisions"] if d["kind"] == "take"] == ["beaver"]
    off = BEAVER_MAT.replace('"On"', '"Off"').encode()
    assert "entry 3 (beaver)" in refused(client.post("/api/analyse", content=off, headers=mat))


@pytest.mark.parametrize("depth", [3000, 30000])
def test_deeply_nested_json_in_a_position_is_a_400(client, depth):
    """A position of JSON nested thousands deep, as text in a JSON body or a query parameter, or as the
    object itself: a 400 with one line, never a 500, and the server answers on."""
    deep = '{"board":' + "[" * depth + "]" * depth + "}"
    assert "nested too deeply" in refused(client.post("/api/hint", json={"position": deep, "dice": "31"}))
    if depth < 10000:  # a URL has room for this one
        assert "nested too deeply" in refused(client.get("/api/hint", params={"position": deep}))
    body = '{"position": ' + deep + ', "dice": "31"}'
    refused(client.post("/api/evaluate", content=body.encode(), headers={"content-type": "application/json"}))
    assert client.get("/api/hint", params={"position": OPENING, "dice": "31"}).status_code == 200


def test_a_long_bad_input_is_not_echoed_back_in_full(client):
    """A 5,000-character bad ID, bad dice or unknown job: a 400 (404) whose line names the fault and shows
    the start of the input, not all of it."""
    for path, body in (("/api/hint", {"position": "A" * 5000, "dice": "31"}),
                       ("/api/hint", {"position": OPENING, "dice": "3" * 5000}),
                       ("/api/hint", {"position": OPENING + ":" + "B" * 5000})):
        message = refused(client.post(path, json=body))
        assert len(message) < 200 and any(c * 30 in message for c in "A3B"), message
    assert "14 characters, got 5000" in refused(client.post("/api/hint", json={"position": "A" * 5000}))
    message = refused(client.get("/api/rollout/" + "j" * 5000), 404)
    assert len(message) < 400 and message.startswith("no rollout job 'jjjjj")
