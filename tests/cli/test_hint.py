"""`evaluate.py hint` (nardibot/cli/cmd_hint.py): FORMATS.md's worked IDs parse to the right position, dice and
cube/match state; every printed play is legal; --json and --jsonl follow the documented schema; cube
decisions without dice; nardi; 1- and 2-ply; pictures; bad input is one line and exit 2."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from engine.board import flip, start_position
from engine.formats.position import read_gnubg_id, read_json_position, read_xgid
from engine.movegen import legal_plays
from engine.notation import parse_play
from model.net.equity import OUTPUT_NAMES, cubeless_equity
from nardibot.cli import cmd_hint as hint
from tests.helpers import ROOT, save_tiny_checkpoints

START_JSON = {"board": [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2],
              "bar": [0, 0], "off": [0, 0]}  # FORMATS.md's backgammon start
NARDI_START = {"board": [0] * 11 + [-15] + [0] * 11 + [15], "bar": [0, 0], "off": [0, 0]}
XGID_START = "XGID=-b----E-C---eE---c-e----B-"
CLOSED_OUT = {"board": [-3, 0, 0, 0, 0, 14] + [0] * 12 + [-2] * 6, "bar": [1, 0], "off": [0, 0]}
BEAR_OFF = {"board": [2, 1, 0, 0, 0, 0] + [0] * 12 + [0, 0, 0, 0, -1, -2], "bar": [0, 0], "off": [12, 12]}


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    """A tiny untrained network per game, saved as a checkpoint: the tests never need the shipped one."""
    return save_tiny_checkpoints(tmp_path_factory.mktemp("hint"))


def ask(capsys, nets, *args, game="backgammon"):
    """nardibot.cli.cmd_hint.main in this process: (status, stdout, stderr)."""
    code = hint.main([*args, "--bot", str(nets[game]), *(["--game", game] if game != "backgammon" else [])])
    out, err = capsys.readouterr()
    return code, out, err


def ask_json(capsys, nets, *args, game="backgammon") -> dict:
    """The --json answer, checked against the documented schema."""
    code, out, err = ask(capsys, nets, *args, "--json", game=game)
    assert code == 0, err
    answer = json.loads(out)
    check_schema(answer)
    return answer


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`python evaluate.py hint ARGS` in a fresh single-threaded interpreter."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "hint", *args], check=False, cwd=ROOT,
                          env=env, input=stdin, capture_output=True, text=True, timeout=60)


# -- the documented schema ------------------------------------------------------------------------

DOC = hint.__doc__
TOP_KEYS = {"game", "bot", "ply", "position", "dice", "evaluation", "plays", "cube_decision"}
CUBE_KEYS = {"value", "owner", "match_length", "score", "crawford", "jacoby", "beavers"}
PLAY_KEYS = {"rank", "move", "position", "ply", "probs", "cubeless_equity", "equity", "mwc", "loss"}
DECISION_KEYS = {"action", "double", "response", "double_offered", "no_double", "double_take", "double_pass"}
DECISION_MWC = {"no_double_mwc", "double_take_mwc", "double_pass_mwc"}


def documented(keys) -> bool:
    """Every key is named (quoted) in nardibot/cli/cmd_hint.py's docstring."""
    return all(f'"{k}"' in DOC for k in keys)


def check_position(game: str, blob) -> np.ndarray:
    """A JSON position that reads back as a valid position of ``game``."""
    assert set(blob) == {"board", "bar", "off"}
    return read_json_position(game, blob)


def check_probs(game: str, probs: dict) -> None:
    assert list(probs) == list(OUTPUT_NAMES[game])
    assert all(isinstance(v, float) and 0.0 <= v <= 1.0 for v in probs.values())


