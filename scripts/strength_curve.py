"""Strength against training time: every snapshot of a run against a baseline, as JSON and a plot.

    python scripts/strength_curve.py runs/bg --opponent pubeval --games 2000 --out OUT/strength_backgammon
    python scripts/strength_curve.py runs/bg3 --opponent pubeval,gnubg-0ply --benchmark --x hours --out X
    python scripts/strength_curve.py --plot OUT/strength_backgammon.json      # draw it again from the JSON
    python scripts/strength_curve.py --plot a.json b.json --out c             # c.json: a's and b's points
    python scripts/strength_curve.py --nets a.safetensors@10.7@L7 b.pt@12.3@L8b --benchmark --out X

The --nets form measures fixed files at hours given by hand (steps of a recipe that write no snapshots,
such as fits to labels; a label names the point on the plot).

The first writes OUT/strength_backgammon.json and OUT/strength_backgammon.png (the project keeps the points in
experiments/results/ and the pictures in docs/: scripts/measure_release.sh writes them there); the third
redraws the PNG (or, with --format svg, an SVG) from the JSON alone, beside it. Snapshots are the small files
that train.py writes under <run>/snapshots/ every --checkpoint-every games. The JSON is a list of points
{"games", "hours", "ppg", "ci95", "opponent", "eval_games", "game"}, one per snapshot and opponent; with
--benchmark (backgammon) also one {"games", "hours", "benchmark": {class: [ER, 95% half-width]}, "game"} per
snapshot: its 0-ply checker-play error rates (model/train/evaluation.py benchmark_check). The plot
(matplotlib: pip install -e ".[plots]") shows points per game with 95% intervals against games trained, hours
of training on the top axis (--x hours: the other way round), one line per opponent, and the error rate per
class in a second panel when there are benchmark points. The snapshots play as the raw net (no bear-off
databases); hours are the wall time the snapshot records (made_by "seconds"), or the hours given with --nets.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

FORMATS = ("png", "svg")


def need_matplotlib():
    """matplotlib.pyplot on the file-only backend; ImportError with what to install if it is missing."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError('plotting needs matplotlib: pip install -e ".[plots]"') from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "nardibot"  # the same SVG from the same points
    import matplotlib.pyplot as plt

    return plt


