"""Record what every door of the program answers on a fixed set of inputs, to compare two trees.

    python scripts/answers_snapshot.py OUT_DIR [--root TREE]
    diff -r OUT_A OUT_B

Runs, in the tree ``--root`` (default: this checkout) through its own ``evaluate.py``: seeded duels
(backgammon and nardi, one with luck adjustment), a seeded cube arena (money and a match), a seeded
rollout, the analysis of a stored match, hints at 0, 1 and 2 ply and a cube decision in several
notations, gnubg's external-player protocol (serve) on a socket, the UBGI engine on a pipe and the
HTTP API of ``web``; and hashes the move generator's children on the engine's bench sets. Every
answer is written to its own file in OUT_DIR, with times and version strings left out, so that two
trees that behave alike give identical folders.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

OPENING = "4HPwATDgc/ABMA"
POSITIONS = [  # (position, dice) pairs for hint, in three notations; None: the cube decision
    (OPENING, "31"), (OPENING, "66"), ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", None),
    ("XGID=-AAA---------------cccbbb-:0:0:1:D:0:0:1:0:10", None), ("XGID=-CCCCB------------cbbbbbbA:0:0:1:66:0:0:1:0:10", None),
    ("sGfwATDgc/ABMA:cAkAAAAAAAAA", None), (('{"board": [2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -5, -5, -5, 0, 0, 0], '
                                            '"bar": [0, 0], "off": [11, 0]}'), "21"),
]
TIMING = re.compile(r'"(seconds|elapsed|wall_s|cpu_s|games_per_s|positions_per_s|trials_per_s|started|finished|'
                    r'date|versions|version|time|elapsed_s|per_second|rate)": [^,}\]]+(?=[,}\]])')


def scrub(text: str) -> str:
    """Leave out figures that change from run to run (times, rates, versions, temporary paths)."""
    text = TIMING.sub(lambda m: f'"{m.group(1)}": "-"', text)
    text = re.sub(r"/tmp/[A-Za-z0-9_./-]+", "/tmp/-", text)
    text = re.sub(r"\d+(\.\d+)? ?(s|ms|games/s|pos/s|trials/s)\b", "-", text)
    text = re.sub(r"time_ms \d+", "time_ms -", text)  # UBGI's info lines
    return text


def run(root: Path, args: list[str], stdin: str | None = None, timeout: int = 900) -> str:
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "evaluate.py", *args], cwd=root, env=env, input=stdin,
                          capture_output=True, text=True, timeout=timeout, check=False)
    return f"exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def json_file_of(root: Path, args: list[str]) -> str:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "out.json"
        text = run(root, [*args, "--json", str(target), "--no-progress"])
        body = json.dumps(json.loads(target.read_text()), indent=1, sort_keys=True) if target.exists() else "(none)"
    return text + "\n--- json\n" + body


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served(root: Path, args: list[str]):
    """A server of the tree (``evaluate.py ARGS``) running for the ``with`` block, then stopped."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(root))
    server = subprocess.Popen([sys.executable, "evaluate.py", *args], cwd=root, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield server
    finally:
        server.terminate()
        server.wait(timeout=30)


def serve_answers(root: Path) -> str:
    """gnubg's external-player protocol: a board line in, the bot's play or cube action out."""
    port = free_port()
    boards = [("board:bot:gnubg:3:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:5:6:5:6:1:1:1:0:"
              "1:-1:0:25:0:0:0:0:0:0:0:1"),
              ("board:bot:gnubg:3:0:0:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:-1:0:0:0:0:1:1:1:0:"
              "1:-1:0:25:0:0:0:0:0:0:0:1")]
    lines = []
    with served(root, ["serve", "--port", str(port)]):
        for _ in range(200):
            try:
                client = socket.create_connection(("127.0.0.1", port), timeout=60)
                break
            except OSError:
                time.sleep(0.1)
        with client:
            reader = client.makefile("r")
            for board in boards:
                client.sendall((board + "\n").encode())
                lines.append(f"{board}\n  -> {reader.readline().rstrip()}")
    return "\n".join(lines) + "\n"


def web_answers(root: Path) -> str:
    """The HTTP API: hints, a cube decision, an evaluation, a board picture and a refused request."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    requests = [("GET", f"/api/hint?position={OPENING}&dice=31&ply=1", None),
                ("POST", "/api/hint", {"position": OPENING, "dice": [6, 4], "ply": 2}),
                ("GET", "/api/cube?position=XGID%3D-AAA---------------cccbbb-%3A0%3A0%3A1%3AD%3A0%3A0%3A1%3A0%3A10", None),
                ("POST", "/api/evaluate", {"position": OPENING}),
                ("POST", "/api/hint", {"position": {"board": [-2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                             0, 0, 0, 0, 0, 15]}, "game": "nardi", "dice": "65"}),
                ("POST", "/api/hint", {"position": OPENING, "dice": "77"}),
                ("GET", "/api/board?position=4HPwATDgc/ABMA&dice=31&play=8/5%206/5", None)]
    lines = []
    with served(root, ["web", "--port", str(port)]):
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/api/regions", timeout=5)
                break
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        for method, path, body in requests:
            data = json.dumps(body).encode() if body is not None else None
            request = urllib.request.Request(base + path, data=data, method=method,
                                             headers={"content-type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=120) as reply:
                    status, text = reply.status, reply.read().decode()
            except urllib.error.HTTPError as refused:
                status, text = refused.code, refused.read().decode()
            lines.append(f"{method} {path} {json.dumps(body)}\n  -> {status} {text}")
    return "\n".join(lines) + "\n"


def generator_hashes(root: Path) -> str:
    code = ("import hashlib, numpy as np\n"
            "from engine.tools.sample import random_positions\n"
            "from engine.movegen import legal_plays\n"
            "for game in ('backgammon', 'nardi'):\n"
            "    for seed in (1, 2):\n"
            "        pos, dice = random_positions(game, 1024, seed=seed)[:2]\n"
            "        children, parents = legal_plays(game, pos, dice)[:2]\n"
            "        print(game, seed, len(children), hashlib.sha256(np.ascontiguousarray(children).tobytes()"
            " + np.ascontiguousarray(parents).tobytes()).hexdigest())\n")
    env = dict(os.environ, PYTHONPATH=str(root))
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the answers to")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help="tree to run")
    args = parser.parse_args()
    root, out = args.root.resolve(), args.out
    out.mkdir(parents=True, exist_ok=True)
    ubgi_lines = ["ubgi", "isready", "newgame", "position xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10",
                  "go role chequer", "position xgid XGID=-AAA---------------cccbbb-:0:0:1:D:0:0:1:0:10", "go role cube",
                  "position gnubgid 4HMwAAb2NhgAAw", "dice 5 2", "go role turn", "nonsense", "quit"]
    jobs = {
        "duel_backgammon": lambda: json_file_of(root, ["checkpoints/backgammon.safetensors", "pubeval", "--games", "200",
                                                       "--seed", "7"]),
        "duel_luck": lambda: json_file_of(root, ["checkpoints/backgammon.safetensors", "heuristic", "--games", "40",
                                                 "--seed", "3", "--luck", "checkpoints/backgammon.safetensors"]),
        "duel_nardi": lambda: json_file_of(root, ["checkpoints/nardi.safetensors", "heuristic", "--game", "nardi",
                                                  "--games", "60", "--seed", "5"]),
        "cube_money": lambda: json_file_of(root, ["cube", "checkpoints/backgammon.safetensors", "pubeval",
                                                  "--matches", "40", "--seed", "11", "--jacoby", "--beavers"]),
        "cube_match": lambda: json_file_of(root, ["cube", "checkpoints/backgammon.safetensors", "heuristic",
                                                  "--length", "3", "--matches", "8", "--seed", "13"]),
        "rollout_plays": lambda: run(root, ["rollout", OPENING, "--dice", "31", "--trials", "72", "--seed", "1",
                                            "--json", "--no-progress", "--processes", "1"]),
        "rollout_cube": lambda: run(root, ["rollout", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
                                           "--trials", "36", "--truncate", "8", "--seed", "2", "--json",
                                           "--no-progress", "--processes", "1"]),
        "analyse": lambda: run(root, ["analyse", "tests/data/gnubg_3point.mat", "--json"]),
        "analyse_table": lambda: run(root, ["analyse", "tests/data/gnubg_3point.mat", "--ply", "1"]),
        "ubgi": lambda: run(root, ["ubgi"], stdin="\n".join(ubgi_lines) + "\n"),
        "serve": lambda: serve_answers(root),
        "web": lambda: web_answers(root),
        "movegen": lambda: generator_hashes(root),
    }
    for k, (position, dice) in enumerate(POSITIONS):
        for ply in (0, 1, 2):
            extra = ["--dice", dice] if dice else []
            jobs[f"hint_{k}_ply{ply}"] = (lambda p=position, e=extra, n=ply:
                                         run(root, ["hint", p, *e, "--ply", str(n), "--json"]))
        jobs[f"hint_{k}_table"] = (lambda p=position, e=(["--dice", dice] if dice else []):
                                   run(root, ["hint", p, *e]))
    jobs["hint_nardi"] = lambda: run(root, ["hint", ('{"board": [-2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '
                                            '0, 0, 0, 0, 0, 15]}'), "--game", "nardi", "--dice", "65", "--json"])
    for name, job in jobs.items():
        started = time.perf_counter()
        (out / f"{name}.txt").write_text(scrub(job()))
        print(f"{name}: {time.perf_counter() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
