"""When the compiled kernels run (engine/compiled.py): not in a short command, after the warm-up in a
long one, from the first call with NARDIBOT_NUMBA_WARMUP=0, never with NARDIBOT_NO_NUMBA=1; and the
answer is the same whichever path ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import compiled

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
CHOOSE = """
import json, sys
from model import Bot
bot = Bot.load()
move = bot.choose("4HPwATDgc/ABMA", [3, 1])["move"]
plays = [p["move"] for p in bot.rank("4HPwATDgc/ABMA", "43")]
print(json.dumps({"numba": "numba" in sys.modules, "move": move, "plays": plays}))
"""


def run_choose(**env) -> dict:
    """A fresh process asks the shipped bot for a play and a ranking; whether it imported numba."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NARDIBOT_NUMBA") and k != "NARDIBOT_NO_NUMBA"}
    done = subprocess.run([sys.executable, "-c", CHOOSE], cwd=ROOT, env={**clean, "PYTHONPATH": str(ROOT), **env},
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_short_command_stays_on_numpy_and_the_answers_agree():
    """A couple of evaluations do not import numba (its import would cost more than they take);
    with the warm-up at 0 the kernels run from the first call, and give the same plays; with
    NARDIBOT_NO_NUMBA=1 numba is never imported."""
    short = run_choose()
    eager = run_choose(NARDIBOT_NUMBA_WARMUP="0")
    off = run_choose(NARDIBOT_NUMBA_WARMUP="0", NARDIBOT_NO_NUMBA="1")
    assert not short["numba"] and eager["numba"] and not off["numba"]
    assert short["move"] == eager["move"] == off["move"] and short["plays"] == eager["plays"] == off["plays"]


def test_the_kernels_are_due_once_the_warm_up_is_spent(monkeypatch):
    """numba_due turns true when the numpy paths have spent the warm-up, not before; use_numba
    overrides it both ways."""
    monkeypatch.setattr(compiled, "_forced", None)
    monkeypatch.setattr(compiled, "_installed", None)
    monkeypatch.setattr(compiled, "_numpy_seconds", 0.0)
    monkeypatch.setattr(compiled, "WARMUP_SECONDS", 0.5)
    monkeypatch.delenv("NARDIBOT_NO_NUMBA", raising=False)
    assert not compiled.numba_due()
    compiled.charge_numpy(0.3)
    assert not compiled.numba_due()
    compiled.charge_numpy(0.3)
    assert compiled.numba_due()
    assert compiled.use_numba(False) is None and not compiled.numba_due()
    assert compiled.use_numba(None) is False and compiled.numba_due()
    monkeypatch.setattr(compiled, "_installed", None)
    monkeypatch.setenv("NARDIBOT_NO_NUMBA", "1")
    assert not compiled.numba_due()


def test_a_warm_up_that_is_not_a_number_of_seconds_takes_the_default():
    """NARDIBOT_NUMBA_WARMUP=abc must not break every command at import."""
    from engine.compiled import _warmup_seconds

    assert _warmup_seconds("abc") == 0.5 and _warmup_seconds("-1") == 0.5 and _warmup_seconds(None) == 0.5
    assert _warmup_seconds("0") == 0.0 and _warmup_seconds("2.5") == 2.5


def test_the_kernel_that_is_not_bit_for_bit_runs_only_from_a_process_first_call(monkeypatch):
    """The exact kernels change over after the warm-up; the small-batch forward pass (float32
    rounding apart from numpy's) never does in such a process, only where numba runs from the
    first call (no warm-up, or use_numba(True)): so a process never changes its numbers on the way."""
    from model.net import bearoff, inference

    monkeypatch.setattr(compiled, "_forced", None)
    monkeypatch.setattr(compiled, "_installed", None)
    monkeypatch.setattr(compiled, "_numpy_seconds", 0.0)
    monkeypatch.setattr(compiled, "WARMUP_SECONDS", 0.5)
    monkeypatch.delenv("NARDIBOT_NO_NUMBA", raising=False)
    compiled.charge_numpy(1.0)
    assert compiled.numba_due() and not compiled.numba_from_start()
    assert bearoff._kernels() is not None and inference._kernels() is None
    monkeypatch.setattr(compiled, "WARMUP_SECONDS", 0.0)
    assert compiled.numba_from_start() and inference._kernels() is not None
    monkeypatch.setattr(compiled, "WARMUP_SECONDS", 0.5)
    compiled.use_numba(True)
    assert inference._kernels() is not None
    compiled.use_numba(False)
    assert inference._kernels() is None and bearoff._kernels() is None


def test_a_seeded_rollout_is_the_same_whenever_the_kernels_come_in():
    """A rollout's figures do not depend on the moment the exact kernels take over (warm-up 0.05 s
    against never): the forward pass stays on the matrix library in both."""
    script = ("import dataclasses; from model import Bot; r = Bot.load().rollout('4HPwATDgc/ABMA', '31', trials=72, batch=4, "
              "seed=3, truncate=5); print(repr(dataclasses.replace(r, seconds=0.0)).replace(chr(10), ' '))")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NARDIBOT_NUMBA") and k != "NARDIBOT_NO_NUMBA"}
    answers = []
    for env in ({"NARDIBOT_NUMBA_WARMUP": "0.05"}, {"NARDIBOT_NO_NUMBA": "1"}):
        done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600,
                              env={**clean, "PYTHONPATH": str(ROOT), **env}, check=True)
        answers.append(done.stdout.splitlines()[-1])
    assert answers[0] == answers[1]


