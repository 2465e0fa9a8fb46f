"""`evaluate.py rollout` (nardibot/cli/cmd_rollout.py) and `hint --rollout`: the documented JSON schema, the
table, every position form hint reads, and bad input as one line with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine import compiled
from evaluate import main as evaluate_main
from nardibot.cli import cmd_hint as hint
from nardibot.cli import cmd_rollout as cli
from tests.helpers import ROOT, save_tiny_checkpoints

START_ID = "4HPwATDgc/ABMA"
CLOSED_OUT = {"board": [-3, 0, 0, 0, 0, 14] + [0] * 12 + [-2] * 6, "bar": [1, 0], "off": [0, 0]}
NARDI_START = {"board": [0] * 11 + [-15] + [0] * 11 + [15], "bar": [0, 0], "off": [0, 0]}
FAST = ["--trials", "4", "--truncate", "3", "--no-progress"]


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    return save_tiny_checkpoints(tmp_path_factory.mktemp("cli_rollout"))


def ask(capsys, nets, *args, game="backgammon"):
    """evaluate.py rollout in this process: (status, stdout, stderr)."""
    extra = ["--bot", str(nets[game])] + (["--game", game] if game != "backgammon" else [])
    code = evaluate_main(["rollout", *args, *FAST, *extra])
    out, err = capsys.readouterr()
    return code, out, err


def documented(keys) -> bool:
    return all(f'"{k}"' in cli.__doc__ for k in keys)


def test_plays_json_follows_the_schema(capsys, nets):
    """With dice: ranked plays with probabilities, intervals, the raw standard error, the separation."""
    code, out, err = ask(capsys, nets, START_ID, "--dice", "31", "--plays", "all", "--json")
    assert code == 0, err
    a = json.loads(out)
    assert documented(a) and documented(a["settings"]) and documented(a["settings"]["cube"])
    assert a["dice"] == [3, 1] and a["trials_done"] == 4 and len(a["plays"]) == 16
    for p in a["plays"]:
        assert documented(p) and p["ci95"][0] <= p["equity"] <= p["ci95"][1]
    assert [p["rank"] for p in a["plays"]] == list(range(1, 17))
    values = [p["cubeful"]["value"] for p in a["plays"]]  # cubeful by default: ranked as hint ranks
    assert values == sorted(values, reverse=True) and documented(a["separation"])
    assert a["evaluation"] is None and a["cube_decision"] is None


def test_no_dice_gives_the_value_and_the_cube_decision(capsys, nets):
    """Without dice (XGID, money): cubeless evaluation and the cube decision from cubeful trials."""
    code, out, err = ask(capsys, nets, "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--json")
    assert code == 0, err
    a = json.loads(out)
    assert a["plays"] is None and documented(a["evaluation"]) and documented(a["cube_decision"])
    c = a["cube_decision"]
    assert c["unit"] == "equity" and c["double_pass"]["value"] == 1.0 and documented(c["no_double"])
    code, out, _ = ask(capsys, nets, START_ID, "--cubeless", "--json")
    assert code == 0 and json.loads(out)["cube_decision"] is None


def test_the_table_and_other_position_forms(capsys, nets):
    """The text table; a Match ID's dice and match score; a nardi JSON position."""
    code, out, err = ask(capsys, nets, f"{START_ID}:cIkFAAAAAAAE", "--plays", "8/5 6/5,24/23 24/21")
    assert code == 0, err
    assert "dice 3-1" in out and "8/5 6/5" in out and "24/23 24/21" in out and "separated" in out
    code, out, err = ask(capsys, nets, "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:3:0:5:10", "--json")
    assert code == 0, err
    assert json.loads(out)["cube_decision"]["unit"] == "mwc"
    code, out, err = ask(capsys, nets, json.dumps(NARDI_START), "--dice", "65", "--json", game="nardi")
    assert code == 0, err
    assert set(json.loads(out)["plays"][0]["probs"]) == {"win", "win_mars", "lose_mars"}


