"""``nardibot web``: the HTTP API and the browser page (nardibot/web/; the ``[web]`` extra).

    nardibot web [--host 127.0.0.1] [--port 8000] [--bot PATH] [--nardi-bot PATH] [--batch-wait MS]
                 [--allowed-hosts NAME,...]

then open http://127.0.0.1:8000/ for the page, http://127.0.0.1:8000/docs for the OpenAPI page
(Swagger UI; its script and style, like the page's, are served from here: nothing is fetched from
elsewhere; the schema is /openapi.json). The endpoints and their answers: nardibot/web/app.py. Both
games' nets are loaded once, before serving.
Requests are answered side by side on uvicorn's threads, each with numpy's BLAS on one thread
(model/runtime.py, as every command), so that concurrent clients share the cores instead of
oversubscribing them; their network calls of up to 4,096 positions that arrive while a forward pass
runs, or within ``--batch-wait`` milliseconds (default 2) of a call that waits for company, are merged
into one (nardibot/web/batch.py; ``--no-batching`` scores each request on its own). A request is
served only for the names of this server (nardibot/web/guard.py: a page elsewhere may not reach it by
DNS rebinding): localhost, 127.0.0.1, ::1, the --host it listens on, and the --allowed-hosts given
(the names a public deployment is reached by; "*": any). Ctrl-C stops the
server. A bad flag, a net that cannot be loaded, a missing extra or an address that cannot be listened
on: one line on stderr, exit status 2.
"""

from __future__ import annotations

import socket
import sys

from nardibot.cli.common import OneLineParser, UsageError, run_main
from nardibot.web.batch import WAIT  # numpy only: --help works without the [web] extra


def build_parser() -> OneLineParser:
    p = OneLineParser(prog="nardibot web", description="Serve the HTTP API and the browser page.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--bot", default=None, help="backgammon checkpoint (default: the shipped net)")
    p.add_argument("--nardi-bot", default=None, help="long-nardi checkpoint (default: the shipped net)")
    p.add_argument("--batch-wait", type=float, default=1000 * WAIT, metavar="MS",
                   help="concurrent requests' network calls are merged into one: those that arrive while a "
                        "forward pass runs, and those that come within MS milliseconds of a call that waits "
                        f"for company (default {1000 * WAIT:g}; 0: no waiting)")
    p.add_argument("--no-batching", action="store_true", help="score every request's positions on their own")
    p.add_argument("--rollout-workers", type=int, default=1, help="rollouts run side by side (default 1)")
    p.add_argument("--allowed-hosts", default="", metavar="NAME,...",
                   help="more names (or addresses) clients may reach the server by, besides localhost, 127.0.0.1, "
                        "::1 and --host; '*': any (the check that stops DNS rebinding off)")
    p.add_argument("--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug"),
                   help="uvicorn's log level (default warning)")
    return p


def web_main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    if not 0 <= args.batch_wait <= 1000:
        raise UsageError(f"--batch-wait must be 0..1000 milliseconds, got {args.batch_wait:g}")
    if args.rollout_workers < 1:
        raise UsageError(f"--rollout-workers must be at least 1, got {args.rollout_workers}")
    try:
        import uvicorn

        from nardibot.web.app import BotShelf, create_app
    except ImportError as err:
        raise UsageError(f"the web server needs the [web] extra (pip install -e '.[web]'): {err}") from None
    shelf = BotShelf({"backgammon": args.bot, "nardi": args.nardi_bot},
                     batch_wait=None if args.no_batching else args.batch_wait / 1000)
    for game in ("backgammon", "nardi"):
        try:
            shelf.get(game)
        except (ValueError, OSError) as err:
            raise UsageError(f"cannot load the {game} net: {(str(err).splitlines() or [type(err).__name__])[0]}") from None
    try:  # refuse an address in use in one line, before uvicorn logs its own traceback-free complaint
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as err:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    allowed = [args.host, *(name.strip() for name in args.allowed_hosts.split(",") if name.strip())]
    app = create_app(shelf, rollout_workers=args.rollout_workers, allowed_hosts=allowed)
    print(f"web: serving http://{args.host}:{args.port}/ (API: /api/..., OpenAPI: /docs); Ctrl-C stops",
          file=sys.stderr, flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def main(argv: list[str]) -> int:
    return run_main("nardibot web", web_main, argv)
