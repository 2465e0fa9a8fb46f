"""scripts/strength_curve.py draws a strength curve from its JSON with matplotlib (skipped without it)."""

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("strength_curve", ROOT / "scripts" / "strength_curve.py")
strength_curve = importlib.util.module_from_spec(spec)
spec.loader.exec_module(strength_curve)

POINTS = [
    {"games": 10000, "hours": 0.02, "ppg": 0.08, "ci95": 0.08, "opponent": "pubeval", "eval_games": 1000},
    {"games": 40000, "hours": 0.07, "ppg": 0.36, "ci95": 0.08, "opponent": "pubeval", "eval_games": 1000},
    {"games": 70000, "hours": 0.12, "ppg": 0.37, "ci95": 0.07, "opponent": "pubeval", "eval_games": 1000},
]


def test_plot_from_json_writes_png_and_svg(tmp_path, capsys):
    source = tmp_path / "strength_backgammon.json"
    source.write_text(json.dumps(POINTS))
    assert strength_curve.main(["--plot", str(source)]) == 0
    png = tmp_path / "strength_backgammon.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert f"wrote {png}" in capsys.readouterr().out
    assert strength_curve.main(["--plot", str(source), "--format", "svg", "--out", str(tmp_path / "c")]) == 0
    svg = (tmp_path / "c.svg").read_text()
    assert "<svg" in svg and "backgammon: strength against pubeval over training" in svg


def test_several_opponents_and_old_points_without_hours(tmp_path):
    points = [{**p, "hours": 0} for p in POINTS]
    points += [{**p, "opponent": "random", "ppg": p["ppg"] + 1} for p in POINTS]
    out = strength_curve.plot(points, tmp_path / "two.png", game="nardi")
    assert out == tmp_path / "two.png" and out.stat().st_size > 5000


def test_a_bad_json_is_one_line(tmp_path, capsys):
    source = tmp_path / "bad.json"
    source.write_text('[{"games": 1}]')
    assert strength_curve.main(["--plot", str(source)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot plot it" in err


def test_measure_the_snapshots_of_a_run(tmp_path):
    """Every snapshot against a baseline, as JSON and a plot (tiny nets, a few games)."""
    import torch

    from model.net.checkpoint import save
    from model.net.network import NetConfig, OutcomeNet

    torch.manual_seed(0)
    for games in (100, 200):
        save(tmp_path / "run" / "snapshots" / f"games_{games:09d}.pt", OutcomeNet(NetConfig("nardi", (4,))),
             games=games, made_by={"seconds": games * 3.6})
    out = tmp_path / "docs" / "strength_nardi"
    assert strength_curve.main([str(tmp_path / "run"), "--opponent", "random", "--games", "2",
                                "--out", str(out)]) == 0
    points = json.loads(out.with_suffix(".json").read_text())
    assert [(p["games"], p["hours"], p["opponent"], p["game"]) for p in points] == [
        (100, 0.1, "random", "nardi"), (200, 0.2, "random", "nardi")]
    assert out.with_suffix(".png").stat().st_size > 5000
