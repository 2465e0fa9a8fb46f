"""The external-player server (nardibot/cli/cmd_serve.py): legal one-step-per-die plays, cube and take answers from
model/cube/decisions.py at the board's score, resignations, bad lines, dropped connections, the command line,
and full matches against the real gnubg 1.07 (skipped only when it is not installed)."""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from engine.formats.fibs import FibsBoard, read_fibs_board, write_fibs_board
from engine.formats.position import read_json_position
from engine.movegen import legal_plays
from engine.notation import parse_play
from engine.tools.sample import random_positions
from model.bot import Bot
from model.players.net_player import NetPlayer
from nardibot.cli.cmd_serve import BotAgent, BotServer, ServeOptions, answer_line, main

ROOT = Path(__file__).resolve().parents[2]
WORKED = ("board:bot:gnubg:3:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:5:6:5:6:1:1:1:0:"
          "1:-1:0:25:0:0:0:0:0:0:0:1")
START = read_fibs_board(WORKED).position
BEAROFF = read_json_position("backgammon", {  # the bot has borne off 11, the opponent none, no contact
    "board": [2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -5, -5, -5, 0, 0, 0], "bar": [0, 0], "off": [11, 0]})
FAR_BEHIND = read_json_position("backgammon", {  # the bot has borne off none, outside the opponent's home
    "board": [-2, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], "bar": [0, 0], "off": [0, 13]})


class ConstantNet:
    """A stand-in network: the same probabilities for every position (seen by the side on roll)."""

    config = SimpleNamespace(game="backgammon", outputs=5)

    def __init__(self, probs, fail: bool = False):
        self.probs = np.asarray(probs, dtype=np.float64)
        self.fail = fail

    def eval(self):
        return self

    def probabilities(self, positions, device="cpu"):
        if self.fail:
            raise RuntimeError("the network is broken")
        return np.tile(self.probs, (len(positions), 1))


def net_bot(net) -> Bot:
    return Bot(NetPlayer(net), "backgammon", "stub", net)


def agent_of(bot, **options) -> tuple[BotAgent, list[str]]:
    log: list[str] = []
    return BotAgent(bot, ServeOptions(**options), log=log.append), log


def ask(agent, **fields) -> str:
    """The reply to a board built from ``fields`` (defaults: money, start position, bot = player 0 on roll)."""
    board = {"names": ("bot", "gnubg"), "match_length": 0, "scores": (0, 0), "position": START, "mover": 0,
             "dice": None, **fields}
    return answer_line(agent, write_fibs_board(FibsBoard(**board)) + "\n\x00")


@pytest.fixture(scope="module")
def pubeval():
    return Bot.load("pubeval")


def test_worked_request_gets_a_legal_play_one_step_per_die(pubeval):
    """FORMATS.md's request (5-6 for player 0) is answered with two single steps that make a legal play."""
    agent, log = agent_of(pubeval)
    reply = answer_line(agent, WORKED)
    steps = reply.split()
    assert len(steps) == 2 and all(len(s.split("/")) == 2 for s in steps)
    board = read_fibs_board(WORKED)
    children, _ = legal_plays("backgammon", board.position[None, :], np.array([board.dice]))
    after = parse_play("backgammon", board.position, board.dice, reply)
    assert (children == after).all(axis=1).any() and log == []


@pytest.mark.parametrize("mover", [0, 1])
def test_every_play_is_legal_and_empty_only_without_one(pubeval, mover):
    """Random positions and rolls from either seat: each reply re-reads as a legal play; "" only when no die plays."""
    agent, _ = agent_of(pubeval)
    rng = np.random.default_rng(10 + mover)
    kinds = ("opening", "midgame", "contact", "bar", "bearoff", "race")
    positions = np.concatenate([random_positions("backgammon", 8, seed=7, kind=k)[0] for k in kinds])
    for position in positions:
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        reply = ask(agent, position=position, mover=mover, dice=dice)
        children, _ = legal_plays("backgammon", position[None, :], np.array([dice]))
        if reply == "":
            assert len(children) == 1 and np.array_equal(children[0], position)
        else:
            assert len(reply.split()) <= (4 if dice[0] == dice[1] else 2)
            after = parse_play("backgammon", position, dice, reply)
            assert (children == after).all(axis=1).any()
    assert agent.stats.fallbacks == 0 and agent.stats.bad_lines == 0


