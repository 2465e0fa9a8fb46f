"""The terminal game with the money options and the player's comforts (nardibot/cli/cmd_play.py): scripted
sessions for automatic doubles, Jacoby, beavers both ways, undo before confirming, resignations
confirmed and refused, every refused-double reason, dice high first, pips and score before every
decision, colour only on a terminal, and a hint that is ``evaluate.py hint``'s table."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from engine import game as g
from engine.board import flip, start_position
from engine.formats.matfile import read_mat
from engine.notation import format_play
from model.players.cube_policy import CubePolicy, cube_view
from model.service.game_turn import BOT, HUMAN, bot_doubles
from nardibot.cli import cmd_play as play_cli
from nardibot.cli.cmd_play import Console, Table
from nardibot.cli.terminal import wants_colour
from tests.cli.test_play import StubBot, run_cli
from tests.helpers import ROOT, save_tiny_checkpoints


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    return save_tiny_checkpoints(tmp_path_factory.mktemp("ck"))


def heuristic():
    from model.bot import Bot

    return Bot.load("heuristic")


class Script:
    """Input typed line by line; ``FIRST`` types the first legal play of the person's roll, ``SECOND``
    the second. Typed lines are kept in ``typed``."""

    FIRST, SECOND = object(), object()

    def __init__(self, *lines):
        self.lines, self.table, self.typed = list(lines), None, []

    def readline(self) -> str:
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        if line is Script.FIRST or line is Script.SECOND:
            state = self.table.state
            line = format_play(state.game, state.position, state.plays[int(line is Script.SECOND)], state.dice)
        self.typed.append(line)
        return line + "\n"


def table_for(bot, rules, *lines, seed=0, you_first=True, opening=None):
    """A Table fed by a Script of ``lines``; ``opening``: the opening throws to use."""
    script, out = Script(*lines), io.StringIO()
    table = Table(bot, rules, np.random.default_rng(seed), Console(script, out), you_first=you_first)
    script.table = table
    if opening is not None:
        table.opening = lambda: opening
    return table, out


def resume(rules, position, mover, cube=1, owner=None, score=(0, 0), crawford_played=False, dice=None):
    match = g.MatchState(rules=rules, score=score, crawford_played=crawford_played)
    return g.resume_game(match, position, mover, cube=cube, cube_owner=owner, dice=dice)


# --- automatic doubles, Jacoby, beavers ---------------------------------------------------------


@pytest.mark.parametrize(("limit", "ties", "cube"), [(1, 1, 2), (2, 3, 4), (10, 7, 64)])
def test_automatic_doubles_start_the_cube_centred(limit, ties, cube):
    """Each opening tie doubles the cube, never past the limit or 64; it stays in the middle, so the
    person may double it on the next turn (unless it is at 64, which the person is told)."""
    rules = g.Rules(automatic_doubles=limit, session_games=1)
    opening = ((3, 3),) * ties + ((6, 1),)
    table, out = table_for(heuristic(), rules, Script.FIRST, "", "double", "quit", opening=opening)
    with pytest.raises(play_cli.EndOfInput):
        table.play_game()
    text = out.getvalue()
    assert text.count("a tie, thrown again") == ties
    assert f"automatic doubles: the cube starts at {cube}, in the middle" in text
    assert f"cube {cube}, centred" in text and f"automatic doubles up to {limit}" in text
    if cube < 64:
        assert f"you double to {cube * 2}" in text and table.state.cube == cube * 2
    else:  # no roll-or-double prompt at 64: the person typed double at the move prompt
        assert "no double: the cube is at 64: it goes no higher than 64" in text
        assert table.state.cube == 64 and table.state.cube_owner is None


def test_money_flags_reach_the_header_and_bad_ones_are_refused():
    """--jacoby --beavers --automatic-doubles 2 are named in the first line and under the board; money
    options in a match, in long nardi or without the cube are refused with one line and status 2."""
    done = run_cli(["--bot", "heuristic", "--jacoby", "--beavers", "--automatic-doubles", 2, "--seed", 1,
                    "--you-first"], "quit\n")
    out = done.stdout.decode()
    assert done.returncode == 0 and done.stderr == b""
    assert out.splitlines()[0].startswith("backgammon, money play (Jacoby on, beavers on, automatic doubles up to 2)")
    assert "money play, score 0-0; Jacoby on, beavers on, automatic doubles up to 2" in out
    assert "\033[" not in out  # not a terminal: no colour
    for args in (["--match", 3, "--jacoby"], ["--game", "nardi", "--beavers"], ["--no-cube", "--automatic-doubles", 1],
                 ["--automatic-doubles", "-1"], ["--automatic-doubles", "x"]):
        bad = run_cli(args)
        err = bad.stderr.decode()
        assert bad.returncode == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)


def _gammon_position():
    """The person on roll bears off its last checker (on its 1-point); the bot has borne off none."""
    pos = np.zeros(28, dtype=np.int8)
    pos[0], pos[26] = 1, 14
    pos[18:24] = -np.array([3, 3, 3, 2, 2, 2])  # the bot's home board (our 19..24 points)
    return pos


@pytest.mark.parametrize(("jacoby", "cube", "owner", "points"),
                         [(True, 1, None, 1), (True, 2, None, 2), (False, 1, None, 2), (True, 2, BOT, 4)])
def test_jacoby_counts_a_gammon_single_while_the_cube_is_unturned(jacoby, cube, owner, points):
    """A gammon with the Jacoby rule and an unturned cube (also one at 2 from an automatic double)
    scores the cube once; without the rule, or with a turned cube, twice."""
    rules = g.Rules(jacoby=jacoby, automatic_doubles=1, session_games=1)
    table, _ = table_for(heuristic(), rules, "roll")
    table.state = resume(rules, _gammon_position(), HUMAN, cube=cube, owner=owner)
    while not table.state.is_over:
        table.person_acts() if table.state.to_act == HUMAN else table.bot_acts()
    result = table.state.result
    assert (result.winner, result.level, result.points) == (HUMAN, 2, points)
    assert g.finish_game(table.state.match, table.state).score == (points, 0)


def test_the_bot_doubles_by_the_jacoby_rule():
    """Winning 80% with many gammons, the bot plays on for the gammon without Jacoby but doubles (cash)
    with it: its cube decisions see the option."""
    probs = [0.8, 0.45, 0.0, 0.0, 0.0]
    for jacoby, doubles in ((False, False), (True, True)):
        state = resume(g.Rules(jacoby=jacoby), start_position("backgammon"), BOT)
        assert bot_doubles(CubePolicy.for_bot(StubBot(probs)), state) is doubles
        assert cube_view(state, BOT).jacoby is jacoby


def test_beaver_by_the_bot_and_by_the_person():
    """The person doubles a position the bot likes: the bot beavers (cube 4, its own); without the
    option it only takes. The bot doubles: the person beavers (cube 4, the person's), or is told why not."""
    for beavers, cube in ((True, 4), (False, 2)):
        rules = g.Rules(beavers=beavers)
        table, out = table_for(StubBot([0.3, 0.0, 0.0, 0.0, 0.0]), rules, "double")
        table.state = resume(rules, start_position("backgammon"), HUMAN)
        table.person_acts()
        table.bot_acts()
        assert (table.state.cube, table.state.cube_owner, table.state.mover) == (cube, BOT, HUMAN)
        said = "the bot beavers: it takes and redoubles to 4, keeping the cube" if beavers else "the bot takes"
        assert said in out.getvalue()
    for beavers in (True, False):
        rules = g.Rules(beavers=beavers)
        table, out = table_for(StubBot([0.9, 0.0, 0.0, 0.0, 0.0]), rules, "beaver", "take")
        table.state = resume(rules, start_position("backgammon"), BOT)
        table.bot_acts()
        table.person_acts()
        text = out.getvalue()
        assert "the bot doubles to 2" in text
        if beavers:
            assert "take, drop, beaver (to 4)?" in text and "you beaver: you take and redouble to 4" in text
            assert (table.state.cube, table.state.cube_owner) == (4, HUMAN)
        else:
            assert "no beaver: beavers are not allowed (the option is off)" in text
            assert (table.state.cube, table.state.cube_owner) == (2, HUMAN)


# --- the terminal ----------------------------------------------------------------------------------


def test_undo_before_confirming():
    """A typed move is drawn on the board and waits: undo takes it back, another move is typed, Enter
    makes it final; roll at the confirmation also makes it final; a stray word gets the reason."""
    rules = g.Rules()
    table, out = table_for(heuristic(), rules, Script.FIRST, "maybe", "undo", Script.SECOND, "")
    table.state = g.roll(resume(rules, start_position("backgammon"), HUMAN), (3, 1))
    first, second = (format_play("backgammon", table.state.position, table.state.plays[k], (3, 1)) for k in (0, 1))
    table.person_acts()
    text = out.getvalue()
    assert f"you play {first}: Enter to confirm, undo to move again" in text
    assert f"'maybe': press Enter to play {first}, or type undo to move again" in text and f"{first} taken back" in text
    assert table.state.mover == BOT  # the second move was played
    np.testing.assert_array_equal(flip("backgammon", table.state.position), _child_of(second))
    rolled_on, _ = table_for(heuristic(), rules, Script.FIRST, "roll")
    rolled_on.state = g.roll(resume(rules, start_position("backgammon"), HUMAN), (3, 1))
    rolled_on.person_acts()
    assert rolled_on.state.mover == BOT and rolled_on.state.turns == 1


def _child_of(move: str) -> np.ndarray:
    from engine.notation import parse_play

    return parse_play("backgammon", start_position("backgammon"), (3, 1), move)


def test_resignation_confirmed_and_refused():
    """resign says what it gives away and asks; no keeps playing; yes offers, and the bot accepts a
    lost position's offer. A gammon that can no longer be lost is capped to a single game, times the cube."""
    rules = g.Rules()
    lost = [0.0, 0.0, 0.0, 0.0, 0.0]  # seen by the side on roll, the person: it loses for sure
    table, out = table_for(StubBot(lost), rules, "resign", "no", "resign backgammon", "yes")
    position = start_position("backgammon").copy()
    position[5], position[26] = 4, 1  # the person has borne off one checker: no gammon any more
    table.state = resume(rules, position, HUMAN, cube=2, owner=HUMAN)
    table.person_acts()
    text = out.getvalue()
    assert "resign a single game: the bot would score 2 points (single x cube 2). Offer it? (yes/no)" in text
    assert "not resigned: play on" in text
    assert "you can no longer lose a backgammon: the most you can offer is a single game" in text
    assert text.count("Offer it? (yes/no)") == 2 and "the bot accepts your resignation" in text
    result = table.state.result
    assert (result.winner, result.how, result.points) == (BOT, "resigned", 2)


def test_the_bot_rejects_a_resignation_worth_less_than_playing_on():
    """The bot expects a gammon: it rejects the person's single-game offer and play goes on; the person
    may not offer again before a roll has been played."""
    rules = g.Rules()
    table, out = table_for(StubBot([0.05, 0.0, 0.0, 0.9, 0.0]), rules, "resign", "y", "resign", "quit")
    table.state = resume(rules, start_position("backgammon"), HUMAN, cube=2, owner=HUMAN)
    with pytest.raises(play_cli.EndOfInput):
        table.person_acts()
    text = out.getvalue()
    assert "the bot rejects your resignation" in text and not table.state.is_over
    assert "no resignation: player 0's offer was rejected" in text


@pytest.mark.parametrize(("jacoby", "offer", "points"), [(False, "a gammon", 2), (True, "a single game", 1)])
def test_the_bot_offers_with_the_value(jacoby, offer, points):
    """A bot that loses a gammon for sure offers it with what the person would score; under the Jacoby
    rule with the cube centred a gammon counts single, so it offers a single game. The person rejects,
    then accepts the next game's offer."""
    rules = g.Rules(jacoby=jacoby)
    table, out = table_for(StubBot([0.0, 0.0, 0.0, 1.0, 0.0]), rules, "reject")
    table.state = resume(rules, start_position("backgammon"), BOT)
    table.bot_acts()
    table.person_acts()
    text = out.getvalue()
    worth = f"you would score {points} point{'s' * (points > 1)}"
    assert f"the bot offers to resign {offer}: {worth}" in text and f"({worth}" in text
    assert f"resign {offer} ({worth}" in text and "accept or reject?" in text
    assert not table.state.is_over and table.state.resignation is None
    table, out = table_for(StubBot([0.0, 0.0, 0.0, 1.0, 0.0]), rules, "accept")
    table.state = resume(rules, start_position("backgammon"), BOT)
    table.bot_acts()
    table.person_acts()
    assert (table.state.result.winner, table.state.result.points) == (HUMAN, points)


@pytest.mark.parametrize(("rules", "state", "reason"), [
    (g.Rules(), {"cube": 2, "owner": BOT}, "the cube belongs to the bot: only the cube's owner may double"),
    (g.Rules(match_length=5), {"score": (4, 2)}, "no doubling in the Crawford game"),
    (g.Rules(match_length=5), {"score": (3, 0), "cube": 2, "owner": HUMAN},
     "dead cube: winning this game at 2 already gives you the match (3 + 2 >= 5)"),
    (g.Rules(cube=False), {}, "this game is played without the cube"),
    (g.Rules(match_length=1), {}, "a one-point match has no cube"),
    (g.Rules(game="nardi"), {}, "long nardi has no doubling cube"),
    (g.Rules(), {}, "a side may double only before its roll"),
])
def test_a_refused_double_names_the_real_reason(rules, state, reason):
    """double typed at the move prompt: the reason that holds for the whole turn is named (the bot's
    cube, the Crawford game, a dead cube, no cube in this game) before the dice already thrown."""
    table, out = table_for(heuristic() if rules.game == "backgammon" else _nardi_bot(), rules, "double", "quit")
    position = start_position(rules.game).copy()
    if rules.game == "nardi":  # three checkers off the head, so that 3-1 has more than one play
        position[23], position[20], position[17], position[15] = 12, 1, 1, 1
    table.state = resume(rules, position, HUMAN, dice=(3, 1), **state)
    with pytest.raises(play_cli.EndOfInput):
        table.person_acts()
    assert f"no double: {reason}" in out.getvalue()


def _nardi_bot():
    from model.bot import Bot

    return Bot.load("heuristic", game="nardi")


def test_dice_high_first_pips_and_score_before_every_decision():
    """A scripted money session: every roll is written high die first; before each decision the board
    shows both sides' pips and the score."""
    done = run_cli(["--bot", "heuristic", "--games", 2, "--seed", 4, "--autoplay-human"])
    out = done.stdout.decode()
    assert done.returncode == 0 and "session over" in out
    rolls = re.findall(r"(?:your move \(|the bot rolls |you roll |rolled )(\d)-(\d)", out)
    assert len(rolls) > 40 and all(a >= b for a, b in rolls)
    chunks = re.split(r"your move \(|you play .*: Enter|roll or double\? |take, drop", out)
    for chunk in chunks[:-1]:
        board = chunk[chunk.rfind(" 13 14 15"):]  # the last board drawn before the prompt
        assert board.count("pips ") == 2 and re.search(r"money play, score \d+-\d+", chunk), chunk[-400:]


def test_colour_only_on_a_terminal():
    """Colour on a terminal; none under NO_COLOR (non-empty), TERM=dumb, or off a terminal."""

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert wants_colour(Tty(), {})
    assert wants_colour(Tty(), {"NO_COLOR": ""})
    assert not wants_colour(Tty(), {"NO_COLOR": "1"})
    assert not wants_colour(Tty(), {"TERM": "dumb"})
    assert not wants_colour(io.StringIO(), {})
    for colour in (True, False):
        out = io.StringIO()
        table = Table(heuristic(), g.Rules(), np.random.default_rng(0), Console(io.StringIO(), out, colour=colour),
                      you_first=True)
        table.state = resume(g.Rules(), start_position("backgammon"), HUMAN)
        table.show()
        assert ("\033[1;33m X \033[0m" in out.getvalue()) is colour
        assert ("\033[" in out.getvalue()) is colour


def test_hint_is_the_table_of_evaluate_hint(checkpoints):
    """hint during play prints exactly what ``evaluate.py hint ID --no-board`` prints for the Position ID
    and Match ID in its header: the plays of the roll, and before the roll the cube decision."""
    from model.bot import Bot

    rules = g.Rules(jacoby=True)
    bot = Bot.load(str(checkpoints["backgammon"]))
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    for dice in ((5, 1), None):
        out = io.StringIO()
        table = Table(bot, rules, np.random.default_rng(0), Console(io.StringIO(), out), you_first=True)
        table.state = resume(rules, start_position("backgammon"), HUMAN, cube=2, owner=HUMAN, dice=dice)
        table.hint()
        shown = out.getvalue()
        ids = re.search(r"Position ID: (\S+)\s+Match ID: (\S+)", shown)
        done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "hint", f"{ids[1]}:{ids[2]}", "--bot",
                               str(checkpoints["backgammon"]), "--no-board"], capture_output=True, text=True,
                              cwd=ROOT, env=env, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert shown == done.stdout
        assert ("Dice 5-1" in shown) == (dice is not None) and ("Cube decision" in shown) == (dice is None)
        assert "money game, Jacoby on" in shown and "cube 2 me" in shown


