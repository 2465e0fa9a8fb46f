"""Fuzzing the web API's doors in process (nardibot/web/app.py and compat.py, through the TestClient the
other web tests use; strategies in tests/strategies.py): every endpoint's JSON body and query string, from
valid requests and their structural mutants to any JSON value, JSON nested thousands deep, strings of tens
of kilobytes and bytes that are no JSON or no UTF-8. Each request gets its answer or a 4xx with one line,
never a 5xx or a traceback, and the server answers a plain hint after it."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from tests.strategies import DEEP, FUZZ, HUGE, RAW_JSON, json_mutated, mutated, no_hang, with_value
from tests.web.test_api import NARDI_START, OPENING

XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
JSON_HEADERS = {"content-type": "application/json"}
MAX_LINE = 400
"""Characters an error line may have (app.py cuts at 300 and names the length; compat.py at 300)."""
FEW = max(FUZZ.max_examples // 2, 10)
"""Inputs of the slower properties (a table made for each, a match analysed): half of FUZZ's."""

POSITION_DOORS = ("/api/hint", "/api/cube", "/api/evaluate", "/api/board")
VALID_BODIES = {
    "/api/hint": [{"position": OPENING, "dice": "31", "ply": 0}, {"position": XGID},
                  {"position": NARDI_START, "game": "nardi", "dice": [6, 5]}],
    "/api/cube": [{"position": XGID, "ply": 0}, {"position": OPENING}],
    "/api/evaluate": [{"position": OPENING}, {"position": NARDI_START, "game": "nardi"}],
    "/api/board": [{"position": OPENING, "dice": "31", "play": "8/5 6/5"}, {"position": NARDI_START, "game": "nardi"}],
    "/api/rollout": [{"position": OPENING, "dice": "31", "trials": 2, "truncate": 1, "plays": ["8/5 6/5"]}],
    "/api/game": [{"game": "backgammon", "match_length": 3, "seed": 1}, {"game": "nardi", "seed": 2},
                  {"match_length": 0, "jacoby": True, "beavers": True, "automatic_doubles": 1, "seed": 3}],
    "/api/v1/getmoves": [{"board": {"x": {"6": 5, "8": 3, "13": 5, "24": 2}, "o": {"6": 5, "8": 3, "13": 5, "24": 2}},
                          "dice": [3, 1], "player": "x", "max-moves": 2}],
}
TABLE_BODIES = {"action": [{"action": "roll"}, {"action": "resign", "level": 2}],
                "move": [{"steps": [[8, 5], [6, 5]]}, {"move": "8/5 6/5"}]}


def sound(response, path: str = "") -> str | None:
    """An answer (2xx), or a refusal: 4xx with one short line under "error" ("message" from compat.py's
    doors), which it returns; never a 5xx, never a traceback."""
    assert response.status_code < 500, (path, response.status_code, response.text[:300])
    if currently_in_test_context():  # how often each door answers what (--hypothesis-show-statistics)
        event(f"{path} {response.status_code}")
    if response.status_code < 400:
        if response.headers["content-type"].startswith("application/json"):
            response.json()
        return None
    body = response.json()
    line = body.get("error", body.get("message"))
    assert isinstance(line, str) and line.strip(), (path, body)
    assert "\n" not in line and "\r" not in line and "Traceback" not in line and len(line) <= MAX_LINE, (path, line[:500])
    return line


@pytest.fixture(scope="module")
def fuzz_app(web_app):
    """A server of its own (its own rollout jobs and tables) on the session's nets."""
    from fastapi.testclient import TestClient

    from nardibot.web.app import create_app

    app = create_app(web_app.state.shelf)
    with TestClient(app, base_url="http://127.0.0.1") as client:  # its end cancels the jobs left
        yield client


def _settle(client, response) -> None:
    """A rollout job a fuzzed body started is cancelled at once (its result is not the point)."""
    if response.status_code == 202:
        client.delete(f"/api/rollout/{response.json()['id']}")


def _raw_body(path: str) -> st.SearchStrategy[bytes]:
    """A body as bytes: a valid one mutated in its structure or its text, any value, deep nesting, huge
    strings in any field, or bytes that are no JSON (nor UTF-8)."""
    valid = st.sampled_from(VALID_BODIES[path])
    as_text = valid.map(json.dumps)
    fields = valid.flatmap(lambda body: st.sampled_from(sorted(body)))
    return st.one_of(
        valid.flatmap(json_mutated).map(json.dumps),
        st.tuples(valid, fields, RAW_JSON).map(lambda t: with_value(*t)),
        as_text.flatmap(mutated),
        RAW_JSON,
        DEEP.map(lambda deep: '{"position": ' + deep + "}"),
        st.integers(1, 60_000).map(lambda n: '{"a": ' * n + "1" + "}" * n),  # objects nested n deep
    ).map(lambda text: text.encode("utf-8", "surrogatepass")) | st.binary(max_size=300)


@FUZZ
@given(st.sampled_from([*POSITION_DOORS, "/api/rollout", "/api/game", "/api/v1/getmoves"]), st.data())
def test_json_bodies(fuzz_app, path, data):
    """POST bodies of every JSON door: answered or refused in one line."""
    body = data.draw(_raw_body(path))
    response = fuzz_app.post(path, content=body, headers=JSON_HEADERS)
    sound(response, path)
    _settle(fuzz_app, response)


