"""Serve the bot over gnubg's external-player protocol, so gnubg and FIBS-style clients can play it.

    nardibot serve --port 4321 [--model PATH|NAME] [--ply 0|1|2] [--no-resign] [--max-clients N]
                   [--idle-timeout S] [--verbose]

then, in gnubg 1.07: ``set player 0 external 127.0.0.1:4321`` and ``new match 5`` (or ``new session``).
The protocol (docs/FORMATS.md, "FIBS board string", observed from gnubg 1.07): the client connects
once and keeps the socket across games; for each decision it writes one board line (engine/formats/fibs.py:
``board:`` + 52 fields + ``\\n``, then a NUL that shows up at the start of the next read) and waits
for exactly one reply line:

    a play of the dice   the play ONE STEP PER DIE in an order it can be played (``24/18 18/13``,
                         ``bar/22``, ``6/off``); an empty line when no die can be played
    roll or double       ``roll`` / ``double`` (dice 0 0: gnubg asks only when the bot may double)
    a take question      ``take`` / ``drop`` (``beaver`` only with beavers on: gnubg stalls otherwise)
    any turn             ``resign n|g|b`` when the game is lost anyway (``BoardAgent.resignation``)

gnubg does not check an external play before applying it (an illegal one forfeits the roll, an
unparsable one corrupts its board), so every play is checked here before it is sent: it must be one
of engine.movegen.legal_plays' children, and its text, read back by engine.notation.parse_play, must
give that child. A line that is no board gets one log line and an empty reply (a line over MAX_LINE
bytes: one, its rest skipped to its line end), and the server keeps serving; a dropped connection gets
one log line. Connections are served side by side, each in a thread of its own (so that one client
that stays connected and silent, as gnubg does between its turns, keeps no other waiting), one
decision at a time; at most ``--max-clients`` at once (more wait to be accepted), and one silent for
``--idle-timeout`` seconds is closed. Ctrl-C (SIGINT) or ``kill`` (SIGTERM) stops it cleanly with
a line of what it answered and exit status 0, also when it was started in the background (``&``),
where a shell that is not interactive starts it with SIGINT ignored. Every start-up error (bad
flags, a model that cannot be loaded, an address that cannot be listened on) is one line on stderr
and exit status 2.

Decisions are model/service/game_turn.py's ``BoardAgent``: model/players/cube_policy.py's ``CubePolicy``
at ``plies``, the policy hint, play and the cube arena use: the play with the best cubeful value at the
board's cube and score (money equity, or match-winning chance in a match), cube actions and
resignations from gnubg's cube theory on the bot's probabilities, with the match length, scores and
Crawford flag of the board. Here they are only written in the protocol's words and checked.
The board does not say whether Jacoby or beavers are in force: Jacoby is assumed on in money play
(gnubg's default) and beavers off unless asked for. A baseline bot (pubeval...) has no probabilities:
it picks plays with its own rule, never doubles, always takes, never resigns.
"""

from __future__ import annotations

import argparse
import copy
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from engine.errors import FormatError
from engine.formats.fibs import CUBE, MOVE, TAKE, FibsBoard, read_fibs_board
from engine.formats.match_id import shortened
from engine.movegen import legal_plays
from engine.notation import parse_play, steps
from model.bot import Bot
from model.service.game_turn import AgentSettings, BoardAgent
from nardibot.cli.common import OneLineParser

MAX_LINE = 4096
"""A request longer than this (bytes, no line end yet) is dropped as garbage."""
MAX_CLIENTS = 16
"""Connections served at once (``--max-clients``); more wait to be accepted."""
IDLE_TIMEOUT = 3600.0
"""Seconds a connection may stay silent before it is closed (``--idle-timeout``; 0: never): long
enough for a person to think between the bot's turns in gnubg."""
LOG_CUT = 200
"""Characters of an error's message a log line shows at most."""
RESIGN_WORDS = {1: "n", 2: "g", 3: "b"}
"""gnubg's ``resign`` argument for a single, gammon, backgammon."""


ServeOptions = AgentSettings
"""How the served bot decides (model/service/game_turn.py's ``AgentSettings``: the board line does not
carry every rule in force)."""


@dataclass
class ServeStats:
    """What a server has answered so far (read by tests and printed on exit)."""

    connections: int = 0
    requests: int = 0
    bad_lines: int = 0
    fallbacks: int = 0  # plays whose checked text failed and were replaced (must stay 0)
    replies: dict = field(default_factory=dict)  # reply word ("move", "roll", "take"...) -> count

    def count(self, reply: str) -> None:
        """Count one reply under its first word ("roll", "resign"...), "move" or "no play"."""
        word = "no play" if not reply else "move" if "/" in reply else reply.split(" ")[0]
        self.replies[word] = self.replies.get(word, 0) + 1


