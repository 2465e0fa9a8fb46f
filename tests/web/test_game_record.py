"""The page's games against the bot as match files (``GET /api/game/{id}/record?format=sgf|mat``,
nardibot/web/play_sessions.py's ``Table.record``): the file reads back (engine/formats/matchfiles.py) as the
games played so far, the finished ones with their results and the one in play up to its last action, and
Debian's gnubg loads the .sgf; the page links both files; and the tables' money defaults, which are
``play``'s (Jacoby and beavers on)."""

from __future__ import annotations

import re
import urllib.request

import pytest

from engine import game as g
from engine.formats.matchfiles import read_match_text
from engine.formats.matfile import MOVE
from engine.formats.matreplay import replay_match
from engine.formats.position import read_json_position
from engine.formats.sgf import read_sgf
from tests.formats.test_sgf import gnubg, steps
from tests.helpers import needs_gnubg
from tests.web.test_jobs_and_tables import _act
from tests.web.test_jobs_and_tables import _play_on as _roll_or_play
from tests.web.test_page import browser, wait_for  # noqa: F401 - the page's chromium, a fixture

PLAY_LINE = re.compile(r"^(?:you roll|the bot rolls) (\d)-(\d)(?: and plays?|:)")
"""A log line of a play (the person's, forced or not, or the bot's) and its dice."""


def _play_on(client, table: dict) -> dict:
    """The person's next step: the answer to the bot's double or resignation (take, reject), else a roll
    or the bot's first play (tests/web/test_jobs_and_tables.py)."""
    for action in ("take", "reject"):
        if action in table["actions"]:
            return _act(client, table, action)
    return _roll_or_play(client, table)


def _games_of(log: list[str]) -> list[list[str]]:
    """The log cut into games (each starts with its opening throw)."""
    games: list[list[str]] = []
    for line in log:
        if line.startswith("opening throw") and not line.endswith("thrown again"):
            games.append([])
        if games:
            games[-1].append(line)
    return games


@pytest.fixture(scope="module")
def played(client):
    """A money session of the page: a game played a few turns then resigned (a gammon, which the bot
    accepts), the next game played six turns and left in play. The table as the page last saw it."""
    table = client.post("/api/game", json={"match_length": 0, "seed": 11}).json()
    for _ in range(6):
        table = _play_on(client, table)
    while "resign" not in table["actions"]:
        table = _play_on(client, table)
    table = _act(client, table, "resign", level=2)
    assert table["phase"] == "over", table["log"][-3:]
    table = _act(client, table, "next")
    for _ in range(6):
        table = _play_on(client, table)
    return client.get(f"/api/game/{table['id']}").json()


def _download(client, table: dict, kind: str):
    answer = client.get(f"/api/game/{table['id']}/record", params={"format": kind})
    assert answer.status_code == 200, answer.text
    return answer


def test_the_record_reads_back_as_the_games_played(client, played):
    """The .sgf (the default) and the .mat read back as the same record: the person ("human") against the bot,
    money with the table's options, the resigned game won by the bot with the points the log says, the game
    in play unfinished; every play's dice in the order of the log (the higher die first, as the files write them); the rules' replay of the record ends on
    the table's position, cube and score."""
    sgf = client.get(f"/api/game/{played['id']}/record")
    assert sgf.status_code == 200 and sgf.headers["content-type"].startswith("application/x-go-sgf")
    assert sgf.headers["content-disposition"] == f'attachment; filename="nardibot-{played["id"]}.sgf"'
    mat = _download(client, played, "mat")
    assert mat.headers["content-type"].startswith("text/plain")
    assert mat.headers["content-disposition"].endswith('.mat"')
    record = read_match_text(sgf.text)
    assert record == read_match_text(mat.text)
    assert record.names[0] == "human" and record.match_length == 0
    assert (record.jacoby, record.beavers, record.automatic_doubles) == (True, True, 0)
    first, second = record.games
    points = int(re.search(r"the bot wins .*: (\d+) points?", "\n".join(played["log"])).group(1))
    assert (first.winner, first.points, first.scores) == (1, points, (0, 0))
    assert second.winner is None and second.scores == (0, points)
    for game, lines in zip(record.games, _games_of(played["log"]), strict=True):
        dice = [sorted(map(int, m.groups())) for line in lines if (m := PLAY_LINE.match(line))]
        assert [sorted(a.dice) for a in game.actions if a.kind == MOVE] == dice and dice  # the files write the higher first
    final = replay_match(record)[-1].final
    assert final.cube == played["cube"] and list(final.match.score) == played["score"]
    assert (g.view(final, 0) == read_json_position("backgammon", played["position"])).all()


