"""The subcommands of ``nardibot``: their names, the module that runs each and its line in ``--help``
(nardibot/cli/main.py dispatches by this table; the match command lists the names in its help)."""

from __future__ import annotations

MATCH = "nardibot.cli.cmd_match"

COMMANDS: dict[str, tuple[str, str]] = {
    "hint": ("nardibot.cli.cmd_hint", "best plays or cube decision of a position"),
    "rollout": ("nardibot.cli.cmd_rollout", "roll out a position or the plays of a roll"),
    "cube": ("nardibot.cli.cmd_cube", "games with the cube and full matches, bot vs bot"),
    "analyse": ("nardibot.cli.cmd_analyse", "rate every decision and roll of a .mat or .sgf match"),
    "play": ("nardibot.cli.cmd_play", "play the bot in the terminal"),
    "serve": ("nardibot.cli.cmd_serve", "gnubg's external-player protocol over TCP"),
    "web": ("nardibot.cli.cmd_web", "the HTTP API and the browser page (the [web] extra)"),
    "ubgi": ("nardibot.cli.cmd_ubgi", "the UBGI engine protocol on stdin/stdout"),
    "duel": (MATCH, "cubeless games between two players, mirrored dice"),
    "match": (MATCH, "the same as duel (and as giving no subcommand)"),
    "benchmark": ("nardibot.cli.cmd_benchmark", "checker-play error rates judged by gnubg 2-ply"),
    "train": ("nardibot.cli.cmd_train", "train a network from scratch: a recipe, or self-play (the [train] extra)"),
}
"""Each subcommand: (its module, whose ``main(argv)`` runs it; its one line in ``nardibot --help``)."""
