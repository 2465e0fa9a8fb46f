"""The command lines behind ``evaluate.py`` and the installed ``nardibot``: ``main`` (the dispatch to a
subcommand), ``match`` (cubeless games between two players), ``hint``, ``play`` (a person against the
bot, with ``terminal``: its console, colour and words, and ``play_decisions``: the bot's decisions and
the hint table), ``serve`` (gnubg's external-player protocol), ``cube`` (games with the cube between
bots), ``rollout``, ``analyse`` (whole matches rated), ``web`` (the HTTP API and page of model/web),
``ubgi`` (the UBGI engine protocol, through serve's agent), ``benchmark`` (checker-play error rates on
the stored positions), ``blas`` (numpy's BLAS threads, set first), and ``common`` (JSON result files,
package versions, a progress bar, the money-play flags, and engine/tools/cli.py's one-line
usage errors and dataclass parsers, which ``train.py`` uses too).

Imports anything in ``engine`` and ``model``; nothing imports a command line but model/web, the HTTP
entry point, which answers with the command lines' own builders (hint's ``analyse``, rollout's
``to_json``, play's decisions of the bot).
"""