def test_use_every_kernel_turns_them_on_unless_numba_is_switched_off(monkeypatch):
    """use_every_kernel (a rollout's processes, nardibot rollout): every kernel from now, the forward pass
    included; not where use_numba(False) or NARDIBOT_NO_NUMBA says no; returns what use_numba restores."""
    from model.net import inference

    monkeypatch.setattr(compiled, "WARMUP_SECONDS", 0.5)
    monkeypatch.setattr(compiled, "_numpy_seconds", 0.0)
    monkeypatch.delenv("NARDIBOT_NO_NUMBA", raising=False)
    monkeypatch.setattr(compiled, "_installed", None)
    monkeypatch.setattr(compiled, "_forced", None)
    assert inference._kernels() is None
    assert compiled.use_every_kernel() is None and compiled.numba_from_start() and inference._kernels() is not None
    assert compiled.use_numba(None) is True and inference._kernels() is None
    monkeypatch.setattr(compiled, "_forced", False)
    assert compiled.use_every_kernel() is False and inference._kernels() is None
    monkeypatch.setattr(compiled, "_forced", None)
    monkeypatch.setenv("NARDIBOT_NO_NUMBA", "1")
    monkeypatch.setattr(compiled, "_installed", None)
    assert compiled.use_every_kernel() is None and compiled._forced is None and inference._kernels() is None


@pytest.mark.parametrize("command, argv, work", [
    ("cmd_match", ["random", "random", "--games", "2", "--no-progress"], "run_match"),
    ("cmd_cube", ["random", "random", "--matches", "2", "--length", "1", "--no-progress"], "run"),
    ("cmd_rollout", ["4HPwATDgc/ABMA", "--dice", "31", "--trials", "2", "--truncate", "1", "--processes", "1",
                     "--no-progress"], "rollout_answer"),
])
def test_long_commands_run_every_kernel_and_give_the_setting_back(monkeypatch, capsys, command, argv, work):
    """duel, cube and rollout play with every kernel from their start (use_every_kernel), and leave the
    process as they found it (a command run inside another program)."""
    import importlib

    module = importlib.import_module(f"nardibot.cli.{command}")
    monkeypatch.setattr(compiled, "_forced", None)
    monkeypatch.setattr(compiled, "_installed", None)
    monkeypatch.setattr(compiled, "WARMUP_SECONDS", 0.5)
    monkeypatch.delenv("NARDIBOT_NO_NUMBA", raising=False)
    original, seen = getattr(module, work), []

    def spy(*args, **kwargs):
        seen.append(compiled.numba_from_start())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, work, spy)
    assert module.main(argv) == 0
    capsys.readouterr()
    assert seen == [True] and compiled._forced is None and not compiled.numba_from_start()
