"""The analysis against GNU Backgammon 1.07's own (scripts/analysis_agreement.py) on one small match gnubg
plays with itself, one side at 0-ply and the other with evaluation noise, and analyses at 2-ply."""

from __future__ import annotations

import importlib.util

from tests.helpers import ROOT, needs_gnubg

spec = importlib.util.spec_from_file_location("analysis_agreement", ROOT / "scripts" / "analysis_agreement.py")
agreement = importlib.util.module_from_spec(spec)
spec.loader.exec_module(agreement)


@needs_gnubg
def test_error_rates_rank_the_players_as_gnubgs_do(tmp_path):
    """A 3-point match (seed 1): both analyses find the noisy player erring more per move, most of the
    plays gnubg marks bad or very bad are marked by ours too (the shares are printed), and the cube
    errors of both are compared decision by decision."""
    result = agreement.agreement(length=3, seeds=(1,), noise=0.06, ply=0, folder=tmp_path)
    [match] = result["matches"]
    s = result["summary"]
    print({k: v for k, v in match.items() if k != "loss_pairs"})
    assert match["plays"] > 20 and match["gnubg_bad"] > 0 and match["our_bad"] > 0
    assert match["same_ranking_checker"] and match["gnubg_checker_rate"][1] > match["gnubg_checker_rate"][0]
    assert match["our_checker_rate"][1] > match["our_checker_rate"][0]
    assert 0.5 <= s["share_gnubg_bad_we_mark"] <= 1 and 0 <= s["share_our_bad_gnubg_marks"] <= 1
    assert s["share_gnubg_bad_we_mark_bad"] <= s["share_gnubg_bad_we_mark"]
    # cube decisions, matched one by one: gnubg's one cube error here (the noisy side's take, found from
    # its alert and checked against its own statistics) is at a decision of ours; the counts each way
    # are consistent (marked ones among the errors, matched ones among the marked)
    assert match["cube_decisions"] > 20 and match["gnubg_cube_errors_by_kind"]["wrong take"] == 1
    for side in ("gnubg", "our"):
        errors, marked = match[f"{side}_cube_errors"], match[f"{side}_cube_marked"]
        assert sum(match[f"{side}_cube_errors_by_kind"].values()) == errors >= marked
    assert match["gnubg_cube_marked_we_mark"] <= match["gnubg_cube_marked_we_call_errors"] <= match["gnubg_cube_marked"]
    assert match["our_cube_marked_gnubg_marks"] <= match["our_cube_marked_gnubg_calls_errors"] <= match["our_cube_marked"]
    assert match["gnubg_cube_errors_we_call_errors"] == match["our_cube_errors_gnubg_calls_errors"]  # the same pairs
    assert len(match["cube_loss_pairs"]) == (match["gnubg_cube_errors"] + match["our_cube_errors"]
                                             - match["gnubg_cube_errors_we_call_errors"])
