"""Every exchange format of positions, matches and games, and pictures for people.

``position`` (our JSON form, gnubg Position ID, XGID, and ``read_position_text``, the one reader
every entry point uses), ``match_id`` (gnubg's Match ID and ``MatchInfo``), ``fibs`` (FIBS board
strings of gnubg's external-player protocol), ``matfile`` (Jellyfish .mat), ``sgf`` (gnubg's own
match files), ``matchfiles`` (the one reader and writer of both), ``matreplay`` (a match record
replayed through the rules of engine/game.py, step by step), ``pictures`` (the
terminal board and the SVG drawing). The formats are documented in docs/FORMATS.md.

Imports: the rules modules of ``engine`` only.
"""