@pytest.mark.parametrize("args, message", [
    ([json.dumps(CLOSED_OUT), "--dice", "65"], "no legal play"),
    ([json.dumps({"board": [1] + [0] * 23, "bar": [0, 0], "off": [14, 15]})], "over"),
    ([START_ID, "--dice", "31", "--trials", "0"], "--trials"),
    ([START_ID, "--dice", "31", "--plays", "24/18"], "24/18"),
    ([START_ID, "--plays", "all"], "need dice"),  # plays without a roll would go unused
    (["4HPwATDgc/ABM"], "14 characters"),
    ([START_ID, "--ply", "5"], "invalid choice"),
    ([START_ID, "--truncate", "-1"], "--truncate must be 0 (play to the end) or more, got -1"),
    ([START_ID, "--batch", "0"], "--batch must be at least 1, got 0"),  # each flag named alone
])
def test_bad_input_is_one_line_and_exit_2(nets, args, message):
    """No legal play, a finished game, no trials, an illegal play, plays without dice, a bad ID, a bad
    flag: exit 2, one line."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "rollout", *FAST, *args, "--bot",
                           str(nets["backgammon"])], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(lines) == 1 and lines[0].startswith("nardibot rollout: error:") and message in lines[0], done.stderr


def test_hint_confirms_its_ranking(capsys, nets):
    """hint --rollout N: the plays hint lists are rolled out, the answer gains "rollout"."""
    code = hint.main([START_ID, "--dice", "31", "--rollout", "2", "--top", "3", "--json", "--bot",
                      str(nets["backgammon"])])
    out, err = capsys.readouterr()
    assert code == 0, err
    a = json.loads(out)
    listed = {p["move"] for p in a["plays"][:3]}
    assert {p["move"] for p in a["rollout"]["plays"]} == listed and a["rollout"]["trials_done"] == 2


def test_the_table_shows_probabilities_within_0_and_1(capsys, nets):
    """A luck-adjusted mean can fall a little outside [0, 1] (the JSON keeps it, the unbiased
    estimate); the table shows every probability clipped to [0, 1], as gnubg does."""
    code, out, err = ask(capsys, nets, START_ID, "--dice", "31", "--plays", "all", "--json")
    assert code == 0, err
    answer = json.loads(out)
    top = answer["plays"][0]
    top["probs"].update(win=1.003, win_backgammon=-0.004)
    row = next(line for line in cli.render(answer).splitlines() if line.split()[:1] == ["1"])
    shown = [float(x) for x in row.split()[-5:]]
    assert shown[0] == 100.0 and shown[2] == 0.0 and all(0.0 <= x <= 100.0 for x in shown), row
    code, out, err = ask(capsys, nets, START_ID, "--json")
    assert code == 0, err
    answer = json.loads(out)
    answer["evaluation"]["probs"]["lose_backgammon"] = -0.002
    line = next(line for line in cli.render(answer).splitlines() if line.startswith("Cubeless:"))
    assert "lose_backgammon 0.0%" in line and "-0." not in line.split("equity")[0], line


def test_rollout_and_hint_rollout_have_one_default(capsys, nets):
    """With dice, `rollout` rolls the plays out cubeful in backgammon by default, as `hint --rollout`
    does (and as hint ranks): the same plays, trials and seed get the same cubeful values;
    --cubeless rolls them out without the cube."""
    bot = ["--bot", str(nets["backgammon"])]
    assert hint.main([START_ID, "--dice", "31", "--rollout", "4", "--top", "2", "--json", *bot]) == 0
    confirmed = json.loads(capsys.readouterr().out)["rollout"]
    plays = [p["move"] for p in confirmed["plays"]]
    assert evaluate_main(["rollout", START_ID, "--dice", "31", "--trials", "4", "--plays", ",".join(plays),
                          "--json", "--no-progress", *bot]) == 0
    rolled = json.loads(capsys.readouterr().out)
    assert rolled["settings"]["cubeful"] is True and confirmed["settings"]["cubeful"] is True
    assert all(p["cubeful"] is not None for p in rolled["plays"])
    values = {p["move"]: p["cubeful"]["value"] for p in rolled["plays"]}
    assert values == pytest.approx({p["move"]: p["cubeful"]["value"] for p in confirmed["plays"]}, abs=1e-6)
    code, out, err = ask(capsys, nets, START_ID, "--dice", "31", "--cubeless", "--json")
    assert code == 0, err
    cubeless = json.loads(out)
    assert cubeless["settings"]["cubeful"] is False and all(p["cubeful"] is None for p in cubeless["plays"])
    code, _, err = ask(capsys, nets, START_ID, "--dice", "31", "--cubeful", "--cubeless")
    assert code == 2 and err.count("\n") == 1 and "--cubeless" in err


def test_the_readme_rollout_example_ranks_several_plays(capsys):
    """README's rollout example, with the shipped net (a few short trials here), rolls out more than
    one play: its move filter keeps several plays of that roll."""
    line = next(line for line in (ROOT / "README.md").read_text().splitlines()
                if line.strip().startswith("nardibot rollout ") and "--dice" in line)
    args = line.split("#")[0].split()[2:]
    assert "--trials" in args
    args[args.index("--trials") + 1] = "2"
    before = compiled._forced
    assert evaluate_main(["rollout", *args, "--truncate", "1", "--processes", "1", "--json", "--no-progress"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert len(answer["plays"]) > 1 and answer["settings"]["cubeful"] is True
    assert compiled._forced is before  # the command ran every kernel, then gave this process its path back
