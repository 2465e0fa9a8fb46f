"""Looking further than the network: n-ply look-ahead and the move filter (``lookahead``), rollouts
(``rollout``: the candidates and statistics; ``trials``: the batched trials themselves;
``rollout_workers``: the trials spread over processes or Ray workers) and, for the rollouts' variance
reduction, a few good plays of each roll found by pubeval's score (``top_plays``).

Layer: above cube theory (cubeful rollouts decide the cube with ``model.cube.decisions``), below the
players (``model.players.cube_policy`` looks ahead through ``lookahead``).
"""