def check_schema(a: dict) -> None:
    """Keys and types of one answer, as the module docstring documents them."""
    game = a["game"]
    optional = {"position_id", "match_id", "cube", "prune"} if game == "backgammon" else set()
    assert TOP_KEYS <= set(a) <= TOP_KEYS | optional and documented(set(a))
    assert isinstance(a["bot"], str) and a["ply"] in (0, 1, 2)
    check_position(game, a["position"])
    assert a["dice"] is None or (len(a["dice"]) == 2 and all(isinstance(d, int) and 1 <= d <= 6 for d in a["dice"]))
    check_probs(game, a["evaluation"]["probs"])
    assert isinstance(a["evaluation"]["cubeless_equity"], float)
    assert a["evaluation"]["ply"] == (a["ply"] if a["dice"] is None else 0)
    if game == "backgammon":
        assert set(a["cube"]) == CUBE_KEYS and documented(CUBE_KEYS)
        assert a["cube"]["owner"] in ("centred", "me", "opponent") and a["cube"]["value"] >= 1
        assert all(isinstance(a["cube"][k], bool) for k in ("crawford", "jacoby", "beavers"))
        assert isinstance(a["position_id"], str) and len(a["position_id"]) == 14
    else:
        assert "cube" not in a and "position_id" not in a
    assert (a["plays"] is None) == (a["dice"] is None)
    if a["plays"] is not None:
        assert a["cube_decision"] is None and documented(PLAY_KEYS)
        for p in a["plays"]:
            assert set(p) == PLAY_KEYS and isinstance(p["move"], str) and p["ply"] in (0, 1, 2)
            check_position(game, p["position"])
            check_probs(game, p["probs"])
            assert isinstance(p["loss"], float) and isinstance(p["cubeless_equity"], float)
            match = game == "backgammon" and a["cube"]["match_length"] > 0
            assert (p["mwc"] is not None) == match and (p["equity"] is None) == (match or game != "backgammon")
    elif a["cube_decision"] is not None:
        c = a["cube_decision"]
        match = a["cube"]["match_length"] > 0
        assert set(c) == DECISION_KEYS | (DECISION_MWC if match else set()) and documented(set(c))
        assert isinstance(c["double"], bool) and c["response"] in ("take", "pass", "beaver")
        assert all(isinstance(c[k], float) for k in set(c) - {"action", "double", "response", "double_offered"})


def legal_children(game, position, dice) -> dict[bytes, np.ndarray]:
    children, _ = legal_plays(game, np.asarray(position, dtype=np.int8)[None], np.array([dice]))
    return {row.tobytes(): row for row in children}


def check_plays_legal(a: dict) -> None:
    """The plays are exactly the legal plays, each move text parses to its own position, ranked 1..n."""
    game, pos, dice = a["game"], check_position(a["game"], a["position"]), a["dice"]
    legal = legal_children(game, pos, dice)
    shown = [check_position(game, p["position"]) for p in a["plays"]]
    assert sorted(r.tobytes() for r in shown) == sorted(legal)
    for p, after in zip(a["plays"], shown):
        assert np.array_equal(parse_play(game, pos, np.array(dice), p["move"]), after), p["move"]
    assert [p["rank"] for p in a["plays"]] == list(range(1, len(a["plays"]) + 1))
    assert a["plays"][0]["loss"] == 0.0


# -- FORMATS.md's worked IDs ----------------------------------------------------------------------

