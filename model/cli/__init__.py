"""The command lines behind ``evaluate.py``: ``hint``, ``play`` (a person against the bot),
``serve`` (gnubg's external-player protocol), ``cube`` (games with the cube between bots), and
``common`` (JSON result files, package versions, and engine/tools/cli.py's one-line usage errors and
dataclass parsers, which ``train.py`` and ``evaluate.py`` use too).

Imports anything in ``engine`` and ``model``; nothing imports a command line.
"""
