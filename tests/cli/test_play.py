"""The terminal game (nardibot/cli/cmd_play.py): whole games of both games driven through stdin, bad input
answered with the reason and a new prompt, bad flags refused, and the bot's cube and resignation rule."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from engine import game as g
from engine.board import start_position
from engine.formats.matfile import DOUBLE, read_mat
from engine.notation import format_play
from model.players.cube_policy import CubePolicy
from model.service import game_turn as turn
from model.service.game_turn import BOT, HUMAN
from nardibot.cli.cmd_play import Console, Table
from nardibot.cli.play_hint import HINT_TOP
from tests.helpers import GNUBG, ROOT, gnubg_import, replay, save_tiny_checkpoints


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """A tiny untrained network per game, saved as a checkpoint (its probabilities drive the cube rule)."""
    return save_tiny_checkpoints(tmp_path_factory.mktemp("ck"))


def run_cli(args, text: str | bytes = b"", timeout=120) -> subprocess.CompletedProcess:
    """``python -m nardibot.cli.cmd_play args`` with ``text`` on stdin."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    data = text.encode() if isinstance(text, str) else text
    return subprocess.run([sys.executable, "-m", "nardibot.cli.cmd_play", *map(str, args)], input=data,
                          capture_output=True, cwd=ROOT, env=env, timeout=timeout, check=False)


@pytest.mark.parametrize("game", ["backgammon", "nardi"])
def test_scripted_match_to_the_end(game, checkpoints):
    """A whole 3-point match of each game, the person's side typed by --autoplay-human, ends cleanly."""
    args = ["--game", game, "--match", 3, "--bot", checkpoints[game], "--seed", 3, "--autoplay-human"]
    done = run_cli(args)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert "match over: you" in out
    final = out.rsplit("match over: you ", 1)[1].split(":")[0]  # "X, bot Y"
    you, bot = int(final.split(",")[0]), int(final.split("bot ")[1])
    assert max(you, bot) >= 3
    assert out.count("your move (") > 5 and "the bot rolls" in out


def test_garbage_input_gets_reasons_and_new_prompts(checkpoints):
    """Unreadable text, an illegal move, actions the phase refuses and stray bytes each get their reason
    and the same prompt again; the end of input ends the session with a message, no traceback."""
    lines = b"hello\n24/1\ndouble\ntake\nroll\n\xff\xfe\nresign bogus\naccept\n"
    done = run_cli(["--bot", checkpoints["backgammon"], "--seed", 5, "--you-first"], lines)
    out, err = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == 0 and "Traceback" not in err and err == ""
    assert "cannot read 'hello'" in out
    assert "24/1: 23 pips is not a die of" in out
    assert "no double: a side may double only before its roll" in out
    assert "no take: there is no double to answer" in out
    assert "no roll now: the dice are already thrown" in out
    assert "resign bogus: say resign single" in out
    assert "no resignation offer waits for an answer" in out
    assert out.count("your move (") == 9  # the first prompt and one after each of the 8 bad lines
    assert "input ended: the session ends here" in out


def test_quit_and_bad_flags(checkpoints):
    """quit ends the session cleanly; bad flags and a missing bot give one line on stderr and status 2."""
    done = run_cli(["--bot", "heuristic", "--seed", 1, "--you-first"], "quit\n")
    assert done.returncode == 0 and "you quit" in done.stdout.decode()
    for args in (["--game", "chess"], ["--bot", "/nonexistent/x.pt"], ["--match", 3, "--games", 2],
                 ["--match", 99], ["--game", "nardi", "--bot", checkpoints["backgammon"]],
                 ["--mat", "/nonexistent/x.mat"], ["--mat", str(ROOT)]):
        done = run_cli(args)
        err = done.stderr.decode()
        assert done.returncode == 2, (args, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)


class Typist:
    """An input stream that types, for each prompt, the first legal play in the notation (or an answer),
    computed from the table's state as a person reading the board would."""

    def __init__(self):
        self.table: Table | None = None
        self.typed: list[str] = []
        self.moved = False  # a move was typed and waits for its confirmation (Enter)

    def readline(self) -> str:
        state = self.table.state
        if self.moved:
            self.moved = False
            return "\n"
        if state.resignation is not None:
            line = "accept"
        elif state.phase is g.Phase.TAKE:
            line = "drop"
        elif state.phase is g.Phase.ROLL:
            line = "roll"
        else:
            line = format_play(state.game, state.position, state.plays[0], state.dice)
            self.moved = True
        self.typed.append(line)
        return line + "\n"


