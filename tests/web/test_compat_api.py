"""The drop-in endpoints of other bots' HTTP APIs (nardibot/web/compat.py), called over a real socket
(a uvicorn server on 127.0.0.1, conftest.py's ``live_server``) with the examples of those projects'
own documentation and tests: wildbg's ``GET /move`` and ``GET /eval``, bgweb-api's ``POST
/api/v1/getmoves``. Each answer has the original's shape, lists the plays in the order of our own
/api/hint, and its plays, applied to the board sent in the original's numbering, give /api/hint's
resulting positions; bad requests get the original's 400 with {"message": ...}, never a 500."""

from __future__ import annotations

import json

import pytest

from engine.formats.match_id import MatchInfo, write_match_id

httpx = pytest.importorskip("httpx")

WILDBG_PROBS = {"win", "winG", "winBg", "loseG", "loseBg"}
BGWEB_PROBS = {"win", "winG", "winBG", "lose", "loseG", "loseBG"}
OUR_PROBS = {"win": "win", "winG": "win_gammon", "winBg": "win_backgammon", "loseG": "lose_gammon",
             "loseBg": "lose_backgammon"}
STARTING_LAYOUT = {"6": 5, "8": 3, "13": 5, "24": 2}
"""The starting position of one side in bgweb-api's CheckerLayout (its README and api/openapi.yaml)."""


@pytest.fixture(scope="module")
def http(live_server):
    with httpx.Client(base_url=live_server, timeout=120) as client:
        yield client


