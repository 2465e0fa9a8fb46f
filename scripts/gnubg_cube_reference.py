"""Reference cube decisions from GNU Backgammon 1.07 (Debian, /usr/games/gnubg) and our agreement with them.

Three steps, one file (the first runs inside gnubg's embedded Python, which has no numpy):

    python scripts/gnubg_cube_reference.py collect --games 70 --per-game 30 --seed 1
        (the run behind runs/gnubg_cube/full.json.gz: 2,100 positions, 31,500 cases, 12 minutes on
        two shared cores) starts ``/usr/games/gnubg -t -q -r -p scripts/gnubg_cube_reference.py``
        (config in the environment variable GNUBG_CUBE_REF). gnubg plays games against itself at 0-ply
        with a little noise (evaluation noise 0.03, so games differ), and for a random sample of the
        positions met before a roll it records: the Position ID, gnubg's class (``gnubg.classifypos``), its
        0-ply cubeless probabilities (``gnubg.evaluate``), and its 0-ply cube decision (``gnubg.cfevaluate``
        with evalcontext(cubeful=1, plies=0, deterministic=1, prune=1, noise=0): optimal, no double,
        double/take, double/pass equities and the recommendation) for 7 money cube states (centred
        with/without Jacoby and beavers, cube 2 owned by the side on roll with/without beavers, cube 2 owned
        by the other side) and 8 match states drawn at random (2, 3, 3) from every score of 3-, 5- and
        7-point matches (centred cube, cube 2 or 4 owned by either side, Crawford and post-Crawford games);
        the side on roll is player 0 or 1 at random. Output (default runs/gnubg_cube/full.json.gz, out of
        git) also holds gnubg's MET extended to 64 (``gnubg.met``).
    python scripts/gnubg_cube_reference.py sample --n 240
        keeps a stratified sample of positions with all their cases in tests/data/gnubg_cube_cases.json.
    python scripts/gnubg_cube_reference.py measure [--cases FILE]
        recomputes every decision with model/cube/decisions.py from gnubg's probabilities and reports agreement
        (30 s on the full set; without it, on the sample).

A case agrees when our recommendation code equals gnubg's, or, where two of gnubg's three equities are
within 1e-6 of each other (a tie), when our three equities are each within 1e-5 of gnubg's (gnubg
computes in float32). Two-sided bear-offs (gnubg class 4: both sides home with at most 6 checkers) are
reported apart: there gnubg reads exact cubeful equities (money) or derives the cube efficiency
(match) from its bear-off database, which we do not have.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
from pathlib import Path

# gnubg's embedded Python runs this file without __file__, from the repository root (see collect)
ROOT = Path(__file__).resolve().parent.parent if "__file__" in globals() else Path.cwd()
DEFAULT_FULL = ROOT / "runs" / "gnubg_cube" / "full.json.gz"
DEFAULT_SAMPLE = ROOT / "tests" / "data" / "gnubg_cube_cases.json"
GNUBG = "/usr/games/gnubg"
START_ID = "4HPwATDgc/ABMA"
# one case: the cube state seen by the side on roll, then gnubg's answer
STATE_FIELDS = ("match_length", "score_me", "score_opp", "crawford", "cube", "owner", "jacoby", "beavers",
                "move")
ANSWER_FIELDS = ("optimal", "no_double", "double_take", "double_pass", "code", "cubeless_equity")
OWNER_CODES = ("centred", "me", "opponent")
MONEY_STATES = [  # (cube, owner, jacoby, beavers)
    (1, 0, 1, 1), (1, 0, 1, 0), (1, 0, 0, 1), (1, 0, 0, 0), (2, 1, 1, 1), (2, 1, 1, 0), (2, 2, 1, 1),
]
MATCH_CASES_PER_POSITION = {3: 2, 5: 3, 7: 3}  # match length -> states drawn per position
TIE = 1e-6
EQUITY_TOLERANCE = 1e-5
BEAROFF2 = 4


def _inside_gnubg() -> bool:
    """True when gnubg runs this file (its embedded module ``gnubg`` has ``cfevaluate``)."""
    if Path(sys.executable).name != "gnubg":
        return False
    import gnubg

    return hasattr(gnubg, "cfevaluate")


# ----------------------------------------------------------------------------- inside gnubg
def _match_states():
    """Every (length, score_me, score_opp, crawford, cube, owner) worth asking gnubg about."""
    out = []
    for n in MATCH_CASES_PER_POSITION:
        for s_me in range(n):
            for s_opp in range(n):
                a, b = n - s_me, n - s_opp
                if a == 1 and b == 1:
                    out.append((n, s_me, s_opp, 0, 1, 0))
                elif a == 1 or b == 1:
                    out += [(n, s_me, s_opp, 1, 1, 0), (n, s_me, s_opp, 0, 1, 0),
                            (n, s_me, s_opp, 0, 2, 1), (n, s_me, s_opp, 0, 2, 2)]
                else:
                    out.append((n, s_me, s_opp, 0, 1, 0))
                    for cube in (2, 4) if n >= 5 else (2,):
                        out += [(n, s_me, s_opp, 0, cube, 1), (n, s_me, s_opp, 0, cube, 2)]
    return out


def _apply(board, move):
    """gnubg board (opponent, mover) after the mover plays ``move`` (1-based from/to, 25 bar, 0 off),
    turned around so that the other side is on roll."""
    opp, me = list(board[0]), list(board[1])
    for k in range(0, len(move), 2):
        src, dst = move[k], move[k + 1]
        if src <= 0:
            break
        me[src - 1] -= 1
        if dst > 0:
            if opp[24 - dst] == 1:
                opp[24 - dst] = 0
                opp[24] += 1
            me[dst - 1] += 1
    assert min(me) >= 0 and sum(me) <= 15, (board, move)
    return (me, opp)


def _to_ours(board):
    """gnubg board -> engine/board.py's 28 slots in the mover's frame."""
    opp, me = board
    row = [me[i] - opp[23 - i] for i in range(24)]
    return row + [me[24], opp[24], 15 - sum(me), 15 - sum(opp)]


def _r(v):
    return float(f"{v:.9g}")


def _ask(gnubg, board, ec, case):
    length, s_me, s_opp, crawford, cube, owner, jacoby, beavers, move = case
    score = (s_me, s_opp) if move == 0 else (s_opp, s_me)
    owner_id = -1 if owner == 0 else (move if owner == 1 else 1 - move)
    ci = gnubg.cubeinfo(cube, owner_id, move, length, score, crawford, 0)
    ci["jacoby"], ci["beavers"] = jacoby, beavers
    ci = gnubg.calcgammonprice(ci)
    opt, nd, dt, dp, code, _text = gnubg.cfevaluate(board, ci, ec)
    cubeless = gnubg.evaluate(board, ci, ec)[5]
    return list(case) + [_r(opt), _r(nd), _r(dt), _r(dp), int(code), _r(cubeless)]


def _collect_in_gnubg():
    import gnubg

    cfg = json.loads(os.environ["GNUBG_CUBE_REF"])
    rng = random.Random(cfg["seed"])
    ec0 = gnubg.evalcontext(1, 0, 1, 1, 0.0)
    ec_play = gnubg.evalcontext(1, 0, 0, 1, cfg["noise"])
    ci_play = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    match_states = _match_states()
    seen, positions = set(), []
    for _game in range(cfg["games"]):
        board = gnubg.positionfromid(START_ID)
        met_here = []
        while True:
            pid = gnubg.positionid(board)
            if pid not in seen and gnubg.classifypos(board, 0) != 0:
                met_here.append((pid, board))
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            move = gnubg.findbestmove(board, ci_play, ec_play, dice)
            board = _apply(board, move)
            if sum(board[0]) == 0:  # the side that just moved has borne off its last checker
                break
        for pid, board in rng.sample(met_here, min(cfg["per_game"], len(met_here))):
            seen.add(pid)
            probs = gnubg.evaluate(board, gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0), ec0)[:5]
            move = rng.randint(0, 1)
            cases = [(0, 0, 0, 0, c, o, j, b, move) for c, o, j, b in MONEY_STATES]
            for n, k in MATCH_CASES_PER_POSITION.items():
                drawn = rng.sample([s for s in match_states if s[0] == n], k)
                cases += [s + (0, 0, move) for s in drawn]
            positions.append({
                "id": pid, "board": _to_ours(board), "class": gnubg.classifypos(board, 0),
                "probs": [_r(v) for v in probs], "cases": [_ask(gnubg, board, ec0, c) for c in cases],
            })
    pre, post0, post1 = gnubg.met(64)
    out = {
        "meta": {"gnubg": "1.07 (Debian /usr/games/gnubg)", "config": cfg,
                 "evalcontext": "cubeful=1 plies=0 deterministic=1 prune=1 noise=0",
                 "state_fields": STATE_FIELDS, "answer_fields": ANSWER_FIELDS, "owners": OWNER_CODES},
        "met": {"pre": [[_r(v) for v in row] for row in pre], "post": [[_r(v) for v in post0],
                                                                      [_r(v) for v in post1]]},
        "positions": positions,
    }
    _write(Path(cfg["out"]), out)
    print(f"wrote {len(positions)} positions to {cfg['out']}")


def _write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, separators=(",", ":"))
    if path.suffix == ".gz":
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)


def load_cases(path: Path):
    """The reference file (plain or gzipped JSON) as a dict."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


