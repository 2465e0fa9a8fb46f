"""Looking further than the network: n-ply look-ahead (``lookahead``) and rollouts (``rollout``: the
candidates and statistics; ``trials``: the batched trials themselves).

Imports: ``engine``, ``model.net``, ``model.players``, ``model.cube`` (cube decisions in cubeful
rollouts) and ``model.arena.cubeless`` (its counter-based dice).
"""
