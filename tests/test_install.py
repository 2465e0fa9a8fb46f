"""The light install: the README's first command plays without torch, tqdm or tensorboard (the [train]
extra), the package declares its `nardibot` command, and its dependencies stay light."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from tests.helpers import ROOT

TRAIN_ONLY = ("torch", "tqdm", "tensorboard")
"""What the [train] extra brings; the plain install has none of them."""

WITHOUT_TRAIN_EXTRA = f"""
import sys
for name in {TRAIN_ONLY!r}:
    sys.modules[name] = None  # any import of it now fails, as on the plain install
from nardibot.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def run_light(*args: str) -> subprocess.CompletedProcess:
    """The nardibot command (nardibot/cli/main.py) with ``args``, in a fresh interpreter that cannot import
    torch, tqdm or tensorboard."""
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", WITHOUT_TRAIN_EXTRA, *args], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def readme_commands() -> list[str]:
    """The README's indented commands that install something, in order (what a new user runs first)."""
    text = (ROOT / "README.md").read_text()
    return [line.strip() for line in text.splitlines() if re.match(r"^    .*pip install", line)]


def test_readme_first_command_installs_no_torch_and_answers_the_hint():
    """The README's first command installs the plain project (no extra, no torch) and runs a nardibot
    command that answers without torch, tqdm or tensorboard: the shipped net's best 31 opening."""
    first = readme_commands()[0]
    install, _, command = first.partition(" && ")
    assert install == "pip install -e ." and "torch" not in first
    words = shlex.split(command)
    assert words[:2] == ["nardibot", "hint"]
    done = run_light(*words[1:], "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["plays"][0]["move"] == "8/5 6/5"


def test_readme_second_command_installs_the_extras_ci_runs():
    """The second README command installs the extras the tests need and runs pytest; .ci/run runs it."""
    second = readme_commands()[1]
    assert re.search(r'-e "\.\[train,plots,test,openspiel,gnubg,web,ray\]"', second) and second.endswith("python -m pytest")
    assert second in (ROOT / ".ci" / "run").read_text().replace("pip install -q ", "pip install ")


def test_readme_bot_api_example_runs_verbatim_without_torch():
    """The README's Python example of the Bot API runs as written (from the repository root) on the plain
    install, and its first choice is the play its comment shows."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## The Bot API"):]
    block = re.search(r"\n\n((?:    .*\n)+)", section).group(1)
    code = "\n".join(line[4:] for line in block.splitlines())
    assert code.startswith("from model import Bot")
    check = code + '\nassert bot.choose("4HPwATDgc/ABMA", [3, 1])["move"] == "8/5 6/5"\nprint("ok")\n'
    blocker = WITHOUT_TRAIN_EXTRA.split("from nardibot.cli.main")[0]
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", blocker + check], check=False, cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


@pytest.mark.parametrize("args", [
    ["checkpoints/nardi.safetensors", "random", "--game", "nardi", "--games", "2", "--seed", "1"],
    ["cube", "checkpoints/backgammon.safetensors", "pubeval", "--games", "2", "--seed", "1"],
    ["hint", ('{"board": [-1,0,0,0,0,0, 0,0,0,0,0,-14, 0,0,0,0,0,0, 0,0,0,0,0,15], "bar": [0,0], '
              '"off": [0,0]}'),
     "--game", "nardi", "--dice", "65", "--ply", "1"],
])
def test_benchmarks_and_nardi_run_without_the_train_extra(args):
    """A benchmark between a shipped net and a baseline, games with the cube, and a nardi hint at 1-ply
    run on numpy alone."""
    done = run_light(*args)
    assert done.returncode == 0, done.stderr


def test_a_training_checkpoint_without_torch_is_refused_in_one_line():
    """A .pt file needs torch: without it, one line says to install the [train] extra."""
    done = run_light("hint", "4HPwATDgc/ABMA", "--dice", "31",
                     "--bot", "experiments/resume/backgammon/last.pt")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "install the [train] extra (torch)" in done.stderr


def test_pyproject_declares_nardibot_and_light_dependencies():
    """`nardibot` is the dispatch of evaluate.py; the plain dependencies leave out the [train] extra's."""
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["nardibot"] == "nardibot.cli.main:main"
    names = [re.split(r"[<>=!~ \[]", d)[0].lower() for d in project["dependencies"]]
    assert not set(names) & set(TRAIN_ONLY) and "safetensors" in names
    train = {re.split(r"[<>=!~ \[]", d)[0].lower() for d in project["optional-dependencies"]["train"]}
    assert train == set(TRAIN_ONLY)
    from nardibot.cli.main import SUBCOMMANDS, main

    assert callable(main) and {"hint", "play", "serve", "cube", "match"} <= set(SUBCOMMANDS)


def test_ray_is_imported_only_for_actors_and_workers():
    """train.py and evaluate.py rollout import Ray only for --actors N / --workers N: the modules that
    use it load without it."""
    code = ("import sys; sys.modules['ray'] = None; import train, model.train.actors, model.net.cluster, "
            "model.search.rollout_workers, nardibot.cli.cmd_rollout; from model.net.cluster import start_ray, ClusterError\n"
            "try:\n    start_ray()\nexcept ClusterError as e:\n    print(e)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 0 and "needs Ray: pip install -e '.[ray]'" in done.stdout, done.stderr