def message(response, status: int = 400) -> str:
    """The one-line {"message": ...} of a refused request (the error body of both originals)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert list(body) == ["message"] and body["message"] and "\n" not in body["message"], body
    return body["message"]


# -- wildbg ----------------------------------------------------------------------------------------


def wildbg_pips(query: str) -> list[int]:
    """wildbg's 26 pips (p0: o's bar, negative; p1..p24 x's numbering, + x, - o; p25: x's bar) of a
    query string."""
    pips = [0] * 26
    for part in query.split("&"):
        name, value = part.split("=")
        if name.startswith("p"):
            pips[int(name[1:])] = int(value)
    return pips


def wildbg_played(pips: list[int], play: list[dict]) -> list[int]:
    """wildbg's pips after x's play (each step one checker from ``from`` to ``to``; 25 the bar, 0 off;
    a lone o checker where one lands goes to o's bar, p0)."""
    pips = list(pips)
    for step in play:
        assert 25 >= step["from"] > step["to"] >= 0 and step["from"] - step["to"] <= 6, step
        assert pips[step["from"]] > 0, (pips, step)
        pips[step["from"]] -= 1
        if step["to"]:
            if pips[step["to"]] == -1:
                pips[step["to"]], pips[0] = 0, pips[0] - 1
            assert pips[step["to"]] >= 0, (pips, step)
            pips[step["to"]] += 1
    return pips


def pips_of(position: dict) -> list[int]:
    """Our JSON form (mover's frame: board = points 1..24, bar = [mover, opponent]) as wildbg's pips."""
    return [-position["bar"][1], *position["board"], position["bar"][0]]


def json_of_pips(pips: list[int]) -> dict:
    """wildbg's pips as our JSON form, for asking /api/hint about the same position."""
    on_board = [sum(p for p in pips if p > 0), -sum(p for p in pips if p < 0)]
    return {"board": pips[1:25], "bar": [pips[25], -pips[0]], "off": [15 - on_board[0], 15 - on_board[1]]}


README_MOVE = "die1=3&die2=1&p24=2&p19=-5&p17=-3&p13=5&p12=-5&p8=3&p6=5&p1=-2"
"""wildbg's README ("An example for the starting position and rolling 3 and 1")."""


def test_wildbg_move_readme_example_is_api_hints_ranking(http):
    """wildbg README's /move example (the opening 3-1): {"moves": [{"play": [{"from", "to"}],
    "probabilities"}]}, every legal play once, in /api/hint's order with its probabilities (x's,
    after the play), each play taking the board sent to /api/hint's resulting position."""
    answer = http.get(f"/move?{README_MOVE}")
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    moves = answer.json()["moves"]
    pips = wildbg_pips(README_MOVE)
    hint = http.post("/api/hint", json={"position": json_of_pips(pips), "dice": [3, 1]}).json()
    assert len(moves) == len(hint["plays"]) == 16
    assert moves[0]["play"] == [{"from": 8, "to": 5}, {"from": 6, "to": 5}]
    for move, play in zip(moves, hint["plays"]):
        assert set(move) == {"play", "probabilities"} and set(move["probabilities"]) == WILDBG_PROBS
        assert wildbg_played(pips, move["play"]) == pips_of(play["position"])
        assert move["probabilities"] == {ours: play["probs"][name] for ours, name in OUR_PROBS.items()}
    equities = [play["equity"] for play in hint["plays"]]
    assert equities == sorted(equities, reverse=True)


@pytest.mark.parametrize("query, steps", [
    ("die1=3&die2=1&p5=1&p24=-1", [2]),
    ("die1=1&die2=1&p5=2&p24=-1", [4, 4, 4]),
    ("die1=4&die2=4&p25=1&p19=-2&p20=-2&p21=-2&p22=-2&p23=-2&p24=-2&p1=-3", [0]),
    ("die1=6&die2=5&p1=1&p2=2&p14=-1&p20=-4&p0=-2&p25=1", [2]),  # bar/19/14*
], ids=["forced", "double", "dance", "bar-bearoff"])
def test_wildbg_moves_convert_back(http, query, steps):
    """wildbg's own test positions (crates/web/src/axum.rs: 3-1 with one checker on the 5-point, one
    play; 1-1 with two, three plays of four steps), a dance (wildbg's doc: exactly one move, its play
    empty) and a checker on each bar: each play, its steps taken in order, takes the pips sent to
    /api/hint's result, in /api/hint's order (a step order of our own: wildbg plays 5/4/1 where we
    play 5/2/1, each step legal where it is taken)."""
    moves = http.get(f"/move?{query}").json()["moves"]
    pips = wildbg_pips(query)
    die1, die2 = pips_dice(query)
    hint = http.post("/api/hint", json={"position": json_of_pips(pips), "dice": [die1, die2]}).json()
    assert [wildbg_played(pips, m["play"]) for m in moves] == [pips_of(p["position"]) for p in hint["plays"]]
    assert [len(m["play"]) for m in moves] == steps


def pips_dice(query: str) -> tuple[int, int]:
    values = dict(part.split("=") for part in query.split("&"))
    return int(values["die1"]), int(values["die2"])


def test_wildbg_one_pointer_ranks_by_match_winning_chance(http):
    """x_away=1&o_away=1 (wildbg: "For a one-pointer, set both x_away and o_away to 1"): the plays of
    /api/hint for the same position in a 1-point match (its Match ID), best first."""
    pips = wildbg_pips(README_MOVE)
    moves = http.get(f"/move?{README_MOVE}&x_away=1&o_away=1").json()["moves"]
    money = http.get(f"/move?{README_MOVE}&x_away=0&o_away=0").json()["moves"]
    position_id = http.post("/api/evaluate", json={"position": json_of_pips(pips)}).json()["position_id"]
    match_id = write_match_id(MatchInfo(match_length=1, dice=(3, 1)))
    hint = http.get("/api/hint", params={"position": f"{position_id}:{match_id}"}).json()
    assert hint["cube"]["match_length"] == 1 and hint["plays"][0]["mwc"] is not None
    assert [wildbg_played(pips, m["play"]) for m in moves] == [pips_of(p["position"]) for p in hint["plays"]]
    assert money == http.get(f"/move?{README_MOVE}").json()["moves"]


EVAL_START = "p24=2&p19=-5&p17=-3&p13=5&p12=-5&p8=3&p6=5&p1=-2"
"""wildbg's /eval OpenAPI example: "the starting position"."""


@pytest.mark.parametrize("query", [EVAL_START, "p1=1&p20=-1&p24=-1"])
def test_wildbg_eval_is_the_hints_evaluation_and_cube(http, query):
    """/eval of wildbg's documented example (the starting position) and of its own test position:
    {"cube": {"double", "accept"}, "probabilities"} from x's side, the same numbers as /api/hint
    without dice and its cube decision (accept: the opponent takes, or beavers)."""
    answer = http.get(f"/eval?{query}")
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) == {"cube", "probabilities"} and set(body["cube"]) == {"double", "accept"}
    cube = http.post("/api/cube", json={"position": json_of_pips(wildbg_pips(query))}).json()
    assert body["probabilities"] == {ours: cube["evaluation"]["probs"][name] for ours, name in OUR_PROBS.items()}
    assert body["cube"] == {"double": cube["cube_decision"]["double"],
                            "accept": cube["cube_decision"]["response"] != "pass"}
    if query == EVAL_START:
        assert body["cube"] == {"double": False, "accept": True}


