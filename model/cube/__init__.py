"""Cube theory: the doubling cube and match play, as gnubg 1.07 decides them from the five cubeless
probabilities.

``match_equity`` (the cube/score state ``CubeState`` and match-winning chances), ``met`` (match
equity tables read from gnubg's XML files), ``decisions`` (cube efficiency, cubeful equity, the one
``CubeDecision``), ``exact_bearoff`` (exact money decisions of short bear-offs from the two-sided
database) and ``resign`` (the value of resignations). The cube owner is engine.cube_state's
``CubeOwner`` everywhere.

Layer: above ``model.net``, below search; the choice of an action (``CubePolicy``) is the players'.
"""
