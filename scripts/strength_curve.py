"""Strength against training time: every snapshot of a run against a baseline, as JSON and a plot.

    python scripts/strength_curve.py runs/bg --opponent pubeval --games 2000 --out docs/strength_backgammon
    python scripts/strength_curve.py --plot docs/strength_backgammon.json      # draw it again from the JSON

The first writes docs/strength_backgammon.json and docs/strength_backgammon.png; the second redraws the
PNG (or, with --format svg, an SVG) from the JSON alone. Snapshots are the small files that train.py
writes under <run>/snapshots/ every --checkpoint-every games. The JSON is a list of points
{"games", "hours", "ppg", "ci95", "opponent", "eval_games", "game"}; the plot (matplotlib:
pip install -e ".[plots]") shows points per game with 95% intervals against games trained, hours of
training on the top axis, one line per opponent.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


def plot(points: list[dict], path: str | Path, game: str = "") -> Path:
    """Draw the strength curve of ``points`` (see the module's docstring) to ``path``, a .png or .svg
    file, and return the path. Several opponents give one line each."""
    plt = need_matplotlib()
    import numpy as np

    path = Path(path)
    points = sorted(points, key=lambda p: p["games"])
    game = game or next((p["game"] for p in points if p.get("game")), "")
    lines: dict[str, list[dict]] = {}
    for p in points:
        lines.setdefault(p.get("opponent", "?"), []).append(p)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100, layout="constrained")
    try:
        for opponent, pts in lines.items():
            ax.errorbar([p["games"] / 1000 for p in pts], [p["ppg"] for p in pts],
                        yerr=[p["ci95"] for p in pts], marker="o", markersize=4, capsize=3, linewidth=1.5,
                        label=f"against {opponent}")
        ax.axhline(0, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlim(0, points[-1]["games"] / 1000 * 1.03)
        ax.set_xlabel("games trained (thousands)")
        ax.set_ylabel("points per game (95% interval)")
        ax.grid(alpha=0.3)
        if len(lines) > 1:
            ax.legend()
        games = np.array([0.0] + [p["games"] / 1000 for p in points])
        hours = np.array([0.0] + [p.get("hours") or 0.0 for p in points])
        if np.all(np.diff(games) > 0) and np.all(np.diff(hours) > 0):  # one run: hours grow with games
            top = ax.secondary_xaxis("top", functions=(lambda g: _interp(g, games, hours),
                                                       lambda h: _interp(h, hours, games)))
            top.set_xlabel("hours of training")
        opponents = ", ".join(lines)
        per_point = {p.get("eval_games") for p in points}
        title = f"{game + ': ' if game else ''}strength against {opponents} over training"
        if len(per_point) == 1 and None not in per_point:
            title += f" ({per_point.pop():,} mirrored games per point)"
        ax.set_title(title, fontsize=11)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, metadata={"Software": None} if path.suffix == ".png" else {"Date": None})
    finally:
        plt.close(fig)
    return path


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", nargs="?", help="run folder written by train.py (with snapshots/)")
    parser.add_argument("--plot", metavar="JSON", help="only draw the plot of this JSON file "
                                                             "(no games played)")
    parser.add_argument("--opponent", default=None, help="baseline name (default: pubeval / heuristic)")
    parser.add_argument("--games", type=int, default=2000, help="mirrored games per snapshot")
    parser.add_argument("--every", type=int, default=1, help="use every k-th snapshot")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", help="output path without extension (.json and the plot)")
    parser.add_argument("--format", choices=FORMATS, default="png", help="the plot's file format")
    args = parser.parse_args(argv)
    if bool(args.run) == bool(args.plot):
        parser.error("give either a run folder (to measure and plot) or --plot JSON (to plot only)")
    if args.run and not args.out:
        parser.error("--out is needed with a run folder")
    try:
        need_matplotlib()  # before any game is played
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    if args.plot:
        source = Path(args.plot)
        try:
            points = json.loads(source.read_text())
            game = source.stem.removeprefix("strength_") if source.stem.startswith("strength_") else ""
            out = plot(points, Path(args.out or source.with_suffix("")).with_suffix("." + args.format), game)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"error: {source}: cannot plot it ({type(e).__name__}: {e})", file=sys.stderr)
            return 2
        print(f"wrote {out}")
        return 0

    from model.arena.cubeless import play_games
    from model.net.checkpoint import CheckpointError, load_net
    from model.players.net_player import NetPlayer
    from model.players.registry import make_player

    snaps = sorted((Path(args.run) / "snapshots").glob("games_*.pt"))[:: args.every]
    if not snaps:
        print(f"error: no snapshots under {args.run}/snapshots", file=sys.stderr)
        return 2
    points = []
    for snap in snaps:
        try:
            net, blob = load_net(snap)
        except CheckpointError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        game = blob["game"]
        opponent = args.opponent or ("pubeval" if game == "backgammon" else "heuristic")
        result = play_games(NetPlayer(net), make_player(opponent, game, seed=args.seed), args.games,
                            seed=args.seed)
        point = {"games": blob["games"], "hours": blob["made_by"].get("seconds", 0) / 3600,
                 "ppg": result.ppg, "ci95": result.ci95, "opponent": opponent, "eval_games": result.games,
                 "game": game}
        points.append(point)
        print(f"{snap.name}: {point['ppg']:+.3f} +- {point['ci95']:.3f} vs {opponent}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(points, indent=1))
    picture = plot(points, out.with_suffix("." + args.format))
    print(f"wrote {out.with_suffix('.json')} and {picture}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
