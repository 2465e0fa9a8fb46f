"""Strength against training time: every snapshot of a run against a baseline, as JSON and an SVG plot.

    python scripts/strength_curve.py runs/bg --opponent pubeval --games 2000 --out docs/strength_backgammon

writes docs/strength_backgammon.json and docs/strength_backgammon.svg (points per game with 95%
intervals against games trained and hours of training). Snapshots are the small files that
train.py writes under <run>/snapshots/ every --checkpoint-every games.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def svg_plot(points: list[dict], title: str, ylabel: str) -> str:
    """A small self-contained SVG line chart with error bars: x = games trained, y = ppg."""
    w, h, left, right, top, bottom = 640, 360, 60, 20, 40, 50
    xs = [p["games"] for p in points]
    lo = min(p["ppg"] - p["ci95"] for p in points)
    hi = max(p["ppg"] + p["ci95"] for p in points)
    lo, hi = min(lo, 0.0), max(hi, 0.1)
    xmax = max(xs) or 1

    def sx(x):
        return left + (w - left - right) * x / xmax

    def sy(y):
        return top + (h - top - bottom) * (hi - y) / (hi - lo)

    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
            f'font-size="12"><rect width="{w}" height="{h}" fill="white"/>'),
           f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
           f'<line x1="{left}" y1="{sy(0)}" x2="{w - right}" y2="{sy(0)}" stroke="#999" stroke-dasharray="4"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>']
    for i in range(6):
        y = lo + (hi - lo) * i / 5
        out.append(f'<text x="{left - 6}" y="{sy(y) + 4}" text-anchor="end">{y:+.2f}</text>')
        x = xmax * i / 5
        out.append(f'<text x="{sx(x)}" y="{h - bottom + 16}" text-anchor="middle">{x / 1000:.0f}k</text>')
    out.append(f'<text x="{w / 2}" y="{h - 10}" text-anchor="middle">games trained</text>')
    out.append(f'<text x="14" y="{h / 2}" transform="rotate(-90 14 {h / 2})" text-anchor="middle">{ylabel}</text>')
    path = " ".join(f"{'M' if i == 0 else 'L'}{sx(p['games']):.1f},{sy(p['ppg']):.1f}" for i, p in enumerate(points))
    out.append(f'<path d="{path}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    for p in points:
        x = sx(p["games"])
        out.append(f'<line x1="{x:.1f}" y1="{sy(p["ppg"] - p["ci95"]):.1f}" x2="{x:.1f}" '
                   f'y2="{sy(p["ppg"] + p["ci95"]):.1f}" stroke="#1f77b4"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{sy(p["ppg"]):.1f}" r="3" fill="#1f77b4"/>')
    out.append("</svg>")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="run folder written by train.py (with snapshots/)")
    parser.add_argument("--opponent", default=None, help="baseline name (default: pubeval / heuristic)")
    parser.add_argument("--games", type=int, default=2000, help="mirrored games per snapshot")
    parser.add_argument("--every", type=int, default=1, help="use every k-th snapshot")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", required=True, help="output path without extension (.json and .svg)")
    args = parser.parse_args(argv)

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
                 "ppg": result.ppg, "ci95": result.ci95, "opponent": opponent, "eval_games": result.games}
        points.append(point)
        print(f"{snap.name}: {point['ppg']:+.3f} +- {point['ci95']:.3f} vs {opponent}", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(points, indent=1))
    title = f"{game}: strength against {opponent} ({args.games} mirrored games per point)"
    out.with_suffix(".svg").write_text(svg_plot(points, title, f"points per game vs {opponent}"))
    print(f"wrote {out.with_suffix('.json')} and {out.with_suffix('.svg')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
