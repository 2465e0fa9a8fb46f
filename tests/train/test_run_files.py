"""What a training run leaves in its folder: a checkpoint that cannot be written (a full disk) stops the
run with one line and leaves the previous last.pt as it was; only the latest --keep-snapshots snapshots
are kept; TensorBoard's charts/mean_game_plies is the mean length of the games finished."""

import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from model.net.checkpoint import read, save
from model.net.network import NetConfig, OutcomeNet
from model.train import selfplay as train
from model.train.selfplay_args import resume_args

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
NARDI_RUN = ROOT / "experiments" / "resume" / "nardi" / "last.pt"  # written before --keep-snapshots
SMALL = ["--threads", "1", "--parallel-games", "16", "--samples-per-update", "256", "--hidden", "16",
         "--eval-every", "0", "--game", "nardi", "--no-progress"]


def run_train(*flags: str, file_limit: int | None = None) -> subprocess.CompletedProcess:
    """train.py with small settings; ``file_limit``: no file it writes may grow past this many bytes
    (RLIMIT_FSIZE: a write past it fails with EFBIG, as one on a full disk fails with ENOSPC)."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run([sys.executable, str(ROOT / "train.py"), *SMALL, *flags], capture_output=True,
                          text=True, env=ENV, cwd=ROOT, timeout=300, check=False,
                          preexec_fn=limit if file_limit else None)


def leftovers(run: Path) -> list[str]:
    """Temporary files of atomic writes left in the run's folder."""
    return [str(p) for p in run.rglob("*.tmp")]


def test_a_write_to_a_full_disk_raises_one_oserror_naming_the_file_and_keeps_the_old(tmp_path, monkeypatch):
    """A checkpoint written onto a full device (/dev/full: every write fails with ENOSPC, which torch's
    writer wraps in a RuntimeError) raises CheckpointWriteError, an OSError naming the checkpoint, and
    leaves the previous file as it was, with no temporary file."""
    from model.net import checkpoint
    from model.net.checkpoint import CheckpointWriteError

    net = OutcomeNet(NetConfig("nardi", (4,)))
    path = tmp_path / "last.pt"
    save(path, net, games=1)
    before = path.read_bytes()
    make_temp = checkpoint.tempfile.mkstemp

    def onto_a_full_disk(*args, **kwargs):
        fd, name = make_temp(*args, **kwargs)  # the temporary file exists, as on a real disk
        os.dup2(os.open("/dev/full", os.O_WRONLY), fd)
        return fd, name

    monkeypatch.setattr(checkpoint.tempfile, "mkstemp", onto_a_full_disk)
    for target in (path, tmp_path / "net.safetensors"):
        with pytest.raises(CheckpointWriteError) as e:
            save(target, net, games=2)
        assert isinstance(e.value, OSError) and e.value.filename == str(target)
        assert e.value.strerror == os.strerror(28) and "\n" not in str(e.value)
    monkeypatch.undo()
    assert path.read_bytes() == before and read(path)["games"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.pt"]


def test_a_checkpoint_that_cannot_be_written_stops_the_run_in_one_line_and_keeps_last_pt(tmp_path):
    """A new run whose first checkpoint cannot be written, and a resumed run whose next one cannot:
    one line on stderr naming the file and what the run still holds, exit 1, no traceback; the resumed
    run's last.pt is byte for byte the one it resumed from, and no temporary file is left."""
    fresh = tmp_path / "fresh"
    proc = run_train("--games", "20", "--checkpoint-every", "10", "--run-dir", str(fresh), file_limit=12_000)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("nardibot train: error: cannot write ")
    assert "File too large" in proc.stderr and "nothing of this run is saved" in proc.stderr
    assert not (fresh / "last.pt").exists() and not leftovers(fresh)

    run = tmp_path / "run"
    assert run_train("--games", "20", "--checkpoint-every", "10", "--run-dir", str(run)).returncode == 0
    before = (run / "last.pt").read_bytes()
    games = read(run / "last.pt")["games"]
    proc = run_train("--games", "60", "--run-dir", str(run), "--resume", file_limit=len(before) // 2)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"cannot write {run / 'last.pt'}: File too large" in proc.stderr
    assert f"{run / 'last.pt'} holds the run at {games} games (--resume goes on from there)" in proc.stderr
    assert (run / "last.pt").read_bytes() == before and not leftovers(run)
    assert run_train("--games", "30", "--run-dir", str(run), "--resume").returncode == 0  # room again: it goes on


def checkpoint_games(stdout: str) -> list[int]:
    """The games of each checkpoint a --no-progress run printed."""
    return [int(n) for n in re.findall(r"^(\d+)/\d+ games, .*; wrote ", stdout, re.MULTILINE)]


def scalars(run: Path, tag: str) -> list[float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run / "tb"))
    acc.Reload()
    return [e.value for e in acc.Scalars(tag)] if tag in acc.Tags()["scalars"] else []


def test_only_the_latest_snapshots_are_kept_and_the_mean_game_length_is_logged(tmp_path):
    """By default a run keeps its 5 latest snapshots (and any other file in snapshots/); resumed with
    --keep-snapshots 0 it keeps every one from then on. TensorBoard's charts/mean_game_plies is the
    mean plies of the games finished, at least the 29 plies any long-nardi game lasts."""
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    (run / "snapshots" / "notes.txt").write_text("mine")
    proc = run_train("--games", "90", "--checkpoint-every", "6", "--run-dir", str(run))
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = checkpoint_games(proc.stdout)
    assert len(written) > 5
    kept = sorted((run / "snapshots").glob("games_*.pt"))
    assert [p.name for p in kept] == [f"games_{g:09d}.pt" for g in written[-5:]]
    assert (run / "snapshots" / "notes.txt").read_text() == "mine"
    assert read(run / "last.pt")["args"]["keep_snapshots"] == 5

    lengths = scalars(run, "charts/mean_game_plies")
    assert lengths and min(lengths) >= 29 and not scalars(run, "charts/plies_per_game")

    proc = run_train("--games", "150", "--run-dir", str(run), "--resume", "--keep-snapshots", "0")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "changed --games 150 (was 90), --keep-snapshots 0 (was 5)" in proc.stdout
    more = checkpoint_games(proc.stdout)
    assert more and sorted((run / "snapshots").glob("games_*.pt")) == sorted(
        kept + [run / "snapshots" / f"games_{g:09d}.pt" for g in more])


def test_keep_snapshots_is_checked_and_a_run_from_before_it_keeps_every_snapshot(capsys):
    """--keep-snapshots below 0 is one usage line; a new run keeps 5; a run whose last.pt was written
    before the setting existed resumes keeping all (nothing it has is deleted unless asked)."""
    assert train.parse_args([]).keep_snapshots == 5
    with pytest.raises(SystemExit) as e:
        train.parse_args(["--keep-snapshots", "-1"])
    assert e.value.code == 2 and "--keep-snapshots" in capsys.readouterr().err
    blob = read(NARDI_RUN)
    assert "keep_snapshots" not in blob["args"]
    argv = ["--run-dir", "runs/x", "--resume"]
    args, line = resume_args(train.parse_args(argv), argv, blob)
    assert args.keep_snapshots == 0 and "--keep-snapshots 0" in line.split(";")[0]
    argv += ["--keep-snapshots", "3"]
    args, line = resume_args(train.parse_args(argv), argv, blob)
    assert args.keep_snapshots == 3 and "changed --keep-snapshots 3 (was 0)" in line
    assert "--keep-snapshots" in train.build_parser().format_help()
