"""`nardibot analyse --html DIR`: the analysis as one self-contained page, DIR/index.html; and the
lines and the per-player table that the text report (nardibot/cli/cmd_analyse.py) shares with it.

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

STYLE = """body{font-family:sans-serif;margin:2em;max-width:1100px}
table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}
.decision{margin:1.5em 0;padding-top:.5em;border-top:2px solid #888}
.verybad{color:#b00000}.bad{color:#c05000}.doubtful{color:#806000}
pre{background:#f6f6f6;padding:6px}"""


def what(report: dict) -> str:
    """A match's one-line description: '3-point match' or 'money session (Jacoby on)'."""
    if report["match_length"]:
        return f"{report['match_length']}-point match"
    return f"money session (Jacoby {'on' if report['jacoby'] else 'off'})"


def decision_line(report: dict, d: dict) -> str:
    """One decision in a line: where, who, what was done, what was right, the loss and the mark."""
    name = report["players"][d["player"]]
    where = f"game {d['game']:>2} #{d['index']:<3} {name[:12]:<12}"
    if d["kind"] == "move":
        done = f"{d['dice'][0]}{d['dice'][1]}: {d['played'] or '(no play)'}"
        right = d["best"] or "(no play)"
    else:
        done, right = f"cube: {d['action']}", f"{d['right']} ({d['proper']})"
    loss = f"-{d['loss']:.3f}"
    if d["loss_mwc"] is not None:
        loss += f" ({-100 * d['loss_mwc']:+.2f}%)"
    return (f"{where} {done:<30} best {right:<30} {loss:<17} {d['mark'] or '':<9}"
            f"{'' if d['evaluated'].endswith('ply') else ' ' + d['evaluated']}").rstrip()


def _pair(stat: dict, key: str, rate: bool = False) -> str:
    """An amount in equity and, in a match, MWC: errors as losses (-), luck with its sign; ``rate``:
    thousandths of equity (mEMG) per move, as gnubg shows them."""
    v = stat[key]
    if v["emg"] is None:
        return "-"
    sign = 1.0 if key.startswith("luck") else -1.0
    text = f"{sign * v['emg'] + 0.0:+.3f}" if not rate else f"{sign * v['emg'] * 1000 + 0.0:+.1f}"
    if v["mwc"] is not None:
        text += f" ({sign * 100 * v['mwc'] + 0.0:+.2f}%)" if not rate else f" ({sign * 100 * v['mwc'] + 0.0:+.3f}%)"
    return text


def table_rows(report: dict) -> list[tuple[str, list[str]]]:
    """The per-player table as (label, [player 0's cell, player 1's cell]) rows (text and HTML)."""
    stats = report["statistics"]
    unit = "EMG (MWC)" if report["match_length"] else "EMG"
    rate_unit = "mEMG (MWC)" if report["match_length"] else "mEMG"

    def row(label, f):
        return (label, [f(s) for s in stats])

    return [
        row("Moves", lambda s: str(s["moves"])),
        row("Unforced moves", lambda s: str(s["unforced_moves"])),
        row("Moves marked doubtful", lambda s: str(s["marked"]["doubtful"])),
        row("Moves marked bad", lambda s: str(s["marked"]["bad"])),
        row("Moves marked very bad", lambda s: str(s["marked"]["very bad"])),
        row(f"Checker error total {unit}", lambda s: _pair(s, "checker_error")),
        row(f"Checker error rate {rate_unit}", lambda s: _pair(s, "checker_error_rate", rate=True)),
        row("Rolls very lucky / lucky", lambda s: f"{s['luck']['very lucky']} / {s['luck']['lucky']}"),
        row("Rolls unlucky / very unlucky", lambda s: f"{s['luck']['unlucky']} / {s['luck']['very unlucky']}"),
        row(f"Luck total {unit}", lambda s: _pair(s, "luck_total")),
        row(f"Luck rate {rate_unit}", lambda s: _pair(s, "luck_rate", rate=True)),
        row("Cube decisions (close or actual)", lambda s: f"{s['cube']['decisions']} ({s['cube']['close_or_actual']})"),
        row("Doubles / takes / passes",
            lambda s: f"{s['cube']['doubles']} / {s['cube']['takes']} / {s['cube']['passes']}"),
        row("Missed doubles / wrong doubles", lambda s: f"{s['cube']['missed_doubles']} / {s['cube']['wrong_doubles']}"),
        row("Wrong takes / wrong passes", lambda s: f"{s['cube']['wrong_takes']} / {s['cube']['wrong_passes']}"),
        row("Cube decisions marked d / b / vb",
            lambda s: " / ".join(str(s["cube"]["marked"][m]) for m in ("doubtful", "bad", "very bad"))),
        row(f"Cube error total {unit}", lambda s: _pair(s["cube"], "error")),
        row(f"Cube error rate {rate_unit}", lambda s: _pair(s["cube"], "error_rate", rate=True)),
        row(f"Overall error rate {rate_unit}", lambda s: _pair(s, "overall_error_rate", rate=True)),
    ]


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
