"""nardibot train RECIPE (model/train/pipeline.py): a scaled-down recipe runs every stage and gates, a run
killed with kill -9 in a label stage and in a fit goes on with --resume redoing at most the chunk or
epoch under way, SIGTERM stops the label workers with the job, and a bad recipe gets one line, exit 2."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from model.net.checkpoint import read
from model.train import pipeline
from model.train.recipe import load
from nardibot.cli.cmd_train import main as train_main
from tests.helpers import ROOT

ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
SELFPLAY = """
[[stage]]
name = "td"
kind = "selfplay"
games = 48
hidden = [16]
parallel_games = 16
samples_per_update = 512
checkpoint_every = 16
"""
TINY = """
[recipe]
game = "backgammon"
""" + SELFPLAY + """
[[stage]]
name = "oneply"
kind = "selfplay"
games = 16
target = "one-ply"
lam = 0.0
parallel_games = 16
samples_per_update = 256
checkpoint_every = 16

[[stage]]
name = "sib"
kind = "labels"
positions = 40
chunk = 10
plies = 1
siblings = 4
warmup = 20
every = 8
actor = "sample"
parallel_games = 8

[[stage]]
name = "fit1"
kind = "fit"
labels = ["sib"]
epochs = 2
lr = 1e-4
batch_size = 16
holdout = 0.25
rank_weight = 3.0

[[stage]]
name = "gate1"
kind = "gate"
games = 20

[[stage]]
name = "wide"
kind = "widen"
hidden = 24

[[stage]]
name = "deep"
kind = "deepen"

[[stage]]
name = "aside"
kind = "selfplay"
aside = true
games = 16
hidden = [8]
parallel_games = 16
samples_per_update = 256
checkpoint_every = 16

[[stage]]
name = "two"
kind = "labels"
positions = 20
chunk = 10
plies = 2
warmup = 10
parallel_games = 8
seed = 100
teacher_also = ["aside"]

[[stage]]
name = "fit2"
kind = "fit"
labels = ["two", "sib"]
epochs = 1
batch_size = 16
holdout = 0.0

[[stage]]
name = "ship"
kind = "export"
out = "tiny.safetensors"
half = true
"""


def recipe(tmp_path: Path, text: str, name: str = "r.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def start(*args, entry: str = "nardibot") -> subprocess.Popen:
    command = [sys.executable, str(ROOT / "evaluate.py"), "train"] if entry == "nardibot" else \
        [sys.executable, str(ROOT / "train.py")]
    return subprocess.Popen([*command, *map(str, args), "--no-progress", "--workers", "1"], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def manifest(run: Path) -> dict:
    return pipeline.Manifest.read(run).blob


def test_a_scaled_down_recipe_runs_every_stage_and_gates(tmp_path):
    run = tmp_path / "run"
    code, out, err = finish(start(recipe(tmp_path, TINY), "--run-dir", run))
    assert code == 0, err[-3000:]
    names = [s.name for s in load(str(tmp_path / "r.toml")).stages]
    blob = manifest(run)
    assert [f["name"] for f in blob["stages"]] == names and "running" not in blob
    assert all(f["seconds"] >= 0 and f["summary"] for f in blob["stages"])
    for number, name in enumerate(names, 1):  # a one-line summary per stage
        assert re.search(rf"^\[{number}/{len(names)}\] {name}: .+\(\d+\.\d min\)$", out, re.MULTILINE), out
    gate = next(f for f in blob["stages"] if f["kind"] == "gate")
    assert re.search(r"mirrored games: (kept|rejected)", gate["summary"])
    assert "against stages/oneply/last.pt" in gate["summary"]  # the first gate: the net before the fit
    assert len(list((run / "stages" / "sib").glob("chunk_*.npz"))) == 4
    # a net aside leaves the run's net as it was, and teaches the labels of a later stage with it
    entries = {f["name"]: f for f in blob["stages"]}
    assert entries["aside"]["state"] == entries["deep"]["state"] and entries["aside"]["net"] == "stages/aside/last.pt"
    assert read(run / "stages" / "aside" / "last.pt")["net_config"]["hidden"] == [8]
    with np.load(run / "stages" / "two" / "chunk_00000.npz") as chunk:
        assert chunk["teacher_also"].tolist() == ["aside"]  # as the recipe names it
    assert "labelled by the mean with aside" in read(run / blob["state"])["made_by"]["fitted"]
    # the current net is the last stage's, widened and deepened; the export carries the run's manifest
    current = read(run / "net.safetensors", backend="numpy")
    assert current["net_config"]["hidden"] == [24, 24]
    state = read(run / blob["state"])
    assert all(np.array_equal(current["weights"][k], state["weights"][k].numpy()) for k in current["weights"])
    exported = read(run / "tiny.safetensors", backend="numpy")
    for name, value in exported["weights"].items():  # half = true: the hidden weights rounded to float16 values
        source = state["weights"][name].numpy()
        if name.startswith("body.") and name.endswith(".weight"):
            assert np.array_equal(value, source.astype(np.float16).astype(np.float32)) and value.dtype == np.float32
        else:
            assert np.array_equal(value, source)
    shipped = exported["made_by"]["recipe"]
    assert [s["name"] for s in shipped["stages"]] == names[:-1] and shipped["sha256"] == blob["recipe_sha256"]
    assert shipped["stages"][3]["settings"]["rank_weight"] == 3.0 and "fits" in read(run / blob["state"])["made_by"]
    assert list((run / "tb").glob("events.out.tfevents.*"))  # one TensorBoard run for every stage
    # run again: the folder is refused without --resume; with it, nothing is left to do
    again = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "train", str(tmp_path / "r.toml"),
                            "--run-dir", str(run)], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120,
                           check=False)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "holds a recipe run" in again.stderr
    code, out, err = finish(start("--run-dir", run, "--resume", entry="train.py"))
    assert code == 0 and "recipe done" in out and "] td (selfplay)" not in out, err[-2000:]


def wait_for(proc: subprocess.Popen, ready, what: str, timeout: float = 300) -> None:
    end = time.time() + timeout
    while not ready():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before {what}: {proc.stderr.read()[-3000:]}")
        if time.time() > end:
            proc.kill()
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.02)


SLOW = """
[recipe]
game = "backgammon"
""" + SELFPLAY + """
[[stage]]
name = "lab"
kind = "labels"
positions = 60
chunk = 10
plies = 2
prune = 0
warmup = 10
parallel_games = 8

