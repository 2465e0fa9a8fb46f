"""Players: the ``Player`` interface (``base``), every player behind one name (``registry``), the
network player (``net_player``) and the baselines (``heuristic``, ``pubeval``, ``gnubg``).

A player picks one play per position for a batch; it knows nothing of the cube.
Imports: ``engine`` and ``model.net``.
"""
