"""Small pieces shared by the command lines: the program's name, JSON result files with the versions
that made them, a progress bar, and (from engine/tools/cli.py, where the engine's own command line finds
them too) one-line usage errors, the check that an output path can be written, output that ends quietly
when its reader goes away, and parsers built from dataclasses."""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import sys
from pathlib import Path

import numpy as np

from engine.tools.cli import (  # noqa: F401 - the command lines' one place to import them from
    CLOSED_PIPE,
    USAGE_ERROR,
    OneLineParser,
    UsageError,
    check_writable,
    dataclass_parser,
    emit,
    option,
    run_main,
)

PROG = "nardibot"
"""The program's name in every usage and error line (``usage: nardibot hint ...``, ``nardibot hint: error:
...``), whichever entry point ran it: the installed ``nardibot``, ``python evaluate.py`` or ``python
train.py``."""


def versions() -> dict:
    """Versions of what produced a result (torch only if it was loaded)."""
    out = {"python": platform.python_version(), "numpy": np.__version__}
    if "torch" in sys.modules:
        out["torch"] = sys.modules["torch"].__version__
    return out


def write_json(path: str, blob: dict, make_folder: bool = False) -> None:
    """The blob as indented JSON, with the versions that produced it; UsageError if it cannot be written.
    ``make_folder``: create the file's folder first (the measurement scripts' result files)."""
    try:
        if make_folder:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as f:
            json.dump({**blob, "versions": versions()}, f, indent=2)
            f.write("\n")
    except OSError as e:
        raise UsageError(f"--json: cannot write {path}: {e.strerror}") from None


def progress_bar(total: int, unit: str, enabled: bool = True):
    """A context manager giving an object with ``update(n)``: tqdm's bar on stderr when tqdm is installed
    (the [train] extra brings it) and stderr is a terminal, else nothing is shown."""
    try:
        from tqdm import tqdm
    except ImportError:
        return contextlib.nullcontext(_Silent())
    return tqdm(total=total, unit=unit, file=sys.stderr, dynamic_ncols=True,
                disable=None if enabled else True)


class _Silent:
    """The progress bar of an install without tqdm: counts nothing, shows nothing."""

    def update(self, n: int = 1) -> None:
        pass


def _count(text: str) -> int:
    """A whole number >= 0 for argparse (a bad one is refused with one line)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a whole number >= 0, got {value}")
    return value


def add_money_options(parser: argparse.ArgumentParser, unstated: bool | None = False) -> None:
    """The money-play options of every command that plays money games (RULES-DECISIONS.md), as
    flags ``--jacoby``, ``--beavers``, ``--automatic-doubles N`` -> args.jacoby, .beavers,
    .automatic_doubles, for engine.match.Rules (which refuses them in a match or without the cube).
    ``unstated``: what args.jacoby and .beavers hold when their flag is not given: False (off), or
    None, the flags then also ``--no-jacoby``, ``--no-beavers``, for model/service/query.py's
    ``money_rules`` to give a backgammon money game with the cube its default, both on."""
    default = (" (default: on in a money game with the cube, as gnubg; --no-{} for off)" if unstated is None
               else "")
    kind = {"action": argparse.BooleanOptionalAction, "default": None} if unstated is None else {
        "action": "store_true"}
    parser.add_argument("--jacoby", **kind,
                        help="money: the Jacoby rule (gammons and backgammons count single while the cube is "
                             "centred)" + default.format("jacoby"))
    parser.add_argument("--beavers", **kind,
                        help="money: beavers (a doubled side may redouble at once and keep the cube)"
                             + default.format("beavers"))
    parser.add_argument("--automatic-doubles", type=_count, default=0, metavar="N",
                        help="money: each tie of the opening throw doubles the cube, which stays centred, at "
                             "most N times and never past 64 (0 = off, the default)")
