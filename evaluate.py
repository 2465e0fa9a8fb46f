"""Bot-vs-bot benchmarks, a hint, the gnubg server and play in the terminal: the project's one command
line. ``python evaluate.py ARGS`` is what ``nardibot ARGS`` runs once the project is installed.

    python evaluate.py A B --game backgammon --games 2000 --seed 1 --json out.json   cubeless games
    python evaluate.py hint POSITION [--dice 31] [--ply 2] [--json]   best plays / cube decision
    python evaluate.py serve --port 4321                             gnubg external-player server
    python evaluate.py play [--game nardi] [--match 5]               play the bot in the terminal
    python evaluate.py cube A B [--length 5] [--matches 1000]        games with the cube, full matches
    python evaluate.py web [--host 127.0.0.1] [--port 8000]          HTTP API and browser page ([web] extra)
    python evaluate.py ubgi                                          UBGI engine protocol on stdin/stdout
    python evaluate.py benchmark PLAYER [PLAYER ...]                 checker-play error rates (gnubg 2-ply judge)
    python evaluate.py match A B ...                                 the same as giving no subcommand

A and B are each a checkpoint path or a baseline name (random, heuristic, heuristic-easy, and for
backgammon pubeval, gnubg, gnubg-0ply, gnubg-1ply, gnubg-2ply). The commands live in the package, so
that the installed ``nardibot`` runs them too: the dispatch in model/cli/main.py, the match command in
model/cli/match.py, the others in model/cli/{hint,serve,play,cube,rollout,web,ubgi,benchmark}.py. ``--help`` after any command
lists its flags.

Bad flags, unknown players, missing or corrupt checkpoints: one line on stderr, exit status 2.
"""

import sys

from model.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