def checked_play_text(position: np.ndarray, dice, child: np.ndarray, children: np.ndarray) -> str | None:
    """The play from ``position`` to ``child`` one step per die, or None unless it is safe to send:
    ``child`` is one of the legal ``children`` and the text, read back, gives exactly ``child``."""
    if not (children == child).all(axis=1).any():
        return None
    text = steps("backgammon", position, child, dice)
    try:
        back = parse_play("backgammon", position, dice, text) if text else position
    except ValueError:
        return None
    return text if np.array_equal(back, child) else None


class BotAgent(BoardAgent):
    """Answers boards for one connection in the protocol's words: model/service/game_turn.py's
    ``BoardAgent`` decides (plays, cube actions, resignations); a play is sent one step per die, checked."""

    def __init__(self, bot, options: ServeOptions | None = None, stats: ServeStats | None = None, log=None,
                 verbose: bool = False):
        super().__init__(bot, options)
        self.stats = stats or ServeStats()
        self.log = log or (lambda message: print(f"serve: {message}", file=sys.stderr, flush=True))
        self.verbose = verbose  # log every request and its reply

    def answer(self, board: FibsBoard) -> str:
        """The one reply line (without line end) to ``board``: the decision model/service/game_turn.py's
        ``BoardAgent.decide`` makes, in the protocol's words (a roll's play through ``play``)."""
        return self.play(board) if board.kind == MOVE else self._words(self.decide(board))

    def play(self, board: FibsBoard) -> str:
        """The reply to a roll: the chosen play, checked legal, one step per die (or a resignation)."""
        reply = self.choose_play(board)
        if reply.action != "play":
            return self._words(reply)
        children, pick = reply.children, reply.pick
        text = checked_play_text(board.position, board.dice, children[pick], children)
        if text is None:  # never expected: fall back to the first legal play whose text checks out
            self.stats.fallbacks += 1
            self.log(f"play {pick} of {board.dice} failed its check; sending another legal play")
            text = first_checked_play(board.position, board.dice, children)
        return text

    @staticmethod
    def _words(reply) -> str:
        """A decision other than a play in the protocol's words: ``resign n|g|b``, "" (no die can be
        played), drop for pass, else the action itself (roll, double, take, beaver)."""
        if reply.action == "resign":
            return f"resign {RESIGN_WORDS[reply.level]}"
        if reply.action == "no play":
            return ""
        return "drop" if reply.action == "pass" else reply.action


def first_checked_play(position: np.ndarray, dice, children: np.ndarray) -> str:
    """The text of the first legal child whose text checks out (``checked_play_text``)."""
    return next(t for c in children if (t := checked_play_text(position, dice, c, children)))


def safe_default(board: FibsBoard) -> str:
    """A reply that never breaks the client, for when deciding failed: take, roll, or the first legal
    play whose text checks out."""
    if board.kind == TAKE:
        return "take"
    if board.kind == CUBE:
        return "roll"
    children, _ = legal_plays("backgammon", board.position[None, :], np.array([board.dice]))
    if len(children) == 1 and np.array_equal(children[0], board.position):
        return ""
    return first_checked_play(board.position, board.dice, children)


def answer_line(agent: BotAgent, line: str) -> str | None:
    """The reply to one request line, or None for a line that is only NULs and blanks (no reply).

    A malformed line gets one log line and an empty reply; a failure while deciding gets one log line
    and ``safe_default``.
    """
    text = line.replace("\x00", "").strip()
    if not text:
        return None
    agent.stats.requests += 1
    try:
        board = read_fibs_board(text)
    except FormatError as err:
        agent.stats.bad_lines += 1
        agent.log(f"bad line, replied with an empty line: {_cut(err)}")
        return ""
    try:
        reply = agent.answer(board)
    except Exception as err:  # noqa: BLE001 - a server must answer every well-formed board
        agent.log(f"deciding failed ({type(err).__name__}: {_cut(err)}); sent a safe default")
        reply = safe_default(board)
    agent.stats.count(reply)
    if agent.verbose:
        agent.log(f"{text} -> {reply!r}")
    return reply


def _cut(err: Exception) -> str:
    """An error's message as a log line shows it: its first line, cut after ``LOG_CUT`` characters (its
    length said): a bad line's numbers may run to thousands of digits, which the readers echo."""
    return shortened((str(err).splitlines() or [type(err).__name__])[0], LOG_CUT)


# ---------------------------------------------------------------------------------------------------
# the socket server


