"""The policy: every player behind one name (``registry``), the ``Player`` interface (``base``), the
network player (``net_player``, with the loaders of checkpoints as players), the network looking
ahead (``lookahead_player``), the baselines (``heuristic``, ``pubeval_player``, ``gnubg``), the one
cube-aware choice of checker play and of every cube action (``cube_policy.CubePolicy``, used by hint,
play, serve, the arena and the analysis) and cube players for batches of game states
(``cube_players``).

Layer: above search, below the arena, training and analysis.
"""
