"""Match analysis (model/analysis/): checker plays rated as hint rates them, cube errors of each kind, the
luck of rolls, gnubg's marks and the per-player statistics, rollouts of the worst decisions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine import game as g
from engine.formats.matfile import BEAVER, DOUBLE, DROP, MOVE, TAKE, Action, GameRecord, MatchRecord
from engine.formats.matreplay import ROLL, Step
from engine.formats.position import read_position_text
from engine.movegen import ALL_ROLLS, ROLL_WEIGHTS
from engine.notation import format_plays
from model.analysis import marks
from model.analysis.review import ReviewSettings, _luck, analyse_record, cube_losses
from model.analysis.rollouts import roll_out_worst
from model.bot import Bot
from model.cube import decisions as cube
from model.players.cube_policy import CubePolicy, cube_view
from model.service.hint import HintSettings, hint
from model.service.match_review import analyse_match
from model.service.query import Query
from tests.helpers import ROOT, bearoff

GNUBG_MATCH = ROOT / "tests" / "data" / "gnubg_3point.mat"


@pytest.fixture(scope="module")
def bot():
    return Bot.load()


def review(record, bot, ply: int = 0) -> dict:
    """model/analysis/review.py's analysis of ``record`` by the bot's network at ``ply``."""
    return analyse_record(record, bot.net, ReviewSettings(ply=ply), name=bot.name)


def money_game(*actions, winner=None, points=0):
    return MatchRecord(("alice", "bob"), 0, (GameRecord(tuple(actions), (0, 0), winner, points),))


def test_a_play_is_rated_as_hint_rates_it(bot):
    """The best play and the loss of the play made are hint's (same position, Match ID and ply), the
    play made is listed with its rank, and 13/9 with the opening 3-1 is very bad. At 1-ply the play
    made is looked at 1-ply even where hint's move filter leaves it at 0-ply."""
    for ply in (0, 1):
        [d] = review(money_game(Action(0, MOVE, (3, 1), "13/9")), bot, ply)["decisions"]
        pos, info = read_position_text("backgammon", f"{d['position_id']}:{d['match_id']}")
        answer = hint(bot, Query("backgammon", pos, info, np.array([3, 1])), HintSettings(ply=ply))
        assert d["best"] == answer["plays"][0]["move"] == "8/5 6/5" and d["evaluated"] == f"{ply}-ply"
        assert d["mark"] == "very bad" and d["choices"] == 16
        played = next(p for p in answer["plays"] if p["move"] == "13/9")
        mine = next(p for p in d["plays"] if p["move"] == "13/9")
        assert mine["ply"] == ply and played["ply"] == 0
        assert [p["rank"] for p in d["plays"]][:5] == [1, 2, 3, 4, 5] and d["played_rank"] == mine["rank"]
        if ply == 0:
            assert d["loss"] == pytest.approx(played["loss"], abs=1e-6) and mine["rank"] == played["rank"]
        else:
            assert d["loss"] == pytest.approx(answer["plays"][0]["equity"] - mine["equity"], abs=1e-6)
    best = review(money_game(Action(0, MOVE, (3, 1), "8/5 6/5")), bot)["decisions"][0]
    assert best["loss"] == 0 and best["mark"] is None and best["played_rank"] == 1


def test_cube_errors_at_the_opening(bot):
    """Doubling right after the opening 3-1 is a wrong double; passing it a wrong pass (losing 1 - DT),
    taking it right; the statistics count them as doubles, passes, takes and cube errors."""
    opening = [Action(0, MOVE, (3, 1), "8/5 6/5"), Action(1, DOUBLE)]
    dropped = review(money_game(*opening, Action(0, DROP), winner=1, points=1), bot)
    _, double, answer = dropped["decisions"]
    e = double["equities"]
    assert double["kind"] == "double" and double["action"] == "double" and double["right"] == "no double"
    assert double["error"] == "wrong double" and double["mark"] == "very bad"
    assert double["loss"] == pytest.approx(e["no_double"] - min(e["double_take"], e["double_pass"]))
    assert answer["kind"] == "take" and answer["action"] == "pass" and answer["right"] == "take"
    assert answer["error"] == "wrong pass" and answer["loss"] == pytest.approx(1 - e["double_take"])
    stats = dropped["statistics"]
    assert stats[1]["cube"]["doubles"] == 1 and stats[1]["cube"]["wrong_doubles"] == 1
    assert stats[0]["cube"]["passes"] == 1 and stats[0]["cube"]["wrong_passes"] == 1
    assert stats[1]["cube"]["error_rate"]["emg"] == pytest.approx(double["loss"])  # one actual decision
    assert dropped["games"][0]["ended"] == "dropped" and stats[0]["cube"]["error"]["mwc"] is None
    taken = review(money_game(*opening, Action(0, TAKE)), bot)
    assert taken["decisions"][2]["action"] == "take" and taken["decisions"][2]["loss"] == 0
    assert taken["decisions"][2]["error"] is None and taken["statistics"][0]["cube"]["takes"] == 1


