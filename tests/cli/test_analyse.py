"""`evaluate.py analyse` (nardibot/cli/cmd_analyse.py): the tables, the documented JSON, the HTML report with board
pictures, and bad input (a missing file, no .mat file, an illegal play, bad flags) as one line, exit 2."""

from __future__ import annotations

import json

import pytest

from evaluate import main as evaluate_main
from nardibot.cli import cmd_analyse as cli
from tests.helpers import ROOT

GNUBG_MATCH = ROOT / "tests" / "data" / "gnubg_3point.mat"


def run(capsys, *args):
    """evaluate.py analyse in this process: (status, stdout, stderr); argparse's errors exit."""
    try:
        code = evaluate_main(["analyse", *map(str, args)])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def documented(keys) -> bool:
    return all(f'"{k}"' in cli.__doc__ for k in keys)


def test_the_table_names_the_thresholds_the_marked_decisions_and_both_players(capsys):
    code, out, err = run(capsys, GNUBG_MATCH)
    assert code == 0, err
    assert "3-point match, alice vs bob" in out and "doubtful >= 0.030, bad >= 0.060, very bad >= 0.120" in out
    assert "very bad" in out and "Checker error rate mEMG (MWC)" in out and "Luck rate mEMG (MWC)" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("alice"))
    assert "bob" in header
    marked = [line for line in out.splitlines() if line.startswith("game ")]
    code, every, _ = run(capsys, GNUBG_MATCH, "--all")
    assert len([line for line in every.splitlines() if line.startswith("game ")]) > len(marked) > 0


def test_json_follows_the_documented_schema(capsys):
    code, out, err = run(capsys, GNUBG_MATCH, "--json")
    assert code == 0, err
    a = json.loads(out)
    assert documented(a) and documented(a["thresholds"]) and documented(a["games"][0])
    kinds = {d["kind"]: d for d in a["decisions"]}
    assert set(kinds) == {"move", "double", "take"}
    for d in kinds.values():
        assert documented(d) and documented(d["cube"])
    assert documented(kinds["move"]["plays"][0]) and documented(kinds["double"]["equities"])
    s = a["statistics"][0]
    assert documented(s) and documented(s["cube"]) and documented(s["marked"]) and documented(s["luck"])
    assert a["schema"] == "nardibot-match-analysis/1" and a["ply"] == 0 and a["rollout"] is None


def test_html_report_draws_each_marked_decision(capsys, tmp_path):
    code, out, err = run(capsys, GNUBG_MATCH, "--html", tmp_path / "report", "--json")
    assert code == 0, err
    marked = [d for d in json.loads(out)["decisions"] if d["mark"]]
    page = (tmp_path / "report" / "index.html").read_text()
    assert page.count("<svg") == len(marked) > 0 and page.count('class="decision"') == len(marked)
    assert "Checker error rate mEMG (MWC)" in page and "<script" not in page
    assert all(f'id="g{d["game"]}d{d["index"]}"' in page for d in marked)


@pytest.mark.parametrize("content, args, message", [
    (None, [], "cannot read"),
    ("hello, not a match\n", [], "no 'N point match' line"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/2\n", [], "game 1, entry 1 (31: 8/2)"),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1)  Doubles => 2\n", [], "opens with a play"),
    (" 3 point match\n", [], "no game"),
    (None, ["--ply", "7"], "invalid choice"),
    (None, ["--rollout", "1"], "at least 2"),
    (None, ["--met", "no-such-table"], "--met"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, content, args, message):
    path = tmp_path / "missing.mat"
    if content is not None:
        path.write_text(content)
    elif args:
        path = GNUBG_MATCH
    code, out, err = run(capsys, path, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("nardibot analyse: error:") and message in err


BEAVER_MAT = ('; [Beaver "On"]\n\n 0 point match\n\n Game 1\n a : 0                          b : 0\n'
              '  1) 31: 8/5 6/5                  Doubles => 2\n  2)  Beavers => 4                 64: 24/18 13/9\n')
"""Issue 43's reproduction: a beaver in the form this project writes."""


def test_a_beaver_is_analysed_not_a_traceback(capsys, tmp_path):
    """`nardibot analyse b.mat` of a game with a beaver: the beaver is the doubled side's answer, rated;
    where the file says beavers are off, one line naming the entry and exit 2."""
    path = tmp_path / "b.mat"
    path.write_text(BEAVER_MAT)
    code, out, err = run(capsys, path, "--json")
    assert code == 0, err
    answers = [d for d in json.loads(out)["decisions"] if d["kind"] == "take"]
    assert [(d["player"], d["action"]) for d in answers] == [(0, "beaver")]
    path.write_text(BEAVER_MAT.replace('"On"', '"Off"'))
    code, out, err = run(capsys, path)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "entry 3 (beaver): no beaver: beavers are not allowed" in err
