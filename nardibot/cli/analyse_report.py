"""The text of an analysis, shared by the text report (nardibot/cli/cmd_analyse.py) and the page
(nardibot/cli/analyse_html.py): a match's description, one line per decision, the per-player table."""

from __future__ import annotations


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