@pytest.mark.parametrize("path, expected", [
    ("/eval?p0=1&p4=4&p5=-5", "Index 0 is the bar for player o, number of checkers needs to be negative."),
    ("/move?die1=2&die2=0&p4=4&p5=-5", "Dice values must be between 1 and 6."),
    ("/move?die1=2&die2=1&p4=4&p5=-5&p25=-2",
     "Index 25 is the bar for player x, number of checkers needs to be positive."),
    ("/move?die1=2&die2=1&p6=16&p5=-5", "Player x has more than 15 checkers on the board."),
    ("/eval?p6=5&p5=-16", "Player o has more than 15 checkers on the board."),
    ("/move?die1=2&die2=1&p6=5&p5=-5&x_away=0&o_away=1", "If x_away is 0, then o_away must also be 0."),
    ("/move?die1=2&die2=1&p6=5&p5=-5&x_away=3&o_away=2", "Currently only 1 pointers and money games are supported."),
    ("/move", "die1"),
    ("/move?die1=three&die2=1", "die1"),
    ("/move?die1=3&die2=1&p7=1.5", "p7"),
    ("/move?die1=3&die2=1&x_away=-1", "x_away"),
    ("/move?die1=3&die2=1&p24=-2", "over"),  # x has no checker left: the game is over
    ("/eval", "borne off"),
])
def test_wildbg_bad_requests(http, path, expected):
    """wildbg's 400 {"message": ...} (its tests' and documentation's messages where it has them), for
    bad dice, pips, scores, missing or unreadable parameters, and positions of finished games."""
    assert expected in message(http.get(path))


def test_another_sites_page_is_refused(http):
    """A request another site's page makes a browser send (Sec-Fetch-Site: cross-site): 403, as under
    /api/ (nardibot/web/guard.py); the same request of the site itself is answered."""
    assert "another site" in message(http.get(f"/eval?{EVAL_START}", headers={"sec-fetch-site": "cross-site"}), 403)
    assert http.get(f"/eval?{EVAL_START}", headers={"sec-fetch-site": "same-origin"}).status_code == 200
    refused = http.post("/api/v1/getmoves", json=README_GETMOVES, headers={"sec-fetch-site": "cross-site"})
    assert refused.status_code == 403


# -- bgweb-api -------------------------------------------------------------------------------------

README_GETMOVES = {"board": {"o": STARTING_LAYOUT, "x": STARTING_LAYOUT}, "cubeful": False, "dice": [3, 1],
                   "max-moves": 3, "player": "x", "score-moves": True}
"""bgweb-api's README example ("get top moves for starting position and dice roll 3-1 for player x")."""


def bgweb_json(body: dict) -> dict:
    """bgweb-api's board (each side's checkers in its own numbering, 1..24 and "bar") as our JSON form
    from the side on roll."""
    me, other = body["board"][body["player"]], body["board"]["o" if body["player"] == "x" else "x"]
    board = [me.get(str(p), 0) - other.get(str(25 - p), 0) for p in range(1, 25)]
    mine, theirs = sum(me.values()), sum(other.values())
    return {"board": board, "bar": [me.get("bar", 0), other.get("bar", 0)], "off": [15 - mine, 15 - theirs]}


