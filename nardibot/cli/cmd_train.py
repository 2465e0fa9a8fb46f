"""``nardibot train``: make a network from scratch, by a whole recipe or by TD self-play alone.

    nardibot train recipes/quick.toml --run-dir runs/quick           # a recipe: every stage, resumable
    nardibot train --run-dir runs/quick --resume                      # go on where it stopped
    nardibot train --game backgammon --games 300000 --run-dir runs/bg # TD self-play only (flags below)

With a RECIPE (a TOML file, or the name of a shipped one: quick, backgammon, nardi) the run is
model/train/pipeline.py's: its stages in order, the run folder holding the whole state. Without one,
the flags are a TD self-play run (model/train/selfplay.py): ``--help`` lists them. A folder that holds
a recipe run (its manifest.json) is resumed as a recipe run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from nardibot.cli.common import PROG, UsageError, run_main

SWITCHES = ("--resume", "--no-progress", "--exact-endgames", "--skip-exact")
"""The train flags that take no value: a word after one of them is not that flag's value."""


def run_folder(argv: list[str]) -> Path | None:
    """The --run-dir of ``argv``, None without one."""
    for i, word in enumerate(argv):
        if word.startswith("--run-dir="):
            return Path(word.split("=", 1)[1])
        if word == "--run-dir" and i + 1 < len(argv):
            return Path(argv[i + 1])
    return None


def is_recipe_run(argv: list[str]) -> bool:
    """Whether ``argv`` asks for a recipe run: a word that is not a flag nor a flag's value (the
    recipe, wherever it stands), or a run folder that holds a recipe run's manifest."""
    for i, word in enumerate(argv):
        after = argv[i - 1] if i else ""
        if not word.startswith("-") and (not after.startswith("-") or after in SWITCHES or "=" in after):
            return True
    folder = run_folder(argv)
    return folder is not None and (folder / "manifest.json").is_file()


def build_parser():
    """The self-play flags' parser (model/train/selfplay.py), for --help and for scripts."""
    from model.train.selfplay import build_parser as selfplay_parser

    return selfplay_parser()


def main(argv: list[str] | None = None, command: str = f"{PROG} train") -> int:
    """``nardibot train`` (and ``python train.py``, which records itself as ``command``): 0 when done, 2 on
    bad flags, a bad recipe or a run that cannot start (one line on stderr), 1 when a checkpoint cannot
    be written (a full disk; one line), 130 after Ctrl-C or SIGTERM."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if is_recipe_run(argv):
        from model.train.pipeline import main as recipe_main

        def recipe_run(words: list[str]) -> int:
            folder = run_folder(words)
            if folder is not None and (folder / "manifest.json").is_file() and "--resume" not in words:
                raise UsageError(f"{folder} holds a recipe run: `{PROG} train --run-dir {folder} --resume` goes on "
                                 "with it")
            return recipe_main(words, command)

        return run_main(f"{PROG} train", recipe_run, argv)
    from model.train.selfplay import train

    return run_main(f"{PROG} train", lambda words: train(words, command), argv)