def _interp(x, xp, fp):
    """np.interp, but carried on past both ends along the first and last segments."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    y = np.interp(x, xp, fp)
    y = np.where(x > xp[-1], fp[-1] + (x - xp[-1]) * (fp[-1] - fp[-2]) / (xp[-1] - xp[-2]), y)
    return np.where(x < xp[0], fp[0] + (x - xp[0]) * (fp[1] - fp[0]) / (xp[1] - xp[0]), y)


AXES = {"games": "games trained (thousands)", "hours": "hours of training"}


def plot(points: list[dict], path: str | Path, game: str = "", x: str = "games") -> Path:
    """Draw the strength curve of ``points`` (see the module's docstring) to ``path``, a .png or .svg
    file, and return the path. Several opponents give one line each; benchmark points a second panel.
    ``x``: "games" (hours on the top axis when they grow with the games) or "hours" (the other way)."""
    plt = need_matplotlib()
    import numpy as np

    path = Path(path)
    points = sorted(points, key=lambda p: (p["games"], p.get("hours") or 0.0))
    game = game or next((p["game"] for p in points if p.get("game")), "")
    bench = [p for p in points if "benchmark" in p]
    points = [p for p in points if "benchmark" not in p]
    snaps = sorted({(p["games"], p.get("hours") or 0.0) for p in points + bench})
    games = np.array([0.0] + [g / 1000 for g, _ in snaps])
    hours = np.array([0.0] + [h for _, h in snaps])
    growing = bool(np.all(np.diff(hours) >= 0) and np.all(hours[1:] > 0))  # fits add hours, not games
    one_run = bool(np.all(np.diff(games) > 0) and np.all(np.diff(hours) > 0))  # hours grow with games
    if x == "hours" and not growing:
        raise ValueError("--x hours needs every point's hours, growing with its games")
    where = (lambda p: p["hours"]) if x == "hours" else (lambda p: p["games"] / 1000)
    lines: dict[str, list[dict]] = {}
    for p in points:
        lines.setdefault(p.get("opponent", "?"), []).append(p)
    panels = [name for name, there in (("ppg", points), ("er", bench)) if there]
    fig, axes = plt.subplots(len(panels), 1, figsize=(8, 4.5 if len(panels) == 1 else 7.5), dpi=100,
                             layout="constrained", sharex=True, squeeze=False)
    axes = dict(zip(panels, axes[:, 0]))
    try:
        if "ppg" in axes:
            ax = axes["ppg"]
            for i, (opponent, pts) in enumerate(lines.items()):
                ax.errorbar([where(p) for p in pts], [p["ppg"] for p in pts],
                            yerr=[p["ci95"] for p in pts], marker="o", markersize=4, capsize=3,
                            linewidth=1.5, label=f"against {opponent}")
                for p in pts if i == 0 else ():  # the named steps (--nets), once
                    if p.get("net"):
                        ax.annotate(p["net"], (where(p), p["ppg"] + p["ci95"]), textcoords="offset points",
                                    xytext=(0, 4), ha="center", fontsize=8)
            ax.axhline(0, color="grey", linestyle="--", linewidth=0.8)
            ax.set_ylabel("points per game (95% interval)")
            if len(lines) > 1:
                ax.legend()
        if "er" in axes:
            ax = axes["er"]
            for name in ("contact", "crashed", "race", "overall"):
                pts = [p for p in bench if name in p["benchmark"]]
                ax.errorbar([where(p) for p in pts], [p["benchmark"][name][0] for p in pts],
                            yerr=[p["benchmark"][name][1] for p in pts], marker="o", markersize=3,
                            capsize=2, linewidth=1.2, label=name)
            ax.set_ylabel("benchmark error rate (x1000)")
            ax.legend(ncols=4, fontsize=9)
        for ax in axes.values():
            ax.grid(alpha=0.3)
        first, last = axes[panels[0]], axes[panels[-1]]
        last.set_xlim(0, (hours[-1] if x == "hours" else games[-1]) * 1.03)
        last.set_xlabel(AXES[x])
        if one_run:
            there, back = (hours, games) if x == "hours" else (games, hours)
            top = first.secondary_xaxis("top", functions=(lambda g: _interp(g, there, back),
                                                          lambda h: _interp(h, back, there)))
            top.set_xlabel(AXES["games" if x == "hours" else "hours"])
        ax = first
        opponents = ", ".join(lines) or "the benchmark"
        per_point = {p.get("eval_games") for p in points}
        title = f"{game + ': ' if game else ''}strength against {opponents} over training"
        if len(per_point) == 1 and None not in per_point and lines:
            per = f"({per_point.pop():,} mirrored games per point)"
            title += ("\n" if len(title) + len(per) > 85 else " ") + per
        ax.set_title(title, fontsize=11)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, metadata={"Software": None} if path.suffix == ".png" else {"Date": None})
    finally:
        plt.close(fig)
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", nargs="?", help="run folder written by train.py (with snapshots/)")
    parser.add_argument("--plot", metavar="JSON", nargs="+", help="only draw the plot of this JSON file "
                                                                          "(no games played); several: their "
                                                                          "points together, written to --out")
    parser.add_argument("--nets", metavar="FILE@HOURS[@LABEL]", nargs="+",
                        help="measure these checkpoint files (not a run's snapshots), each at the hours of "
                             "training given, named on the plot by LABEL")
    parser.add_argument("--opponent", default=None, help="baseline name, or several comma separated "
                                                        "(default: pubeval / heuristic)")
    parser.add_argument("--benchmark", action="store_true", help="backgammon: also score every snapshot "
                                                                 "on the checker-play benchmark")
    parser.add_argument("--x", choices=tuple(AXES), default="games", help="the bottom axis")
    parser.add_argument("--games", type=int, default=2000, help="mirrored games per snapshot")
    parser.add_argument("--every", type=int, default=1, help="use every k-th snapshot")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", help="output path without extension (.json and the plot)")
    parser.add_argument("--format", choices=FORMATS, default="png", help="the plot's file format")
    args = parser.parse_args(argv)
    if sum(map(bool, (args.run, args.plot, args.nets))) != 1:
        parser.error("give one of a run folder or --nets FILE@HOURS (to measure and plot) or --plot JSON "
                     "(to plot only)")
    if (args.run or args.nets or (args.plot and len(args.plot) > 1)) and not args.out:
        parser.error("--out is needed with a run folder, --nets or several --plot files")
    nets = []  # (path, hours or None, label)
    for item in args.nets or ():
        path, _, rest = item.partition("@")
        hours, _, label = rest.partition("@")
        try:
            nets.append((Path(path), float(hours), label))
        except ValueError:
            parser.error(f"--nets {item}: give FILE@HOURS or FILE@HOURS@LABEL, HOURS a number")
    try:
        need_matplotlib()  # before any game is played
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    if args.plot:
        points = []
        try:
            for source in map(Path, args.plot):
                points += json.loads(source.read_text())
            first = Path(args.plot[0])
            game = first.stem.removeprefix("strength_") if first.stem.startswith("strength_") else ""
            game = "" if any(isinstance(p, dict) and p.get("game") for p in points) else game  # theirs first
            out = Path(args.out or first.with_suffix(""))
            out = plot(points, out.with_suffix("." + args.format), game, x=args.x)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"error: {source}: cannot plot it ({type(e).__name__}: {e})", file=sys.stderr)
            return 2
        if len(args.plot) > 1:
            out.with_suffix(".json").write_text(json.dumps(points, indent=1))
            print(f"wrote {out.with_suffix('.json')}")
        print(f"wrote {out}")
        return 0

    from model.arena.cubeless import play_games
    from model.net.checkpoint import CheckpointError, load_net
    from model.players.net_player import NetPlayer
    from model.players.registry import make_player
    from model.train.evaluation import benchmark_check

    if args.run:
        snaps = sorted((Path(args.run) / "snapshots").glob("games_*.pt"))[:: args.every]
        if not snaps:
            print(f"error: no snapshots under {args.run}/snapshots", file=sys.stderr)
            return 2
        nets = [(snap, None, "") for snap in snaps]
    points = []
    for i, (snap, hours, label) in enumerate(nets):
        try:
            net, blob = load_net(snap)
        except CheckpointError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        game = blob["game"]
        if hours is None:
            hours = blob["made_by"].get("seconds", 0) / 3600
        named = {"net": label} if label else {}
        opponents = (args.opponent or ("pubeval" if game == "backgammon" else "heuristic")).split(",")
        if i == 0:  # every name checked before any game is played
            try:
                [make_player(opponent.strip(), game) for opponent in opponents]
            except (ValueError, ImportError) as e:
                print(f"error: --opponent: {e}", file=sys.stderr)
                return 2
        for opponent in opponents:
            rival = make_player(opponent.strip(), game, seed=args.seed)
            result = play_games(NetPlayer(net), rival, args.games, seed=args.seed)
            point = {"games": blob["games"], "hours": hours, "ppg": result.ppg, "ci95": result.ci95,
                     "opponent": rival.name, "eval_games": result.games, "game": game, **named}
            points.append(point)
            print(f"{snap.name}: {point['ppg']:+.3f} +- {point['ci95']:.3f} vs {rival.name}", flush=True)
        if args.benchmark and game == "backgammon":
            rates = benchmark_check(net)
            points.append({"games": blob["games"], "hours": hours, "game": game, **named,
                           "benchmark": {k: list(v) for k, v in rates.items() if k != "estimated"}})
            print(f"{snap.name}: benchmark " + ", ".join(f"{k} {v[0]:.2f}" for k, v in rates.items()
                                                         if k != "estimated"), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(points, indent=1))
    picture = plot(points, out.with_suffix("." + args.format), x=args.x)
    print(f"wrote {out.with_suffix('.json')} and {picture}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