def bgweb_played(body: dict, play: list[dict]) -> dict:
    """Our JSON form after the mover's play in bgweb-api's terms ("bar", "off", the mover's numbers)."""
    position = bgweb_json(body)
    board, bar, off = list(position["board"]), list(position["bar"]), list(position["off"])
    for step in play:
        source = 25 if step["from"] == "bar" else int(step["from"])
        if source == 25:
            assert bar[0] > 0
            bar[0] -= 1
        else:
            assert board[source - 1] > 0
            board[source - 1] -= 1
        if step["to"] == "off":
            off[0] += 1
            continue
        to = int(step["to"])
        if board[to - 1] == -1:
            board[to - 1], bar[1] = 0, bar[1] + 1
        assert board[to - 1] >= 0
        board[to - 1] += 1
    return {"board": board, "bar": bar, "off": off}


def test_bgweb_readme_example(http):
    """bgweb-api README's getmoves example: at most 3 moves, each {"play": [{"from", "to"}] as text,
    "evaluation": {"info": {"cubeful", "plies"}, "eq", "diff", "probability"}}; best first (8/5 6/5,
    the README's and /api/hint's), eq falling, diff = eq - the best's eq, lose = 1 - win."""
    answer = http.post("/api/v1/getmoves", json=README_GETMOVES)
    assert answer.status_code == 200
    moves = answer.json()
    assert len(moves) == 3
    assert moves[0]["play"] == [{"from": "8", "to": "5"}, {"from": "6", "to": "5"}]
    hint = http.post("/api/hint", json={"position": bgweb_json(README_GETMOVES), "dice": [3, 1]}).json()
    assert bgweb_played(README_GETMOVES, moves[0]["play"]) == hint["plays"][0]["position"]
    eqs = [m["evaluation"]["eq"] for m in moves]
    assert eqs == sorted(eqs, reverse=True)
    for move in moves:
        evaluation = move["evaluation"]
        assert set(move) == {"play", "evaluation"} and set(evaluation) == {"info", "eq", "diff", "probability"}
        assert evaluation["info"] == {"cubeful": False, "plies": 1}
        assert evaluation["diff"] == pytest.approx(evaluation["eq"] - eqs[0], abs=1.5e-3) and evaluation["diff"] <= 0
        probability = evaluation["probability"]
        assert set(probability) == BGWEB_PROBS and probability["lose"] == pytest.approx(1 - probability["win"], abs=1e-3)
        assert all(0 <= v <= 1 for v in probability.values())


def test_bgweb_cubeful_is_api_hints_ranking(http):
    """cubeful: true (bgweb-api's own test of 3-1): every play, no max-moves, in /api/hint's order
    (money, the cube centred) with its equity to 3 decimals; each play taking the board to /api/hint's
    position."""
    body = {**README_GETMOVES, "cubeful": True}
    del body["max-moves"]
    moves = http.post("/api/v1/getmoves", json=body).json()
    hint = http.post("/api/hint", json={"position": bgweb_json(body), "dice": [3, 1]}).json()
    assert len(moves) == len(hint["plays"])
    for move, play in zip(moves, hint["plays"]):
        assert bgweb_played(body, move["play"]) == play["position"]
        assert move["evaluation"]["eq"] == round(play["equity"], 3) and move["evaluation"]["info"]["cubeful"]


@pytest.mark.parametrize("body, plays", [
    ({"board": {"o": {"6": 5, "8": 4, "13": 4, "15": 1, "24": 1},
                "x": {"6": 5, "7": 2, "8": 3, "13": 2, "24": 2, "bar": 1}},
      "dice": [6, 1], "player": "x", "max-moves": 9, "score-moves": False},
     [[("bar", "24"), ("24", "18")], [("bar", "24"), ("13", "7")], [("bar", "24"), ("8", "2")],
      [("bar", "24"), ("7", "1")]]),
    ({"board": {"x": {"1": 1}, "o": {"2": 1}}, "dice": [6, 1], "player": "x", "max-moves": 9, "score-moves": False},
     [[("1", "off")]]),
    ({"board": {"x": {"1": 1}, "o": {"1": 4, "2": 3, "3": 1, "4": 2, "5": 2, "6": 3}}, "dice": [4, 1], "player": "o",
      "max-moves": 3, "score-moves": True}, None),
], ids=["on-the-bar", "bear-off", "player-o"])
def test_bgweb_tests_positions(http, body, plays):
    """bgweb-api's own tests (internal/api/getmoves_test.go): a checker on the bar, a bear-off, and o
    on roll (its board in o's own numbering, the plays too); without score-moves no evaluation."""
    moves = http.post("/api/v1/getmoves", json=body).json()
    hint = http.post("/api/hint", json={"position": bgweb_json(body), "dice": body["dice"]}).json()
    assert [bgweb_played(body, m["play"]) for m in moves] == [p["position"] for p in hint["plays"][:body["max-moves"]]]
    assert all(("evaluation" in m) == body["score-moves"] for m in moves)
    if plays is not None:
        assert sorted([(s["from"], s["to"]) for s in m["play"]] for m in moves) == sorted(plays)


