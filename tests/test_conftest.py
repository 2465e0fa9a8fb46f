"""What tests/conftest.py promises every session: the bear-off databases in a temporary cache folder of
the session (never the user's ~/.cache/nardibot), and under CI (NARDIBOT_CI=1, set by .ci/run) no test
skipped for a missing tool and hypothesis derandomised, so that a failure found in CI reproduces."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from model.net import bearoff as bo
from tests.helpers import ROOT

USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "nardibot"


def _outside_ci(**env: str) -> dict[str, str]:
    """This environment as if no CI ran it: without NARDIBOT_CI and without the variables by which
    hypothesis (its "ci" profile) and pytest (untruncated summaries) detect a CI machine, plus env."""
    from hypothesis._settings import _CI_VARS  # the names hypothesis looks for; pytest adds BUILD_NUMBER

    detected = {"NARDIBOT_CI", "BUILD_NUMBER", *_CI_VARS}
    clean = {k: v for k, v in os.environ.items() if k not in detected}
    return {**clean, "PYTHONPATH": str(ROOT), **env}


def _python(code: str, **env: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=_outside_ci(**env), check=True)
    return done.stdout.strip()


def test_the_bear_off_cache_is_a_temporary_folder_of_the_session():
    """The databases a test builds go to a fresh folder under the temporary directory, which the
    processes the tests start use too; not the user's cache."""
    folder = bo.cache_dir()
    assert folder.resolve() != USER_CACHE.resolve()
    assert folder.resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())
    assert _python("from model.net.bearoff import cache_dir; print(cache_dir())") == str(folder)
    bo.one_sided()
    assert (folder / bo.ONE_SIDED_FILE).is_file()


def test_under_ci_hypothesis_is_derandomised_without_a_deadline():
    """With NARDIBOT_CI=1 the settings the fuzz tests build on (tests/strategies.py's FUZZ among them)
    draw the same inputs every run; without it, hypothesis keeps its own default (random) seeds."""
    probe = ("import tests.conftest, tests.strategies as s; from hypothesis import settings; "
             "print(settings.default.derandomize, settings.default.deadline, s.FUZZ.derandomize, s.FUZZ.deadline)")
    assert _python(probe, NARDIBOT_CI="1").split() == ["True", "None", "True", "None"]
    assert _python(probe).split()[0] == "False"


SKIPPING = '''
import pytest

@pytest.mark.skipif(True, reason="sometool is not installed")
def test_needs_a_tool():
    pass

def test_needs_an_extra():
    pytest.importorskip("no_such_module_anywhere")

def test_runs():
    pass
'''
SKIPPED_MODULE = 'import pytest\npytest.importorskip("no_such_module_anywhere")\n\ndef test_x():\n    pass\n'


def test_under_ci_a_skipped_test_fails_the_run(tmp_path):
    """A test skipped for a missing tool or extra (skipif, importorskip in the test or at module level)
    fails the run under NARDIBOT_CI=1, saying why; without it the same tests are only skipped."""
    (tmp_path / "test_skipping.py").write_text(SKIPPING)
    (tmp_path / "test_skipped_module.py").write_text(SKIPPED_MODULE)

    def pytest_run(*names: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
                               "-q", "-rA", *(str(tmp_path / name) for name in names)], cwd=ROOT,
                              capture_output=True, text=True, timeout=300, env=_outside_ci(**env), check=False)

    plain = pytest_run("test_skipping.py", "test_skipped_module.py")
    assert plain.returncode == 0 and "1 passed, 3 skipped" in plain.stdout, plain.stdout[-2000:]
    ci = pytest_run("test_skipping.py", NARDIBOT_CI="1")
    # a skipif fails in the test's setup (an error), a skip inside the test in its call (a failure)
    assert ci.returncode == 1 and "1 failed, 1 passed, 1 error" in ci.stdout, ci.stdout[-2000:]
    assert "sometool is not installed" in ci.stdout and "no_such_module_anywhere" in ci.stdout
    assert ci.stdout.count("skipped under CI, where every test must run") == 2
    module = pytest_run("test_skipped_module.py", NARDIBOT_CI="1")  # a collection error: the run stops
    assert module.returncode != 0 and "skipped under CI" in module.stdout, module.stdout[-2000:]