def test_position_id_with_dice_is_the_start_money_centred(capsys, nets):
    """4HPwATDgc/ABMA --dice 31: the start, money with gnubg's defaults (Jacoby, beavers), 16 legal plays."""
    a = ask_json(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31")
    assert a["position"] == START_JSON and a["position_id"] == "4HPwATDgc/ABMA" and "match_id" not in a
    assert a["dice"] == [3, 1] and len(a["plays"]) == 16
    assert a["cube"] == {"value": 1, "owner": "centred", "match_length": 0, "score": [0, 0], "crawford": False,
                         "jacoby": True, "beavers": True}
    check_plays_legal(a)


def test_match_id_dice_are_used(capsys, nets):
    """4HPwATDgc/ABMA:cIkFAAAAAAAE: the Match ID's 3-1 is played, Jacoby off as its bit 66 says."""
    a = ask_json(capsys, nets, "4HPwATDgc/ABMA:cIkFAAAAAAAE")
    assert a["dice"] == [3, 1] and a["match_id"] == "cIkFAAAAAAAE" and a["position"] == START_JSON
    assert a["cube"]["jacoby"] is False and a["cube"]["match_length"] == 0 and a["cube"]["owner"] == "centred"
    assert a["cube_decision"] is None
    check_plays_legal(a)


def test_match_id_score_cube_owner_and_mwc(capsys, nets):
    """QYkqASAAIAAA: player 1 on roll with 5-2 at 2-4 of 9, player 0 owns a 2-cube -> seen by the mover:
    score [4, 2], cube 2 owned by the opponent; plays ranked by MWC with the loss in MWC."""
    a = ask_json(capsys, nets, "4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert a["dice"] == [5, 2] and a["match_id"] == "QYkqASAAIAAA"
    assert a["cube"] == {"value": 2, "owner": "opponent", "match_length": 9, "score": [4, 2], "crawford": False,
                         "jacoby": False, "beavers": False}
    best = a["plays"][0]["mwc"]
    for p in a["plays"]:
        assert 0.0 <= p["mwc"] <= 1.0 and p["loss"] == pytest.approx(best - p["mwc"], abs=2e-6)
    check_plays_legal(a)


def test_position_id_after_the_opening_is_the_other_side_on_roll(capsys, nets):
    """sGfwATDgc/ABMA is the start after 8/5 6/5, seen by the opponent now on roll."""
    start = start_position("backgammon", 1)[0]
    expected = flip("backgammon", parse_play("backgammon", start, np.array([3, 1]), "8/5 6/5")[None])[0]
    a = ask_json(capsys, nets, "sGfwATDgc/ABMA", "--dice", "6-4")
    assert np.array_equal(check_position("backgammon", a["position"]), expected)
    check_plays_legal(a)


def test_xgid_start_without_dice_is_a_money_cube_decision(capsys, nets):
    """XGID start, dice 00, rules 0: the start, no plays, a cube decision; passing a 1-cube gives +1."""
    a = ask_json(capsys, nets, XGID_START + ":0:0:1:00:0:0:0:0:10")
    assert a["position"] == START_JSON and a["dice"] is None and a["plays"] is None
    assert a["cube"] == {"value": 1, "owner": "centred", "match_length": 0, "score": [0, 0], "crawford": False,
                         "jacoby": False, "beavers": False}
    c = a["cube_decision"]
    assert c["double_pass"] == 1.0 and c["response"] in c["action"].lower()


def test_xgid_match_state_round_trips_through_the_printed_gnubg_ids(capsys, nets):
    """XGID at 2-4 of 9, the mover owning a 2-cube, 5-2: read as such, and the printed Position ID +
    Match ID describe the same position and state as the XGID."""
    xgid = XGID_START + ":1:1:1:52:2:4:0:9:10"
    a = ask_json(capsys, nets, xgid)
    assert a["dice"] == [5, 2]
    assert a["cube"] == {"value": 2, "owner": "me", "match_length": 9, "score": [2, 4], "crawford": False,
                         "jacoby": False, "beavers": False}
    pos, info = read_xgid(xgid)
    again, info_again = read_gnubg_id(f"{a['position_id']}:{a['match_id']}")
    assert np.array_equal(pos, again) and info_again == info
    check_plays_legal(a)


@pytest.mark.parametrize("match_id, jacoby", [("cAkAAAAAAAAA", True), ("cAkAAAAAAAAE", False)])
def test_match_id_without_dice_is_a_cube_decision(capsys, nets, match_id, jacoby):
    """cAkAAAAAAAAA / cAkAAAAAAAAE: money, no dice -> cube decision, Jacoby as the Match ID says."""
    a = ask_json(capsys, nets, f"4HPwATDgc/ABMA:{match_id}")
    assert a["plays"] is None and a["cube_decision"] is not None and a["cube"]["jacoby"] is jacoby


def test_cube_decision_in_a_match_gives_match_winning_chances(capsys, nets):
    """At 2-4 of 9 without dice the three cube equities come with their MWC, each a probability."""
    a = ask_json(capsys, nets, XGID_START + ":0:0:1:00:2:4:0:9:10")
    c = a["cube_decision"]
    assert DECISION_MWC <= set(c) and all(0.0 <= c[k] <= 1.0 for k in DECISION_MWC)


# -- every printed play is legal ------------------------------------------------------------------

CASES = [
    ("4HPwATDgc/ABMA", "66"),
    ("4HPwATDgc/ABMA:QYkqASAAIAAA", None),
    (json.dumps(CLOSED_OUT), "65"),  # on the bar against a closed board: the one "play" is no play
    (json.dumps(BEAR_OFF), "21"),
    (XGID_START + ":0:0:-1:43:0:0:0:0:10", None),
]


@pytest.mark.parametrize("position, dice", CASES)
def test_table_rows_are_exactly_the_legal_plays(capsys, nets, position, dice):
    """Text output: every row's move parses as a legal play, rows are distinct and as many as announced."""
    code, out, err = ask(capsys, nets, position, *(["--dice", dice] if dice else []), "--top", "999")
    assert code == 0, err
    a = ask_json(capsys, nets, position, *(["--dice", dice] if dice else []))
    check_plays_legal(a)
    pos, roll = check_position("backgammon", a["position"]), np.array(a["dice"])
    assert f"Dice {roll[0]}-{roll[1]}: {len(a['plays'])} legal plays" in out
    rows = re.findall(r"^\s*(\d+)  (.{24})\s*\d ", out, flags=re.MULTILINE)
    assert [int(r[0]) for r in rows] == list(range(1, len(a["plays"]) + 1))
    legal = legal_children("backgammon", pos, roll)
    seen = set()
    for _, move in rows:
        move = move.strip()
        after = pos if move == "(no play)" else parse_play("backgammon", pos, roll, move)
        assert after.tobytes() in legal
        seen.add(after.tobytes())
    assert len(seen) == len(rows)


def test_table_shows_the_ids_the_board_and_the_state(capsys, nets):
    """The table names the Position ID and Match ID, draws the board, and says money or match."""
    code, out, _ = ask(capsys, nets, "4HPwATDgc/ABMA:QYkqASAAIAAA")
    assert code == 0
    assert "Position ID: 4HPwATDgc/ABMA   Match ID: QYkqASAAIAAA" in out
    assert "9-point match, score 4-2; cube 2 opponent" in out and "BAR" in out and "Pips: 167" in out
    code, out, _ = ask(capsys, nets, "4HPwATDgc/ABMA", "--no-board")
    assert "Cube decision:" in out and "BAR" not in out and "money game" in out


# -- look-ahead -----------------------------------------------------------------------------------

@pytest.mark.parametrize("ply", [1, 2])
def test_deeper_plies_rank_the_legal_plays(capsys, nets, ply):
    """--ply 1/2: all legal plays, the deep ones first and at the asked ply, each depth in order of
    equity, and every cubeless equity is that of its probabilities."""
    a = ask_json(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--ply", str(ply))
    check_plays_legal(a)
    depths = [p["ply"] for p in a["plays"]]
    assert a["ply"] == ply and depths[0] == ply and depths == sorted(depths, reverse=True) and 0 in depths
    for d in set(depths):
        equities = [p["equity"] for p in a["plays"] if p["ply"] == d]
        assert equities == sorted(equities, reverse=True)
    for p in a["plays"]:
        probs = np.array([list(p["probs"].values())])
        assert p["cubeless_equity"] == pytest.approx(cubeless_equity("backgammon", probs)[0], abs=1e-5)


def test_the_position_is_evaluated_at_the_hints_ply_only_without_dice(capsys, nets):
    """Without dice the evaluation (and the cube decision) is at the hint's ply; with dice the plays
    are the question and the position before its roll is valued at 0-ply, as the 0-ply hint values it
    (the ply is said in the JSON and in the table)."""
    at0 = ask_json(capsys, nets, "4HPwATDgc/ABMA")["evaluation"]
    at2 = ask_json(capsys, nets, "4HPwATDgc/ABMA", "--ply", "2")["evaluation"]
    rolled = ask_json(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--ply", "2")["evaluation"]
    assert (at0["ply"], at2["ply"], rolled["ply"]) == (0, 2, 0)
    assert rolled == at0 and at2["probs"] != at0["probs"]
    code, out, err = ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--ply", "2")
    assert code == 0 and "Cubeless (0-ply, before the roll):" in out, err


# -- nardi ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dice", ["63", "66", "21"])
def test_nardi_positions_rank_legal_plays(capsys, nets, dice):
    """--game nardi with the JSON start: legal plays only (head rule included), cubeless equity."""
    a = ask_json(capsys, nets, json.dumps(NARDI_START), "--dice", dice, game="nardi")
    assert a["position"] == NARDI_START
    check_plays_legal(a)
    assert all(p["equity"] is None and p["mwc"] is None for p in a["plays"])


def test_nardi_without_dice_and_with_a_gnubg_id(capsys, nets):
    """Nardi has no cube: no dice gives the evaluation alone; a gnubg ID is refused with the reason."""
    a = ask_json(capsys, nets, json.dumps(NARDI_START), game="nardi")
    assert a["plays"] is None and a["cube_decision"] is None
    code, out, err = ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", game="nardi")
    assert code == 2 and out == "" and "JSON form" in err and len(err.strip().splitlines()) == 1


# -- --jsonl, --image, the command line -----------------------------------------------------------

def test_jsonl_answers_every_line_in_order(capsys, nets, tmp_path, monkeypatch):
    """--jsonl: one JSON answer per line, in order; bad lines (not JSON, bad ID, dice 7, empty, a list)
    answer {"error": ...} and the run goes on; '-' reads stdin."""
    lines = ['"4HPwATDgc/ABMA"', '{"position": "4HPwATDgc/ABMA", "dice": [3, 1]}', "not json",
             '{"position": "garbage"}', '{"position": "4HPwATDgc/ABMA", "dice": [7, 1]}', "",
             json.dumps({**START_JSON, "dice": [6, 5]}), "[1, 2]", '"4HPwATDgc/ABMA:cIkFAAAAAAAE"']
    bad = {2, 3, 4, 5, 7}
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    for source in (str(path), "-"):
        code, out, err = ask(capsys, nets, "--jsonl", source)
        assert code == 0, err
        answers = [json.loads(line) for line in out.splitlines()]
        assert len(answers) == len(lines)
        for i, a in enumerate(answers):
            if i in bad:
                assert list(a) == ["error"] and isinstance(a["error"], str) and a["error"]
            else:
                check_schema(a)
        assert answers[0]["cube_decision"] is not None
        assert [answers[i]["dice"] for i in (1, 6, 8)] == [[3, 1], [6, 5], [3, 1]]
        check_plays_legal(answers[6])


@pytest.mark.parametrize("game, position, dice", [
    ("backgammon", "4HPwATDgc/ABMA", "31"), ("nardi", json.dumps(NARDI_START), "65")])
def test_image_writes_an_svg(capsys, nets, tmp_path, game, position, dice):
    """--image x.svg writes an SVG drawing of the position and still prints the table."""
    path = tmp_path / "x.svg"
    code, out, err = ask(capsys, nets, position, "--dice", dice, "--image", str(path), game=game)
    assert code == 0, err
    text = path.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>") and "legal plays" in out


def test_the_evaluate_entry_point_prints_json(nets):
    """`python evaluate.py hint ID:MatchID --json` in a fresh process: valid JSON, the Match ID's dice."""
    done = run_cli("4HPwATDgc/ABMA:cIkFAAAAAAAE", "--bot", str(nets["backgammon"]), "--json")
    assert done.returncode == 0, done.stderr
    a = json.loads(done.stdout)
    check_schema(a)
    assert a["dice"] == [3, 1]


def _match_id_with_dice(match_id: str, d1: int, d2: int) -> str:
    """A Match ID with its dice fields (bits 15-17, 18-20) replaced: for impossible dice."""
    import base64

    value = int.from_bytes(base64.b64decode(match_id), "little") & ~(0x3F << 15) | d1 << 15 | d2 << 18
    return base64.b64encode(value.to_bytes(9, "little")).decode()


BAD = [
    (["4HPwATDgc/ABM", "--dice", "31"], "14 characters"),
    (["4HPwATDgc/AB!A", "--dice", "31"], "A-Z"),
    (["wXPwATDgc/ABMA", "--dice", "31"], "both sides"),  # both sides' checkers on one point
    (["4HPwATDgc/ABMA:" + _match_id_with_dice("cIkFAAAAAAAE", 7, 1)], "7"),
    (["4HPwATDgc/ABMA:cIkFAAAA"], "12 characters"),
    ([XGID_START + ":0:0:1:00:0:0:0:0"], "10 fields"),
    ([XGID_START.replace("B-", "C-") + ":0:0:1:31:0:0:0:0:10"], "16 checkers"),
    ([json.dumps({**START_JSON, "board": START_JSON["board"][:-1] + [3]})], "16 checkers"),
    (["4HPwATDgc/ABMA", "--dice", "71"], "dice must be two numbers 1..6"),
    (["4HPwATDgc/ABMA", "--dice", "0"], "dice must be two numbers 1..6"),
    (["4HPwATDgc/ABMA", "--dice", "31", "--bot", "pubeval"], "baseline"),
    (["4HPwATDgc/ABMA", "--dice", "31", "--bot", "missing/net.pt"], "not found"),
    (["--jsonl", "missing/q.jsonl"], "cannot read"),
    (["4HPwATDgc/ABMA", "--dice", "31", "--image", "x.bmp"], ".svg"),
    (["4HPwATDgc/ABMA", "--dice", "31", "--image", "missing/x.svg"], "--image: cannot write missing/x.svg"),
]


@pytest.mark.parametrize("args, message", BAD, ids=[m for _, m in BAD])
def test_bad_input_is_one_line_and_exit_2(nets, args, message):
    """Malformed IDs, impossible positions, wrong dice, baselines, missing files: exit 2, one line."""
    if "--bot" not in args:
        args = [*args, "--bot", str(nets["backgammon"])]
    done = run_cli(*args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], done.stderr


@pytest.mark.parametrize("args", [["--ply", "3", "4HPwATDgc/ABMA"], []])
def test_bad_flags_exit_2_without_traceback(nets, args):
    """argparse refusals (a ply out of range, no position) end in one error line, status 2."""
    done = run_cli(*args, "--bot", str(nets["backgammon"]))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("nardibot hint: error:")


# -- faults found while writing these tests, fixed since -----------------------------------------

@pytest.mark.parametrize("off", [[14, 15], [15, 14]])
def test_a_finished_game_is_refused(capsys, nets, off):
    """A side with all 15 checkers off: the game is over, there is nothing to hint (exit 2, the reason)."""
    board = [1] + [0] * 23 if off == [14, 15] else [0] * 23 + [-1]
    code, out, err = ask(capsys, nets, json.dumps({"board": board, "bar": [0, 0], "off": off}), "--dice", "31")
    assert code == 2 and out == "" and err.startswith("error:")


def test_the_printed_match_id_agrees_with_the_dice_analysed(capsys, nets):
    """--dice 66 with a Match ID holding 3-1: either refused, or the printed Match ID says 6-6."""
    code, out, err = ask(capsys, nets, "4HPwATDgc/ABMA:cIkFAAAAAAAE", "--dice", "66", "--json")
    if code == 0:
        a = json.loads(out)
        assert read_gnubg_id(f"{a['position_id']}:{a['match_id']}")[1].dice == (6, 6)
    else:
        assert code == 2 and "dice" in err


def test_a_closed_output_pipe_ends_quietly(nets):
    """`hint ... | head -1`: the reader closes the pipe before the answer is written; no traceback."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, str(ROOT / "evaluate.py"), "hint", "4HPwATDgc/ABMA", "--dice", "31",
                              "--bot", str(nets["backgammon"])], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    child.stdout.close()  # before the interpreter has even started: every write meets a closed pipe
    err = child.stderr.read()
    child.wait(timeout=60)
    child.stderr.close()
    assert "Traceback" not in err


# -- the whole state in the header and the picture; --top and --met -------------------------------

def test_header_names_a_match_id_and_the_money_rules_even_without_one(capsys, nets):
    """A bare Position ID: the header still names a Match ID, which reads back to what was analysed
    (money, centred cube, Jacoby on, the dice), and says Jacoby and beavers; the board shows the cube."""
    code, out, _ = ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31")
    assert code == 0
    ids = re.search(r"Position ID: (\S+)   Match ID: (\S+)", out)
    pos, info = read_gnubg_id(f"{ids.group(1)}:{ids.group(2)}")
    assert np.array_equal(pos, start_position("backgammon"))
    assert (info.money, info.cube_value, info.cube_owner, info.jacoby) == (True, 1, -1, True)
    assert info.dice == (3, 1)
    assert "money game, Jacoby on, beavers on; cube 1 centred" in out and "cube 1, centred" in out
    xgid = XGID_START + ":1:1:1:00:0:0:1:0:10"  # money, Jacoby on, beavers off; the bottom player's 2-cube
    code, out, _ = ask(capsys, nets, xgid)
    assert "money game, Jacoby on, beavers off; cube 2 me" in out and "owns the cube at 2" in out
    ids = re.search(r"Position ID: (\S+)   Match ID: (\S+)", out)
    assert read_gnubg_id(f"{ids.group(1)}:{ids.group(2)}")[1].cube_value == 2


@pytest.mark.parametrize("top", ["0", "-3"])
def test_top_must_be_at_least_one(capsys, nets, top):
    """--top 0 or below: one error line, status 2."""
    with pytest.raises(SystemExit) as exit_info:
        ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--top", top)
    err = capsys.readouterr().err.strip()
    assert exit_info.value.code == 2
    assert err.splitlines() == [f"nardibot hint: error: --top must be at least 1, got {top}"]


def test_prune_is_refused_below_zero_and_prunes_at_two_ply(capsys, nets):
    """--prune -1: one error line, status 2; --prune 8 at 2 ply: the same plays, valued a little apart."""
    with pytest.raises(SystemExit) as exit_info:
        ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--prune", "-1")
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == ["nardibot hint: error: --prune must be 0 (every play) or more, got -1"]
    full = ask_json(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--ply", "2")
    pruned = ask_json(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--ply", "2", "--prune", "8")
    assert sorted(p["move"] for p in full["plays"]) == sorted(p["move"] for p in pruned["plays"])
    assert [p["probs"] for p in full["plays"]] != [p["probs"] for p in pruned["plays"]]
    assert pruned["prune"] == 8 and "prune" not in full and documented(pruned)
    code, out, _ = ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--ply", "2", "--prune", "8", "--no-board")
    assert code == 0 and "at 2-ply, inner plays among pubeval's best 8" in out
    assert "prune" not in ask_json(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--prune", "8")  # 0 ply: no search


def test_met_says_when_it_is_not_used(capsys, nets, tmp_path):
    """--met in a money game (or long nardi): the same answer and one note on stderr; in a match no note;
    an unknown table: one error line, status 2."""
    code, plain, err = ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--no-board")
    assert code == 0 and err == ""
    code, out, err = ask(capsys, nets, "4HPwATDgc/ABMA", "--dice", "31", "--no-board", "--met", "g11")
    assert code == 0 and out == plain
    assert err.splitlines() == ["hint: note: --met g11 is not used: a money game has no match equity"]
    code, out, err = ask(capsys, nets, "4HPwATDgc/ABMA:QYkqASAAIAAA", "--met", "g11")
    assert code == 0 and err == "" and "MWC" in out
    code, out, err = ask(capsys, nets, json.dumps(NARDI_START), "--dice", "65", "--met", "g11", game="nardi")
    assert code == 0 and "long nardi" in err and len(err.splitlines()) == 1
    lines = tmp_path / "q.jsonl"
    lines.write_text('"4HPwATDgc/ABMA"\n"4HPwATDgc/ABMA:QYkqASAAIAAA"\n"4HPwATDgc/ABMA"\n')
    code, out, err = ask(capsys, nets, "--jsonl", str(lines), "--met", "g11")
    assert code == 0 and len(out.splitlines()) == 3 and len(err.splitlines()) == 1  # said once
    with pytest.raises(SystemExit) as exit_info:
        ask(capsys, nets, "4HPwATDgc/ABMA", "--met", "no-such-table")
    err = capsys.readouterr().err.strip()
    assert exit_info.value.code == 2 and len(err.splitlines()) == 1 and "no match equity table" in err


def test_image_carries_cube_score_and_turn(capsys, nets, tmp_path):
    """--image: the drawing says the cube and its owner, the match score and length, and whose turn."""
    import xml.etree.ElementTree as ET

    path = tmp_path / "x.svg"
    code, _, err = ask(capsys, nets, "4HPwATDgc/ABMA:QYkqASAAIAAA", "--image", str(path))
    assert code == 0, err
    root = ET.fromstring(path.read_text())
    texts = {cls: [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == cls]
             for cls in ("cube-value", "cube-owner", "state", "turn")}
    assert texts["cube-value"] == ["2"] and texts["cube-owner"] == ["Black"]
    assert texts["state"] == ["9-point match, score 4-2"] and texts["turn"] == ["on roll, 5-2"]
