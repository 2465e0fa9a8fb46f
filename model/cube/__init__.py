"""The doubling cube and match play, as gnubg 1.07 decides them from the five cubeless probabilities.

``match_equity`` (the cube/score state ``CubeState`` and match-winning chances), ``met`` (match
equity tables read from gnubg's XML files), ``decisions`` (cube efficiency, cubeful equity, double /
take decisions), ``resign`` (offering and accepting resignations), ``policy`` (the one cube-aware
choice of checker play and of every cube action, used by hint, play, serve and the arena), and
``players`` (cube players for batches of engine.game states).

Imports: ``engine``, ``model.net``, ``model.players``, ``model.search``.
"""
