"""The HTTP API under load: N concurrent clients, a fixed number of hint requests, on 127.0.0.1.

    python scripts/bench_web.py [--clients 8] [--requests 400] [--requests-2ply 80] [--json docs/bench_web.json]

Starts ``python evaluate.py web`` on a free port (the server as users run it: uvicorn, one process),
then, for 0-ply and then 2-ply, ``--clients`` threads each keep one HTTP/1.1 connection and send their
share of the requests back to back: GET /api/hint of seeded middle-game positions with their dice
(engine.tools.sample), the same list for every run. Reports per ply the latency of each request as
the client sees it (median p50 and p99, seconds) and the requests answered per second over the
phase's wall time; every answer must be 200 with ranked plays. The load average before the run is
recorded: the figures are only comparable on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(port: int, server: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server stopped: {server.stderr.read()}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/api/regions")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not come up")


def run_phase(port: int, paths: list[str], clients: int) -> dict:
    """Send ``paths`` (GETs) over ``clients`` connections at once; latencies and requests per second."""
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()
    shares = [paths[k::clients] for k in range(clients)]

    def client(share):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        mine = []
        for path in share:
            start = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            mine.append(time.perf_counter() - start)
            if response.status != 200 or not json.loads(body).get("plays"):
                with lock:
                    failures.append(f"{response.status} {body[:200]!r}")
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(share,)) for share in shares]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    if failures:
        raise SystemExit(f"{len(failures)} requests failed, e.g. {failures[0]}")
    ordered = sorted(latencies)
    return {"requests": len(latencies), "clients": clients, "wall_s": round(wall, 3),
            "requests_per_s": round(len(latencies) / wall, 2), "p50_s": round(statistics.median(ordered), 4),
            "p99_s": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 4),
            "max_s": round(ordered[-1], 4)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400, help="0-ply requests in all")
    parser.add_argument("--requests-2ply", type=int, default=80, help="2-ply requests in all")
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from engine.formats.position import write_position_id
    from engine.tools.sample import random_positions

    positions, dice = random_positions("backgammon", args.positions, seed=args.seed, kind="midgame")
    queries = [f"position={urllib.parse.quote(write_position_id(p))}&dice={d[0]}{d[1]}" for p, d in zip(positions, dice)]
    port = free_port()
    load = os.getloadavg()[0]
    server = subprocess.Popen([sys.executable, str(ROOT / "evaluate.py"), "web", "--port", str(port)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        wait_until_up(port, server)
        result = {"load_average_before": round(load, 2), "cpus": os.cpu_count()}
        for ply, count in ((0, args.requests), (2, args.requests_2ply)):
            paths = [f"/api/hint?{queries[k % len(queries)]}&ply={ply}" for k in range(count)]
            result[f"ply{ply}"] = phase = run_phase(port, paths, args.clients)
            print(f"{ply}-ply hint: {phase['requests']} requests from {phase['clients']} clients: "
                  f"p50 {phase['p50_s'] * 1000:.0f} ms, p99 {phase['p99_s'] * 1000:.0f} ms, "
                  f"{phase['requests_per_s']:.1f} requests/s")
    finally:
        server.terminate()
        server.wait(30)
    if args.json:
        import numpy as np

        result["versions"] = {"python": sys.version.split()[0], "numpy": np.__version__}
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
