"""The public Bot API: loading, choose/rank/choose_batch on every position form, errors."""

import numpy as np
import pytest
import torch

from engine.board import start_position
from engine.compiled import use_numba
from engine.errors import FormatError
from engine.formats.position import read_json_position, write_json_position
from engine.movegen import legal_plays
from engine.notation import parse_play
from model import Bot
from model.net.checkpoint import CheckpointError, save
from model.net.network import NetConfig, OutcomeNet

START_ID = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A small random backgammon network saved as a checkpoint."""
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("ck") / "tiny.pt"
    save(path, OutcomeNet(NetConfig("backgammon", (8,))))
    return path


def test_rank_lists_every_legal_play_once_best_first(tiny):
    """rank() returns each distinct legal result once, sorted by equity, moves that parse back."""
    bot = Bot.load(str(tiny))
    plays = bot.rank(START_ID, [6, 4])
    start = start_position("backgammon")
    kids, _ = legal_plays("backgammon", start[None], np.array([[6, 4]]))
    got = {tuple(read_json_position("backgammon", p["position"])) for p in plays}
    assert got == {tuple(k) for k in kids} and len(plays) == len(kids)
    equities = [p["equity"] for p in plays]
    assert equities == sorted(equities, reverse=True) and plays[0]["loss"] == 0
    for p in plays:
        after = parse_play("backgammon", start, (6, 4), p["move"])
        assert tuple(after) == tuple(read_json_position("backgammon", p["position"]))
        assert set(p["probs"]) == {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}


def test_position_forms_agree(tiny):
    """A Position ID, an XGID, a gnubg ID, the JSON dict and its text all give the same choice."""
    bot = Bot.load(str(tiny))
    json_form = write_json_position(start_position("backgammon"))
    forms = [START_ID, START_ID + ":cAkAAAAAAAAA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
             json_form, str(json_form).replace("'", '"'), start_position("backgammon")]
    moves = {bot.choose(f, (3, 1))["move"] for f in forms}
    assert len(moves) == 1
    batch = bot.choose_batch([START_ID, START_ID], ["31", "3-1"])
    assert batch[0] == batch[1] == bot.choose(START_ID, [3, 1])


def test_baselines_and_nardi_load_by_name():
    """Baseline names work as bots; a nardi position with the nardi heuristic gives a legal play."""
    assert Bot.load("pubeval").choose(START_ID, [6, 5])["move"] == "24/13"
    nardi = Bot.load("heuristic", game="nardi")
    start = write_json_position(start_position("nardi"))
    assert nardi.choose(start, [6, 5])["move"] == "24/13"


def test_bad_input_is_refused_with_a_reason(tiny, tmp_path):
    """Malformed positions, dice, names and files raise errors that say what is wrong."""
    bot = Bot.load(str(tiny))
    with pytest.raises(FormatError):
        bot.choose("not-an-id!!", [3, 1])
    with pytest.raises(FormatError, match="dice"):
        bot.choose(START_ID, [7, 1])
    with pytest.raises(FormatError):
        bot.choose({"board": [1] * 24, "bar": [0, 0], "off": [0, 0]}, [3, 1])
    start = start_position("backgammon")
    bad = start.copy()
    bad[5] += 1  # arrays are checked together, and one bad array among them is named as one alone is
    with pytest.raises(FormatError, match="16 checkers"):
        bot.choose_batch([start] * 8 + [bad], [[3, 1]] * 9)
    with pytest.raises(FormatError, match="16 checkers"):  # the same batch as one (9, 28) array
        bot.choose_batch(np.stack([start] * 8 + [bad]), [[3, 1]] * 9)
    with pytest.raises(ValueError):
        Bot.load("no-such-bot")
    with pytest.raises(CheckpointError, match="not found"):
        Bot.load(str(tmp_path / "missing.pt"))
    with pytest.raises(CheckpointError, match="not nardi"):
        Bot.load(str(tiny), game="nardi").choose(START_ID, [3, 1])


def test_baseline_rank_follows_its_own_scores():
    """pubeval's rank lists every play by its pubeval score, its own choice first."""
    plays = Bot.load("pubeval").rank(START_ID, [6, 4])
    scores = [p["score"] for p in plays]
    assert scores == sorted(scores, reverse=True) and len(plays) == 14
    assert plays[0]["move"] == Bot.load("pubeval").choose(START_ID, [6, 4])["move"]