[[stage]]
name = "fit"
kind = "fit"
labels = ["lab"]
epochs = 400
batch_size = 4
holdout = 0.0

[[stage]]
name = "out"
kind = "export"
"""


def test_kill_9_in_a_label_stage_and_in_a_fit_then_resume_redoes_at_most_the_work_under_way(tmp_path):
    run, path = tmp_path / "run", recipe(tmp_path, SLOW)
    lab = run / "stages" / "lab"
    proc = start(path, "--run-dir", run)
    wait_for(proc, lambda: len(list(lab.glob("chunk_*.npz"))) >= 2, "two label chunks")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    kept = {p.name: p.stat().st_mtime_ns for p in lab.glob("chunk_*.npz")}
    assert 2 <= len(kept) < 6 and manifest(run)["running"]["name"] == "lab"
    proc = start("--run-dir", run, "--resume")
    fit = run / "stages" / "fit"
    wait_for(proc, lambda: (fit / "fit.pt").is_file(), "a fit checkpoint")
    time.sleep(0.3)
    assert not (fit / "last.pt").exists()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert {p.name: p.stat().st_mtime_ns for p in lab.glob("chunk_*.npz") if p.name in kept} == kept
    assert len(list(lab.glob("chunk_*.npz"))) == 6  # the chunks made before the kill were not made again
    done = int(read(fit / "fit.pt")["train_state"]["fit_epochs_done"])
    code, out, err = finish(start("--run-dir", run, "--resume"))
    assert code == 0, err[-3000:]
    assert re.search(r"going on after epoch (\d+)", out) and int(re.search(r"after epoch (\d+)", out)[1]) >= done
    assert [f["name"] for f in manifest(run)["stages"]] == ["td", "lab", "fit", "out"]
    assert "400 epochs" in read(fit / "last.pt")["made_by"]["fitted"]
    # exported in a sitting that read DIR/recipe.toml: the provenance names the recipe the run began with
    shipped = read(run / "backgammon.safetensors", backend="numpy")["made_by"]["recipe"]
    assert shipped["recipe"] == str(path) and [s["name"] for s in shipped["stages"]] == ["td", "lab", "fit"]


def test_sigterm_stops_the_label_workers_with_the_job(tmp_path):
    run = tmp_path / "run"
    text = SLOW.replace("positions = 60", "positions = 200")
    proc = subprocess.Popen([sys.executable, str(ROOT / "evaluate.py"), "train", str(recipe(tmp_path, text)),
                             "--run-dir", str(run), "--workers", "2", "--no-progress"], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(proc, lambda: any((run / "stages" / "lab").glob("chunk_*.npz")), "a label chunk")
    workers = [int(p) for p in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]
    assert len(workers) >= 2
    proc.send_signal(signal.SIGTERM)
    code, _, err = finish(proc, 120)
    assert code == 130 and "stopped in stage lab" in err and "--resume" in err
    time.sleep(0.5)
    assert not [p for p in workers if Path(f"/proc/{p}").exists() and "zombie" not in
                Path(f"/proc/{p}/status").read_text().lower()]
    running = manifest(run)["running"]
    assert running["name"] == "lab" and running["seconds"] > 0


def test_a_rejected_candidate_gives_way_to_the_net_it_was_measured_against(tmp_path, monkeypatch):
    from model.arena import cubeless

    class Lost:  # the candidate lost clearly
        ppg, ci95 = -0.5, 0.1

    monkeypatch.setattr(cubeless, "play_games", lambda *a, **k: Lost())
    text = "[recipe]\ngame = \"backgammon\"\n" + SELFPLAY + """
