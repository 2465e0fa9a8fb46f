"""``nardibot ubgi``: the bot as an engine speaking UBGI v0.1 on stdin/stdout (backgammon).

    nardibot ubgi [--bot PATH] [--ply 0|1|2]

UBGI v0.1, the Universal Backgammon Interface as the UBGI community's spec states it (docs/FORMATS.md
"UBGI" has the facts and their source; docs/web-api-and-ubgi.md an example session): the UI or
dueller starts the engine and writes one command a line; the engine answers on stdout, a line at a
time, flushed. Compliance levels 0 (the playable core), 1 (cube actions, options) and 2 (``info``
lines, ``stop``):

    ubgi                              -> id name / id author / id version, option lines, ubgiok
    isready                           -> readyok (the net is loaded by then)
    setoption name N value V          -> nothing (Ply, EvalMode, Variant, Deterministic, Seed)
    newsession type money|match [length N] [jacoby on|off] [crawford on|off], newgame,
    setscore S0 S1, setcube value V owner center|p0|p1, setturn p0|p1,
    position gnubgid ID, position xgid XGID, dice D1 D2
                                      -> nothing
    go [role chequer|cube|turn] [depth N] [movetime MS] [nodes N] [trials N]
                                      -> info line(s), then bestmove MOVE | bestcube double|nodouble
                                         | bestturn cube=double|nodouble move=MOVE
    stop                              -> nothing (every answer is complete when it is written)
    quit                              -> the engine exits (so does the end of the input)
    anything else                     -> error CODE MESSAGE, and the engine reads on

A move is one from/to step per die from the mover's side (``13/7 8/7``, ``bar/22``, ``6/off``), no
``*``, ``pass`` when no die can be played. Beyond the letter of v0.1: ``bestcube take`` or ``bestcube
drop`` answers a double waiting in the position (an XGID's dice ``D``). This module only reads and
writes lines; model/service/ubgi_session.py's ``UbgiSession`` holds the context and decides. Bad
flags or a net that cannot be loaded: one line on stderr, exit status 2.
"""

from __future__ import annotations

import sys
import time

from engine.formats.position import quoted
from model.bot import Bot
from model.service.ubgi_session import BAD_ARGUMENT, UNKNOWN_COMMAND, Evaluation, UbgiError, UbgiSession
from nardibot import __version__
from nardibot.cli.common import OneLineParser, UsageError, run_main

NAME, AUTHOR, VERSION = "nardibot", "the nardibot authors", __version__
ROLES = ("chequer", "cube", "turn")
LIMITS = ("depth", "movetime", "nodes", "trials")
"""``go``'s limits: ``depth`` is the look-ahead of this answer (0..2); the others are read and checked,
but every answer is worked out in full (it takes well under a second)."""
CUBE_WORDS = {"double": "double", "no double": "nodouble", "take": "take", "pass": "drop"}
PLAYERS = {"p0": 0, "p1": 1}
SWITCHES = {"on": True, "off": False}


def whole(text: str, what: str) -> int:
    """A whole number written in ASCII digits; UbgiError otherwise."""
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise UbgiError(BAD_ARGUMENT, f"{what} is a whole number, got {quoted(text)}")
    return int(text)


def two_wholes(args: list[str], usage: str, what: str) -> tuple[int, int]:
    """The two whole numbers a command takes (``setscore``, ``dice``); UbgiError with ``usage`` otherwise."""
    if len(args) != 2:
        raise UbgiError(BAD_ARGUMENT, usage)
    return whole(args[0], what), whole(args[1], what)


def pairs(args: list[str], keys, command: str) -> dict[str, str]:
    """``key value`` pairs of a command line, each key one of ``keys`` at most once."""
    if len(args) % 2:
        raise UbgiError(BAD_ARGUMENT, f"{command}: {quoted(args[-1])} has no value")
    out: dict[str, str] = {}
    for key, value in zip(args[::2], args[1::2]):
        if key not in keys or key in out:
            raise UbgiError(BAD_ARGUMENT, f"{command}: unexpected {quoted(key)} (it takes {', '.join(keys)}, once each)")
        out[key] = value
    return out