@needs_gnubg
def test_gnubg_loads_the_sgf(client, played, tmp_path):
    """Debian's gnubg ``load match`` of the downloaded .sgf, then ``save match``: the same games, every action."""
    (tmp_path / "page.sgf").write_bytes(_download(client, played, "sgf").content)
    gnubg(["load match page.sgf", "save match back.sgf"], tmp_path)
    ours, back = read_sgf(tmp_path / "page.sgf"), read_sgf(tmp_path / "back.sgf")
    assert (back.names, back.match_length) == (ours.names, ours.match_length)
    assert [(b.scores, b.winner, b.points) for b in back.games] == [(o.scores, o.winner, o.points) for o in ours.games]
    assert [steps(b) for b in back.games] == [steps(o) for o in ours.games]


def test_a_match_and_its_first_state(client):
    """A 3-point match record just begun: one game in play with no action yet, or the bot's opening play."""
    table = client.post("/api/game", json={"match_length": 3, "seed": 2}).json()
    record = read_match_text(_download(client, table, "sgf").text)
    assert record.match_length == 3 and record.jacoby is None and len(record.games) == 1
    assert record.games[0].winner is None and len(record.games[0].actions) <= 1


def test_bad_record_requests(client):
    """A long-nardi table has no match file (400), an unknown table is a 404, an unknown format a 400: one line."""
    nardi = client.post("/api/game", json={"game": "nardi", "seed": 1}).json()
    for path, params, status, words in (
            (f"/api/game/{nardi['id']}/record", {}, 400, "backgammon only"),
            ("/api/game/nothing/record", {}, 404, "no game"),
            (f"/api/game/{nardi['id']}/record", {"format": "xml"}, 400, "format")):
        answer = client.get(path, params=params)
        assert answer.status_code == status and words in answer.json()["error"], answer.text
        assert "\n" not in answer.json()["error"]


@pytest.mark.parametrize("request_, options", [
    ({"match_length": 0}, (True, True)),  # play's defaults (model/service/query.py MONEY_JACOBY, MONEY_BEAVERS)
    ({"match_length": 0, "jacoby": False}, (False, True)),  # what the person says stays
    ({"match_length": 0, "beavers": False}, (True, False)),
    ({"match_length": 0, "jacoby": False, "beavers": False}, (False, False)),
    ({"match_length": 0, "cube": False}, (False, False)),  # no cube: no cube options
    ({"match_length": 5}, (False, False)),  # a match: none
    ({"game": "nardi", "match_length": 0}, (False, False)),
])
def test_the_tables_money_defaults_are_plays(client, request_, options):
    """Issue 43 item 13: a money table without stated options plays with the Jacoby rule and beavers, as
    ``play`` and ``hint`` assume; a stated option is kept; matches, long nardi and no cube have neither."""
    from model.service.query import money_rules

    table = client.post("/api/game", json={**request_, "seed": 1}).json()
    assert (table["options"]["jacoby"], table["options"]["beavers"]) == options
    game, length, cube = request_.get("game", "backgammon"), request_["match_length"], request_.get("cube", True)
    play = money_rules(game, length, cube and game == "backgammon", request_.get("jacoby"), request_.get("beavers"))
    assert (play["jacoby"], play["beavers"]) == options


def test_the_page_links_the_record_and_ticks_the_defaults(browser, live_server):  # noqa: F811 - the fixture
    """In a headless chromium: the money options come ticked (play's defaults); a money game started from
    the page shows its two links, whose .sgf reads back with the Jacoby rule and beavers; a long-nardi
    game shows none."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(live_server + "/")
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, "#board svg"), what="the page")
    browser.find_element(By.ID, "tab-play").click()
    assert browser.find_element(By.ID, "jacoby").is_selected() and browser.find_element(By.ID, "beavers").is_selected()
    length = browser.find_element(By.ID, "match-length")
    length.clear()
    length.send_keys("0")
    browser.find_element(By.ID, "btn-new-game").click()
    link = wait_for(lambda: [a for a in browser.find_elements(By.ID, "record-sgf") if a.is_displayed()], what="the link")[0]
    table = browser.execute_script("return window.nardibot.table.state")
    assert link.get_attribute("href") == f"{live_server}/api/game/{table['id']}/record?format=sgf"
    assert browser.find_element(By.ID, "record-mat").get_attribute("href").endswith("format=mat")
    with urllib.request.urlopen(link.get_attribute("href")) as answer:
        record = read_match_text(answer.read().decode())
    assert (record.match_length, record.jacoby, record.beavers) == (0, True, True)
    Select(browser.find_element(By.ID, "play-game")).select_by_value("nardi")
    browser.find_element(By.ID, "btn-new-game").click()
    wait_for(lambda: browser.execute_script("return window.nardibot.table.state.game") == "nardi", what="nardi")
    assert not browser.find_element(By.ID, "game-files").is_displayed()
