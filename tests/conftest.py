"""What every test session shares.

- The slow tests, by name, in one place: ``python -m pytest -m "not slow"`` is the quick subset (under
  two minutes on the 2-core development machine) for everyday work; CI runs everything. A test is slow
  when it starts processes (train.py, gnubg, a fresh install), plays many games, or builds a database;
  the list was drawn from ``pytest --durations=0`` (each over about 1.5 s there).
- The bear-off databases go to a temporary cache folder made for the session ($NARDIBOT_CACHE_DIR, which
  the processes the tests start inherit), never the user's ~/.cache/nardibot; they are built once per
  session, the first time a test needs them, and the folder is removed at the end.
- Under CI (``NARDIBOT_CI=1``, which .ci/run sets) every test must run: a test skipped for a missing
  tool or extra (gnubg, chromium, gnubg-nn, Ray...) fails instead, and hypothesis is derandomised
  (its inputs are a function of the test, so a failure found in CI reproduces) and has no deadline
  where a test's own settings set none.
"""

from __future__ import annotations

import model.runtime  # noqa: F401  (first: numpy's BLAS on one thread, as the command lines run it)

# isort: split
import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from model.net.bearoff import CACHE_ENV

CI = os.environ.get("NARDIBOT_CI", "") not in ("", "0")
"""Set by .ci/run: skips become failures and hypothesis is derandomised."""

settings.register_profile("nardibot-ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
if CI:  # before the test modules make their settings (tests/strategies.py's FUZZ inherits from it)
    settings.load_profile("nardibot-ci")


SLOW = (
    "tests/train/test_train.py",
    "tests/train/test_resume.py::test_resume_a_copy_of_the_shipped_run_for_a_few_games",
    "tests/train/test_resume.py::test_games_stop_where_asked_and_the_bar_stays_within_its_total",
    "tests/train/test_strength_curve.py",
    "tests/train/test_td.py::test_actor_plays_legal_games_and_learner_reduces_loss",
    "tests/test_install.py",
    "tests/engine/test_openspiel.py",
    "tests/engine/test_bench.py",
    "tests/engine/test_match.py::test_random_matches_keep_the_rules_and_add_up",
    "tests/engine/test_movegen.py::test_fast_matches_reference_over_all_rolls",
    "tests/engine/test_movegen.py::test_random_sets_exercise_every_rule",
    "tests/engine/test_movegen.py::test_fast_matches_reference_on_thrown_dice",
    "tests/engine/test_notation.py::test_every_written_form_reads_back_to_its_play",
    "tests/engine/test_notation.py::test_steps_replayed_as_gnubg_does_reach_the_play",
    "tests/engine/test_notation.py::test_notation_and_plays_agree_with_live_gnubg",
    "tests/net/test_bearoff.py",
    "tests/formats/test_fuzz.py",
    "tests/formats/test_fuzz_mat.py",
    "tests/formats/test_fuzz_sgf.py",
    "tests/cli/test_fuzz_ubgi.py",
    "tests/web/test_game_record.py::test_the_page_links_the_record_and_ticks_the_defaults",
    "tests/web/test_fuzz_api.py",
    "tests/formats/test_matfile.py::test_gnubg_imports_our_file_and_replays_the_same_games",
    "tests/cli/test_fuzz_lines.py",
    "tests/cli/test_evaluate.py::test_a_checkpoint_plays_and_a_wrong_game_is_refused",
    "tests/cli/test_evaluate.py::test_a_corrupt_checkpoint_is_refused",
    "tests/cli/test_serve.py::test_gnubg",
    "tests/cli/test_play.py::test_mat_saves_the_session_for_gnubg",
    "tests/cli/test_play.py::test_quit_and_bad_flags",
    "tests/cli/test_play.py::test_scripted_match_to_the_end",
    "tests/cli/test_rollout.py",
    "tests/search/test_rollout.py",
    "tests/search/test_rollout_workers.py::test_one_and_two_workers_give_identical_statistics",
    "tests/train/test_actors.py",
    "tests/arena/test_cube_arena.py::test_network_players_play_money_matches_and_nardi_through_the_runner",
    "tests/arena/test_cube_arena.py::test_mirrored_matches_replay_the_same_dice_with_seats_swapped",
    "tests/arena/test_cube_arena.py::test_recorded_matches_become_mat_records_with_a_on_the_left",
    "tests/arena/test_arena.py::test_recorded_plays_become_a_money_session_of_legal_games",
    "tests/players/test_players.py::test_a_short_match_against_gnubg",
    "tests/cube/test_policy.py::test_every_entry_point_makes_the_same_checker_play",
    "tests/web/test_page.py",
    "tests/web/test_api.py::test_command_line_errors_are_one_line",
    "tests/web/test_api.py::test_rollout_job_runs_to_its_result",
    "tests/cli/test_ubgi.py",
    "tests/analysis/test_agreement.py",
    "tests/analysis/test_review.py::test_the_nets_own_plays_and_cube_actions_lose_nothing_at_its_own_depth",
    "tests/test_strength_floor.py",
    "tests/test_conftest.py",
    "tests/cube/test_exact_bearoff_gnubg.py",
)


def pytest_collection_modifyitems(items):
    """Mark every test whose id starts with an entry of SLOW as ``slow``."""
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config):
    """The session's bear-off cache folder, before any test module or process looks for the databases."""
    config.nardibot_cache = tempfile.mkdtemp(prefix="nardibot-test-cache-")
    os.environ[CACHE_ENV] = config.nardibot_cache


def pytest_unconfigure(config):
    """The session's bear-off cache goes with the session."""
    if getattr(config, "nardibot_cache", None):
        shutil.rmtree(config.nardibot_cache, ignore_errors=True)


def _skip_is_a_failure(report) -> None:
    """Under CI, turn a skipped ``report`` into a failure that says what was skipped and why."""
    if not (CI and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (f"skipped under CI, where every test must run (NARDIBOT_CI=1; .ci/run installs what "
                       f"the suite needs): {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test skipped for a missing tool (skipif, pytest.skip, importorskip inside it) fails under CI."""
    outcome = yield
    _skip_is_a_failure(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """So does a whole module skipped at import (a module-level importorskip)."""
    outcome = yield
    _skip_is_a_failure(outcome.get_result())
