"""Looking further than the network: n-ply look-ahead (``lookahead``).

Imports: ``engine``, ``model.net`` and ``model.players``.
"""