def test_typed_moves_play_a_nardi_game(checkpoints):
    """A long-nardi game played through typed move text (parse_play), against a checkpoint, to its end."""
    from model.bot import Bot

    typist, out = Typist(), io.StringIO()
    table = Table(Bot.load(str(checkpoints["nardi"]), game="nardi"), g.Rules(game="nardi", session_games=1),
                  np.random.default_rng(7), Console(typist, out), you_first=True)
    typist.table = table
    assert table.run() == 0
    text = out.getvalue()
    assert "session over" in text and table.match.is_over
    assert sum("/" in line for line in typist.typed) > 10  # real moves were typed and accepted
    assert "not a legal play" not in text and "cannot read" not in text


class StubNet:
    """A network that always gives the same probabilities (seen by the side on roll)."""

    def __init__(self, probs, game="backgammon"):
        self.probs = np.asarray(probs, dtype=np.float64)
        self.config = type("Config", (), {"game": game, "outputs": len(probs)})()

    def eval(self):
        return self

    def probabilities(self, positions, device=None):
        return np.tile(self.probs, (len(positions), 1))


def StubBot(probs, game="backgammon"):  # named like the class it stands for
    """A Bot whose network is a StubNet."""
    from model.bot import Bot
    from model.players.net_player import NetPlayer

    net = StubNet(probs, game)
    return Bot(NetPlayer(net, name="stub"), game, "stub", net)


def stub_policy(probs, game="backgammon"):
    """The decisions (model/players/cube_policy.py) of a StubBot."""
    return CubePolicy.for_bot(StubBot(probs, game))


def _state(mover, rules=None, cube=1, owner=None, score=(0, 0)):
    match = g.MatchState(rules=rules or g.Rules(), score=score)
    return g.resume_game(match, start_position("backgammon"), mover, cube=cube, cube_owner=owner)


def test_bot_cube_rule_follows_model_cube():
    """The bot doubles a near-certain win and not an even game, drops a hopeless take, takes a fair one,
    and never doubles where the rules forbid it (cube owned by the person)."""
    sure, even = stub_policy([0.97, 0.0, 0.0, 0.0, 0.0]), stub_policy([0.5, 0.1, 0.0, 0.1, 0.0])
    assert turn.bot_doubles(sure, _state(BOT))
    assert not turn.bot_doubles(even, _state(BOT))
    assert not turn.bot_doubles(sure, _state(BOT, cube=2, owner=HUMAN))
    doubled = g.double(_state(HUMAN))
    # the stub's probabilities are seen by the side on roll, the doubling person
    assert turn.take_advice(stub_policy([0.95, 0.0, 0.0, 0.0, 0.0]), doubled, BOT) == "pass"
    assert turn.take_advice(stub_policy([0.6, 0.0, 0.0, 0.0, 0.0]), doubled, BOT) == "take"


def test_bot_resigns_and_answers_resignations():
    """A lost bot offers the level it loses by; it accepts an offer worth its equity, not a smaller one."""
    lost_gammon = stub_policy([0.0, 0.0, 0.0, 1.0, 0.0])
    assert turn.bot_resignation(lost_gammon, _state(BOT)) == 2
    assert turn.bot_resignation(stub_policy([0.0, 0.0, 0.0, 0.0, 0.0]), _state(BOT)) == 1
    assert turn.bot_resignation(stub_policy([0.3, 0.0, 0.0, 0.0, 0.0]), _state(BOT)) is None
    offer = g.offer_resignation(_state(HUMAN), HUMAN, 1)  # the stub's view is the person's, on roll
    assert turn.bot_accepts(stub_policy([0.2, 0.0, 0.0, 0.0, 0.0]), offer)  # bot's equity +0.6 < 1
    assert not turn.bot_accepts(stub_policy([0.1, 0.0, 0.0, 0.9, 0.0]), offer)  # bot expects a gammon


