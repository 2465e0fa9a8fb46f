"""``nardibot ubgi``: the bot as an engine speaking UBGI on stdin/stdout (backgammon).

    nardibot ubgi [--bot PATH] [--ply 0|1|2]

UBGI (draft 0.01, docs/FORMATS.md "UBGI"), an engine protocol in the spirit of chess's UCI: the UI
starts the engine and writes one command a line; the engine answers on stdout, one line each:

    ubgi                 -> id name nardibot / id author ... / id version ... / readyok
                            (the net is loaded here, as the draft asks; isready -> readyok)
    XGID=...             -> the best action for the side the position asks: a play, double or
    board:... (FIBS)        roll (no double), take or drop; an empty line when no die can be played
    stop                 -> nothing (analyses and rollouts are optional in the draft; none runs)
    quit                 -> the engine exits (so does the end of the input)
    anything else        -> sorry (an unknown command, a position that cannot be read, a game over)

Which decision a line asks: with dice, the play; without dice, roll or double for the side on
roll; a double waiting for an answer (XGID dice "D", a FIBS take question), take or drop for the
side doubled. A play is written one step per die from the mover's side, every partial move
written out and doubles repeated (``24/18 18/13``, ``6/2 6/2 6/2 6/2``), no ``*``, ``bar`` and
``off`` in lower case: engine.notation.steps, checked legal before it is sent (nardibot/cli/cmd_serve.py's
``checked_play_text``).

Every decision is model/service/game_turn.py's ``BoardAgent`` (CubePolicy at ``--ply``, the policy of
hint, play and the cube arena), written by nardibot/cli/cmd_serve.py's ``BotAgent`` as serve writes
it, on the position read as a FIBS board (engine/formats/fibs.py); an XGID is
first turned into one, with its Jacoby flag (a FIBS board does not carry it: Jacoby is assumed on
in money play, gnubg's default, as serve does). Beavers and resignations are not offered: the
draft's answers have no words for them. A line of a position that fails gets ``sorry`` and the
engine keeps reading. Bad flags or a net that cannot be loaded: one line on stderr, exit status 2.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from engine.errors import FormatError
from engine.formats.fibs import FibsBoard, read_fibs_board
from engine.formats.position import XGID_PREFIX, read_xgid
from model.bot import Bot
from nardibot import __version__
from nardibot.cli.cmd_serve import BotAgent, ServeOptions
from nardibot.cli.common import OneLineParser, UsageError, run_main

NAME, AUTHOR, VERSION = "nardibot", "the nardibot authors", __version__
SORRY = "sorry"


def board_of_xgid(text: str) -> FibsBoard:
    """An XGID as the FIBS board that asks the same decision (players as gnubg numbers them: XG's
    bottom player is 1); FormatError for an XGID that cannot be read."""
    position, info = read_xgid(text)
    length, scores = info.match_length, tuple(info.scores)
    return FibsBoard(names=("player 0", "player 1"), match_length=length, scores=scores, position=position,
                     mover=info.player_on_roll, dice=None if info.dice == (0, 0) else tuple(info.dice),
                     cube=info.cube_value, cube_owner=info.owner_seat,
                     doubled=info.double_offered, crawford=info.crawford,
                     post_crawford=info.crawford_played)


class Engine:
    """Answers UBGI lines (module docstring); ``answer(line)`` gives the reply lines."""

    def __init__(self, load_bot, plies: int = 0):
        self.load_bot = load_bot
        self.plies = plies
        self.agent = None
        self.quit = False

    def ready(self) -> None:
        """Load the net (once) and make the agent that decides."""
        if self.agent is None:
            self.agent = BotAgent(self.load_bot(), ServeOptions(plies=self.plies, resign=False, beavers=False),
                                  log=lambda message: None)
            self._options = self.agent.options

    def answer(self, line: str) -> list[str]:
        text = line.strip()
        word = text.split(" ", 1)[0].lower() if text else ""
        if not text:
            return []
        if word == "ubgi":
            self.ready()
            return [f"id name {NAME}", f"id author {AUTHOR}", f"id version {VERSION}", "readyok"]
        if word == "isready":
            self.ready()
            return ["readyok"]
        if word == "stop":
            return []
        if word == "quit":
            self.quit = True
            return []
        if text.upper().startswith(XGID_PREFIX) or text.startswith("board:"):
            return [self.decide(text)]
        return [SORRY]

    def decide(self, text: str) -> str:
        """The best action for a position line, or sorry."""
        self.ready()
        try:
            if text.startswith("board:"):
                board, jacoby = read_fibs_board(text), self._options.jacoby
            else:
                board = board_of_xgid(text)
                jacoby = read_xgid(text)[1].jacoby
            self.agent.options = replace(self._options, jacoby=jacoby)
            reply = self.agent.answer(board)
        except (FormatError, ValueError):  # unreadable, or a state the rules cannot reach (RuleError)
            return SORRY
        return "drop" if reply == "pass" else reply


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="nardibot ubgi", description="Speak UBGI on stdin/stdout (docs/FORMATS.md).")
    p.add_argument("--bot", default=None, help="backgammon checkpoint (default: the shipped net)")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="look-ahead of plays and cube decisions")
    return p


def ubgi_main(argv: list[str], stdin=None, stdout=None) -> int:
    args = build_parser().parse_args(argv)
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    if hasattr(stdin, "reconfigure"):
        stdin.reconfigure(errors="replace")  # stray bytes make a line no command: sorry, not a traceback

    def load_bot():
        try:
            bot = Bot.load(args.bot)
        except (ValueError, OSError) as err:
            raise UsageError(f"cannot load the net: {(str(err).splitlines() or [type(err).__name__])[0]}") from None
        if bot.game != "backgammon" or bot.net is None:
            raise UsageError(f"UBGI plays backgammon with a network; {bot.name} is not one")
        return bot

    engine = Engine(load_bot, args.ply)
    for line in stdin:
        for reply in engine.answer(line):
            print(reply, file=stdout, flush=True)
        if engine.quit:
            break
    return 0


def main(argv: list[str]) -> int:
    return run_main("nardibot ubgi", ubgi_main, argv)