[[stage]]
name = "wide"
kind = "widen"
hidden = 20

[[stage]]
name = "gate"
kind = "gate"
games = 2
"""
    run = tmp_path / "run"
    assert pipeline.main([str(recipe(tmp_path, text)), "--run-dir", str(run), "--no-progress", "--workers", "1"]) == 0
    blob = manifest(run)
    assert blob["state"] == blob["kept"] == "stages/td/last.pt"  # a second gate would measure against it
    assert "rejected, the run goes on from stages/td/last.pt" in blob["stages"][-1]["summary"]
    assert read(run / "net.safetensors", backend="numpy")["net_config"]["hidden"] == [16]


def test_the_stage_under_way_keeps_its_seconds_in_the_manifest_as_it_goes(tmp_path, monkeypatch):
    """So that a kill -9 loses at most KEEP_SECONDS of a run's recorded hours, not the whole stage's."""
    monkeypatch.setattr(pipeline, "KEEP_SECONDS", 0.0)
    seen, write = [], pipeline.Manifest.write

    def recording(self):
        running = self.blob.get("running") or {}
        seen.append((running.get("name"), running.get("seconds", 0.0)))
        write(self)

    monkeypatch.setattr(pipeline.Manifest, "write", recording)
    run = tmp_path / "run"
    text = "[recipe]\ngame = \"backgammon\"\n" + SELFPLAY
    assert pipeline.main([str(recipe(tmp_path, text)), "--run-dir", str(run), "--no-progress", "--workers", "1"]) == 0
    during = [s for name, s in seen if name == "td"]
    assert len(during) > 2 and during == sorted(during) and during[-1] > 0
    assert manifest(run)["stages"][0]["seconds"] >= round(during[-1], 1)


BAD = [
    ("[recipe]\ngame = \"chess\"\n" + SELFPLAY, "game must be backgammon or nardi"),
    ("[recipe]\ngame = \"nardi\"\n" + SELFPLAY.replace("games = 48", "games = \"many\""), "games must be int"),
    ("[recipe]\ngame = \"nardi\"\n" + SELFPLAY.replace("hidden = [16]", "hiden = [16]"), "unknown setting 'hiden'"),
    ("[recipe]\ngame = \"nardi\"\n" + SELFPLAY + "[[stage]]\nname = \"f\"\nkind = \"fit\"\nlabels = [\"td\"]\n",
     "'td' is not an earlier labels stage"),
    ("[recipe]\ngame = \"nardi\"\n" + SELFPLAY + "[[stage]]\nname = \"td\"\nkind = \"deepen\"\n",
     "another stage is already named td"),
    ("[recipe]\ngame = \"nardi\"\n[[stage]]\nname = \"d\"\nkind = \"deepen\"\n", "the first stage must be selfplay"),
    ("[recipe]\ngame = \"nardi\"\n[[stage]]\nname = \"x\"\nkind = \"magic\"\n", "kind must be one of"),
    ("[recipe\ngame = 1", "not valid TOML"),
    ("[recipe]\ngame = \"nardi\"\n", "no [[stage]] tables"),
    ("stage = [1, 2]\n[recipe]\ngame = \"nardi\"\n", "stage 1 is not a [[stage]] table"),
    ("[recipe]\ngame = \"nardi\"\n" + SELFPLAY + "target = \"bogus\"\n", "target must be sample or one-ply"),
    ("[recipe]\ngame = \"backgammon\"\n" + SELFPLAY + "features = 1\n", "features:"),
    ("[recipe]\ngame = \"nardi\"\n" + SELFPLAY + "[[stage]]\nname = \"l\"\nkind = \"labels\"\nteacher_also = [\"tdd\"]\n",
     "teacher_also 'tdd' is neither an earlier selfplay stage nor a net file"),
]


@pytest.mark.parametrize(("text", "says"), BAD)
def test_a_bad_recipe_gets_one_line_and_exit_2(tmp_path, capsys, text, says):
    assert train_main([str(recipe(tmp_path, text)), "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nardibot train: error: ") and says in err and err.count("\n") == 1, err
    assert not (tmp_path / "run").exists()


def test_resuming_refuses_a_recipe_that_changes_finished_stages(tmp_path, capsys):
    run, path = tmp_path / "run", recipe(tmp_path, "[recipe]\ngame = \"nardi\"\n" + SELFPLAY.replace("48", "16"))
    assert train_main([str(path), "--run-dir", str(run), "--no-progress", "--workers", "1"]) == 0
    longer = recipe(tmp_path, path.read_text() + "\n[[stage]]\nname = \"deep\"\nkind = \"deepen\"\n", "longer.toml")
    assert train_main([str(longer), "--run-dir", str(run), "--resume", "--no-progress"]) == 0  # later stages may change
    assert [f["name"] for f in manifest(run)["stages"]] == ["td", "deep"]
    changed = recipe(tmp_path, path.read_text().replace("hidden = [16]", "hidden = [32]"), "changed.toml")
    capsys.readouterr()
    assert train_main([str(changed), "--run-dir", str(run), "--resume"]) == 2
    assert "changes the stages" in capsys.readouterr().err
    assert train_main(["missing-recipe", "--run-dir", str(tmp_path / "other")]) == 2
    assert "no recipe 'missing-recipe'" in capsys.readouterr().err


def test_a_run_folder_that_cannot_be_read_or_written_gets_one_line(tmp_path, capsys):
    """A recipe run's folder without its recipe, with a manifest that is not one, or that cannot be
    made; and plain self-play flags on a recipe run's folder (which would have trained inside it)."""
    run, path = tmp_path / "run", recipe(tmp_path, "[recipe]\ngame = \"nardi\"\n" + SELFPLAY.replace("48", "16"))
    assert train_main([str(path), "--run-dir", str(run), "--no-progress", "--workers", "1"]) == 0
    capsys.readouterr()
    assert train_main(["--run-dir", str(run), "--games", "2"]) == 2
    assert "holds a recipe run" in capsys.readouterr().err and not (run / "last.pt").exists()
    (run / "recipe.toml").unlink()
    assert train_main(["--run-dir", str(run), "--resume"]) == 2
    assert "cannot read the run's recipe" in capsys.readouterr().err
    (run / "manifest.json").write_text('{"stages": []}')
    assert train_main(["--run-dir", str(run), "--resume"]) == 2
    assert "not a recipe run's manifest" in capsys.readouterr().err
    assert train_main([str(path), "--run-dir", "/proc/no-such-run"]) == 2
    err = capsys.readouterr().err
    assert "cannot write the run folder" in err and err.count("\n") == 1


def test_the_recipe_may_stand_anywhere_among_the_flags():
    from nardibot.cli.cmd_train import is_recipe_run

    assert is_recipe_run(["--run-dir", "r", "quick"]) and is_recipe_run(["--no-progress", "quick", "--run-dir", "r"])
    assert not is_recipe_run(["--game", "backgammon", "--games", "10", "--run-dir", "r"])
    assert not is_recipe_run(["--run-dir", "r", "--resume"])  # no manifest there: a self-play run's resume


def test_the_shipped_recipes_read_and_name_their_stages():
    quick, backgammon, nardi = load("quick"), load("backgammon"), load("nardi")
    assert [s.kind for s in quick.stages] == ["selfplay", "labels", "fit", "gate", "export"]
    assert backgammon.game == "backgammon" and nardi.game == "nardi"
    kinds = [s.kind for s in backgammon.stages]
    assert kinds.count("fit") == 7 and kinds.count("deepen") == 1 and kinds[-1] == "export"
    # the shipped net's self-play: 674,802 games in all, the label counts of its seven rounds
    assert sum(s.settings.games for s in backgammon.stages if s.kind == "selfplay") == 674_802
    assert sum(s.settings.positions for s in backgammon.stages if s.kind == "labels") == 3_966_000