def test_person_doubles_and_bot_answers():
    """The person types double; the bot drops a hopeless position (game over, the person scores the cube)
    and takes a fair one (the cube turns to 2, owned by the bot)."""
    for probs, result in (([0.97, 0.0, 0.0, 0.0, 0.0], "dropped"), ([0.55, 0.0, 0.0, 0.0, 0.0], "took")):
        out = io.StringIO()
        console = Console(io.StringIO("double\n"), out)
        table = Table(StubBot(probs), g.Rules(), np.random.default_rng(0), console, you_first=True)
        table.state = _state(HUMAN)
        table.person_acts()
        assert table.state.phase is g.Phase.TAKE and "you double to 2" in out.getvalue()
        table.bot_acts()
        if result == "dropped":
            result = table.state.result
            assert table.state.is_over and result.winner == HUMAN and result.points == 1
        else:
            assert (table.state.cube, table.state.cube_owner, table.state.phase) == (2, BOT, g.Phase.ROLL)


def test_person_answers_a_bot_double():
    """When the bot doubles the person is asked take or drop; a wrong word gets the reason; drop ends it."""
    out = io.StringIO()
    table = Table(StubBot([0.9, 0.0, 0.0, 0.0, 0.0]), g.Rules(match_length=5), np.random.default_rng(0),
                  Console(io.StringIO("maybe\ndrop\n"), out), you_first=False)
    table.state = _state(BOT, rules=g.Rules(match_length=5))
    table.bot_acts()
    assert table.state.phase is g.Phase.TAKE
    table.person_acts()
    text = out.getvalue()
    assert "the bot doubles to 2" in text and "'maybe': the bot doubled: type take, drop" in text
    assert table.state.is_over and table.state.result.how == "dropped" and table.state.result.winner == BOT


def test_hint_lists_legal_plays_best_first(checkpoints):
    """hint shows the bot's top plays (evaluate.py hint's table), best first, each a legal play of the roll."""
    from engine.notation import parse_play
    from model.bot import Bot

    out = io.StringIO()
    table = Table(Bot.load(str(checkpoints["backgammon"])), g.Rules(), np.random.default_rng(0),
                  Console(io.StringIO(), out), you_first=True)
    table.state = g.roll(_state(HUMAN), (5, 1))
    table.hint()
    lines = out.getvalue().splitlines()
    head = next(k for k, line in enumerate(lines) if "Play" in line and "Equity" in line)
    rows = lines[head + 1:]
    assert len(rows) == min(HINT_TOP, len(table.state.plays))
    equities = [float(row[33:42]) for row in rows]  # the Equity column (nardibot/cli/cmd_hint.py's render)
    assert equities == sorted(equities, reverse=True)
    legal = {bytes(p) for p in table.state.plays}
    for row in rows:
        move = row[5:29].strip()
        assert bytes(parse_play("backgammon", table.state.position, (5, 1), move)) in legal


def test_random_input_never_escapes(checkpoints):
    """Random commands, move-like junk and control characters, many lines of them, in matches and money
    sessions of both games: every line is answered, and the session ends cleanly at the end of input."""
    from model.bot import Bot

    rnd = np.random.default_rng(0)
    words = ["roll", "double", "take", "drop", "beaver", "accept", "reject", "resign", "resign gammon",
             "resign 3", "resign mars", "hint", "board", "help", "", "24/18", "13/7 8/7", "bar/22", "6/off",
             "8/5(2)", "25/0", "0/5", "13/7*", "24/18/13", "b/20", "o/1", "1/off(4)", "13/7(9)", "//", "(((",
             "24/-1", "99/1", "13 7", "13/7,8/7", "\u00e4/\u00fc", "\x00", "1e9/1"]
    sessions = [("backgammon", 0), ("backgammon", 3), ("nardi", 0), ("nardi", 3)]
    for trial, (game, length) in enumerate(sessions):
        bot = Bot.load(str(checkpoints[game]), game=game)
        lines = "\n".join(rnd.choice(words) for _ in range(200)) + "\n"
        rules = g.Rules(game=game, match_length=length, session_games=0 if length else 2)
        out = io.StringIO()
        console = Console(io.StringIO(lines), out)
        table = Table(bot, rules, np.random.default_rng(trial), console, you_first=trial % 2 == 0)
        assert table.run() == 0
        assert "input ended" in out.getvalue() or "over: you" in out.getvalue()