@pytest.mark.parametrize("probs, reply", [
    ([0.5, 0.1, 0.0, 0.1, 0.0], "roll"),
    ([0.7, 0.1, 0.0, 0.05, 0.0], "double"),
])
def test_money_cube_question(probs, reply):
    """Money, centred cube: an even game is a roll, a 70% game with few gammons a double."""
    agent, _ = agent_of(net_bot(ConstantNet(probs)))
    assert ask(agent) == reply


def test_cube_question_uses_the_match_score():
    """The same probabilities are answered by the score: a gammonish 90% is a double for money (Jacoby) but too
    good at 0-0 of 5; 45% is a double for the post-Crawford trailer but not for money; none in the Crawford game."""
    gammonish = net_bot(ConstantNet([0.9, 0.6, 0.1, 0.0, 0.0]))
    assert ask(agent_of(gammonish)[0]) == "double"
    assert ask(agent_of(gammonish)[0], match_length=5) == "roll"
    weak = net_bot(ConstantNet([0.45, 0.1, 0.0, 0.1, 0.0]))
    assert ask(agent_of(weak)[0]) == "roll"
    assert ask(agent_of(weak)[0], match_length=5, scores=(2, 4), post_crawford=True) == "double"
    strong = net_bot(ConstantNet([0.95, 0.0, 0.0, 0.0, 0.0]))
    assert ask(agent_of(strong)[0], match_length=5, scores=(4, 2), crawford=True) == "roll"


@pytest.mark.parametrize("doubler, reply", [
    ([0.7, 0.1, 0.0, 0.05, 0.0], "take"),
    ([0.85, 0.05, 0.0, 0.01, 0.0], "drop"),
])
@pytest.mark.parametrize("seat", [0, 1])
def test_take_question_from_either_seat(doubler, reply, seat):
    """The doubled bot takes a 70% double and drops an 85% one, whichever seat it sits in."""
    agent, _ = agent_of(net_bot(ConstantNet(doubler)))
    assert ask(agent, mover=1 - seat, doubled=True, match_length=5) == reply


def test_beaver_only_when_allowed():
    """A bad double (doubler at 45%) is beavered only with beavers on; else taken (gnubg stalls on a refused beaver)."""
    bot = net_bot(ConstantNet([0.45, 0.1, 0.0, 0.1, 0.0]))
    assert ask(agent_of(bot, beavers=True)[0], mover=1, doubled=True) == "beaver"
    assert ask(agent_of(bot)[0], mover=1, doubled=True) == "take"


def test_resigns_a_lost_game_once_per_position():
    """A sure single loss is resigned; asked again in the same position (offer declined) the bot rolls; a new
    position may bring the offer again."""
    agent, _ = agent_of(net_bot(ConstantNet([0.0, 0.0, 0.0, 0.0, 0.0])))
    assert ask(agent, position=BEAROFF) == "resign n"
    assert ask(agent, position=BEAROFF) == "roll"
    moved = BEAROFF.copy()
    moved[[0, 1]] = [3, 1]
    assert ask(agent, position=moved) == "resign n"


def test_resignation_level_follows_score_and_rules():
    """A sure gammon loss: gammon in a match, single for money (Jacoby, centred cube), and never more than the
    rules allow (a side that has borne off cannot lose a gammon)."""
    gammon = net_bot(ConstantNet([0.0, 0.0, 0.0, 1.0, 0.0]))
    assert ask(agent_of(gammon)[0], position=FAR_BEHIND, match_length=5) == "resign g"
    assert ask(agent_of(gammon)[0], position=FAR_BEHIND) == "resign n"
    assert ask(agent_of(gammon)[0], position=BEAROFF, match_length=5) == "resign n"
    assert ask(agent_of(gammon, resign=False)[0], position=FAR_BEHIND, match_length=5) == "roll"


