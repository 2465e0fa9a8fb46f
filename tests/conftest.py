"""The slow tests, by name, in one place: ``python -m pytest -m "not slow"`` is the quick subset (under
two minutes on the 2-core development machine) for everyday work; CI runs everything.

A test is slow when it starts processes (train.py, gnubg, a fresh install), plays many games, or
builds a database; the list was drawn from ``pytest --durations=0`` (each over about 1.5 s there).
"""

from __future__ import annotations

import model.runtime  # noqa: F401  (first: numpy's BLAS on one thread, as the command lines run it)

# isort: split
import pytest

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
)


def pytest_collection_modifyitems(items):
    """Mark every test whose id starts with an entry of SLOW as ``slow``."""
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
