"""What another site's page could make a browser send to the server is refused before it is read.

A page elsewhere cannot read the server's answers (no CORS headers are sent), but it can still make the
browser send requests: by DNS rebinding (its own name resolving to 127.0.0.1, so that it may read the
answers too: the request carries that name as Host), or by a form or a plain ``fetch`` (POST bodies of
text/plain, urlencoded or multipart, or with no type, go out without the browser asking the server
first). ``Guard`` (ASGI middleware, nardibot/web/app.py's ``create_app`` adds it) answers them with one
line {"error": "..."}:

    400  a Host header naming none of the hosts served (``LOCAL_HOSTS``, ``nardibot web --host``,
         ``--allowed-hosts``; "*" serves any)
    403  a request to /api/ that the browser marks as made by another site's page (Sec-Fetch-Site:
         cross-site)
    415  a POST to /api/ whose body is not of its endpoint's type: application/json (or +json), or
         ``ANALYSE_TYPE`` for /api/analyse's .mat file

A request without a Host header (HTTP/1.0; no browser sends one) passes the host check.
"""

from __future__ import annotations

import json

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The names every server answers to (``create_app``'s ``allowed_hosts`` adds more)."""
ANALYSE_TYPE = "application/octet-stream"
"""The Content-Type of /api/analyse's body (a .mat file); every other POST body is application/json."""


def hostname(host: str) -> str:
    """The name of a Host header, lower case, without its port, brackets or final dot."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return (host.rsplit(":", 1)[0] if host.count(":") == 1 else host).rstrip(".")


class Guard:
    """ASGI middleware (module docstring): ``hosts`` are the names served, "*" among them: any."""

    def __init__(self, app, hosts):
        self.app = app
        self.hosts = None if "*" in hosts else {hostname(h) for h in hosts if h}

    async def __call__(self, scope, receive, send):
        refusal = self.refusal(scope) if scope["type"] == "http" else None
        if refusal is None:
            return await self.app(scope, receive, send)
        body = json.dumps({"error": refusal[1]}).encode()
        await send({"type": "http.response.start", "status": refusal[0],
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    def refusal(self, scope) -> tuple[int, str] | None:
        """(status, the error line) of a request to refuse, or None."""
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        if self.hosts is not None and host and hostname(host) not in self.hosts:
            name = hostname(host)[:100]
            return 400, (f"the host {name!r} is not served here: ask for 127.0.0.1 or localhost, or start the "
                         f"server with --allowed-hosts {name}")
        path = scope.get("path", "")
        if not path.startswith("/api/"):
            return None
        if headers.get(b"sec-fetch-site") == b"cross-site":
            return 403, "a request made by another site's page is refused"
        if scope.get("method") == "POST":
            wanted = ANALYSE_TYPE if path.rstrip("/") == "/api/analyse" else "application/json"
            got = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
            if got != wanted and not (wanted == "application/json" and got.endswith("+json")):
                return 415, f"send the body as {wanted} (its Content-Type), not {got[:60] or 'without a type'}"
        return None
