"""hint on hostile or unusual input: JSON nested past any reader's depth (one line, and --jsonl goes
on), and the Crawford game, where the cube is not available at all."""

from __future__ import annotations

import json

import pytest

from engine.errors import FormatError
from model.service.query import query_from_object
from tests.cli.test_hint import START_JSON, ask, ask_json, check_schema, nets, run_cli  # noqa: F401 (nets: the fixture)

DEEP = '{"board":' + "[" * 60000 + "]" * 60000 + "}"


def test_deeply_nested_json_is_one_line_and_jsonl_goes_on(nets, tmp_path):  # noqa: F811
    """A position of JSON nested 60,000 deep: one error line and status 2, no RecursionError; as a
    --jsonl line (text, or the object itself) it answers {"error": ...} and the lines after it are
    answered."""
    done = run_cli(DEEP, "--bot", str(nets["backgammon"]))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    said = "error: not JSON that can be read: nested too deeply (a position is an object of flat lists)"
    assert done.stderr.strip().splitlines() == [said]
    lines = [json.dumps(DEEP), DEEP, '{"position": ' + DEEP + ', "dice": [3, 1]}', '"4HPwATDgc/ABMA"']
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = run_cli("--jsonl", str(path), "--bot", str(nets["backgammon"]))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 4 and all("nested too deeply" in a["error"] for a in answers[:3])
    check_schema(answers[3])
    nested: list = []  # what a Python caller may hand over: a list nested past what JSON can write
    for _ in range(100_000):
        nested = [nested]
    for position in (nested, {**START_JSON, "board": [nested] + START_JSON["board"][1:]}):
        with pytest.raises(FormatError, match="a position is a JSON object|board\\[0\\] must be a whole number"):
            query_from_object("backgammon", {"position": position}, None)


CRAWFORD = "4HPwATDgc/ABMA:sAGgAEAAEAAA"
"""The opening position in the Crawford game of a 5-point match, 4-2, the leader on roll."""


def test_the_crawford_game_has_no_cube_decision_to_make(capsys, nets):  # noqa: F811
    """Without dice in the Crawford game the cube is not available: the answer says so, not "Never double,
    take (dead cube)"; the table shows no double/take or double/pass line; the game after it has a cube."""
    a = ask_json(capsys, nets, CRAWFORD)
    assert a["cube"]["crawford"] and a["cube_decision"]["double"] is False
    assert a["cube_decision"]["action"] == "No double: the cube is not available in the Crawford game"
    code, out, err = ask(capsys, nets, CRAWFORD, "--no-board")
    assert code == 0 and err == ""
    assert "Cube decision: No double: the cube is not available in the Crawford game" in out
    assert "dead cube" not in out and "Double, take" not in out and "taker" not in out and "No double " in out
    post = ask_json(capsys, nets, "4HPwATDgc/ABMA:MAGgAEAAEAAA")  # 4-2 after the Crawford game
    assert not post["cube"]["crawford"] and "Crawford" not in post["cube_decision"]["action"]