QUERY_TEXT = st.text(max_size=40) | HUGE.map(lambda s: s[:6000]) | DEEP.map(lambda s: s[:6000])
QUERY_NAMES = st.sampled_from(["position", "dice", "ply", "game", "play", "die1", "die2", "x_away", "p0", "p7",
                               "p25", "since"]) | st.text(max_size=8) | HUGE.map(lambda s: s[:3000])


@FUZZ
@given(st.sampled_from([*POSITION_DOORS, "/move", "/eval"]), st.data())
def test_query_strings(fuzz_app, path, data):
    """GET doors with fuzzed query strings (names repeated, values of any text, bytes that are no UTF-8
    once decoded): answered or refused in one line."""
    valid = {"position": data.draw(st.sampled_from([OPENING, XGID])), "dice": "31"}
    if path in ("/move", "/eval"):
        valid = {"die1": 3, "die2": 1, "p24": 2, "p19": -5, "p13": 5, "p1": -2}
    pairs = [(k, str(v)) for k, v in valid.items()]
    for _ in range(data.draw(st.integers(0, 3))):
        name, value = data.draw(QUERY_NAMES), data.draw(QUERY_TEXT)
        if data.draw(st.booleans()):  # a valid parameter's value replaced
            k = data.draw(st.integers(0, len(pairs) - 1))
            pairs[k] = (pairs[k][0], value)
        else:
            pairs.append((name, value))
    query = urllib.parse.urlencode(pairs, encoding="utf-8", errors="surrogatepass")
    if data.draw(st.booleans()):  # raw bytes in the query, percent-encoded: not UTF-8 once decoded
        query += "&position=" + urllib.parse.quote_from_bytes(data.draw(st.binary(max_size=40)))
    sound(fuzz_app.get(f"{path}?{query[:60_000]}"), path)  # under the client's limit on a URL


@pytest.mark.parametrize("name", ["\n", "a\nb", "\r\x00", "x" * 5000, "\u2028"])
def test_an_unknown_field_is_named_in_one_short_line(fuzz_app, name):
    """Found by the fuzzing above: a query parameter or body field named "\\n" was refused with a line that
    began with the line end (an error of two lines), and a long name was echoed whole."""
    sound(fuzz_app.get("/api/hint", params={"position": OPENING, name: "1"}))
    body = json.dumps({"position": OPENING, name: 1}).encode()
    assert "not permitted" in sound(fuzz_app.post("/api/hint", content=body, headers=JSON_HEADERS))


@settings(FUZZ, max_examples=FEW)
@given(st.data())
def test_game_doors(fuzz_app, data):
    """A table's doors (/api/game/{id}, /action, /move, /hint): fuzzed bodies, ``since`` and ``ply``
    values, and ids that are no table."""
    table = fuzz_app.post("/api/game", json={"match_length": 0, "seed": data.draw(st.integers(0, 50))}).json()
    which = data.draw(st.sampled_from(["action", "move", "get", "hint"]))
    table_id = data.draw(st.just(table["id"]) | st.text(min_size=1, max_size=30)
                         | HUGE.map(lambda s: s[:3000]))
    where = "/api/game/" + urllib.parse.quote(table_id.encode("utf-8", "surrogatepass"), safe="")
    query = urllib.parse.urlencode({data.draw(st.sampled_from(["since", "ply"])): data.draw(QUERY_TEXT)},
                                   encoding="utf-8", errors="surrogatepass")
    if which in TABLE_BODIES:
        valid = st.sampled_from(TABLE_BODIES[which])
        body = data.draw(st.one_of(valid.flatmap(json_mutated).map(json.dumps), RAW_JSON,
                                   valid.map(json.dumps).flatmap(mutated)).map(lambda t: t.encode("utf-8", "surrogatepass"))
                         | st.binary(max_size=100))
        response = fuzz_app.post(f"{where}/{which}?{query}", content=body, headers=JSON_HEADERS)
    else:
        response = fuzz_app.get(f"{where}{'/hint' if which == 'hint' else ''}?{query}")
    sound(response, which)


@settings(FUZZ, max_examples=FEW)
@given(st.binary(max_size=2000) | st.sampled_from(["\x00", "1 point match\n", "(;FF[4]GM[6]"]).flatmap(
    lambda start: st.binary(max_size=500).map(lambda tail: start.encode() + tail)))
def test_match_analysis_bodies(fuzz_app, body):
    """/api/analyse with bytes that are no match file, or that only start like one."""
    sound(fuzz_app.post("/api/analyse", content=body, headers={"content-type": "application/octet-stream"}))


def test_a_match_file_with_a_long_line_of_spaces_is_refused_at_once(fuzz_app):
    """Found by tests/formats/test_fuzz_mat.py: a names line of spaces held the .mat reader for a time
    growing with the cube of its length, so that one 64 KiB body kept a core busy for days; now a 400
    (the hang limit only keeps a broken reader from stopping the run)."""
    body = (" 1 point match\n\n Game 1\n" + " " * 60_000 + "\n").encode()
    with no_hang(60):
        response = fuzz_app.post("/api/analyse", content=body, headers={"content-type": "application/octet-stream"})
    assert "name : score" in sound(response)


def test_the_server_answers_on_after_the_fuzz(fuzz_app):
    """After every fuzzed request above, a plain hint is still answered."""
    answer = fuzz_app.get("/api/hint", params={"position": OPENING, "dice": "31"})
    assert answer.status_code == 200 and answer.json()["plays"][0]["move"] == "8/5 6/5"
