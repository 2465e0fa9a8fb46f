"""The project's one command line from a checkout: ``python evaluate.py ARGS`` is what ``nardibot ARGS``
runs once the project is installed (nardibot/cli/main.py), and names itself ``nardibot`` in its usage and
error lines.

    python evaluate.py --help                                        the subcommands, one line each
    python evaluate.py --version                                     nardibot X.Y.Z
    python evaluate.py duel A B --game backgammon --games 2000 --seed 1 --json out.json   cubeless games
    python evaluate.py A B ...                                       the same as duel (and as match)
    python evaluate.py hint POSITION [--dice 31] [--ply 2] [--json]   best plays / cube decision
    python evaluate.py rollout POSITION [--dice 31]                  roll out a position or a roll's plays
    python evaluate.py analyse FILE.mat|sgf [--ply 2]                rate every decision of a match
    python evaluate.py serve --port 4321                             gnubg external-player server
    python evaluate.py play [--game nardi] [--match 5]               play the bot in the terminal
    python evaluate.py cube A B [--length 5] [--matches 1000]        games with the cube, full matches
    python evaluate.py web [--host 127.0.0.1] [--port 8000]          HTTP API and browser page ([web] extra)
    python evaluate.py ubgi                                          UBGI engine protocol on stdin/stdout
    python evaluate.py benchmark PLAYER [PLAYER ...]                 checker-play error rates (gnubg 2-ply)
    python evaluate.py train ...                                     TD self-play training (as train.py)

A and B are each a checkpoint path or a baseline name (random, heuristic, heuristic-easy, and for
backgammon pubeval, gnubg, gnubg-0ply, gnubg-1ply, gnubg-2ply). The commands live in the package, so
that the installed ``nardibot`` runs them too: the dispatch in nardibot/cli/main.py, each subcommand in
nardibot/cli/cmd_NAME.py (duel and match in cmd_match.py). ``--help`` after any command lists its flags.

Bad flags, unknown players, missing or corrupt checkpoints: one line on stderr, exit status 2.
"""

import sys

from nardibot.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
