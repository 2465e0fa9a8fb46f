"""The analysis of a match: every checker play, cube decision and roll of a .mat or .sgf file, rated.

    report = analyse_match(bot, open("match.mat").read(), ReviewSettings(ply=2, rollout=144))

model/analysis/review.py does the work with the bot's network; the report is the JSON-ready dict that
``nardibot analyse --json`` prints and ``/api/analyse`` serves (its schema: nardibot/cli/cmd_analyse.py's
docstring).
"""

from __future__ import annotations

from model.analysis.review import SCHEMA, ReviewSettings, analyse_mat_text

__all__ = ["SCHEMA", "ReviewSettings", "analyse_match"]


def analyse_match(bot, text: str, settings: ReviewSettings | None = None) -> dict:
    """The analysis of a .mat or .sgf file's ``text`` (told apart by the content) by ``bot`` (a model.bot
    ``Bot`` with a backgammon network) with ``settings`` (default: ``ReviewSettings()``); FormatError (a
    ValueError) with one line for text that is neither or that the rules refuse, ValueError for a bot
    without a backgammon network or bad settings."""
    device = getattr(bot.player, "device", "cpu")
    return analyse_mat_text(text, bot.net, settings or ReviewSettings(), name=bot.name, device=device)