# ----------------------------------------------------------------------------- outside gnubg
def collect(args) -> int:
    cfg = {"games": args.games, "per_game": args.per_game, "seed": args.seed, "noise": args.noise,
           "out": str(Path(args.out).resolve())}
    env = dict(os.environ, GNUBG_CUBE_REF=json.dumps(cfg))
    cmd = [GNUBG, "-t", "-q", "-r", "-p", str(ROOT / "scripts" / "gnubg_cube_reference.py")]
    proc = subprocess.run(cmd, check=False, env=env, cwd=ROOT, capture_output=True, text=True)
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
    print("\n".join(tail))
    # gnubg exits 0 even when the script raised: judge by the output file
    return 0 if any(line.startswith("wrote ") for line in tail) else 1


def sample(args) -> int:
    data = load_cases(Path(args.full))
    rng = random.Random(args.seed)
    by_key: dict[tuple, list] = {}
    for pos in data["positions"]:  # stratify: class x the money decision of the centred cube
        by_key.setdefault((pos["class"], pos["cases"][0][-2]), []).append(pos)
    keys = sorted(by_key)
    chosen = []
    while len(chosen) < args.n and any(by_key.values()):
        for k in keys:
            if by_key[k] and len(chosen) < args.n:
                chosen.append(by_key[k].pop(rng.randrange(len(by_key[k]))))
    out = {"meta": dict(data["meta"], sample_of=str(args.full), sample_seed=args.seed),
           "met": data["met"], "positions": chosen}
    _write(Path(args.out), out)
    print(f"kept {len(chosen)} positions ({sum(len(p['cases']) for p in chosen)} cases) in {args.out}")
    return 0