def word(value: str, choices: dict, what: str):
    """The meaning of ``value`` among ``choices``; UbgiError otherwise."""
    if value not in choices:
        raise UbgiError(BAD_ARGUMENT, f"{what} is {'|'.join(choices)}, got {quoted(value)}")
    return choices[value]


def option_line(option) -> str:
    """An option as the engine declares it after ``ubgi`` (UCI's form)."""
    line = f"option name {option.name} type {option.kind} default "
    if option.kind == "check":
        return line + ("true" if option.default else "false")
    if option.kind == "spin":
        return line + f"{option.default} min {option.low} max {option.high}"
    return line + str(option.default) + "".join(f" var {choice}" for choice in option.choices)


def info_line(role: str, evaluation: Evaluation, elapsed: float, pv: str | None = None) -> str:
    """An ``info`` line: the decision's look-ahead, its time, the deciding side's equity (money) or
    match-winning chance (a match) and its chances of winning, a gammon and a backgammon after it."""
    parts = ["info role", role, "depth", str(evaluation.depth), "time_ms", str(round(elapsed * 1000))]
    if evaluation.equity is not None:
        parts += ["eq", f"{evaluation.equity:.4f}"]
    if evaluation.mwc is not None:
        parts += ["mwc", f"{evaluation.mwc:.4f}"]
    win, win_gammon, win_backgammon = (float(p) for p in evaluation.probs[:3])
    parts += ["pwin", f"{win:.4f}", "pgammon", f"{win_gammon:.4f}", "pbg", f"{win_backgammon:.4f}"]
    if pv is not None:
        parts += ["pv", pv]
    return " ".join(parts)