def test_cube_losses_of_each_kind():
    """Missed double (not doubling when doubling is right), wrong double, wrong take, wrong pass, in
    normalised equity and MWC, from the doubler's numbers."""
    double_take = {"no_double": 0.5, "double_take": 0.7, "double_pass": 1.0, "doubling_right": True,
                   "no_double_mwc": 0.6, "double_take_mwc": 0.65, "double_pass_mwc": 0.7}
    assert cube_losses(double_take, ROLL, False) == pytest.approx(("no double", 0.2, 0.05, "missed double"))
    assert cube_losses(double_take, DOUBLE, False)[1:] == (0.0, 0.0, None)
    assert cube_losses(double_take, TAKE, False)[1:] == (0.0, 0.0, None)
    assert cube_losses(double_take, DROP, False) == pytest.approx(("pass", 0.3, 0.05, "wrong pass"))
    too_good = {"no_double": 1.2, "double_take": 1.5, "double_pass": 1.0, "doubling_right": False}
    assert cube_losses(too_good, DOUBLE, True) == pytest.approx(("double", 0.2, None, "wrong double"))
    assert cube_losses(too_good, TAKE, True) == pytest.approx(("take", 0.5, None, "wrong take"))
    assert cube_losses(too_good, ROLL, True)[1] == 0.0