def _request_lines(conn: socket.socket):
    """Lines from a connection (bytes, line end dropped) until the peer closes; None, once, for a line
    that grew past MAX_LINE bytes without a line end (to be answered once; the rest of it, to its line
    end, is skipped)."""
    buffer, skipping = b"", False
    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if skipping:  # the end of an over-long line, answered already
                skipping = False
                continue
            yield line
        if len(buffer) > MAX_LINE:
            if not skipping:
                yield None
            buffer, skipping = b"", True


class BotServer:
    """A listening socket whose connections are served side by side, each in a thread with its own copy
    of the BotAgent (its memory of resignations offered; the counts and the log are shared), one decision
    at a time: at most ``max_clients`` at once (more wait to be accepted); a connection silent for
    ``idle_timeout`` seconds (0: never) is closed."""

    def __init__(self, agent: BotAgent, host: str = "127.0.0.1", port: int = 0, *, max_clients: int = MAX_CLIENTS,
                 idle_timeout: float = IDLE_TIMEOUT):
        self.agent = agent
        self.log = agent.log
        self.stats = agent.stats
        self.idle_timeout = idle_timeout
        self.sock = socket.create_server((host, port))  # SO_REUSEADDR on POSIX
        self.host, self.port = self.sock.getsockname()[:2]
        self._closed = False
        self._deciding = threading.Lock()  # one decision at a time: the bot, the counts
        self._places = threading.BoundedSemaphore(max(1, max_clients))
        self._open: dict[threading.Thread, socket.socket] = {}

    def serve_connection(self, conn: socket.socket, peer) -> None:
        """Answer one client until it closes; a reset, timed-out or idle connection is logged, not raised."""
        agent = copy.copy(self.agent)
        with self._deciding:
            self.stats.connections += 1
            agent.reset()
            self.log(f"connection from {peer[0]}:{peer[1]}")
        answered, who = 0, f"connection from {peer[0]}:{peer[1]}"
        conn.settimeout(self.idle_timeout or None)
        try:
            for raw in _request_lines(conn):
                with self._deciding:
                    reply = self._reply(agent, raw)
                if reply is None:
                    continue
                conn.sendall((reply + "\n").encode("ascii"))
                answered += 1
            self.log(f"{who} closed after {answered} replies")
        except TimeoutError:
            self.log(f"{who} idle for {self.idle_timeout:g} s: closed after {answered} replies")
        except OSError as err:  # reset, broken pipe: the client is gone
            self.log(f"{who} dropped after {answered} replies: {err}")
        finally:  # after the log line, so that a client that sees the end finds it written
            conn.close()

    def _reply(self, agent: BotAgent, raw: bytes | None) -> str | None:
        if raw is not None:
            return answer_line(agent, raw.decode("ascii", errors="replace"))
        self.stats.requests += 1
        self.stats.bad_lines += 1
        self.log(f"bad line: over {MAX_LINE} bytes without a line end; replied with an empty line")
        return ""

    def _serve_in_thread(self, conn: socket.socket, peer) -> None:
        try:
            self.serve_connection(conn, peer)
        finally:
            self._open.pop(threading.current_thread(), None)
            self._places.release()

    def serve_forever(self, max_connections: int | None = None) -> None:
        """Accept connections and serve each in a thread (``max_connections`` of them, then wait until
        they are served; or until ``close``)."""
        self.log(f"listening on {self.host}:{self.port}")
        served = 0
        while max_connections is None or served < max_connections:
            self._places.acquire()
            try:
                conn, peer = self.sock.accept()
            except OSError:
                self._places.release()
                if self._closed:
                    return
                raise
            thread = threading.Thread(target=self._serve_in_thread, args=(conn, peer), daemon=True)
            self._open[thread] = conn
            thread.start()
            served += 1
        for thread in list(self._open):
            thread.join()

    def close(self) -> None:
        """Stop listening and close the connections being served (a blocked ``serve_forever`` returns)."""
        self._closed = True
        for conn in list(self._open.values()):
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def serve(bot, host: str = "127.0.0.1", port: int = 4321, options: ServeOptions | None = None, *,
          verbose: bool = False, max_connections: int | None = None, log=None, max_clients: int = MAX_CLIENTS,
          idle_timeout: float = IDLE_TIMEOUT) -> ServeStats:
    """Serve ``bot`` (a model.Bot) on ``host:port`` until Ctrl-C (or ``max_connections`` clients);
    returns what was answered. OSError if the address cannot be listened on."""
    agent = BotAgent(bot, options, log=log, verbose=verbose)
    server = BotServer(agent, host, port, max_clients=max_clients, idle_timeout=idle_timeout)
    try:
        server.serve_forever(max_connections)
    except KeyboardInterrupt:
        agent.log("stopped (Ctrl-C or SIGTERM)")
    finally:
        server.close()
        for thread in list(server._open):  # their connections are shut: let them finish their last reply
            thread.join(timeout=2)
    return agent.stats


