"""Looking further than the network: n-ply look-ahead (``lookahead``) and rollouts (``rollout``: the
candidates and statistics; ``trials``: the batched trials themselves; ``rollout_workers``: the
trials spread over Ray workers).

Imports: ``engine``, ``model.net``, ``model.players``, ``model.cube.decisions`` (cube decisions in
cubeful rollouts; ``model.cube.policy`` in turn uses ``lookahead``, never the rollouts) and
``model.arena.pool`` (its counter-based dice).
"""
