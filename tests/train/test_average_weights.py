"""scripts/average_weights.py: the written net's weights are the sources' mean, it loads and plays, and
mismatched or missing sources give one usage line."""

from __future__ import annotations

import numpy as np

from model.net.checkpoint import load_net, read, write_safetensors
from tests.helpers import ROOT, run_script

NARDI = ROOT / "checkpoints" / "nardi.safetensors"
BACKGAMMON = ROOT / "checkpoints" / "backgammon.safetensors"


def shifted(tmp_path, name, delta):
    """A copy of the shipped nardi net with ``delta`` added to every weight."""
    blob = read(NARDI, backend="numpy")
    blob["weights"] = {k: v + np.float32(delta) for k, v in blob["weights"].items()}
    path = tmp_path / name
    write_safetensors(path, blob)
    return path


def test_the_average_is_the_mean_of_the_sources_and_plays(tmp_path):
    a, b = shifted(tmp_path, "a.safetensors", 0.5), shifted(tmp_path, "b.safetensors", -0.25)
    out = tmp_path / "mean.safetensors"
    proc = run_script("average_weights.py", NARDI, a, b, out)
    assert proc.returncode == 0, proc.stderr[-2000:]
    shipped, mean = read(NARDI, backend="numpy"), read(out, backend="numpy")
    for name, value in shipped["weights"].items():  # (w + (w + 0.5) + (w - 0.25)) / 3 = w + 1/12
        np.testing.assert_allclose(mean["weights"][name], value + 1 / 12, atol=1e-6)
    assert mean["net_config"] == shipped["net_config"] and mean["games"] == shipped["games"]
    sources = mean["made_by"]["averaged_from"]
    assert [s["file"] for s in sources] == [str(NARDI), str(a), str(b)]
    assert all(len(s["sha256"]) == 64 for s in sources)
    net, _ = load_net(out)
    again, _ = load_net(NARDI)
    assert net.config == again.config


def test_mismatched_or_too_few_sources_are_one_usage_line(tmp_path):
    out = tmp_path / "mean.safetensors"
    for args, says in [((NARDI, BACKGAMMON, out), "differ in game"),
                       ((NARDI, out), "at least two"),
                       ((NARDI, NARDI, tmp_path / "mean.pt"), "must end in .safetensors"),
                       ((NARDI, tmp_path / "missing.pt", out), "missing.pt")]:
        proc = run_script("average_weights.py", *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert says in proc.stderr.strip().splitlines()[-1]
    assert not out.exists()