def test_bgweb_max_moves_zero_and_dance(http):
    """max-moves 0 gives no move (bgweb-api takes at most that many); a dance gives one move whose play
    is empty."""
    assert http.post("/api/v1/getmoves", json={**README_GETMOVES, "max-moves": 0}).json() == []
    closed = {"board": {"x": {"bar": 1, "13": 14}, "o": {str(p): 2 for p in range(1, 7)}}, "dice": [4, 4],
              "player": "x"}
    [move] = http.post("/api/v1/getmoves", json=closed).json()
    assert move["play"] == [] and move["evaluation"]["diff"] == 0


@pytest.mark.parametrize("body, expected", [
    ({**README_GETMOVES, "dice": [7, 1]}, "dice"),
    ({**README_GETMOVES, "dice": [3]}, "dice"),
    ({k: v for k, v in README_GETMOVES.items() if k != "dice"}, "dice"),
    ({**README_GETMOVES, "player": "z"}, "player"),
    ({**README_GETMOVES, "max-moves": -1}, "max-moves"),
    ({**README_GETMOVES, "board": {"x": STARTING_LAYOUT}}, "board.o"),
    ({**README_GETMOVES, "board": {"x": {**STARTING_LAYOUT, "7": 1}, "o": STARTING_LAYOUT}}, "16 checkers"),
    ({**README_GETMOVES, "board": {"x": {**STARTING_LAYOUT, "7": -1}, "o": STARTING_LAYOUT}}, "board.x.7"),
    ({**README_GETMOVES, "board": {"x": {"19": 1}, "o": {"6": 1}}}, "both"),
    ({**README_GETMOVES, "board": {"x": {}, "o": STARTING_LAYOUT}}, "over"),
    ("[1, 2", "JSON"),
])
def test_bgweb_bad_requests(http, body, expected):
    """Bad dice, player, max-moves, boards (a side missing, 16 checkers, a negative count, both sides on
    one point, a finished game) and a body that is no JSON: 400 {"message": ...} (bgweb-api's echo
    error body)."""
    content = body if isinstance(body, str) else json.dumps(body)
    answer = http.post("/api/v1/getmoves", content=content, headers={"content-type": "application/json"})
    assert expected in message(answer)


def test_the_endpoints_are_documented(http):
    """/openapi.json (the /docs page) lists the three endpoints with the originals' parameters and
    fields, each parameter with a description."""
    schema = http.get("/openapi.json").json()
    move = schema["paths"]["/move"]["get"]
    names = [p["name"] for p in move["parameters"]]
    assert names == ["die1", "die2", "x_away", "o_away", *(f"p{i}" for i in range(26))]
    assert all(p.get("description") for p in move["parameters"])
    assert [p["name"] for p in schema["paths"]["/eval"]["get"]["parameters"]] == [f"p{i}" for i in range(26)]
    assert set(move["responses"]) == set(schema["paths"]["/eval"]["get"]["responses"]) == {"200", "400", "4XX"}
    getmoves = schema["paths"]["/api/v1/getmoves"]["post"]
    ref = getmoves["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    fields = schema["components"]["schemas"][ref]["properties"]
    assert set(fields) == {"board", "cubeful", "dice", "max-moves", "player", "score-moves"}
    assert "400" in getmoves["responses"]