def test_luck_averages_to_zero_over_the_rolls(bot):
    """The luck of a roll is measured against the average over the 21 rolls: weighted by 1/36 and
    2/36 the luck of all rolls of one position sums to 0, for money and at a match score; and the
    opening throw's luck is the value of its best play (the 30 opening throws average to 0)."""
    pos, _ = read_position_text("backgammon", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    pos = pos.copy()
    pos[[5, 7]] += [-1, 1]  # not the start: 6-point to 8-point
    policy0 = CubePolicy.for_bot(bot, 0)
    for rules in (g.Rules(jacoby=True), g.Rules(match_length=5)):
        state = g.resume_game(g.MatchState(rules, score=(0, 0) if rules.money else (1, 3)), pos, 0)
        steps = [Step(MOVE, 0, g.roll(state, tuple(r)), 0) for r in ALL_ROLLS]
        views = [cube_view(state, 0)] * len(steps)
        lucks = np.array(_luck(policy0, steps, views, [False] * len(steps)), dtype=float)
        assert abs(ROLL_WEIGHTS @ lucks[:, 0]) < 1e-6 and lucks[:, 0].std() > 0.05
        if not rules.money:
            assert abs(ROLL_WEIGHTS @ lucks[:, 1]) < 1e-6
    opening = review(money_game(Action(0, MOVE, (3, 1), "8/5 6/5")), bot)["decisions"][0]
    assert opening["luck"] == pytest.approx(opening["plays"][0]["equity"], abs=1e-6) and opening["luck"] > 0.1
    assert marks.luck_mark(opening["luck"]) == opening["luck_mark"]


def test_gnubgs_match_is_analysed_with_forced_plays_and_mwc(bot):
    """gnubg's own export of a 3-point match: every play rated, plays of no die are forced (not
    unforced), MWC figures beside the equity, the marks are gnubg's thresholds, and the whole report
    is JSON."""
    report = analyse_match(bot, GNUBG_MATCH.read_text())
    moves = [d for d in report["decisions"] if d["kind"] == "move"]
    assert len(moves) == 53 and report["match_length"] == 3 and report["players"] == ["alice", "bob"]
    assert any(d["played"] == "" and d["choices"] == 1 for d in moves)
    for d in moves:
        assert d["mark"] == marks.mark(d["loss"]) and d["loss"] >= 0 and d["loss_mwc"] >= 0
    stats = report["statistics"]
    for p, s in enumerate(stats):
        mine = [d for d in moves if d["player"] == p]
        unforced = [d for d in mine if d["choices"] > 1]
        assert s["moves"] == len(mine) and s["unforced_moves"] == len(unforced)
        assert s["checker_error_rate"]["emg"] == pytest.approx(sum(d["loss"] for d in unforced) / len(unforced))
        assert s["luck_rate"]["mwc"] == pytest.approx(sum(d["luck_mwc"] for d in mine) / len(mine))
    assert stats[1]["checker_error_rate"]["emg"] > 2 * stats[0]["checker_error_rate"]["emg"]  # the noisy side
    assert json.loads(json.dumps(report))["decisions"][0]["position_id"] == "4HPwATDgc/ABMA"


def test_statistics_count_and_divide_as_gnubg():
    """Rates: checker errors per unforced move, cube errors per close-or-actual decision, overall per
    both; a forced play's zero loss is not counted; marks and luck marks counted by kind."""
    def move(loss, choices=10, luck=0.0):
        return {"player": 0, "kind": "move", "loss": loss, "loss_mwc": loss / 2, "choices": choices,
                "mark": marks.mark(loss), "luck": luck, "luck_mwc": luck / 2, "luck_mark": marks.luck_mark(luck)}

    def cube_dec(action, loss, close, error=None):
        return {"player": 0, "kind": "double", "action": action, "loss": loss, "loss_mwc": loss / 2,
                "close": close, "error": error, "mark": marks.mark(loss)}

    decisions = [move(0.0, 1, 0.7), move(0.05, luck=-0.4), move(0.2, luck=0.1), cube_dec("no double", 0.0, False),
                 cube_dec("no double", 0.04, True, "missed double"), cube_dec("double", 0.0, True),
                 {**move(9.0), "player": 1}]
    s = marks.player_statistics(decisions, 0, match=True)
    assert (s["moves"], s["unforced_moves"], s["unmarked"]) == (3, 2, 1)
    assert s["marked"] == {"doubtful": 1, "bad": 0, "very bad": 1}
    assert s["checker_error_rate"] == pytest.approx({"emg": 0.125, "mwc": 0.0625})
    assert s["luck"] == {"very lucky": 1, "lucky": 0, "unlucky": 1, "very unlucky": 0}
    assert s["luck_rate"]["emg"] == pytest.approx(0.4 / 3)
    c = s["cube"]
    assert (c["decisions"], c["close_or_actual"], c["doubles"], c["missed_doubles"]) == (4 - 1, 2, 1, 1)
    assert c["error_rate"]["emg"] == pytest.approx(0.02) and c["marked"]["doubtful"] == 1
    assert s["overall_error_rate"]["emg"] == pytest.approx((0.25 + 0.04) / 4)
    assert marks.mark(0.0299) is None and marks.mark(0.03) == "doubtful" and marks.mark(0.06) == "bad"
    assert marks.mark(0.12) == "very bad" and marks.luck_mark(-0.6) == "very unlucky"


def test_the_worst_decision_is_rolled_out(bot):
    """--rollout: a bad bear-off play is rolled out against the best one with common dice; its loss
    and mark then come from the rollout, and the analysis-depth loss is kept."""
    pos = bearoff([2, 2, 2, 2, 0, 0], [0, 1, 2, 2, 2, 2])
    view = cube.money(jacoby=False)
    policy = CubePolicy.for_bot(bot, 0)
    state = g.roll(g.resume_game(g.MatchState(g.Rules()), pos, 0), (6, 1))
    value, _, _ = policy.rank_plays(state.plays, np.zeros(len(state.plays), dtype=np.int64), [view])
    order = np.argsort(-value)
    texts = format_plays("backgammon", pos, (6, 1), state.plays[[order[0], order[-1]]])
    d = {"kind": "move", "mark": "very bad", "loss": float(value[order[0]] - value[order[-1]]), "dice": [6, 1],
         "best": texts[0], "played": texts[1], "loss_mwc": None}
    assert roll_out_worst(bot.net, [d, {**d, "mark": None}], [(pos, view)] * 2, trials=8, at_most=5) == 1
    assert d["evaluated"] == "rollout 8" and d["ply_loss"] > 0 and d["rollout"]["trials"] == 8
    values = d["rollout"]["values"]
    assert d["loss"] == pytest.approx(max(0.0, values[texts[0]] - values[texts[1]]))
    assert d["mark"] == marks.mark(d["loss"])
    # analyse --rollout's default, a process per core: the same trials and dice, the same values to rounding
    forked = {**d, "mark": "very bad", "loss": d["ply_loss"]}
    assert roll_out_worst(bot.net, [forked], [(pos, view)], trials=8, at_most=5, processes=2) == 1
    assert forked["rollout"]["values"] == pytest.approx(values, abs=1e-6)


def test_the_nets_own_plays_and_cube_actions_lose_nothing_at_its_own_depth(bot):
    """One copy of every decision: a 3-point match the shipped net played through the cube arena (the
    same CubePolicy at 0-ply) against pubeval, analysed at 0-ply, finds no error at all in the net's
    checker plays and cube actions, and some in pubeval's."""
    from model.arena.cubeful import mat_records, play_matches
    from model.players.cube_players import make_cube_player

    net = make_cube_player(str(ROOT / "checkpoints" / "backgammon.safetensors"), "backgammon")
    result = play_matches(net, make_cube_player("pubeval", "backgammon"), g.Rules(match_length=3), matches=2,
                          seed=5, record=True)
    for record in mat_records(result):
        stats = review(record, bot)["statistics"]
        assert stats[0]["moves"] > 10 and stats[0]["cube"]["decisions"] > 0
        assert stats[0]["checker_error"] == {"emg": 0.0, "mwc": 0.0} and stats[0]["cube"]["error"]["emg"] == 0
        assert stats[1]["checker_error"]["emg"] > 0


def test_a_beaver_is_rated_as_the_doubled_sides_take(bot):
    """Issue 43: a beaver (the doubled side takes and redoubles at once) is the answer to the double: rated
    as a take would be (a wrong take only where a pass was right), counted among the takes; the game goes
    on at four times the cube, owned by the beavering side."""
    opening = [Action(0, MOVE, (3, 1), "8/5 6/5"), Action(1, DOUBLE)]
    reply = Action(1, MOVE, (6, 4), "24/18 13/9")
    record = MatchRecord(("alice", "bob"), 0, (GameRecord((*opening, Action(0, BEAVER), reply)),), beavers=True)
    a = review(record, bot)
    _, double, answer, move = a["decisions"]
    assert double["action"] == "double" and answer["kind"] == "take" and answer["action"] == "beaver"
    e = double["equities"]
    assert answer["loss"] == pytest.approx(max(0.0, e["double_take"] - e["double_pass"])) and answer["error"] is None
    assert move["cube"] == {"value": 4, "owner": "opponent", "score": [0, 0], "crawford": False}
    assert a["statistics"][0]["cube"]["takes"] == 1 and a["statistics"][0]["cube"]["decisions"] == 1
    assert cube_losses({"no_double": 1.2, "double_take": 1.5, "double_pass": 1.0, "doubling_right": False},
                       BEAVER, True) == pytest.approx(("beaver", 0.5, None, "wrong take"))


def test_a_record_played_without_the_cube_has_no_cube_decisions(bot):
    """Issue 43: the same games analysed as played with the cube have cube decisions at every turn a side
    could double; said to be played without it, none (no missed doubles), and the plays are valued by
    cubeless equity, gammons counting."""
    plays = [Action(0, MOVE, (3, 1), "8/5 6/5"), Action(1, MOVE, (6, 4), "24/18 13/9"),
             Action(0, MOVE, (5, 2), "13/8 13/11"), Action(1, MOVE, (4, 3), "13/10 13/9")]
    with_cube = review(MatchRecord(("alice", "bob"), 0, (GameRecord(tuple(plays)),)), bot)
    assert [d["kind"] for d in with_cube["decisions"]].count("double") == 3 and with_cube["cube"] is True
    cubeless = review(MatchRecord(("alice", "bob"), 0, (GameRecord(tuple(plays)),), cube=False), bot)
    assert [d["kind"] for d in cubeless["decisions"]] == ["move"] * 4
    assert cubeless["cube"] is False and cubeless["jacoby"] is False
    assert all(s["cube"]["decisions"] == s["cube"]["missed_doubles"] == 0 for s in cubeless["statistics"])
    first = cubeless["decisions"][0]
    pos, _ = read_position_text("backgammon", first["position_id"])
    answer = hint(bot, Query("backgammon", pos, None, np.array([3, 1])), HintSettings(checker="cubeless"))
    assert [p["move"] for p in first["plays"]] == [p["move"] for p in answer["plays"][:5]]
    assert first["plays"][0]["equity"] == pytest.approx(answer["plays"][0]["cubeless_equity"], abs=1e-6)
