"""Pubeval as a player: the legal play with the highest pubeval score (model/net/pubeval.py scores
it). For thirty years bots have reported their strength as points per game against it (see
docs/benchmarking.md)."""

from __future__ import annotations

from engine.board import has_contact
from model.net.pubeval import pubeval_scores
from model.players.base import Player
from model.players.heuristic import best_plays


class PubevalPlayer(Player):
    """Plays the legal play with the highest pubeval score (backgammon only)."""

    name = "pubeval"

    def __init__(self, game: str = "backgammon"):
        if game != "backgammon":
            raise ValueError(f"pubeval plays backgammon only, not {game!r}")
        super().__init__(game)

    def scores(self, positions, dice, children, parent):
        """Pubeval's score of every child (N,); race weights where the position before had no contact."""
        race = ~has_contact(self.game, positions)  # (B,): judged BEFORE the play
        return pubeval_scores(children, race[parent])

    def select(self, positions, dice, children, parent):
        return best_plays(self.scores(positions, dice, children, parent), children, parent, len(positions))
