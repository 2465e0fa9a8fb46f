"""The command lines behind ``evaluate.py``: ``hint``, ``play`` (a person against the bot),
``serve`` (gnubg's external-player protocol), ``cube`` (games with the cube between bots), and
``common`` (JSON result files, package versions).

Imports anything in ``engine`` and ``model``; nothing imports a command line.
"""
