"""The ``nardibot`` command, also run as ``python evaluate.py`` (and its train command as ``python
train.py``): the first argument names a subcommand, the rest goes to it.

    nardibot hint POSITION [--dice 31] [--ply 2] [--json]   best plays / cube decision
    nardibot rollout POSITION [--dice 31] [--trials 1296]   roll out a position or the plays of a roll
    nardibot cube A B [--length 5] [--matches 1000]        games with the cube, full matches
    nardibot analyse FILE.mat|sgf [--ply 2] [--json]       rate every decision of a match
    nardibot play [--game nardi] [--match 5]               play the bot in the terminal
    nardibot serve --port 4321                             gnubg external-player server
    nardibot web [--host 127.0.0.1] [--port 8000]          HTTP API and browser page
    nardibot ubgi                                          UBGI engine protocol on stdin/stdout
    nardibot duel A B ...                                  cubeless games between two players
    nardibot benchmark PLAYER [PLAYER ...]                 checker-play error rates on stored positions
    nardibot train [--game nardi] [--games N] ...          train a network by TD(lambda) self-play
    nardibot match A B ...                                 the same as duel
    nardibot A B ...                                       the same as duel
    nardibot --help | --version                            the subcommands | the version and shipped nets

Arguments that do not start with a subcommand's name (or --help, --version) are the match command's; a
checkpoint file named like a subcommand is given as ./name. Each subcommand's module is imported only
when it runs, so that a hint does not wait for the modules of the others. Every usage and error line
names the program ``nardibot`` (common.PROG), whichever entry point ran it.
"""

from __future__ import annotations

import model.runtime  # noqa: F401  (first: sets numpy's BLAS threads before numpy loads)

# isort: split
import importlib
import sys
from collections.abc import Callable

from nardibot import __version__
from nardibot.cli.commands import COMMANDS, MATCH
from nardibot.cli.common import CLOSED_PIPE, PROG, emit, run_main


def _lazy(name: str, module: str) -> Callable[[list[str]], int]:
    """A subcommand whose module is imported only when it runs (keeps every start-up short). The match
    command is told the name it was called by, for its usage and error lines."""

    def run(argv: list[str]) -> int:
        if module == MATCH:
            return importlib.import_module(module).match_main(argv, f"{PROG} {name}")
        return importlib.import_module(module).main(argv)

    return run


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {name: _lazy(name, module)
                                                      for name, (module, _) in COMMANDS.items()}
"""First-argument names that select a command; anything else is the match command's arguments."""


def help_text() -> str:
    """What ``nardibot --help`` prints: the subcommands, one line each."""
    width = max(map(len, COMMANDS))
    lines = [f"usage: {PROG} COMMAND [ARGS ...]",
             f"       {PROG} A B [ARGS ...]      (the same as {PROG} duel A B ...)",
             f"       {PROG} --help | --version",
             "",
             "A backgammon and long-nardi bot: hints, rollouts, matches, play, servers and training.",
             "",
             "commands:"]
    lines += [f"  {name:<{width}}  {line}" for name, (_, line) in COMMANDS.items()]
    lines += ["",
              "options:",
              "  -h, --help  show this list and exit",
              "  --version   show the version, the shipped nets and their folder, and exit",
              "",
              f"'{PROG} COMMAND --help' lists a command's flags. A and B are checkpoint paths or",
              f"baseline names (random, heuristic, pubeval, gnubg...; '{PROG} duel --help' lists them)."]
    return "\n".join(lines)


def version_text() -> str:
    """What ``nardibot --version`` prints: the version, the shipped nets' names and the folder they load
    from (the checkout's checkpoints/, or the installed wheel's copy: model/net/shipped_files.py)."""
    from model.net.shipped_files import NETS, shipped_folder, shipped_nets

    nets = ", ".join(path.stem for path in shipped_nets()) or "none found"
    return f"{PROG} {__version__}\nshipped nets: {nets}\nloaded from: {shipped_folder(NETS)}"


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a subcommand when argv[0] names one, else run the match command; ``--help`` and
    ``-h`` list the subcommands, ``--version`` says the version and the shipped nets (both exit 0)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help"):
        return run_main(PROG, lambda _: _say(help_text()), argv)
    if argv and argv[0] == "--version":
        return run_main(PROG, lambda _: _say(version_text()), argv)
    if argv and argv[0] in SUBCOMMANDS:
        return run_main(f"{PROG} {argv[0]}", SUBCOMMANDS[argv[0]], argv[1:])
    return run_main(PROG, lambda words: importlib.import_module(MATCH).match_main(words, PROG), argv)


def _say(text: str) -> int:
    """Print ``text``; the exit status: 0, or CLOSED_PIPE when its reader went away (``| head``)."""
    return 0 if emit(text) else CLOSED_PIPE
