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


def test_benchmark_panel_and_hours_on_the_bottom_axis(tmp_path, capsys):
    """Benchmark points get a second panel; --x hours puts hours below, and needs growing hours."""
    bench = [{"games": p["games"], "hours": p["hours"], "game": "backgammon",
              "benchmark": {c: [10.0 - i, 1.0] for c in ("contact", "crashed", "race", "overall")}}
             for i, p in enumerate(POINTS)]
    source = tmp_path / "strength_backgammon_v3.json"
    source.write_text(json.dumps(POINTS + bench))
    assert strength_curve.main(["--plot", str(source), "--x", "hours", "--format", "svg"]) == 0
    svg = (tmp_path / "strength_backgammon_v3.svg").read_text()
    assert "benchmark error rate" in svg and "hours of training" in svg and "games trained" in svg
    other = tmp_path / "gnubg.json"
    other.write_text(json.dumps([{**p, "opponent": "gnubg-0ply", "ppg": -p["ppg"]} for p in POINTS]))
    both = tmp_path / "both"
    assert strength_curve.main(["--plot", str(source), str(other), "--out", str(both), "--x", "hours"]) == 0
    merged = json.loads(both.with_suffix(".json").read_text())
    assert len(merged) == 9 and {p.get("opponent") for p in merged} == {"pubeval", "gnubg-0ply", None}
    assert both.with_suffix(".png").stat().st_size > 5000
    source.write_text(json.dumps([{**p, "hours": 0} for p in POINTS]))
    assert strength_curve.main(["--plot", str(source), "--x", "hours"]) == 2
    assert "needs every point's hours" in capsys.readouterr().err


def test_measure_against_two_opponents_and_the_benchmark(tmp_path, capsys):
    """A tiny backgammon snapshot against two baselines and on the benchmark; a bad name is refused
    before any game."""
    import torch

    from model.net.checkpoint import save
    from model.net.network import NetConfig, OutcomeNet

    torch.manual_seed(0)
    save(tmp_path / "run" / "snapshots" / "games_000000100.pt", OutcomeNet(NetConfig("backgammon", (4,))),
         games=100, made_by={"seconds": 360})
    out = tmp_path / "curve"
    assert strength_curve.main([str(tmp_path / "run"), "--opponent", "random,nobody", "--out", str(out)]) == 2
    assert "--opponent" in capsys.readouterr().err and not out.with_suffix(".json").exists()
    assert strength_curve.main([str(tmp_path / "run"), "--opponent", "random,heuristic", "--games", "2",
                                "--benchmark", "--out", str(out)]) == 0
    points = json.loads(out.with_suffix(".json").read_text())
    assert [p.get("opponent") for p in points] == ["random", "heuristic", None]
    er = points[2]["benchmark"]
    assert set(er) >= {"contact", "crashed", "race", "overall"} and points[2]["hours"] == 0.1
    assert all(v[0] > 0 and v[1] > 0 for k, v in er.items() if k != "bearoff")  # a random net errs


def test_fixed_nets_at_given_hours(tmp_path, capsys):
    """--nets measures files at the hours given (fits write no snapshots: same games, later hours); the
    points carry their label and plot by hours after a run's snapshots; a bad entry is one line."""
    import torch

    from model.net.checkpoint import save
    from model.net.network import NetConfig, OutcomeNet

    torch.manual_seed(0)
    for name in ("a", "b"):
        save(tmp_path / f"{name}.pt", OutcomeNet(NetConfig("nardi", (4,))), games=90000, made_by={"seconds": 3600})
    out = tmp_path / "fits"
    assert strength_curve.main(["--nets", f"{tmp_path / 'a.pt'}@1.5@A", f"{tmp_path / 'b.pt'}@2.25",
                                "--opponent", "random", "--games", "2", "--x", "hours", "--out", str(out)]) == 0
    points = json.loads(out.with_suffix(".json").read_text())
    assert [(p["games"], p["hours"], p.get("net")) for p in points] == [(90000, 1.5, "A"), (90000, 2.25, None)]
    run = tmp_path / "run.json"
    run.write_text(json.dumps([{**p, "opponent": "random"} for p in POINTS]))
    both = tmp_path / "both"
    assert strength_curve.main(["--plot", str(run), str(out.with_suffix(".json")), "--x", "hours",
                                "--format", "svg", "--out", str(both)]) == 0
    svg = both.with_suffix(".svg").read_text()
    assert "hours of training" in svg and "games trained" not in svg  # no games axis: fits add none
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:
        strength_curve.main(["--nets", "a.pt@soon", "--out", str(out)])
    assert stop.value.code == 2
    assert "--nets a.pt@soon" in capsys.readouterr().err
    later_but_fewer = tmp_path / "bad.json"
    later_but_fewer.write_text(json.dumps([{**POINTS[0], "hours": 5.0}, POINTS[1]]))
    assert strength_curve.main(["--plot", str(later_but_fewer), "--x", "hours"]) == 2