def test_resigns_instead_of_moving_when_every_play_loses():
    """On a move request the chosen play's probabilities decide: all plays lose for sure -> resign; asked
    again in the same position (the offer was declined) the bot plays a legal play."""
    agent, _ = agent_of(net_bot(ConstantNet([1.0, 0.0, 0.0, 0.0, 0.0])))  # the opponent, on roll after, wins
    assert ask(agent, position=BEAROFF, dice=(2, 1)) == "resign n"
    assert parse_play("backgammon", BEAROFF, (2, 1), ask(agent, position=BEAROFF, dice=(2, 1))) is not None


def test_baseline_bot_rolls_and_takes(pubeval):
    """A bot without probabilities never doubles and always takes."""
    agent, _ = agent_of(pubeval)
    assert ask(agent) == "roll" and ask(agent, mover=1, doubled=True) == "take"


def test_bad_lines_get_an_empty_reply_and_one_log_line(pubeval):
    """A malformed line is answered with "" and logged once; blank/NUL-only lines get no reply; serving goes on."""
    agent, log = agent_of(pubeval)
    assert answer_line(agent, "board:1:2:3") == ""
    assert len(log) == 1 and "bad line" in log[0] and "52 fields" in log[0]
    assert answer_line(agent, "\x00") is None and answer_line(agent, "  \r") is None
    assert parse_play("backgammon", START, (5, 6), answer_line(agent, "\x00" + WORKED)) is not None
    assert agent.stats.bad_lines == 1 and agent.stats.requests == 2


def test_a_failing_decision_sends_a_safe_default():
    """If deciding raises, the reply is still safe (a legal play, roll, take) and one line is logged."""
    agent, log = agent_of(net_bot(ConstantNet([0.5] * 5, fail=True)))
    assert parse_play("backgammon", START, (5, 6), answer_line(agent, WORKED)) is not None
    assert ask(agent) == "roll" and ask(agent, mover=1, doubled=True) == "take"
    assert len(log) == 3 and all("deciding failed" in line for line in log)


def _read_line(sock: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.decode()


def test_socket_server_survives_bad_lines_and_a_reset_connection(pubeval):
    """Over TCP: gnubg-style lines (NUL after each) are answered, garbage and over-long lines get "", a client
    that resets mid-line is logged as dropped, and the next client is served."""
    agent, log = agent_of(pubeval)
    server = BotServer(agent, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"max_connections": 2}, daemon=True)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
            client.sendall((WORKED + "\n\x00").encode())
            assert parse_play("backgammon", START, (5, 6), _read_line(client).strip()) is not None
            client.sendall(b"\x00not a board\n")
            assert _read_line(client) == "\n"
            client.sendall(b"x" * 5000)
            assert _read_line(client) == "\n"
            client.sendall(b"board:half a line")
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with RST
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as client:
            client.sendall((WORKED + "\n").encode())
            assert parse_play("backgammon", START, (5, 6), _read_line(client).strip()) is not None
        thread.join(timeout=10)
    finally:
        server.close()
    assert not thread.is_alive() and agent.stats.connections == 2
    assert sum("bad line" in line for line in log) == 2
    assert sum("dropped" in line or "closed" in line for line in log) == 2


class _Serving:
    """A BotServer on a free port of 127.0.0.1 serving in a thread for the ``with`` block, then closed."""

    def __init__(self, agent, **options):
        self.server = BotServer(agent, "127.0.0.1", 0, **options)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self.server

    def __exit__(self, *exc):
        self.server.close()
        self.thread.join(60)


def _connect(server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=120)  # a hang guard, not a measure


def test_a_silent_client_does_not_keep_another_waiting(pubeval):
    """Connections are served side by side: while one client is connected and says nothing (gnubg between
    its turns, or a hostile one), another is answered (it waited forever, the server serving one
    connection after another)."""
    agent, _ = agent_of(pubeval)
    with _Serving(agent) as server, _connect(server) as silent, _connect(server) as client:
        client.sendall((WORKED + "\n\x00").encode())
        assert parse_play("backgammon", START, (5, 6), _read_line(client).strip()) is not None
        silent.sendall((WORKED + "\n").encode())  # and the silent one is served when it speaks
        assert parse_play("backgammon", START, (5, 6), _read_line(silent).strip()) is not None
    assert agent.stats.connections == 2 and agent.stats.requests == 2