def _state(case):
    from model.cube.decisions import CubeState

    length, s_me, s_opp, crawford, cube, owner, jacoby, beavers, _move = case[: len(STATE_FIELDS)]
    common = {"value": cube, "owner": OWNER_CODES[owner]}
    if length == 0:
        return CubeState(jacoby=bool(jacoby), beavers=bool(beavers), **common)
    return CubeState(match_length=length, score_me=s_me, score_opp=s_opp, crawford=bool(crawford),
                     jacoby=False, beavers=False, **common)


def compare(data):
    """Per case: (group, agrees, code ours, code gnubg, max equity error, tie, class) for every case."""
    import numpy as np

    from model.cube.decisions import cube_decision, cube_efficiency, match_cubeless_equity, position_class

    rows = []
    for pos in data["positions"]:
        board = np.array(pos["board"], dtype=np.int8)
        x = float(cube_efficiency(board[None])[0])
        probs = np.array(pos["probs"])
        for case in pos["cases"]:
            st = _state(case)
            ans = dict(zip(ANSWER_FIELDS, case[len(STATE_FIELDS):]))
            d = cube_decision(probs, x, st)
            ours = (float(d.no_double), float(d.double_take), float(d.double_pass))
            theirs = (ans["no_double"], ans["double_take"], ans["double_pass"])
            err = max(abs(a - b) for a, b in zip(ours, theirs))
            nd, dt, dp = theirs
            tie = min(abs(nd - dt), abs(dt - dp), abs(nd - dp)) <= TIE
            same = int(d.code) == ans["code"]
            agrees = same or (tie and err <= EQUITY_TOLERANCE)
            group = "money" if st.is_money else f"match{st.match_length}"
            if pos["class"] == BEAROFF2:
                group += "-bearoff2"
            cubeless_err = 0.0
            if not st.is_money:
                cubeless_err = abs(float(match_cubeless_equity(probs, st)) - ans["cubeless_equity"])
            rows.append({"group": group, "agrees": agrees, "ours": int(d.code), "gnubg": ans["code"],
                         "err": err, "tie": tie, "class": pos["class"], "id": pos["id"], "case": case,
                         "trivial": ans["code"] in (2, 9, 13, 14, 15), "cubeless_err": cubeless_err,
                         "class_ok": int(position_class(board[None])[0]) == pos["class"]})
    return rows


