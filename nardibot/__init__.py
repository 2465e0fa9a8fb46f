"""The doors of the program: the ``nardibot`` command line (nardibot/cli/) and the HTTP API with its
browser page (nardibot/web/). They parse, call the answers of model/service/ and format; nothing in
``engine`` or ``model`` imports them.
"""

__version__ = "0.1.0"
"""The project's version: pyproject.toml reads it from here (the wheel's name), ``nardibot --version``
prints it with the shipped nets, and UBGI's ``id`` prints it."""