@pytest.mark.parametrize("case", ["backgammon 0-ply", "backgammon 1-ply", "match score", "cube owned", "nardi"])
def test_rank_is_the_hints_ranking(case):
    """Bot.rank lists the plays in the order ``nardibot hint`` lists them, with the same equities, for
    the same position and dice (the hint service with its defaults at the bot's depth): the library and
    the command cannot disagree, at a match score or an owned cube too."""
    from engine.formats.position import MatchInfo, write_match_id, write_position_id
    from engine.tools.sample import random_positions
    from model.service.hint import HintSettings, hint
    from model.service.query import query_from_object

    game = "nardi" if case == "nardi" else "backgammon"
    plies = 1 if case == "backgammon 1-ply" else 0
    bot = Bot.load(f"checkpoints/{game}.safetensors" + ("+1ply" if plies else ""), game=game)
    positions, rolls = random_positions(game, 4, seed=21)[:2]
    for position, roll in zip(positions, rolls):
        dice = [int(d) for d in roll]
        text = write_json_position(position) if game == "nardi" else write_position_id(position)
        if case == "match score":
            text += ":" + write_match_id(MatchInfo(match_length=7, scores=(2, 5), dice=tuple(dice)))
        elif case == "cube owned":
            text += ":" + write_match_id(MatchInfo(cube_value=2, cube_owner=1, dice=tuple(dice)))
        plays = bot.rank(text, dice)
        answer = hint(bot, query_from_object(game, {"position": text, "dice": dice}, None), HintSettings(ply=plies))
        assert [p["move"] for p in plays] == [p["move"] for p in answer["plays"]]
        value = "mwc" if case == "match score" else "equity" if game == "backgammon" else "cubeless_equity"
        assert [round(p["mwc" if case == "match score" else "equity"], 6) for p in plays] == [
            p[value] for p in answer["plays"]]


def test_one_bot_answers_money_and_match_positions_in_any_order_as_fresh_bots_do():
    """A bot keeps the money view of positions without an ID between calls: a Match ID's score and cube
    still rank by their own view, before and after, as a freshly loaded bot ranks each."""
    from engine.formats.position import MatchInfo, write_match_id

    match = START_ID + ":" + write_match_id(MatchInfo(match_length=7, scores=(2, 5), cube_value=2, cube_owner=1,
                                                      dice=(6, 4)))
    bot = Bot.load()
    answers = [bot.rank(text, [6, 4]) for text in (START_ID, match, START_ID, match)]
    fresh = [Bot.load().rank(text, [6, 4]) for text in (START_ID, match)]
    assert answers == fresh + fresh
    assert answers[0][0]["equity"] is not None and answers[1][0]["mwc"] is not None


@pytest.mark.parametrize("name,game", [(None, "backgammon"), ("pubeval", "backgammon"), ("tiny", "backgammon"),
                                       (None, "nardi")])
def test_choose_batch_is_the_first_play_of_rank_batch(tiny, name, game):
    """choose_batch (the best play only, its notation from the generator's steps) gives the very dicts
    rank_batch lists first, bit for bit; choose is rank's first entry, one position at a time."""
    from engine.tools.sample import random_positions

    bot = Bot.load(str(tiny) if name == "tiny" else name, game=game)
    positions, dice = random_positions(game, 80, seed=5)
    positions, dice = list(positions), list(dice)
    assert bot.choose_batch(positions, dice) == [plays[0] for plays in bot.rank_batch(positions, dice)]
    assert bot.choose_batch(np.stack(positions), dice) == bot.choose_batch(positions, dice)  # one (B, 28) array
    if name is None and game == "backgammon":  # and with the compiled kernels (the notation of all at once)
        previous = use_numba(True)
        try:
            assert bot.choose_batch(positions, dice) == [plays[0] for plays in bot.rank_batch(positions, dice)]
        finally:
            use_numba(previous)
    for p, d in zip(positions[:10], dice[:10]):
        assert bot.choose(p, d) == bot.rank(p, d)[0]
    if game == "backgammon":
        assert bot.choose(START_ID, "43") == bot.rank(START_ID, "43")[0]


def test_arrays_a_cast_would_change_are_refused_one_at_a_time_and_in_a_batch():
    """An array entry that int8 does not hold as it is (261 would wrap to 5, 2.5 be cut to 2, nan) is a
    FormatError naming it, for one position and for a batch (whose arrays are checked at once), not
    an answer for another position; whole floats are read as they are."""
    start = start_position("backgammon").astype(np.int64)
    wrapped, half = start.copy(), start.astype(float)
    wrapped[5] += 256
    half[5] += 0.5
    bot = Bot.load()
    for bad, shown in ((wrapped, "261"), (half, "5.5"), (np.full(28, np.nan), "nan")):
        with pytest.raises(FormatError, match=f"whole numbers of checkers, got {shown}$"):
            bot.choose(bad, "31")
        for batch in ([start] * 8 + [bad], np.stack([start] * 8 + [bad])):
            with pytest.raises(FormatError, match=f"got {shown}$"):
                bot.choose_batch(batch, ["31"] * 9)
    assert bot.choose_batch([start.astype(float)] * 9, ["31"] * 9) == bot.choose_batch([start] * 9, ["31"] * 9)