class Engine:
    """Answers UBGI command lines (module docstring): ``answer(line)`` gives the reply lines."""

    def __init__(self, session: UbgiSession):
        self.session = session
        self.quit = False
        self.commands = {
            "ubgi": self.handshake, "isready": self.isready, "newgame": self.newgame, "newsession": self.newsession,
            "setscore": self.setscore, "setcube": self.setcube, "setturn": self.setturn, "position": self.position,
            "dice": self.dice, "setoption": self.setoption, "go": self.go, "stop": self.stop, "quit": self.end,
        }

    def answer(self, line: str) -> list[str]:
        """The reply lines to one command line (none for an empty line)."""
        words = line.replace("\x00", " ").split()
        if not words:
            return []
        command = self.commands.get(words[0])
        try:
            if command is None:
                raise UbgiError(UNKNOWN_COMMAND, f"{quoted(words[0])} is no UBGI command")
            return command(words[1:])
        except UbgiError as err:
            return [f"error {err.code} {err.message}"]

    @staticmethod
    def bare(args: list[str], command: str) -> None:
        if args:
            raise UbgiError(BAD_ARGUMENT, f"{command} takes no arguments, got {quoted(' '.join(args))}")

    def handshake(self, args):
        self.bare(args, "ubgi")
        return [f"id name {NAME}", f"id author {AUTHOR}", f"id version {VERSION}",
                *(option_line(o) for o in self.session.options), "ubgiok"]

    def isready(self, args):
        self.bare(args, "isready")
        self.session.ready()
        return ["readyok"]

    def newgame(self, args):
        self.bare(args, "newgame")
        self.session.new_game()
        return []

    def newsession(self, args):
        given = pairs(args, ("type", "length", "jacoby", "crawford"), "newsession")
        if "type" not in given:
            raise UbgiError(BAD_ARGUMENT, "newsession: type money|match is required")
        self.session.new_session(
            given["type"], length=whole(given["length"], "length") if "length" in given else None,
            jacoby=word(given["jacoby"], SWITCHES, "jacoby") if "jacoby" in given else None,
            crawford=word(given["crawford"], SWITCHES, "crawford") if "crawford" in given else None)
        return []

    def setscore(self, args):
        self.session.set_score(*two_wholes(args, "setscore takes two scores, p0's and p1's", "a score"))
        return []

    def setcube(self, args):
        given = pairs(args, ("value", "owner"), "setcube")
        if len(given) != 2:
            raise UbgiError(BAD_ARGUMENT, "setcube takes value N owner center|p0|p1")
        self.session.set_cube(whole(given["value"], "the cube value"),
                              word(given["owner"], {"center": None, **PLAYERS}, "the cube owner"))
        return []

    def setturn(self, args):
        if len(args) != 1:
            raise UbgiError(BAD_ARGUMENT, "setturn takes p0 or p1")
        self.session.set_turn(word(args[0], PLAYERS, "the side on turn"))
        return []

    def position(self, args):
        if len(args) != 2 or args[0] not in ("gnubgid", "xgid"):
            raise UbgiError(BAD_ARGUMENT, "position takes gnubgid ID or xgid XGID")
        (self.session.set_position if args[0] == "gnubgid" else self.session.set_xgid)(args[1])
        return []

    def dice(self, args):
        self.session.set_dice(*two_wholes(args, "dice takes two dice, 1..6 each", "a die"))
        return []

    def setoption(self, args):
        if len(args) < 4 or args[0] != "name" or "value" not in args[2:]:
            raise UbgiError(BAD_ARGUMENT, "setoption takes name NAME value VALUE")
        split = args.index("value", 2)
        self.session.set_option(" ".join(args[1:split]), " ".join(args[split + 1:]))
        return []

    def go(self, args):
        given = pairs(args, ("role", *LIMITS), "go")
        role = given.pop("role", "chequer")
        if role not in ROLES:
            raise UbgiError(BAD_ARGUMENT, f"go: role is {'|'.join(ROLES)}, got {quoted(role)}")
        limits = {key: whole(value, key) for key, value in given.items()}
        depth = limits.get("depth")
        started = time.perf_counter()
        if role == "chequer":
            play = self.session.chequer(depth)
            move = play.move or "pass"
            return [info_line("chequer", play.evaluation, time.perf_counter() - started, move), f"bestmove {move}"]
        if role == "cube":
            cube = self.session.cube(depth)
            return [info_line("cube", cube.evaluation, time.perf_counter() - started),
                    f"bestcube {CUBE_WORDS[cube.action]}"]
        turn = self.session.turn(depth)
        elapsed, move = time.perf_counter() - started, turn.chequer.move or "pass"
        return [info_line("cube", turn.cube.evaluation, elapsed), info_line("chequer", turn.chequer.evaluation, elapsed, move),
                f"bestturn cube={CUBE_WORDS[turn.cube.action]} move={move}"]

    def stop(self, args):
        self.bare(args, "stop")
        return []

    def end(self, args):
        self.bare(args, "quit")
        self.quit = True
        return []


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="nardibot ubgi", description="Speak UBGI v0.1 on stdin/stdout, levels 0 to 2 "
                      "(backgammon; docs/web-api-and-ubgi.md).")
    p.add_argument("--bot", default=None, help="backgammon checkpoint (default: the shipped net)")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2),
                   help="look-ahead of plays and cube decisions: the Ply option's default")
    return p


def ubgi_main(argv: list[str], stdin=None, stdout=None) -> int:
    args = build_parser().parse_args(argv)
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")  # stray bytes make a line no command: an error line, not a traceback

    def load_bot():
        try:
            bot = Bot.load(args.bot)
        except (ValueError, OSError) as err:
            raise UsageError(f"cannot load the net: {(str(err).splitlines() or [type(err).__name__])[0]}") from None
        if bot.game != "backgammon" or bot.net is None:
            raise UsageError(f"UBGI plays backgammon with a network; {bot.name} is not one")
        return bot

    engine = Engine(UbgiSession(load_bot, args.ply))
    for line in stdin:
        try:
            replies = engine.answer(line)
        except UsageError:
            raise
        except Exception as err:  # noqa: BLE001 - a failure while deciding: one error line, and the engine reads on
            replies = [f"error internal {type(err).__name__}: {' '.join(str(err).split())[:200]}"]
        for reply in replies:
            print(reply, file=stdout, flush=True)
        if engine.quit:
            break
    return 0


def main(argv: list[str]) -> int:
    return run_main("nardibot ubgi", ubgi_main, argv)
