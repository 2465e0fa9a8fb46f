"""What every command line shares: a usage error is one line on stderr, ``PROG: error: MESSAGE``, and
exit status 2 (USAGE_ERROR), never a usage text or a traceback.

``OneLineParser``  argparse that reports a bad command line that way (and exits), naming an unknown
                   flag even when a required argument is missing as well.
``UsageError``     raised by a command for bad input found after parsing (a missing file, flags that
                   do not go together); ``run_main`` reports it under the command's name.
``check_writable`` a UsageError before any work for an output path that could not be written at the end.
``emit``           prints a command's output; a reader that went away (``| head``) ends it quietly.
``option``         a dataclass field that is one flag: its default and its --help text (and any
                   further ``add_argument`` keyword); ``dataclass_parser`` builds the parser of
                   such a dataclass, each flag typed by its field's annotation.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

USAGE_ERROR = 2
"""Exit status for bad input on the command line."""
INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as a shell reports it."""
CLOSED_PIPE = 1
"""Exit status when the reader of the output went away (``| head``): quietly, no traceback."""


class UsageError(Exception):
    """Bad input from the command line: reported as one line on stderr, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr and exit status 2, instead of the usage text."""

    def error(self, message: str):
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")

    def parse_args(self, args=None, namespace=None):
        """argparse's parse_args, but flags it does not know are reported before any missing argument:
        ``evaluate.py --frobnicate`` names --frobnicate, not the players it lacks."""
        args = sys.argv[1:] if args is None else list(args)
        required = list(_required_actions(self))
        try:
            for action in required:  # a first pass that lacks nothing finds every unknown argument
                action.required = False
            _, unknown = self.parse_known_args(args, argparse.Namespace())
        finally:
            for action in required:
                action.required = True
        if unknown:
            self.error(f"unrecognized arguments: {' '.join(unknown)}")
        return super().parse_args(args, namespace)


def _required_actions(parser: argparse.ArgumentParser):
    """The required arguments of ``parser`` and of its subcommands' parsers."""
    for action in parser._actions:
        if action.required:
            yield action
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                yield from _required_actions(subparser)


def emit(text: str) -> bool:
    """Print ``text`` to stdout now; False when the reader has gone away (``| head``): stdout then
    goes to the null device, so that nothing more, not even the flush at exit, raises."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _silence_stdout()
        return False
    return True


def _silence_stdout() -> None:
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no real file descriptor (a test's capture): nothing to flush anyway
        pass


def run_main(prog: str, main: Callable[[list[str]], int], argv: list[str]) -> int:
    """``main(argv)``'s exit status; a UsageError it raises is the line ``PROG: error: MESSAGE`` on
    stderr and status 2, Ctrl-C the line ``PROG: interrupted`` and status 130, a closed output pipe
    (``| head``) status 1 without a word."""
    try:
        status = main(argv)
        sys.stdout.flush()  # here, not at exit, where a closed pipe could only be reported
        return status
    except BrokenPipeError:
        _silence_stdout()
        return CLOSED_PIPE
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED


def check_writable(flag: str, path: str | None, folder: bool = False) -> None:
    """UsageError now, before any work, when the output ``path`` given with ``flag`` could not be
    written at the end: its folder is missing or not writable, or it is a folder (None: not asked for).
    ``folder``: ``path`` is a folder to be made if needed (the nearest existing one above must be a
    writable folder)."""
    if path is None:
        return
    target = Path(path).absolute()
    if folder:
        above = next(p for p in (target, *target.parents) if p.exists())
        if not above.is_dir():
            raise UsageError(f"{flag}: cannot write {path}: {above} is not a folder")
    elif target.is_dir():
        raise UsageError(f"{flag}: cannot write {path}: it is a folder")
    else:
        above = target.parent
        if not above.is_dir():
            raise UsageError(f"{flag}: cannot write {path}: no such folder")
    if not os.access(above, os.W_OK):
        raise UsageError(f"{flag}: cannot write {path}: permission denied")


def option(default: Any = dataclasses.MISSING, *, help: str, **argparse_kwargs) -> Any:
    """A dataclass field read by ``dataclass_parser``: its default, its --help text and any further
    ``add_argument`` keyword (choices...); ``positional=True`` makes it a positional argument."""
    return dataclasses.field(default=default, metadata={"help": help, **argparse_kwargs})


class _DefaultsHelp(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default after its help, except where there is none to show (None, "", a
    switch's False) or the help gives it already ("(default ...")."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or action.default == "" \
                or "(default" in (action.help or ""):
            return action.help or ""
        return super()._get_help_string(action)


def dataclass_parser(cls: type, **parser_kwargs) -> OneLineParser:
    """A OneLineParser with an argument per field of the dataclass ``cls``, made with ``option``:
    ``--field-name FIELD_NAME`` of the field's type (``X | None`` reads an X; bool is a switch), or a
    positional argument; --help shows each option's default."""
    parser = OneLineParser(formatter_class=_DefaultsHelp, **parser_kwargs)
    types = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        meta = dict(f.metadata)
        if meta.pop("positional", False):
            parser.add_argument(f.name, **meta)
            continue
        flag = "--" + f.name.replace("_", "-")
        kind = next((t for t in typing.get_args(types[f.name]) if t is not type(None)), types[f.name])
        if kind is bool:
            parser.add_argument(flag, action="store_true", **meta)
        else:
            parser.add_argument(flag, type=kind, default=f.default, metavar=f.name.upper(), **meta)
    return parser