def test_an_empty_batch_gets_an_empty_answer():
    """choose_batch and rank_batch of no positions: no plays (not numpy's error about stacking nothing);
    positions without rolls, or rolls without positions: the usual FormatError."""
    bot = Bot.load()
    assert bot.choose_batch([], []) == [] and bot.rank_batch(np.zeros((0, 28), dtype=np.int8), []) == []
    with pytest.raises(FormatError, match="1 positions but 0 rolls"):
        bot.choose_batch([START_ID], [])
    with pytest.raises(FormatError, match="0 positions but 1 rolls"):
        bot.rank_batch([], ["43"])


def test_hint_gives_each_plays_single_steps_when_asked():
    """model.service.hint's ``steps=True``: each play carries the single steps that play_steps gives
    for it (what the wildbg and bgweb doors answer with); without it, no "steps" entry."""
    from engine.notation import play_steps
    from model.service.hint import hint
    from model.service.query import query_of_text

    bot = Bot.load()
    query = query_of_text("backgammon", "4HPwATDgc/ABMA", "66")
    plain, with_steps = hint(bot, query), hint(bot, query, steps=True)
    assert all("steps" not in play for play in plain["plays"])
    assert [{k: v for k, v in play.items() if k != "steps"} for play in with_steps["plays"]] == plain["plays"]
    for play in with_steps["plays"]:
        child = read_json_position("backgammon", play["position"])
        assert [tuple(s) for s in play["steps"]] == list(play_steps("backgammon", query.position, child, (6, 6)))
        assert len(play["steps"]) == 4


def test_a_pruned_look_ahead_picks_inner_plays_among_pubevals_best():
    """hint's ``prune`` K: inside the 2-ply look-ahead each roll's play is the net's best among pubeval's
    K best, so the values move a little (not at all at 0 ply) and the ranking of the opening 4-3 keeps
    its best play; a negative K is refused."""
    from model.service.hint import HintSettings, hint
    from model.service.query import query_of_text

    bot = Bot.load()
    query = query_of_text("backgammon", "4HPwATDgc/ABMA", "43")
    full, pruned = (hint(bot, query, HintSettings(ply=2, prune=k)) for k in (0, 8))
    assert full["plays"][0]["move"] == pruned["plays"][0]["move"]
    gaps = [abs(a["equity"] - b["equity"]) for a, b in zip(full["plays"], pruned["plays"]) if a["ply"] == 2]
    assert 0 < max(gaps) < 0.05
    assert hint(bot, query, HintSettings(ply=0, prune=8)) == hint(bot, query, HintSettings(ply=0))
    with pytest.raises(ValueError, match="prune"):
        HintSettings(ply=2, prune=-1)


@pytest.mark.parametrize("text, dice", [("4HPwATDgc/ABMA", "43"), ("4HPwATDgc/ABMA", "66"), ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "52")])
def test_a_hints_figures_are_pythons_round_of_the_ranked_values(text, dice):
    """hint rounds every play's figures to 6 decimals with numpy at once: each is exactly Python's
    round(v, 6) of the ranking's unrounded value (and a loss is never below 0)."""
    from model.net.equity import OUTPUT_NAMES, cubeless_equity
    from model.service.hint import HintSettings, hint, rank_positions
    from model.service.query import cube_view_of, query_of_text

    bot = Bot.load()
    query = query_of_text("backgammon", text, dice)
    answer = hint(bot, query, HintSettings())
    view = cube_view_of(query.position, query.info, None)
    [ranking] = rank_positions(bot, query.position[None], query.dice[None], [view], HintSettings())
    cubeless = cubeless_equity("backgammon", ranking.probs)
    assert [p["move"] for p in answer["plays"]] == list(ranking.moves)
    for j, play in enumerate(answer["plays"]):
        assert play["probs"] == {n: round(float(v), 6) for n, v in zip(OUTPUT_NAMES["backgammon"], ranking.probs[j])}
        assert play["cubeless_equity"] == round(float(cubeless[j]), 6)
        assert play["equity"] == round(float(ranking.value[j]), 6)
        assert play["loss"] == round(max(0.0, float(ranking.value[0] - ranking.value[j])), 6) >= 0
