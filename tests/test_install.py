"""The light install: the README's first command plays without torch, tqdm or tensorboard (the [train]
extra), the package declares its `nardibot` command, and its dependencies stay light. The wheel
(`python -m build`) carries the shipped nets and the data the commands read, and a fresh virtual
environment that installs it (not editable, no torch) answers a hint from any folder."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

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
    assert train == {*TRAIN_ONLY, "tomli"}  # tomli reads the recipes where Python (3.10) has no tomllib
    assert any(d.startswith("tomli") and "python_version < '3.11'" in d for d in project["optional-dependencies"]["train"])
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


SHIPPED_FOLDERS = {"checkpoints": "*.safetensors", "benchmarks": "*.npz", "recipes": "*.toml"}
"""The checkout's top-level data folders the wheel carries, as model/shipped/<folder>/ (setup.py's SHIPPED)."""
WHEEL_MAX_BYTES = 4_000_000
"""The wheel stays small: the code, the nets (1.4 MB) and the benchmark positions (0.65 MB), nothing else."""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """`python -m build` of the checkout into a temporary folder: the sdist, then the wheel built from the
    sdist (so the sdist must carry the shipped files too). {"sdist": path, "wheel": path}."""
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], check=False,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,), (wheel,) = out.glob("*.tar.gz"), out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    """A fresh virtual environment (no system site-packages, no torch) with the wheel pip-installed, not
    editable: its bin/ folder."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(built["wheel"])],
                          check=False, capture_output=True, text=True, timeout=600, env=outside_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return venv / "bin"


def outside_env() -> dict[str, str]:
    """The environment of a user outside the checkout: nothing on PYTHONPATH, no user site-packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return {**env, "PYTHONNOUSERSITE": "1", "OMP_NUM_THREADS": "1"}


def shipped_files() -> list[str]:
    """The files the wheel must carry from the checkout's data folders, as paths inside the wheel."""
    names = [f"model/shipped/{folder}/{path.name}" for folder, pattern in SHIPPED_FOLDERS.items()
             for path in sorted((ROOT / folder).glob(pattern))]
    assert any("checkpoints/backgammon.safetensors" in name for name in names)
    return names


def test_the_wheel_carries_the_shipped_files_and_no_tests(built):
    """Every shipped net and the benchmark positions are in the wheel (and in the sdist it was built
    from), byte for byte, with the packages' own data (MET tables, pubeval's weights, the web page);
    nothing else at the top (no tests/, experiments/, scripts/), and the wheel stays small."""
    with zipfile.ZipFile(built["wheel"]) as wheel:
        names = set(wheel.namelist())
        for name in shipped_files():
            assert name in names, f"the wheel lacks {name}"
            source = ROOT / Path(name).relative_to("model/shipped")
            assert wheel.read(name) == source.read_bytes(), f"{name} differs from the checkout's"
    for data in ("model/cube/data/met/g11.xml", "model/net/data/pubeval_weights.json",
                 "nardibot/web/static/index.html"):
        assert data in names
    tops = {name.split("/")[0] for name in names}
    assert {top for top in tops if not top.endswith(".dist-info")} == {"engine", "model", "nardibot"}
    packaged = {name for name in names if name.endswith(".py")}
    in_checkout = {str(path.relative_to(ROOT)) for top in ("engine", "model", "nardibot")
                   for path in (ROOT / top).rglob("*.py")}
    assert packaged == in_checkout, "the wheel's modules are the checkout's, none left over from an old build"
    assert built["wheel"].stat().st_size < WHEEL_MAX_BYTES
    with tarfile.open(built["sdist"]) as sdist:
        carried = {name.partition("/")[2] for name in sdist.getnames()}  # below nardibot-VERSION/
    assert {str(Path(name).relative_to("model/shipped")) for name in shipped_files()} <= carried


def test_the_installed_wheel_answers_a_hint_from_another_folder(installed, tmp_path):
    """The installed `nardibot` (not editable, no torch, run from a folder that is not the checkout)
    finds the shipped nets inside the installed package and answers the README's first hint."""
    done = subprocess.run([str(installed / "nardibot"), "hint", "4HPwATDgc/ABMA", "--dice", "31", "--json"],
                          check=False, capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=outside_env())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["plays"][0]["move"] == "8/5 6/5"
    torch = subprocess.run([str(installed / "python"), "-c", "import torch"], capture_output=True,
                           timeout=60, check=False)
    assert torch.returncode != 0, "the plain wheel install brings no torch"


def test_the_installed_package_finds_the_race_net_and_the_benchmark_inside_itself(installed, tmp_path):
    """The other shipped files the commands read (the race net of +race, the positions of `nardibot
    benchmark`) resolve inside the installed package too."""
    code = ("import model, model.net.race as r, model.arena.benchmark as b; from pathlib import Path; "
            "home = Path(model.__file__).parent / 'shipped'; "
            "print(r.RACE_NET.is_file() and r.RACE_NET.is_relative_to(home), "
            "b.DEFAULT_PATH.is_file() and b.DEFAULT_PATH.is_relative_to(home))")
    done = subprocess.run([str(installed / "python"), "-c", code], check=False, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=outside_env())
    assert done.returncode == 0 and done.stdout == "True True\n", done.stderr


def test_the_installed_version_names_the_shipped_nets_and_their_folder(installed, tmp_path):
    """`nardibot --version` says the version, the shipped nets and where they load from: inside the
    installed package, not the checkout."""
    from nardibot import __version__

    done = subprocess.run([str(installed / "nardibot"), "--version"], check=False, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=outside_env())
    assert done.returncode == 0 and done.stderr == ""
    first, nets, where = done.stdout.splitlines()
    assert first == f"nardibot {__version__}"
    names = sorted(path.stem for path in (ROOT / "checkpoints").glob("*.safetensors"))
    assert nets == "shipped nets: " + ", ".join(names) and "backgammon" in names
    folder = Path(where.removeprefix("loaded from: "))
    assert folder.parts[-3:] == ("model", "shipped", "checkpoints") and folder.is_relative_to(installed.parent)
    assert (folder / "backgammon.safetensors").is_file()


def test_version_in_the_checkout_loads_from_its_checkpoints_folder():
    """In a checkout (or an editable install) the nets load from the top-level checkpoints/ folder."""
    done = run_light("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["shipped nets: backgammon, backgammon-race, nardi",
                                            f"loaded from: {ROOT / 'checkpoints'}"]
