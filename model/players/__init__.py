"""Players: the ``Player`` interface (``base``), every player behind one name (``registry``), the
network player (``net_player``), the network looking ahead (``lookahead_player``) and the baselines
(``heuristic``, ``pubeval``, ``gnubg``).

A player picks one play per position for a batch; it knows nothing of the cube.
Imports: ``engine`` and ``model.net``; ``lookahead_player`` alone also ``model.cube.policy`` (the one
ranking of plays at n plies, hint's), and the registry imports it only when a spec asks for look-ahead.
"""
