"""Fixtures of the web tests: the application (one per session: the nets are loaded once) and a real
uvicorn server on 127.0.0.1 in a thread, for what only a socket shows (closed connections, a browser).
The tests skip when the [web] extra (fastapi, uvicorn, httpx) is not installed."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest


@pytest.fixture(scope="session")
def web_app():
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from nardibot.web.app import create_app

    return create_app()


@pytest.fixture(scope="session")
def client(web_app):
    from fastapi.testclient import TestClient

    with TestClient(web_app, base_url="http://127.0.0.1") as test_client:  # a host the server serves
        yield test_client


@contextmanager
def serving(app):
    """The base URL of a uvicorn server of ``app`` listening on a free port of 127.0.0.1, while the
    ``with`` block runs."""
    uvicorn = pytest.importorskip("uvicorn")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert time.time() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="session")
def live_server(web_app):
    """The base URL of a uvicorn server of ``web_app`` (``serving``)."""
    with serving(web_app) as url:
        yield url