def NardiStub(probs):
    """The stub policy for long nardi: [win, win mars, lose mars]."""
    return stub_policy(probs, game="nardi")


def test_nardi_bot_resigns_and_answers():
    """Long nardi: a lost bot offers a mars when it loses one, a single game otherwise; it accepts the
    person's offer worth at least its cubeless equity."""
    match = g.new_match(g.Rules(game="nardi"))
    state = g.resume_game(match, start_position("nardi"), BOT)
    assert turn.bot_resignation(NardiStub([0.0, 0.0, 1.0]), state) == 2
    assert turn.bot_resignation(NardiStub([0.0, 0.0, 0.0]), state) == 1
    assert turn.bot_resignation(NardiStub([0.5, 0.1, 0.1]), state) is None
    offer = g.offer_resignation(g.resume_game(match, start_position("nardi"), HUMAN), HUMAN, 1)
    assert turn.bot_accepts(NardiStub([0.3, 0.0, 0.0]), offer)  # bot: equity +0.4 < 1 point
    assert not turn.bot_accepts(NardiStub([0.05, 0.0, 0.8]), offer)  # bot expects a mars


def test_mat_saves_the_session_for_gnubg(checkpoints, tmp_path):
    """``evaluate.py play --mat``: the whole match (a double and take included) as .mat, the person "human"
    on the left and the bot its checkpoint stem, every game with legal plays and the printed result;
    gnubg imports it with the same games (if installed). A session cut short keeps the game in play
    (unfinished); nardi is refused with one line, status 2."""
    mat = tmp_path / "session.mat"
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "play", "--bot", str(checkpoints["backgammon"]),
                           "--match", "3", "--seed", "1", "--autoplay-human", "--mat", str(mat)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    printed = [line for line in done.stdout.splitlines() if line.startswith(("you win ", "the bot wins "))]
    record = read_mat(mat.read_text())
    assert record.names == ("human", "backgammon") and record.match_length == 3
    assert [(game.winner, game.points) for game in record.games] == [
        (HUMAN if line.startswith("you") else BOT, int(line.rsplit(": ", 1)[1].split()[0])) for line in printed]
    assert any(action.kind == DOUBLE for game in record.games for action in game.actions)
    replay(record)
    if os.access(GNUBG, os.X_OK):
        imported = gnubg_import(mat, tmp_path)
        assert [(game["info"]["winner"], game["info"]["points-won"]) for game in imported["games"]] == [
            ("XO"[game.winner], game.points) for game in record.games]
    cut = run_cli(["--bot", "heuristic", "--seed", 1, "--you-first", "--mat", tmp_path / "cut.mat"], "quit\n")
    assert cut.returncode == 0
    [unfinished] = read_mat((tmp_path / "cut.mat").read_text()).games
    assert unfinished.winner is None and unfinished.scores == (0, 0)
    nardi = run_cli(["--game", "nardi", "--mat", tmp_path / "nardi.mat"])
    err = nardi.stderr.decode()
    assert nardi.returncode == 2 and len(err.strip().splitlines()) == 1 and "backgammon only" in err


def test_nardi_is_told_in_nardi_words():
    """Long nardi: help names no bar, cube or gammon; resign gammon is refused with the nardi words and
    resign mars is understood; the board has no bar column and says the games' score."""
    out = io.StringIO()
    table = Table(_heuristic("nardi"), g.Rules(game="nardi", session_games=2), np.random.default_rng(1),
                  Console(io.StringIO("help\nresign gammon\nresign mars\nyes\n"), out), you_first=True)
    table.run()
    text = out.getvalue()
    help_line = next(line for line in text.splitlines() if "commands:" in line)
    assert all(word not in help_line for word in ("bar/", "double", "take", "beaver", "gammon"))
    assert "resign [win|mars]" in help_line and "no bar" in help_line
    assert "resign gammon: say resign win or mars" in text and "wins a mars (resigned)" in text
    assert "BAR" not in text and "+---+" not in text and "cube 1" not in text and "owns the cube" not in text
    assert text.startswith("nardi, 2 games: you (X)") and " score 0-0" in text


def _heuristic(game):
    from model.bot import Bot

    return Bot.load("heuristic", game=game)
