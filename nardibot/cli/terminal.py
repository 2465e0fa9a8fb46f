"""The terminal of ``nardibot play`` (nardibot/cli/cmd_play.py): the console that asks and tells, whether it
shows colour, and the words the person types and reads.

Colour: the board's checkers and the sides' names are drawn in ANSI colours only when the output is
a terminal (``isatty``), its ``TERM`` is not ``dumb``, and ``NO_COLOR`` is not set to a non-empty
value (https://no-color.org); a script, a pipe or a file gets plain text.
"""

from __future__ import annotations

import os

ACTIONS = {"r": "roll", "roll": "roll", "d": "double", "double": "double", "t": "take", "take": "take",
           "drop": "drop", "p": "drop", "pass": "drop", "beaver": "beaver", "b": "beaver", "a": "accept",
           "accept": "accept", "y": "accept", "yes": "accept", "reject": "reject", "n": "reject", "no": "reject"}
"""The person's one-word actions (and their short forms), by the engine.game transition they make."""
LEVEL_WORDS = {"backgammon": {"single": 1, "normal": 1, "win": 1, "1": 1, "gammon": 2, "2": 2,
                              "backgammon": 3, "3": 3},
               "nardi": {"single": 1, "normal": 1, "win": 1, "1": 1, "mars": 2, "2": 2}}
"""The words of ``resign [level]`` in each game."""
YES, NO = ("y", "yes"), ("n", "no", "")
"""Answers to a yes/no question (Enter is no)."""
CONFIRM, UNDO = ("", "ok", "y", "yes", "confirm", "r", "roll"), ("u", "undo", "back")
"""Answers while a play waits for its confirmation: Enter (or rolling on) makes it final; undo takes it back."""
HELP = {"backgammon": ("moves like 13/7 8/7, bar/22, 6/off, 8/5(2), then Enter plays it or undo lets you "
                       "move again; commands: roll, double, take, drop, beaver, accept, reject, "
                       "resign [single|gammon|backgammon], hint, board, help, quit"),
        "nardi": ("moves like 24/18 18/13, 24/13, 6/off (long nardi: no bar, no hitting, no cube), then Enter "
                  "plays it or undo lets you move again; commands: roll, accept, reject, resign [win|mars], "
                  "hint, board, help, quit")}
NAMES = ("you", "the bot")
"""How the person (player 0) and the bot (player 1) are called in engine.game's reasons."""


def wants_colour(stream, environ=None) -> bool:
    """Whether ``stream`` should get colour: a terminal, not TERM=dumb, NO_COLOR unset or empty."""
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed stream
        return False


class EndOfInput(Exception):
    """The input ended (or the person quit): the session stops."""


class Console:
    """Prompts on stdout, answers from an input stream line by line (or from the autoplayer).
    ``colour``: draw the board in colour (``wants_colour`` decides it for a real terminal)."""

    def __init__(self, lines, out, autoplay: bool = False, colour: bool = False):
        self.lines = lines
        self.out = out
        self.autoplay = autoplay
        self.colour = colour

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str, auto: str) -> str:
        """One answer; ``auto`` is what the autoplayer types. EndOfInput at the end of the input."""
        if self.autoplay:
            self.say(f"{prompt}{auto}")
            return auto
        print(prompt, end="", file=self.out, flush=True)
        line = self.lines.readline()
        if not line:
            self.say()
            raise EndOfInput("input ended")
        return line.strip()