# ---------------------------------------------------------------------------------------------------
# the command line: ``nardibot serve ...``


def build_parser(prog: str = "nardibot serve") -> argparse.ArgumentParser:
    """The flags of ``nardibot serve``."""
    parser = OneLineParser(prog=prog, description="Serve the bot to gnubg (set player 0 external HOST:PORT) "
                           "and FIBS-style clients over gnubg's external-player protocol.")
    parser.add_argument("--port", type=int, default=4321, help="TCP port to listen on (default 4321)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--bot", "--model", dest="model", default=None,
                        help="checkpoint path or baseline name (pubeval, heuristic...); default: the shipped net")
    parser.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="look-ahead of a network bot")
    parser.add_argument("--no-resign", action="store_true", help="never offer a resignation")
    parser.add_argument("--resign-tolerance", type=float, default=ServeOptions.resign_tolerance,
                        help="resign a level worth this close to playing on (normalised equity, default 0.001)")
    parser.add_argument("--no-jacoby", action="store_true", help="money play without the Jacoby rule")
    parser.add_argument("--beavers", action="store_true", help="beaver when right (the client must allow it)")
    parser.add_argument("--max-connections", type=int, default=None, help="exit after serving this many clients")
    parser.add_argument("--max-clients", type=int, default=MAX_CLIENTS,
                        help=f"clients served at once; more wait to be accepted (default {MAX_CLIENTS})")
    parser.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT, metavar="S",
                        help=f"close a connection silent for S seconds (default {IDLE_TIMEOUT:g}; 0: never)")
    parser.add_argument("--verbose", action="store_true", help="log every request and reply on stderr")
    return parser


def _load_bot(model: str | None, prog: str):
    """The bot to serve, or None after one error line (no model, a bad file, a nardi model)."""
    try:
        bot = Bot.load(model)
    except Exception as err:  # noqa: BLE001 - at start-up any failure to load is a bad --model
        reason = (str(err).splitlines() or [type(err).__name__])[0]
        print(f"{prog}: error: cannot load the model {model or '(shipped)'}: {reason}", file=sys.stderr)
        return None
    if bot.game != "backgammon":
        print(f"{prog}: error: gnubg plays backgammon; {model} is a {bot.game} model", file=sys.stderr)
        return None
    return bot


def _stop_on_signals() -> dict:
    """SIGINT and SIGTERM raise KeyboardInterrupt, so that the server stops cleanly; returns the
    handlers they had. Set explicitly: a process started with ``&`` by a shell that is not
    interactive inherits SIGINT ignored."""
    def stop(signum, frame):
        raise KeyboardInterrupt

    previous = {}
    try:
        for signum, handler in ((signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, stop)):
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread (a test driving main): signals stay as they are
        pass
    return previous


def main(argv: list[str] | None = None) -> int:
    """``nardibot serve``: 0 after Ctrl-C, SIGTERM or --max-connections; 2 for every start-up error
    (bad flags, a model that cannot be loaded, an address that cannot be listened on), one line."""
    previous = _stop_on_signals()
    try:
        return _main(argv)
    finally:
        for signum, handler in previous.items():  # as they were, for a caller in the same process
            signal.signal(signum, handler)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port must be 0..65535, got {args.port}")
    if not 0.0 <= args.resign_tolerance <= 0.5:
        parser.error(f"--resign-tolerance must be within 0..0.5, got {args.resign_tolerance}")
    if args.max_connections is not None and args.max_connections < 1:
        parser.error(f"--max-connections must be at least 1, got {args.max_connections}")
    if args.max_clients < 1:
        parser.error(f"--max-clients must be at least 1, got {args.max_clients}")
    if not 0 <= args.idle_timeout <= 1e6:
        parser.error(f"--idle-timeout must be 0..1000000 seconds, got {args.idle_timeout:g}")
    try:
        bot = _load_bot(args.model, parser.prog)
    except KeyboardInterrupt:
        print("serve: stopped (Ctrl-C) before serving", file=sys.stderr)
        return 0
    if bot is None:
        return 2
    options = ServeOptions(plies=args.ply, resign=not args.no_resign, resign_tolerance=args.resign_tolerance,
                           jacoby=not args.no_jacoby, beavers=args.beavers)
    try:
        stats = serve(bot, args.host, args.port, options, verbose=args.verbose,
                      max_connections=args.max_connections, max_clients=args.max_clients,
                      idle_timeout=args.idle_timeout)
    except OSError as err:
        print(f"{parser.prog}: error: cannot listen on {args.host}:{args.port}: {err}", file=sys.stderr)
        return 2
    print(f"serve: {stats.requests} requests from {stats.connections} connections, {stats.bad_lines} bad "
          f"lines, replies {stats.replies}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
