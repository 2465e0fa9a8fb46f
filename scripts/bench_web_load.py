"""The HTTP API under mixed load: hints from many clients while rollout jobs run and are cancelled.

    python scripts/bench_web_load.py [--clients 16] [--seconds 60] [--share-2ply 0.1] [--warmup 10] [--json FILE]

Starts ``python evaluate.py web`` on a free port of 127.0.0.1 (the server as users run it: uvicorn, one
process, one rollout worker) and warms it up (a 0-ply and a 2-ply hint, a short rollout: the nets and
the bear-off databases loaded; then ``--warmup`` seconds of the hints below, without rollouts, so that
the threads that answer them have grown their memory), then for ``--seconds``:

- ``--clients`` threads, each on one HTTP/1.1 connection, send GET /api/hint back to back for seeded
  middle-game positions with their dice (engine.tools.sample), at 2 ply with probability
  ``--share-2ply``, else at 0 ply; every answer must be 200 with ranked plays;
- one more thread starts rollout jobs of 100,000 trials of the opening 3-1 (POST /api/rollout), at 2,
  1 and 0 ply in turn, each with two more queued behind it; the queued ones are cancelled at once, the
  running one after ``--cancel-after`` seconds (DELETE), and each is polled until it has finished.

Then every job is cancelled and the server left idle for ``--settle`` seconds. Reports the requests
answered per second, the latency of each as the client sees it (p50 and p99, seconds; by ply and in
all), the seconds from a DELETE to the job's end (the longest), and the server's memory: resident set
after the warm-up ("start"), its high-water mark over the run (VmHWM, "peak"; the warm-up included),
and after the jobs ended and the server settled ("end"). Linux only (/proc). The load average before
and after is recorded: on a machine shared with other work the figures are noisy.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_web import start_server  # the sibling script: a server on a free port

ROLLOUT = {"position": "4HPwATDgc/ABMA", "dice": "31", "trials": 100_000}
FINISHED = ("done", "cancelled", "failed")


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """A memory figure of a process from /proc/PID/status (VmRSS: now; VmHWM: its peak), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no {field} in /proc/{pid}/status")


