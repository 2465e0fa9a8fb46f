"""The HTTP API and its browser page (``nardibot web``; needs the ``[web]`` extra).

    app.py     the FastAPI application: /api/hint, /api/cube, /api/evaluate, /api/board, /api/rollout,
               /api/game (play against the bot), the page; bad requests answered 4xx in one line
    compat.py  drop-in doors for programs written for other bots: wildbg's GET /move and /eval,
               bgweb-api's POST /api/v1/getmoves, in their own request and response shapes
    batch.py   NetBatcher: the network calls of concurrent requests merged into one
    jobs.py    rollouts as background jobs: progress, polling, cancelling
    play_sessions.py  games and matches against the bot for the page, the engine keeping the rules
    static/    the page: index.html, app.js, style.css (plain files, no build step)

Like the command line it is a door: it reads requests and serves the answers of model/service/ (the
hint, the evaluation and cube decision, the rollout, the match analysis, the bot's turn in a game),
the very answers the command lines print; it does not import nardibot/cli/. Nothing imports it but
nardibot/cli/cmd_web.py.
"""