def _replies(server, data: bytes) -> list[str]:
    """Every reply line to ``data`` (the client then closes its side and reads to the end)."""
    with _connect(server) as client:
        client.sendall(data)
        client.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := client.recv(65536):
            received += chunk
    return received.decode().split("\n")[:-1]


def test_an_over_long_line_gets_one_reply(pubeval):
    """A 10 MB line: one empty reply and one log line (there was one per 4 KiB read: 1,226 empty lines),
    the rest of it skipped to its line end, and the next line answered."""
    agent, log = agent_of(pubeval)
    with _Serving(agent) as server:
        replies = _replies(server, b"x" * 10_000_000 + b"\n" + (WORKED + "\n").encode())
    assert len(replies) == 2 and replies[0] == ""
    assert parse_play("backgammon", START, (5, 6), replies[1]) is not None
    assert agent.stats.bad_lines == 1 and sum("over 4096 bytes" in line for line in log) == 1


def test_an_idle_client_is_let_go_and_one_too_many_waits_its_turn(pubeval):
    """A connection silent for ``idle_timeout`` seconds is closed (one log line). With ``max_clients``
    connections served, one more waits to be accepted until one of them leaves, then is served."""
    agent, log = agent_of(pubeval)
    with _Serving(agent, idle_timeout=0.2) as server, _connect(server) as idle:
        assert idle.recv(1) == b""  # the server closed it
    assert sum("idle" in line for line in log) == 1
    agent, log = agent_of(pubeval)
    with _Serving(agent, max_clients=1) as server:
        first = _connect(server)
        with first, _connect(server) as second:
            first.sendall((WORKED + "\n").encode())
            assert _read_line(first).strip()  # served, and still connected
            second.sendall((WORKED + "\n").encode())
            assert agent.stats.connections == 1  # the second is not accepted while the first stays
            first.close()
            assert parse_play("backgammon", START, (5, 6), _read_line(second).strip()) is not None
    assert agent.stats.connections == 2


@pytest.mark.parametrize("argv, message", [
    (["--port", "70000"], "--port must be 0..65535"),
    (["--ply", "7"], "--ply"),
    (["--resign-tolerance", "2"], "--resign-tolerance"),
    (["--bogus"], "unrecognized arguments"),
])
def test_bad_flags_exit_2_with_one_line(argv, message, capsys):
    """Bad flags: exit status 2 and one error line on stderr."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert exit_info.value.code == 2 and message in err and len(err.splitlines()) == 1


def test_missing_model_exits_2(tmp_path, capsys):
    """A checkpoint that does not exist: status 2, one line, no traceback."""
    assert main(["--model", str(tmp_path / "none.pt"), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot load" in err


def test_ctrl_c_stops_the_server_cleanly():
    """SIGINT while listening: exit status 0, a "stopped" line, no traceback."""
    code = "import sys; from nardibot.cli.cmd_serve import main; sys.exit(main(['--model', 'pubeval', '--port', '0']))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    try:
        first = proc.stderr.readline()
        assert "listening on 127.0.0.1:" in first
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=30)[1]
    finally:
        proc.kill()
    assert proc.returncode == 0 and "stopped" in rest and "Traceback" not in rest


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_server_started_in_the_background_stops_cleanly(signum):
    """Started with ``&`` by a shell that is not interactive, the server inherits SIGINT ignored; SIGINT
    (or SIGTERM, ``kill``) still stops it: exit status 0, a "stopped" line and the tally, no traceback."""
    code = "import sys; from nardibot.cli.cmd_serve import main; sys.exit(main(['--model', 'pubeval', '--port', '0']))"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"),
                            # SIGINT ignored in the child before exec, as `&` does: only preexec_fn can
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # noqa: PLW1509
    try:
        assert "listening on 127.0.0.1:" in proc.stderr.readline()
        proc.send_signal(signum)
        rest = proc.communicate(timeout=30)[1]
    finally:
        proc.kill()
    assert proc.returncode == 0 and "stopped" in rest and "requests from" in rest and "Traceback" not in rest


def test_an_address_in_use_exits_2_with_one_line(capsys):
    """A port that cannot be listened on is a start-up error like the others: one line, status 2."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = main(["--model", "pubeval", "--port", str(port)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and f"cannot listen on 127.0.0.1:{port}" in err


