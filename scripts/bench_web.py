"""The HTTP API under load: N concurrent clients, a fixed number of hint requests, on 127.0.0.1.

    python scripts/bench_web.py [--clients 8] [--requests 400] [--requests-2ply 80] [--json FILE]
    python scripts/bench_web.py --variant batched= --variant unbatched=--no-batching --repeats 5 --requests-2ply 0
    python scripts/bench_web.py --variant before=@../main --variant after= --repeats 5 --requests-2ply 0

Starts ``python evaluate.py web`` on a free port (the server as users run it: uvicorn, one process),
then, for 0-ply and then 2-ply, ``--clients`` threads each keep one HTTP/1.1 connection and send their
share of the requests back to back: GET /api/hint of seeded middle-game positions with their dice
(engine.tools.sample), the same list for every run. Reports per ply the latency of each request as
the client sees it (median p50 and p99, seconds), the requests answered per second over the
phase's wall time, and the server process's CPU seconds per request (user + system, from /proc: on a
machine shared with other work the wall figures are noise, the CPU ones much less so); every answer
must be 200 with ranked plays. ``--variant NAME=FLAGS`` (repeatable) starts one server per variant
with those extra flags of ``evaluate.py web`` (``NAME=@DIR FLAGS``: the server of the checkout in DIR),
all at once, and runs the phases ``--repeats`` times
interleaved (the variants' order turned round each repeat); the figures then are medians over the
repeats. The load average before the run is recorded.
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process (all its threads) has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(flags: list[str]) -> tuple[subprocess.Popen, int]:
    """``evaluate.py web`` with ``flags`` on a free port, once it answers; a first flag ``@DIR`` runs the
    server of the checkout in DIR instead of this one (the code before a change, say)."""
    root = ROOT
    if flags and flags[0].startswith("@"):
        root, flags = Path(flags[0][1:]).resolve(), flags[1:]
    port = free_port()
    server = subprocess.Popen([sys.executable, str(root / "evaluate.py"), "web", "--port", str(port), *flags],
                              cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(root)))
    wait_until_up(port, server)
    return server, port


def median_of(runs: list[dict]) -> dict:
    keys = ("requests_per_s", "p50_s", "p99_s", "cpu_ms_per_request")
    return {"requests": runs[0]["requests"], "clients": runs[0]["clients"], "repeats": len(runs),
            **{k: round(statistics.median(r[k] for r in runs), 4) for k in keys}}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400, help="0-ply requests in all")
    parser.add_argument("--requests-2ply", type=int, default=80, help="2-ply requests in all (0: none)")
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=FLAGS",
                        help="a server with these extra flags (repeatable; default: one, no extra flags)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of the phases per variant, interleaved")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    if any("=" not in v for v in args.variant) or args.repeats < 1 or args.clients < 1:
        parser.error("--variant is NAME=FLAGS; --repeats and --clients are at least 1")
    variants = dict(v.split("=", 1) for v in args.variant) or {"default": ""}

    from engine.formats.position import write_position_id
    from engine.tools.sample import random_positions

    positions, dice = random_positions("backgammon", args.positions, seed=args.seed, kind="midgame")
    queries = [f"position={urllib.parse.quote(write_position_id(p))}&dice={d[0]}{d[1]}" for p, d in zip(positions, dice)]
    phases = [(ply, count) for ply, count in ((0, args.requests), (2, args.requests_2ply)) if count > 0]
    load = os.getloadavg()[0]
    servers = {}
    runs = {name: {ply: [] for ply, _ in phases} for name in variants}
    try:
        for name, flags in variants.items():
            servers[name] = start_server(flags.split())
        for repeat in range(args.repeats):
            names = list(variants)
            names = names[repeat % len(names):] + names[:repeat % len(names)]
            for name in names:
                server, port = servers[name]
                for ply, count in phases:
                    paths = [f"/api/hint?{queries[k % len(queries)]}&ply={ply}" for k in range(count)]
                    cpu = cpu_seconds(server.pid)
                    phase = run_phase(port, paths, args.clients)
                    phase["cpu_ms_per_request"] = round(1000 * (cpu_seconds(server.pid) - cpu) / count, 3)
                    phase["load_average"] = round(os.getloadavg()[0], 2)
                    runs[name][ply].append(phase)
                    print(f"{name} #{repeat + 1}: {ply}-ply hint: {phase['requests']} requests from "
                          f"{phase['clients']} clients: p50 {phase['p50_s'] * 1000:.0f} ms, p99 "
                          f"{phase['p99_s'] * 1000:.0f} ms, {phase['requests_per_s']:.1f} requests/s, "
                          f"{phase['cpu_ms_per_request']:.1f} ms CPU per request (load {phase['load_average']})",
                          flush=True)
    finally:
        for server, _ in servers.values():
            server.terminate()
            server.wait(30)
    result = {"load_average_before": round(load, 2), "load_average_after": round(os.getloadavg()[0], 2),
              "cpus": os.cpu_count(), "repeats": args.repeats}
    result["variants"] = {}
    for name, flags in variants.items():
        medians = {f"ply{ply}": median_of(runs[name][ply]) for ply, _ in phases}
        result["variants"][name] = {"flags": flags, **medians, "runs": runs[name]}
        for ply, _ in phases:
            m = medians[f"ply{ply}"]
            print(f"{name} ({flags or 'no extra flags'}), median of {m['repeats']}: {ply}-ply p50 "
                  f"{m['p50_s'] * 1000:.0f} ms, p99 {m['p99_s'] * 1000:.0f} ms, {m['requests_per_s']:.1f} "
                  f"requests/s, {m['cpu_ms_per_request']:.1f} ms CPU per request")
    if args.json:
        import numpy as np

        result["versions"] = {"python": sys.version.split()[0], "numpy": np.__version__}
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
