"""The one command line, ``nardibot`` (also ``python evaluate.py``, and ``python train.py`` for its train
command): ``main`` (the dispatch to a subcommand, ``--help``, ``--version``), and a module ``cmd_NAME``
per subcommand (``commands`` lists them): ``match`` (``duel``: cubeless games between two players), ``hint``, ``play`` (a person
against the bot, with ``terminal``: its console, colour and words, and ``play_hint``: the hint table
of the person's decision), ``serve`` (gnubg's external-player protocol), ``cube`` (games with the
cube between bots), ``rollout``, ``analyse`` (whole matches rated, with ``analyse_report`` and
``analyse_html``), ``web`` (the HTTP API and page of nardibot/web), ``ubgi`` (the UBGI engine protocol, model/service/ubgi_session.py),
``benchmark`` (checker-play error rates on the stored positions), ``train`` (a training recipe,
model/train/pipeline.py, or TD(lambda) self-play on its own), and ``common`` (the program's name ``nardibot`` in every usage and error line, JSON result
files, package versions, a progress bar, the money-play flags, and engine/tools/cli.py's one-line usage
errors and dataclass parsers).

Each command parses, asks model/service/ (the hint, the rollout, the match analysis, the bot's turn)
and prints; nothing imports a command line, the web API included (pyproject.toml's import contracts).
"""