# --- against the real gnubg ------------------------------------------------------------------------

GNUBG = "/usr/games/gnubg"
needs_gnubg = pytest.mark.skipif(not os.access(GNUBG, os.X_OK), reason="Debian's gnubg is not installed")


def _driver():
    spec = importlib.util.spec_from_file_location("gnubg_vs_bot", ROOT / "scripts" / "gnubg_vs_bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class GnubgNet:
    """gnubg's own 0-ply evaluation (gnubg-nn package) behind the network interface, so the served bot plays
    well enough to double, take, drop and resign against gnubg."""

    config = SimpleNamespace(game="backgammon", outputs=5)

    def __init__(self):
        from model.players.gnubg import import_gnubg

        self.gnubg = import_gnubg()

    def eval(self):
        return self

    def probabilities(self, positions, device="cpu"):
        from model.players.gnubg import to_gnubg_boards

        boards = to_gnubg_boards(np.asarray(positions))
        return np.array([self.gnubg.probabilities(b.tolist(), 0) for b in boards], dtype=np.float64)


def _assert_clean(summary, length):
    assert summary["problems"] == [], summary["problems"]
    assert summary["finished"] and summary["server"]["fallbacks"] == 0 and summary["server"]["bad_lines"] == 0
    assert max(summary["score"].values()) >= length and summary["bot_plays"] >= 10
    assert all(game["points"] > 0 for game in summary["games"])


@needs_gnubg
def test_gnubg_plays_a_match_against_the_served_bot(pubeval):
    """gnubg 1.07 (0-ply) plays a full 3-point match against the served pubeval bot in seat 0 through its
    `external` player; every bot play on gnubg's own record is legal and every game ends with a result."""
    summary = _driver().play_vs_gnubg(pubeval, length=3, seed=1, timeout=60)  # a hang ends in the driver's timeout
    _assert_clean(summary, 3)


class IllegalAgent(BotAgent):
    """A sabotaged server that answers every roll with a play no rules allow."""

    def play(self, board):
        return "24/1" if super().play(board) else ""


@needs_gnubg
def test_the_gnubg_check_catches_illegal_plays(pubeval):
    """The check has teeth: gnubg turns an illegal reply into a forfeited (empty) play, and the check on
    gnubg's record reports it."""
    agent = IllegalAgent(pubeval, log=lambda message: None)
    summary = _driver().play_vs_gnubg(pubeval, length=1, seed=1, timeout=60, agent=agent)
    assert summary["problems"] and all("empty play, but a legal play existed" in p for p in summary["problems"])


@needs_gnubg
def test_gnubg_match_with_cube_actions_bot_in_seat_1():
    """A 5-point match with the bot in seat 1 and a bot that uses the cube (gnubg-nn's evaluation, or a tiny
    network without it): finished, all plays legal, and with gnubg-nn some double/take/drop was answered."""
    try:
        bot, cubeful = net_bot(GnubgNet()), True
    except ImportError:
        import torch

        from model.net.network import NetConfig, OutcomeNet

        torch.manual_seed(0)
        net = OutcomeNet(NetConfig("backgammon", (8,)))
        bot, cubeful = Bot(NetPlayer(net), "backgammon", "tiny", net), False
    summary = _driver().play_vs_gnubg(bot, length=5, seed=1, bot_side=1, timeout=60)
    _assert_clean(summary, 5)
    if cubeful:
        replies = summary["server"]["replies"]
        assert sum(replies.get(word, 0) for word in ("double", "take", "drop")) >= 1, replies
