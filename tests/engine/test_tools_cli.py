"""engine/tools/cli.py: one-line usage errors, run_main, and parsers built from dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine.tools.cli import USAGE_ERROR, OneLineParser, UsageError, dataclass_parser, option, run_main


def test_a_usage_error_is_one_line_and_status_2(capsys):
    """A bad value: one line "PROG: error: ..." and exit status 2, no usage text."""
    parser = OneLineParser(prog="tool")
    parser.add_argument("--n", type=int)
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(["--n", "x"])
    err = capsys.readouterr().err
    assert stop.value.code == USAGE_ERROR and err.startswith("tool: error: argument --n") and err.count("\n") == 1


def test_an_unknown_flag_is_named_before_a_missing_argument(capsys):
    """argparse alone would only say that the positional is missing; the unknown flag is what was mistyped."""
    parser = OneLineParser(prog="tool")
    parser.add_argument("a")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sub.add_parser("show").add_argument("text")
    for argv in (["--frobnicate"], ["x", "show", "--frobnicate"]):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)
        assert capsys.readouterr().err == "tool: error: unrecognized arguments: --frobnicate\n"
    with pytest.raises(SystemExit):
        parser.parse_args(["x"])
    assert "required" in capsys.readouterr().err
    assert parser.parse_args(["x", "show", "t"]).text == "t"
    assert all(action.required for action in parser._actions if action.dest in ("a", "command"))


def test_run_main_reports_usage_errors_and_ctrl_c(capsys):
    """UsageError: "PROG: error: MESSAGE", status 2; Ctrl-C: "PROG: interrupted", status 130."""

    def bad(argv):
        raise UsageError(f"no {argv[0]}")

    def stopped(argv):
        raise KeyboardInterrupt

    assert run_main("tool", bad, ["file"]) == 2 and capsys.readouterr().err == "tool: error: no file\n"
    assert run_main("tool", stopped, []) == 130 and capsys.readouterr().err == "tool: interrupted\n"
    assert run_main("tool", lambda argv: 0, []) == 0


@dataclass
class Settings:
    """A dataclass with every kind of field that dataclass_parser reads."""

    name: str = option(help="a positional", positional=True)
    games: int = option(10, help="an int")
    rate: float = option(0.5, help="a float")
    out: str | None = option(None, help="an optional string")
    game: str = option("backgammon", help="a choice", choices=("backgammon", "nardi"))
    quiet: bool = option(False, help="a switch")


def test_dataclass_parser_reads_every_field(capsys):
    """Flags are named and typed after the fields, with their defaults; --help shows the help and defaults."""
    parser = dataclass_parser(Settings, prog="tool")
    assert Settings(**vars(parser.parse_args(["x"]))) == Settings("x")
    got = Settings(**vars(parser.parse_args(["y", "--games", "3", "--rate", "1e-2", "--out", "o", "--game", "nardi",
                                             "--quiet"])))
    assert got == Settings("y", 3, 0.01, "o", "nardi", True)
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--games GAMES an int (default: 10)" in text and "--game GAME a choice (default: backgammon)" in text
    assert "name a positional" in text
    # no "(default: None)" / "(default: False)" where there is nothing to show
    assert "--out OUT an optional string" in text and "an optional string (default" not in text
    assert "a switch (default" not in text