class Api:
    """One HTTP/1.1 connection to the server: JSON in, (status, JSON) out."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        headers = {} if body is None else {"Content-Type": "application/json"}
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def finished(self, job_id: str) -> dict:
        while True:
            status, job = self.call("GET", f"/api/rollout/{job_id}")
            if status != 200 or job["status"] in FINISHED:
                return job
            time.sleep(0.05)


def hint_clients(port: int, queries: list[str], clients: int, share_2ply: float, stop: threading.Event,
                 seed: int) -> tuple[dict, list[str]]:
    """Hint requests back to back from ``clients`` connections until ``stop``: latencies by ply, failures."""
    latencies: dict[int, list[float]] = {0: [], 2: []}
    failures: list[str] = []
    lock = threading.Lock()

    def client(k: int):
        api, rng, mine = Api(port), random.Random(seed * 1000 + k), {0: [], 2: []}
        while not stop.is_set():
            ply = 2 if rng.random() < share_2ply else 0
            start = time.perf_counter()
            status, answer = api.call("GET", f"/api/hint?{rng.choice(queries)}&ply={ply}")
            mine[ply].append(time.perf_counter() - start)
            if status != 200 or not answer.get("plays"):
                with lock:
                    failures.append(f"{status} {str(answer)[:200]}")
        with lock:
            for ply, times in mine.items():
                latencies[ply].extend(times)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, failures


def rollout_driver(port: int, cancel_after: float, stop: threading.Event, report: dict) -> None:
    """Rollout jobs started, queued, cancelled (module docstring) until ``stop``; into ``report``."""
    api, plies, k = Api(port), (2, 1, 0), 0
    while not stop.is_set():
        ply = plies[k % len(plies)]
        k += 1
        ids = []
        for _ in range(3):
            status, job = api.call("POST", "/api/rollout", {**ROLLOUT, "ply": ply})
            if status != 202:
                report["refused"].append(f"{status} {job}")
                continue
            ids.append(job["id"])
            report["started"] += 1
        for queued in ids[1:]:
            api.call("DELETE", f"/api/rollout/{queued}")
        stop.wait(cancel_after)
        for job_id in ids:
            asked = time.perf_counter()
            api.call("DELETE", f"/api/rollout/{job_id}")
            job = api.finished(job_id)
            report["cancel_s"].append(time.perf_counter() - asked)
            report["statuses"][job["status"]] = report["statuses"].get(job["status"], 0) + 1
            report["trials_done"].append(job["done"])


def summary(times: list[float], wall: float) -> dict:
    if not times:
        return {"requests": 0}
    ordered = sorted(times)
    return {"requests": len(ordered), "requests_per_s": round(len(ordered) / wall, 2),
            "p50_s": round(statistics.median(ordered), 4),
            "p99_s": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 4)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--share-2ply", type=float, default=0.1, help="share of the hints asked at 2 ply")
    parser.add_argument("--cancel-after", type=float, default=4, help="seconds a running job runs before its DELETE")
    parser.add_argument("--settle", type=float, default=5, help="seconds idle after the jobs ended, before 'end'")
    parser.add_argument("--warmup", type=float, default=10, help="seconds of hints alone before 'start'")
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    if args.clients < 1 or args.seconds <= 0 or not 0 <= args.share_2ply <= 1:
        parser.error("--clients >= 1, --seconds > 0, --share-2ply within 0..1")

    from engine.formats.position import write_position_id
    from engine.tools.sample import random_positions

    positions, dice = random_positions("backgammon", args.positions, seed=args.seed, kind="midgame")
    queries = [f"position={urllib.parse.quote(write_position_id(p))}&dice={d[0]}{d[1]}"
               for p, d in zip(positions, dice)]
    load = os.getloadavg()[0]
    server, port = start_server([])
    try:
        api = Api(port)
        for ply in (0, 2):
            assert api.call("GET", f"/api/hint?{queries[0]}&ply={ply}")[0] == 200
        status, job = api.call("POST", "/api/rollout", {**ROLLOUT, "trials": 36, "truncate": 40})
        assert status == 202 and api.finished(job["id"])["status"] == "done", job
        warm = threading.Event()
        threading.Timer(args.warmup, warm.set).start()
        hint_clients(port, queries, args.clients, args.share_2ply, warm, args.seed + 1)
        start_mb = memory_mb(server.pid)
        stop, jobs = threading.Event(), {"started": 0, "refused": [], "cancel_s": [], "statuses": {}, "trials_done": []}
        driver = threading.Thread(target=rollout_driver, args=(port, args.cancel_after, stop, jobs))
        timer = threading.Timer(args.seconds, stop.set)
        began = time.perf_counter()
        driver.start()
        timer.start()
        latencies, failures = hint_clients(port, queries, args.clients, args.share_2ply, stop, args.seed)
        wall = time.perf_counter() - began
        driver.join()
        time.sleep(args.settle)
        peak_mb, end_mb = memory_mb(server.pid, "VmHWM"), memory_mb(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    result = {
        "clients": args.clients, "seconds": round(wall, 1), "share_2ply": args.share_2ply,
        "all": summary(latencies[0] + latencies[2], wall), "ply0": summary(latencies[0], wall),
        "ply2": summary(latencies[2], wall), "failures": len(failures), "failure_example": failures[:1],
        "rollout_jobs": {"started": jobs["started"], "refused": len(jobs["refused"]), "statuses": jobs["statuses"],
                         "longest_cancel_s": round(max(jobs["cancel_s"], default=0), 2),
                         "most_trials_done": max(jobs["trials_done"], default=0)},
        "memory_mb": {"start": round(start_mb), "peak": round(peak_mb), "end": round(end_mb)},
        "load_average_before": round(load, 2), "load_average_after": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    a, m, r = result["all"], result["memory_mb"], result["rollout_jobs"]
    print(f"{a['requests']} hints from {args.clients} clients in {wall:.0f} s: {a['requests_per_s']:.1f} requests/s, "
          f"p50 {1000 * a['p50_s']:.0f} ms, p99 {1000 * a['p99_s']:.0f} ms (0-ply p50 "
          f"{1000 * result['ply0'].get('p50_s', 0):.0f} ms, 2-ply p50 {1000 * result['ply2'].get('p50_s', 0):.0f} ms), "
          f"{len(failures)} failed")
    print(f"{r['started']} rollout jobs started, {r['statuses']}, the longest from DELETE to its end "
          f"{r['longest_cancel_s']:.2f} s")
    print(f"server memory: {m['start']} MB after the warm-up, peak {m['peak']} MB, {m['end']} MB after the jobs "
          f"ended (load average {result['load_average_before']} before, {result['load_average_after']} after)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 1 if failures or jobs["refused"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
