"""The ``nardibot`` command, also run as ``python evaluate.py``: the first argument names a subcommand,
the rest goes to it.

    nardibot hint POSITION [--dice 31] [--ply 2] [--json]   best plays / cube decision
    nardibot serve --port 4321                             gnubg external-player server
    nardibot play [--game nardi] [--match 5]               play the bot in the terminal
    nardibot cube A B [--length 5] [--matches 1000]        games with the cube, full matches
    nardibot web [--host 127.0.0.1] [--port 8000]          HTTP API and browser page
    nardibot ubgi                                          UBGI engine protocol on stdin/stdout
    nardibot benchmark PLAYER [PLAYER ...]                 checker-play error rates on stored positions
    nardibot analyse FILE.mat [--ply 2] [--json]           rate every decision of a match
    nardibot match A B ...                                 cubeless games between two players
    nardibot A B ...                                       the same as match

Arguments that do not start with a subcommand's name are the match command's; a checkpoint file
named like a subcommand is given as ./name. Each subcommand's module is imported only when it runs,
so that a hint does not wait for the modules of the others.
"""

from __future__ import annotations

import model.cli.blas  # noqa: F401  (first: sets numpy's BLAS threads before numpy loads)

# isort: split
import importlib
import sys
from collections.abc import Callable

from model.cli.common import run_main


def _lazy(module: str) -> Callable[[list[str]], int]:
    """A subcommand whose module is imported only when it runs (keeps every start-up short)."""

    def run(argv: list[str]) -> int:
        return importlib.import_module(module).main(argv)

    return run


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "match": _lazy("model.cli.match"),  # cubeless games between two players, mirrored dice
    "hint": _lazy("model.cli.hint"),  # best plays or cube decision of a position
    "serve": _lazy("model.cli.serve"),  # gnubg's external-player protocol
    "play": _lazy("model.cli.play"),  # a person plays the bot in the terminal
    "cube": _lazy("model.cli.cube"),  # games with the cube and full matches, bot vs bot
    "rollout": _lazy("model.cli.rollout"),  # roll out a position or the plays of a roll
    "web": _lazy("model.cli.web"),  # the HTTP API and the browser page
    "ubgi": _lazy("model.cli.ubgi"),  # the UBGI engine protocol on stdin/stdout
    "benchmark": _lazy("model.cli.benchmark"),  # checker-play error rates judged by gnubg 2-ply
    "analyse": _lazy("model.cli.analyse"),  # rate every decision and roll of a .mat match
}
"""First-argument names that select a command; anything else is the match command's arguments."""


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a subcommand when argv[0] names one, else run the match command."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = "match"
    if argv and argv[0] in SUBCOMMANDS:
        command, argv = argv[0], argv[1:]
    return run_main("evaluate.py", SUBCOMMANDS[command], argv)
