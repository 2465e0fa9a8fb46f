"""The HTTP API and its browser page (``python evaluate.py web``; needs the ``[web]`` extra).

    app.py     the FastAPI application: /api/hint, /api/cube, /api/evaluate, /api/board, /api/rollout,
               /api/game (play against the bot), the page; bad requests answered 4xx in one line
    batch.py   NetBatcher: the network calls of concurrent requests merged into one
    jobs.py    rollouts as background jobs: progress, polling, cancelling
    game.py    games and matches against the bot for the page, the engine keeping the rules
    static/    the page: index.html, app.js, style.css (plain files, no build step)

Like model/cli it is an entry point: it may import every room and the command lines' builders of
answers (model/cli/hint.py's ``analyse``, model/cli/rollout.py's ``to_json``, model/cli/play.py's
decisions of the bot), so that an answer over HTTP is the command line's answer. Nothing imports it
but model/cli/web.py.
"""
