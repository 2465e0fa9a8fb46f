"""The layers hold: imports run downward only (the import-linter contracts in pyproject.toml), and no
two modules import each other, not even through an import inside a function."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "model", "nardibot")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """import-linter's command on the packages under ``root`` with ``root``'s pyproject.toml."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--config", str(root / "pyproject.toml"), "--no-cache"],
                          cwd=root, env={"PYTHONPATH": str(root), "PATH": ""}, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_layer_contracts_are_kept():
    """Every contract of pyproject.toml holds on the code as it is."""
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout and "0 broken" in done.stdout


def test_an_upward_import_breaks_the_contract(tmp_path):
    """The contracts are not empty words: the rules importing the command line (an upward import,
    hidden in a function) is reported, naming the importing module and the one it imports."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.pyc", "__pycache__",
                                                                                           "static", "data"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    board = tmp_path / "engine" / "board.py"
    board.write_text(board.read_text() + "\n\ndef _upward():\n    from nardibot.cli import main  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "BROKEN" in done.stdout and "engine.board -> nardibot.cli" in done.stdout


def module_imports() -> dict[str, set[str]]:
    """Every module of the packages and the package modules it imports, at the top or in a function."""
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            modules[name] = path
    edges = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # a relative import, resolved against the module's own package
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)
        edges[name] = {other for other in found if other in modules and other != name}
    return edges


def test_no_two_modules_import_each_other():
    """No import cycle among the modules, counting imports inside functions (which would hide one)."""
    edges = module_imports()
    cycles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for other in sorted(edges[module]):
            if state.get(other) == 1:
                cycles.append(" -> ".join(path[path.index(other):] + [other]))
            elif other not in state:
                visit(other, path + [other])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_no_two_modules_share_a_file_name():
    """Every module's file name says which one it is (no two rollout.py or game.py)."""
    names: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name not in ("__init__.py", "__main__.py"):
                names.setdefault(path.name, []).append(str(path.relative_to(ROOT)))
    assert not {name: paths for name, paths in names.items() if len(paths) > 1}
