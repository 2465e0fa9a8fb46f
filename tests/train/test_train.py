"""train.py on a tiny budget: it learns, checkpoints, resumes, survives a kill, refuses bad flags."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from model.net.checkpoint import load_net, read

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}


def run_train(*flags, check=True):
    """Run train.py with small settings; returns the completed process."""
    cmd = [sys.executable, str(ROOT / "train.py"), "--threads", "1", "--parallel-games", "32",
           "--samples-per-update", "1024", "--hidden", "16", "--eval-every", "0", *flags]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=300, cwd=ROOT, check=False)
    if check:
        assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def test_tiny_run_writes_checkpoints_and_resumes(tmp_path):
    """A few hundred games write last.pt, snapshots, TensorBoard logs and --out (.safetensors); --resume
    continues."""
    run = tmp_path / "run"
    out = tmp_path / "final.safetensors"
    run_train("--game", "nardi", "--games", "150", "--checkpoint-every", "50", "--run-dir", str(run),
              "--out", str(out))
    first = read(run / "last.pt")
    assert first["games"] >= 150 and first["optimizer"] is not None
    assert list((run / "snapshots").glob("games_*.pt"))
    assert list((run / "tb").iterdir())
    _, blob = load_net(out, "nardi")
    assert blob["optimizer"] is None and "train.py" in blob["made_by"]["command"]
    run_train("--game", "nardi", "--games", "300", "--run-dir", str(run), "--resume")
    assert read(run / "last.pt")["games"] >= 300


def test_kill_at_a_random_moment_then_resume(tmp_path):
    """SIGKILL mid-run never leaves a corrupt checkpoint, and --resume goes on from the last one."""
    run = tmp_path / "run"
    cmd = [sys.executable, str(ROOT / "train.py"), "--threads", "1", "--parallel-games", "32",
           "--samples-per-update", "512", "--hidden", "16", "--eval-every", "0", "--game", "backgammon",
           "--games", "100000", "--checkpoint-every", "20", "--run-dir", str(run)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, cwd=ROOT)
    deadline = time.time() + 120
    while not (run / "last.pt").exists() and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1.3)  # somewhere in the middle of later writes
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    games = read(run / "last.pt")["games"]
    assert games > 0
    run_train("--game", "backgammon", "--games", str(games + 40), "--run-dir", str(run), "--resume")
    assert read(run / "last.pt")["games"] >= games + 40


def test_bad_flags_and_bad_resume_give_one_line(tmp_path):
    """Bad flags exit 2 with a message, and resuming a missing or corrupt run is refused cleanly."""
    proc = run_train("--game", "chess", check=False)
    assert proc.returncode == 2 and "--game" in proc.stderr and "Traceback" not in proc.stderr
    for flags in (("--game", "nardi", "--play-prune", "8"), ("--target", "one-ply", "--play-prune", "8"),
                  ("--play-prune", "-1")):
        proc = run_train(*flags, check=False)
        assert proc.returncode == 2 and "--play-prune" in proc.stderr and "Traceback" not in proc.stderr
    for flags, said in ((("--lr", "-1"), "--lr"), (("--lr", "nan"), "--lr"), (("--explore", "2"), "--explore"),
                        (("--minutes", "-1"), "--minutes"), (("--eval-every", "-1"), "--eval-every"),
                        (("--eval-games", "3"), "--eval-games"), (("--seed", "-5"), "--seed"),
                        (("--threads", "-2"), "--threads")):
        proc = run_train(*flags, check=False)  # each used to run (or crash at the first strength check)
        assert proc.returncode == 2 and said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    (tmp_path / "file").write_text("")
    proc = run_train("--run-dir", str(tmp_path / "file" / "run"), check=False)  # a folder that cannot be made
    assert proc.returncode == 2 and "cannot write the run folder" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_train("--run-dir", str(tmp_path / "out"), "--out", str(tmp_path / "missing" / "net.safetensors"),
                     check=False)  # refused before the games, not after them
    assert proc.returncode == 2 and "--out: cannot write" in proc.stderr and not (tmp_path / "out").exists()
    proc = run_train("--game", "nardi", "--run-dir", str(tmp_path / "none"), "--resume", check=False)
    assert proc.returncode == 2 and "cannot resume" in proc.stderr and "Traceback" not in proc.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "last.pt").write_bytes(b"garbage")
    proc = run_train("--game", "nardi", "--run-dir", str(tmp_path / "bad"), "--resume", check=False)
    assert proc.returncode == 2 and "not a readable checkpoint" in proc.stderr
    assert (tmp_path / "bad" / "last.pt").read_bytes() == b"garbage"  # nothing saved is lost


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a running process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_sigterm_stops_cleanly_with_a_checkpoint(tmp_path):
    """SIGTERM (a scheduler stopping the job) saves last.pt with every game played and exits 130."""
    run = tmp_path / "run"
    cmd = [sys.executable, str(ROOT / "train.py"), "--threads", "1", "--parallel-games", "32",
           "--samples-per-update", "512", "--hidden", "16", "--eval-every", "0", "--game", "backgammon",
           "--games", "100000", "--checkpoint-every", "100000", "--run-dir", str(run)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV, cwd=ROOT,
                            start_new_session=True)
    deadline = time.time() + 300
    while not list((run / "tb").glob("*")) and time.time() < deadline:
        time.sleep(0.2)
    # the run is set up; let it play for 5 of its own CPU seconds (hundreds of games at this size),
    # however loaded the machine: a wall-clock wait could end before its first game did
    start = cpu_seconds(proc.pid)
    while cpu_seconds(proc.pid) < start + 5 and time.time() < deadline:
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err[-3000:]
    assert read(run / "last.pt")["games"] > 0  # no checkpoint interval was reached: this is the stop's own


def test_learning_rate_schedule():
    """--lr-schedule gives the rate in force by games played; a malformed one is refused with exit 2."""
    from model.train import selfplay as train
    from model.train.selfplay_args import lr_at, lr_schedule

    args = train.parse_args(["--lr-schedule", "150000:3e-4,0:1e-3,320000:1e-4"])
    schedule = lr_schedule(args)
    assert [lr_at(schedule, g) for g in (0, 149_999, 150_000, 400_000)] == [1e-3, 1e-3, 3e-4, 1e-4]
    assert lr_schedule(train.parse_args(["--lr", "0.01"])) == [(0, 0.01)]
    for bad in ("5:1e-3", "0:fast", "0:-1"):
        proc = run_train("--lr-schedule", bad, check=False)
        assert proc.returncode == 2 and "--lr-schedule" in proc.stderr and "Traceback" not in proc.stderr


def test_a_first_signal_asks_the_run_to_stop_and_a_second_stops_it_at_once():
    """StopRequest: the first SIGINT/SIGTERM only sets ``requested`` (the loop stops once the update under
    way is learned, so that no interrupt lands inside numba's compiler or the optimizer's step), the
    second raises KeyboardInterrupt; ``restore`` gives back the handlers it replaced."""
    from model.train.selfplay import StopRequest

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    said = []
    stop = StopRequest(said.append).install()
    try:
        assert signal.getsignal(signal.SIGTERM) is stop and signal.getsignal(signal.SIGINT) is stop
        os.kill(os.getpid(), signal.SIGTERM)  # handled between bytecodes, here
        assert stop.requested and len(said) == 1 and "again" in said[0]
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # the handler runs before the sleep ends
    finally:
        stop.restore()
    assert {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} == before