def test_mat_says_the_money_options_and_the_starting_cube(checkpoints, tmp_path):
    """play --mat with Jacoby and automatic doubles: the .mat names the options, and a game that began
    after an opening tie says its starting cube; read back, the games' points are the printed ones."""
    seed = next(s for s in range(200) if len(g.throw_opening(np.random.default_rng(s))) > 1)  # a tie first
    mat = tmp_path / "money.mat"
    done = run_cli(["--bot", "heuristic", "--jacoby", "--automatic-doubles", 3, "--games", 2, "--seed", seed,
                    "--autoplay-human", "--mat", mat])
    assert done.returncode == 0, done.stderr.decode()
    text = mat.read_text()
    assert text.startswith('; [Jacoby "On"]\n; [Beaver "On"]\n; [AutomaticDoubles "3"]\n')  # beavers: the default
    record = read_mat(text)
    assert (record.jacoby, record.beavers, record.automatic_doubles) == (True, True, 3)
    assert record.games[0].cube >= 2 and f'; [Cube "{record.games[0].cube}"]' in text
    printed = [int(line.rsplit(": ", 1)[1].split()[0]) for line in done.stdout.decode().splitlines()
               if line.startswith(("you win ", "the bot wins "))]
    assert [game.points for game in record.games] == printed


def test_a_money_game_without_stated_options_has_one_default():
    """A money game of backgammon whose options are not stated is played with the Jacoby rule and
    beavers (gnubg's defaults) by play as by hint and rollout on a bare Position ID;
    --no-jacoby/--no-beavers turn them off; a match, long nardi and no cube have none and are not
    refused for it."""
    from model.service.query import cube_view_of

    view = cube_view_of(start_position("backgammon"), None, None)
    done = run_cli(["--bot", "heuristic", "--seed", 1, "--you-first"], "quit\n")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines()[0].startswith(
        "backgammon, money play (Jacoby on, beavers on, automatic doubles off)")

    def rules(*args):
        return play_cli._rules(play_cli.build_parser().parse_args([str(a) for a in args]))

    assert (rules().jacoby, rules().beavers) == (view.jacoby, view.beavers) == (True, True)
    assert (rules("--no-jacoby").jacoby, rules("--no-jacoby").beavers) == (False, True)
    assert (rules("--no-beavers").jacoby, rules("--no-beavers").beavers) == (True, False)
    for args in (["--match", 3], ["--game", "nardi"], ["--no-cube"]):
        assert (rules(*args).jacoby, rules(*args).beavers) == (False, False), args
