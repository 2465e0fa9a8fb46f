"""Games between two players, batched, with mirrored dice (engine/dice.py): cubeless (``cubeless``)
and with the cube or whole matches (``cubeful``), both over the games-in-flight pieces of ``pool``
(slots dealt games or matches, one select call per player), which self-play shares; luck-adjusted
results (``luck``); and ``benchmark``, the checker-play benchmark: a player's picks on stored positions
judged by gnubg 2-ply.

Layer: above the players, below training.
"""
