"""`nardibot analyse --html DIR`: the analysis as one self-contained page, DIR/index.html, with the
lines and the per-player table of the text report (nardibot/cli/analyse_report.py).

The page holds the per-player table of the text report, the games with their results, and for each
marked decision (doubtful, bad or very bad) its board as an SVG drawing (engine/formats/svg.py) with
the play made marked by arrows (cube decisions: the position before the roll), what was done, what
was right, the equity lost and the top plays. No script, no file beside it, nothing fetched.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

from engine.cube_state import CubeOwner
from engine.formats.svg import svg_board
from nardibot.cli.analyse_report import decision_line, table_rows, what

STYLE = """body{font-family:sans-serif;margin:2em;max-width:1100px}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}
.decision{margin:1.5em 0;padding-top:.5em;border-top:2px solid #888}
.verybad{color:#b00000}.bad{color:#c05000}.doubtful{color:#806000}
pre{background:#f6f6f6;padding:6px}"""


def _position(d: dict) -> np.ndarray:
    p = d["position"]
    return np.array(p["board"] + p["bar"] + p["off"], dtype=np.int8)


def board_picture(report: dict, d: dict) -> str:
    """The SVG drawing of a decision's position (the side deciding at the bottom; a take decision is
    seen by the doubler, who is on roll)."""
    names = report["players"]
    on_roll = d["player"] if d["kind"] != "take" else 1 - d["player"]
    c = d["cube"]
    money = not report["match_length"]
    extra = {"jacoby": report["jacoby"], "beavers": False} if money else {}
    play = d["played"] if d["kind"] == "move" and d["played"] else None
    title = f"Game {d['game']}, decision {d['index']}: {names[d['player']]}"
    return svg_board("backgammon", _position(d), dice=d.get("dice"), play=play, cube=(c["value"], CubeOwner(c["owner"])),
                     score=(c["score"][0], c["score"][1], report["match_length"]), crawford=c["crawford"],
                     mover_name=names[on_roll], opponent_name=names[1 - on_roll], title=title, **extra)


def _decision_block(report: dict, d: dict) -> str:
    cls = (d["mark"] or "").replace(" ", "")
    out = [f'<div class="decision" id="g{d["game"]}d{d["index"]}">',
           (f'<p class="{cls}"><b>{html.escape(d["mark"] or "")}</b> '
           f'{html.escape(decision_line(report, d))}</p>'),
           f"<p>Position ID {d['position_id']}, Match ID {d['match_id']}; rated at {html.escape(d['evaluated'])}</p>",
           board_picture(report, d)]
    if d["kind"] == "move":
        rows = []
        for p in d["plays"]:
            mwc = "" if p["mwc"] is None else f"{100 * p['mwc']:.2f}%"
            rows.append(f"<tr><td>{p['rank']}</td><td>{html.escape(p['move'] or '(no play)')}</td>"
                        f"<td>{p['ply']}</td><td>{p['equity']:+.3f}</td><td>{mwc}</td></tr>")
        rows = "".join(rows)
        out.append("<table><tr><th>#</th><th>play</th><th>ply</th><th>equity</th><th>MWC</th></tr>"
                   f"{rows}</table>")
    else:
        e = d["equities"]
        out.append(f"<p>No double {e['no_double']:+.3f}, double/take {e['double_take']:+.3f}, "
                   f"double/pass {e['double_pass']:+.3f} (the doubler's, normalised equity); "
                   f"proper: {html.escape(d['proper'])}</p>")
    out.append("</div>")
    return "\n".join(out)


def report_page(report: dict, name: str) -> str:
    """The whole page as text."""
    names = [html.escape(n) for n in report["players"]]
    t = report["thresholds"]
    head = (f"<h1>{html.escape(name)}: {what(report)}, {names[0]} vs {names[1]}</h1>"
            f"<p>{html.escape(report['bot'])} at {report['ply']}-ply"
            + (f", the worst decisions rolled out ({report['rollout']['trials']} trials)" if report["rollout"] else "")
            + f". Marks by equity lost (normalised per cube): doubtful &ge; {t['doubtful']:.3f}, bad &ge; "
            f"{t['bad']:.3f}, very bad &ge; {t['very_bad']:.3f}.</p>")
    table = ["<table><tr><th></th>" + "".join(f"<th>{n}</th>" for n in names) + "</tr>"]
    table += [f"<tr><td>{html.escape(label)}</td>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
              for label, cells in table_rows(report)]
    table.append("</table>")
    games = ["<table><tr><th>game</th><th>score</th><th>winner</th><th>points</th><th>ended</th></tr>"]
    for g in report["games"]:
        winner = "" if g["winner"] is None else names[g["winner"]]
        games.append(f"<tr><td>{g['number']}{' (Crawford)' if g['crawford'] else ''}</td>"
                     f"<td>{g['score'][0]}-{g['score'][1]}</td><td>{winner}</td><td>{g['points'] or ''}</td>"
                     f"<td>{g['ended'] or ''}</td></tr>")
    games.append("</table>")
    marked = [d for d in report["decisions"] if d["mark"]]
    blocks = [_decision_block(report, d) for d in marked] or ["<p>No decision is marked.</p>"]
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>Analysis of {html.escape(name)}</title><style>{STYLE}</style></head><body>", head,
                      "<h2>Players</h2>", *table, "<h2>Games</h2>", *games,
                      f"<h2>Marked decisions ({len(marked)})</h2>", *blocks, "</body></html>"])


def write_report(report: dict, folder: Path, name: str) -> Path:
    """Write ``folder``/index.html (the folder is made if needed); returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "index.html"
    path.write_text(report_page(report, name), encoding="utf-8")
    return path