def measure(args) -> int:
    path = Path(args.cases) if args.cases else (DEFAULT_FULL if DEFAULT_FULL.exists() else DEFAULT_SAMPLE)
    rows = compare(load_cases(path))
    print(f"reference: {path}  ({len({r['id'] for r in rows})} positions, {len(rows)} cases)")
    print(f"{'group':<20}{'cases':>7}{'agree':>8}{'rate':>9}{'non-trivial':>13}{'rate':>9}{'max eq err':>12}")
    groups = sorted({r["group"] for r in rows}, key=lambda g: (g.endswith("bearoff2"), g))
    for g in groups:
        rs = [r for r in rows if r["group"] == g]
        nt = [r for r in rs if not r["trivial"]]
        ok, ok_nt = sum(r["agrees"] for r in rs), sum(r["agrees"] for r in nt)
        rate_nt = f"{ok_nt / len(nt):9.2%}" if nt else f"{'-':>9}"
        print(f"{g:<20}{len(rs):>7}{ok:>8}{ok / len(rs):>9.2%}{len(nt):>13}{rate_nt}"
              f"{max(r['err'] for r in rs):>12.2e}")
    positions = {r["id"]: r["class_ok"] for r in rows}
    print(f"position class agrees with gnubg.classifypos on {sum(positions.values())}/{len(positions)}")
    print(f"max |cubeless match equity - gnubg|: {max(r['cubeless_err'] for r in rows):.2e}")
    bad = [r for r in rows if not r["agrees"] and not r["group"].endswith("bearoff2")]
    for r in bad[: args.show]:
        print(f"  disagree {r['id']} class {r['class']} state {r['case'][:9]} ours {r['ours']} "
              f"gnubg {r['gnubg']} eq err {r['err']:.2e}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="drive gnubg to build the reference set")
    c.add_argument("--games", type=int, default=70)
    c.add_argument("--per-game", type=int, default=30)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--noise", type=float, default=0.03)
    c.add_argument("--out", default=str(DEFAULT_FULL))
    s = sub.add_parser("sample", help="keep a stratified sample as test data")
    s.add_argument("--full", default=str(DEFAULT_FULL))
    s.add_argument("--n", type=int, default=240)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out", default=str(DEFAULT_SAMPLE))
    m = sub.add_parser("measure", help="agreement of model/cube/decisions.py with the reference")
    m.add_argument("--cases", default=None, help="reference file (default: the full set, else the sample)")
    m.add_argument("--show", type=int, default=10, help="disagreements to list")
    args = ap.parse_args(argv)
    if args.cmd == "collect" and not Path(GNUBG).exists():
        print(f"error: {GNUBG} not found (Debian package gnubg)", file=sys.stderr)
        return 2
    if args.cmd in ("sample", "measure"):
        src = args.full if args.cmd == "sample" else (args.cases or "")
        if src and not Path(src).exists():
            print(f"error: no reference file {src}", file=sys.stderr)
            return 2
    try:
        return {"collect": collect, "sample": sample, "measure": measure}[args.cmd](args)
    except (OSError, ValueError, KeyError, IndexError) as e:  # unreadable or malformed reference file
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2


if _inside_gnubg():
    _collect_in_gnubg()
elif __name__ == "__main__":
    sys.exit(main())
